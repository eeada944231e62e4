"""Theorem 25's cones piece by piece (constructions/horizon/horizon_ray.py): the reachable states,
the image of an arc, the merge of two arcs, the float search for the cones and its refusals, the
ball-arithmetic check of each of the theorem's three conditions, and the limits of ray_horizon.
Each expected value is worked out in the test (angles by hand, the float run written here)."""

import math

import numpy as np
import pytest

from bilinear.automata import Automaton, from_spec
from bilinear.constructions.exact.balls import arb, precision
from bilinear.constructions.horizon import horizon_ray
from bilinear.constructions.horizon.horizon_ray import (HALF_TURN, MAX_PAIRS, _check, _image, _inside, _merge,
                                                         _reachable, ray_cones, ray_horizon)
from bilinear.constructions.horizon.roundoff import RoundOff
from bilinear.constructions.values.weights import Weights

PARITY = from_spec("parity")  # symbol 0 keeps the state, symbol 1 toggles it
KEEP = [[1.01, 0.0], [0.0, 0.99]]
TOGGLE = [[-1.0, 0.0], [0.0, -0.98]]
H0 = [1.0, 0.3]
READ = [[1.0, 0.0], [-1.0, 0.0]]


def _rot(t: float) -> tuple:
    return ((math.cos(t), -math.sin(t)), (math.sin(t), math.cos(t)))


def _parity_net() -> Weights:
    """The module docstring's parity network: every ray of the right half-plane stays there under
    the keeping symbol and goes to the left one under the toggling symbol (and back)."""
    return Weights("full", [KEEP, TOGGLE], H0, READ)


def test_reachable_states_follow_every_symbol_and_no_more():
    """Two symbols, five states (3 and 4 unreachable); three symbols, two states (state 1 only
    through the third symbol): the symbols are the table's rows, the states its columns."""
    wide = Automaton([[1, 1, 1, 3, 4], [0, 2, 2, 3, 4]])
    assert _reachable(wide) == [0, 1, 2]
    tall = Automaton([[0, 1], [0, 1], [1, 1]])
    assert _reachable(tall) == [0, 1]
    assert _reachable(Automaton([[0, 1], [0, 1], [1, 1]], start=1)) == [1]


def test_the_image_of_an_arc_by_hand():
    t = 0.5
    lo_, hi_ = _image(_rot(t), (0.1, 0.2))
    assert lo_ == pytest.approx(0.6, abs=1e-12) and hi_ == pytest.approx(0.7, abs=1e-12)
    # a reflection reverses the arc's ends: the result is still (lower, upper)
    lo_, hi_ = _image(((1.0, 0.0), (0.0, -1.0)), (0.1, 0.3))
    assert lo_ == pytest.approx(-0.3, abs=1e-12) and hi_ == pytest.approx(-0.1, abs=1e-12)
    # an arc across the angle pi: atan2 gives 3.0 and 3.2 - 2 pi, the arc is the short one from 3.0
    lo_, hi_ = _image(((1.0, 0.0), (0.0, 1.0)), (3.0, 3.2))
    assert lo_ == pytest.approx(3.0, abs=1e-12) and hi_ == pytest.approx(3.2, abs=1e-12)


def test_the_image_refuses_zero_infinite_and_opposite_ends():
    assert _image(((0.0, 0.0), (0.0, 1.0)), (0.0, 0.1)) is None  # the end at angle 0 goes to 0
    assert _image(((math.inf, 0.0), (0.0, 1.0)), (0.0, 0.1)) is None
    assert _image(((math.nan, 0.0), (0.0, 1.0)), (0.0, 0.1)) is None
    ident = ((1.0, 0.0), (0.0, 1.0))
    assert _image(ident, (0.0, HALF_TURN + 1e-7)) is None  # wider than HALF_TURN: its cone is not pointed
    assert math.atan2(math.sin(HALF_TURN), math.cos(HALF_TURN)) == HALF_TURN
    assert _image(ident, (0.0, HALF_TURN)) is None  # exactly HALF_TURN wide: refused too
    assert _image(ident, (0.0, HALF_TURN - 1e-7)) == pytest.approx((0.0, HALF_TURN - 1e-7))


