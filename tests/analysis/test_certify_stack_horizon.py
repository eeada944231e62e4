"""Theorem S5 (docs/theory.md section 8): a float stack's certified horizon, layer by layer, tested
against an evaluator written for the tests (``plain_eval.float64_stack_margins``) and searched
words: exhaustive to a depth, periodic words and a beam search on the margins, each up to the
certified length N, on perturbed cascades of several groups and variants."""

import functools
import itertools

import numpy as np
import pytest
from plain_eval import float64_stack_margins

from bilinear.analysis.certify import certify_stack, stack_horizon
from bilinear.automata import from_spec
from bilinear.constructions import cascade
from bilinear.constructions.horizon.horizon_stack import layer_automaton
from bilinear.constructions import drift_layers
from bilinear.constructions import Weights

CASES = [  # spec, variant, noise, snapping tolerance
    ("dihedral:3", "rotation2d", 3e-2, 0.08),
    ("dihedral:3", "rotation2d", 1e-2, 0.08),
    ("dihedral:4", "rotation2d", 3e-2, 0.08),
    ("symmetric:4", "rotation2d", 3e-2, 0.08),
    ("quaternion", "diagonal", 0.8, 0.15),
]


def _arrays(stack):
    return [layer.float_arrays() for layer in stack.layers]


def _worst(layers, automaton, words):
    last, inner = float64_stack_margins(layers, automaton, words)
    return float(min(last.min(), inner.min()))


def _beam(layers, automaton, length, width=32):
    """The smallest margin (last layer's label, or an inner layer's gap) met by a beam search that
    keeps, at each length, the ``width`` words of smallest margin so far."""
    S = automaton.n_symbols
    beam = np.zeros((1, 0), dtype=np.int64)
    worst = np.inf
    for _ in range(length):
        cand = np.concatenate([np.repeat(beam, S, axis=0), np.tile(np.arange(S), len(beam))[:, None]], axis=1)
        last, inner = float64_stack_margins(layers, automaton, cand)
        score = np.minimum(last, inner).min(axis=1)
        worst = min(worst, float(score.min()))
        beam = cand[np.argsort(score, kind="stable")[:width]]
    return worst


@functools.cache
def _certified(spec: str, variant: str, noise: float, tol: float):
    """(automaton, perturbed cascade, its certificate), computed once per session for each case
    (the module fixture and the search test below read the same certificates)."""
    a = from_spec(spec)
    stack = drift_layers(cascade(a, variant), noise)
    return a, stack, certify_stack(stack, a, test_length=500, words=64, tol=tol)


@pytest.fixture(scope="module", params=CASES, ids=[f"{c[0]}-{c[1]}-{c[2]}" for c in CASES])
def case(request):
    a, stack, c = _certified(*request.param)
    # the searches below run to N: an inflated N (a mutant's) fails here, before they run for hours
    assert c.certified is not None and 20 <= c.certified <= 2000, c.certified
    return a, stack, c


def test_the_horizon_is_a_real_length(case):
    a, stack, c = case
    assert c.proof.status == "proved" and c.horizon.certified and not c.horizon.every
    assert c.certified >= 20  # not vacuous
    assert c.certified == min(h.length for _, h in c.layer_horizons)


