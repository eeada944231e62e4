"""Stacks of layers: the value, its file, the stack prover, cascades, the minimum depth, verify --layers."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from bilinear.automata import Automaton, from_spec
from bilinear.cli import main
from bilinear.constructions.handmade.cascade import GroupCascade, cascade, derived_length
from bilinear.constructions import min_layers
from bilinear.constructions import check
from bilinear.constructions.values.floatrun import run_float
from bilinear.constructions import prove
from bilinear.constructions import build
from bilinear.constructions.settle import settle
from bilinear.constructions.values.stack import MAX_LAYERS, Stack, load_network
from bilinear.constructions import prove_stack
from bilinear.constructions import Weights
from bilinear.errors import ConstructionError, WeightsError

PARITY1 = Weights("diagonal", A=[[[1]], [[-1]]], h0=[1], readout=[[1], [-1]])
COPY2 = Weights("diagonal", A=[[[1]], [[1]], [[-1]], [[-1]]], h0=[1], readout=[[1], [-1]])


# --- the value ------------------------------------------------------------------------------
def test_stack_validation_names_the_layer():
    with pytest.raises(WeightsError, match="layer 2 reads 2 symbols, but must read S x C_1 = 2 x 2 = 4"):
        Stack((PARITY1, PARITY1))
    with pytest.raises(WeightsError, match="layer 2 is a str"):
        Stack((PARITY1, "x"))
    with pytest.raises(WeightsError, match="non-empty"):
        Stack(())
    with pytest.raises(WeightsError, match="layer 2 is float but layer 1 is exact"):
        Stack((PARITY1, COPY2.to_float()))
    with pytest.raises(WeightsError, match="over the limit of 16"):
        Stack((PARITY1,) + (COPY2,) * MAX_LAYERS)
    s = Stack((PARITY1, COPY2))
    assert (s.depth, s.dims, s.dim, s.n_symbols, s.n_classes, s.variant) == (2, (1, 1), 2, 2, 2, "diagonal")
    assert s.layer_symbol(1, 1, 1) == 3 and s.commuting
    with pytest.raises(AttributeError):
        s.layers = ()


def test_stack_file_round_trip_exact_and_float(tmp_path):
    stack = cascade(from_spec("symmetric:4"), "rotation2d")
    for s in (stack, stack.to_float()):
        path = s.save(tmp_path / f"s-{s.exact}.json")
        back = load_network(path)
        assert isinstance(back, Stack) and back == s and back.exact == s.exact
        assert Stack.load(path) == s
    # a weights file reads as a Weights, and as a one-layer stack through Stack.load
    w = build("cyclic:5", "rotation2d")
    path = w.save(tmp_path / "w.json")
    assert load_network(path) == w and Stack.load(path) == Stack((w,))


def test_stack_file_refuses_tampering_and_unsigned(tmp_path):
    data = cascade(from_spec("dihedral:3"), "rotation2d").to_json()
    tampered = json.loads(json.dumps(data))
    tampered["layers"][1]["h0"][0] = 2
    with pytest.raises(WeightsError, match="stack: checksum mismatch"):
        Stack.from_json(tampered)
    del tampered["checksum"]  # a layer's own checksum is checked even in an unsigned stack
    with pytest.raises(WeightsError, match="layer 2: checksum mismatch"):
        Stack.from_json(tampered, allow_unsigned=True)
    outer = json.loads(json.dumps(data))
    outer["symbols"] = 3
    with pytest.raises(WeightsError, match="checksum mismatch"):
        Stack.from_json(outer)
    unsigned = json.loads(json.dumps(data))
    del unsigned["checksum"]
    with pytest.raises(WeightsError, match="no checksum"):
        Stack.from_json(unsigned)
    unsigned["symbols"] = 3
    with pytest.raises(WeightsError, match="'symbols' is 3 but layer 1 reads 2"):
        Stack.from_json(unsigned, allow_unsigned=True)
    bad = json.loads(json.dumps(data))
    del bad["checksum"]
    bad["layers"] = [bad["layers"][1], bad["layers"][0]]
    with pytest.raises(WeightsError, match="layer 2 reads 2 symbols"):
        Stack.from_json(bad, allow_unsigned=True)
    (tmp_path / "x.json").write_text(json.dumps({**bad, "layers": []}))
    with pytest.raises(WeightsError, match="non-empty list"):
        load_network(tmp_path / "x.json", allow_unsigned=True)


# --- the prover -----------------------------------------------------------------------------
@pytest.mark.parametrize("spec,variant", [
    ("dihedral:5", "block:2"), ("cyclic:7", "rotation2d"), ("parity", "diagonal"), ("symmetric:4", "full"),
    ("flipflop:2", "full"), ("quaternion", "full"),
])
def test_one_layer_stack_has_the_weights_verdict(spec, variant):
    a = from_spec(spec)
    w = build(a, variant)
    p, q = prove(w, a), prove_stack(Stack((w,)), a)
    assert (p.status, p.states_explored, p.hidden_states, p.margin) == (q.status, q.states_explored,
                                                                         q.hidden_states, q.margin)
    # wrong weights: the same shortest word
    bad = Weights(w.variant, w.A[::-1].copy(), w.h0, w.readout) if w.n_symbols > 1 else None
    if bad is not None:
        p, q = prove(bad, a), prove_stack(Stack((bad,)), a)
        assert p.status == q.status
        if p.status == "counterexample":
            assert (p.word, p.expected, p.got) == (q.word, q.expected, q.got)


def test_one_layer_stack_unproved_like_the_weights():
    always = Automaton([[0]], labels=[0], classes=("pos", "neg"), symbols=("x",))
    grows = Weights("diagonal", A=[[[2, 0], [0, 1]]], h0=[2, 1], readout=[[1, 0], [0, 1]])
    p, q = prove(grows, always, bound=8), prove_stack(Stack((grows,)), always, bound=8)
    assert p.status == q.status == "open" and p.words == q.words


def _first_failure_length(stack, automaton, max_len):
    """Shortest failing word length by enumeration with the float run (oracle)."""
    for n in range(1, max_len + 1):
        words = np.array(list(itertools.product(range(automaton.n_symbols), repeat=n)))
        got = run_float(stack, words).labels[:, -1]
        want = automaton.labels[automaton.run_batch(words)]
        if (got != want).any():
            return n
    return None


@pytest.mark.parametrize("spec,layer,symbol", [("dihedral:3", 1, 3), ("symmetric:4", 2, 5), ("symmetric:4", 1, 1),
                                                ("dihedral:4", 0, 1)])
def test_broken_cascade_gives_a_shortest_counterexample(spec, layer, symbol):
    a = from_spec(spec)
    good = cascade(a, "rotation2d")
    layers = list(good.layers)
    w = layers[layer]
    A = w.A.copy()
    identity = np.eye(w.dim, dtype=np.int64).astype(object)
    moved = [s for s in range(w.n_symbols) if not all(x == y for x, y in zip(A[s].flat, identity.flat))]
    symbol = moved[symbol % len(moved)]  # a symbol that moves something, made the identity
    A[symbol] = identity
    layers[layer] = Weights(w.variant, A, w.h0, w.readout)
    result = prove_stack(Stack(tuple(layers)), a)
    assert result.status == "counterexample"
    assert len(result.word) == _first_failure_length(Stack(tuple(layers)), a, 6)
    assert result.layer == good.depth and result.expected == int(a.labels[a.run(result.word)])


def test_tie_in_an_intermediate_layer_is_a_failure_but_not_at_the_start():
    # layer 1 turns by 90 degrees; its readout (0, 1), (0, -1) ties on (1, 0) and (-1, 0)
    turn = [[0, -1], [1, 0]]
    layer1 = Weights("rotation2d", A=[turn], h0=[1, 0], readout=[[0, 1], [0, -1]])
    layer2 = Weights("rotation2d", A=[turn, turn], h0=[1, 0], readout=[[1, 0], [0, 1], [-1, 0], [0, -1]])
    cycle = Automaton([[1, 2, 3, 0]], labels=[0, 1, 2, 3], symbols=("a",))
    c = prove_stack(Stack((layer1, layer2)), cycle)
    assert c.status == "counterexample" and c.word == (0, 0) and c.layer == 1 and c.got is None
    cell = settle(cycle, "rotation2d", weights=Stack((layer1, layer2)))
    assert cell.status == "counterexample" and cell.failed_layer == 1 and "layer 1's class is tied" in cell.detail


# --- cascades -------------------------------------------------------------------------------
@pytest.mark.parametrize("spec,variant,depth", [
    ("parity", "diagonal", 1), ("cyclic:6", "rotation2d", 1), ("cyclic:2*cyclic:3", "rotation2d", 1),
    ("dihedral:3", "rotation2d", 2), ("dihedral:4", "rotation2d", 2), ("dihedral:4", "diagonal", 2),
    ("dihedral:9", "rotation2d", 2), ("alternating:4", "rotation2d", 2), ("quaternion", "rotation2d", 2),
    ("quaternion", "diagonal", 2), ("symmetric:3", "full", 2), ("symmetric:4", "rotation2d", 3),
    ("symmetric:4", "block:2", 3),
])
def test_cascades_are_proved_at_the_derived_length(spec, variant, depth):
    a = from_spec(spec)
    s = cascade(a, variant)
    assert s.depth == depth == derived_length(a)
    assert all(w.variant == s.layers[0].variant for w in s.layers)
    result = prove_stack(s, a)
    assert result.status == "proved" and result.states_explored == a.n_states
    assert result.margin_float > 0
    r = check(s, a, length=300, words=50)
    assert r.passed and r.accuracy == 1.0


def test_cascade_layer_shapes_dihedral():
    s = cascade(from_spec("dihedral:5"), "rotation2d")
    # layer 1: Z_2 (one block), 2 symbols; layer 2: Z_2 and Z_5 blocks, 2 x 2 symbols, 10 classes
    assert s.dims == (2, 4) and [w.n_symbols for w in s.layers] == [2, 4]
    assert [w.n_classes for w in s.layers] == [2, 10]
    assert GroupCascade(from_spec("symmetric:4")).factors == [2, 3, 4]


def test_padded_cascade_and_its_errors():
    a = from_spec("dihedral:3")
    s = cascade(a, "rotation2d", layers=4)
    assert s.depth == 4 and prove_stack(s, a).status == "proved"
    with pytest.raises(ConstructionError, match="derived length is 3"):
        cascade(from_spec("symmetric:4"), "rotation2d", layers=2)
    with pytest.raises(ConstructionError, match="character of order > 2"):
        cascade(a, "diagonal")
    with pytest.raises(ConstructionError, match="not solvable"):
        cascade(from_spec("alternating:5"), "rotation2d")
    with pytest.raises(ConstructionError, match="not a permutation"):
        cascade(from_spec("flipflop:2"), "rotation2d")
    with pytest.raises(ConstructionError, match="no rotation or sign"):
        cascade(a, "positive")
    with pytest.raises(ConstructionError, match="layers must be an integer"):
        cascade(a, "rotation2d", layers=0)


def test_cascade_with_labels_shared_by_several_elements():
    # S_3 acting on 3 points, the label is the point: the last layer reads all 6 characters
    a = Automaton(np.array([[1, 0, 2], [1, 2, 0]]), labels=[0, 1, 2], symbols=("t", "c"))
    s = cascade(a, "rotation2d")
    assert s.depth == 2 and s.dims[-1] == 12
    p = prove_stack(s, a)
    assert p.status == "proved" and p.margin == 6  # |G| on the right label, 0 on the others


# --- minimum depth and settle ---------------------------------------------------------------
def test_min_layers_values_and_exclusions():
    assert [min_layers(s, "rotation2d").min_layers for s in ("parity", "dihedral:6", "quaternion",
                                                             "alternating:4", "symmetric:4")] == [1, 2, 2, 2, 3]
    b = min_layers("symmetric:4", "rotation2d")
    assert not b.unconditional and b.excludes(1) == "impossible" and b.excludes(2) == "open"
    assert b.excludes(3) is None
    a5 = min_layers("alternating:5", "rotation2d")
    assert a5.min_layers is None and a5.excludes(1) == "impossible" and a5.excludes(9) == "open"
    assert min_layers("flipflop:2", "rotation2d").excludes(2) == "open"  # Theorem S4
    assert min_layers("flipflop:2", "rotation2d").min_layers is None
    assert min_layers("dihedral:5", "full").min_layers is None  # not commuting: no depth theorem
    assert min_layers("cyclic:3", "diagonal").min_layers is None  # Z_3 needs a rotation
    assert min_layers("dihedral:4", "diagonal").min_layers == 2


def test_settle_must_shows():
    c = settle("dihedral:3", "rotation2d", layers=2)
    assert (c.status, c.layers, c.dims, c.depth.min_layers) == ("proved", 2, (2, 4), 2)
    assert settle("dihedral:5", "rotation2d", layers=1).status == "impossible"
    c = settle("dihedral:5", "rotation2d")
    assert c.status == "impossible" and c.to_json()["min_layers"] == 2 and c.layers == 1
    assert settle("symmetric:4", "rotation2d", layers=3).status == "proved"
    c = settle("symmetric:4", "rotation2d", layers=2)
    assert c.status == "open" and c.to_json()["min_layers"] == 3 and "Theorem S3" in c.detail
    c = settle("alternating:5", "rotation2d", layers=4)
    assert c.status == "open" and c.to_json()["min_layers"] is None and "not solvable" in c.detail
    assert c.summary == "open"


def test_settle_proves_given_stacks_and_refuses_mismatches():
    a = from_spec("quaternion")
    s = cascade(a, "rotation2d")
    c = settle(a, "rotation2d", weights=s)
    assert c.status == "proved" and c.layers == 2 and c.source == "weights"
    with pytest.raises(WeightsError, match="have 2 layers, not 3"):
        settle(a, "rotation2d", weights=s, layers=3)
    with pytest.raises(WeightsError, match="not 'diagonal'"):
        settle(a, "diagonal", weights=s)
    one = settle("cyclic:5", "rotation2d", weights=Stack((build("cyclic:5", "rotation2d"),)))
    assert one.status == "proved" and one.layers == 1 and one.lower_bound == 2


# --- the command line -----------------------------------------------------------------------
def _verify(capsys, *argv):
    code = main(["verify", *argv, "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_verify_layers_json(capsys):
    code, out = _verify(capsys, "dihedral:3", "rotation2d", "--layers", "2")
    assert code == 0 and out["status"] == "proved" and out["layers"] == 2 and out["min_layers"] == 2
    assert out["dims"] == [2, 4] and out["min_layers_theorem"] == "Theorem 6 and Theorem S2"
    code, out = _verify(capsys, "symmetric:4", "rotation2d", "--layers", "2")
    assert code == 3 and out["status"] == "open" and out["min_layers"] == 3
    assert out["min_layers_unconditional"] is False


def test_verify_saves_and_reads_stack_files(tmp_path, capsys):
    path = tmp_path / "s4.json"
    code, out = _verify(capsys, "symmetric:4", "rotation2d", "--layers", "3", "--save", str(path))
    assert code == 0 and out["saved"] == str(path)
    code, out = _verify(capsys, "symmetric:4", "--weights", str(path))
    assert code == 0 and out["status"] == "proved" and out["layers"] == 3 and out["source"] == str(path)
    code, out = _verify(capsys, "symmetric:4", "--weights", str(path), "--float", "--words", "20", "--length", "50")
    assert code == 0 and out["float_check"]["passed"]
    assert main(["verify", "symmetric:4", "--weights", str(path), "--layers", "2"]) == 2
    assert "stack of 3 layers, not --layers 2" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["verify", "symmetric:4", "rotation2d", "--layers", "0"])
    assert exc.value.code == 2
    assert main(["verify", "symmetric:4", "rotation2d", "--layers", "17"]) == 2
    assert "layers must be an integer from 1 to 16, got 17" in capsys.readouterr().err


def test_depth_table_in_the_theory_is_the_matrix_output(default_matrix):
    from pathlib import Path

    text = (Path(__file__).resolve().parents[3] / "docs" / "theory.md").read_text()
    copy = text.split("<!-- depth-table -->\n", 1)[1].split("\n<!-- /depth-table -->", 1)[0]
    # the default matrix's commuting columns are the depth table's (`bilinear matrix --layers`)
    m = default_matrix
    assert m.depth_columns() == ("rotation2d", "diagonal", "positive")
    assert copy == m.depth_markdown()
    assert m.cell("symmetric:4", "rotation2d").depth.min_layers == 3


def test_matrix_layers_cli(capsys):
    assert main(["matrix", "--layers", "--rows", "dihedral:3,alternating:5", "--columns", "full,rotation2d"]) == 0
    out = capsys.readouterr().out
    assert "| `dihedral:3`    | 2          |" in out and "none (S3)" in out and "full" not in out
    assert main(["matrix", "--layers", "--json", "--rows", "symmetric:4", "--columns", "rotation2d"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["depth"][0][0]["min_layers"] == 3 and data["depth"][0][0]["min_layers_unconditional"] is False
    assert main(["matrix", "--layers", "--rows", "parity", "--columns", "full"]) == 2
    assert "no commuting column" in capsys.readouterr().err


# --- analyze and certify --------------------------------------------------------------------
def test_analyze_and_certify_take_stack_files(tmp_path, capsys):
    a = from_spec("dihedral:3")
    exact = cascade(a, "rotation2d")
    path = exact.to_float().save(tmp_path / "d3.json")
    code = main(["analyze", "--weights", str(path), "dihedral:3", "--json", "--words", "50", "--length", "12"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0
    assert report["accuracy_by_length"]["first_failure_length"] is None
    assert report["extraction"]["isomorphic"] is True
    assert "stack of 2 layers" in report["relations_note"]
    code = main(["certify", "--weights", str(path), "dihedral:3", "--json", "--test-length", "60"])
    cert = json.loads(capsys.readouterr().out)
    assert code == 0 and cert["status"] == "horizon" and cert["layers"] == 2 and cert["float_check"]["passed"]
    assert cert["proof"]["status"] == "proved" and cert["certified_length"] > 10**9  # float64 rounding only
    assert cert["horizon"]["bound"] == "S5" and len(cert["layer_horizons"]) == 2
    assert [d["conductor"] for d in cert["snap"]] == [1, 3]
    written = tmp_path / "snapped.json"
    assert main(["certify", "--weights", str(path), "dihedral:3", "--test-length", "60", "--write", str(written)]) == 0
    assert "horizon (Theorem S5, float64 evaluation, rounding charged): every word up to length" in capsys.readouterr().out
    assert load_network(written).exact and prove_stack(load_network(written), a).status == "proved"
    # a broken stack: the float check finds the failure, and the status says so
    layers = list(exact.to_float().layers)
    w = layers[1]
    A = w.A.copy()
    A[3] = A[0]
    broken = Stack((layers[0], Weights(w.variant, A, w.h0, w.readout))).save(tmp_path / "bad.json")
    assert main(["certify", "--weights", str(broken), "dihedral:3", "--json", "--test-length", "60"]) == 0
    cert = json.loads(capsys.readouterr().out)
    assert cert["status"] == "failed" and cert["float_check"]["first_failure"]
    assert cert["proof"]["status"] == "counterexample" and "the snapped stack is not proved" in cert["reason"]
    assert main(["certify", "--weights", str(broken), "dihedral:3", "--write", str(tmp_path / "no.json")]) == 2
    assert "no snapped network was proved" in capsys.readouterr().err and not (tmp_path / "no.json").exists()
    exact_path = exact.save(tmp_path / "exact.json")
    assert main(["certify", "--weights", str(exact_path), "dihedral:3"]) == 2
    assert "prove it with `bilinear verify" in capsys.readouterr().err


@pytest.mark.parametrize("spec,variant", [("dihedral:3", "rotation2d"), ("symmetric:4", "rotation2d"),
                                          ("quaternion", "diagonal"), ("dihedral:5", "full")])
def test_certify_snaps_a_perturbed_cascade(spec, variant):
    """1e-6 of noise on every layer: each layer snaps back to the cascade's matrices and the snap is
    proved, and the float stack is certified far (Theorem S5)."""
    from bilinear.analysis.certify import certify_stack
    from bilinear.constructions import drift_layers

    a = from_spec(spec)
    exact = cascade(a, variant)
    c = certify_stack(drift_layers(exact, 1e-6), a, test_length=40, words=8)
    assert c.status == "horizon" and c.proof.status == "proved" and c.certified > 10**4
    assert max(d["max_distance"] for d in c.snap.describe()) < 1e-5
    assert [w.A.tolist() for w in c.snapped_weights().layers] == [w.A.tolist() for w in exact.layers]


def test_certify_stack_where_snapping_must_fail_or_the_float_stack_fails():
    from bilinear.analysis.certify import certify_stack
    from bilinear.constructions import drift_layers

    a = from_spec("dihedral:3")
    exact = cascade(a, "rotation2d")
    far = drift_layers(exact, 1e-2)  # every layer moved about 1e-2: no entry snap within 1e-4
    lost = drift_layers(exact, 0.1)  # nor a snap against the layer's own automaton (88 directions, none proved)
    c = certify_stack(lost, a, test_length=40, words=8)
    assert c.status == "failed" and c.snap is None and c.proof is None and c.snapped_weights() is None
    assert "no exact snap: layer 1" in c.reason and "automaton" in c.reason
    # a looser tolerance snaps it back and proves the snap, but the float stack drifts off within 500 steps
    c = certify_stack(far, a, test_length=500, words=16, tol=0.05)
    assert c.status == "snapped" and c.proof.status == "proved" and not c.check.passed
    assert "fails on the word" in c.reason and len(c.check.first_failure) > c.certified


def _exact_labels(stack, word):
    """The stack's label of ``word`` in Fractions (layer by layer; a tie is None)."""
    from fractions import Fraction

    symbols = list(word)
    label = None
    for layer in stack.layers:
        h = [Fraction(x) for x in layer.h0.tolist()]
        classes = []
        for s in symbols:
            h = [sum(Fraction(a) * x for a, x in zip(row, h)) for row in layer.A[s].tolist()]
            scores = [sum(Fraction(r) * x for r, x in zip(row, h)) for row in layer.readout.tolist()]
            top = max(scores)
            classes.append(scores.index(top) if scores.count(top) == 1 else None)
        label = classes[-1] if classes else None
        symbols = [s * layer.n_classes + c for s, c in zip(symbols, classes)] if None not in classes else None
        if symbols is None:
            break
    return label


