"""The gauge snap's steps (docs/theory.md, Theorem 22) against values computed by hand: the
coordinates that persist against the transformation semigroup enumerated by brute force, the
scales, basis, snapped entries, start state, readout and distances of small networks gauged by
hand, the limits at their boundaries, and the seeded gauge of :func:`regauged`."""

from __future__ import annotations

import cmath
import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from bilinear.constructions.horizon import gauge
from bilinear.constructions.horizon.gauge import gauge_snap, persistent_coordinates, regauged
from bilinear.constructions.values.factored import monomial_compose
from bilinear.constructions.values.weights import Weights
from bilinear.errors import WeightsError


def _network(perm, z, h0, R, complex_: bool) -> Weights:
    """Float ``monomial`` (or ``monomial,complex``) weights with entries ``z[a, j]`` (coordinate j of
    symbol a goes to ``perm[a, j]``), start state ``h0`` and readout ``R`` (real coordinates)."""
    perm = np.asarray(perm, dtype=np.int64)
    z = np.asarray(z, dtype=complex)
    D = np.stack([z.real, z.imag], axis=2).reshape(z.shape[0], -1) if complex_ else z.real.copy()
    A = monomial_compose(perm, D, exact=False, complex_=complex_)
    return Weights("monomial,complex" if complex_ else "monomial", A, np.asarray(h0, dtype=float),
                   np.asarray(R, dtype=float), factors=(perm, D))


def _entries(w: Weights) -> np.ndarray:
    """The entries of ``D`` as complex numbers (floats of the exact ones)."""
    D = np.array([[complex(x) for x in row] for row in w.factors[1]])
    return D[:, 0::2] + 1j * D[:, 1::2] if w.variant_info.complex else D


# --- the coordinates that persist: brute force over the transformation semigroup -------------------

def _semigroup(perm) -> set[tuple[int, ...]]:
    """Every product of one or more symbols' maps (tuples: point j goes to map[j])."""
    gens = [tuple(int(x) for x in row) for row in perm]
    maps, queue = set(gens), list(gens)
    while queue:
        f = queue.pop()
        for g in gens:
            h = tuple(g[f[x]] for x in range(len(f)))  # f, then g
            if h not in maps:
                maps.add(h)
                queue.append(h)
    return maps


def _brute(perm) -> tuple[int, tuple[int, ...], int]:
    """``(r, M, N)``: the minimal rank, the union of the minimal images and their number."""
    maps = _semigroup(perm)
    r = min(len(set(m)) for m in maps)
    images = {frozenset(m) for m in maps if len(set(m)) == r}
    return r, tuple(sorted(set().union(*images))), len(images)


def _tables():
    rng = np.random.default_rng(2024)
    for _ in range(60):
        n, k = int(rng.integers(2, 6)), int(rng.integers(1, 4))
        rows = [rng.permutation(n) if rng.random() < 0.5 else rng.integers(0, n, size=n) for _ in range(k)]
        yield np.array(rows)


def test_the_persistent_coordinates_are_the_union_of_the_minimal_images_by_brute_force() -> None:
    """(r, M) equals the minimal rank and the union of the images of that rank, over every product
    of the symbols' maps, for 60 random tables (permutations and merging maps mixed)."""
    seen_long = 0
    for perm in _tables():
        r, M, _ = _brute(perm)
        assert persistent_coordinates(perm) == (r, M), perm.tolist()
        seen_long += r < perm.shape[1]
    assert seen_long >= 20  # many tables merge points


def test_a_pair_merged_only_by_a_word_of_three_symbols() -> None:
    """Points 0 and 1 merge only after a rotation brings them onto the pair that symbol 1 merges:
    no single symbol and no word of two merges {0, 1} (checked here), yet the rank is 1."""
    perm = np.array([[1, 2, 3, 0], [0, 1, 2, 2]])  # symbol 0 rotates, symbol 1 merges 2 and 3 into 2
    for word in itertools.chain.from_iterable(itertools.product(range(2), repeat=n) for n in (1, 2)):
        pts = [0, 1]
        for a in word:
            pts = [int(perm[a, j]) for j in pts]
        assert pts[0] != pts[1]
    assert persistent_coordinates(perm) == _brute(perm)[:2] == (1, (0, 1, 2, 3))