def test_merge_is_the_smallest_arc_holding_both():
    assert _merge(None, (0.2, 0.3)) == (0.2, 0.3)
    assert _merge((0.0, 1.0), (-0.5, 0.2)) == (-0.5, 1.0)
    got = _merge((0.0, 1.0), (0.5 + 2 * math.pi, 1.5 + 2 * math.pi))  # the same arc a turn later
    assert got == pytest.approx((0.0, 1.5))
    got = _merge((3.0, 3.2), (-3.1, -3.0))  # (3.18, 3.28) written a turn lower
    assert got == pytest.approx((3.0, -3.0 + 2 * math.pi))


def test_merge_agrees_with_the_smallest_union_over_whole_turns():
    """For 2,000 random pairs of arcs (each narrower than half a turn, anywhere in [-12, 12]) the
    merge is the union of ``old`` and ``new`` turned by the whole number of turns (-5 .. 5) that
    makes it narrowest, found here by trying each."""
    rng = np.random.default_rng(5)
    for _ in range(2000):
        a, b = rng.uniform(-12, 12, size=2)
        wa, wb = rng.uniform(0, 3.0, size=2)
        old, new = (a, a + wa), (b, b + wb)
        unions = [(min(old[0], new[0] + s), max(old[1], new[1] + s)) for s in 2 * math.pi * np.arange(-5, 6)]
        best = min(unions, key=lambda u: u[1] - u[0])
        assert _merge(old, new) == pytest.approx(best, abs=1e-9), (old, new)


def _float_rays(A, h0, automaton, length: int) -> dict:
    """Every state's float rays over every word up to ``length`` (angles), run here."""
    seen: dict = {}
    frontier = [(int(automaton.start), np.array(h0) / np.linalg.norm(h0))]
    for _ in range(length):
        nxt = []
        for q, h in frontier:
            for a, M in enumerate(A):
                g = np.array(M) @ h
                g /= np.linalg.norm(g)
                p = int(automaton.delta[a, q])
                seen.setdefault(p, []).append(math.atan2(g[1], g[0]))
                nxt.append((p, g))
        frontier = nxt
    return seen


def test_the_cones_hold_every_float_ray_of_the_short_words():
    """The arcs of the parity network's two states hold the start's ray and the ray of every word
    up to length 10 (run here), and state 1's arc is in the left half-plane, state 0's in the right."""
    arcs, why = ray_cones(np.array([KEEP, TOGGLE]), np.array(H0), PARITY, 1e-7)
    assert why == "" and sorted(arcs) == [0, 1]
    t0 = math.atan2(H0[1], H0[0])
    assert arcs[0][0] < t0 < arcs[0][1]
    for q, angles in _float_rays([KEEP, TOGGLE], H0, PARITY, 10).items():
        lo_, hi_ = arcs[q]
        for t in angles:
            t = t + 2 * math.pi * round(((lo_ + hi_) / 2 - t) / (2 * math.pi))  # the turn of the arc
            assert lo_ <= t <= hi_, (q, t, arcs[q])
    assert -math.pi / 2 < arcs[0][0] and arcs[0][1] < math.pi / 2
    turn = 2 * math.pi * math.floor(arcs[1][0] / (2 * math.pi))  # state 1's arc, written from 0
    assert math.pi / 2 < arcs[1][0] - turn and arcs[1][1] - turn < 3 * math.pi / 2


def test_the_search_says_why_it_has_no_cones(monkeypatch):
    zero = np.array([KEEP, [[0.0, 0.0], [0.0, 0.0]]])
    assert ray_cones(zero, np.array(H0), PARITY, 1e-7) == (None, "symbol 1 sends the rays at state 0 to 0 or to opposite rays")
    turn = np.array([_rot(0.3), TOGGLE])
    arcs, why = ray_cones(turn, np.array(H0), PARITY, 1e-7)
    assert arcs is None and why.startswith("the rays reached at state ") and why.endswith("spread over half a turn")
    monkeypatch.setattr(horizon_ray, "MAX_SWEEPS", 2)  # two sweeps: the arcs still move by more than 1e-10
    assert ray_cones(np.array([KEEP, TOGGLE]), np.array(H0), PARITY, 1e-7) == (None, "the arcs did not settle in 2 sweeps")