def test_no_word_up_to_the_horizon_fails_exhaustive_and_periodic(case):
    a, stack, c = case
    N, S, layers = c.certified, a.n_symbols, _arrays(stack)
    depth = max(d for d in range(1, N + 1) if S**d <= 4096)
    words = np.array(list(itertools.product(range(S), repeat=depth)), dtype=np.int64)
    assert _worst(layers, a, words) > 0
    periodic = [list(u) * (N // len(u) + 1) for p in range(1, 5) for u in itertools.product(range(S), repeat=p)]
    assert _worst(layers, a, np.array([w[:N] for w in periodic], dtype=np.int64)) > 0
    rng = np.random.default_rng(0)
    assert _worst(layers, a, rng.integers(0, S, (256, N))) > 0


def test_no_word_up_to_the_horizon_fails_beam(case):
    a, stack, c = case
    assert _beam(_arrays(stack), a, c.certified) > 0


def test_a_failing_word_is_longer_than_the_horizon(case):
    a, stack, c = case
    if c.check.first_failure is not None:
        assert len(c.check.first_failure) > c.certified
        assert c.status == "snapped"
    else:
        assert c.status == "horizon"


@pytest.mark.parametrize("spec", ["dihedral:3", "symmetric:4"])
def test_the_search_finds_the_failure_within_four_horizons(spec):
    """The searches above can fail: on these stacks the beam search finds a failing word not far past
    the certified length (the first failure U, N < U <= 4 N), so an inflated N would be caught."""
    assert (spec, "rotation2d", 3e-2, 0.08) in CASES  # the certificate of a case above, not a new one
    a, stack, c = _certified(spec, "rotation2d", 3e-2, 0.08)
    # the beam up to N itself holds: test_no_word_up_to_the_horizon_fails_beam, on this very case
    assert _beam(_arrays(stack), a, 4 * c.certified) <= 0


def test_tiny_noise_certifies_far_and_the_text_says_so():
    a = from_spec("dihedral:3")
    c = certify_stack(drift_layers(cascade(a, "rotation2d"), 1e-6), a, test_length=50, words=16)
    assert c.status == "horizon" and c.certified > 10**5
    text = c.to_text()
    assert f"every word up to length {c.certified}" in text and "Theorem S5" in text
    assert "layer 2 (M_2 of 6 states)" in text
    data = c.to_json()
    assert data["certified_length"] == c.certified and [d["layer"] for d in data["layer_horizons"]] == [1, 2]


def test_the_stack_horizon_is_the_shortest_layers():
    a = from_spec("dihedral:3")
    stack = drift_layers(cascade(a, "rotation2d"), 1e-2)
    snapped = certify_stack(stack, a, test_length=50, words=8, tol=0.08).snap.stack
    h, per = stack_horizon(stack, snapped)
    lengths = [lh.length for _, lh in per]
    assert len(per) == 2 and h.length == min(lengths) and lengths[0] != lengths[1]


def test_a_layer_with_a_tie_has_no_automaton():
    tie = Weights("diagonal", A=[[[1]], [[-1]]], h0=[1], readout=[[1], [1]])
    m, why = layer_automaton(tie)
    assert m is None and "tie" in why
    m, why = layer_automaton(Weights("diagonal", A=[[[1]], [[-1]]], h0=[1], readout=[[1], [-1]]))
    assert m is not None and m.n_states == 2 and list(m.labels) == [0, 1]


def test_a_layer_over_the_limit_has_no_automaton():
    from bilinear.constructions import build

    m, why = layer_automaton(build("cyclic:5", "rotation2d"), limit=3)
    assert m is None and "more than 3 directions" in why


def test_a_layer_without_an_automaton_leaves_the_stack_uncertified():
    """Layer 1 always says class 0, so layer 2 never reads (s, 1); there its matrices are 0, a
    direction with a tie: M_2 is not defined, no length is certified, though the snap is proved."""
    from bilinear.constructions import Stack

    a = from_spec("parity")
    one = Weights("diagonal", A=[[[1]], [[1]]], h0=[1], readout=[[1], [-1]])
    two = Weights("diagonal", A=[[[1]], [[0]], [[-1]], [[0]]], h0=[1], readout=[[1], [-1]])
    exact = Stack((one, two))
    stack = drift_layers(exact, 1e-7)
    c = certify_stack(stack, a, test_length=50, words=8)
    assert c.proof.status == "proved" and not c.horizon.certified and c.status == "uncertified"
    assert c.layer_horizons[0][1].certified and c.layer_horizons[1][0] is None
    assert "tie" in c.layer_horizons[1][1].note and "layer 2 has no certified length" in c.horizon.note


def test_snap_tol_on_the_command_line(tmp_path, capsys):
    """A stack drifted by 1e-3 has no entry snap within the default 1e-4, so each layer is snapped
    against its own automaton; --snap-tol 0.01 snaps its entries instead.  Both certify the horizon.
    Refused for one network and outside (0, 0.5], in one line."""
    import json

    from bilinear.cli import main
    from bilinear.constructions import build

    a = from_spec("dihedral:3")
    path = drift_layers(cascade(a, "rotation2d"), 1e-3).save(tmp_path / "d3.json")
    assert main(["certify", "--weights", str(path), "dihedral:3", "--json", "--test-length", "50"]) == 0
    cert = json.loads(capsys.readouterr().out)
    assert cert["status"] == "horizon" and cert["certified_length"] >= 100
    assert [d["conductor"] for d in cert["snap"]] == [None, None] and "entries" not in {d["rule"] for d in cert["snap"]}
    assert main(["certify", "--weights", str(path), "dihedral:3", "--json", "--test-length", "50",
                 "--snap-tol", "0.01"]) == 0
    cert = json.loads(capsys.readouterr().out)
    assert cert["status"] == "horizon" and cert["certified_length"] >= 100
    assert [d["rule"] for d in cert["snap"]] == ["entries", "entries"]
    one = build("cyclic:3", "rotation2d").to_float().save(tmp_path / "one.json")
    assert main(["certify", "--weights", str(one), "cyclic:3", "--snap-tol", "0.01"]) == 2
    assert "--snap-tol is for stacks" in capsys.readouterr().err
    for bad in ("0", "0.6", "nan", "x"):
        with pytest.raises(SystemExit) as exc:
            main(["certify", "--weights", str(path), "dihedral:3", "--snap-tol", bad])
        assert exc.value.code == 2
        assert "expected a number in (0, 0.5]" in capsys.readouterr().err
