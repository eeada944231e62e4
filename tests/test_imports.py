"""Imports run down the rooms, and no module imports itself back.

The rooms, lowest first: ``automata < constructions < learned < analysis``.  A module may import
its own room and the rooms below it.  ``bilinear/`` is two things: the *floor*
(:data:`FLOOR`: errors, file helpers, metrics, argument types), which every room may import and
which imports no room, and the *roof* (everything else in ``bilinear/``: the command line, the
tour, the reference generator, the package root), which may import anything.

The graph is read from the source with :mod:`ast`, so it sees every import: module level, inside
functions (lazy imports count: a lazy import still makes one module depend on the other), and
under ``if TYPE_CHECKING`` (a type checker follows those, and a maintainer reads them as
dependencies too).  A cycle between any two modules fails, lazy or not.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parent.parent

#: Room folder -> rank (lower imports nothing higher).
ROOMS = {"automata": 0, "constructions": 1, "learned": 2, "analysis": 3}

#: Modules of ``bilinear/`` that every room may import; they import no room (errors, file
#: helpers, metrics, argument types, progress lines, optional extras).
FLOOR = {"errors", "fileio", "jsonfile", "metrics", "argtypes", "progress", "extras"}

def module_files() -> dict[str, Path]:
    """Module name -> file, for the package root, the floor and roof, and the four rooms."""
    out = {}
    for folder in ["bilinear", *ROOMS]:
        for path in sorted((ROOT / folder).glob("*.py")):
            package = "bilinear" if folder == "bilinear" else f"bilinear.{folder}"
            out[package if path.stem == "__init__" else f"{package}.{path.stem}"] = path
    return out


def _package(module: str, path: Path) -> str:
    return module if path.stem == "__init__" else module.rpartition(".")[0]


def imported_modules(module: str, path: Path, known: set[str]) -> set[str]:
    """The project modules ``module`` imports anywhere in its file (lazy ones included)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                name = alias.name
                while name and name not in known:
                    name = name.rpartition(".")[0]
                if name:
                    found.add(name)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = _package(module, path)
                for _ in range(node.level - 1):
                    base = base.rpartition(".")[0]
                base = f"{base}.{node.module}" if node.module else base
            else:
                base = node.module or ""
            if not base.startswith("bilinear"):
                continue
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                if sub in known:  # `from package import module`
                    found.add(sub)
                elif base in known:
                    found.add(base)
    found.discard(module)
    return found


def room(module: str) -> str:
    """``"floor"``, ``"roof"`` or the room's folder name."""
    parts = module.split(".")
    if len(parts) >= 2 and parts[1] in ROOMS:
        return parts[1]
    return "floor" if len(parts) == 2 and parts[1] in FLOOR else "roof"


def import_graph() -> nx.DiGraph:
    files = module_files()
    graph = nx.DiGraph()
    graph.add_nodes_from(files)
    for module, path in files.items():
        for target in imported_modules(module, path, set(files)):
            graph.add_edge(module, target)
    return graph


def upward_imports(graph: nx.DiGraph) -> list[str]:
    bad = []
    for source, target in graph.edges:
        a, b = room(source), room(target)
        if a == "roof" or b == "floor":
            continue
        if a == "floor" or b == "roof" or ROOMS[a] < ROOMS[b]:
            bad.append(f"{source} ({a}) imports {target} ({b})")
    return sorted(bad)


def cycles(graph: nx.DiGraph) -> list[frozenset[str]]:
    return [frozenset(c) for c in nx.strongly_connected_components(graph) if len(c) > 1]


def test_the_walk_sees_the_project():
    graph = import_graph()
    # the walk found the rooms and real edges (a broken resolver would pass the tests below)
    assert {room(m) for m in graph} == {"floor", "roof", *ROOMS}
    assert ("bilinear.constructions.weights", "bilinear.errors") in graph.edges
    assert ("bilinear.analysis.report", "bilinear.constructions.span") in graph.edges
    assert graph.number_of_edges() > 200


def test_no_upward_import():
    assert upward_imports(import_graph()) == []


def test_no_import_cycle():
    found = [sorted(c) for c in cycles(import_graph())]
    assert found == [], "import cycles: " + "; ".join(" <-> ".join(c) for c in found)


def test_a_lazy_cycle_is_caught():
    graph = nx.DiGraph([("bilinear.automata.automaton", "bilinear.automata.monoid"),
                        ("bilinear.automata.monoid", "bilinear.automata.closure"),
                        ("bilinear.automata.closure", "bilinear.automata.automaton"),
                        ("bilinear.automata.data", "bilinear.automata.automaton")])
    assert cycles(graph) == [frozenset({"bilinear.automata.automaton", "bilinear.automata.monoid",
                                        "bilinear.automata.closure"})]


@pytest.mark.parametrize(
    "source, text, expected",
    [
        ("bilinear.automata.monoid", "from .closure import x", {"bilinear.automata.closure"}),
        ("bilinear.automata.monoid", "def f():\n    from bilinear.analysis import span", {"bilinear.analysis.span"}),
        ("bilinear.automata.monoid", "import bilinear.constructions.weights as w", {"bilinear.constructions.weights"}),
        ("bilinear.automata.monoid", "from .. import errors", {"bilinear.errors"}),
        ("bilinear.automata.monoid", "from bilinear.constructions import Weights", {"bilinear.constructions"}),
    ],
)
def test_imports_are_resolved(tmp_path, source, text, expected):
    path = tmp_path / "monoid.py"
    path.write_text(text)
    known = {"bilinear", "bilinear.errors", "bilinear.automata.closure", "bilinear.analysis.span",
             "bilinear.constructions", "bilinear.constructions.weights", "bilinear.automata.monoid"}
    assert imported_modules(source, path, known) == expected


def test_a_lazy_upward_import_is_caught():
    graph = nx.DiGraph([("bilinear.automata.strategies", "bilinear.constructions.floatcheck"),
                        ("bilinear.errors", "bilinear.automata.automaton"),
                        ("bilinear.analysis.report", "bilinear.constructions.weights"),
                        ("bilinear.cli", "bilinear.analysis.report")])
    assert upward_imports(graph) == [
        "bilinear.automata.strategies (automata) imports bilinear.constructions.floatcheck (constructions)",
        "bilinear.errors (floor) imports bilinear.automata.automaton (automata)",
    ]
