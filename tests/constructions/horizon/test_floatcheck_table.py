"""The float check by the table of the float run's states (``floatcheck._table_check``): the same
result as the dense run (``float_table=False``) on exact constructions, the first failure of a
wrong exact network against the plain per-word loop (``plain_eval``), and the dense run where the
states drift or outnumber the cap."""

from __future__ import annotations

import numpy as np
import pytest

from bilinear.automata import from_spec
from bilinear.constructions import Weights, build
from bilinear.constructions.horizon import floatcheck

from plain_eval import no_dense_check, per_word_first_failure, per_word_margins

FIELDS = ("accuracy", "final_accuracy", "worst_margin", "first_failure", "first_failure_text", "n_words", "length",
          "directed")


def _fields(r):
    return {f: getattr(r, f) for f in FIELDS}


@pytest.mark.parametrize("spec, variant", [("parity", "diagonal"), ("quaternion", "full"), ("modarith:5", "full"),
                                           ("symmetric:4", "full"), ("dihedral:4", "block:2")])
def test_exact_constructions_agree_with_the_dense_run_to_the_bit(monkeypatch, spec, variant):
    w, a = build(spec, variant).to_float(), from_spec(spec)
    dense = floatcheck.check(w, a, length=80, words=30, float_table=False)
    no_dense_check(monkeypatch)
    table = floatcheck.check(w, a, length=80, words=30)
    assert _fields(table) == _fields(dense) and table.passed and table.directed > 0


def test_many_classes_agree_to_the_bounds_tolerance(monkeypatch):
    """symmetric:5 (120 classes): the dense run scores by ``_Bound`` (the worst margin to within
    ``WORST_TOL`` of the largest readout row's norm); the table scores every class."""
    w, a = build("symmetric:5", "full").to_float(), from_spec("symmetric:5")
    dense = floatcheck.check(w, a, length=60, words=20, float_table=False)
    no_dense_check(monkeypatch)
    table = floatcheck.check(w, a, length=60, words=20)
    rho = float(np.linalg.norm(w.float_arrays()[2], axis=1).max())
    assert table.worst_margin == pytest.approx(dense.worst_margin, abs=floatcheck._Bound.WORST_TOL * rho)
    assert {**_fields(table), "worst_margin": 0} == {**_fields(dense), "worst_margin": 0}


def _wrong_modarith() -> tuple[Weights, object]:
    """modarith:5 full with symbol 0's matrix replaced by symbol 1's: exact, wrong on some words."""
    w, a = build("modarith:5", "full").to_float(), from_spec("modarith:5")
    A, h0, R = w.float_arrays()
    A = A.copy()
    A[0] = A[1]
    return Weights("full", A, h0, R), a


def test_a_wrong_exact_network_fails_where_the_plain_loop_says(monkeypatch):
    w, a = _wrong_modarith()
    words = np.random.default_rng(3).integers(0, a.n_symbols, size=(60, 40))  # a cap of 30 pairs
    words[:, :2] = 2  # no failure in the first two steps: the first failure is later than position 1
    A, h0, R = w.float_arrays()
    m = per_word_margins(A, h0, R, a, words)
    no_dense_check(monkeypatch)
    r = floatcheck.check(w, a, word_batch=words)
    ok = m[:, 1:] > 0
    assert 0 < ok.mean() < 1 and r.first_failure == per_word_first_failure(m, words)
    assert len(r.first_failure) > 2
    assert (r.accuracy, r.final_accuracy, r.worst_margin) == (ok.mean(), ok[:, -1].mean(), m.min())


def test_a_failing_empty_word_is_the_first_failure(monkeypatch):
    w = build("parity", "diagonal").to_float()
    A, h0, R = w.float_arrays()
    w = Weights("diagonal", A, h0, -R)  # every label wrong, from the empty word on
    no_dense_check(monkeypatch)
    r = floatcheck.check(w, from_spec("parity"), length=10, words=5)
    assert r.first_failure == () and r.accuracy == 0 and r.worst_margin == -2.0


@pytest.mark.parametrize("make", ["rotation", "noise", "cap"])
def test_drifting_states_or_too_many_go_to_the_dense_run(monkeypatch, make):
    if make == "rotation":  # an irrational angle: no product is exact
        w, a = build("cyclic:7", "rotation2d").to_float(), from_spec("cyclic:7")
    elif make == "noise":
        w, a = _wrong_modarith()
        A, h0, R = w.float_arrays()
        w = Weights("full", A + np.random.default_rng(0).normal(scale=1e-9, size=A.shape), h0, R)
    else:  # 2400 tokens / (8 x 10 symbols): 30 pairs may be tabled; at a share of 16, 15 may not
        w, a = _wrong_modarith()
    words = np.random.default_rng(4).integers(0, a.n_symbols, size=(60, 40))
    if make == "cap":
        assert floatcheck._table_check(w, a, words, np.inf) is not None
        monkeypatch.setattr(floatcheck, "TABLE_SHARE", 16)
    assert floatcheck._table_check(w, a, words, np.inf) is None
    dense = floatcheck.check(w, a, word_batch=words, float_table=False)
    assert _fields(floatcheck.check(w, a, word_batch=words)) == _fields(dense)
    if make != "rotation":  # the wrong network fails, by the dense run too
        assert not dense.passed
