"""The gauge snap (Theorem 22): monomial weights conjugated by a random diagonal gauge are snapped
back to their construction up to a unit gauge and proved; where no gauge brings the entries near
units the snap says so; a certified length is checked against an independent search."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from plain_eval import first_wrong_length

from bilinear.automata.families import from_spec
from bilinear.constructions.handmade.registry import build
from bilinear.constructions.horizon.gauge import gauge_snap, persistent_coordinates, regauged
from bilinear.constructions.horizon.horizon import certified_horizon
from bilinear.constructions.horizon.snap import factor_snap
from bilinear.constructions.proof.prover import prove
from bilinear.constructions.values.factored import monomial_compose
from bilinear.constructions.values.floatrun import run_float
from bilinear.constructions.values.weights import Weights
from bilinear.errors import WeightsError


def _entries(w: Weights) -> tuple[np.ndarray, np.ndarray]:
    """``(perm, z)`` of float monomial weights: the index factor and the entries as complex numbers."""
    perm = np.asarray(w.factors[0], dtype=np.int64)
    D = np.asarray(w.factors[1], dtype=float)
    return perm, (D[:, 0::2] + 1j * D[:, 1::2] if w.variant_info.complex else D.astype(complex))


def _unit_gauge_between(s: Weights, e: Weights, coords) -> bool:
    """True when a diagonal unit gauge u (|u_j| = 1) has s_aj = e_aj u_j / u_perm(a,j) on every
    edge from ``coords``: u fixed along a breadth-first forest, then every edge checked (floats)."""
    ps, zs = _entries(s)
    pe, ze = _entries(e)
    if not (ps[:, list(coords)] == pe[:, list(coords)]).all():
        return False
    u: dict[int, complex] = {}
    for root in coords:
        if root in u:
            continue
        u[root] = 1.0
        queue = [root]
        for j in queue:
            for a in range(len(ps)):
                i = int(ps[a, j])
                if i not in u and ze[a, j] != 0:
                    u[i] = ze[a, j] * u[j] / zs[a, j]
                    queue.append(i)
    return all(abs(zs[a, j] * u[int(ps[a, j])] - ze[a, j] * u[j]) < 1e-9 and abs(abs(u[j]) - 1) < 1e-9
               for a in range(len(ps)) for j in coords)


@pytest.mark.parametrize("spec, variant", [("quaternion", "monomial,complex"), ("dihedral:5", "monomial,complex"),
                                           ("dihedral:3", "monomial"), ("reset:3", "monomial")])
def test_the_snap_recovers_the_construction_up_to_a_unit_gauge_and_is_proved(spec, variant) -> None:
    a = from_spec(spec)
    exact = build(spec, variant)
    w = regauged(exact.to_float(), seed=5)
    try:  # one by one, the regauged entries are not near units: no factor snap, or a wrong one
        assert prove(factor_snap(w, a).block_weights, a).status != "proved"
    except WeightsError:
        pass
    s = gauge_snap(w, a)
    assert prove(s.block_weights, a).status == "proved"
    assert s.block_weights.variant == variant and max(s.distance) < 1e-6
    _, M = persistent_coordinates(np.asarray(exact.factors[0]))
    assert _unit_gauge_between(s.block_weights.to_float(), exact.to_float(), M)
    written = s.original()  # the trained basis and variant, exact, and proved as well
    assert written.variant == variant and written.exact and prove(written, a).status == "proved"


def test_the_coordinates_that_persist_are_the_minimal_images() -> None:
    # symbol 0 merges 0 and 1 into 1 and sends 2 to 0; symbol 1 swaps 0 and 1 and sends 2 to 2
    r, M = persistent_coordinates(np.array([[1, 1, 0], [1, 0, 2]]))
    # independent: every product of up to 6 symbols, its rank and images
    maps = [tuple(range(3))]
    for word in itertools.chain.from_iterable(itertools.product(range(2), repeat=n) for n in range(1, 7)):
        img = list(range(3))
        for s in word:
            img = [[[1, 1, 0], [1, 0, 2]][s][j] for j in img]
        maps.append(tuple(img))
    low = min(len(set(m)) for m in maps)
    assert r == low == 1
    assert M == tuple(sorted(set().union(*(set(m) for m in maps if len(set(m)) == low)))) == (0, 1)


def _turned(spec: str, delta: float, seed: int | None) -> Weights:
    """The ``monomial,complex`` construction with every entry of every symbol but the first turned by
    ``delta`` rad (drifting at length), then conjugated by a seeded random gauge (``None``: not)."""
    w = build(spec, "monomial,complex").to_float()
    perm, D = w.factors
    D = np.asarray(D, dtype=float).copy()
    z = D[:, 0::2] + 1j * D[:, 1::2]
    z[1:] *= np.exp(1j * delta)
    D = np.stack([z.real, z.imag], axis=2).reshape(D.shape)
    _, h0, R = w.float_arrays()
    turned = Weights(w.variant, monomial_compose(perm, D, exact=False, complex_=True), h0, R, factors=(perm, D))
    return turned if seed is None else regauged(turned, seed=seed)


def _first_failure(w: Weights, a, limit: int) -> int | None:
    """Independent: the first failing length among every word up to 6 symbols and every power of a
    word of up to 2 symbols, to ``limit`` (float64, run_float)."""
    words = [np.array(list(itertools.product(range(a.n_symbols), repeat=6)))]
    loops = [u for p in (1, 2) for u in itertools.product(range(a.n_symbols), repeat=p)]
    words.append(np.stack([np.resize(np.array(u), limit) for u in loops]))
    return first_wrong_length(lambda batch: run_float(w, batch).labels, a, words)


@pytest.fixture(scope="module")
def drifting():
    """dihedral:3 ``monomial,complex`` drifting by 0.002 rad per use of s, its regauged copy (the same
    scores), and their first failure found independently (the same word fails in both)."""
    a = from_spec("dihedral:3")
    plain, gauged = _turned("dihedral:3", 0.002, seed=None), _turned("dihedral:3", 0.002, seed=3)
    U = _first_failure(plain, a, 700)
    assert U is not None and U == _first_failure(gauged, a, 700)
    return a, plain, gauged, U


def test_the_certified_length_of_a_regauged_drifting_network_is_below_its_first_failure(drifting) -> None:
    a, _, w, U = drifting
    s = gauge_snap(w, a)
    h = certified_horizon(w, s, prove(s.block_weights, a), a, "float64", nodes=False)
    assert h.bound == "global" and h.length is not None
    assert 50 <= h.length < U  # Theorem 16 in the gauge basis: epsilon is the drift, not the gauge's 1.4 rad


def test_the_block_wise_bound_refuses_a_block_larger_than_two(drifting) -> None:
    # the factor snap keeps one block of all four coordinates; the block-wise bound's norms are the
    # 1x1 and 2x2 formulas, which read a swap's zero top-left corner as a zero error (it certified
    # 77,494,578,100,837 here, against a failure at 619)
    a, w, _, U = drifting
    s = factor_snap(w, a)
    assert len(s.blocks[0]) == 4
    h = certified_horizon(w, s, prove(s.block_weights, a), a, "float64", nodes=False)
    assert h.length is not None and h.length < U


def test_no_gauge_helps_a_cycle_off_every_root_of_unity() -> None:
    a = from_spec("cyclic:3")
    w = build("cyclic:3", "monomial,complex").to_float()
    perm, D = w.factors
    D = np.asarray(D, dtype=float)
    z = (D[:, 0::2] + 1j * D[:, 1::2]) * np.exp(1j * np.array([[0.0], [0.1], [0.0]]))  # symbol 1 off by 0.1 rad
    D = np.stack([z.real, z.imag], axis=2).reshape(D.shape)
    _, h0, R = w.float_arrays()
    bad = regauged(Weights(w.variant, monomial_compose(perm, D, exact=False, complex_=True), h0, R, factors=(perm, D)))
    with pytest.raises(WeightsError, match=r"cycle closed by entry 0 of symbol 1 .* not within"):
        gauge_snap(bad, a)


def test_no_gauge_helps_cycles_of_different_moduli() -> None:
    # parity as monomial: symbol 1 swaps two coordinates, symbol 0 keeps them; one of symbol 0's two
    # loops at modulus 10 against the other's 1: no diagonal gauge changes a loop's modulus
    perm = np.array([[0, 1], [1, 0]])
    D = np.array([[10.0, 1.0], [1.0, -1.0]])
    w = Weights("monomial", monomial_compose(perm, D, exact=False), np.array([1.0, 0.0]),
                np.array([[1.0, 0.0], [0.0, 1.0]]), factors=(perm, D))
    with pytest.raises(WeightsError, match="gauged modulus"):
        gauge_snap(w, from_spec("parity"))