def _ro(arith="float64"):
    return RoundOff.for_network(arith, _parity_net())


def test_check_passes_the_searched_cones_and_names_each_failed_condition():
    """The searched cones check; each of Theorem 25's conditions broken in turn is named."""
    A, h0, R = np.array([KEEP, TOGGLE]), np.array(H0), np.array(READ)
    arcs, _ = ray_cones(A, h0, PARITY, 1e-7)
    with precision():
        assert _check(arcs, A, h0, R, PARITY, _ro()) == ""
        assert _check({0: (0.1, 0.1), 1: arcs[1]}, A, h0, R, PARITY, _ro()) == "a cone is not pointed"
        assert _check({0: (0.2, 0.1), 1: arcs[1]}, A, h0, R, PARITY, _ro()) == "a cone is not pointed"
        t0 = math.atan2(h0[1], h0[0])
        assert _check({0: (t0 + 1e-3, 0.5), 1: arcs[1]}, A, h0, R, PARITY, _ro()) == "h0 is not inside its cone with its rounding"
        # state 0's cone shrunk to just around h0: the keeping symbol turns its rays out of it
        assert _check({0: (t0 - 1e-9, t0 + 1e-9), 1: arcs[1]}, A, h0, R, PARITY, _ro()) == \
            "symbol 0 does not map the cone of state 0 into that of state 0"
        # the readout's classes swapped: every cone is on the other class's side
        assert _check(arcs, A, h0, -R, PARITY, _ro()) == "the cone of state 0 is not classified 0 against class 1"
        # a third class whose score ties class 0's: not classified against class 2
        R3 = np.array([[1.0, 0.0], [-1.0, 0.0], [1.0, 0.0]])
        three = Automaton(PARITY.delta, labels=[0, 1], classes=["0", "1", "2"])
        assert _check(arcs, A, h0, R3, three, _ro()) == "the cone of state 0 is not classified 0 against class 2"


def test_the_start_disc_is_charged_and_a_ray_on_the_boundary_is_outside():
    """The start state exactly on a cone's edge is outside in every arithmetic (the open cone); a
    disc of radius r around a point at distance > r from both edges is inside, at distance < r not."""
    with precision():
        u, w = (arb(1), arb(0)), (arb(0), arb(1))  # the first quadrant
        assert not _inside([arb(1), arb(0)], arb(0), (u, w))
        assert _inside([arb(1), arb(1)], arb(0.99), (u, w))
        assert not _inside([arb(1), arb(1)], arb(1.01), (u, w))
        assert not _inside([arb(1), arb(0.5)], arb(0.6), (u, w))  # 0.5 from the edge x2 = 0


def test_pairs_up_to_the_limit_are_searched():
    """An automaton of n states, symbol 0 keeping, symbol 1 counting mod n, labelled by parity: the
    parity network's cones serve every state; n = MAX_PAIRS / 2 has exactly MAX_PAIRS pairs and is
    certified, one more state is refused by the limit."""
    w = _parity_net()
    n = MAX_PAIRS // 2
    counter = Automaton([list(range(n)), [(q + 1) % n for q in range(n)]], labels=[q % 2 for q in range(n)])
    h = ray_horizon(w, counter, RoundOff.for_network("float64", w))
    assert h.every, h.note
    more = Automaton([list(range(n + 1)), [(q + 1) % (n + 1) for q in range(n + 1)]], labels=[q % 2 for q in range(n + 1)])
    assert ray_horizon(w, more, RoundOff.for_network("float64", w)).note == f"more than {MAX_PAIRS} (state, symbol) pairs"


def test_a_zero_start_has_no_ray():
    w = Weights("full", [KEEP, TOGGLE], [0.0, 0.0], READ)
    assert ray_horizon(w, PARITY, RoundOff.of("real", 2)).note == "h0 is 0"


