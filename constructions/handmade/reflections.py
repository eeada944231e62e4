"""Constructions for the Householder, monomial and low-rank families (exact, no square roots).

Orthogonal constructions elsewhere in the registry (rotations, dihedral reflections, the
icosahedral rotations) become ``householder:K`` weights by the exact Cartan-Dieudonne split of
:func:`~bilinear.constructions.values.factored.derive_householder` (K = the largest rank(A_a - I)), and
``monomial`` / ``dplr:R`` weights by reading their factors off the matrices.  This module adds
the constructions those cannot give:

``cube`` (S_4, A_4 in d = 3, rotations)
    The rotation group of the cube permutes its four body diagonals t_0 = (1, 1, 1),
    t_1 = (1, -1, -1), t_2 = (-1, 1, -1), t_3 = (-1, -1, 1) as S_4; each permutation is the one
    signed permutation matrix of determinant 1 sending the line of t_i to the line of
    t_sigma(i).  A rotation of R^3 has rank(R - I) <= 2, so K = 2 (Theorem F4 of docs/theory.md);
    signed permutation matrices are monomial, so ``monomial`` needs d = 3 too.
``tetrahedral`` (S_4, A_4 in d = 3, with reflections)
    The symmetry group of the regular tetrahedron {t_i}: sigma is the signed permutation matrix
    with R t_i = t_sigma(i).  A transposition (i j) is the reflection with v = t_i - t_j (K = 1);
    this is the standard representation of S_4 in an orthogonal rational basis.
``triangle`` (S_3, A_3 in d = 2)
    The symmetries of the triangle, entries in Q(zeta_12): transpositions are reflections.
``permutation`` (S_n, A_n in d = n)
    Permutation matrices; a transposition is one reflection (v = e_i - e_j, K = 1), a k-cycle
    needs k - 1.  (The standard representation in d = n - 1 of ``standard`` is orthogonal only
    for a Gram matrix G != I, so ``full`` uses it and ``householder`` uses ``simplex``.)
``simplex`` (S_n, A_n in d = n - 1, orthogonal, entries in Q(zeta_4n))
    The standard representation in an orthonormal basis without square roots of k(k + 1): the
    real Fourier basis of the sum-zero hyperplane, cos(2 pi k j / n) and sin(2 pi k j / n) for
    0 < k < n / 2, and (-1)^j / sqrt 2 when n is even (sqrt 2 = 2 cos(2 pi / 8)).  Its n vectors
    p_j (the rows) are the vertices of a regular simplex: sum_j p_j = 0, p_i . p_j = n/2 (delta_ij
    - 1/n), and sigma is the orthogonal map p_i -> p_sigma(i).  A transposition is one reflection
    (v = p_i - p_j), an n-cycle n - 1: with Theorem F4 this is ``householder`` at the lower bound
    d = n - 1 of every faithful representation (``triangle`` is n = 3).
``reset-projection`` (resets and identities, d = 2, K = 1, beta = 1)
    A reset to v is the orthogonal projection onto a_v = (1, t_v), t_v = v >= 0:
    I - e e^T / (e^T e) with e = (-t_v, 1), mapping h to a_v (a_v . h) / |a_v|^2.  Every
    reachable h is a positive multiple of some a_w, and a_v . a_w = 1 + t_v t_w > 0, so the
    direction of h is a_q for the current state q and the parabola readout of Theorem 10 applies.
    beta = 1 is in [0, 1]: ``householder:1,nonneg`` too.
``signed-cycles`` (Z_m, ``monomial``)
    A signed permutation matrix of order m: one p^e-cycle per odd prime power of m, the factor
    2^a as a 2^(a-1)-cycle with sign -1; d = the sum of those lengths, the least d of Theorem F6
    (Z_4 in d = 2, Z_6 in d = 3, Z_5 in d = 5).
``n-gon`` (D_n, ``monomial``, d = n)
    D_n permuting the vertices of the n-gon.
``rotation-projections`` (Z_3, Z_4, Z_5 and Z_6, ``householder:K,nonneg``, d = 2; Theorem F10)
    Three factors with beta in [0, 1] whose product is a positive multiple of a rotation of order 3
    (Z_3), 4 (Z_4), 5 (Z_5, entries in Q(sqrt 5): :func:`_order_five`) or 6 (Z_6):
    H((0, 1), 47/49) H((25, -7), 674/693) H((1, 2), 195/209) = (2/231) B_3 with
    B_3 = (1/6) [[-10, 19], [-4, 4]] (tr -1, det 1, so B_3^3 = I),
    H((1, 0), 63/64) H((1, 1), 8/9) H((-1, 2), 325/361) = (1/76) B_4 with
    B_4 = (1/456) [[160, 41], [-5696, -160]] (tr 0, det 1, so B_4^2 = -I), and
    H((1, 3), 5/6) H((3, 1), 5/6) H((1, -1), 45/49) = (1/21) B_6 with
    B_6 = (1/28) [[-31, -67], [39, 59]] (tr 1, det 1, so B_6^3 = -I).  The inverse uses the
    perpendicular vectors: H(u, beta)^-1 is a positive multiple of H(u_perp, beta).  A symbol
    adding k is the generator's factors k times (k <= m/2) or the inverse's m - k times, so
    K = 3 max_a min(k_a, m - k_a) <= 3 floor(m/2): 3 for Z_3, at most 6 for Z_4 and Z_5, at most 9
    for Z_6 (3 whenever every symbol adds 0 or +-1, as in ``cycle_navigation:5``).  The readout is Theorem 2's with the invariant
    G = sum_k (B^k)^T B^k.  (The factors were found by a search over small rationals.)
``one-hot-householder`` (every automaton, d = n, K <= n; Theorem F9)
    The one-hot states of the minimal automaton (n states), each reachable hidden vector a
    positive multiple of e_q.  Symbol a with preimages S_p = {q : q.a = p} gets
    ``A_a = sum_p e_p u_p^T``, u_p a unit vector of positive rationals on the coordinates S_p
    ((3/5, 4/5), (1/3, 2/3, 2/3), ...; no square root).  That is a partial isometry: the orthogonal
    projection onto span{u_p} (the |S_p| - 1 rational Gram-Schmidt vectors of each u_p's
    complement, beta = 1) followed by the orthogonal map u_p -> e_p (one exact reflection
    v = x - e_p per p with x != e_p, beta = 2).  K = (n - |image|) + reflections <= n.
``parity-projections`` (2-state groups, d = 2, K = 3, beta = 1)
    With beta in [0, 1] one or two factors per symbol cannot flip a sign (Theorem F2), three can:
    in d = 2, H(v, 1) is the orthogonal projection P_a onto the line a perpendicular to v, and
    P_a P_b P_c a = a (a.b)(b.c)(c.a) / (|a|^2 |b|^2 |c|^2) with a = (1, 0), b = (1, 1),
    c = (-1, 3) is -a / 10.  So parity is ``householder:3,nonneg`` with d = 2.

>>> from bilinear.automata.families import from_spec
>>> w = cube(from_spec("symmetric:4"))
>>> w.dim, sorted({int(abs(x)) for x in w.A.flat})
(3, [0, 1])
>>> parity_projections(from_spec("parity")).variant
'householder:3,nonneg'
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np

from bilinear.errors import ConstructionError

from ..values.memo import minimal, per_automaton
from .orbit import orbit_weights
from .reset import reset_actions
from ..values.weights import Weights, check_entries

__all__ = ["cube", "tetrahedral", "permutation", "reset_projection", "parity_projections", "signed_permutations",
           "onehot_householder", "positive_unit", "rotation_projections", "sign_projections", "SIGN_SCALE",
           "cyclic_monomial", "cyclic_monomial_dim", "dihedral_permutation", "triangle", "simplex", "simplex_vertices"]

#: The most states (of the minimal automaton) ``one-hot-householder`` builds: its exact factors
#: take O(n^3) rational operations per symbol (3.6 s for a 62-state random automaton with three
#: symbols, 15 s for S_5's 120 states, on one core).
ONE_HOT_HOUSEHOLDER_MAX_STATES = 64

#: The largest N of ``simplex`` (its field is Q(zeta_4N), of degree phi(4N); S_N has N! states).
SIMPLEX_MAX_N = 8

_DIAGONALS = np.array([[1, 1, 1], [1, -1, -1], [-1, 1, -1], [-1, -1, 1]], dtype=np.int64)


def _generators(automaton) -> list[tuple[int, ...]]:
    """One permutation per symbol of a ``symmetric:N`` / ``alternating:N`` spec."""
    from bilinear.automata.families import parse_cycles

    spec = automaton.spec
    if spec is None or spec.is_product or spec.family not in ("symmetric", "alternating"):
        raise ConstructionError(f"{automaton.name or 'automaton'}: needs a symmetric or alternating spec")
    n = int(spec.param("N"))
    return [parse_cycles(symbol, n) for symbol in automaton.symbols]


def signed_permutations(d: int) -> list[np.ndarray]:
    """All 2^d d! signed permutation matrices of size d (integer entries)."""
    out = []
    for perm in itertools.permutations(range(d)):
        for signs in itertools.product((1, -1), repeat=d):
            M = np.zeros((d, d), dtype=np.int64)
            for j, (i, s) in enumerate(zip(perm, signs)):
                M[i, j] = s
            out.append(M)
    return out


def _tetra_matrix(sigma, rotation: bool) -> np.ndarray:
    for M in signed_permutations(3):
        if rotation:
            if round(np.linalg.det(M)) != 1:
                continue
            if all(any((M @ _DIAGONALS[i] == s * _DIAGONALS[sigma[i]]).all() for s in (1, -1)) for i in range(4)):
                return M
        elif all((M @ _DIAGONALS[i] == _DIAGONALS[sigma[i]]).all() for i in range(4)):
            return M
    raise ConstructionError(f"no signed permutation matrix realises {sigma}")  # pragma: no cover


def _four(automaton, rotation: bool) -> Weights:
    gens = _generators(automaton)
    if len(gens[0]) != 4:
        raise ConstructionError(f"{automaton.name}: the cube and the tetrahedron realise S_4 and A_4 only")
    A = np.stack([_tetra_matrix(g, rotation) for g in gens]).astype(object)
    h0 = np.array([1, 2, 4], dtype=object)  # distinct non-zero |coordinates|: trivial stabiliser
    return orbit_weights(automaton, "full", A, h0)


def cube(automaton) -> Weights:
    """S_4 / A_4 as the rotations of the cube (d = 3, signed permutation matrices, det 1)."""
    return _four(automaton, rotation=True)


def tetrahedral(automaton) -> Weights:
    """S_4 / A_4 as the symmetries of the tetrahedron (d = 3; transpositions are reflections)."""
    return _four(automaton, rotation=False)


def permutation(automaton) -> Weights:
    """S_n / A_n by n x n permutation matrices, h0 = (0, 1, ..., n - 1) (trivial stabiliser)."""
    gens = _generators(automaton)
    n = len(gens[0])
    A = np.zeros((len(gens), n, n), dtype=object)
    A[...] = 0
    for s, g in enumerate(gens):
        for i in range(n):
            A[s, g[i], i] = 1
    return orbit_weights(automaton, "full", A, np.arange(n).astype(object))


def reset_projection(automaton) -> Weights:
    """Resets as orthogonal projections (``householder:1,nonneg``, d = 2; module docstring)."""
    m, targets = reset_actions(automaton)
    k = automaton.n_symbols
    V = np.zeros((k, 1, 2), dtype=object)
    beta = np.zeros((k, 1), dtype=object)
    A = np.zeros((k, 2, 2), dtype=object)
    for s, v in enumerate(targets):
        if v < 0:
            V[s, 0], beta[s, 0] = [1, 0], 0
        else:
            V[s, 0], beta[s, 0] = [-v, 1], 1
    from ..values.factored import householder_compose

    A = householder_compose(V, beta)
    t0 = int(m.start)
    h0 = np.array([1, t0], dtype=object)
    readout = np.zeros((automaton.n_classes, 2), dtype=object)
    readout[:, 0] = -1
    for q in range(m.n_states):
        readout[int(m.labels[q])] = [-q * q, 2 * q]
    return Weights("householder:1,nonneg", A, h0, readout, (V, beta))


def parity_projections(automaton) -> Weights:
    """A two-state group automaton with beta in [0, 1]: ``householder:3,nonneg``, d = 2."""
    from ..values.factored import householder_compose

    label = automaton.name or "automaton"
    if automaton.n_states != 2 or len(set(automaton.labels.tolist())) != 2:
        raise ConstructionError(f"{label}: the projection flip needs two states with two classes")
    k = automaton.n_symbols
    flip = [[0, 1], [-1, 1], [-3, -1]]  # perpendicular to a, b, c: H(v, 1) projects onto v's complement
    V = np.zeros((k, 3, 2), dtype=object)
    beta = np.zeros((k, 3), dtype=object)
    for s in range(k):
        row = automaton.delta[s]
        if row[0] == row[1]:
            raise ConstructionError(f"{label}: symbol {automaton.symbols[s]!r} merges the two states")
        swaps = int(row[0]) == 1
        for j in range(3):
            V[s, j] = flip[j] if swaps else [0, 1]
            beta[s, j] = 1 if swaps else 0
    A = householder_compose(V, beta)
    q0 = int(automaton.start)
    h0 = np.array([1, 0], dtype=object)
    readout = np.zeros((automaton.n_classes, 2), dtype=object)
    readout[int(automaton.labels[q0])] = [1, 0]
    readout[int(automaton.labels[1 - q0])] = [-1, 0]
    return Weights("householder:3,nonneg", A, h0, readout, (V, beta))


#: Theorem F10: per order m, the factors (v, beta) of a positive multiple of a rotation of
#: order m with beta in [0, 1], and that rotation B at unit scale (det B = 1); rational for
#: m = 3, 4, 6, in Q(zeta_5) for m = 5 (:func:`_order_five`).
ROTATION_FACTORS = {
    3: (((0, 1), Fraction(47, 49)), ((25, -7), Fraction(674, 693)), ((1, 2), Fraction(195, 209))),
    4: (((1, 0), Fraction(63, 64)), ((1, 1), Fraction(8, 9)), ((-1, 2), Fraction(325, 361))),
    6: (((1, 3), Fraction(5, 6)), ((3, 1), Fraction(5, 6)), ((1, -1), Fraction(45, 49))),
}
ROTATIONS = {
    3: ((Fraction(-10, 6), Fraction(19, 6)), (Fraction(-4, 6), Fraction(4, 6))),
    4: ((Fraction(20, 57), Fraction(41, 456)), (Fraction(-712, 57), Fraction(-20, 57))),
    6: ((Fraction(-31, 28), Fraction(-67, 28)), (Fraction(39, 28), Fraction(59, 28))),
}


def _order_five() -> None:
    """Theorem F10 (order 5): Z_5 from three factors with beta in [0, 1] and entries in Q(sqrt 5).

    With ``H_1 = H((2, 1), 5/6)`` and ``H_2 = H((2, -1), 5/6)``, ``N = H_1 H_2 = [[0, -1/6],
    [1/6, 7/12]]``; ``H_3 = H((0, 1), 1 - r) = diag(1, r)`` with ``r = (6 - 2 sqrt 5) / 49 =
    ((sqrt 5 - 1) / 7)^2``.  ``M = N H_3`` has ``det M = r / 36`` and ``tr M = 7 r / 12``, so
    ``M / sqrt(det M)`` (``sqrt(det M) = (sqrt 5 - 1) / 42``) has trace ``(sqrt 5 - 1) / 2 =
    2 cos(2 pi / 5)`` and determinant 1: a rotation of order 5 up to conjugation.  ``sqrt 5 = 1 +
    2 (zeta_5 + zeta_5^4)``, so every entry lies in Q(zeta_5)."""
    from ..exact.field import CyclotomicField

    zeta = CyclotomicField(5).zeta
    sqrt5 = 1 + 2 * (zeta(1) + zeta(4))
    ROTATION_FACTORS[5] = (((2, 1), Fraction(5, 6)), ((2, -1), Fraction(5, 6)), ((0, 1), (43 + 2 * sqrt5) / 49))
    ROTATIONS[5] = ((Fraction(0), (1 - sqrt5) / 7), (7 * (sqrt5 + 1) / 4, (sqrt5 - 1) / 2))


_order_five()


def _cyclic_action(automaton) -> tuple[int, tuple[int, ...]]:
    """``(m, k)`` as :func:`~.rotation.cyclic_exponents`, products of cyclic groups included (read
    from the algebra: ``cyclic:2*cyclic:3`` is Z_6)."""
    from bilinear.automata.groups import RegularGroup, cyclic_presentation

    from .rotation import cyclic_exponents

    try:
        return cyclic_exponents(automaton)
    except ConstructionError:
        found = cyclic_presentation(RegularGroup.of(automaton))
        if found is None:
            raise
        return found


#: Theorem F12: ``(H_1 H_2 H_3)^2 = SIGN_SCALE * (-I)`` for the three factors of order 4 in
#: :data:`ROTATION_FACTORS` (``H_1 H_2 H_3 = B_4 / 76`` and ``B_4^2 = -I``).
SIGN_SCALE = Fraction(1, 76 * 76)


def sign_projections(automaton) -> Weights:
    """An elementary abelian 2-group (every element of order <= 2: parity, ``cyclic:2*cyclic:2``,
    ...) as ``householder:K,nonneg``: Theorem F12 of docs/theory.md.

    The ``full`` abelian construction gives each symbol a diagonal sign matrix (d = the number of
    invariant factors).  When some symbol has an odd number of -1 signs one coordinate is added
    (h0 and the readout 0 there), and that symbol's sign there is -1, so every sign matrix has
    an even number of -1 entries.  The -1 coordinates are paired; on each pair's coordinate plane
    the three order-4 factors of Theorem F10 applied twice give ``SIGN_SCALE * (-I)`` (six factors,
    beta in [0, 1), identity off the plane), and each +1 coordinate is scaled by ``SIGN_SCALE`` with
    one more factor ``H(e_m, 1 - SIGN_SCALE)``.  So each symbol's matrix is ``SIGN_SCALE`` times its
    sign matrix (the identity with no factor), and the predictions are the sign construction's.
    K = 6 x (pairs) + (+1 coordinates) for the symbol that needs most, the others padded with
    beta = 0.

    >>> from bilinear.automata import from_spec
    >>> w = sign_projections(from_spec("cyclic:2*cyclic:2"))
    >>> w.variant, w.dim, [sorted(set(w.A[s].diagonal().tolist())) for s in range(4)][1]
    ('householder:7,nonneg', 3, [Fraction(-1, 5776), Fraction(1, 5776)])
    """
    from .abelian import abelian_full
    from ..values.factored import householder_compose

    label = automaton.name or "automaton"
    base = abelian_full(automaton)
    k, d0 = base.n_symbols, base.dim
    signs = []
    for s in range(k):
        M = base.A[s]
        diag = [M[i, i] for i in range(d0)]
        if any(M[i, j] != 0 for i in range(d0) for j in range(d0) if i != j) or any(x not in (1, -1) for x in diag):
            raise ConstructionError(f"{label}: symbol {automaton.symbols[s]!r} is not a sign matrix in the abelian "
                                    "construction (an invariant factor above 2): sign-projections needs every "
                                    "element of order at most 2")
        signs.append([int(x) for x in diag])
    extra = any(row.count(-1) % 2 for row in signs)
    d = d0 + (1 if extra else 0)
    if extra:
        signs = [row + ([-1] if row.count(-1) % 2 else [1]) for row in signs]
    order4 = ROTATION_FACTORS[4]
    factors: list[list[tuple[list, Fraction]]] = []
    for row in signs:
        minus = [i for i, x in enumerate(row) if x == -1]
        mine: list[tuple[list, Fraction]] = []
        if minus:
            for p, q in zip(minus[0::2], minus[1::2]):
                for v, b in order4 + order4:  # (H_1 H_2 H_3)^2 on the plane of p and q
                    vec = [0] * d
                    vec[p], vec[q] = v[0], v[1]
                    mine.append((vec, b))
            for m in (i for i, x in enumerate(row) if x == 1):
                vec = [0] * d
                vec[m] = 1
                mine.append((vec, 1 - SIGN_SCALE))
        factors.append(mine)
    K = max(1, max(len(f) for f in factors))
    V = np.zeros((k, K, d), dtype=object)
    V[...] = 0
    beta = np.zeros((k, K), dtype=object)
    beta[...] = 0
    for s, mine in enumerate(factors):
        for j in range(K):
            if j < len(mine):
                V[s, j] = mine[j][0]
                beta[s, j] = mine[j][1]
            else:
                V[s, j, 0] = 1  # an identity factor (beta = 0)
    A = householder_compose(V, beta)
    h0 = np.zeros(d, dtype=object)
    h0[...] = 0
    h0[:d0] = base.h0
    readout = np.zeros((base.n_classes, d), dtype=object)
    readout[...] = 0
    readout[:, :d0] = base.readout
    return Weights(f"householder:{K},nonneg", A, h0, readout, (V, beta))


def rotation_projections(automaton) -> Weights:
    """Z_3, Z_4, Z_5 and Z_6 as ``householder:K,nonneg`` with d = 2 (Theorem F10 of docs/theory.md): the
    generator is three factors with beta in [0, 1] (:data:`ROTATION_FACTORS`), its inverse the
    same betas on the perpendicular vectors in reverse order; a symbol adding k is k generators
    or m - k inverses; K = 3 max over the symbols of min(k, m - k)."""
    from ..values.factored import householder_compose, positive_multiple

    label = automaton.name or "automaton"
    m, exponents = _cyclic_action(automaton)
    if m not in ROTATION_FACTORS:
        raise ConstructionError(f"{label}: rotations from factors with beta in [0, 1] are known for Z_3, Z_4, Z_5 "
                                f"and Z_6, the group is Z_{m}")
    forward = [(list(v), b) for v, b in ROTATION_FACTORS[m]]
    backward = [([-v[1], v[0]], b) for v, b in reversed(ROTATION_FACTORS[m])]  # H(u, b)^-1 ~ H(u_perp, b)
    K = 3 * max(min(e % m, -e % m) for e in exponents)  # the most generators or inverses a symbol takes
    k = len(exponents)
    V = np.zeros((k, K, 2), dtype=object)
    beta = np.zeros((k, K), dtype=object)
    B = np.array(ROTATIONS[m], dtype=object)
    powers = [np.array([[Fraction(1), Fraction(0)], [Fraction(0), Fraction(1)]], dtype=object)]  # B^0 .. B^(m-1)
    for _ in range(m - 1):
        powers.append(B @ powers[-1])
    for a, e in enumerate(exponents):
        e %= m
        chosen = forward * e if e <= m // 2 else backward * (m - e)
        chosen = chosen + [([1, 0], Fraction(0))] * (K - len(chosen))  # identity factors: beta = 0
        for j, (v, b) in enumerate(chosen):
            V[a, j], beta[a, j] = [Fraction(x) for x in v], b
    A = householder_compose(V, beta)
    for a, e in enumerate(exponents):  # each symbol is a positive multiple of its power of B
        if not positive_multiple(A[a], powers[e % m]):
            raise ConstructionError(f"{label}: symbol {automaton.symbols[a]!r} is not a positive multiple "
                                    f"of B^{e % m}")  # pragma: no cover - the theorem's identities
    G = sum(P.T @ P for P in powers)  # B preserves <x, y>_G (B^m = I)
    h0 = np.array([Fraction(1), Fraction(0)], dtype=object)
    # Theorem 2's readout from the unit-scale walk (the symbols are positive multiples of it)
    unit = orbit_weights(automaton, "full", np.stack([powers[e % m] for e in exponents]), h0, gram=G)
    return Weights(f"householder:{K},nonneg", A, h0, unit.readout, (V, beta))

def positive_unit(m: int) -> list:
    """A unit vector of ``m`` positive rationals (exact, no square root): (1); (1/3, 2/3, 2/3) for
    m = 3; else (3/5 x, 4/5 y) for x, y those of the two halves (3^2 + 4^2 = 5^2).

    >>> [str(x) for x in positive_unit(2)], [str(x) for x in positive_unit(4)]
    (['3/5', '4/5'], ['9/25', '12/25', '12/25', '16/25'])
    >>> all(sum(x * x for x in positive_unit(m)) == 1 for m in range(1, 40))
    True
    """
    if m < 1:
        raise ConstructionError(f"a unit vector needs at least one coordinate, got {m}")
    if m == 1:
        return [Fraction(1)]
    if m == 3:
        return [Fraction(1, 3), Fraction(2, 3), Fraction(2, 3)]
    a = m // 2
    return [Fraction(3, 5) * x for x in positive_unit(a)] + [Fraction(4, 5) * x for x in positive_unit(m - a)]


def _isometry_factors(f, n: int):
    """``(A, V, beta)`` for the map q -> f[q] on n one-hot states: ``A = sum_p e_p u_p^T`` and its
    factors, the reflections first (they act last), then the projections (module docstring).

    The vectors are FLINT rational columns (``fmpq_mat``, n x 1) and each ``v . v`` is computed
    once: exact rationals, so the same factors as Fractions would give, in C (the
    ``modular_arithmetic:3`` cells' 25 states: about 20x faster); handed back as Fractions."""
    import flint

    from ..values.linalg import fraction_vector

    A = np.zeros((n, n), dtype=object)
    A[...] = Fraction(0)
    units, projections = {}, []
    for p in sorted(set(int(x) for x in f)):
        pre = [q for q in range(n) if int(f[q]) == p]
        u = flint.fmpq_mat(n, 1)
        for q, c in zip(pre, positive_unit(len(pre))):
            u[q, 0] = flint.fmpq(c.numerator, c.denominator)
            A[p, q] = c
        units[p] = u
        basis: list = []  # (w, w . w)
        for q in pre[1:]:  # rational Gram-Schmidt of u's complement within the coordinates pre
            w = u * (-u[q, 0])
            w[q, 0] += 1
            for b, bb in basis:
                w = w - b * ((b.transpose() * w)[0, 0] / bb)
            basis.append((w, (w.transpose() * w)[0, 0]))
        projections += [w for w, _ in basis]
    reflections: list = []  # (v, v . v), applied in this order
    for p, u in units.items():
        x = u
        for v, vv in reflections:
            x = x - v * (2 * (v.transpose() * x)[0, 0] / vv)
        target = flint.fmpq_mat(n, 1)
        target[p, 0] = 1
        if x != target:
            v = x - target
            reflections.append((v, (v.transpose() * v)[0, 0]))

    V = [fraction_vector(v) for v, _ in reflections[::-1]] + [fraction_vector(w) for w in projections]
    beta = [Fraction(2)] * len(reflections) + [Fraction(1)] * len(projections)
    return A, V, beta


@per_automaton
def onehot_householder(automaton) -> Weights:
    """Every automaton as ``householder:K`` with d = n (the states of its minimal automaton) and
    K <= n: one-hot states, each symbol a partial isometry (Theorem F9 of docs/theory.md)."""
    m = minimal(automaton)
    n, k = m.n_states, m.n_symbols
    label = automaton.name or "automaton"
    if n > ONE_HOT_HOUSEHOLDER_MAX_STATES:
        raise ConstructionError(f"{label}: its minimal automaton has {n:,} states, over the "
                                f"{ONE_HOT_HOUSEHOLDER_MAX_STATES} the one-hot-householder construction builds "
                                "(ONE_HOT_HOUSEHOLDER_MAX_STATES, bilinear.constructions.handmade.reflections)")
    check_entries("one-hot-householder", label, k, n)
    built = [_isometry_factors(m.delta[s], n) for s in range(k)]
    K = max([1] + [len(V) for _, V, _ in built])
    Vs = np.zeros((k, K, n), dtype=object)
    Vs[...] = Fraction(0)
    betas = np.zeros((k, K), dtype=object)
    betas[...] = Fraction(0)
    for s, (_, V, beta) in enumerate(built):
        for j in range(K):
            if j < len(V):
                Vs[s, j], betas[s, j] = V[j], beta[j]
            else:  # identity factors: beta = 0
                Vs[s, j, 0] = Fraction(1)
    A = np.stack([a for a, _, _ in built])
    h0 = np.zeros(n, dtype=object)
    h0[:] = 0
    h0[int(m.start)] = 1
    readout = np.zeros((m.n_classes, n), dtype=object)
    readout[...] = 0
    readout[m.labels, np.arange(n)] = 1
    return Weights(f"householder:{K}", A, h0, readout, (Vs, betas))


def _cycle_blocks(m: int) -> list[tuple[int, int]]:
    """``(length, sign)`` blocks of a signed cyclic permutation of order m: a p^e-cycle per odd
    prime power, the 2-part 2^a as a 2^(a-1)-cycle with sign -1 (a = 1: the sign rides on an
    odd block, or a 1 x 1 block -1).  Total length = the bound of Theorem F6.

    >>> _cycle_blocks(12), _cycle_blocks(6), _cycle_blocks(8), _cycle_blocks(2)
    ([(2, -1), (3, 1)], [(3, -1)], [(4, -1)], [(1, -1)])
    """
    blocks, rest, p, a = [], m, 3, 0
    while rest % 2 == 0:
        rest, a = rest // 2, a + 1
    while rest > 1:
        if rest % p == 0:
            q = 1
            while rest % p == 0:
                rest, q = rest // p, q * p
            blocks.append((q, 1))
        p += 2
    if a >= 2:
        blocks.insert(0, (2 ** (a - 1), -1))
    elif a == 1:
        if blocks:
            blocks[0] = (blocks[0][0], -1)
        else:
            blocks.append((1, -1))
    return blocks or [(1, 1)]


def _cyclic_presentation(automaton) -> tuple:
    """``(m, exponents)``: the automaton as Z_m, each symbol adding its exponent (a product that
    is cyclic, Z_2 x Z_3, recognised from the algebra); ConstructionError otherwise."""
    from .rotation import cyclic_exponents

    try:
        return cyclic_exponents(automaton)
    except ConstructionError:
        from bilinear.automata.groups import RegularGroup, cyclic_presentation

        found = cyclic_presentation(RegularGroup.of(automaton))
        if found is None:
            raise
        return found


def cyclic_monomial_dim(automaton) -> int:
    """The d of :func:`cyclic_monomial`, read off the group's order before anything is built (the
    registry compares it with the d already found: ``cyclic:1000 rotation2d`` spent 5 s building
    a d = 133 monomial construction that could not beat the rotation's d = 2).

    >>> from bilinear.automata.families import from_spec
    >>> cyclic_monomial_dim(from_spec("cyclic:12")), cyclic_monomial(from_spec("cyclic:12")).dim
    (5, 5)
    """
    return sum(n for n, _ in _cycle_blocks(_cyclic_presentation(automaton)[0]))


def cyclic_monomial(automaton) -> Weights:
    """Z_m by a signed permutation matrix of order m in the least d Theorem F6 allows
    (:func:`_cycle_blocks`), h0 with distinct entries per block (trivial stabiliser)."""
    m, exponents = _cyclic_presentation(automaton)
    blocks = _cycle_blocks(m)
    d = sum(n for n, _ in blocks)
    g = np.zeros((d, d), dtype=np.int64)
    start = 0
    for n, sign in blocks:
        for k in range(n):
            g[start + (k + 1) % n, start + k] = sign if k == n - 1 else 1
        start += n
    A = np.stack([np.linalg.matrix_power(g, k) for k in exponents]).astype(object)
    h0 = np.concatenate([np.arange(1, n + 1) for n, _ in blocks]).astype(object)
    return orbit_weights(automaton, "monomial", A, h0)


def dihedral_permutation(automaton) -> Weights:
    """D_n permuting the n vertices of the n-gon (``monomial``, d = n): ``r^i s^j`` acts as
    S^j R^-i with R: e_k -> e_(k+1), S: e_k -> e_(-k), as :func:`~bilinear.constructions.handmade.dihedral.dihedral_block`."""
    from .dihedral import dihedral_exponents

    n, exponents = dihedral_exponents(automaton)
    if n < 3:
        raise ConstructionError(f"{automaton.name}: the n-gon needs n >= 3")
    R = np.zeros((n, n), dtype=np.int64)
    S = np.zeros((n, n), dtype=np.int64)
    for k in range(n):
        R[(k + 1) % n, k] = 1
        S[(-k) % n, k] = 1
    Rinv = R.T
    A = np.stack([np.linalg.matrix_power(S, j) @ np.linalg.matrix_power(Rinv, i) for i, j in exponents]).astype(object)
    h0 = np.array([0, 1] + [3 + k for k in range(n - 2)], dtype=object)
    return orbit_weights(automaton, "monomial", A, h0)


def triangle(automaton) -> Weights:
    """S_3 / A_3 as the symmetries of the triangle (d = 2, orthogonal, entries in Q(zeta_12)):
    sigma is the linear map sending the vertex p_i = (cos, sin)(2 pi i / 3) to p_sigma(i),
    ``[p_sigma(0) p_sigma(1)] [p_0 p_1]^-1``; a transposition is one reflection, a 3-cycle a
    rotation (two).  h0 = (3, 1) is on no reflection axis: trivial stabiliser."""
    from ..exact.field import cos2pi, sin2pi

    gens = _generators(automaton)
    if len(gens[0]) != 3:
        raise ConstructionError(f"{automaton.name}: the triangle realises S_3 and A_3 only")
    p = [(cos2pi(i, 3), sin2pi(i, 3)) for i in range(3)]
    c, s = p[1]
    inv = np.array([[1, -c / s], [0, 1 / s]], dtype=object)  # [p_0 p_1]^-1, p_0 = (1, 0)
    A = []
    for g in gens:
        img = np.array([[p[g[0]][0], p[g[1]][0]], [p[g[0]][1], p[g[1]][1]]], dtype=object)
        A.append(img.dot(inv))
    return orbit_weights(automaton, "full", np.stack(A), np.array([3, 1], dtype=object))


def simplex_vertices(n: int) -> np.ndarray:
    """The n vertices p_0..p_{n-1} (rows, exact) of a regular simplex centred at 0 in R^(n-1):
    the real Fourier basis of the sum-zero hyperplane of R^n, cos(2 pi k j / n), sin(2 pi k j / n)
    for 0 < k < n / 2 and, for even n, (-1)^j cos(2 pi / 8) = (-1)^j / sqrt 2.  Its columns are
    orthogonal with squared norm n / 2 and sum to zero over j.

    >>> P = simplex_vertices(4)
    >>> P.shape, [float(x) for x in P[1]]
    ((4, 3), [0.0, 1.0, -0.7071067811865476])
    >>> G = P.T.dot(P); bool(all(G[a, b] == (2 if a == b else 0) for a in range(3) for b in range(3)))
    True
    """
    from ..exact.field import cos2pi, sin2pi

    if not 2 <= n <= SIMPLEX_MAX_N:
        raise ConstructionError(f"the simplex construction takes n in 2..{SIMPLEX_MAX_N}, got {n}")
    cols = []
    for k in range(1, (n + 1) // 2):
        cols.append([cos2pi(k * j, n) for j in range(n)])
        cols.append([sin2pi(k * j, n) for j in range(n)])
    if n % 2 == 0:
        half = cos2pi(1, 8)  # 1 / sqrt 2
        cols.append([half if j % 2 == 0 else -half for j in range(n)])
    P = np.empty((n, n - 1), dtype=object)
    for b, col in enumerate(cols):
        for j in range(n):
            P[j, b] = col[j]
    return P


def simplex(automaton) -> Weights:
    """S_n / A_n as the symmetries of the regular simplex of :func:`simplex_vertices` (d = n - 1,
    orthogonal, entries in Q(zeta_4n)): sigma is ``M = (2/n) sum_i p_sigma(i) p_i^T``, which sends
    p_i to p_sigma(i) (sum_k p_k p_k^T = (n/2) I and p_k . p_i = n/2 (delta_ki - 1/n), sum_k p_k = 0);
    h0 = sum_j j p_j (distinct weights: a permutation fixing it fixes every j, trivial stabiliser)."""
    from fractions import Fraction

    gens = _generators(automaton)
    n = len(gens[0])
    P = simplex_vertices(n)
    A = []
    for g in gens:
        M = np.empty((n - 1, n - 1), dtype=object)
        M[:] = 0
        for i in range(n):
            M = M + np.outer(P[g[i]], P[i])
        A.append(M * Fraction(2, n))
    h0 = np.empty(n - 1, dtype=object)
    h0[:] = 0
    for j in range(n):
        h0 = h0 + P[j] * j
    return orbit_weights(automaton, "full", np.stack(A), h0)
