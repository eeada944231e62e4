"""Theorem 20 (the node horizon): one set per node (automaton state, last k symbols), stepped.

The exhaustive phase of Theorems 16 and 19 runs every word (a ball per word) and stops when a level
would hold more than ``MAX_NODES`` words; the recurrence after it charges the worst case at every
step, in norm.  This bound keeps instead, per word length t, one set per node ``n = (q, s)``
(automaton state q, the last ``k`` symbols s of the word), made of *aged* balls:

    X_n(t) = { c + sum_{j=0..k} P_j(s) z_j : ||z_j|| <= r_j }

where ``P_j(s) = F_{s_m} ... F_{s_(m-j+1)}`` is the product of the node's last j matrices (P_0 = I;
``||.||`` the 2-norm in the snap's basis).  X_n(t) contains a positive multiple of the float state
(rounding charged) of every word of length t at node n.  A ball of age j < k moves to age j + 1
*unchanged*: the next node's P_{j+1} is F_a P_j, so the matrices are applied exactly, not through
their norms.  Only the oldest ball re-enters at age 0, through the norm of a (k+1)-fold product,
which is near 1 for a network whose products stay bounded even where one matrix's norm is 2.
Age 0 also takes the step's rounding and the error of the centre.  The images that land on one
node are merged: the centre of the coordinate-wise hull of their centres, its distance to each
centre added to age 0, and the largest radius of each age.  A word of length t is right when
every point of its node's set has a positive margin against the rounded readout:
``(R_l - R_c) . x - tau ||x|| > 0``.  With ``blocks`` (a partition of the coordinates, the snap's
blocks) every age has one radius per block, ``||(z_j)_b|| <= r_(j,b)``: the oldest ball re-enters
through the block norms of ``F_a P_k(s)``, and the margin is charged
``sum_j sum_b ||(R_l - R_c) P_j(s)[:, b]|| r_(j,b)``.  With ``clusters`` m > 1 a node holds up to m such sets, the
images split by farthest-point seeds (:func:`_cluster_labels`); each image lies in one of them,
which is all the theorem needs.  docs/theory.md Section 7, Theorem 20.

**Arithmetic.**  The matrices' norms (``||F_a P_k(s)||``, ``||(R_l - R_c) P_j(s)||``) are upper
ends in ball arithmetic.  The stepping of the centres runs in float64 numpy, all nodes at once:
a centre is any point (Theorem 20 asks for no particular one), and the distance from the computed
centre to the exact image ``F_a c`` is bounded by the standard model of floating point
(Higham, *Accuracy and Stability of Numerical Algorithms*, 2002, Section 3.5: a dot product of
length d is off by at most gamma_d |x|.|y|, gamma_d = d u / (1 - d u), whatever the order of
summation), plus the matrices' balls, and charged to age 0.  Each image is scaled to norm about 1 (the scaled centre's rounding charged too).
Every radius and norm computed in floats is inflated by a relative ``SLACK`` far above the
rounding of the few operations that made it.
"""

from __future__ import annotations

import math

import flint
import numpy as np

from ..exact.balls import block_norm, frob, hi, op_norm, precision
from .horizon_base import Horizon
from .horizon_global import ingredients
from .roundoff import RoundOff

__all__ = ["node_horizon", "node_sets", "suffix_length", "NodeSets", "MAX_STEPS", "MAX_KEYS", "MAX_WORK",
           "KEEP_REENTRY_BALLS", "CLUSTERS", "CLUSTER_KEYS", "CLUSTER_BELOW", "MAX_CLUSTERS"]

