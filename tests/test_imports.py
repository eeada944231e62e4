"""Imports run down the rooms, and no module imports itself back.

The rooms, lowest first: ``automata < constructions < learned < analysis``.  A module may import
its own room and the rooms below it.  Inside ``constructions/`` the sub-packages are layered too
(:data:`GROUPS`, lowest first: ``exact < values < proof < handmade < impossible < horizon``, then
the modules at the room's root): a module imports its own group and the groups below it.  ``bilinear/`` is two things: the *floor*
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

#: Sub-package of ``constructions/`` -> rank; the modules at the room's root rank above them all.
GROUPS = {"exact": 0, "values": 1, "proof": 2, "handmade": 3, "impossible": 4, "horizon": 5}
ROOT_GROUP = len(GROUPS)


def module_files() -> dict[str, Path]:
    """Module name -> file, for the package root, the floor and roof, and the four rooms with
    their sub-packages (``bilinear.constructions.proof.prover``)."""
    out = {}
    for folder in ["bilinear", *ROOMS]:
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = path.relative_to(ROOT / folder).with_suffix("").parts
            package = "bilinear" if folder == "bilinear" else f"bilinear.{folder}"
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join([package, *parts])] = path
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


def group(module: str) -> int | None:
    """The rank of a ``bilinear.constructions`` module's group (None outside the room)."""
    parts = module.split(".")
    if parts[:2] != ["bilinear", "constructions"]:
        return None
    return GROUPS[parts[2]] if len(parts) >= 4 and parts[2] in GROUPS else ROOT_GROUP


def group_violations(graph: nx.DiGraph) -> list[str]:
    """Edges inside ``constructions/`` that import a higher group than their own."""
    bad = []
    for source, target in graph.edges:
        a, b = group(source), group(target)
        if a is not None and b is not None and a < b:
            bad.append(f"{source} imports {target}, a higher group")
    return sorted(bad)


def cycles(graph: nx.DiGraph) -> list[frozenset[str]]:
    return [frozenset(c) for c in nx.strongly_connected_components(graph) if len(c) > 1]


def test_the_walk_sees_the_project():
    graph = import_graph()
    # the walk found the rooms and real edges (a broken resolver would pass the tests below)
    assert {room(m) for m in graph} == {"floor", "roof", *ROOMS}
    assert ("bilinear.constructions.values.weights", "bilinear.errors") in graph.edges
    assert ("bilinear.analysis.report", "bilinear.constructions.values.span") in graph.edges
    assert graph.number_of_edges() > 200


def test_no_upward_import():
    assert upward_imports(import_graph()) == []


def test_groups_inside_constructions_run_down():
    assert group_violations(import_graph()) == []


def test_the_groups_are_the_folders():
    folders = {p.name for p in (ROOT / "constructions").iterdir() if (p / "__init__.py").exists()}
    assert folders == set(GROUPS)


def test_an_import_against_the_group_order_is_caught():
    graph = nx.DiGraph([("bilinear.constructions.exact.field", "bilinear.constructions.values.weights"),
                        ("bilinear.constructions.proof.prover", "bilinear.constructions.values.weights"),
                        ("bilinear.constructions.values.stack", "bilinear.constructions.horizon.snap"),
                        ("bilinear.constructions.settle", "bilinear.constructions.proof.prover"),
                        ("bilinear.constructions.horizon.snap", "bilinear.constructions.capability"),
                        ("bilinear.constructions.horizon.snap", "bilinear.constructions.horizon.tube"),
                        ("bilinear.learned.train", "bilinear.constructions.settle")])
    assert group_violations(graph) == [
        "bilinear.constructions.exact.field imports bilinear.constructions.values.weights, a higher group",
        "bilinear.constructions.horizon.snap imports bilinear.constructions.capability, a higher group",
        "bilinear.constructions.values.stack imports bilinear.constructions.horizon.snap, a higher group",
    ]


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
        ("bilinear.automata.monoid", "import bilinear.constructions.values.weights as w", {"bilinear.constructions.values.weights"}),
        ("bilinear.automata.monoid", "from .. import errors", {"bilinear.errors"}),
        ("bilinear.automata.monoid", "from bilinear.constructions import Weights", {"bilinear.constructions"}),
    ],
)
def test_imports_are_resolved(tmp_path, source, text, expected):
    path = tmp_path / "monoid.py"
    path.write_text(text)
    known = {"bilinear", "bilinear.errors", "bilinear.automata.closure", "bilinear.analysis.span",
             "bilinear.constructions", "bilinear.constructions.values.weights", "bilinear.automata.monoid"}
    assert imported_modules(source, path, known) == expected


def test_a_lazy_upward_import_is_caught():
    graph = nx.DiGraph([("bilinear.automata.strategies", "bilinear.constructions.horizon.floatcheck"),
                        ("bilinear.errors", "bilinear.automata.automaton"),
                        ("bilinear.analysis.report", "bilinear.constructions.values.weights"),
                        ("bilinear.cli", "bilinear.analysis.report")])
    assert upward_imports(graph) == [
        "bilinear.automata.strategies (automata) imports bilinear.constructions.horizon.floatcheck (constructions)",
        "bilinear.errors (floor) imports bilinear.automata.automaton (automata)",
    ]
