"""The time budget of ``settle`` phase by phase (constructions/settle.py), on a clock the test
drives: each phase is replaced by one that records the seconds it was given and then advances the
clock by a known amount, so every budget a phase receives, every doubling of the deepened proof and
every figure of the verdict's text is an exact number (issue 48 item 1: every phase inside the
budget; docs/architecture.md, "Time budgets")."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from bilinear.automata import from_spec
from bilinear.constructions import build
from bilinear.constructions import settle as settle_module
from bilinear.constructions.horizon import exactwords
from bilinear.constructions.impossible import bounds as bounds_module
from bilinear.constructions.proof import stackprover
from bilinear.constructions.proof.verdicts import Proof, Unproved
from bilinear.constructions.settle import MAX_DEEPENED_BOUND, _deepened_prove, settle


class FakeClock:
    """``time.perf_counter`` of the settle module, moved on by the test's phases only."""

    def __init__(self) -> None:
        self.now = 1000.0

    def perf_counter(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch):
    c = FakeClock()
    monkeypatch.setattr(settle_module, "time", SimpleNamespace(perf_counter=c.perf_counter))
    return c


def _open(bound: int, cause: str = "bound", explored: int = 7) -> Unproved:
    return Unproved(dim=2, words=(), texts=(), state=None, bound=bound, states_explored=explored,
                    reason=f"stopped ({cause})", cause=cause)


def _proof() -> Proof:
    return Proof(dim=2, states_explored=5, hidden_states=3, margin=None, margin_float=None, state_map=((0,),))


def _prover(clock, calls, seconds, outcome):
    """A prove_network that records (bound, time_budget), takes ``seconds`` and returns
    ``outcome(bound, call number)``."""

    def prove_network(weights, automaton, bound=16, time_budget=None, progress=None):
        calls.append((bound, time_budget))
        clock.now += seconds
        return outcome(bound, len(calls))

    return prove_network


W = build("cyclic:3", "rotation2d")
CYCLIC3 = from_spec("cyclic:3")


def test_the_deepened_proof_doubles_its_bound_until_the_budget_is_spent(clock, monkeypatch):
    """Each search takes 1 s of a 3.5 s budget: bounds 16, 32, 64, 128, each given what is left
    (3.5, 2.5, 1.5, 0.5 s); the fourth ends past the budget and is the last."""
    calls: list = []
    monkeypatch.setattr(stackprover, "prove_network", _prover(clock, calls, 1.0, lambda b, n: _open(b)))
    result, reached = _deepened_prove(W, CYCLIC3, 16, 3.5, None)
    assert calls == [(16, 3.5), (32, 2.5), (64, 1.5), (128, 0.5)]
    assert reached == 128 and result.bound == 128 and result.reason == "stopped (bound)"
    calls.clear()  # a budget spent exactly (2 s of 2) is spent: no third search with 1 ms
    _deepened_prove(W, CYCLIC3, 16, 2.0, None)
    assert calls == [(16, 2.0), (32, 1.0)]


