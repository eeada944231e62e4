"""Every phase of settle inside the time budget (issue 48 item 1; defects N7, N22 of issue 46).

The depth bound and the lower bound run after the verdict, each within what is left of the
budget, and a phase the budget stops is named in ``Cell.out_of_time``; an abelian group's depth
is read off the cell's own proof, without sympy; a matrix cell past the size limits is open.
"""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest

from bilinear.constructions import settle as settle_module
from bilinear.constructions.capability import capability_matrix
from bilinear.constructions.impossible.depth import min_layers
from bilinear.constructions.settle import PHASES, settle
from bilinear.errors import ConstructionTooLargeError


def test_an_abelian_cell_reads_its_depth_off_its_own_proof():
    """The depth bound of a proved one-layer cell equals the one the cascade gives (built and
    proved by min_layers itself), and the cell names no phase out of time."""
    cell = settle("cyclic:12", "rotation2d", time_budget=30)
    assert cell.status == "proved" and cell.out_of_time == ()
    assert cell.depth == min_layers("cyclic:12", "rotation2d")
    assert cell.to_json()["min_layers"] == 1 and cell.to_json()["out_of_time"] == []


def test_a_cyclic_group_past_the_cascade_limit_still_has_depth_one():
    """cyclic:300 (more states than a cascade is built for) is abelian: depth 1 from a proved
    layer; without one, the cascade's size limit is the reason given."""
    assert min_layers("cyclic:300", "rotation2d", one_layer_proved=True).min_layers == 1
    alone = min_layers("cyclic:300", "rotation2d")
    assert alone.min_layers is None and alone.derived_length == 1 and "at most 256 states" in alone.reason


def test_verify_of_a_cyclic_group_imports_no_sympy_combinatorics():
    code = ("import sys; from bilinear.constructions.settle import settle; "
            "c = settle('cyclic:7', 'rotation2d', time_budget=30); "
            "print(c.summary, c.depth.min_layers, 'sympy.combinatorics' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["proved", "d=2", "(minimal)", "1", "False"]


def test_a_depth_bound_past_the_budget_leaves_the_verdict_and_says_so(monkeypatch):
    """dihedral:100 rotation2d: the certificate takes a millisecond, the cascade of the depth
    bound far longer than 0.1 s; the cell stays impossible and names the depth bound."""
    monkeypatch.setattr(settle_module, "AFTER_PROOF_GRACE", 0.001)
    cell = settle("dihedral:100", "rotation2d", time_budget=0.1)
    assert cell.status == "impossible"
    assert cell.out_of_time == ("depth bound",) and cell.depth.min_layers is None
    assert "time budget (0.1 s) ran out in: depth bound" in cell.text()
    full = settle("dihedral:100", "rotation2d")  # no budget: the depth bound is computed
    assert full.depth.min_layers == 2 and full.out_of_time == ()
    assert set(cell.out_of_time) <= set(PHASES)


def test_an_over_size_matrix_cell_is_open_and_the_others_are_kept(monkeypatch):
    """N22: a cell whose only construction passes the size limits is open with the reason; the
    cells already settled stay; verify (settle without oversize_open) still refuses it."""
    from bilinear.constructions.values import weights as wmod

    monkeypatch.setattr(wmod, "MAX_WEIGHT_ENTRIES", 50)
    m = capability_matrix(["cyclic:3", "random:states=7,symbols=2,seed=0"], ["full"])
    first, second = m.cells[0][0], m.cells[1][0]
    assert first.status == "proved" and first.dim == 2
    assert second.status == "open" and "98 matrix entries" in second.detail
    assert second.detail.startswith("no construction within the size limits")
    with pytest.raises(ConstructionTooLargeError, match="98 matrix entries"):
        settle("random:states=7,symbols=2,seed=0", "full")


def test_a_budget_spent_while_sympy_is_imported_leaves_sympy_whole():
    """A fresh process whose first sympy import (the depth bound's cascade) outlives a 0.1 s
    budget: the cell says the depth bound ran out, sympy is imported whole or not at all, and it
    works afterwards.  The alarm used to land inside the import, leaving about 150 of sympy's
    submodules without sympy itself; importing it again then could raise TypeError on
    ``Symbol ** int``."""
    code = (
        "import sys\n"
        "from bilinear.constructions import settle as module\n"
        "module.AFTER_PROOF_GRACE = 0.001\n"
        "module.settle('cyclic:5', 'rotation2d')  # warm: the next proof is fast, the budget left for the depth bound\n"
        "assert 'sympy' not in sys.modules\n"
        "cell = module.settle('dihedral:100', 'rotation2d', time_budget=0.1)\n"
        "parts = [m for m in sys.modules if m.startswith('sympy.')]\n"
        "whole = 'sympy' in sys.modules and 'sympy.combinatorics' in sys.modules\n"
        "full = module.settle('dihedral:100', 'rotation2d')\n"
        "import sympy\n"
        "print(cell.status, cell.out_of_time, whole or not parts, full.depth.min_layers, sympy.Symbol('t') ** 2)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    depth = settle("dihedral:100", "rotation2d").depth.min_layers
    assert depth == 2 and done.stdout.strip() == "impossible ('depth bound',) True 2 t**2"


def test_a_stack_not_built_within_the_budget_is_an_open_cell_not_a_traceback(capsys):
    """``verify symmetric:4 rotation2d --layers 2 --time-budget 0.01`` ended in OutOfTime's
    traceback: the cascade was built outside the budget's handling.  dihedral:60's cascade takes
    far more than the 1 ms a spent budget leaves."""
    from bilinear.cli import main

    cell = settle("dihedral:60", "rotation2d", layers=2, time_budget=1e-6, depth=False)
    assert (cell.status, cell.out_of_time, cell.layers) == ("open", ("construction",), 2)
    assert cell.detail.startswith("construction not built within the time budget of 1e-06 s")
    assert main(["verify", "dihedral:60", "rotation2d", "--layers", "2", "--time-budget", "0.02"]) == 3
    out = capsys.readouterr().out
    assert "construction not built within the time budget of 0.02 s" in out
    assert "time budget (0.02 s) ran out in: depth bound, construction" in out
    # a budget spent before its first phase began: open, and no alarm left armed for later
    assert main(["verify", "dihedral:60", "rotation2d", "--layers", "2", "--time-budget", "0.000001"]) == 3
    assert "not built within the time budget of 1e-06 s" in capsys.readouterr().out
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
