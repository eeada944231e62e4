"""Every module is on the map: README.md's module map names it under its folder, and
docs/architecture.md names it by path (``room/name.py``), so a reader finds the room from the
name and the name from the room.  The test reads the tree, so a module added later must be
added to both documents."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("bilinear", "automata", "constructions", "learned", "analysis")


def modules() -> list[tuple[str, str]]:
    """(folder, path inside it) of every module of the five packages and their sub-packages
    (``__init__.py`` excepted): ``("constructions", "proof/prover.py")``."""
    return [(folder, path.relative_to(ROOT / folder).as_posix()) for folder in FOLDERS
            for path in sorted((ROOT / folder).rglob("*.py")) if path.name != "__init__.py"]


def readme_map() -> dict[str, str]:
    """Folder -> the text of its entry in README.md's module map (the indented block that starts
    with ``bilinear/``)."""
    lines = (ROOT / "README.md").read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if re.match(r"^    bilinear/\s", line))
    entries: dict[str, str] = {}
    folder = None
    for line in lines[start:]:
        if not line.startswith("    "):
            break
        head = re.match(r"^    (\w+)/\s", line)
        if head:
            folder = head.group(1)
            entries[folder] = ""
        entries[folder] += " " + line
    return entries


def test_the_map_parses():
    entries = readme_map()
    assert set(FOLDERS) <= set(entries) and "automaton.py" in entries["automata"]
    assert len(modules()) > 80
    assert ("constructions", "proof/prover.py") in modules()


@pytest.mark.parametrize("folder, name", modules())
def test_module_is_in_the_readme_map(folder, name):
    assert re.search(rf"(?<![\w/]){re.escape(name)}", readme_map()[folder]), (
        f"README.md's module map does not name {name} under {folder}/")


@pytest.mark.parametrize("folder, name", modules())
def test_module_is_in_the_architecture_doc(folder, name):
    text = (ROOT / "docs" / "architecture.md").read_text()
    assert f"{folder}/{name}" in text, f"docs/architecture.md does not name {folder}/{name}"
