"""The package is one upload from PyPI: LICENSE matches the declared licence, CITATION.cff matches
the version, and (where ``build`` and ``twine`` are installed) the sdist and wheel build and pass
``twine check --strict``."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

try:
    import tomllib
except ImportError:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def test_license_file_matches_the_declared_licence() -> None:
    assert PROJECT["license"] == "MIT" and PROJECT["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License\n") and "Permission is hereby granted, free of charge" in text


def test_citation_file_names_this_version() -> None:
    text = (ROOT / "CITATION.cff").read_text()
    assert re.search(r"^cff-version: 1\.2\.0$", text, re.M)
    assert re.search(rf"^version: {re.escape(PROJECT['version'])}$", text, re.M)
    assert re.search(r"^license: MIT$", text, re.M) and "Revisiting Bi-Linear State Transitions" in text


def _setuptools_ok() -> bool:
    try:
        import setuptools
    except ImportError:
        return False
    return int(setuptools.__version__.split(".")[0]) >= 77


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("build") is None or importlib.util.find_spec("twine") is None
                    or not _setuptools_ok(), reason="needs build, twine and setuptools>=77 (pip install build twine)")
def test_sdist_and_wheel_build_and_pass_twine_check(tmp_path) -> None:
    built = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(tmp_path), str(ROOT)],
                           capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    assert "deprecated" not in built.stdout + built.stderr
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == [f"bilinear-{PROJECT['version']}-py3-none-any.whl", f"bilinear-{PROJECT['version']}.tar.gz"]
    checked = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", *map(str, tmp_path.iterdir())],
                             capture_output=True, text=True, timeout=300)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.count("PASSED") == 2