#: Steps stepped at most (the bound reports at most this length).
MAX_STEPS = 2048
#: Work at most, in node-steps (nodes times symbols, summed over the steps; a node-step costs
#: about a microsecond): a run that reaches it reports the length stepped so far, still a theorem.
MAX_WORK = 4_000_000
#: The suffix length k is the largest with (symbols)^k <= MAX_KEYS.
MAX_KEYS = 729
#: Sets per node at most (:class:`NodeSets` ``clusters``).
MAX_CLUSTERS = 256
#: The clustered construction of :func:`node_horizon`: sets per node, and the key limit of its
#: suffix length (short suffixes, many sets: the sets follow where the states are).
CLUSTERS = 128
CLUSTER_KEYS = 9
#: ... run only where the other two certify less than this length.
CLUSTER_BELOW = 32
#: Ball entries at most of the re-entry products ``F_a P_k(s)`` (d^2 V^(k+1)) that
#: :func:`node_horizon` keeps for its per-block construction, which needs the same products as
#: the first one (about 48 bytes a ball: 50 MB; above it each construction computes its own).
KEEP_REENTRY_BALLS = 1 << 20
#: Relative inflation of every float radius and norm (covers the rounding of the operations that
#: made it, each at most a few units of 2^-53).
SLACK = 1e-12
_U = 2.0 ** -53


def suffix_length(n_symbols: int, max_keys: int = MAX_KEYS) -> int:
    """The largest k >= 1 with ``n_symbols ** k <= max_keys`` (1 when even one symbol is more)."""
    k = 1
    while n_symbols ** (k + 1) <= max_keys and k < 64:
        k += 1
    return k


def up(x: flint.arb) -> float:
    """A float at least every point of the ball ``x`` (+inf for a ball that is not finite)."""
    if not x.is_finite():
        return math.inf
    v = hi(x)
    f = float(v.mid())
    return f if flint.arb(f) >= v else math.nextafter(f, math.inf)


def _gamma(d: int) -> float:
    """Twice gamma_d for float64 (twice: the error bound is itself computed in floats)."""
    return 2 * d * _U / (1 - d * _U)


def _inflate(x):
    return x * (1 + SLACK)


