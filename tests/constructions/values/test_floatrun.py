"""The one float run and the one compatibility check (constructions/values/floatrun.py)."""

from __future__ import annotations

import numpy as np
import pytest

from bilinear.automata import from_spec
from bilinear.constructions import check
from bilinear.constructions.values.floatrun import check_compatible, float_run, float_steps, run_float
from bilinear.constructions import Proof, prove
from bilinear.constructions import build
from bilinear.constructions import Weights
from bilinear.errors import AnalysisError, MismatchError, WeightsError


@pytest.mark.parametrize("spec,variant", [("dihedral:5", "block:2"), ("cyclic:7", "rotation2d"), ("reset:3", "full")])
def test_agrees_with_the_automaton_on_a_proved_construction(spec, variant):
    a, w = from_spec(spec), build(spec, variant)
    assert isinstance(prove(w, a), Proof)
    words = np.random.default_rng(3).integers(0, a.n_symbols, size=(64, 300))
    r = run_float(w, words, scores=True, hidden=True)
    assert np.array_equal(r.labels, a.labels_batch(words, trace=True))
    assert r.scores.shape == (64, 300, a.n_classes) and r.hidden.shape == (64, 300, w.dim)
    assert np.allclose(r.scores, r.hidden @ w.float_arrays()[2].T)


def test_hidden_states_have_unit_norm_at_any_scale():
    A, h0, R = build("cyclic:5", "rotation2d").float_arrays()
    big = Weights("rotation2d", 1e3 * A, 7.0 * h0, R)  # unnormalised: overflows after ~100 steps
    r = run_float(big, np.ones((3, 500), dtype=np.int64), hidden=True)
    assert np.allclose(np.linalg.norm(r.hidden, axis=2), 1.0)
    assert np.array_equal(r.labels[0], (np.arange(500) + 1) % 5)


def test_zero_rows_stay_zero():
    w = Weights("full", [[[1.0, 0.0], [0.0, 1.0]], [[0.0, 0.0], [0.0, 0.0]]], [1.0, 0.0], [[1.0, 0.0]])
    H = list(float_steps(*w.float_arrays()[:2], np.array([[0, 1, 0], [0, 0, 0]])))
    assert np.allclose(H[0], [[1, 0], [1, 0]])
    assert np.array_equal(H[2][0], [0.0, 0.0]) and np.allclose(H[2][1], [1, 0])


def test_grouped_and_gathered_paths_agree():
    rng = np.random.default_rng(0)
    k, d = 40, 6  # more symbols than "auto" groups
    A, h0, R = rng.normal(size=(k, d, d)), rng.normal(size=d), rng.normal(size=(3, d))
    words = rng.integers(0, k, size=(50, 80))
    grouped = np.stack(list(float_steps(A, h0, words, method="grouped")), axis=1)
    gathered = np.stack(list(float_steps(A, h0, words, method="gathered")), axis=1)
    auto = np.stack(list(float_steps(A, h0, words)), axis=1)
    assert grouped.shape == (50, 80, d)
    assert np.allclose(grouped, gathered, atol=1e-9) and np.allclose(auto, gathered, atol=1e-9)
    w = Weights("full", A, h0, R)
    assert np.array_equal(run_float(w, words, method="grouped").labels, run_float(w, words, method="gathered").labels)
    # the (t, scores) stream of check is the same run
    scores = np.stack([s for _, s in float_run(A, h0, words, R)], axis=1)
    assert np.allclose(scores, grouped @ R.T)


