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


@pytest.mark.parametrize("path", DOCS, ids=[p.name for p in DOCS])
def test_markdown_has_no_control_characters(path: Path) -> None:
    """A backslash escape lost in a generated string (``"\\beta"`` in Python is a backspace and
    ``eta``) leaves a control character that renders as nothing: ``$\\beta$`` becomes ``$eta$``."""
    text = path.read_text(encoding="utf-8")
    bad = [(text.count("\n", 0, i) + 1, repr(c)) for i, c in enumerate(text) if ord(c) < 32 and c not in "\n\t"]
    assert not bad, f"{path.name}: control characters at (line, char) {bad[:5]}"
