"""analysis/certify.py's claims against references written or computed in the tests (benchmarks/mutate_auto.py,
target certify_network).

The sentences and JSON of a certificate are compared with texts written by hand; certify_network's
status, search length, floor and failure kind with the rules of its docstring, its search and proof
replaced by stubs that record what they are given; _best_proved's choice among proved snaps with its
docstring's rule on a made-up set of candidates; exact_margin_sign with margins worked out by hand; and
one real certificate with an exhaustive float run of every word up to length 10 written here in numpy.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from bilinear.analysis import certify as C
from bilinear.automata import from_spec
from bilinear.constructions.horizon import failsearch, horizon as H, horizon_stack
from bilinear.constructions.horizon.horizon_base import Horizon
from bilinear.constructions.proof import prover
from bilinear.constructions.values.weights import Weights
from bilinear.errors import BilinearError, WeightsError

C3 = from_spec("cyclic:3")
PARITY = from_spec("parity")


def _fake_snap(rule="the block snap", distance=(0.01, 0.02), isometric=True, kept=2, name=None):
    return SimpleNamespace(rule=rule, distance=distance, isometric=isometric, kept_coords=tuple(range(kept)),
                           name=name or rule, block_weights=name or rule,
                           to_json=lambda: {"rule": rule}, original=lambda: ("original", rule))


def _fake_proof(status="proved", text=None):
    return SimpleNamespace(status=status, text=text, states_explored=12, margin_float=0.5,
                           to_json=lambda: {"status": status})


# ------------------------------------------------------------------------------------------
# the sentences and the JSON, against texts written by hand
# ------------------------------------------------------------------------------------------
WHERE = "float network (float64 evaluation, rounding charged)"


def _cert(**kw):
    base = dict(status="horizon", variant="rotation2d", hidden=8, automaton="cyclic:5", search_length=2000)
    return C.NetworkCertificate(**{**base, **kw})


def test_up_to_sentences_and_json_are_the_certificates_fields():
    h = Horizon.up_to(725, "float64", "global", "a note", epsilon=0.001, margin=0.25, rho=1.0)
    real = Horizon.up_to(900, "real", "global", "real note")
    f32 = Horizon.none("float32", "too coarse")
    snap, proof = _fake_snap(), _fake_proof()
    cert = _cert(snap=snap, proof=proof, horizon=h, horizons={"float64": h, "real": real, "float32": f32},
                 failing=(1,) * 63, failing_text="1^63", failure_kind="round-off",
                 attempts=(("the construction", "counterexample 1 1"),), write_error="the file exists")
    assert cert.certified == 725 and cert.snapped_weights() == ("original", "the block snap")
    assert cert.to_text() == (
        "certificate of a rotation2d network (hidden 8) on cyclic:5: horizon\n"
        "snap: the block snap: 2 of 8 dims kept; relative distance per matrix 0.01, 0.02\n"
        "snap proved for every length: 12 pairs, minimum margin 0.5\n"
        "  tried the construction: counterexample 1 1\n"
        f"{WHERE}: correct for every word up to length 725 (certified, global bound; eps 0.001, margin 0.25, "
        "rho 1); a note\n"
        "  the same bound in real: every word up to length 900; float32: no length (too coarse)\n"
        "float network: fails at length 63 on 1^63 (float64 evaluation; a round-off failure: the network in real "
        "arithmetic is right on it)\n"
        "nothing written: the file exists\n")
    data = cert.to_json()
    assert data == {
        "status": "horizon", "automaton": "cyclic:5", "variant": "rotation2d", "hidden": 8,
        "snap": {"rule": "the block snap"}, "snap_proof": {"status": "proved"}, "arithmetic": "float64",
        "certified_length": 725, "certified_every_length": False, "horizon": h.to_json(),
        "horizons": {"float64": h.to_json(), "real": real.to_json(), "float32": f32.to_json()},
        "failing_length": 63, "failing_word": "1^63", "failing_symbols": [1] * 63, "failure_kind": "round-off",
        "search_length": 2000, "test_length": 500, "attempts": [{"rule": "the construction",
                                                                 "result": "counterexample 1 1"}],
        "seconds": 0.0}


def test_a_horizon_without_constants_or_note_has_no_detail():
    h = Horizon.up_to(3, "float64", "orbit", "")
    cert = _cert(snap=_fake_snap(), proof=_fake_proof(), horizon=h, horizons={"float64": h},
                 failing=(0, 1), failing_text="0 1", failure_kind="drift")
    lines = cert.to_text().splitlines()
    assert lines[3:] == [f"{WHERE}: correct for every word up to length 3 (certified, orbit bound)",
                         "float network: fails at length 2 on 0 1 (float64 evaluation; it fails in real arithmetic too)"]


def test_every_length_sentences():
    h = Horizon.every_length("float64", "tube", "the invariant tube")
    cert = _cert(status="proved", snap=_fake_snap(), proof=_fake_proof(), horizon=h,
                 horizons={"float64": h, "real": Horizon.every_length("real", "tube", "t")})
    assert cert.certified is None
    assert cert.to_text().splitlines()[3:] == [
        f"{WHERE}: correct for every word of every length (proved: the invariant tube)",
        "  the same bound in real: every word of every length",
        "float network: no word fails (every length is certified above); no failing-word search run"]
    data = cert.to_json()
    assert data["certified_every_length"] is True and data["certified_length"] is None
    assert data["failing_length"] is None and data["failing_symbols"] is None


def test_no_proof_and_no_failure_sentences():
    cert = _cert(status="failed", attempts=(("the block snap", "the reachable set outgrew the bound"),))
    assert cert.certified is None and cert.snapped_weights() is None
    assert cert.to_text() == (
        "certificate of a rotation2d network (hidden 8) on cyclic:5: failed\n"
        "snap: no snapped network was proved\n"
        "  tried the block snap: the reachable set outgrew the bound\n"
        "float network: no failing word found up to length 2000 (directed search in float64)\n")
    data = cert.to_json()
    assert data["snap"] is None and data["snap_proof"] is None and data["horizon"] is None
    assert data["certified_length"] is None and data["certified_every_length"] is False
    assert data["failing_word"] is None and data["horizons"] == {}


def test_no_certified_length_sentences():
    h = Horizon.none("float64", "more than 2 products")
    cert = _cert(status="uncertified", snap=_fake_snap(), proof=_fake_proof(), horizon=h,
                 horizons={"float64": h, "real": Horizon.none("real", "")},
                 failing=(2,) * 600, failing_text="2^600", failure_kind="undecided")
    assert cert.to_text().splitlines()[3:] == [
        f"{WHERE}: no certified length (more than 2 products)",
        "  the same bound in real: no length",
        "float network: fails at length 600 on 2^600 (float64 evaluation; whether it fails in real arithmetic "
        "was not decided)"]


# ------------------------------------------------------------------------------------------
# certify_network: status, search length, floor and failure kind (its docstring's rules), the
# proof and the search replaced by stubs that record what they are given
# ------------------------------------------------------------------------------------------
class _World:
    def __init__(self, monkeypatch, best, found=None, shortened=None, sign=None):
        self.calls: dict = {}
        self.best = best

        def best_proved(weights, automaton, bound):
            self.calls["bound"] = bound
            return self.best

        def search(weights, automaton, length, snap, random_words, seed, floor=0):
            self.calls["search"] = (length, random_words, seed, floor)
            return found

        def shorten(weights, automaton, word, seconds=5.0, floor=0):
            self.calls["shorten"] = (word, floor)
            return word if shortened is None else shortened

        def margin_sign(weights, automaton, word):
            self.calls["sign"] = tuple(word)
            return sign

        monkeypatch.setattr(C, "_best_proved", best_proved)
        monkeypatch.setattr(failsearch, "search_failure", search)
        monkeypatch.setattr(failsearch, "shorten_failure", shorten)
        monkeypatch.setattr(C, "exact_margin_sign", margin_sign)


W3 = None


def _w3():
    global W3
    if W3 is None:
        from bilinear.constructions.handmade.registry import build
        W3 = build("cyclic:3", "rotation2d").to_float()
    return W3


def _best(h, real=None):
    hs = {"float64": h} if h is not None else {}
    if real is not None:
        hs["real"] = real
    return (_fake_snap(), _fake_proof(), hs, ()) if h is not None else (None, None, {}, ())


def test_a_failure_within_the_test_length_is_snapped_and_searched_past_the_horizon(monkeypatch):
    h = Horizon.up_to(100, "float64", "global", "")
    world = _World(monkeypatch, _best(h, Horizon.up_to(120, "real", "global", "")), found=(1,) * 160,
                   shortened=(1,) * 150, sign=-1)
    cert = C.certify_network(_w3(), C3)
    assert world.calls["bound"] == 64
    assert world.calls["search"] == (2000, 256, 0, 100)  # max(2000, 4 x 100); the floor: the certified length
    assert world.calls["shorten"] == ((1,) * 160, 100) and world.calls["sign"] == (1,) * 150
    assert cert.status == "snapped" and cert.failing == (1,) * 150 and cert.failing_text == "1^150"
    assert cert.failure_kind == "drift" and cert.automaton == "cyclic:3" and cert.search_length == 2000
    assert 0 <= cert.seconds < 10


@pytest.mark.parametrize("L, length", [(1000, 4000), (6000, 20000), (499, 2000)])
def test_the_default_search_length_is_four_certified_lengths_within_2000_to_20000(monkeypatch, L, length):
    world = _World(monkeypatch, _best(Horizon.up_to(L, "float64", "global", "")))
    cert = C.certify_network(_w3(), C3)
    assert world.calls["search"][0] == length and world.calls["search"][3] == L
    assert cert.status == "horizon" and cert.search_length == length and cert.failing is None


def test_a_given_search_length_is_used(monkeypatch):
    world = _World(monkeypatch, _best(Horizon.up_to(1000, "float64", "global", "")))
    assert C.certify_network(_w3(), C3, search_length=300).search_length == 300
    assert world.calls["search"][0] == 300


@pytest.mark.parametrize("sign, kind", [(1, "round-off"), (-1, "drift"), (0, "drift"), (None, "undecided")])
def test_no_proved_snap_fails_and_the_kind_is_the_real_margins_sign(monkeypatch, sign, kind):
    world = _World(monkeypatch, _best(None), found=(2, 2, 2), sign=sign)
    cert = C.certify_network(_w3(), C3)
    assert world.calls["search"] == (20000, 256, 0, 0)
    assert world.calls["shorten"] == ((2, 2, 2), 0)
    assert cert.status == "failed" and cert.failing == (2, 2, 2) and cert.failure_kind == kind
    assert cert.horizon is None and cert.certified is None


def test_a_failure_inside_the_real_horizon_is_round_off_without_the_balls(monkeypatch):
    world = _World(monkeypatch, _best(Horizon.up_to(10, "float64", "global", ""),
                                      Horizon.up_to(600, "real", "global", "")), found=(0,) * 599, sign=-1)
    cert = C.certify_network(_w3(), C3, search_length=700)
    assert cert.failure_kind == "round-off" and "sign" not in world.calls
    assert cert.status == "horizon"  # 599 > 500: past the test length


def test_every_length_runs_no_search(monkeypatch):
    world = _World(monkeypatch, _best(Horizon.every_length("float64", "tube", "t")), found=(1,))
    cert = C.certify_network(_w3(), C3)
    assert "search" not in world.calls and cert.status == "proved" and cert.failing is None
    assert cert.search_length == 20000


@pytest.mark.parametrize("n, status", [(600, "uncertified"), (500, "snapped"), (None, "uncertified")])
def test_no_certified_length_is_uncertified_unless_it_fails_within_the_test_length(monkeypatch, n, status):
    world = _World(monkeypatch, _best(Horizon.none("float64", "no")), found=None if n is None else (1,) * n, sign=-1)
    cert = C.certify_network(_w3(), C3)
    assert cert.status == status and world.calls["search"][3] == 0


def test_a_failure_inside_the_float64_horizon_is_an_internal_error(monkeypatch):
    _World(monkeypatch, _best(Horizon.up_to(100, "float64", "global", "")), found=(1,) * 100, sign=-1)
    with pytest.raises(BilinearError, match="internal error"):
        C.certify_network(_w3(), C3)
    _World(monkeypatch, _best(Horizon.up_to(100, "float64", "global", "")), found=(1,) * 101, sign=-1)
    assert C.certify_network(_w3(), C3).failing == (1,) * 101


@pytest.mark.parametrize("kw", [{"search_length": 0}, {"test_length": 0}, {"search_length": 10**6 + 1},
                                {"test_length": 10**6 + 1}])
def test_bad_lengths_are_refused(monkeypatch, kw):
    _World(monkeypatch, _best(None))
    with pytest.raises(WeightsError):
        C.certify_network(_w3(), C3, **kw)


def test_exact_weights_are_refused(monkeypatch):
    from bilinear.constructions.handmade.registry import build

    _World(monkeypatch, _best(None))
    with pytest.raises(WeightsError):
        C.certify_network(build("cyclic:3", "rotation2d"), C3)


# ------------------------------------------------------------------------------------------
# _best_proved: the choice among proved candidates (its docstring), on made-up candidates
# ------------------------------------------------------------------------------------------
class _Candidates:
    """Candidates by name: (the prover's status, the horizon's length ("every", None: no length, or per
    arithmetic), the ceiling, the distance, isometric)."""

    def __init__(self, monkeypatch, table):
        self.log: list = []
        self.nodes: list = []
        self.with_node: list = []
        snaps = {}
        for name, row in table.items():
            snaps[name] = _fake_snap(rule=f"rule {name}", distance=(row[3],), isometric=row[4], name=name)
        self.snaps = snaps
        self.table = table

        def candidates(weights, automaton, failures, proved):
            failures.append(("the factors snapped", "no"))
            yield from snaps.values()

        def prove(block_weights, automaton, bound):
            self.log.append(("prove", block_weights, bound))
            return SimpleNamespace(status=table[block_weights][0], text="0 1", name=block_weights)

        def horizon(length, arithmetic):
            if isinstance(length, dict):
                length = length[arithmetic]
            if length == "every":
                return Horizon.every_length(arithmetic, "tube", "")
            if length is None:
                return Horizon.none(arithmetic, "no")
            return Horizon.up_to(length, arithmetic, "global", "")

        def certified(weights, snap, proof, automaton, arithmetic="float64", nodes=True):
            self.log.append(("horizon", snap.name, arithmetic, nodes))
            return horizon(table[snap.name][1], arithmetic)

        def ceiling(weights, snap):
            return table[snap.name][2]

        def widest(weights, snap, proof, automaton, beat=-1.0):
            self.nodes.append((snap.name, beat))
            return horizon(self.node_lengths.get(snap.name), "float64")

        def with_node(found, weights, snap, proof, automaton, node=None):
            self.with_node.append((found.arithmetic, snap.name, None if node is None else node.order_key()))
            return found

        self.node_lengths: dict = {}
        monkeypatch.setattr(C, "_candidates", candidates)
        monkeypatch.setattr(prover, "prove", prove)
        monkeypatch.setattr(H, "certified_horizon", certified)
        monkeypatch.setattr(H, "horizon_ceiling", ceiling)
        monkeypatch.setattr(H, "node_horizon_widest", widest)
        monkeypatch.setattr(H, "with_node_horizon", with_node)

    def run(self, **kw):
        return C._best_proved(None, None, 64, **kw)


INF = float("inf")


def test_the_longest_of_the_first_three_proved_is_kept_and_alternatives_get_bound_8(monkeypatch):
    world = _Candidates(monkeypatch, {
        "a": ("counterexample", 0, INF, 0.1, True), "b": ("proved", 2000, INF, 0.1, True),
        "c": ("outgrew", 0, INF, 0.1, True), "d": ("proved", 3000, INF, 0.1, True),
        "e": ("proved", 5000, INF, 0.1, True), "f": ("proved", 9000, INF, 0.1, True)})
    snap, proof, horizons, attempts = world.run()
    assert snap.name == "e" and proof.name == "e"
    assert [x[1:] for x in world.log if x[0] == "prove"] == [("a", 64), ("b", 64), ("c", 8), ("d", 8), ("e", 8)]
    assert [x[1:] for x in world.log if x[0] == "horizon"] == [
        ("b", "float64", False), ("d", "float64", False), ("e", "float64", False),
        ("e", "real", False), ("e", "float32", False)]
    assert attempts == (("the factors snapped", "no"), ("rule a", "counterexample 0 1"),
                        ("rule c", "the reachable set outgrew the bound"))
    assert {k: v.length for k, v in horizons.items()} == {"float64": 5000, "real": 5000, "float32": 5000}
    assert world.nodes == [] and world.with_node == []  # every horizon at least NODE_BELOW = 1024


def test_every_length_ends_the_search(monkeypatch):
    world = _Candidates(monkeypatch, {"a": ("proved", "every", INF, 0.1, True), "b": ("proved", 9000, INF, 0.1, True)})
    snap, _, horizons, _ = world.run()
    assert snap.name == "a" and horizons["float64"].every
    assert [x[1] for x in world.log if x[0] == "prove"] == ["a"]


def test_nothing_proved(monkeypatch):
    world = _Candidates(monkeypatch, {"a": ("counterexample", 0, INF, 0.1, True)})
    assert world.run() == (None, None, {}, (("the factors snapped", "no"), ("rule a", "counterexample 0 1")))


def test_a_candidate_whose_ceiling_is_below_the_best_is_not_bounded(monkeypatch):
    world = _Candidates(monkeypatch, {"a": ("proved", 2000, INF, 0.1, True), "b": ("proved", 5000, 1999, 0.1, True),
                                      "c": ("proved", 3000, 2000, 0.1, True)})
    snap, _, _, attempts = world.run()
    assert snap.name == "c"  # b's ceiling 1999 < 2000: never bounded; c's 2000 is not below the best
    assert [x[1] for x in world.log if x[0] == "horizon" and x[2] == "float64"] == ["a", "c"]
    assert attempts == (("the factors snapped", "no"),)


def test_ties_go_to_the_smallest_distance(monkeypatch):
    world = _Candidates(monkeypatch, {"a": ("proved", 2000, INF, 0.3, True), "b": ("proved", 2000, INF, 0.1, True),
                                      "c": ("proved", 2000, INF, 0.2, True)})
    assert world.run()[0].name == "b"


def test_below_node_below_a_non_isometric_best_is_chosen_by_the_node_horizon(monkeypatch):
    world = _Candidates(monkeypatch, {"a": ("proved", 100, INF, 0.1, False), "b": ("proved", 200, INF, 0.1, False)})
    world.node_lengths = {"a": 700, "b": 300}
    snap, _, _, _ = world.run()
    assert snap.name == "a"  # max(100, 700) > max(200, 300)
    assert world.nodes == [("a", 100.0), ("b", 200.0)]
    assert world.with_node == [("float64", "a", 700.0), ("real", "a", 700.0), ("float32", "a", 700.0)]


def test_a_node_horizon_of_no_length_is_run_again_for_the_shortest(monkeypatch):
    world = _Candidates(monkeypatch, {"a": ("proved", 100, INF, 0.1, False), "b": ("proved", 200, INF, 0.1, False)})
    world.node_lengths = {}  # no length for either
    snap, _, _, _ = world.run()
    assert snap.name == "b"
    assert world.nodes == [("a", 100.0), ("b", 200.0), ("b", 200.0)]
    assert [x[2] for x in world.with_node] == [-1.0] * 3


@pytest.mark.parametrize("iso", [True, False])
def test_one_proved_gets_one_node_horizon_for_the_shortest_arithmetic(monkeypatch, iso):
    world = _Candidates(monkeypatch, {"a": ("proved", {"float64": 100, "real": 50, "float32": 100}, INF, 0.1, iso)})
    world.node_lengths = {"a": 500}
    world.run()
    assert world.nodes == [("a", 50.0)]  # run once, for the shortest of the three (real's 50)
    assert world.with_node == [("float64", "a", 500.0), ("real", "a", 500.0), ("float32", "a", 500.0)]


def test_isometric_best_of_two_is_not_chosen_by_nodes(monkeypatch):
    world = _Candidates(monkeypatch, {"a": ("proved", 100, INF, 0.1, True), "b": ("proved", 200, INF, 0.1, True)})
    world.node_lengths = {"a": 700, "b": 300}
    assert world.run()[0].name == "b" and world.nodes == [("b", 200.0)]


def test_the_node_horizon_is_not_run_at_node_below(monkeypatch):
    world = _Candidates(monkeypatch, {"a": ("proved", 1024, INF, 0.1, False), "b": ("proved", 1024, INF, 0.2, False)})
    assert world.run()[0].name == "a" and world.nodes == [] and world.with_node == []


def test_an_arithmetic_that_cannot_represent_the_weights_is_not_the_shortest(monkeypatch):
    world = _Candidates(monkeypatch, {"a": ("proved", 2000, INF, 0.1, True)})
    real = H.certified_horizon

    def certified(weights, snap, proof, automaton, arithmetic="float64", nodes=True):
        if arithmetic == "float32":
            return Horizon.none("float32", "float32 cannot represent the weights")
        return real(weights, snap, proof, automaton, arithmetic, nodes)

    monkeypatch.setattr(H, "certified_horizon", certified)
    assert world.run()[2]["float32"].kind == "none" and world.nodes == [] and world.with_node == []


# ------------------------------------------------------------------------------------------
# exact_margin_sign: margins worked out by hand
# ------------------------------------------------------------------------------------------
def _parity3(h0, R, A=None):
    """Parity on three dims: symbol 0 keeps, symbol 1 swaps the first two (the third stays)."""
    if A is None:
        A = np.array([np.eye(3), [[0, 1, 0], [1, 0, 0], [0, 0, 1]]], dtype=float)
    return Weights("full", A, np.array(h0, dtype=float), np.array(R, dtype=float))


def test_the_sign_of_the_real_margin_by_hand():
    R = [[1, 0, 0], [0, 1, 0]]
    w = _parity3([0.5, 0.25, 7.0], R)
    assert C.exact_margin_sign(w, PARITY, ()) == 1  # label 0: 0.5 - 0.25 > 0
    assert C.exact_margin_sign(w, PARITY, (1,)) == 1  # label 1, state (0.25, 0.5): right
    assert C.exact_margin_sign(w, PARITY, (0, 1, 1)) == 1
    stuck = _parity3([0.5, 0.25, 7.0], R, np.array([np.eye(3), np.eye(3)]))  # symbol 1 does not swap
    assert C.exact_margin_sign(stuck, PARITY, (1,)) == -1  # label 1, state (0.5, 0.25): wrong
    w = _parity3([0.25, 1.0, 0.0], R)
    assert C.exact_margin_sign(w, PARITY, ()) == -1  # 0.25 - 1 < 0 (the sum would be positive)
    tie = _parity3([0.75, 0.75, 0.0], R)
    assert C.exact_margin_sign(tie, PARITY, (0, 1)) == 0


def test_a_tie_with_a_third_class_is_a_tie():
    """Three classes (parity's labels are 0 and 1; class 2 is never the label): margins 0.5 and 0."""
    w = _parity3([0.5, 0.0, 0.5], [[1, 0, 0], [0, 1, 0], [0, 0, 1]])
    assert C.exact_margin_sign(w, PARITY, ()) == 0


def test_a_zero_state_is_a_tie():
    A = np.array([np.zeros((3, 3)), np.eye(3)])
    w = _parity3([0.5, 0.25, 0.0], [[1, 0, 0], [0, 1, 0]], A)
    assert C.exact_margin_sign(w, PARITY, (0, 0)) == 0


def test_words_up_to_4096_symbols_are_run():
    w = _parity3([0.5, 0.25, 7.0], [[1, 0, 0], [0, 1, 0]], np.array([2 * np.eye(3), 0.5 * np.eye(3)]))
    assert C.exact_margin_sign(w, PARITY, (0,) * 4096) == 1
    assert C.exact_margin_sign(w, PARITY, (0,) * 4097) is None


# ------------------------------------------------------------------------------------------
# stack_horizon: the shortest layer's horizon, per layer from _best_proved (stubbed)
# ------------------------------------------------------------------------------------------
def _stack_world(monkeypatch, layers):
    """``layers``: per layer (automaton states or None, horizons dict, attempts)."""
    bounds = []

    def layer_automaton(e):
        states = layers[e][0]
        return (None, "a tie") if states is None else (SimpleNamespace(n_states=states, layer=e), "")

    def best_proved(f, m, bound):
        bounds.append(bound)
        _, hs, attempts = layers[m.layer]
        return None, None, hs, attempts

    monkeypatch.setattr(horizon_stack, "layer_automaton", layer_automaton)
    monkeypatch.setattr(C, "_best_proved", best_proved)
    stack = SimpleNamespace(layers=list(range(len(layers))))
    return C.stack_horizon(stack, stack), bounds


def _up(n):
    return {"float64": Horizon.up_to(n, "float64", "global", "")}


def test_the_stack_horizon_is_the_shortest_layer_horizon(monkeypatch):
    every = {"float64": Horizon.every_length("float64", "tube", "")}
    (h, per), bounds = _stack_world(monkeypatch, [(4, _up(80), ()), (5, every, ()), (6, _up(50), ())])
    assert h.length == 50 and h.note == "the shortest layer horizon, layer 3's" and bounds == [64, 64, 64]
    assert [(s, x.order_key()) for s, x in per] == [(4, 80.0), (5, INF), (6, 50.0)]


def test_every_layer_at_every_length(monkeypatch):
    every = {"float64": Horizon.every_length("float64", "tube", "")}
    (h, per), _ = _stack_world(monkeypatch, [(4, every, ()), (5, every, ())])
    assert h.every and len(per) == 2


def test_a_layer_without_an_automaton_or_a_proved_snap_has_no_length(monkeypatch):
    tried = (("r1", "w1"), ("r2", "w2"), ("r3", "w3"))
    (h, per), _ = _stack_world(monkeypatch, [(4, _up(80), ()), (None, {}, ()), (6, {}, tried), (7, {}, ())])
    assert h.kind == "none" and h.note == "layer 2 has no certified length"
    assert [s for s, _ in per] == [4, None, 6, 7]
    assert per[1][1].note == "the snapped layer 2: a tie"
    assert per[2][1].note == "no snap of the float layer 3 is proved against M_3 (r1: w1; r2: w2)"
    assert per[3][1].note == "no snap of the float layer 4 is proved against M_4 (no candidate)"


# ------------------------------------------------------------------------------------------
# one real certificate against an exhaustive float run written here
# ------------------------------------------------------------------------------------------
def _first_failure(A, h0, R, automaton, n):
    """The length of the shortest failing word of length <= n (every word run), else None: h = A[a] h,
    normalised, and the argmax of R h must be the automaton's label (a tie fails)."""
    states = h0[None, :] / np.linalg.norm(h0)
    q = np.array([int(automaton.start)])
    for length in range(n + 1):
        scores = states @ R.T
        lab = automaton.labels[q]
        right = scores[np.arange(len(q)), lab]
        others = scores.copy()
        others[np.arange(len(q)), lab] = -np.inf
        if np.any(right <= others.max(axis=1)):
            return length
        k = A.shape[0]
        states = np.einsum("aij,nj->nai", A, states).reshape(-1, A.shape[1])
        states /= np.linalg.norm(states, axis=1, keepdims=True)
        q = automaton.delta[:, q].T.reshape(-1)
        assert len(q) == k ** (length + 1)
    return None


def _fails(A, h0, R, automaton, word):
    h, q = h0 / np.linalg.norm(h0), int(automaton.start)
    for a in word:
        h = A[a] @ h
        h /= np.linalg.norm(h)
        q = int(automaton.delta[a, q])
    s = R @ h
    return any(s[c] >= s[automaton.labels[q]] for c in range(len(s)) if c != automaton.labels[q])


def test_a_real_certificate_says_what_the_float_run_does():
    from bilinear.constructions.handmade.registry import build

    A, h0, R = build("cyclic:3", "rotation2d").to_float().float_arrays()
    t = 2 * np.pi / 3 + 0.0005  # symbol 1 turns 2 pi / 3 + 0.0005 (symbol 2 twice that): the error grows each step
    A = A.copy()
    A[1] = [[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]]
    A[2] = A[1] @ A[1]
    cert = C.certify_network(Weights("rotation2d", A, h0, R), C3, search_length=1100, shorten_seconds=0.5)
    # by hand: a word with i ones and j twos ends 0.0005 (i + 2 j) rad off its class's direction, and the classes
    # are split at +-pi/3; so every word up to length 1047 is right (0.001 x 1047 < pi/3), and 2^1048 fails first
    assert 1047 * 0.001 < np.pi / 3 < 1048 * 0.001
    assert not _fails(A, h0, R, C3, (2,) * 1047) and _fails(A, h0, R, C3, (2,) * 1048)
    assert _first_failure(A, h0, R, C3, 8) is None  # every word up to length 8 is right in the float run
    assert cert.failing is not None and _fails(A, h0, R, C3, cert.failing)
    assert cert.certified is not None and cert.certified <= 1047 and len(cert.failing) == 1048
    text = cert.to_text()
    assert f"fails at length 1048 on {cert.failing_text} " in text and cert.failing_text == "2^1048"
    assert f"correct for every word up to length {cert.certified} " in text
    assert cert.status == "horizon"  # the failure lies past the test length 500
    # the real network turns the same angles (to rounding), so it is wrong on 2^1048 too: never round-off
    # (the balls of exact_margin_sign grow by |A| entrywise each step and do not decide it at this length)
    assert cert.failure_kind in ("drift", "undecided")
