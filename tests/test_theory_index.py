"""docs/theory.md's theorem index, both ways: every theorem that the code or the docs cite
("Theorem 16", "Theorems 6-9", "Theorems 6, S2 and S3") is a row of the index, every row of the
index is a heading ``### Theorem N (name)`` that exists (its link is the heading's anchor), every
heading is in the index, and the headings of each section are in numeric order."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
THEORY = ROOT / "docs" / "theory.md"
#: where citations are looked for: the rooms, the floor and roof, the tests, the benchmarks, the
#: examples and every page of documentation
CODE = ("bilinear", "automata", "constructions", "learned", "analysis", "tests", "benchmarks", "examples")
ID = r"[A-Z]?\d+"
CITATION = re.compile(rf"\bTheorems?\s+({ID}(?:\s*(?:,|and|or|to|–|-)\s*{ID}(?![\w.]\d))*)")


def cited_in(text: str) -> set[str]:
    """The theorem ids a text cites: lists and ranges expanded (``Theorems 13-15`` is 13, 14, 15;
    a range keeps its prefix: ``F1-F3``)."""
    found: set[str] = set()
    for match in CITATION.finditer(" ".join(text.split())):
        group = match.group(1)
        ids = re.findall(ID, group)
        found.update(ids)
        for low, high in re.findall(rf"({ID})\s*(?:–|-|to)\s*({ID})", group):
            prefix = re.match(r"[A-Z]?", low).group(0)
            if prefix == re.match(r"[A-Z]?", high).group(0):
                found.update(f"{prefix}{k}" for k in range(int(low[len(prefix):]), int(high[len(prefix):]) + 1))
    return found


def sources() -> list[Path]:
    files = [path for folder in CODE for path in sorted((ROOT / folder).rglob("*.py"))]
    files += sorted((ROOT / "docs").glob("*.md")) + sorted((ROOT / "benchmarks").glob("*.md"))
    return [*files, ROOT / "README.md"]


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def index_rows(text: str) -> dict[str, str]:
    """Theorem id -> the anchor its index row links to (the table under ``## Theorem index``)."""
    section = text.split("\n## Theorem index\n", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(rf"^\| \[({ID})\]\(#([^)]*)\)", section, re.M)
    assert len(rows) == len({tid for tid, _ in rows}), "a theorem is listed twice in the index"
    return dict(rows)


def headings(text: str) -> list[tuple[str, str, str]]:
    """(section number, theorem id, heading text) of every ``### Theorem`` heading, in page order."""
    found, section = [], ""
    for line in text.splitlines():
        if line.startswith("## "):
            section = line[3:].split(".")[0]
        match = re.match(rf"^### (Theorem ({ID}) \(.*\))$", line)
        if match:
            found.append((section, match.group(2), match.group(1)))
    return found


def _key(tid: str) -> tuple[str, int]:
    return re.match(r"[A-Z]?", tid).group(0), int(re.sub(r"[A-Z]", "", tid))


def test_the_citation_parser_expands_lists_and_ranges():
    text = ("Theorems 6–9 apply; Theorem 16's recurrence, Theorems 6, S2 and\n    S3, Theorems 13-15, "
            "Theorems F1-F3 or F10, Section 3.1, Theorem S4.")
    assert cited_in(text) == {"6", "7", "8", "9", "16", "S2", "S3", "13", "14", "15", "F1", "F2", "F3", "F10", "S4"}
    assert cited_in("no theorem here, a theorem 3 in lower case") == set()


def test_every_cited_theorem_is_in_the_index():
    listed = index_rows(THEORY.read_text(encoding="utf-8"))
    where: dict[str, str] = {}
    for path in sources():
        for tid in cited_in(path.read_text(encoding="utf-8")):
            where.setdefault(tid, path.relative_to(ROOT).as_posix())
    assert len(where) >= 35, sorted(where)
    missing = {tid: path for tid, path in where.items() if tid not in listed}
    assert not missing, f"cited but not in docs/theory.md's index (id: a file citing it): {missing}"


def test_every_index_entry_is_a_heading_and_every_heading_is_indexed():
    text = THEORY.read_text(encoding="utf-8")
    listed = index_rows(text)
    found = {tid: heading for _, tid, heading in headings(text)}
    assert set(listed) == set(found), (sorted(set(listed) - set(found)), sorted(set(found) - set(listed)))
    for tid, anchor in listed.items():
        assert anchor == slug(found[tid]), f"the index links {tid} to #{anchor}, its heading is #{slug(found[tid])}"


def test_theorems_are_in_numeric_order_within_each_section():
    by_section: dict[str, list[str]] = {}
    for section, tid, _ in headings(THEORY.read_text(encoding="utf-8")):
        by_section.setdefault(section, []).append(tid)
    assert len(by_section) >= 6
    for section, ids in by_section.items():
        assert ids == sorted(ids, key=_key), f"section {section}: theorems in the order {ids}"
        assert len({_key(tid)[0] for tid in ids}) == 1, f"section {section} mixes prefixes: {ids}"


@pytest.mark.parametrize("tid", ["16", "17", "18", "19", "20", "S4", "S5"])
def test_the_theorems_once_bold_paragraphs_are_headings(tid):
    assert any(t == tid for _, t, _ in headings(THEORY.read_text(encoding="utf-8")))
