"""The prover's clock (constructions/proof/search.py ``Clock``): the budget, the seconds it reports, how
often it looks at the time, and its progress lines.  The mutation run found these numbers
unchecked: a clock that reported ``now + start`` seconds, or never counted its ticks, passed."""

from __future__ import annotations

import time

import pytest

from bilinear.constructions.proof import search
from bilinear.constructions.proof.search import Clock, OutOfTime
from bilinear.errors import WeightsError


def test_a_spent_budget_reports_the_seconds_since_the_start():
    clock = Clock(0.01)
    time.sleep(0.02)
    with pytest.raises(OutOfTime) as spent:
        clock.check(5, 3)
    assert 0.01 <= spent.value.args[0] < 5.0
    assert 0.01 <= clock.elapsed() < 5.0
    with pytest.raises(OutOfTime) as building:
        clock.tick_build(2, 9, "matrices")
    assert 0.01 <= building.value.args[0] < 5.0 and building.value.args[1:] == (2, 9, "matrices")


def test_ticks_look_at_the_time_every_few_steps():
    clock = Clock(0.001, every=4)
    time.sleep(0.01)
    for _ in range(3):
        clock.tick(1, 1)  # three ticks: the time is not read
    with pytest.raises(OutOfTime):
        clock.tick(1, 1)  # the fourth reads it


def test_progress_reports_after_its_delay_with_the_seconds_spent(monkeypatch):
    seen = []
    clock = Clock(None, lambda pairs, dirs, seconds: seen.append((pairs, dirs, seconds)))
    clock.check(10, 4)
    assert seen == []  # before PROGRESS_AFTER (two seconds): silent
    monkeypatch.setattr(search, "PROGRESS_AFTER", 0.0)
    monkeypatch.setattr(search, "PROGRESS_EVERY", 0.0)
    clock.check(10, 4)
    clock.finish(12, 5)
    assert [s[:2] for s in seen] == [(10, 4), (12, 5)] and all(0 <= s[2] < 5.0 for s in seen)
    monkeypatch.setattr(search, "PROGRESS_EVERY", 1e9)
    clock.check(20, 6)  # the last report was just now: not again
    assert len(seen) == 2
    quiet = Clock(None, None)
    quiet.check(1, 1)
    quiet.finish(1, 1)  # never reported, so no last line either


def test_building_lines_on_stderr_only_for_progress_true(monkeypatch, capsys):
    monkeypatch.setattr(search, "PROGRESS_AFTER", 0.0)
    monkeypatch.setattr(search, "PROGRESS_EVERY", 0.0)
    Clock(None, lambda *a: None).tick_build(3, 10)
    assert capsys.readouterr().err == ""
    Clock(None, True).tick_build(3, 10)
    err = capsys.readouterr().err
    assert err.startswith("build: 3 of 10 states, ") and "s left; --time-budget stops it)" in err
    seconds = float(err.split("states, ")[1].split(" s")[0])
    assert 0 <= seconds < 5.0


@pytest.mark.parametrize("progress", [None, True, False, print])
def test_progress_values_accepted(progress):
    Clock(None, progress).check(1, 1)


@pytest.mark.parametrize("bad", ["yes", 1, 0.5])
def test_progress_values_refused(bad):
    with pytest.raises(WeightsError, match="progress must be None, True or a callable"):
        Clock(None, bad)


@pytest.mark.parametrize("bad", [0, -1, True, "5", float("nan")])
def test_budgets_refused(bad):
    with pytest.raises(WeightsError, match="time_budget must be a positive number of seconds"):
        Clock(bad)


