"""The prover's float screen: every stored direction's scores enclose the exact ones.

``HiddenStore.scores[i]`` is ``(mid, err)`` with ``|readout @ vectors[i] - mid| <= err`` entrywise;
it is computed on access from the direction's float enclosure (so a store of many directions does
not hold two arrays of the readout's length per direction).  Checked here against the exact scores,
computed with the domain's exact arithmetic and compared in exact arithmetic."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

import pytest

from bilinear.automata import from_spec
from bilinear.constructions.exact.domains import choose_domain, sparse_rows
from bilinear.constructions.proof.prover import _Readout
from bilinear.constructions import build
from bilinear.constructions.proof.search import HiddenStore


def _encloses(domain, exact, mid: float, err: float) -> bool:
    """lower <= exact <= upper, decided in the domain's exact arithmetic."""
    lower = domain.convert(Fraction(mid) - Fraction(err))
    upper = domain.convert(Fraction(mid) + Fraction(err))
    return domain.sign(exact - lower) >= 0 and domain.sign(upper - exact) >= 0


@pytest.mark.parametrize("spec,variant", [("cyclic:5", "rotation2d"), ("symmetric:5", "householder:4"),
                                          ("dihedral:4", "block:2"), ("cyclic:3", "full")])
def test_every_stored_directions_scores_enclose_the_exact_scores(spec, variant):
    a = from_spec(spec)
    w = build(spec, variant)
    domain = choose_domain(w)
    readout = _Readout(w, a, domain)
    store = HiddenStore(domain, readout.floats, w.n_symbols, readout.floats_rad)
    A = [sparse_rows(w.A[s], domain) for s in range(w.n_symbols)]
    frontier = [store.add([domain.convert(x) for x in w.h0])]
    seen = set(frontier)
    while frontier and len(store) < 200:  # the directions the prover would visit
        idx = frontier.pop()
        for s in range(w.n_symbols):
            nxt = store.step(idx, s, A[s])
            if nxt not in seen:
                seen.add(nxt)
                frontier.append(nxt)
    assert len(store.scores) == len(store) >= a.n_states // 2
    R = sparse_rows(w.readout, domain)  # exact, as the prover reads them
    for i in range(len(store)):
        mid, err = store.scores[i]
        assert mid.shape == err.shape == (w.n_classes,)
        for c in range(w.n_classes):
            exact = domain.dot(R[c], store.vectors[i])
            # lower <= exact <= upper, decided exactly
            assert _encloses(domain, exact, float(mid[c]), float(err[c])), (i, c)
    assert store.scores[-1][0].tolist() == store.scores[len(store) - 1][0].tolist()
    assert store.scores[-len(store)][0].tolist() == store.scores[0][0].tolist()  # the first, from the end
    with pytest.raises(IndexError):
        store.scores[len(store)]


@pytest.mark.parametrize("big", [10**9, 10**12, 10**15])
def test_a_cancelling_cyclotomic_direction_needs_its_own_radius(big):
    """x = big (z + z^4) - round(big (sqrt 5 - 1) / 2) in Q(zeta_5) is a small number written with
    large coefficients: its float evaluation cancels, and the midpoint is off by about 1e-7 (big =
    1e9) to 0.35 (big = 1e15), far beyond |x| EPS.  The scores' bound must carry the direction's
    own radius to enclose it (a bound from |x| and the rounding of the product alone does not)."""
    from bilinear.constructions.exact.domains import CyclotomicDomain
    from bilinear.constructions import CyclotomicField

    domain, field = CyclotomicDomain(5), CyclotomicField(5)
    x = (field.zeta(1) + field.zeta(4)) * big - Fraction(round(0.6180339887498949 * big))
    store = HiddenStore(domain, np.array([[1.0]]), 1, None)
    i = store.add([domain.convert(x)])
    mid, err = store.scores[i]
    exact = domain.convert(x)
    assert _encloses(domain, exact, float(mid[0]), float(err[0]))
    assert err[0] > 1e6 * abs(mid[0]) * 2.0**-52  # the radius, not the rounding terms, carries it