def test_the_limit_on_minimal_images_holds_at_exactly_the_count() -> None:
    """With exactly as many minimal images as the limit the coordinates are returned; one fewer
    allowed and WeightsError names the limit.  Here the 4 minimal images are the single points, reached
    from one another only through several steps of the rotation."""
    perm = np.array([[1, 2, 3, 0], [0, 0, 2, 3]])
    r, M, count = _brute(perm)
    assert (r, M, count) == (1, (0, 1, 2, 3), 4)
    assert persistent_coordinates(perm, limit=count) == (1, (0, 1, 2, 3))
    with pytest.raises(WeightsError, match="more than 3 images of minimal rank"):
        persistent_coordinates(perm, limit=count - 1)
    for perm in _tables():
        _, M, count = _brute(perm)
        assert persistent_coordinates(perm, limit=count)[1] == M
        if count > 1:
            with pytest.raises(WeightsError):
                persistent_coordinates(perm, limit=count - 1)


# --- a real network gauged by hand ----------------------------------------------------------------

#: symbol 0 swaps 0 and 1 and sends 2 to 0; symbol 1 keeps 0 and 1 and sends 2 to 1: M = (0, 1)
PERM = [[1, 0, 0], [0, 1, 1]]
UNITS = np.array([[1.0, -1.0, 0.3], [-1.0, 1.0, 0.2]])  # column 2 never persists: any entries
SCALES = np.array([1.5, 0.7])
G_REAL = np.array([2.0, -0.5, 3.0])


def _real_network(h0=(1.0, 2.0, 3.0)) -> Weights:
    perm = np.array(PERM)
    z = SCALES[:, None] * UNITS * G_REAL[None, :] / G_REAL[perm]  # entries G^-1 A G, as regauged() makes
    return _network(perm, z, h0, [[1.0, 1.0, 1.0], [0.0, 2.0, -1.0]], False)


def test_a_real_network_gauged_by_hand_is_snapped_back_exactly() -> None:
    """The scales are 1 / 1.5 and 1 / 0.7; the gauge has moduli 1 / |G| over their geometric mean
    on M ((0.5, 2), coordinate 2 untouched) and the spanning forest's edge 0 -> 1 of symbol 0
    (entry c z = -4) gauged to +1, so P = diag(1/2, -2, 1); the snapped entries are then +1 on that
    edge, the 2-cycle's product -1 on the other, symbol 1's loops -1 and +1, column 2 zero."""
    s = gauge_snap(_real_network())
    assert s.scale == pytest.approx((1 / 1.5, 1 / 0.7), rel=1e-13)
    assert s.basis.tolist() == [[Fraction(1, 2), 0, 0], [0, Fraction(-2), 0], [0, 0, 1]]
    assert s.block_weights.factors[0].tolist() == PERM
    assert s.block_weights.factors[1].tolist() == [[1, -1, 0], [-1, 1, 0]]
    # P^-1 h0 = (2, -1, 3) on M, divided by its largest |.|: (1, -1/2), 0 off M
    assert list(s.block_weights.h0) == [1, Fraction(-1, 2), 0]
    # R P = [[1/2, -2, 1], [0, -4, -1]], divided by the largest |.| on M (4), 0 off M
    assert s.block_weights.readout.tolist() == [[Fraction(1, 8), Fraction(-1, 2), 0], [0, -1, 0]]
    # the dropped column is the whole distance: c A = [-4, 1/4, 9/20] and [-1, 1, -6/5] by column
    assert s.distance == pytest.approx((0.45 / math.sqrt(16 + 0.0625 + 0.2025), 1.2 / math.sqrt(3.44)), rel=1e-6)
    assert s.blocks == ((0, 1), (2,)) and s.kept == (0,) and s.isometric
    assert s.rule == ("the factors in a fixed gauge (the 2 coordinates that persist, rank 2; "
                      "entries to +1 or -1)")


def test_a_real_loop_with_a_positive_and_a_negative_sign() -> None:
    """One coordinate, three symbols whose loops are 3, -0.5 and 2 (scales 1/3, 2, 1/2): each loop
    closes a cycle of its own, snapped to its sign exactly: +1, -1, +1."""
    w = _network([[0], [0], [0]], [[3.0], [-0.5], [2.0]], [1.0], [[1.0], [-1.0]], False)
    s = gauge_snap(w)
    assert s.block_weights.factors[1].tolist() == [[1], [-1], [1]]
    assert s.scale == pytest.approx((1 / 3, 2.0, 0.5), rel=1e-13) and s.distance == (0.0, 0.0, 0.0)
    assert s.basis.tolist() == [[1]]


