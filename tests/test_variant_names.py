"""No code compares with a variant NAME outside the two variant tables.

``constructions/values/variants.py`` (``KINDS``) and ``learned/models.py`` (``LEARNED_VARIANTS``) are the
only places that may spell a variant kind; everything else asks the parsed variant's facts
(``parse_variant(spec).info.dense``, ``.counts_factors``, ``.spectral``...).  The test walks the
syntax tree of every module and flags ``x == "full"``, ``x != "rotation2d"``, ``x in ("full",
...)``, ``x.startswith("factorized:")`` and tuples of variant specs handed to loops, where the
string is a variant kind (or ``kind:param``).  A line that compares a word that merely spells like
a variant (``size == "full"`` for the reproduce table) says so with ``# not a variant name``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from bilinear.constructions.values.variants import KINDS

ROOT = Path(__file__).resolve().parents[1]
ROOMS = ("bilinear", "automata", "constructions", "learned", "analysis")
TABLES = {Path("constructions/values/variants.py"), Path("learned/models.py")}


def _is_variant_name(value) -> bool:
    if not isinstance(value, str):
        return False
    text = value.strip().lower()
    head = text.split(":", 1)[0].split(",", 1)[0]
    return head in KINDS and (text == head or text.startswith(head + ":") or text.startswith(head + ","))


def _strings(node) -> list[str]:
    if isinstance(node, ast.Constant):
        return [node.value] if isinstance(node.value, str) else []
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [s for elt in node.elts for s in _strings(elt)]
    return []


def offences(source: str) -> list[tuple[int, str]]:
    """``(line, text)`` of each comparison with a variant name in ``source``."""
    out = []
    exempt = {i + 1 for i, line in enumerate(source.splitlines()) if "# not a variant name" in line}
    for node in ast.walk(ast.parse(source)):
        if getattr(node, "lineno", None) in exempt:
            continue
        if isinstance(node, ast.Compare):
            for operand in [node.left, *node.comparators]:
                for s in _strings(operand):
                    if _is_variant_name(s):
                        out.append((node.lineno, s))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in (
                "startswith", "endswith"):
            for arg in node.args:
                for s in _strings(arg):
                    if _is_variant_name(s) or any(_is_variant_name(s.rstrip(":,")) for s in [s]):
                        out.append((node.lineno, s))
        elif isinstance(node, ast.For):
            names = _strings(node.iter)
            if len(names) >= 2 and all(_is_variant_name(s) for s in names):
                out.append((node.lineno, ", ".join(names)))
    return out


def test_the_detector_catches_each_form():
    source = (
        'if w.variant == "rotation2d": pass\n'
        'if built.startswith("factorized:"): pass\n'
        'if text in ("full", "diagonal"): pass\n'
        'for v in ("full", "block:2"): pass\n'
        'if name == "one-hot": pass\n'
        'if mode != "fullness": pass\n'
    )
    assert sorted({line for line, _ in offences(source)}) == [1, 2, 3, 4]
    assert offences('if size == "full": pass  # not a variant name\n') == []


def _modules():
    for room in ROOMS:
        for path in sorted((ROOT / room).rglob("*.py")):
            rel = path.relative_to(ROOT)
            if rel not in TABLES:
                yield rel


@pytest.mark.parametrize("path", list(_modules()), ids=str)
def test_no_comparison_with_a_variant_name_outside_the_tables(path):
    found = offences((ROOT / path).read_text(encoding="utf-8"))
    assert not found, f"{path}: compares with variant names {found}; ask the parsed variant's facts instead"
