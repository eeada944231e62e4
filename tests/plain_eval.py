"""An evaluator written for the tests, apart from the code under test (``floatrun.py``, the scans):
a plain float64 loop over words, shared by the horizon tests and the report-sentence tests, which
check certified lengths and printed failures against it; and a plain breadth-first walk of an
automaton's states, shared by the oracles of the certificate and lower-bound tests."""

from __future__ import annotations

import itertools

import numpy as np


def float64_margins(A, h0, R, automaton, words: np.ndarray, symbols: np.ndarray | None = None) -> np.ndarray:
    """Per word and step, the float64 margin of the label: ``(batch, time + 1)``, column 0 the
    empty word, the state renormalised after every step.  A tie has margin 0 (a failure).
    ``symbols`` (default ``words``) are what the matrices read, ``words`` what the automaton reads
    (they differ for a stack's last layer)."""
    symbols = words if symbols is None else symbols
    batch, T = words.shape
    H = np.tile(h0 / np.linalg.norm(h0), (batch, 1))
    q = np.full(batch, int(automaton.start))
    out = np.empty((batch, T + 1))
    for t in range(T + 1):
        if t:
            H = np.einsum("bij,bj->bi", A[symbols[:, t - 1]], H)
            H /= np.linalg.norm(H, axis=1, keepdims=True)
            q = automaton.delta[words[:, t - 1], q]
        S = H @ R.T
        lab = automaton.labels[q]
        own = S[np.arange(batch), lab].copy()
        S[np.arange(batch), lab] = -np.inf
        out[:, t] = own - S.max(axis=1)
    return out


def first_wrong_length(labels_of, automaton, batches) -> int | None:
    """The shortest prefix length at which ``labels_of(batch)`` (``(batch, time)`` predicted labels,
    e.g. a float run's) differs from the automaton's labels, over the word ``batches``; None when
    every prefix is right."""
    first = None
    for batch in batches:
        states = np.tile(automaton.start, len(batch))
        want = np.empty(batch.shape, dtype=np.int64)
        for t in range(batch.shape[1]):
            states = automaton.delta[batch[:, t], states]
            want[:, t] = automaton.labels[states]
        wrong = np.nonzero((labels_of(batch) != want).any(axis=0))[0]
        if wrong.size:
            first = int(wrong[0]) + 1 if first is None else min(first, int(wrong[0]) + 1)
    return first


def per_word_first_failure(margins: np.ndarray, words: np.ndarray):
    """The float check's first failing word from :func:`per_word_margins`' ``margins``: ``()`` when
    the empty word fails, else the shortest failing prefix (the first such word of the batch), or
    None when every prefix is right."""
    if margins[0, 0] <= 0:
        return ()
    bad = np.argwhere(~(margins[:, 1:] > 0))  # NaN counts as a failure
    if not bad.size:
        return None
    t = bad[:, 1].min()
    return tuple(words[bad[bad[:, 1] == t, 0].min(), : t + 1].tolist())


def per_word_margins(A, h0, R, automaton, words: np.ndarray) -> np.ndarray:
    """Per word and prefix, ``(batch, time + 1)`` (the empty word first), the margin of the
    automaton's label on the unit state, one word at a time: the plainest form of
    :func:`float64_margins` (one matrix-vector product and one division by the norm a step)."""
    out = np.empty((words.shape[0], words.shape[1] + 1))
    for b, word in enumerate(words):
        h, q = h0 / np.linalg.norm(h0), automaton.start
        for t in range(words.shape[1] + 1):
            if t:
                h = A[word[t - 1]] @ h
                h = h / np.linalg.norm(h)
                q = automaton.delta[word[t - 1], q]
            scores = R @ h
            label = automaton.labels[q]
            out[b, t] = scores[label] - np.max(np.delete(scores, label))
    return out