def test_the_note_names_the_states_the_widest_cone_and_the_margin():
    w = _parity_net()
    h = ray_horizon(w, PARITY, RoundOff.for_network("float64", w))
    assert h.every and h.constants["cone_margin"] == horizon_ray.INFLATIONS[0]
    arcs, _ = ray_cones(*w.float_arrays()[:2], PARITY, horizon_ray.INFLATIONS[0])
    width = max(b - a for a, b in arcs.values())
    assert h.constants["cone_width"] == width
    assert h.note == (f"invariant cones of the state's ray at 2 automaton states (widest {width:.3g} rad, "
                      f"each image inside with a margin of {horizon_ray.INFLATIONS[0]:g} rad)")


def test_a_search_that_does_not_settle_tries_the_next_margin(monkeypatch):
    """With 250 sweeps allowed, the margins 1e-10 and 1e-7 do not settle (the arcs still move by
    more than a thousandth of the margin: they need 399 and 314 sweeps), and 1e-4 (228) is tried
    next; it settles and checks."""
    monkeypatch.setattr(horizon_ray, "MAX_SWEEPS", 250)
    horizon_ray._CACHE.clear()
    w = _parity_net()
    for inflate in horizon_ray.INFLATIONS[:2]:
        assert "settle" in ray_cones(*w.float_arrays()[:2], PARITY, inflate)[1]
    h = ray_horizon(w, PARITY, RoundOff.for_network("float64", w))
    horizon_ray._CACHE.clear()
    assert h.every and h.constants["cone_margin"] == horizon_ray.INFLATIONS[2], h.note


def test_cones_that_spread_end_the_search_at_the_first_margin():
    """A rotating symbol spreads the rays over half a turn at the first margin: no wider margin is
    tried (it would only spread more), and the reason is that spread."""
    w = Weights("full", [_rot(0.3), TOGGLE], H0, READ)
    h = ray_horizon(w, PARITY, RoundOff.of("real", 2))
    assert not h.certified and h.note.startswith("no invariant cones: the rays reached at state ")


def test_an_arc_exactly_as_wide_as_the_limit_is_refused(monkeypatch):
    """Arcs only grow, so the widest arc of a settled search is reached by some merge: with the
    limit set to exactly that width the search refuses it (a cone at least HALF_TURN wide is not
    accepted), and with the next float above it the same search settles."""
    A, h0 = np.array([KEEP, TOGGLE]), np.array(H0)
    arcs, _ = ray_cones(A, h0, PARITY, 1e-2)
    width = max(b - a for a, b in arcs.values())
    monkeypatch.setattr(horizon_ray, "HALF_TURN", width)
    arcs_at, why = ray_cones(A, h0, PARITY, 1e-2)
    assert arcs_at is None and why.endswith("spread over half a turn")
    monkeypatch.setattr(horizon_ray, "HALF_TURN", math.nextafter(width, math.inf))
    assert ray_cones(A, h0, PARITY, 1e-2) == (arcs, "")


def test_the_searches_kept_are_the_last_sixteen():
    """The float search is kept for the last 16 keys (one network's three arithmetics share it);
    the seventeenth evicts the oldest."""
    horizon_ray._CACHE.clear()
    A, h0 = np.array([KEEP, TOGGLE]), np.array(H0)
    margins = [1e-3 * (1 + i) for i in range(17)]
    for m in margins[:16]:
        horizon_ray._cones_cached(A, h0, PARITY, m)
    assert len(horizon_ray._CACHE) == 16
    horizon_ray._cones_cached(A, h0, PARITY, margins[16])
    assert len(horizon_ray._CACHE) == 16 and [k[-1] for k in horizon_ray._CACHE] == margins[1:]
    horizon_ray._CACHE.clear()


def test_a_point_on_either_edge_is_outside_the_open_cone():
    with precision():
        u, w = (arb(1), arb(0)), (arb(0), arb(1))
        assert not _inside([arb(0), arb(1)], arb(0), (u, w))  # on w's edge
        assert not _inside([arb(1), arb(0)], arb(0), (u, w))  # on u's edge
        assert _inside([arb(1), arb(1)], arb(0), (u, w))


CONTRACT = np.array([[[1.0, 0.0], [0.0, 0.5]]])  # every ray of the open right half-plane turns towards angle 0
ONE_STATE = Automaton([[0]], labels=[0], classes=["0", "1"])


