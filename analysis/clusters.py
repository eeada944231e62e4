"""The two clusterings of an extraction's hidden states (analysis/extract.py): geometric leader
clusters of unit vectors with a radius (:class:`_Clusters`), and behavioural signatures, the
labels after every word up to a horizon (:class:`_Signatures`)."""

from __future__ import annotations

import numpy as np

from bilinear.errors import AnalysisError

from .radius import RadiusChoice

#: Most words (empty word included) in a behavioural signature.
MAX_SIGNATURE_WORDS = 1024


def _signature_word_count(k: int, horizon: int) -> int:
    """Words of length <= ``horizon`` over ``k`` symbols, or AnalysisError past MAX_SIGNATURE_WORDS."""
    count = horizon + 1 if k == 1 else 1
    for _ in range(horizon if k > 1 else 0):
        count = count * k + 1
        if count > MAX_SIGNATURE_WORDS:
            break
    if count > MAX_SIGNATURE_WORDS:
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
        d2 = xsq[:, None] + csq[None, :] - 2.0 * (X @ C.T)
        return np.sqrt(np.maximum(d2, 0.0))

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
        D = D - r[:, None] - r[None, :]
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
            top2 = np.partition(scores, self.C - 2, axis=2)[:, :, -2:]
            gap = (top2[:, :, 1] - top2[:, :, 0]).min(axis=1)
            norms = np.linalg.norm(X, axis=1)
            m = gap / np.maximum(norms * self.rnorm, 1e-300)
            self.margin = min(self.margin, float(m.min()))
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
