"""Exact proof that weights compute an automaton on every word of every length.

The check (DESIGN.md, theory §5): explore breadth-first the pairs ``(q, [h])`` reachable from
``(q0, [h0])`` under ``(q, [h]) -> (delta(q, a), [A[a] h])``, where ``[h]`` is ``h`` up to a
*positive* scalar.  Each direction is stored as the hidden vector of the first (shortest) word
that reaches it; a new vector joins a stored direction when it is a positive multiple of it
(rationals: equal canonical forms, h divided by the absolute value of its first non-zero
coordinate; cyclotomic: h_i h'_j = h_j h'_i for all i, j and equal signs, exactly).  If the set is finite and on every pair
the readout ``readout @ h`` has the label of ``q`` as its strict maximum, then every word of every
length is classified correctly (induction on the word: the readout's argmax is invariant under
positive scaling, and the pair set is closed under every symbol).

Everything is exact: rational weights run in ``flint.fmpq``, cyclotomic ones as ``fmpq_poly``
reduced mod Phi_m.  Margins are first screened with rigorous float error bounds from ball
arithmetic; only undecided ones are decided exactly (zero test in the field, then balls refined
until they exclude zero).  Float weights are proved as the exact binary fractions they are
(``Fraction(float)``), so the verdict is rigorous for the given floats.

Outcomes:

* :class:`Proof` -- closure found and every margin strict; carries the exact minimum margin;
* :class:`Counterexample` -- a shortest word (breadth-first order) whose label is wrong or tied;
* :class:`Unproved` -- the pair set outgrew ``bound * n_states``; carries two words the automaton
  sends to the same state while the weights send them to different directions.  That is *not* a
  refutation (weights can be right with infinitely many directions).

Examples
--------
>>> from bilinear.automata.families import from_spec
>>> from bilinear.constructions.weights import Weights
>>> parity = from_spec("parity")
>>> w = Weights("diagonal", A=[[[1]], [[-1]]], h0=[1], readout=[[1], [-1]])
>>> p = prove(w, parity)
>>> p.status, p.states_explored, p.margin
('proved', 2, 2)
>>> bad = Weights("diagonal", A=[[[1]], [[1]]], h0=[1], readout=[[1], [-1]])
>>> c = prove(bad, parity)
>>> c.status, c.word, c.expected, c.got
('counterexample', (1,), 1, 0)
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field
from fractions import Fraction

import flint
import numpy as np

from bilinear.errors import WeightsError

from .field import _PRECISIONS, CyclotomicField, FieldElement
from .weights import Weights

__all__ = ["prove", "Proof", "Counterexample", "Unproved", "DEFAULT_BOUND"]

#: Default bound: the search stops once it holds more than ``bound * n_states`` pairs.
DEFAULT_BOUND = 64

_EPS = 2.0**-50  # generous unit round-off for the float screen


# ------------------------------------------------------------------------------------------
# results
# ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Proof:
    """The weights are right on every word: closure of ``states_explored`` pairs.

    ``margin`` is the exact minimum, over reachable pairs, of ``score[label] - max other score``
    on the stored representative of each hidden direction (the hidden vector of the shortest
    word reaching it; for norm-preserving weights that is the true hidden state); ``None`` when
    there is a single class.  ``state_map[q]`` lists the hidden-direction indices
    paired with automaton state ``q``; ``hidden_vectors()`` gives those directions exactly.
    """

    dim: int
    states_explored: int
    hidden_states: int
    margin: object
    margin_float: float | None
    state_map: tuple[tuple[int, ...], ...]
    conductor: int = 1
    _hidden: tuple = field(default=(), repr=False, compare=False)

    status = "proved"

    def hidden_vectors(self) -> list[tuple]:
        """The reachable hidden directions (representatives) as tuples of exact scalars."""
        return [tuple(_to_scalar(x, self.conductor) for x in h) for h in self._hidden]

    def to_json(self) -> dict:
        return {
            "status": self.status,
            "dim": self.dim,
            "states_explored": self.states_explored,
            "hidden_states": self.hidden_states,
            "margin": None if self.margin is None else {"exact": _exact_str(self.margin), "float": self.margin_float},
        }


@dataclass(frozen=True)
class Counterexample:
    """A shortest word on which the weights' label differs from (or ties with) the automaton's.

    ``got`` is the class the weights rank highest (``None`` when that maximum is tied);
    ``scores`` are the readout scores of the failing hidden vector, as floats.
    """

    dim: int
    word: tuple[int, ...]
    text: str
    expected: int
    got: int | None
    scores: tuple[float, ...]
    states_explored: int

    status = "counterexample"

    def to_json(self) -> dict:
        return {
            "status": self.status,
            "dim": self.dim,
            "word": self.text,
            "word_indices": list(self.word),
            "expected": self.expected,
            "got": self.got,
            "scores": list(self.scores),
            "states_explored": self.states_explored,
        }


@dataclass(frozen=True)
class Unproved:
    """The reachable pair set outgrew ``bound * n_states``: neither proof nor refutation.

    ``words`` are two words the automaton sends to the same state ``state`` but the weights to
    different hidden directions (evidence that the directions do not close up).
    """

    dim: int
    words: tuple[tuple[int, ...], tuple[int, ...]]
    texts: tuple[str, str]
    state: int
    bound: int
    states_explored: int
    reason: str

    status = "unproved"

    def to_json(self) -> dict:
        return {
            "status": self.status,
            "dim": self.dim,
            "words": list(self.texts),
            "state": self.state,
            "bound": self.bound,
            "states_explored": self.states_explored,
            "reason": self.reason,
        }


def _exact_str(x) -> str:
    if isinstance(x, FieldElement):
        return repr(x)
    return str(x)


def _to_scalar(x, m: int):
    if isinstance(x, int):
        return x
    if m == 1:
        return Fraction(int(x.p), int(x.q))
    return FieldElement(CyclotomicField(m), x, reduced=True).simplify()


# ------------------------------------------------------------------------------------------
# exact domains: Q (fmpq) and Q(zeta_m) (fmpq_poly mod Phi_m)
# ------------------------------------------------------------------------------------------
class _RationalDomain:
    """Q with flint.fmpq; directions keyed exactly by their canonical form."""

    m = 1
    exact_keys = True

    def convert(self, x):
        if isinstance(x, float):
            x = Fraction(x)
        if isinstance(x, Fraction):
            return flint.fmpq(x.numerator, x.denominator)
        if isinstance(x, FieldElement):
            x = x.rational()
            return flint.fmpq(x.numerator, x.denominator)
        return flint.fmpq(int(x))

    zero = flint.fmpq(0)

    def is_zero(self, x) -> bool:
        return x == 0

    def matvec(self, rows, h):
        out = []
        for row in rows:
            acc = self.zero
            for j, a in row:
                acc += a * h[j]
            out.append(acc)
        return out

    def canon(self, h):
        for x in h:
            if x != 0:
                if x == 1:
                    return tuple(h)
                scale = 1 / abs(x)
                return tuple(y * scale for y in h)
        return tuple(h)

    def key(self, h):
        # fmpq hashes through Fraction (slow); (numerator, denominator) fmpz pairs are fast
        return tuple((x.p, x.q) for x in self.canon(h))

    def floats(self, h):
        mid = np.array([float(x) for x in h])
        return mid, np.abs(mid) * _EPS

    def sign(self, x) -> int:
        return (x > 0) - (x < 0)

    def dot(self, row, h):
        acc = self.zero
        for j, a in row:
            acc += a * h[j]
        return acc


class _IntegerDomain(_RationalDomain):
    """Integer transitions and start state: hidden vectors stay integer tuples (Python ints);
    directions keyed exactly by the primitive vector (divided by the gcd of the entries)."""

    def convert(self, x):
        return int(x)

    zero = 0

    def matvec(self, rows, h):
        return [sum(a * h[j] for j, a in row) for row in rows]

    def key(self, h):
        g = math.gcd(*h)
        return tuple(h) if g in (0, 1) else tuple(x // g for x in h)

    def floats(self, h):
        mid = np.array(h, dtype=np.float64)
        return mid, np.abs(mid) * _EPS

    def dot(self, row, h):
        acc = 0  # int readout: int; rational readout: fmpq
        for j, a in row:
            acc += a * h[j]
        return acc


class _CyclotomicDomain:
    """Q(zeta_m) with reduced fmpq_poly; directions found by a float bucket, then confirmed
    exactly (:meth:`parallel`).  A bucket miss can only duplicate a direction (harmless for
    soundness: the stored set stays closed), never merge two different ones."""

    exact_keys = False

    def __init__(self, m: int):
        self.m = m
        self.field = CyclotomicField(m)
        self.mod = self.field.modulus
        self.zero = flint.fmpq_poly([])
        self._zeta = self.field.zeta_ball(64)

    def convert(self, x):
        if isinstance(x, FieldElement):
            return x.embed(self.m).poly
        if isinstance(x, float):
            x = Fraction(x)
        if isinstance(x, Fraction):
            return flint.fmpq_poly([flint.fmpq(x.numerator, x.denominator)])
        return flint.fmpq_poly([int(x)])

    def is_zero(self, x) -> bool:
        return x.is_zero()

    def matvec(self, rows, h):
        out = []
        mod = self.mod
        for row in rows:
            acc = self.zero
            for j, a in row:
                acc = acc + a * h[j]
            out.append(acc % mod if acc.degree() >= self.field.degree else acc)
        return out

    def sign(self, x) -> int:
        """Exact sign of a real element (entries of real weights stay real): zero test, then
        balls at growing precision until one excludes zero."""
        if x.is_zero():
            return 0
        if x.degree() == 0:
            return 1 if x.coeffs()[0] > 0 else -1
        poly = flint.acb_poly(x)
        for prec in _PRECISIONS:
            old = flint.ctx.prec
            flint.ctx.prec = prec
            try:
                re = poly(self.field.zeta_ball(prec)).real
            finally:
                flint.ctx.prec = old
            if re > 0:
                return 1
            if re < 0:
                return -1
        return FieldElement(self.field, x, reduced=True).sign()  # pragma: no cover - raises

    def _sign_nonzero(self, x) -> int:
        if x.degree() == 0:
            return 1 if x.coeffs()[0] > 0 else -1
        return self.sign(x)

    def parallel(self, a, b) -> bool:
        """a = lambda b for some lambda > 0, decided exactly."""
        for i, x in enumerate(a):
            if not x.is_zero():
                break
        else:
            return all(y.is_zero() for y in b)
        y = b[i]
        if y.is_zero() or self._sign_nonzero(x) != self._sign_nonzero(y):
            return False
        mod = self.mod
        for j in range(len(a)):
            if j != i and not ((x * b[j] - a[j] * y) % mod).is_zero():
                return False
        return True

    def floats(self, h):
        mid = np.empty(len(h))
        rad = np.empty(len(h))
        for i, x in enumerate(h):
            if x.degree() <= 0:
                mid[i] = float(x.coeffs()[0]) if not x.is_zero() else 0.0
                rad[i] = abs(mid[i]) * _EPS
            else:
                b = flint.acb_poly(x)(self._zeta).real
                mid[i] = float(b.mid())
                rad[i] = float(b.rad()) + abs(mid[i]) * _EPS
        return mid, rad

    def dot(self, row, h):
        acc = self.zero
        for j, a in row:
            acc = acc + a * h[j]
        return acc % self.mod


# ------------------------------------------------------------------------------------------
# the proof
# ------------------------------------------------------------------------------------------
def _sparse_rows(matrix, domain):
    rows = []
    for i in range(matrix.shape[0]):
        rows.append(tuple((j, domain.convert(matrix[i, j])) for j in range(matrix.shape[1]) if matrix[i, j] != 0))
    return tuple(rows)


def _word(parent, symbol, index) -> tuple[int, ...]:
    out = []
    while parent[index] >= 0:
        out.append(symbol[index])
        index = parent[index]
    return tuple(reversed(out))


def prove(weights: Weights, automaton, bound: int = DEFAULT_BOUND):
    """Prove (or refute) that ``weights`` classify every word as ``automaton`` does.

    Parameters
    ----------
    weights:
        Exact or float :class:`Weights` (floats are taken as the exact binary fractions they are).
    automaton:
        An :class:`~bilinear.automata.automaton.Automaton` with as many symbols and classes as
        the weights.
    bound:
        Stop with :class:`Unproved` once more than ``bound * automaton.n_states`` pairs
        ``(state, hidden direction)`` are reachable.

    Returns :class:`Proof`, :class:`Counterexample` (shortest failing word) or :class:`Unproved`.
    """
    if not isinstance(weights, Weights):
        raise WeightsError(f"prove needs a Weights value, got {type(weights).__name__}")
    if isinstance(bound, bool) or not isinstance(bound, int) or bound < 1:
        raise WeightsError(f"bound must be a positive integer, got {bound!r}")
    if weights.n_symbols != automaton.n_symbols:
        raise WeightsError(
            f"weights have {weights.n_symbols} symbols but automaton {automaton.name or ''!s} has "
            f"{automaton.n_symbols}"
        )
    if weights.n_classes != automaton.n_classes:
        raise WeightsError(
            f"readout has {weights.n_classes} classes but automaton {automaton.name or ''!s} has "
            f"{automaton.n_classes}"
        )
    m = weights.conductor if weights.exact else 1
    if m > 1:
        domain = _CyclotomicDomain(m)
    elif weights.exact and all(isinstance(x, int) for arr in (weights.A, weights.h0) for x in arr.flat):
        domain = _IntegerDomain()
        fast = _prove_int64(weights, automaton, bound)
        if fast is not None:
            return fast
    else:
        domain = _RationalDomain()
    A = [_sparse_rows(weights.A[s], domain) for s in range(weights.n_symbols)]
    int_readout = isinstance(domain, _IntegerDomain) and all(isinstance(x, int) for x in weights.readout.flat)
    R_rows = _sparse_rows(weights.readout, _RationalDomain() if m == 1 and not int_readout else domain)
    R_float = np.array([[float(x) for x in row] for row in weights.readout], dtype=np.float64)
    R_abs = np.abs(R_float)
    n_classes = weights.n_classes
    delta = automaton.delta
    labels = automaton.labels
    n_symbols = weights.n_symbols
    limit = bound * automaton.n_states
    dim = weights.dim

    hidden: list[tuple] = []
    hidden_index: dict = {}
    hidden_scores: list[tuple[np.ndarray, np.ndarray]] = []
    transitions: list[list[int | None]] = []

    buckets: dict = {}

    def add_hidden(h) -> int:
        mid = rad = None
        if domain.exact_keys:
            key = domain.key(h)
            idx = hidden_index.get(key)
            if idx is not None:
                return idx
        else:
            mid, rad = domain.floats(h)
            norm = float(np.sqrt(mid @ mid))
            key = tuple(np.round(mid * (1e7 / norm)).astype(np.int64).tolist()) if norm > 0 else None
            for idx in buckets.get(key, ()):
                if domain.parallel(hidden[idx], h):
                    return idx
        idx = len(hidden)
        if domain.exact_keys:
            hidden_index[key] = idx
        else:
            buckets.setdefault(key, []).append(idx)
        h = tuple(h)
        hidden.append(h)
        if mid is None:
            mid, rad = domain.floats(h)
        s_mid = R_float @ mid
        s_err = R_abs @ rad + (R_abs @ np.abs(mid)) * (dim + 2) * _EPS + 1e-300
        hidden_scores.append((s_mid, s_err))
        transitions.append([None] * n_symbols)
        return idx

    pair_index: dict[tuple[int, int], int] = {}
    pair_q: list[int] = []
    pair_h: list[int] = []
    parent: list[int] = []
    symbol: list[int] = []
    # per pair: (lower float bound of its margin, upper float bound, worst class)
    margin_lo: list[float] = []
    margin_hi: list[float] = []

    def exact_diff(hid: int, L: int, c: int):
        h = hidden[hid]
        return domain.dot(R_rows[L], h) - domain.dot(R_rows[c], h)

    def check_pair(idx: int):
        """None if the label is a strict maximum, else (got) for the counterexample."""
        q, hid = pair_q[idx], pair_h[idx]
        L = int(labels[q])
        if n_classes == 1:
            margin_lo.append(np.inf)
            margin_hi.append(np.inf)
            return None
        s_mid, s_err = hidden_scores[hid]
        gap = s_mid[L] - s_mid
        err = s_err[L] + s_err
        lo = gap - err
        lo[L] = np.inf
        undecided = np.nonzero(lo <= 0)[0]
        for c in undecided:
            if domain.sign(exact_diff(hid, L, int(c))) <= 0:
                return int(c)
        hi = gap + err
        hi[L] = np.inf
        margin_lo.append(float(max(lo.min(), 0.0)))
        margin_hi.append(float(hi.min()))
        return None

    def counterexample(idx: int, c: int):
        hid = pair_h[idx]
        s_mid, _ = hidden_scores[hid]
        L = int(labels[pair_q[idx]])
        # the weights' own answer: the exact maximum, None when tied
        best = c
        for other in range(n_classes):
            if other != best and domain.sign(exact_diff(hid, other, best)) > 0:
                best = other
        tied = any(
            other != best and domain.sign(exact_diff(hid, best, other)) == 0 for other in range(n_classes)
        )
        word = _word(parent, symbol, idx)
        return Counterexample(
            dim=dim,
            word=word,
            text=automaton.format_word(word),
            expected=L,
            got=None if tied else best,
            scores=tuple(float(x) for x in s_mid),
            states_explored=len(pair_q),
        )

    def add_pair(q: int, hid: int, par: int, sym: int):
        key = (q, hid)
        if key in pair_index:
            return None
        idx = len(pair_q)
        pair_index[key] = idx
        pair_q.append(q)
        pair_h.append(hid)
        parent.append(par)
        symbol.append(sym)
        bad = check_pair(idx)
        if bad is not None:
            return counterexample(idx, bad)
        return idx

    h0 = [domain.convert(x) for x in weights.h0]
    first = add_pair(int(automaton.start), add_hidden(h0), -1, -1)
    if isinstance(first, Counterexample):
        return first
    queue = deque([0])
    while queue:
        idx = queue.popleft()
        q, hid = pair_q[idx], pair_h[idx]
        row = transitions[hid]
        for s in range(n_symbols):
            nxt = row[s]
            if nxt is None:
                nxt = add_hidden(domain.matvec(A[s], hidden[hid]))
                row[s] = nxt
            res = add_pair(int(delta[s, q]), nxt, idx, s)
            if isinstance(res, Counterexample):
                return res
            if res is not None:
                queue.append(res)
                if len(pair_q) > limit:
                    return _unproved(automaton, dim, pair_q, pair_h, parent, symbol, bound)
    margin, margin_float = _minimum_margin(
        n_classes, pair_q, pair_h, labels, margin_lo, margin_hi, hidden_scores, exact_diff, domain
    )
    if margin is not None:
        margin = _to_scalar(margin, domain.m)
    state_map = [[] for _ in range(automaton.n_states)]
    for q, hid in zip(pair_q, pair_h):
        state_map[q].append(hid)
    return Proof(
        dim=dim,
        states_explored=len(pair_q),
        hidden_states=len(hidden),
        margin=margin,
        margin_float=margin_float,
        state_map=tuple(tuple(sorted(set(x))) for x in state_map),
        conductor=domain.m,
        _hidden=tuple(hidden),
    )


def _minimum_margin(n_classes, pair_q, pair_h, labels, lo, hi, scores, exact_diff, domain):
    if n_classes == 1:
        return None, None
    lo = np.asarray(lo)
    hi = np.asarray(hi)
    ceiling = hi.min()
    best = None
    for idx in np.nonzero(lo <= ceiling)[0]:
        hid = pair_h[idx]
        L = int(labels[pair_q[idx]])
        s_mid, s_err = scores[hid]
        gap_lo = s_mid[L] - s_mid - (s_err[L] + s_err)
        for c in np.nonzero(gap_lo <= ceiling)[0]:
            if c == L:
                continue
            value = exact_diff(hid, L, int(c))
            if best is None or domain.sign(value - best) < 0:
                best = value
    return best, float(_to_scalar(best, domain.m))


def _unproved(automaton, dim, pair_q, pair_h, parent, symbol, bound) -> Unproved:
    first_seen: dict[int, int] = {}
    for idx, q in enumerate(pair_q):
        if q in first_seen and pair_h[first_seen[q]] != pair_h[idx]:
            u = _word(parent, symbol, first_seen[q])
            v = _word(parent, symbol, idx)
            return Unproved(
                dim=dim,
                words=(u, v),
                texts=(automaton.format_word(u), automaton.format_word(v)),
                state=q,
                bound=bound,
                states_explored=len(pair_q),
                reason=(
                    f"more than {bound} x {automaton.n_states} reachable (state, direction) pairs: "
                    f"the automaton sends both words to state {q}, the weights to different directions"
                ),
            )
        first_seen.setdefault(q, idx)
    raise AssertionError("unreachable: more pairs than states implies two directions for a state")  # pragma: no cover


_INT64_SAFE = 2**62


def _prove_int64(weights: Weights, automaton, bound: int):
    """The same breadth-first closure for integer weights, vectorised level by level in int64.

    Exact as long as no product can overflow: before every level it checks
    ``max|h| * max row sum |A| < 2^62`` (and the same for the readout), and returns None (the
    caller then runs the generic exact loop) when that fails or the readout is not integral.
    The order of pairs is the FIFO order of the generic loop, so the first failure is still a
    shortest counterexample.
    """
    if not all(isinstance(x, int) for x in weights.readout.flat):
        return None
    try:
        A = np.array(weights.A.tolist(), dtype=np.int64)  # (symbols, hidden, hidden)
        h0 = np.array(weights.h0.tolist(), dtype=np.int64)  # (hidden,)
        R = np.array(weights.readout.tolist(), dtype=np.int64)  # (classes, hidden)
    except OverflowError:
        return None
    a_row = int(np.abs(A).sum(axis=2).max())
    r_row = int(np.abs(R).sum(axis=1).max())
    k, d = A.shape[0], A.shape[1]
    n_classes = R.shape[0]
    delta = automaton.delta
    labels = automaton.labels
    limit = bound * automaton.n_states

    hidden: list[np.ndarray] = []
    hidden_index: dict[bytes, int] = {}

    def hid_of(rows: np.ndarray) -> np.ndarray:
        g = np.gcd.reduce(np.abs(rows), axis=1)
        g[g == 0] = 1
        prim = rows // g[:, None]
        out = np.empty(len(rows), dtype=np.int64)
        for i in range(len(rows)):
            key = prim[i].tobytes()
            idx = hidden_index.get(key)
            if idx is None:
                idx = len(hidden)
                hidden_index[key] = idx
                hidden.append(rows[i])
            out[i] = idx
        return out

    pair_index: dict[tuple[int, int], int] = {}
    pair_q: list[int] = []
    pair_h: list[int] = []
    parent: list[int] = []
    symbol: list[int] = []
    margins: list[int] = []

    def margins_of(qs: np.ndarray, hs: np.ndarray) -> np.ndarray:
        H = np.stack([hidden[i] for i in hs])  # (pairs, hidden)
        scores = H @ R.T  # (pairs, classes), exact in int64
        L = labels[qs]
        rows = np.arange(len(qs))
        own = scores[rows, L]
        if n_classes == 1:
            return np.full(len(qs), np.iinfo(np.int64).max), scores
        other = scores.copy()
        other[rows, L] = np.iinfo(np.int64).min
        return own - other.max(axis=1), scores

    def fail(idx: int, scores_row: np.ndarray) -> Counterexample:
        L = int(labels[pair_q[idx]])
        best = int(np.argmax(scores_row))
        tied = int((scores_row == scores_row[best]).sum()) > 1
        word = _word(parent, symbol, idx)
        return Counterexample(
            dim=d, word=word, text=automaton.format_word(word), expected=L,
            got=None if tied else best, scores=tuple(float(x) for x in scores_row),
            states_explored=len(pair_q),
        )

    if int(np.abs(h0).max(initial=0)) * max(r_row, 1) >= _INT64_SAFE:
        return None
    h_start = hid_of(h0[None, :])[0]
    pair_index[(int(automaton.start), int(h_start))] = 0
    pair_q.append(int(automaton.start))
    pair_h.append(int(h_start))
    parent.append(-1)
    symbol.append(-1)
    m0, sc0 = margins_of(np.array([automaton.start]), np.array([h_start]))
    if m0[0] <= 0:
        return fail(0, sc0[0])
    margins.append(int(m0[0]))
    frontier = np.array([0], dtype=np.int64)
    while len(frontier):
        hs = np.array([pair_h[i] for i in frontier], dtype=np.int64)
        qs = np.array([pair_q[i] for i in frontier], dtype=np.int64)
        H = np.stack([hidden[i] for i in hs])  # (frontier, hidden)
        if int(np.abs(H).max(initial=0)) * max(a_row, 1) * max(r_row, 1) >= _INT64_SAFE:
            return None
        NH = np.einsum("sij,nj->nsi", A, H).reshape(-1, d)  # (frontier * symbols, hidden)
        Q2 = delta[:, qs].T.reshape(-1)  # parent-major, then symbol
        H2 = hid_of(NH)
        new = []
        for j in range(len(Q2)):
            key = (int(Q2[j]), int(H2[j]))
            if key in pair_index:
                continue
            idx = len(pair_q)
            pair_index[key] = idx
            pair_q.append(key[0])
            pair_h.append(key[1])
            parent.append(int(frontier[j // k]))
            symbol.append(j % k)
            new.append(idx)
        if not new:
            break
        new_arr = np.array(new, dtype=np.int64)
        m, scores = margins_of(np.array([pair_q[i] for i in new]), np.array([pair_h[i] for i in new]))
        bad = np.nonzero(m <= 0)[0]
        trip = limit - new[0] if new[-1] >= limit else None  # the pair that exceeds the bound
        if len(bad) and (trip is None or bad[0] <= trip):
            cut = new[bad[0]] + 1
            for lst in (pair_q, pair_h, parent, symbol):
                del lst[cut:]
            return fail(new[bad[0]], scores[bad[0]])
        if trip is not None:
            cut = new[trip] + 1
            for lst in (pair_q, pair_h, parent, symbol):
                del lst[cut:]
            return _unproved(automaton, d, pair_q, pair_h, parent, symbol, bound)
        margins.extend(int(x) for x in m)
        frontier = new_arr
    state_map = [[] for _ in range(automaton.n_states)]
    for q, hid in zip(pair_q, pair_h):
        state_map[q].append(hid)
    margin = None if n_classes == 1 else min(margins)
    return Proof(
        dim=d,
        states_explored=len(pair_q),
        hidden_states=len(hidden),
        margin=margin,
        margin_float=None if margin is None else float(margin),
        state_map=tuple(tuple(sorted(set(x))) for x in state_map),
        conductor=1,
        _hidden=tuple(tuple(int(x) for x in h) for h in hidden),
    )