class NodeSets:
    """The sets X_n(t) of all nodes at one length t (module docstring), as arrays over sets: one
    row per set, one set per node or, with ``clusters`` m > 1, up to m.

    ``shared``: a dict that several NodeSets built from one ``setup`` (in one precision) pass
    along, so that the ball products they all need (the suffixes' ``P_j(s)``, ``|s| <= k``; the
    readout rows ``(R_l - R_c) P_j(s)`` and their Frobenius norms) are each computed once: the
    same products in the same order, so the same balls as computing them per construction.

    ``q``: automaton states; ``sid``: suffix ids (``suffixes[sid]`` the tuple of the last
    ``min(t, k)`` symbols); ``c``: centres (rows x d, float64); ``r``: radii by age and block
    (rows x (ages + 1) x blocks, float64 upper bounds; one block unless ``blocks`` is given).
    """

    def __init__(self, setup, automaton, k: int, ages: int | None = None, clusters: int = 1, blocks=None,
                 shared: dict | None = None):
        self.k = k
        self.ages = k if ages is None else ages
        if not 0 <= self.ages <= k:
            raise ValueError(f"ages must be in 0..{k}, got {ages}")
        if not 1 <= clusters <= MAX_CLUSTERS:
            raise ValueError(f"clusters must be in 1..{MAX_CLUSTERS}, got {clusters}")
        self.clusters = clusters
        self.automaton = automaton
        st = setup
        self.F = st.F
        self.d = st.x0.nrows()
        self.blocks = (tuple(range(self.d)),) if blocks is None else tuple(tuple(int(j) for j in b) for b in blocks)
        if any(not b for b in self.blocks) or sorted(j for b in self.blocks for j in b) != list(range(self.d)):
            raise ValueError(f"blocks must partition the coordinates 0..{self.d - 1}, got {blocks}")
        self.nb = len(self.blocks)
        self._member = np.zeros((self.d, self.nb))  # coordinate j in block i: 1
        for i, b in enumerate(self.blocks):
            self._member[list(b), i] = 1.0
        self._re_one: dict[int, np.ndarray] = {}  # per symbol, block norms of F_a (no suffix yet)
        self.V = len(st.F)
        self.Fm = [np.array([[float(M[i, j].mid()) for j in range(self.d)] for i in range(self.d)]) for M in st.F]
        self.E = [np.array([[up(abs(M[i, j] - flint.arb(Fm[i, j]))) for j in range(self.d)] for i in range(self.d)])
                  for M, Fm in zip(st.F, self.Fm)]
        self.absFm = [np.abs(Fm) for Fm in self.Fm]
        self.norm = [up(op_norm(M, range(self.d), range(self.d))) for M in st.F]
        self.delta, self.tau = up(st.delta), up(st.tau)
        C = self.C = st.Rb.nrows()
        self.pairs = [(l, c) for l in range(C) for c in range(C) if c != l]
        self.dv = [flint.arb_mat([[st.Rb[l, j] - st.Rb[c, j] for j in range(self.d)]]) for l, c in self.pairs]
        self.dvm = np.array([[float(v[0, j].mid()) for j in range(self.d)] for v in self.dv])
        self.dve = np.array([[up(abs(v[0, j] - flint.arb(float(v[0, j].mid())))) for j in range(self.d)]
                             for v in self.dv])
        self.labels = np.asarray(automaton.labels, dtype=int)
        self.delta_table = np.asarray(automaton.delta, dtype=int)
        self.suffixes: list[tuple] = [()]
        self.sid_of: dict[tuple, int] = {(): 0}
        shared = {} if shared is None else shared
        self._prod: dict[tuple, flint.arb_mat] = shared.setdefault("products", {})
        self._keep_reentry = bool(shared.get("keep_reentry", False))
        # (pair, last j symbols) -> [(R_l - R_c) P_j, its Frobenius norm's upper end or None]
        self._row_balls: dict[tuple, list] = shared.setdefault("rows", {})
        self._tails: dict[tuple, np.ndarray] = {}  # last j symbols -> per pair, the row's norm or magnitudes
        # per suffix id, its children and norms, as arrays (each row filled once, by _tables)
        self._have = np.zeros(0, dtype=bool)
        self._t_child = np.zeros((0, self.V), dtype=np.int64)
        self._t_re = np.zeros((0, self.V, self.nb, self.nb))
        self._t_np = np.zeros((0, self.ages + 1))
        self._t_ndv = np.zeros((0, len(self.pairs), self.ages + 1, self.nb))
        self._t_long = np.zeros(0, dtype=bool)
        x0m = np.array([float(st.x0[j, 0].mid()) for j in range(self.d)])
        r0 = up(frob(st.x0 - flint.arb_mat([[flint.arb(v)] for v in x0m])))
        self.q = np.array([int(automaton.start)])
        self.sid = np.array([0])
        self.c = x0m[None, :]
        self.r = np.zeros((1, self.ages + 1, self.nb))  # radii by age and block
        self.r[0, 0, :] = r0  # a ball of radius r0 lies in the product of the blocks' balls of radius r0
        self.t = 0

    # -- the matrices of a suffix (ball arithmetic; _tables keeps each result) -----------------
    def child(self, sid: int, a: int) -> int:
        """The id of the suffix after symbol ``a`` (numbered on first sight)."""
        s = (self.suffixes[sid] + (a,))[-self.k:]
        if s not in self.sid_of:
            self.sid_of[s] = len(self.suffixes)
            self.suffixes.append(s)
        return self.sid_of[s]

    def product(self, s: tuple) -> flint.arb_mat:
        """P_{|s|}(s) = F_{s[-1]} ... F_{s[0]} (ball arithmetic)."""
        if s not in self._prod:
            self._prod[s] = (flint.arb_mat([[flint.arb(int(i == j)) for j in range(self.d)] for i in range(self.d)])
                             if not s else self.F[s[-1]] * self.product(s[:-1]))
        return self._prod[s]

    def readout_norms(self, sid: int) -> np.ndarray:
        """(pairs x (ages+1) x blocks): upper bounds of ||(R_l - R_c) P_j(s)[:, b]|| (the columns
        of block b), 0 for j > |s|."""
        s = self.suffixes[sid]
        out = np.zeros((len(self.pairs), self.ages + 1, self.nb))
        ages = min(len(s), self.ages)
        if self.nb == 1:  # the Frobenius norm in ball arithmetic
            for j in range(ages + 1):
                out[:, j, 0] = self._tail_values(s[len(s) - j:])
            return out
        # blocks: |entries| from above (the balls' upper ends rounded up to floats), squared and
        # summed per block in floats (non-negative terms: relative rounding below (d + 2) 2^-53,
        # far below SLACK), all rows at once
        mag = np.stack([self._tail_values(s[len(s) - j:]) for j in range(ages + 1)], axis=1)
        out[:, : ages + 1] = _inflate(np.sqrt(_inflate((mag * mag) @ self._member)))
        return out

    def _tail_values(self, tail: tuple) -> np.ndarray:
        """For every pair p, the row ``(R_l - R_c) P_j`` of the last j symbols ``tail`` of a suffix
        (the row times ``F_(tail[-1])``, then the next matrix back, in ball arithmetic): its
        Frobenius norm's upper end (one block; pairs,) or its entries' magnitudes (blocks; pairs x
        d).  It depends on the tail only, so each is computed once for every suffix ending in it
        (each row is the same ball whichever suffix asks first)."""
        got = self._tails.get(tail)
        if got is None:
            if self.nb == 1:
                values = []
                for p in range(len(self.pairs)):
                    ball = self._row_ball(p, tail)
                    if ball[1] is None:
                        ball[1] = up(frob(ball[0]))
                    values.append(ball[1])
                got = np.array(values)
            else:
                got = np.array([_magnitudes(self._row_ball(p, tail)[0]) for p in range(len(self.pairs))])
            self._tails[tail] = got
        return got

    def _row_ball(self, p: int, tail: tuple) -> list:
        """``[(R_l - R_c) P_j, None or its Frobenius norm's upper end]`` from the shared table
        (computed once for every construction that shares it: the row times ``F_(tail[-1])``,
        then the next matrix back)."""
        got = self._row_balls.get((p, tail))
        if got is None:
            row = self.dv[p] if not tail else self._row_ball(p, tail[1:])[0] * self.F[tail[0]]
            got = self._row_balls[(p, tail)] = [row, None]
        return got

    def state_norms(self, sid: int) -> np.ndarray:
        """((ages+1),): upper bounds of ||P_j(s)|| (products of the one-step norms; only rounding
        terms use them)."""
        s = self.suffixes[sid]
        out = np.zeros(self.ages + 1)
        out[0] = 1.0
        for j in range(1, min(len(s), self.ages) + 1):
            out[j] = _inflate(out[j - 1] * self.norm[s[-j]])
        return out

    def reentry_norm(self, sid: int, a: int) -> np.ndarray:
        """(blocks x blocks): upper bounds of ||M[b', b]|| for M = F_a P_ages(s), the oldest ball's
        way back to age 0 (block b of the old ball reaches block b' of the new one).  One block:
        ||M||.  Blocks: the 2-norm of each diagonal block (exact for 1x1 and 2x2 blocks,
        :func:`op_norm` above), the Frobenius norm of the others."""
        s = self.suffixes[sid]
        tail = s[len(s) - self.ages:] if self.ages else ()
        if self.nb == 1:
            return np.array([[self.norm[a] if not tail else
                              up(op_norm(self._reentry_product(tail, a), range(self.d), range(self.d)))]])
        if not tail and a in self._re_one:
            return self._re_one[a]
        M = self._reentry_product(tail, a) if tail else self.F[a]
        mag = _magnitudes(M).reshape(self.d, self.d)
        # sums of non-negative floats: relative rounding below (d + 2) 2^-53, far below SLACK
        out = _inflate(np.sqrt(_inflate(self._member.T @ (mag * mag) @ self._member)))
        for i, b in enumerate(self.blocks):
            if len(b) == 1:
                out[i, i] = mag[b[0], b[0]]
            else:
                out[i, i] = min(out[i, i], up(block_norm(M, b) if len(b) == 2 else op_norm(M, b, b)))
        if not tail:
            self._re_one[a] = out
        return out

    def _reentry_product(self, tail: tuple, a: int) -> flint.arb_mat:
        """``F_a P(tail)``, the product :meth:`product` would give for ``tail + (a,)``; kept in the
        shared products when ``shared["keep_reentry"]`` says a later construction needs it too."""
        key = tail + (a,)
        got = self._prod.get(key)
        if got is None:
            got = self.F[a] * self.product(tail)
            if self._keep_reentry:
                self._prod[key] = got
        return got

    def block_norms(self, x: np.ndarray) -> np.ndarray:
        """(rows x blocks): the norms of each row's blocks, computed in floats (each within a
        few units of 2^-53 relative: callers inflate)."""
        if self.nb == 1:
            return np.linalg.norm(x, axis=1)[:, None]
        return np.sqrt((x * x) @ self._member)

    def _tables(self, sids: np.ndarray) -> None:
        """Fill the per-suffix tables (children, norms) for the suffix ids ``sids``: each suffix is
        computed once, in ball arithmetic; the stepping then reads them by fancy indexing."""
        P, A = len(self.pairs), self.ages
        sids = np.unique(sids)
        known = sids < len(self._have)
        known[known] = self._have[sids[known]]
        for sid in sids[~known].tolist():  # each suffix once (a suffix numbered meanwhile is filled too)
            if sid < len(self._have) and self._have[sid]:
                continue
            children = [self.child(sid, a) for a in range(self.V)]
            n = len(self.suffixes)
            if n > len(self._have):
                grow = n - len(self._have)
                self._have = np.r_[self._have, np.zeros(grow, dtype=bool)]
                self._t_child = np.r_[self._t_child, np.zeros((grow, self.V), dtype=np.int64)]
                self._t_re = np.r_[self._t_re, np.zeros((grow, self.V, self.nb, self.nb))]
                self._t_np = np.r_[self._t_np, np.zeros((grow, A + 1))]
                self._t_ndv = np.r_[self._t_ndv, np.zeros((grow, P, A + 1, self.nb))]
                self._t_long = np.r_[self._t_long, np.zeros(grow, dtype=bool)]
            self._t_child[sid] = children
            self._t_long[sid] = len(self.suffixes[sid]) >= A
            if self._t_long[sid]:
                self._t_re[sid] = [self.reentry_norm(sid, a) for a in range(self.V)]
            self._t_np[sid] = self.state_norms(sid)
            self._t_ndv[sid] = self.readout_norms(sid)
            self._have[sid] = True

    # -- the sets ----------------------------------------------------------------------------------
    def state_bound(self) -> np.ndarray:
        """Per node, an upper bound of ||x|| over its set."""
        self._tables(self.sid)
        nP = self._t_np[self.sid]
        return _inflate(_inflate(np.linalg.norm(self.c, axis=1)) + (self.r * nP[:, :, None]).sum(axis=(1, 2)))

    def margins(self) -> np.ndarray:
        """Per node, min over c != label of (computed centre margin) - (an upper bound of every
        error): positive means (iii) holds for every point of the set.  Per label, the readout
        norms of its own pairs only are gathered (one label's ``classes - 1`` pairs, not every
        pair of every node), and the radii's share of each pair's error is summed for all of
        them at once: the same products summed in the same order as pair by pair."""
        n = len(self.q)
        xb = self.state_bound()
        g = _gamma(self.d)
        absc = np.abs(self.c)
        out = np.full(n, math.inf)
        node_labels = self.labels[self.q]
        width = self.C - 1  # pairs (l, c) per label l
        for p0 in range(0, len(self.pairs), max(1, width)):  # the pairs come grouped by their label l
            rows = np.flatnonzero(node_labels == self.pairs[p0][0])
            if not len(rows):
                continue
            c_l, absc_l, r_l, xb_l = self.c[rows], absc[rows], self.r[rows], xb[rows]
            spread = (self._t_ndv[self.sid[rows], p0 : p0 + width] * r_l[:, None]).sum(axis=(2, 3))
            for i in range(width):
                p = p0 + i
                centre = c_l @ self.dvm[p]
                err = (g * (absc_l @ np.abs(self.dvm[p])) + absc_l @ self.dve[p] + spread[:, i] + self.tau * xb_l)
                out[rows] = np.minimum(out[rows], centre - _inflate(err))
        return out

    def step(self) -> None:
        """X(t) -> X(t + 1): every node under every symbol, then merged by node."""
        A, g = self.ages, _gamma(self.d)
        xb = self.state_bound()
        absc = np.abs(self.c)
        self._tables(self.sid)
        full = self._t_long[self.sid]
        assert not self.r[~full, A].any()  # the oldest age is reached only once the suffix is that long
        cs, rs, qs, ss = [], [], [], []
        for a in range(self.V):
            y = self.c @ self.Fm[a].T
            err = g * (absc @ self.absFm[a].T) + absc @ self.E[a].T
            r2 = np.zeros_like(self.r)
            r2[:, 1:] = self.r[:, :-1]
            old = np.where(full[:, None], self.r[:, A], 0.0)  # (rows, blocks)
            reenter = np.einsum("nij,nj->ni", self._t_re[self.sid, a], old)
            r2[:, 0] = _inflate(_inflate(self.block_norms(err)) + (self.delta * xb)[:, None] + _inflate(reenter))
            size = np.linalg.norm(y, axis=1)
            scale = 1.0 / np.where(size > 0, size, 1.0)  # any positive number: no prediction changes
            c2 = y * scale[:, None]  # each coordinate within 2^-53 of its exact value: charged to age 0
            r2 = _inflate(r2 * scale[:, None, None])
            r2[:, 0] = _inflate(r2[:, 0] + _U * self.block_norms(c2))
            cs.append(c2)
            rs.append(r2)
            qs.append(self.delta_table[a, self.q])
            ss.append(self._t_child[self.sid, a])
        c, r, q, s = np.concatenate(cs), np.concatenate(rs), np.concatenate(qs), np.concatenate(ss)
        keys = q.astype(np.int64) * (len(self.suffixes) + 1) + s
        if self.clusters > 1:  # up to `clusters` sets per node: the images split by nearest seed
            keys = keys * self.clusters + _cluster_labels(c, keys, self.clusters)
        order = np.argsort(keys, kind="stable")
        c, r, q, s, keys = c[order], r[order], q[order], s[order], keys[order]
        starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
        lo_, hi_ = np.minimum.reduceat(c, starts), np.maximum.reduceat(c, starts)
        centre = lo_ / 2 + hi_ / 2  # any point is a centre; no overflow
        group = np.repeat(np.arange(len(starts)), np.diff(np.r_[starts, len(keys)]))
        dist = _inflate(self.block_norms(c - centre[group]))
        r = r.copy()
        r[:, 0] = _inflate(dist + r[:, 0])
        self.r = np.maximum.reduceat(r, starts)
        self.c, self.q, self.sid = centre, q[starts], s[starts]
        self.t += 1