def test_the_deepened_proof_stops_at_a_verdict_and_at_its_largest_bound(clock, monkeypatch):
    calls: list = []
    monkeypatch.setattr(stackprover, "prove_network",
                        _prover(clock, calls, 0.1, lambda b, n: _proof() if n == 3 else _open(b)))
    result, reached = _deepened_prove(W, CYCLIC3, 8, 100.0, None)
    assert [b for b, _ in calls] == [8, 16, 32] and reached == 32 and result.status == "proved"
    assert [round(t, 9) for _, t in calls] == [100.0, 99.9, 99.8]
    calls.clear()  # from just below the largest bound: doubled once, cut to it, then no further
    monkeypatch.setattr(stackprover, "prove_network", _prover(clock, calls, 0.0, lambda b, n: _open(b)))
    result, reached = _deepened_prove(W, CYCLIC3, MAX_DEEPENED_BOUND // 2 + 1, 100.0, None)
    assert [b for b, _ in calls] == [MAX_DEEPENED_BOUND // 2 + 1, MAX_DEEPENED_BOUND]
    assert reached == MAX_DEEPENED_BOUND


def test_without_a_budget_the_proof_is_tried_once(clock, monkeypatch):
    calls: list = []
    monkeypatch.setattr(stackprover, "prove_network", _prover(clock, calls, 5.0, lambda b, n: _open(b)))
    result, reached = _deepened_prove(W, CYCLIC3, 16, None, None)
    assert calls == [(16, None)] and reached == 16 and result.reason == "stopped (bound)"


def test_a_search_stopped_by_time_says_how_long_all_of_them_took(clock, monkeypatch):
    """The reason counts every search since ``since`` (here 0.25 s before the first), not the
    last one's seconds, and names the last search's bound and pairs."""
    calls: list = []
    monkeypatch.setattr(stackprover, "prove_network",
                        _prover(clock, calls, 1.5, lambda b, n: _open(b, "time" if n == 2 else "bound", 4321)))
    since = clock.now - 0.25
    result, reached = _deepened_prove(W, CYCLIC3, 16, 10.0, None, since)
    assert calls == [(16, 10.0), (32, 8.5)] and reached == 32
    assert result.reason.startswith("time budget ran out after 3.25 s (the last search, with bound 32 x "
                                    "states, held 4321 (state, direction) pairs)")
    calls.clear()  # without since: from the first search
    result, _ = _deepened_prove(W, CYCLIC3, 16, 10.0, None)
    assert result.reason.startswith("time budget ran out after 3.00 s")
    calls.clear()  # a search stopped at its bound keeps its own reason
    monkeypatch.setattr(stackprover, "prove_network", _prover(clock, calls, 20.0, lambda b, n: _open(b)))
    assert _deepened_prove(W, CYCLIC3, 16, 10.0, None)[0].reason == "stopped (bound)"


def test_the_deepening_progress_line_names_the_bound_and_the_seconds_in_all(clock, capsys):
    report = settle_module._deepening_progress(True, 64, clock.now - 2.0)
    clock.now += 1.25
    report(1200, 345, 0.5)
    assert capsys.readouterr().err == ("prove (bound 64 x states; each bound searches from the start): 1200 "
                                       "(state, direction) pairs, 345 directions, 3.2 s in all\n")
    mine = object()
    assert settle_module._deepening_progress(mine, 64, 0.0) is mine
    assert settle_module._deepening_progress(None, 64, 0.0) is None


def test_the_directed_words_get_a_quarter_of_the_budget_at_most(clock, monkeypatch):
    """exact_failure is given min(EXACT_WORDS_SECONDS, budget / 4); the proof what is left."""
    given: list = []

    def exact_failure(weights, automaton, length, seconds):
        given.append((length, seconds))
        clock.now += 0.75
        return None

    monkeypatch.setattr(exactwords, "exact_failure", exact_failure)
    cell = settle_module.Cell("cyclic:3", "rotation2d", "open")
    same, left = settle_module._directed_first(cell, W, CYCLIC3, 4.0)
    assert same is cell and given == [(500, 1.0)] and left == 3.25
    big = 100 * exactwords.EXACT_WORDS_SECONDS
    assert settle_module._directed_first(cell, W, CYCLIC3, big)[1] == big - 0.75
    assert given[-1] == (500, exactwords.EXACT_WORDS_SECONDS)
    assert settle_module._directed_first(cell, W, CYCLIC3, None) == (cell, None)
    assert given[-1] == (500, exactwords.EXACT_WORDS_SECONDS)
    assert settle_module._directed_first(cell, W, CYCLIC3, 0.5)[1] == 1e-3  # spent: the floor


class _Recorded:
    """Phases of one settle() that take known seconds, and the budgets handed out: ``events``
    lists ``("deadline", s)`` and ``("clock", s)`` (the alarm and the clock a phase runs under),
    each phase's name, ``("prove", time_budget)`` and ``("directed", seconds)`` (the exact pass
    over the directed words: given exact weights only, never a construction)."""

    def __init__(self, clock, monkeypatch, *, certify=0.0, build=0.0, prove=0.0, bound=0.0, depth=0.0, directed=0.0):
        from bilinear.constructions.impossible import depth as depth_module

        self.clock, self.events = clock, []

        def timed(name, seconds, fn):
            def run(*args, **kwargs):
                self.events.append(name)
                clock.now += seconds
                return fn(*args, **kwargs)
            return run

        real_deadline, real_clock, real_prove = settle_module.deadline, settle_module.Clock, stackprover.prove_network

        def deadline(seconds):
            self.events.append(("deadline", seconds))
            return real_deadline(None)  # recorded; no alarm on a fake clock

        def clock_of(seconds, progress=None):
            self.events.append(("clock", seconds))
            return real_clock(None, progress)

        def prove_network(weights, automaton, bound=16, time_budget=None, progress=None):
            self.events.append(("prove", time_budget))
            clock.now += prove
            return real_prove(weights, automaton, bound=bound, progress=progress)

        monkeypatch.setattr(settle_module, "certify", timed("certify", certify, settle_module.certify))
        monkeypatch.setattr(settle_module, "_build", timed("build", build, settle_module._build))
        monkeypatch.setattr(bounds_module, "lower_bound", timed("lower bound", bound, bounds_module.lower_bound))
        monkeypatch.setattr(depth_module, "min_layers", timed("depth", depth, depth_module.min_layers))
        def exact_failure(weights, automaton, length, seconds):
            self.events.append(("directed", seconds))
            clock.now += directed
            return None

        monkeypatch.setattr(stackprover, "prove_network", prove_network)
        monkeypatch.setattr(exactwords, "exact_failure", exact_failure)
        monkeypatch.setattr(settle_module, "deadline", deadline)
        monkeypatch.setattr(settle_module, "Clock", clock_of)

    def budgets(self):
        return [e if isinstance(e, str) else (e[0], None if e[1] is None else round(e[1], 9)) for e in self.events]


def test_each_phase_of_a_layer_gets_what_is_left_of_the_budget(clock, monkeypatch):
    """dihedral:6 block:2 (no certificate kind: construction, proof, lower bound) with a 10 s
    budget: the construction takes 2 s, the proof 3 s, the lower bound 1 s; each phase's alarm
    and clock get what is left when it starts."""
    phases = _Recorded(clock, monkeypatch, build=2.0, prove=3.0, bound=1.0)
    cell = settle("dihedral:6", "block:2", time_budget=10.0)
    assert cell.summary == "proved d=2 (minimal)" and cell.out_of_time == ()
    assert phases.budgets() == [("deadline", 10.0), ("deadline", 10.0), ("clock", 10.0), "build", ("prove", 8.0),
                                ("deadline", 5.0), ("clock", 5.0), "lower bound"]
    assert cell.seconds == 6.0 and cell.time_budget == 10.0


def test_the_certificate_search_counts_against_the_budget(clock, monkeypatch):
    """cyclic:3 rotation2d (a commuting variant with certificates): the search takes 1.5 s, so
    the construction's alarm and clock get 8.5 s; the depth bound comes last."""
    phases = _Recorded(clock, monkeypatch, certify=1.5, build=0.5, prove=1.0, bound=1.0, depth=0.25)
    cell = settle("cyclic:3", "rotation2d", time_budget=10.0)
    assert cell.status == "proved" and cell.out_of_time == () and cell.depth.min_layers == 1
    assert phases.budgets() == [("deadline", 10.0), "certify", ("deadline", 8.5), ("clock", 8.5), "build",
                                ("prove", 8.0), ("deadline", 7.0), ("clock", 7.0), "lower bound",
                                ("deadline", 6.0), ("clock", 6.0), "depth"]
    assert cell.seconds == 4.25 and cell.time_budget == 10.0


def test_phases_after_an_overlong_proof_get_their_grace(clock, monkeypatch):
    """The proof takes 12 s of a 10 s budget: the lower bound and the depth bound still get
    AFTER_PROOF_GRACE each, and the verdict stands."""
    phases = _Recorded(clock, monkeypatch, build=0.5, prove=12.0, bound=0.1)
    cell = settle("cyclic:3", "rotation2d", time_budget=10.0)
    grace = settle_module.AFTER_PROOF_GRACE
    assert phases.budgets()[4:] == ["build", ("prove", 9.5), ("deadline", grace), ("clock", grace), "lower bound",
                                    ("deadline", grace), ("clock", grace), "depth"]
    assert cell.status == "proved" and cell.seconds == pytest.approx(12.6)


def test_a_given_weights_budget_is_counted_from_the_start(clock, monkeypatch):
    """Weights given: the directed words first (a quarter of what is left at most), then the
    proof with the rest; ``started`` (before settle was called) counts too."""
    phases = _Recorded(clock, monkeypatch, prove=1.0, directed=0.5)
    cell = settle("cyclic:3", "rotation2d", weights=W, time_budget=10.0, started=clock.now - 2.0, depth=False)
    assert phases.budgets() == [("directed", 2.0), ("prove", 7.5), ("deadline", 6.5), ("clock", 6.5), "lower bound"]
    assert cell.status == "proved" and cell.seconds == 3.5


def test_a_stack_is_built_and_proved_within_what_the_depth_bound_left(clock, monkeypatch):
    """dihedral:3 rotation2d on 2 layers: the depth bound (before the stack, no grace) takes 3 s
    of 10, the cascade 2 s, so the proof gets 5 s; a given stack's proof gets what the depth bound
    left."""
    from bilinear.constructions.handmade import cascade as cascade_module

    phases = _Recorded(clock, monkeypatch, depth=3.0, prove=1.0)
    real = cascade_module.build_stack

    def build_stack(*args):
        phases.events.append("stack")
        clock.now += 2.0
        return real(*args)

    monkeypatch.setattr(cascade_module, "build_stack", build_stack)
    cell = settle("dihedral:3", "rotation2d", layers=2, time_budget=10.0)
    assert cell.summary == "proved 2 layers, d=2+4" and cell.seconds == 6.0
    assert phases.budgets() == [("deadline", 10.0), ("clock", 10.0), "depth", ("deadline", 7.0), ("clock", 7.0),
                                "stack", ("prove", 5.0)]
    phases.events.clear()
    given = settle("dihedral:3", "rotation2d", weights=real(from_spec("dihedral:3"), "rotation2d", 2)[0],
                   time_budget=10.0)
    assert given.status == "proved" and phases.budgets()[-2:] == ["depth", ("prove", 7.0)]


def test_a_stack_whose_construction_runs_out_of_time_is_open_and_says_so(clock, monkeypatch):
    """The cascade's clock stops it (OutOfTime, with how far it got): an open cell naming the
    construction, not an exception (it was one: ``verify symmetric:4 rotation2d --layers 2
    --time-budget 0.01`` ended in a traceback)."""
    from bilinear.constructions.handmade import cascade as cascade_module
    from bilinear.constructions.proof.search import OutOfTime

    def build_stack(*args):
        clock.now += 4.0
        raise OutOfTime(4.0, 3, 24, "states")

    monkeypatch.setattr(cascade_module, "build_stack", build_stack)
    cell = settle("symmetric:4", "rotation2d", layers=2, time_budget=3.0, depth=False)
    assert cell.status == "open" and cell.out_of_time == ("construction",) and cell.seconds == 4.0
    assert cell.detail == ("construction not built within the time budget of 3 s (3 of 24 states after 4.0 s); "
                           "raise --time-budget")
    assert "time budget (3 s) ran out in: construction" in cell.text()


def test_the_budget_is_reported_only_when_a_proof_ran_or_a_phase_ran_out(clock, monkeypatch):
    _Recorded(clock, monkeypatch, certify=0.5)
    impossible = settle("cyclic:3", "diagonal", time_budget=10.0)
    assert impossible.status == "impossible" and impossible.time_budget is None and impossible.seconds == 0.5
    proved = settle("cyclic:3", "rotation2d", time_budget=10.0, depth=False)
    assert proved.time_budget == 10.0


def test_a_proof_stopped_by_time_names_the_proof_and_one_stopped_at_its_bound_does_not(clock, monkeypatch):
    """settle does not deepen unless asked: one search, whose cause decides whether the cell names
    the proof as out of time."""
    from bilinear.constructions.proof.prover import DEFAULT_BOUND

    for cause, out in (("time", ("proof",)), ("bound", ())):
        calls: list = []
        monkeypatch.setattr(stackprover, "prove_network", _prover(clock, calls, 1.0, lambda b, n, c=cause: _open(b, c)))
        cell = settle("cyclic:3", "rotation2d", time_budget=10.0, depth=False)
        assert [b for b, _ in calls] == [DEFAULT_BOUND] and cell.deepened is False
        assert (cell.status, cell.cause, cell.out_of_time) == ("open", cause, out)
    cell = settle("cyclic:3", "rotation2d", time_budget=10.0, depth=False, deepen=True)
    assert calls[1:3] == [(DEFAULT_BOUND, 10.0), (2 * DEFAULT_BOUND, 9.0)] and len(calls) == 11 and cell.deepened


def test_a_cell_is_named_as_its_automaton_is():
    cell = settle(" Cyclic:3 ", "rotation2d", depth=False)
    assert cell.spec == from_spec(" Cyclic:3 ").name == "cyclic:3"
    assert settle("cyclic:3", "rotation2d", name="mine", depth=False).spec == "mine"