def test_progress_counts_are_the_searchs_own(monkeypatch):
    """With reports at every look at the clock, the counts a proof reports only grow, and the
    last one (at the end) is the proof's own: pairs explored and directions."""
    from bilinear.automata import from_spec
    from bilinear.constructions import prove
    from bilinear.constructions import build

    monkeypatch.setattr(search, "PROGRESS_AFTER", 0.0)
    monkeypatch.setattr(search, "PROGRESS_EVERY", 0.0)
    seen = []
    a = from_spec("dihedral:6")
    proof = prove(build("dihedral:6", "full"), a, progress=lambda p, d, s: seen.append((p, d)))
    assert len(seen) >= 2 and seen == sorted(seen)
    assert seen[-1] == (proof.states_explored, proof.hidden_states)
    assert all(p <= proof.states_explored and d <= proof.hidden_states for p, d in seen)


def test_breadth_first_limit_is_inclusive():
    succ = lambda x: [(x + 1) % 4]  # noqa: E731 - four values
    assert search.breadth_first(0, succ, 4) == [0, 1, 2, 3]
    assert search.breadth_first(0, succ, 3) is None


def test_progress_waits_for_its_delay_since_the_start(monkeypatch):
    """The delay counts from this clock's start (an elapsed time, not a sum of clock readings):
    with PROGRESS_AFTER = 1 s nothing is reported at once, whatever the machine's uptime."""
    seen = []
    monkeypatch.setattr(search, "PROGRESS_AFTER", 1.0)
    monkeypatch.setattr(search, "PROGRESS_EVERY", 0.0)
    clock = Clock(None, lambda *a: seen.append(a))
    clock.check(1, 1)
    monkeypatch.setattr(search, "PROGRESS_AFTER", 0.0)
    monkeypatch.setattr(search, "PROGRESS_EVERY", 1.0)
    clock.check(2, 2)  # and the interval counts from the last report (here the start)
    assert seen == []


def test_building_waits_for_its_delay_and_estimates_what_is_left(monkeypatch, capsys):
    """``tick_build``'s line: nothing before the delays, then the seconds spent and the estimate
    ``spent * (total - done) / done`` (done taken as at least 1), on a clock read from a list."""
    readings = iter([100.0, 100.5, 100.5, 110.0, 130.0])
    monkeypatch.setattr(search.time, "monotonic", lambda: next(readings))
    monkeypatch.setattr(search, "PROGRESS_AFTER", 1.0)
    monkeypatch.setattr(search, "PROGRESS_EVERY", 0.0)
    clock = Clock(None, True)  # start 100.0
    clock.tick_build(0, 10)  # 0.5 s: before the delay
    monkeypatch.setattr(search, "PROGRESS_AFTER", 0.0)
    monkeypatch.setattr(search, "PROGRESS_EVERY", 1.0)
    clock.tick_build(0, 10)  # 0.5 s since the last line (the start): not yet
    assert capsys.readouterr().err == ""
    clock.tick_build(2, 10)  # 10 s, 2 of 10 done: 40 s left
    clock.tick_build(1, 4)  # 30 s, 1 of 4 done: 90 s left
    lines = capsys.readouterr().err.splitlines()
    assert lines == ["build: 2 of 10 states, 10.0 s (about 40 s left; --time-budget stops it)",
                     "build: 1 of 4 states, 30.0 s (about 90 s left; --time-budget stops it)"]


def test_pair_search_reports_the_pairs_found_so_far(monkeypatch):
    """Each ``add`` tells the clock how many pairs the search has with this one: 1, 2, 2 (the
    second pair again, not new), 3."""
    seen = []
    monkeypatch.setattr(search, "PROGRESS_AFTER", 0.0)
    monkeypatch.setattr(search, "PROGRESS_EVERY", 0.0)
    pairs = search.PairSearch(Clock(None, lambda p, d, s: seen.append((p, d)), every=1))
    assert pairs.add(0, 0, -1, -1) == 0
    assert pairs.add(1, 2, 0, 0) == 1
    assert pairs.add(1, 2, 0, 1) is None
    assert pairs.add(0, 1, 1, 0) == 2
    assert seen == [(1, 1), (2, 3), (2, 3), (3, 3)]
