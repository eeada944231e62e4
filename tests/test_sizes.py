"""Sizes a reader can hold: no module of the package over :data:`MAX_MODULE_LINES` lines, no
function over :data:`MAX_FUNCTION_LINES` lines (from its ``def`` line to its last line; a nested
function counts on its own and inside its parent), and at most :data:`MAX_ROOT_MODULES` modules
at the root of ``constructions/`` (the rest live in its sub-packages).  The checks read the
source with :mod:`ast`; each is shown to catch a made-up violation."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("bilinear", "automata", "constructions", "learned", "analysis")

MAX_MODULE_LINES = 800
MAX_FUNCTION_LINES = 80
MAX_ROOT_MODULES = 15


def package_sources(root: Path = ROOT) -> dict[str, str]:
    """``folder/path.py`` -> source, for every module of the package and its sub-packages."""
    return {path.relative_to(root).as_posix(): path.read_text()
            for folder in FOLDERS for path in sorted((root / folder).rglob("*.py"))}


def long_modules(sources: dict[str, str], limit: int = MAX_MODULE_LINES) -> list[str]:
    """``name (N lines)`` for every module of more than ``limit`` lines."""
    return [f"{name} ({n} lines)" for name, text in sources.items() if (n := len(text.splitlines())) > limit]


def long_functions(name: str, source: str, limit: int = MAX_FUNCTION_LINES) -> list[str]:
    """``name:qualname (N lines)`` for every function or method of ``source`` longer than ``limit``
    lines, counted from its ``def`` line (decorators not counted) to its last line."""
    found = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                qualname = f"{prefix}{child.name}"
                if not isinstance(child, ast.ClassDef):
                    assert child.end_lineno is not None
                    n = child.end_lineno - child.lineno + 1
                    if n > limit:
                        found.append(f"{name}:{qualname} ({n} lines)")
                visit(child, qualname + ".")
            else:
                visit(child, prefix)

    visit(ast.parse(source, filename=name), "")
    return found


def root_modules(folder: Path) -> list[str]:
    """The modules at the root of ``folder`` (``__init__.py`` excepted)."""
    return sorted(p.name for p in folder.glob("*.py") if p.name != "__init__.py")


def test_the_walk_sees_the_package():
    sources = package_sources()
    assert "learned/scan.py" in sources and "constructions/proof/prover.py" in sources
    assert len(sources) > 100


def test_no_module_is_over_the_limit():
    assert long_modules(package_sources()) == []


def test_no_function_is_over_the_limit():
    found = [line for name, text in package_sources().items() for line in long_functions(name, text)]
    assert found == []


def test_the_constructions_root_holds_few_modules():
    names = root_modules(ROOT / "constructions")
    assert "settle.py" in names and len(names) <= MAX_ROOT_MODULES, names


def test_a_long_module_is_caught():
    at_limit = "x = 1\n" * MAX_MODULE_LINES
    assert long_modules({"ok.py": at_limit, "long.py": at_limit + "y = 2\n"}) == [
        f"long.py ({MAX_MODULE_LINES + 1} lines)"]


def _function(name: str, lines: int, indent: str = "") -> str:
    """A function of exactly ``lines`` lines (its ``def`` line included)."""
    body = "".join(f"{indent}    x{i} = {i}\n" for i in range(lines - 2))
    return f"{indent}def {name}():\n{body}{indent}    return 0\n"


def test_a_long_function_is_caught_where_it_is():
    source = (
        "@decorator\n" + _function("fits", MAX_FUNCTION_LINES)
        + "class C:\n" + _function("method", MAX_FUNCTION_LINES + 1, "    ")
        + "def outer():\n" + _function("inner", MAX_FUNCTION_LINES + 2, "    ") + "    return inner\n"
    )
    assert long_functions("made_up.py", source) == [
        f"made_up.py:C.method ({MAX_FUNCTION_LINES + 1} lines)",
        f"made_up.py:outer ({MAX_FUNCTION_LINES + 4} lines)",
        f"made_up.py:outer.inner ({MAX_FUNCTION_LINES + 2} lines)",
    ]


def test_a_crowded_root_is_caught(tmp_path):
    for i in range(MAX_ROOT_MODULES + 1):
        (tmp_path / f"m{i}.py").write_text("")
    (tmp_path / "__init__.py").write_text("")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "deeper.py").write_text("")
    names = root_modules(tmp_path)
    assert len(names) == MAX_ROOT_MODULES + 1 and "__init__.py" not in names and "deeper.py" not in names
