"""The two clusterings of an extraction's hidden states (analysis/extract.py): geometric leader
clusters of unit vectors with a radius (:class:`_Clusters`), and behavioural signatures, the
labels after every word up to a horizon (:class:`_Signatures`); the votes of their transitions
and labels (:func:`count_votes`, :func:`label_votes`, :func:`count_label_conflicts`), and the
memory an extraction holds, its arrays and theirs (:func:`extract_bytes`)."""

from __future__ import annotations

import numpy as np

from bilinear.errors import AnalysisError

from .radius import RADIUS_SAMPLE, RADIUS_WORDS, RadiusChoice

#: Most words (empty word included) in a behavioural signature.
MAX_SIGNATURE_WORDS = 1024
#: Entries of the (rows, centres) distances whose sums :meth:`_Clusters._dist` forms at once.
DIST_BLOCK = 1 << 16
#: The float run of an extraction's words is kept for the passes after the first (the radius
#: search clusters the same states at every radius it tries) when its states take at most this
#: many bytes; a larger run is run again per pass (analysis/extract.py ``_Run``).
KEEP_RUN_BYTES = 64 << 20
#: Sorted vote keys counted at once (analysis/extract.py ``_majority``, :func:`count_label_conflicts`).
VOTE_BLOCK = 1 << 16


def _signature_word_count(k: int, horizon: int, refuse: bool = True) -> int:
    """Words of length <= ``horizon`` over ``k`` symbols, or AnalysisError past MAX_SIGNATURE_WORDS
    (``refuse=False``: a count past it, not the count)."""
    count = horizon + 1 if k == 1 else 1
    for _ in range(horizon if k > 1 else 0):
        count = count * k + 1
        if count > MAX_SIGNATURE_WORDS:
            break
    if count > MAX_SIGNATURE_WORDS and refuse:
        total = sum(k**i for i in range(horizon + 1)) if horizon * max(k, 2).bit_length() < 4000 else None
        raise AnalysisError(
            f"horizon {horizon} gives {f'{total:,}' if total is not None else 'too many'} words per "
            f"signature with {k} symbols (at most {MAX_SIGNATURE_WORDS}); lower the horizon"
        )
    return count


