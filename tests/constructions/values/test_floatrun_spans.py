"""The float run's spans, rescalings and ways of grouping (constructions/values/floatrun.py):
blocks whose spans do not line up with them, the rescaling's bounds, the ways asked for, and
the limits past which the grouped way stops padding."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bilinear.constructions.values import floatrun
from bilinear.constructions.values.floatrun import float_blocks, float_steps, rescale_span


def _unit(H: np.ndarray) -> np.ndarray:
    return H / np.linalg.norm(H, axis=-1, keepdims=True)


def _plain(A: np.ndarray, h0: np.ndarray, words: np.ndarray) -> np.ndarray:
    """The unit states of every prefix, (time, batch, hidden), by a loop written for the test:
    each row its own matrix, divided by its norm after every step."""
    H = np.tile(h0 / np.linalg.norm(h0), (words.shape[0], 1))
    out = []
    for t in range(words.shape[1]):
        H = _unit(np.einsum("bij,bj->bi", A[words[:, t]], H))
        out.append(H)
    return np.stack(out)


def test_rescale_span_bounds_the_growth_by_the_largest_column_sum():
    """A state's absolute sum grows by at most the largest absolute column sum in one step (the
    1-norm of the matrix), not the largest row sum: one matrix whose first row holds two 16s
    has column sums 16 and row sum 32, so spans of floor(120 / 4) = 30 steps, not 24.  Growth
    past 2^120 a step still gets a span of one step, never zero."""
    assert rescale_span(np.array([[[16.0, 16.0], [0.0, 0.0]]])) == 30
    assert rescale_span(np.array([[[16.0, 0.0], [16.0, 0.0]]])) == 24
    assert rescale_span(np.array([[[2.0**100]]])) == 1 and rescale_span(np.array([[[2.0**200]]])) == 1
    assert rescale_span(np.array([[[1.5, 0.0], [0.0, 1.0]]])) == floatrun.RESCALE_SPAN  # 120 / log2(1.5) > 64


def test_rescale_reports_a_state_that_fell_below_the_floor():
    """False exactly when a non-zero row's absolute sum is below 2^-RESCALE_FLOOR: 2^-61 is,
    2^-60 is not; every row comes back with its absolute sum in [1/2, 1), a zero row stays zero,
    and a batch of no rows is fine."""
    floor = floatrun.RESCALE_FLOOR
    H = np.array([[2.0**-floor, 0.0], [3.0, -1.0], [0.0, 0.0]])
    assert floatrun._rescale(H)
    assert np.array_equal(H, [[0.5, 0.0], [0.375, -0.125], [0.0, 0.0]])
    low = np.array([[2.0 ** (-floor - 1), 0.0], [1.0, 1.0]])
    assert not floatrun._rescale(low)
    assert np.array_equal(low, [[0.5, 0.0], [0.25, 0.25]])  # rescaled all the same
    assert floatrun._rescale(np.empty((0, 3)))


def _ldexp_rows(H):
    """The test's own rescaling: each row times 2^-e by math.ldexp, ``e`` math.frexp's exponent of
    the row's absolute sum (summed in order, as a product with ones may not: only its exponent
    matters, and the rows below are built so that every order gives the same one)."""
    out = []
    for row in H.tolist():
        e = math.frexp(sum(abs(x) for x in row))[1]
        out.append([math.ldexp(x, -e) for x in row])
    return np.array(out)


def test_rescale_rounds_as_ldexp_at_the_ends_of_the_exponent_range():
    """The rescaling multiplies by 2^-e where that power is a finite double and falls back to
    ldexp below: bit for bit math.ldexp's rows, for sums near the largest double (e = 1024, the
    power 2^-1024 subnormal), subnormal sums (e down to -1073, whose power 2^1073 overflows),
    rows whose small entries round to subnormals when scaled, and inf, nan and zero rows."""
    tiny = 5e-324
    H = np.array([[2.0**1023, 2.0**1022, 0.0], [1.5 * 2.0**-1040, -tiny, 0.0], [3.0, 2.0**-1070, -2.0**-1073],
                  [0.0, 0.0, 0.0], [1.0, 2.0**-1060, 0.0], [7.0, -5.0, 3.0]])
    for rows in (H, H[[0, 2, 4, 5]], H[[2, 4, 5]]):  # the ldexp fallback (a subnormal sum), then the products
        got = rows.copy()
        floatrun._rescale(got)
        want = _ldexp_rows(rows)
        assert np.array_equal(got.view(np.int64), want.view(np.int64)), (got, want)
    assert not floatrun._rescale(H.copy())  # the subnormal sum is below the floor
    assert floatrun._rescale(H[[0, 2, 4, 5]].copy())
    special = np.array([[np.inf, 1.0], [np.nan, 1.0], [2.0, 2.0]])
    floatrun._rescale(special)
    assert np.isinf(special[0, 0]) and special[0, 1] == 1.0 and np.isnan(special[1, 0]) and special[1, 1] == 1.0
    assert special[2].tolist() == [0.25, 0.25]


@pytest.mark.parametrize("method", ["stacked", "grouped", "gathered"])
def test_blocks_whose_spans_do_not_line_up_with_them(method):
    """Matrices with column sums near 16 give spans of 30 steps (:func:`rescale_span`); in blocks
    of 64 steps a span then ends inside a block (at 60, then 64), and in blocks of 7 a block ends
    inside a span.  Every step is yielded once, in order, block by block, and each row, divided
    by its norm, is the test's own loop's unit state."""
    rng = np.random.default_rng(11)
    k, d = 3, 16
    A = rng.choice([-1.0, 1.0], size=(k, d, d)) * rng.uniform(0.95, 1.0, size=(k, d, d))
    A[:, :, 0] = 1.0  # one column of absolute sum exactly 16
    assert rescale_span(np.ldexp(A, -floatrun.scale_exponents(A)[:, None, None])) == 30
    h0, words = rng.normal(size=d), rng.integers(0, k, size=(5, 100))
    want = _plain(A, h0, words)
    for steps, starts in ((64, [0, 64]), (7, list(range(0, 100, 7)))):
        got = [(t, b.copy()) for t, b in float_blocks(A, h0, words, steps, method=method)]
        assert [t for t, _ in got] == starts
        run = np.concatenate([b for _, b in got])
        assert run.shape == (100, 5, d)
        assert np.allclose(_unit(run), want, rtol=0, atol=1e-9)
    ones = [b.shape[0] for _, b in float_blocks(A, h0, words[:, :3], 0, method=method)]
    assert ones == [1, 1, 1]  # no steps asked: one at a time


def test_the_way_asked_for_is_the_way_that_runs():
    A = np.random.default_rng(2).normal(size=(3, 4, 4))
    words = np.zeros((6, 5), dtype=np.int64)
    for method in ("stacked", "grouped", "gathered"):
        assert floatrun._stepper(A, words, method).__name__ == method
    D = np.zeros((3, 4, 4))
    D[:, np.arange(4), np.arange(4)] = 2.0
    assert floatrun._stepper(D, words, "auto").__name__ == "entrywise"
    assert floatrun._stepper(A, words, "auto").__name__ == floatrun._method(A, 6, "auto") == "stacked"


def test_no_words_and_a_zero_start():
    """A batch of no words runs to empty states, and a zero start state stays zero (not NaN)."""
    A = np.random.default_rng(4).normal(size=(2, 3, 3))
    for method in ("stacked", "grouped", "gathered"):
        assert [H.shape for H in float_steps(A, np.ones(3), np.zeros((0, 4), dtype=np.int64), method=method)] == [(0, 3)] * 4
        zero = np.stack(list(float_steps(A, np.zeros(3), np.ones((2, 3), dtype=np.int64), method=method)))
        assert np.array_equal(zero, np.zeros((3, 2, 3)))
    assert [b.shape for _, b in float_blocks(A, np.ones(3), np.zeros((0, 4), dtype=np.int64), 2)] == [(2, 0, 3)] * 2


def _two_per_symbol(length: int) -> np.ndarray:
    """4 words over 2 symbols, two words on each symbol at every step: groups of 2."""
    base = np.array([[0, 1, 0, 1], [1, 0, 0, 0], [0, 1, 1, 1], [1, 0, 1, 0]])  # (words, steps)
    return base[:, np.arange(length) % 4]


def test_the_grouped_way_pads_up_to_its_limit_and_no_further(monkeypatch):
    """The grouped way pads each symbol's rows to the most words on one symbol (here 2 of the 4
    words at every step: 2 symbols x 2 rows x 3 units = 12 floats): at GATHER_MAX_FLOATS = 12
    it pads, at 11 it multiplies symbol by symbol without padding (:func:`_per_symbol`).  The
    padded rows are listed for every step (``sources``) while symbols x groups x max(hidden,
    steps) stays within the limit (5 steps: 20 floats), else placed by ``slots`` alone.  The
    numbers are the same every way."""
    rng = np.random.default_rng(6)
    A, h0 = rng.normal(size=(2, 3, 3)), rng.normal(size=3)
    words = _two_per_symbol(5)
    assert all(np.bincount(words[:, t], minlength=2).tolist() == [2, 2] for t in range(5))
    want = np.stack(list(float_steps(A, h0, words, method="gathered")))
    calls = []
    per_symbol = floatrun._per_symbol

    def counted(*args):
        calls.append(1)
        return per_symbol(*args)

    monkeypatch.setattr(floatrun, "_per_symbol", counted)
    for limit, unpadded, listed in ((12, False, False), (11, True, False), (20, False, True), (19, False, False)):
        monkeypatch.setattr(floatrun, "GATHER_MAX_FLOATS", limit)
        calls.clear()
        got = np.stack(list(float_steps(A, h0, words, method="grouped")))
        assert bool(calls) == unpadded, limit
        assert (floatrun._slots(words, 2, 3)[2] is not None) == listed, limit
        assert np.allclose(got, want, rtol=0, atol=1e-12), limit


def test_the_grouped_way_past_256_symbols():
    """Symbols are sorted as bytes up to 256 of them, as 64-bit integers beyond: with 257, the
    words on symbol 256 keep their own matrix (a byte would make it symbol 0)."""
    rng = np.random.default_rng(8)
    k, d = 257, 2
    A, h0 = rng.normal(size=(k, d, d)), rng.normal(size=d)
    words = rng.integers(0, k, size=(40, 6))
    words[::3] = 256
    grouped = np.stack(list(float_steps(A, h0, words, method="grouped")))
    assert np.allclose(grouped, np.stack(list(float_steps(A, h0, words, method="gathered"))), rtol=0, atol=1e-12)
    assert np.allclose(grouped, _plain(A, h0, words), rtol=0, atol=1e-12)