def test_the_start_state_must_reach_a_coordinate_that_persists() -> None:
    """A start state on coordinate 2 alone (never reached again) has nothing to keep."""
    with pytest.raises(WeightsError, match="no component on the coordinates that persist"):
        gauge_snap(_real_network(h0=(0.0, 0.0, 5.0)))


def test_a_zero_entry_on_a_coordinate_that_persists_is_named() -> None:
    """A zero on M is refused by name; a zero off M (coordinate 2) is dropped with it."""
    perm = np.array(PERM)
    z = SCALES[:, None] * UNITS * G_REAL[None, :] / G_REAL[perm]
    z[1, 2] = 0.0
    assert gauge_snap(_network(perm, z, (1.0, 2.0, 3.0), [[1.0, 1.0, 1.0]], False)).block_weights.factors[1][1, 2] == 0
    z[1, 1] = 0.0
    with pytest.raises(WeightsError, match="entry 1 of D for symbol 1 is zero on a coordinate that persists"):
        gauge_snap(_network(perm, z, (1.0, 2.0, 3.0), [[1.0, 1.0, 1.0]], False))


def test_a_network_that_merges_every_coordinate_is_not_isometric() -> None:
    """Symbol 0 sends every coordinate to 0, symbol 1 rotates: rank 1, M = all three, and symbol 0
    is not injective on M (isometric False); with symbol 0 a rotation too, isometric True."""
    h0, R = (1.0, 0.0, 0.0), [[1.0, 0.0, 0.0]]
    s = gauge_snap(_network([[0, 0, 0], [1, 2, 0]], np.ones((2, 3)), h0, R, False))
    assert s.rule.startswith("the factors in a fixed gauge (the 3 coordinates that persist, rank 1;")
    assert not s.isometric
    assert gauge_snap(_network([[2, 0, 1], [1, 2, 0]], np.ones((2, 3)), h0, R, False)).isometric


# --- a complex network gauged by hand -------------------------------------------------------------

OMEGA = cmath.exp(2j * math.pi / 3)
G_COMPLEX = np.array([2 * cmath.exp(0.3j), 0.5 * cmath.exp(-1.1j), 3 * cmath.exp(2j)])


def _complex_network(units, scales=(1.5, 0.7)) -> Weights:
    perm = np.array(PERM)
    z = np.asarray(scales)[:, None] * np.asarray(units) * G_COMPLEX[None, :] / G_COMPLEX[perm]
    R = [[1.0, 0.0, 0.5, 0.0, 1.0, 1.0], [0.0, 1.0, 0.0, -1.0, 2.0, 0.0]]
    return _network(perm, z, (1.0, 0.5, -1.0, 2.0, 3.0, 1.0), R, True)


def test_a_complex_network_gauged_by_hand_is_snapped_back_exactly() -> None:
    """Symbol 0 swaps 0 and 1 with entries i, i (2-cycle product -1), symbol 1 has loops omega and 1
    at 0 and 1: the snap gives the tree edge +1, the cycle -1, the loops omega and 1 (field of
    order lcm(2, 3) = 6), column 2 zero; P is [[x, -y], [y, x]] blocks with |p_0| = 1/2 (phase 0 at
    the forest's root), p_1 = c z_00 p_0 (the edge gauged to 1), identity on coordinate 2."""
    w = _complex_network([[1j, 1j, 0.4], [OMEGA, 1.0, -2.0]])
    s = gauge_snap(w)
    assert s.scale == pytest.approx((1 / 1.5, 1 / 0.7), rel=1e-12)
    got = _entries(s.block_weights)
    assert np.abs(got - np.array([[1, -1, 0], [OMEGA, 1, 0]])).max() < 1e-15
    assert s.rule == ("the factors in a fixed gauge (the 2 coordinates that persist, rank 2; "
                      "entries to roots of unity of order dividing 6)")
    p0 = 0.5
    p1 = (1 / 1.5) * 1.5 * 1j * G_COMPLEX[0] / G_COMPLEX[1] * p0
    assert abs(abs(p1) - 2) < 1e-12
    P = np.array(s.basis, dtype=float)
    expected = np.zeros((6, 6))
    expected[0:2, 0:2] = [[p0, 0], [0, p0]]
    expected[2:4, 2:4] = [[p1.real, -p1.imag], [p1.imag, p1.real]]
    expected[4, 4] = expected[5, 5] = 1
    assert np.abs(P - expected).max() <= 2.0 ** -24
    assert s.blocks == ((0, 1, 2, 3), (4,), (5,)) and s.kept == (0,) and s.isometric
    # start state: P^-1 h0 on the kept coordinates, divided by its largest |.|
    y = np.linalg.solve(expected, [1.0, 0.5, -1.0, 2.0, 3.0, 1.0])[:4]
    assert np.abs(np.array(s.block_weights.h0, dtype=float) - np.r_[y / np.abs(y).max(), 0, 0]).max() < 1e-6
    # the distance is the dropped column's entries against the whole matrix (c z, moduli)
    cz = np.array([[1.0, 1.0, 0.4], [1.0, 1.0, 2.0]]) * np.abs(G_COMPLEX[None, :] / G_COMPLEX[np.array(PERM)])
    want = [cz[a, 2] / math.sqrt((cz[a] ** 2).sum()) for a in range(2)]
    assert s.distance == pytest.approx(want, rel=1e-6)


