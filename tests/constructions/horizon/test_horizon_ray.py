"""Theorem 25 (invariant cones) and the exit phase of the failing-word search."""

import itertools
from fractions import Fraction

import numpy as np
import pytest

from bilinear.analysis.certify import certify_network
from bilinear.automata.families import from_spec
from bilinear.constructions.handmade.registry import build
from bilinear.constructions.horizon.failsearch import exit_failure, search_failure
from bilinear.constructions.horizon.horizon_ray import ray_horizon
from bilinear.constructions.horizon.roundoff import RoundOff
from bilinear.constructions.values.weights import Weights

PARITY = from_spec("parity")  # symbol 0 keeps the state, symbol 1 toggles it
FLIP = from_spec("flipflop:2")  # w0, w1 set the state, r reads it


def _parity(seed: int) -> Weights:
    """A noisy sign network for parity: identity and -identity plus noise 1e-2, the start and the
    readout on the dominant direction's side."""
    rng = np.random.default_rng(seed)
    A = np.array([np.diag([1.01, 0.99]), -np.diag([1.0, 0.98])]) + 1e-2 * rng.normal(size=(2, 2, 2)) * [[1, 0.2], [0.2, 1]]
    return Weights("full", A, [1.0, 0.3], [[1.0, 0.0], [-1.0, 0.0]])


def _tilted() -> Weights:
    """A parity network whose float run Theorems 16-20 certify only to 1024 (node bound): its
    rays turn from h0 = (1, -0.9) towards the keeping symbol's dominant direction."""
    A = [[[1.0, 0.05], [0.05, 0.97]], [[-1.0, -0.04], [-0.03, -0.96]]]
    return Weights("full", A, [1.0, -0.9], [[1.0, 0.0], [-1.0, 0.0]])


def _flip(seed: int = 0) -> Weights:
    """The coverage benchmark's ``flipflop:2 full noise 0.01`` (seed 0)."""
    A, h0, R = build("flipflop:2", "full").to_float().float_arrays()
    return Weights("full", A + 1e-2 * np.random.default_rng(seed).normal(size=A.shape), h0, R)


def _float_labels(w: Weights, word) -> list[int]:
    """The float64 run written here: unit state after every step, the argmax of the readout."""
    A, h, R = w.float_arrays()
    h = h / np.linalg.norm(h)
    out = []
    for a in word:
        h = A[a] @ h
        h = h / np.linalg.norm(h)
        s = R @ h
        out.append(int(np.argmax(s)) if np.sum(s == s.max()) == 1 else -1)  # a tie is a failure
    return out


def _labels(automaton, word) -> list[int]:
    q, out = int(automaton.start), []
    for a in word:
        q = int(automaton.delta[a, q])
        out.append(int(automaton.labels[q]))
    return out


@pytest.mark.parametrize("seed", [0, 1, 2, None])
def test_every_length_on_noisy_parity_and_the_float_run_agrees(seed):
    w = _tilted() if seed is None else _parity(seed)
    for arithmetic in ("real", "float64", "float32"):
        h = ray_horizon(w, PARITY, RoundOff.for_network(arithmetic, w))
        assert h.every and h.bound == "ray", (arithmetic, h.note)
    # independent: every word up to length 8, and directed words to 20000
    for n in range(1, 9):
        for word in itertools.product(range(2), repeat=n):
            assert _float_labels(w, word)[-1] == _labels(PARITY, word)[-1], word
    A, h0, R = w.float_arrays()
    words = np.array([[0] * 20000, [1] * 20000, [1] + [0] * 19999, [0, 1] * 10000])
    H = np.tile(h0 / np.linalg.norm(h0), (4, 1))
    q = np.zeros(4, dtype=int)
    for t in range(words.shape[1]):  # the four words side by side, unit states
        H = np.einsum("bij,bj->bi", A[words[:, t]], H)
        H /= np.linalg.norm(H, axis=1, keepdims=True)
        q = PARITY.delta[words[:, t], q]
        assert ((H @ R.T).argmax(axis=1) == PARITY.labels[q]).all(), t


def test_certify_proves_the_tilted_network_by_its_cones():
    cert = certify_network(_tilted(), PARITY)  # without Theorem 25: node bound, 1024
    assert cert.status == "proved" and cert.failing is None
    assert all(h.every and h.bound == "ray" for h in cert.horizons.values())


def test_declines_where_the_limit_ray_is_on_the_wrong_side_and_the_network_fails():
    # the keeping symbol attracts every ray to (0, 1), beyond the readout's line x2 = 10 x1
    A = [[[0.99, 0.0], [0.0, 1.01]], [[-1.0, 0.0], [0.0, -1.0]]]
    w = Weights("full", A, [1.0, 0.3], [[1.0, -0.1], [-1.0, 0.1]])
    h = ray_horizon(w, PARITY, RoundOff.for_network("float64", w))
    assert not h.certified and "no invariant cones" in h.note
    got = _float_labels(w, [0] * 200)
    n = next(i for i, (x, y) in enumerate(zip(got, _labels(PARITY, [0] * 200))) if x != y)
    assert 50 < n < 200  # (0.3/1) (1.01/0.99)^n passes 10 near n = 175


def test_declines_rotations_and_other_sizes():
    c, s = np.cos(0.01), np.sin(0.01)
    rot = Weights("full", [[[c, -s], [s, c]], [[-1.0, 0.0], [0.0, -1.0]]], [1.0, 0.3], [[1.0, 0.0], [-1.0, 0.0]])
    assert "half a turn" in ray_horizon(rot, PARITY, RoundOff.of("real", 2)).note
    three = Weights("full", np.array([np.eye(3), -np.eye(3)]), [1.0, 0.0, 0.0], [[1.0, 0, 0], [-1.0, 0, 0]])
    assert "hidden size 2" in ray_horizon(three, PARITY, RoundOff.of("real", 3)).note
    cyc = from_spec("cyclic:3")
    assert "real states" in ray_horizon(build("cyclic:3", "monomial,complex"), cyc, RoundOff.of("real", 2)).note


def test_exact_weights_are_checked_as_the_numbers_they_are():
    F = Fraction
    A = [[[F(1), F(1, 20)], [F(1, 20), F(97, 100)]], [[F(-1), F(-1, 25)], [F(-3, 100), F(-24, 25)]]]
    w = Weights("full", A, [F(1), F(-9, 10)], [[F(1), F(0)], [F(-1), F(0)]])
    assert ray_horizon(w, PARITY, RoundOff.of("real", 2)).every
    # the readout turned so that the keeping symbol's limit ray (about (0.80, 0.60)) is on the wrong side
    bad = Weights("full", A, [F(1), F(-9, 10)], [[F(1), F(-2)], [F(-1), F(2)]])
    assert not ray_horizon(bad, PARITY, RoundOff.of("real", 2)).certified


def test_flipflop_noise_fails_at_71_and_nothing_certifies_past_it():
    w = _flip(0)
    assert not ray_horizon(w, FLIP, RoundOff.for_network("float64", w)).certified
    word = (1,) + (2,) * 69 + (0,)
    assert _float_labels(w, word)[:-1] == _labels(FLIP, word)[:-1]
    assert _float_labels(w, word)[-1] != _labels(FLIP, word)[-1]  # w0 after r^69 lands on class 1
    directed = np.array([[1] + [2] * 99, [2] * 100])
    found = exit_failure(w, FLIP, directed)
    assert found is not None and len(found) == 71 and found[-1] == 0
    assert search_failure(w, FLIP, 2000, floor=69, random_words=0, beam=False) == word