def _magnitudes(M: flint.arb_mat) -> np.ndarray:
    """Floats at least |M_ij| for every entry (row-major): each ball's upper end, rounded up."""
    return np.nextafter(np.array([float(x.abs_upper()) for x in M.entries()]), math.inf)


def _cluster_labels(c: np.ndarray, keys: np.ndarray, m: int) -> np.ndarray:
    """Per row, a label in 0..m-1: within each key's rows, m seeds are picked by farthest-point
    sampling (the first row, then each time the row farthest from the seeds so far) and each row
    takes its nearest seed.  Any split is sound (each part is covered by its own set); this one
    keeps far-apart images in different sets, so a merge charges only the spread within a part.

    Each round's seed of a key is its first row at the key's largest distance (the rows of a key
    are consecutive: the first of each key's run of hits); a distance is ``sqrt`` of the summed
    squared differences, what ``np.linalg.norm`` computes for real rows."""
    order = np.argsort(keys, kind="stable")
    ck, kk = c[order], keys[order]
    n = len(ck)
    if not n:
        return np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(np.r_[True, kk[1:] != kk[:-1]])
    group = np.repeat(np.arange(len(starts)), np.diff(np.r_[starts, n]))
    diff = ck - ck[starts][group]
    dmin = np.sqrt(np.add.reduce(diff * diff, axis=1))  # each row's distance to its nearest seed
    nearest = np.zeros(n, dtype=np.int64)  # and that seed's number (the first, on a tie)
    flat = group * m  # nearest's place in a (keys x m) table of the seeds' distances to the new one
    table = np.empty((len(starts), m))
    seeds = np.zeros((len(starts), m), dtype=np.int64)  # per key, the rows of its seeds so far
    seeds[:, 0] = starts
    for j in range(1, m):
        best = np.maximum.reduceat(dmin, starts)
        if not best.any():  # every row is a seed already: more seeds would be copies, never nearer
            break
        hit = np.flatnonzero(dmin == best[group])  # in order, every key has some
        owner = group[hit]
        new = hit[np.r_[True, owner[1:] != owner[:-1]]]  # each key's first: its new seed
        # a row can be nearer to the new seed only if the new seed is within twice its distance of
        # the row's nearest seed (triangle inequality): the others keep their seed, unmeasured.
        # Distances computed in floats are within (d + 3) 2^-53 of their value, relatively (one
        # rounding per difference, nonnegative sums): the factor 1 + 1e-8 leaves only rows whose
        # computed distance could not be below dmin, so the labels are those of measuring every row
        to_new = ck[seeds[:, :j]] - ck[new][:, None, :]
        table[:, :j] = np.sqrt(np.add.reduce(to_new * to_new, axis=2))  # (keys, j)
        maybe = np.flatnonzero(~(table.take(flat + nearest) >= 2 * (1 + 1e-8) * dmin))
        step = ck[maybe] - ck[new][group[maybe]]
        dist = np.sqrt(np.add.reduce(step * step, axis=1))  # as for every row: the same bits
        nearer = dist < dmin[maybe]
        moved, dist = maybe[nearer], dist[nearer]
        nearest[moved] = j
        dmin[moved] = dist
        seeds[:, j] = new
    labels = np.empty(n, dtype=np.int64)
    labels[order] = nearest
    return labels