def float64_stack_margins(layers, automaton, words: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A stack of layers, each ``(A, h0, R)`` in float64 (docs/theory.md section 8): layer 1 reads
    the word, layer ``l`` the symbol ``s * C_{l-1} + c`` with ``c`` the argmax of layer ``l - 1``
    after the same step.  Returns ``(last, inner)``, each ``(batch, time + 1)``: the last layer's
    margin of the automaton's label (as :func:`float64_margins`), and the smallest gap between the
    best and the second-best score of the layers below (``inf`` for one layer; 0 on a tie)."""
    batch, T = words.shape
    inner = np.full((batch, T + 1), np.inf)
    symbols = words
    for A, h0, R in layers[:-1]:
        H = np.tile(h0 / np.linalg.norm(h0), (batch, 1))
        classes = np.empty_like(words)
        for t in range(T + 1):
            if t:
                H = np.einsum("bij,bj->bi", A[symbols[:, t - 1]], H)
                H /= np.linalg.norm(H, axis=1, keepdims=True)
            S = np.sort(H @ R.T, axis=1)
            inner[:, t] = np.minimum(inner[:, t], S[:, -1] - S[:, -2])
            if t:
                classes[:, t - 1] = np.argmax(H @ R.T, axis=1)
        symbols = words * R.shape[0] + classes
    A, h0, R = layers[-1]
    return float64_margins(A, h0, R, automaton, words, symbols), inner


def first_failure(w, automaton, limit: int, beam: int = 64) -> int | None:
    """The shortest failure (margin <= 0, by :func:`float64_margins`) of the float weights ``w``
    that this search finds up to ``limit``: every word to the depth where 4096 words are reached,
    periodic words of period <= 4, and a beam search of width ``beam`` on the margin."""
    A, h0, R = w.float_arrays()
    k = A.shape[0]
    found = []
    depth = 1
    while k ** (depth + 1) <= 4096:
        depth += 1
    words = np.array(list(itertools.product(range(k), repeat=depth)))
    bad = np.nonzero((float64_margins(A, h0, R, automaton, words) <= 0).any(axis=0))[0]
    if len(bad):
        found.append(int(bad[0]))
    loops = [u for p in (1, 2, 3, 4) for u in itertools.product(range(k), repeat=p)]
    words = np.stack([np.resize(np.array(u), limit) for u in loops])
    bad = np.nonzero((float64_margins(A, h0, R, automaton, words) <= 0).any(axis=0))[0]
    if len(bad):
        found.append(int(bad[0]))
    t = beam_failure(A, h0, R, automaton, limit, beam)
    if t is not None:
        found.append(t)
    return min(found) if found else None


def beam_failure(A, h0, R, automaton, limit: int, beam: int = 64) -> int | None:
    """The beam search of :func:`first_failure`: at each length every kept word followed by every
    symbol (in that order), the ``beam`` of smallest last margin kept; the first length where a
    candidate's margin is <= 0, or None.  Each candidate's state is its word's kept state times
    one matrix and divided by its norm: the steps of :func:`float64_margins`, one a length
    instead of the whole word again (linear in ``limit``, not quadratic)."""
    k = A.shape[0]
    H = (h0 / np.linalg.norm(h0))[None, :]
    q = np.array([int(automaton.start)])
    symbols = np.arange(k)
    for t in range(1, limit + 1):
        rows = np.repeat(np.arange(len(q)), k)  # candidate i * k + s: kept word i, then symbol s
        sym = np.tile(symbols, len(q))
        H = np.einsum("bij,bj->bi", A[sym], H[rows])
        H /= np.linalg.norm(H, axis=1, keepdims=True)
        q = automaton.delta[sym, q[rows]]
        S = H @ R.T
        lab = automaton.labels[q]
        own = S[np.arange(len(q)), lab].copy()
        S[np.arange(len(q)), lab] = -np.inf
        m = own - S.max(axis=1)
        if (m <= 0).any():
            return t
        keep = np.argsort(m)[:beam]
        H, q = H[keep], q[keep]
    return None


def _beam_failure_rerun(A, h0, R, automaton, limit: int, beam: int = 64) -> int | None:
    """:func:`beam_failure` as it was first written: every candidate word run again from the
    start at every length (quadratic in ``limit``; kept as the reference the incremental one is
    tested against)."""
    k = A.shape[0]
    frontier: list[tuple] = [()]
    for t in range(1, limit + 1):
        cands = [u + (s,) for u in frontier for s in range(k)]
        m = float64_margins(A, h0, R, automaton, np.array(cands))[:, -1]
        if (m <= 0).any():
            return t
        frontier = [cands[i] for i in np.argsort(m)[:beam]]
    return None


def no_dense_check(monkeypatch) -> None:
    """The float check's dense run (``floatcheck._score_blocks``) made to fail the test if it
    runs: what follows must be judged by the table of the float run's states alone."""
    from bilinear.constructions.horizon import floatcheck

    def refuse(*args):
        raise AssertionError("the dense run ran")

    monkeypatch.setattr(floatcheck, "_score_blocks", refuse)


def no_node_horizon(*args, **kwargs):
    """Theorem 20 switched off (monkeypatched over ``horizon.node_horizon_widest``): no length,
    so a test sees Theorems 16, 17 and 19 alone."""
    from bilinear.constructions.horizon.horizon import Horizon

    return Horizon.none("float32", "switched off", "node")


def start_distances(automaton) -> dict[int, int]:
    """Breadth-first distance from the start state to every reachable state of ``automaton`` (a
    plain walk over its transition table, not the module's ``access_words``)."""
    start = int(automaton.start)
    dist, frontier = {start: 0}, [start]
    while frontier:
        nxt = []
        for q in frontier:
            for s in range(automaton.n_symbols):
                r = int(automaton.delta[s, q])
                if r not in dist:
                    dist[r] = dist[q] + 1
                    nxt.append(r)
        frontier = nxt
    return dist


def householder_product(V, beta) -> list:
    """``H(V[0], beta[0]) @ ... @ H(V[K-1], beta[K-1])`` with ``H(v, b) = I - b v v^T / v^T v``, as
    lists of Fractions, one factor at a time (the tests' own composition, independent of
    ``householder_compose``)."""
    from fractions import Fraction

    d = len(V[0])
    M = [[Fraction(int(i == j)) for j in range(d)] for i in range(d)]
    for v, b in zip(V, beta):
        v = [Fraction(x) for x in v]
        n = sum(x * x for x in v)
        H = [[Fraction(int(i == j)) - Fraction(b) * v[i] * v[j] / n for j in range(d)] for i in range(d)]
        M = [[sum(M[i][k] * H[k][j] for k in range(d)) for j in range(d)] for i in range(d)]
    return M


def householder_floats(V, beta) -> np.ndarray:
    """``H(V[0], beta[0]) @ ... @ H(V[K-1], beta[K-1])`` in float64, one factor at a time, for
    factors whose entries are rational or cyclotomic (read through ``float``)."""
    d = len(V[0])
    M = np.eye(d)
    for v, b in zip(V, beta):
        v = np.array([float(x) for x in v])
        M = M - float(b) * np.outer(M @ v, v) / (v @ v)
    return M


def min_margin_all_words(A, h0, R, automaton, length: int) -> float:
    """The smallest float64 margin (:func:`float64_margins`) over every word of length at most
    ``length`` and every prefix of it."""
    worst = float("inf")
    k = A.shape[0]
    for n in range(1, length + 1):
        words = np.array(list(itertools.product(range(k), repeat=n)), dtype=np.int64).reshape(-1, n)
        worst = min(worst, float(float64_margins(A, h0, R, automaton, words).min()))
    return worst


def householder_weights_min_margin(automaton, w, length: int) -> float:
    """:func:`min_margin_all_words` for Householder weights ``w``, their factors multiplied out by
    :func:`householder_floats` (not the weights' own ``A``)."""
    V, beta = w.factors
    A = np.stack([householder_floats(V[s], beta[s]) for s in range(w.n_symbols)])
    h0 = np.array([float(x) for x in w.h0])
    R = np.array([[float(x) for x in row] for row in w.readout])
    return min_margin_all_words(A, h0, R, automaton, length)