def test_intermediate_classes_that_floats_get_wrong_are_decided_exactly():
    """Layer 1's two scores on (1, 1) are 3/10 (as 1/10 + 2/10) and 3/10 + 2^-60: in floats the
    first is larger (0.1 + 0.2 rounds up, 0.3 + 2^-60 rounds to 0.3), exactly the second; on
    (-1, -1) the reverse.  Layer 2 resets to the class it is given.  Read exactly the stack
    labels even parity 1 and odd parity 0 on every word; a screen that trusted the floats
    would read the opposite classes."""
    from fractions import Fraction

    tiny = Fraction(1, 2**60)
    layer1 = Weights("diagonal", A=[[[1, 0], [0, 1]], [[-1, 0], [0, -1]]], h0=[1, 1],
                     readout=[[Fraction(1, 10), Fraction(2, 10)], [Fraction(3, 10) + tiny, 0]])
    reset = [[[1, 1], [0, 0]], [[0, 0], [1, 1]]]  # h -> (sum h) e_c, for class c of layer 1
    layer2 = Weights("full", A=[reset[0], reset[1], reset[0], reset[1]], h0=[0, 1], readout=[[1, 0], [0, 1]])
    stack = Stack((layer1, layer2))
    a = Automaton([[0, 1], [1, 0]], labels=[1, 0])  # even -> 1, odd -> 0
    words = [w for n in range(1, 5) for w in itertools.product(range(2), repeat=n)]  # (and the empty word: 1)
    assert all(_exact_labels(stack, w) == a.label(list(w)) for w in words)  # the oracle agrees
    assert run_float(stack, np.array([[0]])).labels[0, -1] != a.label([0])  # floats do not
    assert prove_stack(stack, a).status == "proved"