class _Clusters:
    """Online leader clustering of unit vectors with radius ``tol``."""

    def __init__(self, dim: int, tol: float, max_states: int):
        self.tol = tol
        self.max_states = max_states
        self.centres = np.zeros((min(max_states, 64) + 1, dim))
        self.sq = np.zeros(self.centres.shape[0])  # squared norms of the centres
        self.radius: list[float] = []
        self.k = 0
        self.overflow = False
        self.choice: RadiusChoice | None = None

    def _dist(self, X: np.ndarray, C: np.ndarray, csq: np.ndarray, xsq: np.ndarray | None = None) -> np.ndarray:
        """Distances of the rows of ``X`` to the centres ``C`` (squared norms ``csq``) by
        ``|x|^2 + |c|^2 - 2 x.c``; ``xsq``: the rows' squared norms when already computed (each
        row's own sum, the number computing it again gives)."""
        if xsq is None:
            xsq = np.einsum("ij,ij->i", X, X)
        d2 = X @ C.T  # one (rows, centres) array: the sums below a block of rows at a time, in place
        d2 *= 2.0
        rows = max(1, DIST_BLOCK // max(1, C.shape[0]))
        for lo in range(0, d2.shape[0], rows):
            np.subtract(xsq[lo:lo + rows, None] + csq[None, :], d2[lo:lo + rows], out=d2[lo:lo + rows])
        np.maximum(d2, 0.0, out=d2)
        return np.sqrt(d2, out=d2)

    def _add(self, x: np.ndarray) -> int:
        if self.k >= self.max_states:
            self.overflow = True
            return -1
        if self.k == self.centres.shape[0]:
            grow = min(self.max_states + 1, 2 * self.centres.shape[0])
            self.centres = np.vstack([self.centres, np.zeros((grow - self.k, self.centres.shape[1]))])
            self.sq = np.concatenate([self.sq, np.zeros(grow - self.k)])
        self.centres[self.k] = x
        self.sq[self.k] = float(x @ x)
        self.radius.append(0.0)
        self.k += 1
        return self.k - 1

    def assign(self, X: np.ndarray) -> np.ndarray:
        """Cluster index of each row of X (batch, hidden); -1 once ``max_states`` is exceeded."""
        n = X.shape[0]
        out = np.full(n, -1, dtype=np.int64)
        dist = np.full(n, np.inf)
        xsq = np.einsum("ij,ij->i", X, X)  # once for every distance below
        if self.k:
            D = self._dist(X, self.centres[: self.k], self.sq[: self.k], xsq)
            out = np.argmin(D, axis=1)
            dist = D[np.arange(n), out]
            out[dist > self.tol] = -1
        todo = np.flatnonzero(out < 0)
        while todo.size and not self.overflow:
            c = self._add(X[todo[0]])
            if c < 0:
                break
            d = self._dist(X[todo], self.centres[c : c + 1], self.sq[c : c + 1], xsq[todo])[:, 0]
            near = d <= self.tol
            out[todo[near]] = c
            dist[todo[near]] = d[near]
            todo = todo[~near]
        ok = out >= 0
        if ok.any():  # each cluster's largest distance: the rows sorted by cluster, one maximum per run
            r = np.zeros(self.k)
            ids = out[ok]
            order = np.argsort(ids, kind="stable")
            ids, far = ids[order], dist[ok][order]
            starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])
            r[ids[starts]] = np.maximum.reduceat(far, starts)  # distances are >= 0: as max(0, ...)
            self.radius = [max(a, b) for a, b in zip(self.radius, r.tolist())]
        return out

    def bounds(self) -> tuple[float, float]:
        """(within, between): max 2 r_i, and min_{i != j} |c_i - c_j| - r_i - r_j (inf for k < 2)."""
        r = np.asarray(self.radius[: self.k])
        within = float(2 * r.max()) if r.size else 0.0
        if self.k < 2:
            return within, float("inf")
        C = self.centres[: self.k]
        D = self._dist(C, C, self.sq[: self.k])
        D -= r[:, None]
        D -= r[None, :]
        np.fill_diagonal(D, np.inf)
        return within, float(D.min())


class _Signatures:
    """Behavioural clustering: two hidden states are the same state when the network gives them
    the same label after every word of length <= ``horizon`` (the empty word included).

    No distance tolerance: the justification is the *margin* of every label in a signature,
    ``(top score - second score) / (||x|| max_c ||R_c||)``; ``margin`` is its minimum over all
    states and words (> 0: every signature is decided, not a tie)."""

    def __init__(self, A: np.ndarray, R: np.ndarray, horizon: int, max_states: int):
        from .matrices import word_matrix, words_up_to

        k = A.shape[0]
        _signature_word_count(k, horizon)  # before any word is made
        words = [()] + list(words_up_to(k, horizon))
        # readout after each word: R A(w), stacked (words * classes, hidden)
        self.C = R.shape[0]
        self.W = len(words)
        self.RA = np.concatenate([R @ word_matrix(A, w) for w in words], axis=0)
        self.rnorm = float(np.linalg.norm(R, axis=1).max()) or 1.0
        self.max_states = max_states
        self.index: dict[bytes, int] = {}
        self.overflow = False
        self.margin = float("inf")
        self.k = 0
        self.signatures: list[np.ndarray] = []
        self.representatives: list[np.ndarray] = []

    def lookup(self, x: np.ndarray) -> int:
        """The state of one hidden vector if its signature is known, else -1."""
        labels = np.argmax((self.RA @ x).reshape(self.W, self.C), axis=1).astype(np.int32)
        return self.index.get(labels.tobytes(), -1)

    def assign(self, X: np.ndarray) -> np.ndarray:
        n = X.shape[0]
        scores = (X @ self.RA.T).reshape(n, self.W, self.C)  # (batch, words, classes)
        labels = np.argmax(scores, axis=2).astype(np.int32)  # (batch, words)
        if self.C > 1:
            scores.partition(self.C - 2, axis=2)  # in place: the scores are not needed after the labels
            gap = (scores[:, :, -1] - scores[:, :, -2]).min(axis=1)
            norms = np.linalg.norm(X, axis=1)
            m = gap / np.maximum(norms * self.rnorm, 1e-300)
            self.margin = min(self.margin, float(m.min()))
        del scores  # (batch x words x classes floats) before the signatures are sorted
        rows = np.ascontiguousarray(labels).view(np.dtype((np.void, labels.dtype.itemsize * self.W)))[:, 0]
        uniq, first, inverse = np.unique(rows, return_index=True, return_inverse=True)
        ids = np.empty(uniq.size, dtype=np.int64)
        for i, key in enumerate(uniq):
            b = bytes(key)
            c = self.index.get(b)
            if c is None:
                if self.k >= self.max_states:
                    self.overflow = True
                    return np.full(n, -1, dtype=np.int64)
                c = self.k
                self.index[b] = c
                self.signatures.append(np.frombuffer(b, dtype=np.int32).copy())
                self.representatives.append(X[first[i]].copy())
                self.k += 1
            ids[i] = c
        return ids[inverse.reshape(-1)]