def _diagonal_network(k: int, d: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Random diagonal matrices (both signs, magnitudes from 1/8 to 8, a zero entry) and a start."""
    rng = np.random.default_rng(seed)
    A = np.zeros((k, d, d))
    A[:, np.arange(d), np.arange(d)] = rng.choice([-1.0, 1.0], size=(k, d)) * 2.0 ** rng.uniform(-3, 3, size=(k, d))
    A[1, 2, 2] = 0.0
    return A, rng.normal(size=d)


@pytest.mark.parametrize("floats", [1, 7 * 50 * 6, 1 << 18])
def test_diagonal_matrices_run_entry_by_entry_to_the_same_numbers(monkeypatch, floats):
    """"auto" takes "entrywise" for diagonal matrices: the same numbers as the products of the
    whole matrices ("stacked", "grouped", "gathered": each entry one product plus exact zeros),
    bit for bit, whether the rows' diagonals are gathered one step, 7 steps (not dividing the 80)
    or 64 steps (the most) at a time; also through float_blocks, whose spans multiply on
    unnormalised."""
    from bilinear.constructions.values import floatrun

    monkeypatch.setattr(floatrun, "ENTRYWISE_FLOATS", floats)
    A, h0 = _diagonal_network(40, 6, seed=3)  # 40 symbols: "auto" would gather, not stack
    words = np.random.default_rng(4).integers(0, 40, size=(50, 80))
    assert floatrun._method(A, 50, "auto") == "entrywise"
    auto = np.stack(list(float_steps(A, h0, words)))
    for method in ("entrywise", "stacked", "grouped", "gathered"):
        assert np.array_equal(np.stack(list(float_steps(A, h0, words, method=method))), auto), method
    blocks = {m: np.concatenate([b.copy() for _, b in floatrun.float_blocks(A, h0, words, 9, method=m)])
              for m in ("auto", "stacked")}
    assert np.array_equal(blocks["auto"], blocks["stacked"])
    assert np.abs(blocks["auto"]).sum(axis=2).max() > 1  # multiplied on between rescalings
    assert np.isfinite(auto).all() and (auto == 0).any()  # the zero entry of symbol 1 reached


def test_auto_goes_entrywise_only_for_diagonal_matrices_of_two_or_more_units():
    from bilinear.constructions.values import floatrun

    A, _ = _diagonal_network(3, 4, seed=5)
    assert floatrun._method(A, 10, "auto") == "entrywise"
    A[2, 0, 3] = 1e-300  # one entry off the diagonal, however small
    assert floatrun._method(A, 10, "auto") == "stacked"
    with pytest.raises(WeightsError, match="method 'entrywise' needs diagonal matrices; symbol 2's matrix"):
        float_steps(A, np.ones(4), np.zeros((1, 3), dtype=np.int64), method="entrywise").__next__()
    assert floatrun._method(np.array([[[0.5]], [[-2.0]]]), 10, "auto") == "stacked"  # one unit: no gain
    two = np.zeros((5, 2, 2))
    two[:, [0, 1], [0, 1]] = [3.0, -0.5]
    assert floatrun._method(two, 10, "auto") == "entrywise"  # two units: entry by entry


def test_auto_chooses_at_its_documented_boundaries():
    """"auto" for matrices that are not diagonal: stacked up to STACKED_MAX = symbols x hidden
    (STACKED_SMALL_MAX below STACKED_SMALL_BATCH words), grouped up to GROUPED_MAX_SYMBOLS symbols, and beyond them whenever the gathered matrices
    (batch x hidden^2 floats) would pass GATHER_MAX_FLOATS, else gathered."""
    from bilinear.constructions.values import floatrun

    def method(k, d, batch=10):
        return floatrun._method(np.ones((k, d, d)), batch, "auto")

    assert floatrun.STACKED_MAX == 32 and floatrun.GROUPED_MAX_SYMBOLS == 32
    assert (floatrun.STACKED_SMALL_MAX, floatrun.STACKED_SMALL_BATCH) == (64, 500)
    assert method(8, 4, 1000) == "stacked" and method(11, 3, 1000) == "grouped"
    assert method(16, 4, 499) == "stacked" and method(16, 4, 500) == "grouped" and method(13, 5, 10) == "grouped"
    assert method(32, 4) == "grouped" and method(33, 4) == "gathered"
    most = floatrun.GATHER_MAX_FLOATS // 16  # batch x 4^2 floats = GATHER_MAX_FLOATS
    assert method(33, 4, most) == "gathered" and method(33, 4, most + 1) == "grouped"


def test_bad_words_and_method():
    w = build("parity", "diagonal")
    with pytest.raises(WeightsError, match="symbol index 2, outside 0..1"):
        run_float(w, [[0, 2]])
    with pytest.raises(WeightsError, match="symbol index -1"):
        run_float(w, [[0, -1]])
    with pytest.raises(WeightsError, match=r"\(batch, time\)"):
        run_float(w, [0, 1])
    with pytest.raises(WeightsError, match="method 'fast'"):
        run_float(w, [[0, 1]], method="fast")
    with pytest.raises(MismatchError, match="Weights value, got list"):
        run_float([[1]], [[0]])


def test_mismatch_names_the_mismatch_and_is_both_error_types():
    w = build("dihedral:4", "block:2")  # 2 symbols, 8 classes
    with pytest.raises(MismatchError, match="weights have 2 symbols but automaton cyclic:3 has 3") as info:
        check_compatible(w, from_spec("cyclic:3"))
    assert "weights: 2 symbols and 8 classes; automaton: 3 symbols and 3 classes" in str(info.value)
    assert isinstance(info.value, WeightsError) and isinstance(info.value, AnalysisError)
    with pytest.raises(MismatchError, match="readout has 8 classes but automaton parity has 2"):
        check_compatible(w, from_spec("parity"))
    check_compatible(w, from_spec("parity"), classes=False)  # symbols only: fits
    check_compatible(w, None, required=False)
    with pytest.raises(MismatchError, match="expected an Automaton .* got NoneType"):
        check_compatible(w, None)
    with pytest.raises(MismatchError, match="expected an Automaton .* got str"):
        check_compatible(w, "dihedral:4")
    with pytest.raises(MismatchError, match="expected a Weights value, got ndarray"):
        check_compatible(np.eye(2), from_spec("parity"))


def test_every_room_raises_the_same_typed_error_for_a_missing_automaton():
    from bilinear.analysis import analyze, extract, relation_residuals
    from bilinear.constructions import certify

    w = build("parity", "diagonal")
    for call in (
        lambda: check(w, None),
        lambda: extract(w, None),
        lambda: analyze(w, None),
        lambda: relation_residuals(w, None),
        lambda: certify(from_spec("cyclic:3"), "positive").failing_word(w, None),
    ):
        with pytest.raises(MismatchError, match="got NoneType"):
            call()


def test_grouped_run_over_blocks_of_growing_and_shrinking_groups():
    """Enough words for several grouping blocks (``_slot_steps``): the first block uniform (small
    padded groups), the next all on one symbol (groups as large as the batch: the kept rows
    grow), the last uniform again (a part of them): the gathered run's states (each row's own
    matrix, no grouping)."""
    from bilinear.constructions.values import floatrun

    rng = np.random.default_rng(5)
    k, d, batch = 12, 5, 3000
    steps = floatrun._slot_steps(batch)
    assert steps < 8
    A, h0 = rng.normal(size=(k, d, d)), rng.normal(size=d)
    words = rng.integers(0, k, size=(batch, 3 * steps))
    words[:, steps : 2 * steps] = 3
    grouped = np.stack(list(float_steps(A, h0, words, method="grouped")), axis=1)
    gathered = np.stack(list(float_steps(A, h0, words, method="gathered")), axis=1)
    assert np.allclose(grouped, gathered, rtol=0, atol=1e-12)