def test_the_products_own_rounding_is_in_the_bound():
    """h = (1, d, d, ..., d) with d = 3/4 ulp(1) and 4095 d's, readout all ones: every float
    addition of d to a partial sum near 1 rounds up by a quarter ulp, so the float score is off by
    tens of ulps of the sum, far beyond the direction's own radius (2^-50 relative, eight half-ulps).
    Only the bound's term for the product's rounding, (n + 2) 2^-50 sum |r_j h_j|, covers it."""
    from bilinear.constructions.exact.domains import RationalDomain

    n = 4096
    domain = RationalDomain()
    d = Fraction(3, 4) * Fraction(1, 2**52)
    h = [domain.convert(Fraction(1))] + [domain.convert(d)] * (n - 1)
    store = HiddenStore(domain, np.ones((1, n)), 1, None)
    i = store.add(h)
    mid, err = store.scores[i]
    exact = domain.convert(1 + (n - 1) * d)
    assert _encloses(domain, exact, float(mid[0]), float(err[0]))
    # the premise: the float product is off by more than the direction's radius alone allows
    # (true of every BLAS summing in fewer than n / 16 lanes; a BLAS summing more accurately
    # cannot show the difference)
    off = abs(Fraction(float(mid[0])) - (1 + (n - 1) * d))
    if not off > Fraction(float(np.abs(store._floats[i][1]).sum())):
        pytest.skip("this BLAS sums the product too accurately to need the rounding term")


def test_the_readouts_own_radius_is_in_the_bound():
    """A readout entry of Q(zeta_5) that cancels (x = 10^15 (z + z^4) - round(10^15 (sqrt 5 - 1)/2),
    a small number written with large coefficients) has a float value off by up to 0.35: the scores
    of the exact direction h = (1) must carry the readout's radius (the prover's `_float_readout`)."""
    from bilinear.constructions.exact.domains import SparseCyclotomicDomain
    from bilinear.constructions import CyclotomicField
    from bilinear.constructions.proof.prover import _float_readout

    big = 10**15
    field = CyclotomicField(5)
    x = (field.zeta(1) + field.zeta(4)) * big - Fraction(round(0.6180339887498949 * big))
    domain = SparseCyclotomicDomain(5)
    matrix = np.array([[x]], dtype=object)
    rows = sparse_rows(matrix, domain)
    floats, rad = _float_readout(matrix, rows, domain)
    assert rad is not None and rad[0, 0] > 1e-3  # the readout's float is far from exact
    store = HiddenStore(domain, floats, 1, rad)
    i = store.add([domain.convert(1)])
    mid, err = store.scores[i]
    exact = domain.dot(rows[0], store.vectors[i])
    assert _encloses(domain, exact, float(mid[0]), float(err[0]))
    assert err[0] >= rad[0, 0]


@pytest.mark.parametrize("n", [1, 2, 3])
def test_short_products_round_inside_the_bound(n):
    """h = (x, ..., x) and a readout of (x, ..., x), x = 1 + 2^-27: each product x * x = 1 + 2^-26
    + 2^-54 rounds (the 2^-54 is lost), so the float score is below the exact one, at every
    length, including one and two terms.  The bound's rounding term (n + 2) 2^-50 sum |r_j h_j|
    must enclose it there too (a factor that vanished or went negative for short products would
    leave only the direction's own radius)."""
    from bilinear.constructions.exact.domains import RationalDomain

    domain = RationalDomain()
    x = Fraction(1) + Fraction(1, 2**27)
    store = HiddenStore(domain, np.full((1, n), float(x)), 1, None)
    i = store.add([domain.convert(x)] * n)
    mid, err = store.scores[i]
    exact = domain.convert(n * x * x)
    assert Fraction(float(mid[0])) != n * x * x  # the premise: the float product rounds
    assert _encloses(domain, exact, float(mid[0]), float(err[0]))
