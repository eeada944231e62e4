"""Impossibility certificates: words proving that no weights of a variant can compute an automaton.

For the *commuting* variants (``rotation2d``, ``diagonal``, ``positive``; also ``block:1``,
which is ``diagonal``, and ``factorized:1``, whose matrices ``c_a u w^T`` are multiples of one
rank-one matrix) the transition matrices of every pair of symbols commute, and the real
ones (diagonal, ``factorized:1``) are more constrained still.  Three theorems (proved in ``docs/theory.md``) turn
this into finite, checkable evidence:

``commutation`` (every commuting variant)
    ``A(u a b v) = A(u b a v)``, so the network gives ``u a b v`` and ``u b a v`` the same
    label.  A quadruple ``(u, a, b, v)`` with ``L(q0·u a b v) != L(q0·u b a v)`` is a
    certificate.
``period`` (``diagonal``)
    Along ``n -> u g^n v`` each readout difference is ``sum_i c_i lambda_i^n`` with real
    ``lambda_i``; its sign, hence the predicted label, is eventually periodic with period
    dividing 2.  A triple ``(u, g, v)`` whose automaton labels are not is a certificate.
``constancy`` (``positive``)
    With ``lambda_i > 0`` the labels along ``u g^n v`` are eventually constant.

:func:`certify` searches exhaustively and returns a *shortest* certificate (total length of
its words), preferring the commutation theorem when both apply, or ``None`` when none exists:
the search is complete (Theorem 9: a commutation certificate exists iff two states ``q·ab``,
``q·ba`` with ``q`` reachable are distinguishable; a period/constancy one iff, in the then
commutative minimal automaton, the orbit of the start state under some word ``g`` cycles through
two different states two/one steps apart).  One lazy multi-source breadth-first search over
pairs of states finds the minimum; no table of all pairs is built.
Every certificate is rechecked by :meth:`Certificate.verify` before it is returned.

Examples
--------
>>> from bilinear.automata import from_spec
>>> c = certify(from_spec("dihedral:4"), "rotation2d")
>>> c.kind, c.describe()
('commutation', 'u=ε, (a,b)=(r,s), v=ε')
>>> c.labels
('r s', 'r^3 s')
>>> certify(from_spec("cyclic:3"), "diagonal").describe()
'u=ε, g=1, v=ε: labels along g^n = 0 1 2 ... (period 3 from n=0)'
>>> certify(from_spec("parity"), "diagonal") is None
True
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Iterable

import numpy as np

from bilinear.argtypes import check_positive_int
from bilinear.automata import Automaton, from_spec
from bilinear.automata.minimize import access_words
from bilinear.errors import AutomatonError

from ..values.memo import per_automaton
from ..values.weights import parse_variant

__all__ = [
    "Certificate",
    "certify",
    "KINDS",
    "THEOREMS",
    "certifiable_kinds",
    "affine_kinds",
    "AFFINE_THEOREMS",
]

#: The theorem each kind of certificate rests on (docs/theory.md has the proofs).
THEOREMS = {
    "commutation": (
        "commuting transition matrices (Theorem 6 of docs/theory.md): A(u a b v) = A(u b a v), "
        "so the two words reach the same hidden state and get the same label for every choice "
        "of weights; the automaton labels them differently"
    ),
    "period": (
        "transition products with only real eigenvalues, as real diagonal and rank-one factorised "
        "matrices have (Theorem 7 of docs/theory.md): along n -> u g^n v every readout difference is "
        "sum_lambda p_lambda(n) lambda^n with real lambda, whose sign is eventually periodic with period dividing 2, so the predicted labels are eventually 2-periodic; "
        "the automaton's labels along u g^n v are not"
    ),
    "constancy": (
        "positive diagonal transition matrices (Theorem 8 of docs/theory.md): along n -> u g^n v "
        "every readout difference is sum_i c_i lambda_i^n with lambda_i > 0, whose sign is "
        "eventually constant, so the predicted labels are eventually constant; the automaton's "
        "labels along u g^n v are not"
    ),
    "symbol-period": (
        "one generalised reflection per symbol (Theorem F1 of docs/theory.md): A_g = I - beta v v^T/(v^T v) "
        "has the real eigenvalues 1 and 1 - beta and is diagonalisable, so along n -> u g^n v (g one symbol) every "
        "readout difference is c_1 + c_2 (1 - beta)^n, whose sign is eventually periodic with period dividing 2; "
        "the automaton's labels along u g^n v are not (Grazzi et al. 2025, Theorem 2, in exact form)"
    ),
    "symbol-constancy": (
        "symbol matrices with non-negative real eigenvalues, diagonalisable (Theorem F2 of docs/theory.md: one "
        "generalised reflection with beta in [0, 1], or a product of two): along n -> u g^n v (g one symbol) "
        "every readout difference is sum_i c_i lambda_i^n with lambda_i >= 0, whose sign is eventually constant; "
        "the automaton's labels along u g^n v are not (Grazzi et al. 2025, Theorem 1, in exact form)"
    ),
}
KINDS = tuple(THEOREMS)
#: The theorems of the certificates for an *affine* recurrence h -> A h + b (Theorem A2 of
#: docs/theory.md: the lift to [h; 1] adds only the eigenvalue 1, so Theorems 7, 8, F1 and F2
#: transfer; Theorem 6 does not, see Theorem A3).
AFFINE_THEOREMS = {
    "symbol-period": (
        "affine recurrence whose symbol matrices have only real eigenvalues (Theorem A2 of docs/theory.md: "
        "the lift [[A, b], [0, 1]] adds the eigenvalue 1, and Theorems 7 and F1 need only real eigenvalues "
        "of A_g): along n -> u g^n v (g one symbol) the predicted labels are eventually periodic with "
        "period dividing 2; the automaton's labels along u g^n v are not"
    ),
    "symbol-constancy": (
        "affine recurrence whose symbol matrices have only non-negative real eigenvalues (Theorem A2 of "
        "docs/theory.md: the lift adds the eigenvalue 1, and Theorems 8 and F2 need only non-negative "
        "real eigenvalues of A_g): along n -> u g^n v (g one symbol) the predicted labels are eventually "
        "constant; the automaton's labels along u g^n v are not"
    ),
}
#: Certificate kinds whose g is a single symbol (the theorem holds per matrix, not per product).
SYMBOL_KINDS = ("symbol-period", "symbol-constancy")

#: The certificate kinds that apply to a commuting variant, by its spectral class
#: (:attr:`~bilinear.constructions.values.variants.VariantKind.spectral`), in order of preference.
_BY_SPECTRUM = {
    "complex": ("commutation",),
    "real": ("commutation", "period"),
    "nonnegative": ("commutation", "constancy"),
}


def certifiable_kinds(variant) -> tuple[str, ...]:
    """The certificate kinds that apply to ``variant`` (empty for variants without a theorem).

    ``block:1`` is the real diagonal variant under another name.  A variant whose spectral
    class holds per symbol matrix only (``householder:1``) gets the single-symbol kinds.

    >>> certifiable_kinds("positive"), certifiable_kinds("block:1"), certifiable_kinds("full")
    (('commutation', 'constancy'), ('commutation', 'period'), ())
    >>> certifiable_kinds("householder:1"), certifiable_kinds("householder:2,nonneg"), certifiable_kinds("householder:2")
    (('symbol-period',), ('symbol-constancy',), ())
    >>> certifiable_kinds("factorized:1"), certifiable_kinds("factorized:2")
    (('commutation', 'period'), ())
    """
    v = parse_variant(variant)
    if v.commuting:
        return _BY_SPECTRUM[v.spectral]
    if _rank_one(v):
        return _BY_SPECTRUM["real"]
    if v.info.spectral_scope == "symbols":
        return {"real": ("symbol-period",), "nonnegative": ("symbol-constancy",)}.get(v.spectral, ())
    return ()


def _rank_one(v) -> bool:
    """True for ``factorized:1``: every ``A_a = c_a u w^T`` (real), so the matrices commute and
    every product ``A_g = c_g (w^T u)^(|g|-1) u w^T`` has the real eigenvalues ``c_g (w^T u)^|g|``
    and 0 (docs/theory.md, Theorems 6 and 7).  The variant's other theorems (depth, factor
    counts) do not read it as commuting: only the certificates do."""
    return v.info.factored and v.param == 1  # A[s] = U diag(C[s]) W^T with one column: c_s u w^T


# ------------------------------------------------------------------------------------------
# the certificate value
# ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Certificate:
    """A checked impossibility certificate.

    Attributes
    ----------
    variant:
        Canonical variant spec the certificate rules out (``"rotation2d"``, ...).
    kind:
        ``"commutation"``, ``"period"`` or ``"constancy"`` (see :data:`THEOREMS`).
    indices:
        The certificate's words as symbol indices, in order: ``u, a, b, v`` (commutation) or
        ``u, g, v`` (period, constancy); a pair ``(name, word)`` each.
    words:
        The same words as readable strings of symbol names (``ε`` for the empty word).
    witnesses:
        Two full words (symbol indices) that every network of the variant labels alike and the
        automaton labels differently: ``u a b v`` / ``u b a v``, or ``u g^n v`` / ``u g^(n+s) v``
        with ``s = 2`` (period) or ``1`` (constancy) and ``n`` past the pre-period.
    labels:
        The class names the automaton gives the two witnesses (they differ).
    preperiod, period:
        For period/constancy: the orbit ``q0·u·g^n`` is periodic from ``n = preperiod`` with
        this period (``None`` for commutation).
    label_cycle:
        For period/constancy: the automaton's labels of ``u g^n v`` for one period starting at
        ``n = preperiod`` (class names).
    label_period:
        The minimal period of ``label_cycle`` (it does not divide 2, resp. is not 1).
    theorem:
        The theorem the certificate rests on.
    automaton:
        Name of the automaton it was found for.
    """

    variant: str
    kind: str
    indices: tuple[tuple[str, tuple[int, ...]], ...]
    words: tuple[tuple[str, str], ...]
    witnesses: tuple[tuple[int, ...], tuple[int, ...]]
    labels: tuple[str, str]
    theorem: str
    automaton: str = ""
    preperiod: int | None = None
    period: int | None = None
    label_cycle: tuple[str, ...] | None = None
    label_period: int | None = None

    # -- views ----------------------------------------------------------------------------
    def word(self, name: str) -> tuple[int, ...]:
        """The word called ``name`` (``"u"``, ``"a"``, ``"b"``, ``"g"`` or ``"v"``) as indices."""
        for key, value in self.indices:
            if key == name:
                return value
        raise KeyError(f"certificate of kind {self.kind!r} has no word {name!r}")

    @property
    def length(self) -> int:
        """Total length of the certificate's words (``|u|+|v|``, plus ``|g|`` for period kinds);
        the search minimises it."""
        return sum(len(w) for key, w in self.indices if key not in ("a", "b"))

    def describe(self) -> str:
        """One line: ``u=.., (a,b)=.., v=..`` or ``u=.., g=.., v=..: labels along g^n = ...``."""
        w = dict(self.words)
        if self.kind == "commutation":
            return f"u={w['u']}, (a,b)=({w['a']},{w['b']}), v={w['v']}"
        labels = self.label_cycle or ()
        shown = labels[:CYCLE_SHOWN]  # one line, even for a 50,000-state cycle (the JSON keeps all)
        cycle = " ".join(shown) + (f" [{len(labels) - len(shown):,} more]" if len(labels) > len(shown) else "")
        return (
            f"u={w['u']}, g={w['g']}, v={w['v']}: labels along g^n = {cycle} ... "
            f"(period {self.label_period} from n={self.preperiod})"
        )

    def to_dict(self) -> dict:
        """A JSON-ready dict: ``variant``, ``kind``, ``words`` (names), ``indices``,
        ``witnesses``, ``labels``, ``theorem`` and, for period kinds, the periods."""
        out: dict[str, Any] = {
            "variant": self.variant,
            "kind": self.kind,
            "automaton": self.automaton,
            "words": dict(self.words),
            "indices": {k: list(v) for k, v in self.indices},
            "witnesses": [list(w) for w in self.witnesses],
            "labels": list(self.labels),
            "theorem": self.theorem,
            "summary": self.describe(),
        }
        if self.kind != "commutation":
            out.update(
                preperiod=self.preperiod,
                period=self.period,
                label_cycle=list(self.label_cycle or ()),
                label_period=self.label_period,
            )
        return out

    # -- applying the certificate to given weights --------------------------------------------
    def failing_word(self, weights, automaton: Automaton, max_n: int = 256) -> tuple[int, ...] | None:
        """A word (symbol indices) that ``weights`` classify differently from ``automaton``,
        found along the certificate, or ``None`` if none is found within ``max_n``.

        Commutation: both witnesses reach the same hidden state for weights of a commuting
        variant, so the one whose automaton label differs from the prediction fails.  Period /
        constancy: the predictions along ``u g^n v`` are eventually 2-periodic / constant
        (Theorems 7, 8) while the automaton's labels are not, so some ``n`` fails; the words are
        tried for ``n = 0 .. max_n``.  Predictions are computed in float64 with the hidden state
        renormalised after every symbol (as :func:`~bilinear.constructions.horizon.floatcheck.check` does), so
        any weights work, trained or constructed; for weights of another variant the theorems
        do not apply and ``None`` is a possible answer.

        >>> from bilinear.automata import from_spec
        >>> from bilinear.constructions.values.weights import Weights
        >>> a = from_spec("cyclic:3")
        >>> w = Weights("diagonal", A=[[[1]], [[-1]], [[1]]], h0=[1], readout=[[1], [-1], [0]])
        >>> certify(a, "diagonal").failing_word(w, a)
        (1, 1)
        """
        from bilinear.errors import WeightsError

        from ..values.floatrun import check_compatible, float_steps

        check_compatible(weights, automaton)
        max_n = check_positive_int(max_n, "max_n", minimum=0, error=WeightsError)
        A, h0, R = weights.float_arrays()

        def run(h, word):  # (hidden,) -> (hidden,), the float run from h, renormalised
            for H in float_steps(A, h, np.asarray([word], dtype=np.int64).reshape(1, len(word))):
                h = H[0]
            return h

        def wrong(h, word) -> bool:
            return int(np.argmax(R @ h)) != automaton.label(list(word))

        if self.kind == "commutation":
            for word in self.witnesses:
                if wrong(run(h0, word), word):
                    return tuple(word)
            return None
        u, g, v = self.word("u"), self.word("g"), self.word("v")
        h = run(h0, u)
        for n in range(max_n + 1):
            word = u + g * n + v
            if wrong(run(h, v), word):
                return word
            h = run(h, g)
        return None

    # -- the exact recheck ------------------------------------------------------------------
    def verify(self, automaton: Automaton) -> bool:
        """Recheck the certificate on ``automaton`` exactly (integer state arithmetic only).

        True when every recorded fact holds: the words are words of the automaton, the two
        witnesses get the recorded, different labels, and (period kinds) the orbit, its
        pre-period and period, the label cycle and its minimal period are as recorded, and the
        minimal period does not divide 2 (``period``) or is not 1 (``constancy``).  False
        otherwise (never raises for a well-formed automaton).
        """
        if not isinstance(automaton, Automaton) or self.kind not in THEOREMS:
            return False
        k = automaton.n_symbols
        names = dict(self.indices)
        expected = ("u", "a", "b", "v") if self.kind == "commutation" else ("u", "g", "v")
        if tuple(names) != expected:
            return False
        for w in list(names.values()) + list(self.witnesses):
            if any(not isinstance(s, int) or not 0 <= s < k for s in w):
                return False
        if dict(self.words) != {key: automaton.format_word(w) for key, w in names.items()}:
            return False
        labels = tuple(automaton.classes[automaton.label(list(w))] for w in self.witnesses)
        if labels != tuple(self.labels) or labels[0] == labels[1]:
            return False
        u, v = names["u"], names["v"]
        if self.kind == "commutation":
            a, b = names["a"], names["b"]
            if len(a) != 1 or len(b) != 1 or a == b:
                return False
            return self.witnesses == (u + a + b + v, u + b + a + v)
        g = names["g"]
        if not g or (self.kind in SYMBOL_KINDS and len(g) != 1):
            return False
        orbit = _orbit(automaton, automaton.run(list(u)), g)
        t, p = orbit.preperiod, orbit.period
        if (t, p) != (self.preperiod, self.period):
            return False
        cycle = tuple(
            automaton.classes[automaton.label(list(v), state=q)] for q in orbit.states[t : t + p]
        )
        if cycle != self.label_cycle:
            return False
        lp = minimal_period(cycle)
        if lp != self.label_period:
            return False
        step = 2 if self.kind in ("period", "symbol-period") else 1
        if step % lp == 0:  # the labels *are* eventually 2-periodic / constant
            return False
        # the witnesses are u g^n v and u g^(n+step) v with n at or past the pre-period
        first, second = self.witnesses
        for n in range(t, t + p):
            if first == u + g * n + v:
                return second == u + g * (n + step) + v
        return False


# ------------------------------------------------------------------------------------------
# exact combinatorics on the automaton
# ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Orbit:
    states: tuple[int, ...]  # q, q·g, ..., up to preperiod + period - 1
    preperiod: int
    period: int


def _orbit(automaton: Automaton, q: int, g: tuple[int, ...]) -> _Orbit:
    seen: dict[int, int] = {}
    states: list[int] = []
    while q not in seen:
        seen[q] = len(states)
        states.append(q)
        q = automaton.run(list(g), state=q)
    t = seen[q]
    return _Orbit(tuple(states), t, len(states) - t)


def minimal_period(cycle: tuple) -> int:
    """Smallest p dividing len(cycle) with cycle[i] == cycle[(i+p) % len] for all i: the minimal
    period of the labels around a cycle (the certificates' ``label_period``, and the P of
    Theorem F6 in :func:`~.bounds.monomial_bound`).

    >>> minimal_period((0, 1, 0, 1)), minimal_period((2, 2, 2)), minimal_period((0, 0, 1))
    (2, 1, 3)
    """
    n = len(cycle)
    for p in range(1, n + 1):
        if n % p == 0 and all(cycle[i] == cycle[(i + p) % n] for i in range(n)):
            return p
    return n  # pragma: no cover - p = n always qualifies


#: Labels of a certificate's cycle that :meth:`Certificate.describe` shows.
CYCLE_SHOWN = 32


def _pair_search(delta: np.ndarray, labels: np.ndarray, sources: Iterable[tuple]):
    """Multi-source breadth-first search on pairs of states for a distinguishing suffix.

    ``sources`` yields ``(offset, x, y, tag)`` with non-decreasing ``offset`` (consumed lazily,
    level by level).  Returns ``(tag, v)`` minimising ``offset + |v|`` over all sources and words
    ``v`` with ``labels[x·v] != labels[y·v]`` (ties: earlier levels' expansions first, then
    sources in the order given, symbols in order), or ``None`` when every source pair is
    equivalent.  Pairs that merge (``x·a == y·a``) are never expanded: they cannot be told
    apart any more.  Visits each pair at most once.
    """
    k = delta.shape[0]
    seen: dict[tuple[int, int], tuple] = {}  # pair -> (parent pair | None, symbol | tag)
    pending = iter(sources)
    nxt = next(pending, None)
    frontier: list[tuple[int, int]] = []
    level = 0

    def found(pair):
        word = []
        while True:
            parent, item = seen[pair]
            if parent is None:
                return item, tuple(reversed(word))
            word.append(item)
            pair = parent

    while frontier or nxt is not None:
        for pair in frontier:
            if labels[pair[0]] != labels[pair[1]]:
                return found(pair)
        current = frontier
        while nxt is not None and nxt[0] <= level:
            _, x, y, tag = nxt
            if x != y and (x, y) not in seen:
                if labels[x] != labels[y]:
                    return tag, ()  # nothing at this level can be shorter
                seen[(x, y)] = (None, tag)
                current.append((x, y))
            nxt = next(pending, None)
        frontier = []
        for x, y in current:
            for a in range(k):
                nx, ny = int(delta[a, x]), int(delta[a, y])
                if nx != ny and (nx, ny) not in seen:
                    seen[(nx, ny)] = ((x, y), a)
                    frontier.append((nx, ny))
        level += 1
    return None


# ------------------------------------------------------------------------------------------
# search
# ------------------------------------------------------------------------------------------
def _as_automaton(automaton) -> Automaton:
    if isinstance(automaton, str):
        return from_spec(automaton)
    if not isinstance(automaton, Automaton):
        raise AutomatonError(f"certify needs an Automaton or a spec string, got {type(automaton).__name__}")
    return automaton


def _commutation(a: Automaton, variant: str) -> Certificate | None:
    """Shortest (u, a, b, v): sources (q0·u·ab, q0·u·ba) at offset |u| for every reachable
    state (shortest u) and pair of symbols, then a shortest distinguishing v (Theorem 9.1)."""
    k = a.n_symbols
    if k < 2:
        return None
    reach = access_words(a)
    delta = a.delta

    def sources():
        for p, u in zip(reach.states.tolist(), reach.each_word()):
            M = delta[:, delta[:, p]].T  # (symbols, symbols): M[x, y] = p·x·y
            for x, y in zip(*np.nonzero(np.triu(M != M.T, 1))):  # x < y, row-major
                x, y = int(x), int(y)
                yield len(u), int(M[x, y]), int(M[y, x]), (u, x, y)

    hit = _pair_search(delta, a.labels, sources())
    if hit is None:
        return None
    (u, x, y), v = hit
    first, second = u + (x, y) + v, u + (y, x) + v
    parts = (("u", u), ("a", (x,)), ("b", (y,)), ("v", v))
    return Certificate(
        variant=variant,
        kind="commutation",
        indices=parts,
        words=tuple((key, a.format_word(w)) for key, w in parts),
        witnesses=(first, second),
        labels=(a.classes[a.label(list(first))], a.classes[a.label(list(second))]),
        theorem=THEOREMS["commutation"],
        automaton=a.name,
    )


def _periodic(a: Automaton, variant: str, kind: str) -> Certificate | None:
    """Shortest (u, g, v) whose labels along g^n are not eventually 2-periodic (``period``) or
    constant (``constancy``), for an automaton with no commutation certificate.

    Such an automaton's minimal automaton M is commutative, so (Theorem 9.2) u can be moved
    into v (``L(q0·u g^n v) = L(q0·g^n uv)``) and the transformation of g is fixed by the
    state ``q0·g``: g ranges over shortest words of M's states.  Sources are the cycle pairs
    ``(c_i, c_(i+step))`` of the orbit of q0 under g, at offset ``|g|``.
    """
    from bilinear.automata.minimize import minimize

    step = 2 if kind == "period" else 1
    m = minimize(a)
    md = m.delta
    n = m.n_states
    if any((md[:, md[x]] != md[x][md]).any() for x in range(m.n_symbols)):  # p·x·y vs p·y·x
        raise RuntimeError(f"internal error: {a.name} has no commutation certificate but is not commutative")
    reach = access_words(m)  # minimal automata are numbered breadth-first; words are shortlex

    def sources():
        for s, g in zip(reach.states.tolist(), reach.each_word()):
            if s == m.start:
                continue  # g acts as the identity: constant orbits
            t_g = np.arange(n)
            for symbol in g:
                t_g = md[symbol][t_g]
            orbit, seen, q = [], {}, m.start
            while q not in seen:
                seen[q] = len(orbit)
                orbit.append(q)
                q = int(t_g[q])
            cycle = orbit[seen[q]:]
            for i in range(len(cycle)):
                yield len(g), cycle[i], cycle[(i + step) % len(cycle)], g

    hit = _pair_search(md, m.labels, sources())
    if hit is None:
        return None
    g, v = hit
    u: tuple[int, ...] = ()
    orbit = _orbit(a, a.start, g)  # pre-period and period in the automaton as given
    t, period = orbit.preperiod, orbit.period
    cycle_states = orbit.states[t:]
    cycle = tuple(a.classes[a.label(list(v), state=q)] for q in cycle_states)
    n_w = next(t + i for i in range(period) if cycle[i] != cycle[(i + step) % period])
    first, second = u + g * n_w + v, u + g * (n_w + step) + v
    parts = (("u", u), ("g", g), ("v", v))
    return Certificate(
        variant=variant,
        kind=kind,
        indices=parts,
        words=tuple((key, a.format_word(w)) for key, w in parts),
        witnesses=(first, second),
        labels=(a.classes[a.label(list(first))], a.classes[a.label(list(second))]),
        theorem=THEOREMS[kind],
        automaton=a.name,
        preperiod=t,
        period=period,
        label_cycle=cycle,
        label_period=minimal_period(cycle),
    )


def _symbol_periodic(a: Automaton, variant: str, kind: str) -> Certificate | None:
    """Shortest (u, g, v) with g ONE symbol whose labels along g^n are not eventually 2-periodic
    (``symbol-period``) or constant (``symbol-constancy``).  No commutativity is assumed: the
    sources are, for every reachable state p (shortest u) and symbol g, the cycle pairs
    ``(c_i, c_(i+step))`` of the orbit of p under g, at offset ``|u| + 1``; a shortest
    distinguishing v completes the certificate."""
    step = 2 if kind == "symbol-period" else 1
    reach = access_words(a)
    delta = a.delta

    def sources():
        for p, u in zip(reach.states.tolist(), reach.each_word()):
            for g in range(a.n_symbols):
                orbit, seen, q = [], {}, p
                while q not in seen:
                    seen[q] = len(orbit)
                    orbit.append(q)
                    q = int(delta[g, q])
                cycle = orbit[seen[q]:]
                if len(cycle) <= step and step % len(cycle) == 0:
                    continue
                for i in range(len(cycle)):
                    yield len(u) + 1, cycle[i], cycle[(i + step) % len(cycle)], (u, (g,))

    hit = _pair_search(delta, a.labels, sources())
    if hit is None:
        return None
    (u, g), v = hit
    orbit = _orbit(a, a.run(list(u)) if u else a.start, g)
    t, period = orbit.preperiod, orbit.period
    cycle = tuple(a.classes[a.label(list(v), state=q)] for q in orbit.states[t:])
    n_w = next(t + i for i in range(period) if cycle[i] != cycle[(i + step) % period])
    first, second = u + g * n_w + v, u + g * (n_w + step) + v
    parts = (("u", u), ("g", g), ("v", v))
    return Certificate(
        variant=variant, kind=kind, indices=parts,
        words=tuple((key, a.format_word(w)) for key, w in parts),
        witnesses=(first, second),
        labels=(a.classes[a.label(list(first))], a.classes[a.label(list(second))]),
        theorem=THEOREMS[kind], automaton=a.name, preperiod=t, period=period,
        label_cycle=cycle, label_period=minimal_period(cycle),
    )


def affine_kinds(variant) -> tuple[str, ...]:
    """The certificate kinds that hold for an *affine* recurrence ``h -> A_a h + b_a`` whose
    homogeneous part is of ``variant`` (Theorems A2 and A3 of docs/theory.md): never
    ``commutation`` (lifted diagonal matrices need not commute: the affine diagonal flip-flop);
    the eigenvalue kinds along single symbols where every symbol matrix has real (non-negative)
    eigenvalues.

    >>> affine_kinds("diagonal"), affine_kinds("positive"), affine_kinds("rotation2d")
    (('symbol-period',), ('symbol-constancy',), ())
    >>> affine_kinds("householder:1"), affine_kinds("householder:2,nonneg"), affine_kinds("full")
    (('symbol-period',), ('symbol-constancy',), ())
    >>> affine_kinds("factorized:1"), affine_kinds("factorized:2")
    (('symbol-period',), ())
    """
    v = parse_variant(variant)
    if _rank_one(v):
        return ("symbol-period",)
    if v.commuting or v.info.spectral_scope == "symbols":
        return {"real": ("symbol-period",), "nonnegative": ("symbol-constancy",)}.get(v.spectral, ())
    return ()


def certify(automaton, variant, *, affine: bool = False) -> Certificate | None:
    """The shortest impossibility certificate for ``automaton`` (or a spec string) and
    ``variant``, or ``None`` when none exists.

    Tries the kinds of :func:`certifiable_kinds` in order (commutation first) and returns the
    first that exists; within a kind the certificate minimises the total length of its words
    (``|u|+|v|``, plus ``|g|``).  ``None`` for a non-commuting variant (``full``,
    ``factorized:R``, ``block:B`` with ``B > 1``) or when the automaton satisfies every
    constraint the variant's theorems impose — which does not by itself mean a construction
    exists.  Raises SpecError for a bad variant, AutomatonError for a bad automaton.

    Cost: one breadth-first search over pairs of states, stopping at the first distinguished
    pair (so a non-commutative group with thousands of states is settled at once); the period
    search runs on the minimal automaton.

    See Also
    --------
    bilinear.analysis.certify.certify_network : certifies one trained *network* (a horizon up
        to which its float weights are right, from a proved snapped network); this function
        looks at the automaton alone and rules out *every* network of a variant.

    >>> from bilinear.automata import from_spec
    >>> c = certify(from_spec("parity"), "positive")
    >>> c.kind, c.describe()
    ('constancy', 'u=ε, g=1, v=ε: labels along g^n = even odd ... (period 2 from n=0)')
    >>> c.verify(from_spec("parity"))
    True
    >>> certify("cyclic:5", "rotation2d") is None, certify("dihedral:3", "full") is None
    (True, True)

    With ``affine=True`` the certificate is for the affine recurrence ``h -> A_a h + b_a`` with
    ``A_a`` of ``variant`` (any ``b_a``, any readout fixed or per symbol): only the kinds of
    :func:`affine_kinds`, with the theorems of :data:`AFFINE_THEOREMS`.  The search then ranges over
    single symbols g only (sound; Theorem A2 covers every word g for the diagonal families, which
    the search does not try).

    >>> certify("flipflop:2", "diagonal").kind, certify("flipflop:2", "diagonal", affine=True)
    ('commutation', None)
    >>> certify("cyclic:3", "diagonal", affine=True).kind
    'symbol-period'
    """
    a = _as_automaton(automaton)
    key = (parse_variant(variant).spec, bool(affine))
    done = _searched(a)
    if key not in done:  # a search stopped by a time budget raises and leaves nothing behind
        done[key] = _search(a, *key)
    return done[key]


@per_automaton
def _searched(a: Automaton) -> dict:
    """:func:`certify`'s searches for one automaton, by canonical variant and ``affine``,
    remembered (:func:`~bilinear.constructions.values.memo.per_automaton`: one entry per automaton,
    whatever the variants, so a large automaton's key is held once): ``verify SPEC VARIANT
    --float`` on a cell it does not prove asks once to settle the cell and again for the float
    check's directed witnesses (the search takes 5 s on ``cyclic:1000 rotation2d``).  A
    certificate is frozen, so the callers share it."""
    return {}


def _search(a: Automaton, variant: str, affine: bool) -> Certificate | None:
    """The search of :func:`certify` for a canonical ``variant``."""
    v = parse_variant(variant)
    if affine:
        for kind in affine_kinds(v):
            cert = _symbol_periodic(a, v.spec, kind)
            if cert is not None:
                cert = replace(cert, theorem=AFFINE_THEOREMS[kind])
                if not cert.verify(a):  # pragma: no cover - an internal invariant
                    raise RuntimeError(f"internal error: the affine {kind} certificate for {a.name} does not verify")
                return cert
        return None
    kinds = certifiable_kinds(v)
    for kind in kinds:
        if kind == "commutation":
            cert = _commutation(a, v.spec)
        elif kind in SYMBOL_KINDS:
            cert = _symbol_periodic(a, v.spec, kind)
        else:
            cert = _periodic(a, v.spec, kind)
        if cert is not None:
            if not cert.verify(a):  # pragma: no cover - an internal invariant
                raise RuntimeError(f"internal error: the {kind} certificate for {a.name} does not verify")
            return cert
    return None
