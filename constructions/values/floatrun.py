"""The float run of a bilinear network on a batch of words, renormalised at every step.

Every float consumer of a :class:`~bilinear.constructions.values.weights.Weights` (the float check, the
extraction, the visited span of the analysis, a certificate's failing word) runs the network the
same way, written once here:

    h_0 = h0 / ||h0||,   h_t = A[w_t] h_{t-1} / ||A[w_t] h_{t-1}||,   scores_t = R h_t.

The readout has no bias and the model is linear in h, so the renormalisation changes no
prediction (the argmax is invariant under positive scaling) and keeps the numbers finite at any
length.  A row that reaches 0 stays 0 (its scores are 0: a tie, never a strict argmax).  Every
matrix, ``h0``, the readout, and a state whose norm would underflow are first divided by a power
of two (:func:`scale_exponents`, :func:`rescaled`): exact, so a network with ``h0`` or a readout
scaled by 2^-1067 runs as the unscaled one does, with no subnormal numbers from the scale alone
(docs/theory.md, Theorem 18).

The batch is advanced one step at a time.  ``method="stacked"`` multiplies every row by every
symbol's matrix in one GEMM (rows x hidden by hidden x symbols*hidden) and keeps each row's own
product; ``"grouped"`` places the rows of each symbol in a padded array, a block of steps grouped
at once (:func:`_slots`), and multiplies each group by that token's matrix (one GEMM per symbol
per step, in one ``np.matmul`` call); ``"gathered"`` gathers every row's matrix and does one
batched product (fewer Python steps for large alphabets); ``"entrywise"``, for diagonal matrices
only, multiplies each row by its symbol's diagonal entry by entry (the symbols' diagonals of a
few steps gathered at once); ``"auto"`` takes ``"entrywise"`` when every matrix is diagonal
(hidden size 2 or more), else stacks when symbols x hidden is at most :data:`STACKED_MAX` (or
:data:`STACKED_SMALL_MAX` for a small batch), else groups for up to 32 symbols, and also when
the gathered matrices (batch * hidden * hidden floats) would exceed :data:`GATHER_MAX_FLOATS`.  All give the same states up to rounding, and
``"entrywise"`` the same numbers as a product of the whole matrices (each entry of ``A h`` is
then one product plus exact zeros; only the sign of a zero may differ).  :func:`float_blocks`
(the float check's run) hands the states over a block of steps at a time, written into one
buffer, each row up to a positive scale: it divides the rows by a power of two every
:func:`rescale_span` steps instead of by their norms after every step (a stated growth bound
keeps them finite in between).

:func:`check_compatible` is the one check that a Weights value and an automaton fit together
(symbol count, class count, types); it raises :class:`~bilinear.errors.MismatchError`.

Examples
--------
>>> import numpy as np
>>> from bilinear.constructions.handmade.registry import build
>>> w = build("cyclic:5", "rotation2d")
>>> r = run_float(w, np.array([[1, 1, 3], [4, 0, 0]]), hidden=True)
>>> r.labels.tolist(), r.hidden.shape
([[1, 2, 0], [4, 4, 4]], (2, 3, 2))
>>> [H.shape for H in float_steps(*w.float_arrays()[:2], np.array([[1, 1, 3]]))]
[(1, 2), (1, 2), (1, 2)]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import numpy as np

from bilinear.errors import MismatchError, WeightsError

__all__ = ["FloatRun", "check_compatible", "float_run", "float_steps", "float_blocks", "rescale_span", "run_float", "unit_rows", "METHODS", "is_diagonal",
           "scale_exponents", "stack_inputs", "rescaled", "start_row"]

#: A float matrix whose largest entry lies outside [2^-SCALE_BAND, 2^SCALE_BAND] is rescaled by a
#: power of two (exactly) before analyses and checks judge it: every verdict is up to scale, and
#: a network is unchanged by a positive scale per matrix, but products of matrices scaled by
#: 1e-300 underflow to zero (and "A^2 = c A" then holds for any A).
SCALE_BAND = 4


def scale_exponents(A: np.ndarray) -> np.ndarray:
    """Per matrix of ``A`` (symbols, d, d), the power of two ``e`` to divide it by: 0 when its
    largest magnitude lies within ``2^±SCALE_BAND`` (or is 0 or not finite), else the ``e`` that
    brings it into ``[1, 2)``.  Dividing by ``2**e`` (``np.ldexp(A, -e)``) is exact.

    >>> scale_exponents(np.array([[[1e-300]], [[0.5]], [[3e30]]])).tolist()
    [-997, 0, 101]
    """
    m = np.abs(np.asarray(A, dtype=np.float64)).reshape(A.shape[0], -1).max(axis=1)
    e = np.frexp(m)[1].astype(np.int64) - 1
    keep = ~np.isfinite(m) | (m == 0) | ((m >= 2.0**-SCALE_BAND) & (m <= 2.0**SCALE_BAND))
    e[keep] = 0
    return e


def rescaled(x: np.ndarray) -> np.ndarray:
    """``x`` (any shape) divided by the power of two :func:`scale_exponents` gives for its largest
    magnitude (exact; unchanged when that lies within ``2^±SCALE_BAND``): the start state and the
    readout of a float run, whose predictions are invariant under a positive scale.

    >>> rescaled(np.array([2.0**-1070, 0.0, -2.0**-1072])).tolist()
    [1.0, 0.0, -0.25]
    """
    x = np.asarray(x, dtype=np.float64)
    return np.ldexp(x, -int(scale_exponents(x.reshape(1, 1, -1))[0])) if x.size else x


#: A row of a float run whose norm is below this is rescaled by a power of two before it is
#: divided by its norm (whose square would underflow).
_SMALL_NORM = 2.0**-500


#: Ways of advancing the batch (see the module docstring).
METHODS = ("auto", "grouped", "gathered", "stacked", "entrywise")

#: "auto" multiplies every row by every symbol's matrix when symbols x hidden is at most this, and
#: up to :data:`STACKED_SMALL_MAX` for batches of fewer than :data:`STACKED_SMALL_BATCH` words (the
#: grouping's cost per step is paid whatever the batch).  Measured with one thread, length 500,
#: random orthogonal matrices (benchmarks/SPEED.md, "Issue 48, round 13"): at 1,000 words
#: grouping took 0.84x stacking's time at 10 symbols x 5 hidden and 0.97x at 6 x 6, 1.02x at
#: 8 x 4; at 250 words 1.11x at 10 x 5 and 0.90x at 8 x 8; at 100 words 1.2-1.4x up to 64.
STACKED_MAX = 32
STACKED_SMALL_MAX = 64
STACKED_SMALL_BATCH = 500
#: "auto" groups rows by token for alphabets up to this size.
GROUPED_MAX_SYMBOLS = 32
#: "auto" never gathers more floats than this per step (256 MiB).
GATHER_MAX_FLOATS = 1 << 25
#: "entrywise" gathers the diagonals of at most this many floats (steps x batch x hidden) at once,
#: in one buffer kept for the run (2 MiB).
ENTRYWISE_FLOATS = 1 << 18


def check_compatible(weights, automaton, *, classes: bool = True, required: bool = True) -> None:
    """MismatchError unless ``weights`` is a Weights value that fits ``automaton``.

    Fits: the same number of symbols and (with ``classes``) as many readout rows as the
    automaton has classes.  ``automaton`` may be None only when ``required`` is False (then only
    the type of ``weights`` is checked).  The message names the mismatch and both shapes.

    >>> from bilinear.automata import from_spec
    >>> from bilinear.constructions.values.weights import Weights
    >>> w = Weights("diagonal", [[[-1]]], [1], [[1], [-1]])
    >>> check_compatible(w, from_spec("parity"))
    Traceback (most recent call last):
    ...
    bilinear.errors.MismatchError: weights have 1 symbols but automaton parity has 2 (weights: 1 symbols and 2 classes; automaton: 2 symbols and 2 classes)
    """
    from bilinear.automata.automaton import Automaton

    from .stack import Stack
    from .weights import Weights

    if not isinstance(weights, (Weights, Stack)):
        raise MismatchError(f"expected a Weights value, got {type(weights).__name__} (a Stack is accepted too)")
    if automaton is None and not required:
        return
    if not isinstance(automaton, Automaton):
        raise MismatchError(f"expected an Automaton to compare the weights with, got {type(automaton).__name__}")
    name = automaton.name or "(unnamed)"
    both = (
        f" (weights: {weights.n_symbols} symbols and {weights.n_classes} classes; automaton: "
        f"{automaton.n_symbols} symbols and {automaton.n_classes} classes)"
    )
    if weights.n_symbols != automaton.n_symbols:
        raise MismatchError(
            f"weights have {weights.n_symbols} symbols but automaton {name} has {automaton.n_symbols}{both}"
        )
    if classes and weights.n_classes != automaton.n_classes:
        raise MismatchError(
            f"readout has {weights.n_classes} classes but automaton {name} has {automaton.n_classes}{both}"
        )


def unit_rows(H: np.ndarray) -> np.ndarray:
    """Divide every non-zero row of ``H`` (batch, hidden) by its norm, in place; returns ``H``."""
    n = np.einsum("ij,ij->i", H, H)[:, None]
    np.sqrt(n, out=n)  # the row norms, without np.linalg.norm's checks
    if n.shape[0] and n.min() < _SMALL_NORM:  # rare: zero rows, or norms whose squares underflow
        small = (n[:, 0] < _SMALL_NORM) & np.any(H != 0, axis=1)
        if small.any():  # rescale those rows by a power of two first
            rows = H[small]
            e = np.frexp(np.abs(rows).max(axis=1))[1]
            H[small] = np.ldexp(rows, -e[:, None])
            n[small] = np.linalg.norm(H[small], axis=1, keepdims=True)
        n[n == 0] = 1.0  # a zero row stays zero
    H /= n
    return H


def _method(A: np.ndarray, batch: int, method: str) -> str:
    """The way of advancing the batch for the (scaled) matrices ``A`` (see the module docstring);
    WeightsError for an unknown method, or ``"entrywise"`` asked for matrices that are not diagonal."""
    if method not in METHODS:
        raise WeightsError(f"unknown float-run method {method!r} (known: {', '.join(METHODS)})")
    k, d = A.shape[0], A.shape[1]
    if method == "entrywise" and not is_diagonal(A):
        raise WeightsError("float-run method 'entrywise' needs diagonal matrices; "
                           f"symbol {_first_not_diagonal(A)}'s matrix has an entry off its diagonal")
    if method != "auto":
        return method
    if d > 1 and is_diagonal(A):
        return "entrywise"
    if k * d <= STACKED_MAX or (k * d <= STACKED_SMALL_MAX and batch < STACKED_SMALL_BATCH):
        return "stacked"
    return "grouped" if k <= GROUPED_MAX_SYMBOLS or batch * d * d > GATHER_MAX_FLOATS else "gathered"


def float_steps(A: np.ndarray, h0: np.ndarray, words: np.ndarray, method: str = "auto") -> Iterator[np.ndarray]:
    """Yield the unit hidden states ``H_t`` (batch, hidden) after each step t = 1..time.

    ``A`` (symbols, hidden, hidden) and ``h0`` (hidden,) are float arrays, ``words`` (batch, time)
    symbol indices (not checked here: see :func:`run_float`).  Each matrix is first divided by the
    power of two :func:`scale_exponents` gives (exact, and the network is scale-invariant per
    step), so a matrix scaled by 1e-300 or 1e300 neither underflows nor overflows.  Every yielded
    array is new (a consumer may keep it).
    """
    words = np.asarray(words)
    A, H = _start(A, h0, words.shape[0])
    step = _stepper(A, words, method)
    for t in range(words.shape[1]):
        H = unit_rows(step(t, H, np.empty_like(H)))
        yield H


#: A span of :func:`float_blocks` is redone with a rescaling after every step when a non-zero
#: state ends it with its absolute sum below 2^-RESCALE_FLOOR (it may have been much smaller
#: inside the span).
RESCALE_FLOOR = 60
#: Spans are as long as the states can grow by at most 2^(2 RESCALE_FLOOR) inside them (and at
#: most this many steps).
RESCALE_SPAN = 64


def rescale_span(A: np.ndarray) -> int:
    """Steps between two rescalings of :func:`float_blocks` for the (scaled) matrices ``A``:
    ``floor(2 RESCALE_FLOOR / g)``, ``2^g`` the largest 1-norm (absolute column sum) of a
    matrix, which bounds the growth of a state's absolute sum in one step; at least 1 and at
    most :data:`RESCALE_SPAN`.

    >>> rescale_span(np.array([[[16.0, 0], [0, 1]]])), rescale_span(np.array([[[0, -1.0], [1, 0]]]))
    (30, 64)
    """
    g = float(np.log2(max(float(np.abs(A).sum(axis=1).max()) if A.size else 1.0, 1.0)))
    return int(min(RESCALE_SPAN, max(1, np.floor(2 * RESCALE_FLOOR / g)))) if g > 0 else RESCALE_SPAN


def _rescale(H: np.ndarray, work: tuple | None = None) -> bool:
    """Divide every row of ``H`` by the power of two that brings its absolute sum into [1/2, 1),
    in place (exact; a zero row stays zero); False when a non-zero row's absolute sum was below
    2^-RESCALE_FLOOR.  The absolute sum (one product with a vector of ones: no per-row loop)
    is 0 only for a zero row, and neither overflows nor underflows where a squared norm would.
    ``work`` (:func:`_rescale_work` for ``H``'s shape) holds every intermediate when given: a
    run rescales often, and fresh row-sized arrays page-fault when the batch is large.

    Each row is multiplied by its ``2^-e``, a power of two: the product is ``x 2^-e`` rounded
    once, the number ``ldexp(x, -e)`` gives, and 3-4x faster (numpy's ``ldexp`` broadcast over
    rows has no vector loop).  While ``e >= -1020`` that power is a finite double (at most
    2^1020; at least 2^-1024, exact though subnormal, for the largest ``e`` ``frexp`` gives); a
    row whose absolute sum is below 2^-1021 (a subnormal sum: never in a run, whose rows stay
    above 2^-(3 RESCALE_FLOOR)) goes through ``ldexp``."""
    if work is None:
        work = _rescale_work(H.shape)
    absolute, ones, sums, fraction, e = work
    np.matmul(np.abs(H, out=absolute), ones, out=sums)
    np.frexp(sums, out=(fraction, e))
    if not e.size:
        return True
    least = int(e.min())
    np.negative(e, out=e)
    if least >= -1020:
        np.multiply(H, np.ldexp(1.0, e, out=fraction)[:, None], out=H)  # fraction: free again
    else:
        np.ldexp(H, e[:, None], out=H)
    return least > -RESCALE_FLOOR


def _rescale_work(shape: tuple) -> tuple:
    """The buffers of :func:`_rescale` for states of ``shape`` (batch, hidden)."""
    batch, hidden = shape
    return np.empty(shape), np.ones(hidden), np.empty(batch), np.empty(batch), np.empty(batch, dtype=np.intc)


def float_blocks(A: np.ndarray, h0: np.ndarray, words: np.ndarray, steps: int,
                 method: str = "auto") -> Iterator[tuple[int, np.ndarray]]:
    """The states of :func:`float_steps` up to a positive scale per row, ``steps`` at a time: yield
    ``(t, block)``, ``block`` (steps, batch, hidden) the states after steps ``t + 1 ..`` (fewer at
    the end), written into one buffer that the next block overwrites.

    The run starts from :func:`start_row` (``h0`` divided by powers of two, not by its norm:
    exact), and a row is not divided by its norm after every step: the states are multiplied on, and every
    :func:`rescale_span` steps (and at the end of each block) each row is divided by the power of
    two that brings its absolute sum into [1/2, 1) (exact).  Inside a span a row's absolute sum
    grows by at most 2^(2 RESCALE_FLOOR) (the span's bound); a span that leaves a non-zero row
    below 2^-RESCALE_FLOOR is run again rescaled after every step, so every non-zero state of a
    block has its absolute sum within [2^-3 RESCALE_FLOOR, 2^(2 RESCALE_FLOOR)]: its norm and
    scores neither overflow nor underflow.  Divided by their norms, the rows are the states of
    :func:`float_steps` up to rounding (one rounding fewer per step: no division).

    >>> from bilinear.constructions.handmade.registry import build
    >>> A, h0, _ = build("cyclic:5", "rotation2d").float_arrays()
    >>> [(t, b.shape) for t, b in float_blocks(A, h0, np.zeros((3, 5), dtype=np.int64), 2)]
    [(0, (2, 3, 2)), (2, (2, 3, 2)), (4, (1, 3, 2))]
    """
    words = np.asarray(words)
    batch, length = words.shape
    A, _ = _start(A, h0, 0)
    H = np.tile(start_row(h0), (batch, 1))  # exact: no division by the norm
    step = _stepper(A, words, method)
    n = max(1, min(steps, length))
    block = np.empty((n, batch, A.shape[1]))
    span = rescale_span(A)
    start, work = H.copy(), _rescale_work(H.shape)
    t = 0
    while t < length:
        end = min(t + span, t - t % n + n, length)  # a span never crosses a block
        for u in range(t, end):
            H = step(u, H, block[u % n])
        if not _rescale(H, work):  # rare: a state fell far: the span again, rescaled every step
            H = start
            for u in range(t, end):
                H = step(u, H, block[u % n])
                _rescale(H, work)
        np.copyto(start, H)
        t = end
        if t % n == 0 or t == length:
            yield (t - 1) - (t - 1) % n, block[: (t - 1) % n + 1]


def start_row(h0: np.ndarray) -> np.ndarray:
    """The start row of :func:`float_blocks`: ``h0`` divided by powers of two only (:func:`rescaled`,
    then the one that brings its absolute sum into [1/2, 1), as the run's rescaling does), so
    that a run whose products are exact has no rounding at all
    (:mod:`~bilinear.constructions.values.floatstates`).

    >>> start_row(np.array([-4.0, -2.0, 0.0, 2.0])).tolist()
    [-0.25, -0.125, 0.0, 0.125]
    """
    h = rescaled(h0).copy()[None, :]
    _rescale(h)
    return h[0]


def _start(A, h0, batch: int) -> tuple[np.ndarray, np.ndarray]:
    """The matrices divided by their powers of two, and the unit start state repeated per row."""
    A = np.asarray(A, dtype=float)
    A = np.ldexp(A, -scale_exponents(A)[:, None, None])  # exact; no step underflows or overflows
    h = rescaled(h0)  # exact: a subnormal h0 is normalised like any other
    return A, np.tile(h / (np.linalg.norm(h) or 1.0), (batch, 1))


def _stepper(A: np.ndarray, words: np.ndarray, method: str):
    """``step(t, H, out)``: the products ``A[w_t] h`` of the rows of ``H`` (batch, hidden), not
    renormalised, written into ``out`` (which may be ``H``) and returned, by the method of
    :func:`_method` (see the module docstring)."""
    batch = words.shape[0]
    k, d = A.shape[0], A.shape[1]
    how = _method(A, batch, method)  # an unknown way, or "entrywise" for a full matrix, is refused first
    if batch == 0:  # no rows to multiply (and none to group: a padded array of no groups)

        def empty(t, H, out):
            return out

        return empty
    if how == "entrywise":
        return _entrywise_stepper(A, words)
    AT = np.ascontiguousarray(np.transpose(A, (0, 2, 1)))  # H @ AT[s] = (A[s] H^T)^T
    slot_steps = _slot_steps(batch)

    if how == "stacked":  # every row times every symbol's matrix (one GEMM), then each row's own
        ATs = np.ascontiguousarray(np.transpose(AT, (1, 0, 2)).reshape(d, -1))  # (hidden, k*hidden)
        product = np.empty((batch, k * d))
        flat = product.reshape(batch * k, d)
        base = np.arange(batch, dtype=np.int64)[None, :] * k

        def grouping(w):
            return w.T + base  # row b*k + s: word b times symbol s

        rows_of = _chunked(words, slot_steps, grouping)

        def stacked(t, H, out):
            rows, i = rows_of(t)
            np.matmul(H, ATs, out=product)
            return flat.take(rows[i], axis=0, out=out, mode="clip")  # valid rows: unbuffered

        return stacked
    if how == "grouped":
        room = [np.empty(0), np.empty(0)]  # the padded rows and their products, kept from chunk to chunk

        def grouping(w):  # the rows of each symbol padded, a block of steps at a time
            slots, groups, sources = _slots(w, k, d)
            if k * groups * d > GATHER_MAX_FLOATS:  # too many words on one symbol to pad
                return slots, sources, None, None, None, None
            if room[0].size < k * groups * d:  # grown with room to spare, never shrunk: a fresh array may page-fault
                size = max(k * groups * d, min(k * (groups + groups // 4 + 1) * d, GATHER_MAX_FLOATS))
                room[:] = [np.zeros(size), np.empty(size)]
            padded, product = (x[: k * groups * d].reshape(k, groups, d) for x in room)  # symbol s at [s, :count]
            return slots, sources, padded, product, padded.reshape(-1, d), product.reshape(-1, d)

        rows_of = _chunked(words, slot_steps, grouping)

        def grouped(t, H, out):
            (slots, sources, padded, product, padded_rows, product_rows), i = rows_of(t)
            if padded is None:
                return _per_symbol(H, AT, words[:, t], out)
            if sources is None:  # too many padded rows to list for every step
                padded_rows[slots[i]] = H
            else:
                H.take(sources[i], axis=0, out=padded_rows, mode="clip")  # valid rows: unbuffered
            np.matmul(padded, AT, out=product)  # one GEMM per symbol
            return product_rows.take(slots[i], axis=0, out=out, mode="clip")

        return grouped

    def gathered(t, H, out):
        out[...] = np.einsum("bj,bji->bi", H, AT[words[:, t]])
        return out

    return gathered


def _off_diagonal(A: np.ndarray) -> np.ndarray:
    """Per matrix of ``A`` (symbols, d, d), its non-zero entries off the diagonal, counted without
    a copy (all non-zero entries less those on the diagonal)."""
    return (np.count_nonzero(A.reshape(A.shape[0], -1), axis=1)
            - np.count_nonzero(np.diagonal(A, axis1=1, axis2=2), axis=1))


def is_diagonal(A: np.ndarray) -> bool:
    """Whether every matrix of ``A`` (symbols, d, d) is diagonal: every entry off its diagonal 0.

    >>> is_diagonal(np.array([[[2.0, 0], [0, -1]]])), is_diagonal(np.array([[[2.0, 1e-300], [0, -1]]]))
    (True, False)
    """
    return not _off_diagonal(A).any()


def _first_not_diagonal(A: np.ndarray) -> int:
    """The first symbol whose matrix has a non-zero entry off its diagonal."""
    return int(np.flatnonzero(_off_diagonal(A))[0])


def _chunked(words: np.ndarray, span: int, grouping):
    """``rows_of(t)``: ``(grouping(words[:, lo : lo + span]), t - lo)`` for the span of steps
    from ``lo`` that holds step ``t``, the grouping computed once a span (the one before it freed
    first) and kept while the steps stay in it."""
    chunk: dict = {}

    def rows_of(t: int):
        lo = t - t % span
        if chunk.get("lo") != lo:
            chunk.clear()
            chunk.update(lo=lo, rows=grouping(words[:, lo : lo + span]))
        return chunk["rows"], t - lo

    return rows_of


def _entrywise_span(batch: int, length: int, hidden: int) -> int:
    """Steps whose diagonals :func:`_entrywise_stepper` gathers at once: at most :data:`_SLOT_STEPS`,
    the words' length and :data:`ENTRYWISE_FLOATS` floats (``batch x hidden`` a step); at least 1.

    >>> _entrywise_span(1000, 500, 16), _entrywise_span(60, 40, 5), _entrywise_span(10**6, 500, 16), _entrywise_span(0, 0, 16)
    (16, 40, 1, 1)
    """
    return max(1, min(_SLOT_STEPS, length, ENTRYWISE_FLOATS // max(1, batch * hidden)))


def _entrywise_stepper(A: np.ndarray, words: np.ndarray):
    """The ``step(t, H, out)`` of :func:`_stepper` for diagonal matrices: ``H * diag(A[w_t])``
    entry by entry, each entry the one product a row of ``A[w_t] h`` holds besides exact zeros
    (the same number, but for the sign of a zero).  The rows' diagonals are gathered for several
    steps at once (at most :data:`ENTRYWISE_FLOATS` floats) into one buffer kept for the run."""
    batch, length = words.shape
    D = np.ascontiguousarray(np.diagonal(A, axis1=1, axis2=2))  # (symbols, hidden)
    span = _entrywise_span(batch, length, D.shape[1])
    gathered = np.empty((span, batch, D.shape[1]))  # kept for the run

    def grouping(w):  # the rows' diagonals of a span of steps, (steps, batch, hidden)
        return D.take(w.T, axis=0, out=gathered[: w.shape[1]], mode="clip")  # valid symbols: unbuffered

    rows_of = _chunked(words, span, grouping)

    def entrywise(t, H, out):
        rows, i = rows_of(t)
        return np.multiply(H, rows[i], out=out)

    return entrywise


def _per_symbol(H: np.ndarray, AT: np.ndarray, tokens: np.ndarray, out: np.ndarray) -> np.ndarray:
    """One step, one GEMM per symbol on the rows that read it (no padding)."""
    for s in range(AT.shape[0]):
        idx = np.nonzero(tokens == s)[0]
        if idx.size:
            out[idx] = H[idx] @ AT[s]
    return out


#: Steps whose grouping by symbol (:func:`_slots`) is computed at once: at most _SLOT_STEPS, and
#: at most _SLOT_ENTRIES words x steps (its index arrays then stay below 128 KiB each: a larger
#: temporary may be handed back to the system when freed and page-fault when made again, which
#: cost more than the grouping itself).
_SLOT_STEPS = 64
_SLOT_ENTRIES = 1 << 14


def _slot_steps(batch: int) -> int:
    """Steps grouped at once for ``batch`` words (:data:`_SLOT_STEPS`, :data:`_SLOT_ENTRIES`).

    >>> _slot_steps(1000), _slot_steps(100), _slot_steps(10**6), _slot_steps(0)
    (16, 64, 1, 64)
    """
    return max(1, min(_SLOT_STEPS, _SLOT_ENTRIES // max(1, batch)))


def _slots(words: np.ndarray, k: int, hidden: int) -> tuple[np.ndarray, int, np.ndarray | None]:
    """For steps ``words`` (batch, steps): ``slots`` (steps, batch), the row of each word in the
    step's padded array (symbol ``s`` at rows ``s * groups ..``, in word order), ``groups``, the
    most words that read one symbol at one step, and ``sources`` (steps, symbols * groups), the
    word in each padded row (0 in a padding row): ``padded = H[sources[t]]``, ``H = padded[slots[t]]``;
    None when they or the padded array (symbols x groups x ``hidden`` floats) would exceed
    :data:`GATHER_MAX_FLOATS` entries."""
    # (steps, batch) in C order (a transposed astype keeps the F order: each step's row strided);
    # small ints sort by radix
    steps = np.ascontiguousarray(words.T, dtype=np.uint8 if k <= 256 else np.int64)
    n, batch = steps.shape
    order = np.argsort(steps, axis=1, kind="stable")  # each step's words by symbol, in word order
    counts = np.bincount((steps + np.arange(0, n * k, k)[:, None]).reshape(-1), minlength=n * k)  # per t * k + s
    groups = int(counts.max())  # a span of at least one step and one word (the grouped way's)
    # the i-th word of a step's order goes to row s * groups + i - (words before symbol s at its step)
    shift = (np.arange(n * k) % k) * groups - (np.cumsum(counts) - counts - np.arange(n * k) // k * batch)
    rows = np.repeat(shift, counts).reshape(n, batch) + np.arange(batch)  # in the order
    slots = np.empty((n, batch), dtype=np.int64)
    slots.reshape(-1)[order + np.arange(0, n * batch, batch)[:, None]] = rows  # at flat index t * batch + b
    if k * groups * max(hidden, n) > GATHER_MAX_FLOATS:  # one step on one symbol: pad rows for every step
        return slots, groups, None
    sources = np.zeros(n * k * groups, dtype=np.int64)
    sources[rows + np.arange(0, n * k * groups, k * groups)[:, None]] = order  # the words themselves
    return slots, groups, sources.reshape(n, k * groups)


def float_run(
    A: np.ndarray, h0: np.ndarray, words: np.ndarray, readout: np.ndarray | None = None, method: str = "auto"
) -> Iterator[tuple[int, np.ndarray]]:
    """Yield ``(t, H)`` after each step (t = 0..time-1), ``H`` (batch, hidden) of unit rows;
    with ``readout`` (classes, hidden) yield ``(t, scores (batch, classes))`` instead."""
    R = None if readout is None else rescaled(readout)
    for t, H in enumerate(float_steps(A, h0, words, method)):
        yield t, (H if R is None else H @ R.T)


@dataclass(frozen=True)
class FloatRun:
    """The result of :func:`run_float`: ``labels`` (batch, time) predicted classes after every
    step; ``scores`` (batch, time, classes) and ``hidden`` (batch, time, hidden, unit rows) when
    asked for, else None."""

    labels: np.ndarray
    scores: np.ndarray | None = None
    hidden: np.ndarray | None = None


def _words(weights, words) -> np.ndarray:
    words = np.asarray(words)
    if words.ndim != 2 or not (words.size == 0 or np.issubdtype(words.dtype, np.integer)):
        raise WeightsError(
            f"words must be a (batch, time) array of symbol indices, got shape {words.shape} ({words.dtype})"
        )
    if words.size and (words.min() < 0 or words.max() >= weights.n_symbols):
        bad = int(words.min()) if words.min() < 0 else int(words.max())
        raise WeightsError(f"words use symbol index {bad}, outside 0..{weights.n_symbols - 1}")
    return words.astype(np.int64, copy=False)


def stack_inputs(stack, words: np.ndarray, method: str = "auto") -> np.ndarray:
    """The words (batch, time) the last layer of ``stack`` reads: layer 1 runs on ``words``, and
    each layer ``l >= 2`` on ``words * C_{l-1} + (class of layer l-1 after the same step)``
    (docs/theory.md section 8), one renormalised float run per layer.  An intermediate class is
    the float argmax (the first of equal scores).

    >>> from bilinear.automata import from_spec
    >>> from bilinear.constructions.handmade.cascade import cascade
    >>> stack = cascade(from_spec("dihedral:3"), "rotation2d")
    >>> stack_inputs(stack, np.array([[0, 1, 1]])).tolist()   # layer 1: reflections mod 2
    [[0, 3, 2]]
    """
    inputs = words
    for layer in stack.layers[:-1]:
        A, h0, R = layer.float_arrays()
        R = rescaled(R)
        classes = np.empty_like(words)
        for t, H in enumerate(float_steps(A, h0, inputs, method)):
            classes[:, t] = np.argmax(H @ R.T, axis=1)
        inputs = words * layer.n_classes + classes
    return inputs


def run_float(weights, words, *, scores: bool = False, hidden: bool = False, method: str = "auto") -> FloatRun:
    """Run ``weights`` (exact weights are converted to float) on ``words`` (batch, time).

    ``weights`` may be a :class:`~bilinear.constructions.values.stack.Stack`: the layers below the last
    run first (:func:`stack_inputs`, one float run each, so a stack costs its layers' runs), and
    ``labels``, ``scores`` and ``hidden`` are the last layer's.

    Returns :class:`FloatRun` (``scores`` of the readout divided by the power of two :func:`rescaled` gives); ``hidden=True`` keeps every hidden state (batch * time * hidden
    floats), ``scores=True`` every score vector.  For a per-step stream use :func:`float_steps`.
    """
    from .stack import Stack

    check_compatible(weights, None, required=False)
    words = _words(weights, words)
    if isinstance(weights, Stack):
        words = stack_inputs(weights, words, method)
        weights = weights.layers[-1]
    A, h0, R = weights.float_arrays()
    R = rescaled(R)  # exact; scores are up to a positive scale
    batch, time = words.shape
    labels = np.empty((batch, time), dtype=np.int64)
    S = np.empty((batch, time, R.shape[0])) if scores else None
    Hs = np.empty((batch, time, A.shape[1])) if hidden else None
    for t, H in enumerate(float_steps(A, h0, words, method)):
        sc = H @ R.T
        labels[:, t] = np.argmax(sc, axis=1)
        if S is not None:
            S[:, t] = sc
        if Hs is not None:
            Hs[:, t] = H
    return FloatRun(labels, S, Hs)