def test_a_drifting_two_cycle_shares_its_error_between_its_edges() -> None:
    """A swap whose 2-cycle is 0.02 rad off 1 and loops i exp(0.03 i) and -1, gauge 1: the
    least-squares spread moves only the swap's edges (no gauge turns a loop), leaving each 0.01 rad
    off its unit, so the swap's distance is |exp(0.01 i) - 1| (a loop's 0.03 drawn into the spread
    would leave 0.025 and -0.005: distance 0.018); symbol 1's is |exp(0.03 i) - 1| / sqrt 2."""
    eps, eta = 0.02, 0.03
    w = _network([[1, 0], [0, 1]], [[cmath.exp(0.5j), cmath.exp(1j * (eps - 0.5))], [1j * cmath.exp(1j * eta), -1.0]],
                 (1.0, 0.0, 0.0, 0.0), [[1.0, 0.0, 0.0, 0.0]], True)
    s = gauge_snap(w)
    assert s.distance[0] == pytest.approx(abs(cmath.exp(0.01j) - 1), abs=1e-6)
    assert s.distance[1] == pytest.approx(abs(cmath.exp(1j * eta) - 1) / math.sqrt(2), abs=1e-6)
    assert np.abs(_entries(s.block_weights) - np.array([[1, 1], [1j, -1]])).max() < 1e-15


def test_a_cycle_phase_outside_pi_is_wrapped_in_the_message() -> None:
    """A 2-cycle whose entries turn by 3.1 rad each: its gauge-free phase 6.2 rad is reported
    wrapped, 6.2 - 2 pi = -0.0832 rad (no root of order up to 24 within its window)."""
    w = _network([[1, 0]], [[cmath.exp(3.1j), cmath.exp(3.1j)]], (1.0, 0.0, 0.0, 0.0), [[1.0, 0.0, 0.0, 0.0]], True)
    with pytest.raises(WeightsError, match=r"cycle closed by entry 1 of symbol 0 has gauge-free phase -0\.0832 rad"):
        gauge_snap(w)


@pytest.mark.parametrize("q", [2, 3, 5, 7, 12, 23, 24])
def test_a_loop_at_a_root_of_every_order_up_to_24_snaps_to_it(q) -> None:
    """A one-coordinate loop at exp(2 pi i (q - 1) / q), times 1.3 and regauged by hand, snaps to
    that root exactly, in the field of order q."""
    root = cmath.exp(2j * math.pi * (q - 1) / q)
    w = _network([[0], [0]], [[1.3 * root], [0.8]], (1.0, 0.0), [[1.0, 0.5]], True)
    s = gauge_snap(w)
    assert np.abs(_entries(s.block_weights) - np.array([[root], [1]])).max() < 1e-15
    assert s.rule.endswith(f"entries to roots of unity of order dividing {q})")