def node_sets(weights, snap, proof, automaton, roundoff: RoundOff, max_keys: int = MAX_KEYS,
              ages: int | None = None, clusters: int = 1, blocks: bool = False) -> NodeSets:
    """The node sets at length 0 for ``weights`` against the proved ``snap`` (step them with
    :meth:`NodeSets.step`); ``ages`` balls of ages 0..ages (default: the suffix length k); with
    ``blocks``, one radius per block of the snap's basis (``snap.blocks``) at every age."""
    with precision():
        _, st = ingredients(weights, snap, proof, automaton, roundoff)
        return NodeSets(st, automaton, suffix_length(len(st.F), max_keys), ages, clusters,
                        snap.blocks if blocks else None)


def _run(sets: NodeSets, arithmetic: str, max_steps: int, max_work: int) -> Horizon:
    consts = {"roundoff_step": sets.delta, "suffix": sets.k, "ages": sets.ages, "clusters": sets.clusters,
              "blocks": sets.nb, "max_step_norm": max(sets.norm)}
    what = f"suffix {sets.k}, balls of ages 0..{sets.ages}" + (
        f", up to {sets.clusters} sets per node" if sets.clusters > 1 else "") + (
        f", a radius per block of the snap's {sets.nb} blocks" if sets.nb > 1 else "")
    work = 0
    while True:
        if not (sets.margins() > 0).all():
            note = f"a node set of length {sets.t} is not certified ({what})"
            if sets.t == 0:
                return Horizon.none(arithmetic, note, "node", **consts)
            return Horizon.up_to(sets.t - 1, arithmetic, "node", note, **consts)
        if sets.t >= max_steps or work >= max_work:
            why = f"{max_steps} steps" if sets.t >= max_steps else f"{work} node-steps (the work limit)"
            return Horizon.up_to(sets.t, arithmetic, "node",
                                 f"stopped after {why}, every node certified ({what})", **consts)
        work += len(sets.q) * sets.V
        sets.step()