def test_prove_stack_checks_its_inputs():
    from bilinear.errors import MismatchError

    s, parity = Stack((PARITY1, COPY2)), from_spec("parity")
    assert prove_stack(s, parity, bound=1).status == "proved"  # two tuples <= 1 x 2 states
    for bad in (0, -1, True, 1.5):
        with pytest.raises(WeightsError, match="bound must be a positive integer"):
            prove_stack(s, parity, bound=bad)
    with pytest.raises(MismatchError):
        prove_stack(s, from_spec("cyclic:3"))


def test_a_one_class_last_layer_is_proved_without_a_margin():
    """One class: every word is right, the margin is None (no other class), and the stack
    prover still reads the last layer's (infinite) bounds."""
    one = Weights("diagonal", A=[[[1]], [[1]], [[-1]], [[-1]]], h0=[1], readout=[[1]])
    a = Automaton([[0, 1], [1, 0]], labels=[0, 0])
    result = prove_stack(Stack((PARITY1, one)), a)
    assert result.status == "proved" and result.margin is None


def test_intermediate_classes_with_unequal_error_bounds_are_decided_exactly():
    """Layer 1's class 0 row (10^6, -10^6 + 1 + 2^-30) carries a float error bound near 10^-8
    (its entries are large), class 1's row (1/2, 1/2) one near 10^-15.  On (1, 1) the scores are
    1 + 2^-30 and 1, on (-1, -1) their negatives: the float midpoints are in the exact order, but
    the intervals overlap, so the screen must not decide either way from its endpoints (an
    interval compared by a wrong endpoint would read class 1 on (1, 1), or class 0 on (-1, -1)).
    Layer 2 resets to the class it is given, so the stack computes parity labelled 0 / 1."""
    from fractions import Fraction

    big = 10**6
    layer1 = Weights("diagonal", A=[[[1, 0], [0, 1]], [[-1, 0], [0, -1]]], h0=[1, 1],
                     readout=[[big, -big + 1 + Fraction(1, 2**30)], [Fraction(1, 2), Fraction(1, 2)]])
    reset = [[[1, 1], [0, 0]], [[0, 0], [1, 1]]]  # h -> (sum h) e_c, for class c of layer 1
    layer2 = Weights("full", A=[reset[0], reset[1], reset[0], reset[1]], h0=[1, 0], readout=[[1, 0], [0, 1]])
    stack, parity = Stack((layer1, layer2)), from_spec("parity")
    words = [w for n in range(1, 5) for w in itertools.product(range(2), repeat=n)]
    assert all(_exact_labels(stack, w) == parity.label(list(w)) for w in words)  # the oracle agrees
    result = prove_stack(stack, parity)
    assert result.status == "proved" and result.hidden_states == 2