def test_a_loop_at_a_root_of_order_25_is_refused() -> None:
    """exp(2 pi i / 25) is farther than the window of every root of order up to 24."""
    w = _network([[0]], [[cmath.exp(2j * math.pi / 25)]], (1.0, 0.0), [[1.0, 0.5]], True)
    with pytest.raises(WeightsError, match=r"gauge-free phase 0\.2513 rad"):
        gauge_snap(w)


def test_the_field_holds_order_120_and_refuses_168() -> None:
    """Loops at roots of orders 8, 3, 5 need the field of order lcm = 120 (the largest allowed), and
    their exact values are read there; orders 8, 3, 7 need 168: refused."""
    roots = [cmath.exp(2j * math.pi * 3 / 8), cmath.exp(2j * math.pi * 2 / 3), cmath.exp(2j * math.pi / 5)]
    s = gauge_snap(_network([[0]] * 3, [[r] for r in roots], (1.0, 0.0), [[1.0, 0.0]], True))
    assert np.abs(_entries(s.block_weights)[:, 0] - roots).max() < 1e-15
    assert s.rule.endswith("entries to roots of unity of order dividing 120)")
    roots[2] = cmath.exp(2j * math.pi / 7)
    with pytest.raises(WeightsError, match="roots of unity of order 168, more than 120"):
        gauge_snap(_network([[0]] * 3, [[r] for r in roots], (1.0, 0.0), [[1.0, 0.0]], True))


def test_an_entry_exactly_at_a_root_snaps_with_a_window_of_zero(monkeypatch) -> None:
    """The window is closed: loops exactly at 1 and -1 (gauge-free phases 0 and -pi, at distance 0
    from roots of orders 1 and 2) still snap when every window has width 0."""
    monkeypatch.setattr(gauge, "snap_angle", lambda q: 0.0)
    s = gauge_snap(_network([[0], [0]], [[1.0], [-1.0]], (1.0, 0.0), [[1.0, 0.0]], True))
    assert _entries(s.block_weights).tolist() == [[1], [-1]]


# --- the limits on the gauged moduli and the scales ------------------------------------------------

def test_a_gauged_modulus_equal_to_the_bound_is_accepted(monkeypatch) -> None:
    """Entries of modulus 1 on a swap and loops give gauged moduli exactly 1; with the bound moved to
    1 the interval [1, 1] still holds them (closed at both ends)."""
    monkeypatch.setattr(gauge, "GAUGE_MODULUS", 1.0)
    s = gauge_snap(_network([[1, 0], [0, 1]], [[1.0, -1.0], [1.0, 1.0]], (1.0, 0.0), [[1.0, 0.0]], False))
    assert s.block_weights.factors[1].tolist() == [[1, -1], [1, 1]] and s.scale == (1.0, 1.0)


def test_a_gauged_modulus_below_one_half_is_refused_with_its_value() -> None:
    """Three loops of one symbol with moduli 1, 4, 4: the scale is their geometric mean's inverse
    (16^(-1/3)), so the gauged moduli are 4^(-2/3) = 0.397 (below 1/2) and 4^(1/3) = 1.59 (within 2)."""
    w = _network([[0, 1, 2]], [[1.0, 4.0, 4.0]], (1.0, 0.0, 0.0), [[1.0, 0.0, 0.0]], False)
    with pytest.raises(WeightsError, match=r"entry 0 of D for symbol 0 has gauged modulus 0\.397 at"):
        gauge_snap(w)


@pytest.mark.parametrize("log_c, ok", [(700.0, False), (-700.0, False), (699.0, True), (-699.0, True)])
def test_a_scale_at_exp_700_is_outside_the_float_range(log_c, ok) -> None:
    """A one-coordinate loop of modulus m has scale 1 / m: log c = -log m exactly at +-700 is refused
    (the open interval), at +-699 it is kept."""
    m = math.exp(-log_c)
    while math.log(m) != -log_c:  # the float nearest exp(-log c) whose log is exactly -log c
        m = math.nextafter(m, math.inf if math.log(m) < -log_c else 0.0)
    w = _network([[0]], [[m]], (1.0,), [[1.0]], False)
    if ok:
        assert math.log(gauge_snap(w).scale[0]) == pytest.approx(log_c, rel=1e-15)
    else:
        with pytest.raises(WeightsError, match="scale is outside the float range"):
            gauge_snap(w)


# --- the seeded gauge of regauged() ------------------------------------------------------------------