def node_horizon(weights, snap, proof, automaton, roundoff: RoundOff, max_steps: int = MAX_STEPS,
                 max_keys: int = MAX_KEYS, max_work: int = MAX_WORK) -> Horizon:
    """The certified horizon of Theorem 20 in ``roundoff``'s arithmetic: the largest t (at most
    ``max_steps``, and where ``max_work`` node-steps run out) such that every word of every
    length up to t is certified at its node.  Up to four constructions of the sets are run, and
    the longest length kept: aged balls (ages 0..k: the norms of (k+1)-fold products), then, when
    that one stopped below the limits, one ball per node (ages 0..0: the one-step norms; it wins
    where the images at a node spread across ages); where the snap has more than one block, aged
    balls with a radius per block of ``snap.blocks`` (it wins where the images spread in some
    blocks and not others); and, where those certify less than :data:`CLUSTER_BELOW`, aged balls
    split into up to :data:`CLUSTERS` sets per node over the last :func:`suffix_length`
    (``CLUSTER_KEYS``) symbols (it wins where the images at a node lie in far-apart groups: a
    merge then charges only the spread within a group)."""
    with precision():
        _, st = ingredients(weights, snap, proof, automaton, roundoff)
        k = suffix_length(len(st.F), max_keys)
        # the ball products every construction below needs, computed once; the first one's
        # re-entry products too when the per-block construction will need them and they are few
        shared: dict = {"keep_reentry": len(snap.blocks) > 1 and st.x0.nrows() ** 2 * len(st.F) ** (k + 1) <= KEEP_REENTRY_BALLS}
        best = _run(NodeSets(st, automaton, k, k, shared=shared), roundoff.arithmetic, max_steps, max_work)
        if best.note.startswith("stopped after"):  # a limit, not the sets, ended it
            return best
        one = _run(NodeSets(st, automaton, k, 0, shared=shared), roundoff.arithmetic, max_steps, max_work)
        best = max(best, one, key=Horizon.order_key)  # ties keep the earlier
        if len(snap.blocks) > 1:  # a radius per block: the images spread in some blocks, not all
            per_block = _run(NodeSets(st, automaton, k, k, 1, snap.blocks, shared), roundoff.arithmetic, max_steps, max_work)
            best = max(best, per_block, key=Horizon.order_key)
        if best.order_key() < CLUSTER_BELOW:  # split sets cost about CLUSTERS times more per step
            kc = suffix_length(len(st.F), min(max_keys, CLUSTER_KEYS))
            split = _run(NodeSets(st, automaton, kc, kc, CLUSTERS, shared=shared), roundoff.arithmetic, max_steps, max_work)
            best = max(best, split, key=Horizon.order_key)
        return best
