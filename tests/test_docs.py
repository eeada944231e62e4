"""Every ``>>>`` example in README.md and docs/*.md runs (as a doctest)."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md")])


@pytest.mark.parametrize("path", DOCS, ids=[p.name for p in DOCS])
def test_markdown_examples_run(path: Path) -> None:
    if not path.exists():
        pytest.skip(f"{path.name} not written")
    result = doctest.testfile(
        str(path),
        module_relative=False,
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
        verbose=False,
    )
    assert result.failed == 0, f"{result.failed} example(s) failed in {path.name}"


def test_getting_started_installs_the_cpu_torch_the_readme_does() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    guide = (ROOT / "docs" / "getting-started.md").read_text(encoding="utf-8")
    step = "python -m pip install torch --index-url https://download.pytorch.org/whl/cpu"
    assert step in readme and step in guide