def _one_state_check(R, arc, ro, h0=(1.0, 0.0)):
    """_check on one state (label 0 of two classes) and one contracting symbol, whose cone of
    angles ``arc`` (within (-pi/2, pi/2)) it maps strictly inside itself."""
    with precision():
        return _check({0: arc}, CONTRACT, np.array(h0), np.array(R, dtype=float), ONE_STATE, ro)


def test_the_start_disc_has_radius_start_plus_root_two_start_underflow():
    """rho0 = start + sqrt(2) start_underflow (a relative error and an absolute one per coordinate),
    with round-offs made large enough to see: start = su = 0.01 gives rho0 = 0.02414.  The start
    at angle 0 and the cone's lower edge at -delta: inside exactly when sin(delta) > rho0."""
    import dataclasses

    ro = dataclasses.replace(RoundOff.of("real", 2), start=arb(0.01), start_underflow=arb(0.01))
    R = [[1.0, 0.0], [-1.0, 0.0]]
    for delta, inside in ((math.asin(0.0257), True), (math.asin(0.0235), False), (math.asin(0.02), False)):
        why = _one_state_check(R, (-delta, 0.5), ro)
        assert (why != "h0 is not inside its cone with its rounding") == inside, (delta, why)
        if inside:
            assert why == ""


def test_each_generator_is_classified_with_its_own_coordinates():
    """Readout rows whose difference is (1, 2) on the cone from -0.2 to 0.5 rad: at the upper
    generator (0.878, 0.479) the difference scores 1.84, at the lower one (0.980, -0.199) 0.58:
    both positive, so the state is classified; the difference (1, -2) scores -0.08 at the upper one."""
    ro = RoundOff.of("real", 2)
    assert _one_state_check([[1.0, 2.0], [0.0, 0.0]], (-0.2, 0.5), ro) == ""
    assert _one_state_check([[1.0, -2.0], [0.0, 0.0]], (-0.2, 0.5), ro) == \
        "the cone of state 0 is not classified 0 against class 1"
    # the difference (0.2, 1): 0.2 cos t + sin t is 0.156 at t = -0.2 (negative), positive at 0.5
    assert _one_state_check([[0.2, 1.0], [0.0, 0.0]], (-0.2, 0.5), ro) == \
        "the cone of state 0 is not classified 0 against class 1"
    assert _one_state_check([[0.2, 1.0], [0.0, 0.0]], (-0.1, 0.5), ro) == ""


def test_a_generator_on_the_class_boundary_is_not_classified():
    """A difference of readout rows (sin t, -cos t) (floats) is orthogonal to the generator
    (cos t, sin t), exactly in ball arithmetic: a score difference of exactly 0, a tie, not
    classified, even in real arithmetic (tau = 0)."""
    t = 0.5
    R = [[math.sin(t) + 1.0, -math.cos(t)], [1.0, 0.0]]  # rows whose difference is exactly (sin t, -cos t)
    assert R[0][0] - R[1][0] == math.sin(t)
    assert _one_state_check(R, (-0.2, t), RoundOff.of("real", 2)) == "the cone of state 0 is not classified 0 against class 1"
    assert _one_state_check(R, (-0.2, t - 1e-3), RoundOff.of("real", 2)) == ""


def test_the_readout_rounding_is_charged_on_both_rows():
    """tau = readout (||R_l|| + ||R_c||): with readout = 0.1, rows (3, 0) and (1, 0) on the cone
    from -0.1 to 0.1 (both generators score the difference 2 cos 0.1 = 1.990 per unit length)
    need 1.990 > 0.1 (3 + 1) = 0.4: classified; rows (30, 0) and (28, 0) need 1.990 > 5.8: not."""
    import dataclasses

    ro = dataclasses.replace(RoundOff.of("real", 2), readout=arb(0.1))
    assert _one_state_check([[3.0, 0.0], [1.0, 0.0]], (-0.1, 0.1), ro) == ""
    assert _one_state_check([[30.0, 0.0], [28.0, 0.0]], (-0.1, 0.1), ro) == \
        "the cone of state 0 is not classified 0 against class 1"