def test_a_tie_in_an_intermediate_layer_reports_that_layers_scores():
    """Layer 1 scores its two classes equally on every direction: the first symbol makes a tie
    there, reported with layer 1's (float) scores, not their error bounds."""
    tie = Weights("diagonal", A=[[[1]], [[-1]]], h0=[1], readout=[[3], [3]])
    result = prove_stack(Stack((tie, COPY2)), from_spec("parity"))
    assert result.status == "counterexample" and result.layer == 1 and result.got is None
    assert result.word == (0,) and result.scores == (3.0, 3.0)


@pytest.mark.parametrize("case", ["tie", "wrong start", "wrong later"])
def test_one_layer_stack_counterexamples_match_the_prover(case):
    """Every field of a one-layer stack's counterexample is the single-layer prover's: the word,
    the labels, the scores and the pairs explored, whether the last layer ties, is wrong at the
    empty word, or is wrong later."""
    a = from_spec("parity")
    w = {"tie": Weights("full", A=[[[1, 0], [0, 1]], [[1, 0], [1, 0]]], h0=[1, 0],
                        readout=[[1, 0], [0, 1]]),  # symbol 1 sends (1, 0) to (1, 1): a tie
         "wrong start": Weights("diagonal", A=[[[1]], [[-1]]], h0=[-1], readout=[[1], [-1]]),
         "wrong later": Weights("diagonal", A=[[[-1]], [[-1]]], h0=[1], readout=[[1], [-1]])}[case]
    p, q = prove(w, a), prove_stack(Stack((w,)), a)
    assert p.status == q.status == "counterexample"
    assert len(q.word) == (0 if case == "wrong start" else 1)
    assert (p.word, p.expected, p.got, p.scores, p.states_explored) == (
        q.word, q.expected, q.got, q.scores, q.states_explored)
    assert q.layer == 1