def small_int(top: int) -> type:
    """The smallest signed integer type that holds ``-1 .. top`` (cluster ids, symbols, classes).

    >>> [small_int(n).__name__ for n in (1, 127, 128, 2**31)]
    ['int8', 'int8', 'int16', 'int64']
    """
    return next(t for t in (np.int8, np.int16, np.int32, np.int64) if top <= np.iinfo(t).max)


def key_int(top: int) -> type:
    """int32 for keys below ``top`` (at most 2^31), else int64."""
    return np.int32 if top <= 2**31 else np.int64


def run_starts(keys: np.ndarray, before=None) -> np.ndarray:
    """Where each run of equal values of ``keys`` (sorted) starts, as a boolean mask: the first
    entry starts one unless it equals ``before`` (the value just ahead of this part of a longer
    sorted array).

    >>> run_starts(np.array([1, 1, 2, 3, 3])).tolist(), run_starts(np.array([3, 4]), before=3).tolist()
    ([True, False, True, True, False], [False, True])
    """
    first = np.empty(keys.size, dtype=bool)
    if keys.size:
        first[0] = before is None or keys[0] != before
        np.not_equal(keys[1:], keys[:-1], out=first[1:])
    return first


def count_votes(keys: np.ndarray, delta: np.ndarray, K: int) -> tuple[int, int]:
    """The votes of sorted keys ``(cluster * S + symbol) * K + successor`` (every source's
    whole): each source's most frequent successor (a tie: the smaller one) written into
    ``delta``; returns the number of extra successors and the number of votes for the majorities."""
    starts = np.flatnonzero(run_starts(keys))
    uniq, counts = keys[starts], np.diff(starts, append=keys.size)
    src, succ = uniq // K, uniq % K  # src = cluster * S + symbol
    order = np.lexsort((-counts, src))  # per source, the most frequent successor first
    src_o, succ_o, cnt_o = src[order], succ[order], counts[order]
    first = run_starts(src_o)
    delta[src_o[first]] = succ_o[first]
    return int(src_o.size - int(first.sum())), int(cnt_o[first].sum())


def label_votes(ids: np.ndarray, pred: np.ndarray, K: int, C: int) -> np.ndarray:
    """``votes`` (K, C): how often a prefix in cluster ``ids`` (ids < K) is predicted ``pred``
    (< C), counted from one key ``cluster * C + label`` a prefix (int32 while they fit)."""
    keys: np.ndarray = ids.astype(key_int(K * C))
    keys *= C
    keys += pred
    return np.bincount(keys.reshape(-1), minlength=K * C).reshape(K, C)