def _drawn(seed: int, spread: float, n: int, complex_: bool) -> np.ndarray:
    """The documented gauge: moduli exp(spread N(0, 1)), then uniform phases (complex) or random
    signs (real), drawn in that order from numpy's generator seeded with ``seed``."""
    rng = np.random.default_rng(seed)
    g = np.exp(spread * rng.normal(size=n))
    return g * (np.exp(2j * math.pi * rng.uniform(size=n)) if complex_ else rng.choice((-1.0, 1.0), n))


@pytest.mark.parametrize("complex_", [False, True])
def test_regauged_conjugates_by_the_seeded_gauge(complex_) -> None:
    """Entries z[a, j] g_j / g_perm(a, j), start state G^-1 h0, readout R G (complex: R conj(G), as a
    score is Re(conj(r) h)), as float weights with their factors; seed 0 by default."""
    perm = np.array([[1, 0, 0], [0, 1, 1]])
    z = np.array([[1.0, -2.0, 0.5], [3.0, 1.0, -1.0]], dtype=complex)
    if complex_:
        z = z * np.array([1j, OMEGA, 1.0])
        h0, R = np.arange(1.0, 7.0), np.array([[1.0, 2.0, 0.0, -1.0, 1.0, 0.5]])
    else:
        h0, R = np.array([1.0, 2.0, 3.0]), np.array([[1.0, -1.0, 0.5], [0.0, 2.0, 1.0]])
    w = _network(perm, z, h0, R, complex_)
    g = _drawn(7, 1.7, 3, complex_)
    out = regauged(w, seed=7, spread=1.7)
    assert not out.exact and out.variant == w.variant and out.A.dtype == np.float64
    assert np.array_equal(np.asarray(out.factors[0]), perm)
    zg = _entries(out)
    assert np.abs(zg - z * g[None, :] / g[perm]).max() < 1e-12
    A = monomial_compose(perm, np.asarray(out.factors[1], dtype=float), exact=False, complex_=complex_)
    assert np.array_equal(out.A, A)
    if complex_:
        hz = out.h0[0::2] + 1j * out.h0[1::2]
        Rz = out.readout[:, 0::2] + 1j * out.readout[:, 1::2]
        assert np.abs(hz - (h0[0::2] + 1j * h0[1::2]) / g).max() < 1e-12
        assert np.abs(Rz - (R[:, 0::2] + 1j * R[:, 1::2]) * np.conj(g)).max() < 1e-12
    else:
        assert np.abs(out.h0 - h0 / g).max() < 1e-12 and np.abs(out.readout - R * g).max() < 1e-12
    default = regauged(w, spread=1.7)
    assert np.array_equal(default.h0, regauged(w, seed=0, spread=1.7).h0)
    assert np.abs(default.h0[: 3 if not complex_ else 6] - out.h0).max() > 1e-3  # seed 0 is another gauge


def test_a_five_cycle_gauged_by_hand_keeps_its_product_on_the_edge_that_closes_it() -> None:
    """One symbol rotating five coordinates with entries 1, 1, 1, 1, zeta_5, conjugated by a gauge
    of moduli 1/2 to 3 and phases up to 2.8 rad: the breadth-first forest from coordinate 0 takes
    the edges 0 -> 1, 4 -> 0, 1 -> 2, 3 -> 4 (two steps from the root), so the edge 2 -> 3 closes
    the cycle and carries its product zeta_5, every other entry 1, in the field of order 5."""
    zeta = cmath.exp(2j * math.pi / 5)
    perm = np.array([[1, 2, 3, 4, 0]])
    g = np.array([0.5, 3.0, 1.2, 0.7, 2.0]) * np.exp(1j * np.array([0.0, 2.8, -1.9, 0.4, -2.5]))
    z = np.array([[1, 1, 1, 1, zeta]]) * g[None, :] / g[perm]
    s = gauge_snap(_network(perm, z, np.r_[1.0, np.zeros(9)], [np.r_[1.0, np.zeros(9)]], True))
    assert np.abs(_entries(s.block_weights) - np.array([[1, 1, zeta, 1, 1]])).max() < 1e-15
    assert s.rule == ("the factors in a fixed gauge (the 5 coordinates that persist, rank 5; "
                      "entries to roots of unity of order dividing 5)")
    assert max(s.distance) < 1e-6 and s.scale == pytest.approx((1.0,), rel=1e-12)