def test_a_one_class_first_layer_routes_every_symbol_as_class_0():
    """Layer 1 has one class: layer 2 reads symbol s as s * 1 + 0 at every step (a cached class
    other than 0 would send it to the next symbol's matrix)."""
    one = Weights("diagonal", A=[[[1]], [[1]]], h0=[1], readout=[[1]])
    result = prove_stack(Stack((one, PARITY1)), from_spec("parity"))
    assert result.status == "proved"


def test_stack_proof_out_of_time_and_its_last_progress_line(monkeypatch):
    """A spent budget gives ``unproved`` with the seconds spent; with progress on, the last report
    is the proof's own counts."""
    from bilinear.constructions.proof import search
    a = from_spec("symmetric:5")
    stack = Stack((build(a, "full"),))
    spent = prove_stack(stack, a, time_budget=1e-9)
    assert spent.status == "open" and spent.cause == "time" and "time budget ran out after" in spent.reason
    monkeypatch.setattr(search, "PROGRESS_AFTER", 0.0)
    monkeypatch.setattr(search, "PROGRESS_EVERY", 0.0)
    seen = []

    def report(pairs, directions, seconds):  # one report during the proof, then only the last
        seen.append((pairs, directions))
        monkeypatch.setattr(search, "PROGRESS_EVERY", 1e9)

    proof = prove_stack(stack, a, progress=report)
    assert proof.status == "proved" and len(seen) == 2
    assert seen[0][0] < proof.states_explored and seen[1] == (proof.states_explored, proof.hidden_states)