def count_label_conflicts(ids: np.ndarray, pred: np.ndarray, lo: int, C: int, block: int) -> int:
    """Clusters whose prefixes (from step ``lo``) the network labels in more than one way, from
    ``ids`` (batch, time + 1) and ``pred`` (batch, time): one key ``cluster * C + label`` a prefix
    (int32 while they fit), sorted in place, its distinct values found ``block`` keys at a time."""
    keys: np.ndarray = ids[:, lo:].astype(key_int(int(ids.max(initial=0)) * C + C))
    keys *= C
    keys += pred[:, lo - 1:]
    keys = keys.reshape(-1)
    keys.sort()
    distinct = []
    for at in range(0, keys.size, block):
        part = keys[at:at + block]
        distinct.append(part[run_starts(part, None if at == 0 else keys[at - 1])])
    label_keys = np.concatenate(distinct) if distinct else keys
    return int(label_keys.size - np.unique(label_keys // C).size)


# ------------------------------------------------------------------------------------------
# the memory of an extraction (analysis/extract.py), checked before any word is drawn
# ------------------------------------------------------------------------------------------
#: Bytes held per step of the words' length by Python objects: a kept state's array header, and
#: each result's accuracy by length, first error and burn-in prefix (up to 16 results at once).
STEP_BYTES = 1024
#: Bytes held whatever the size: the objects and modules the extraction makes and imports on its
#: way (10 words of 10 symbols: about 1 MiB traced, 2.4 MiB of resident memory).
FIXED_BYTES = 4 << 20
#: Prefixes whose true labels are computed at once, and the bytes a prefix takes meanwhile (the
#: automaton's run of them: int64 words, states and labels, range checks).
TRUTH_CELLS, TRUTH_BYTES = 1 << 20, 18
#: Bytes a vote key in a block (:func:`count_votes`) takes at most: its flag, run start, count,
#: source, successor, order and their sorted copies.
VOTE_BYTES = 80


def extract_bytes(words: int, length: int, hidden: int, classes: int | None = None, symbols: int = 2, *,
                  method: str = "auto", horizon: int = 2, max_states: int = 2000, states: int | None = None) -> int:
    """An upper bound of the bytes :func:`~bilinear.analysis.extract.extract` holds at once, summed
    from the arrays it makes (``P = words x length`` prefixes, ``N = words``, ``h = hidden``,
    ``C = classes``, ``b(n)`` the bytes of the smallest integer type holding ``n``, :func:`small_int`)::

        need   = max(draw, held + max(votes, steps, radius)) + FIXED_BYTES
        draw   = P (8 + b(symbols) + b(C)) + min(P, max(TRUTH_CELLS, length)) x TRUTH_BYTES
                 the int64 words drawn and their narrow copy, then the true labels (the automaton
                 runs TRUTH_CELLS prefixes at a time)
        held   = P (b(symbols) + 2 b(C)) + N (length + 1) b(max_states) + kept + length x STEP_BYTES
                 + tables
                 words, true labels, predictions (one array for every pass), one pass's cluster ids;
                 kept = 8 P h, the unit states kept for the passes after the first (0 past
                 KEEP_RUN_BYTES)
        votes  = P (key + 1) + min(P, VOTE_BLOCK + max_states) x VOTE_BYTES
                 the vote (or label) keys, sorted in place (key = 4 bytes, 8 past 2^31), one block's
                 flags and counts; the accuracies' two flags a prefix fit in it
        steps  = N (8 (3 h + C + 4) + cluster) + run (+ 8 DIST_BLOCK, geometry)
                 one step of every word: its states, scores and argmax; cluster = 8 K + 96 (the
                 distances to K centres, geometry) or W (8 C + 16) + 128 (the scores and labels of W
                 words, behaviour); run = the float run's buffers (:func:`_run_bytes`)
        radius = min(N, 200) (8 (3 h + 4)) + run + 26 n^2 + 8 n h, n = min(600, 1 + min(N, 200) length)
                 the run of the radius sample and choose_radius's pairwise distances (geometry)
        tables = 8 K^2 + 48 K h + 32 K (geometry: centres grown twice, radii, the bounds' distances)
                 or max_states (10 W + 8 h + 400) (behaviour: signatures, representatives, index)

    ``K`` the most clusters: ``max_states``, for the geometry pass of ``method="auto"``
    ``min(max_states, max(200, 20 states))`` (``states`` None: not known, 200); ``W`` the words of
    length <= ``horizon`` (a behaviour pass past MAX_SIGNATURE_WORDS is refused before it holds
    any); ``auto`` counts each method's larger term, one pass at a time (a burn-in retry frees the
    pass before it).  ``classes`` None: not known (counted as 2).  Not counted: the transformation
    monoid of the extracted automaton (its own limits: ``monoid_limit`` elements,
    :data:`bilinear.automata.closure.MEMORY_LIMIT_BYTES`; a minimal automaton of 8 states takes the
    closure's 64 MiB table of codes).

    >>> round(extract_bytes(2000, 15000, hidden=1, classes=2) / 2**20)  # MiB: parity, 2,000 words of 15,000
    311
    """
    C, S, h, N, P = max(classes or 2, 1), max(symbols, 1), max(hidden, 0), words, words * length
    W = _signature_word_count(S, horizon, refuse=False)
    K = max_states if method == "geometry" else min(max_states, max(200, 20 * (states or 0)))
    b = [np.dtype(small_int(n)).itemsize for n in (S - 1, C - 1, max_states)]
    key = 4 if max_states * max(max_states * S, C) <= 2**31 else 8
    kept = 8 * P * h if 8 * P * h <= KEEP_RUN_BYTES else 0
    geometry, behaviour = method != "behaviour", method != "geometry" and W <= MAX_SIGNATURE_WORDS
    cluster = max(8 * K + 96 if geometry else 0, W * (8 * C + 16) + 128 if behaviour else 0)
    tables = max(8 * K * K + 48 * K * h + 32 * K if geometry else 0,
                 max_states * (10 * W + 8 * h + 400) if behaviour else 0)
    draw = P * (8 + b[0] + b[1]) + min(P, max(TRUTH_CELLS, length)) * TRUTH_BYTES
    held = P * (b[0] + 2 * b[1]) + N * (length + 1) * b[2] + kept + length * STEP_BYTES + tables
    votes = P * (key + 1) + min(P, VOTE_BLOCK + max_states) * VOTE_BYTES
    steps = N * (8 * (3 * h + C + 4) + cluster) + _run_bytes(N, S, h) + (8 * DIST_BLOCK if geometry else 0)
    M, n = min(N, RADIUS_WORDS), min(RADIUS_SAMPLE, 1 + min(N, RADIUS_WORDS) * length)
    radius = M * 8 * (3 * h + 4) + _run_bytes(M, S, h) + 26 * n * n + 8 * n * h if geometry else 0
    return int(max(draw, held + max(votes, steps, radius)) + FIXED_BYTES)


def _run_bytes(N: int, k: int, h: int) -> int:
    """The buffers of :func:`~bilinear.constructions.values.floatrun.float_steps` for ``N`` words
    over ``k`` symbols of ``h`` units, whichever way it advances them: the grouping of a span of
    steps (index arrays of at most 2^14 entries) or the diagonals of a span (entrywise); every
    word times every symbol's matrix (stacked), the words padded by symbol, twice (grouped: at most
    N / k + 6 sqrt(N / k) + 6 words on one symbol at one step, for uniform random symbols), or
    every word's matrix (gathered)."""
    from bilinear.constructions.values import floatrun as F

    fixed = max(48 * min(1 << 14, 64 * N), 8 * min(F.ENTRYWISE_FLOATS, 64 * N * max(h, 1)))
    if k * h <= F.STACKED_MAX or (k * h <= F.STACKED_SMALL_MAX and N < F.STACKED_SMALL_BATCH):
        return fixed + 8 * N * k * h
    if k <= F.GROUPED_MAX_SYMBOLS or N * h * h > F.GATHER_MAX_FLOATS:
        rows = N + 6 * (N * k) ** 0.5 + 7 * k
        return fixed + 16 * h * min(int(1.25 * rows), max(N, F.GATHER_MAX_FLOATS // max(h, 1)))
    return fixed + 8 * N * h * (h + 1)
