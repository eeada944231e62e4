"""Progress off a terminal: one line every few seconds on stderr, even while one step is long."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bilinear.errors import ConfigError
from bilinear.progress import DEADLINE_RETRY, INTERVAL_ENV, BudgetSpent, Progress, deadline, interval


def test_lines_come_while_a_single_step_is_long() -> None:
    out = io.StringIO()
    with Progress("work", total=2, unit="runs", stream=out, interval=0.05) as p:
        time.sleep(0.3)  # one long step: lines keep coming
        p.update(1)
        p.phase("second run")
        time.sleep(0.2)
        p.update(1)
    lines = out.getvalue().splitlines()
    assert sum(line.startswith("work: 0 of 2 runs (0%)") for line in lines) >= 3
    assert any(line.startswith("work: 1 of 2 runs (50%)") and "left" in line and line.endswith("(second run)")
               for line in lines)
    assert lines[-1].startswith("work: 2 of 2 runs, done in")


def test_quiet_and_short_work_print_nothing() -> None:
    out = io.StringIO()
    with Progress("work", total=3, stream=out, interval=0.05, quiet=True):
        time.sleep(0.12)
    with Progress("work", total=3, stream=out, interval=10):
        pass
    assert out.getvalue() == ""


def test_an_inner_progress_stays_silent_while_an_outer_one_shows() -> None:
    """A search's progress inside a command's (extract inside analyze inside tour) prints
    nothing: the log has the outer command's lines only; after the outer one closes, a new
    progress shows again (the count of showing ones went back to zero, also for a quiet one)."""
    outer_out, inner_out, after_out = io.StringIO(), io.StringIO(), io.StringIO()
    with Progress("tour", total=2, stream=outer_out, interval=0.05):
        with Progress("extract", total=3, stream=inner_out, interval=0.05) as inner:
            assert inner.mode == "off"
            time.sleep(0.2)
        with Progress("quiet", stream=inner_out, interval=0.05, quiet=True):
            pass
        time.sleep(0.1)
    assert inner_out.getvalue() == ""
    assert outer_out.getvalue().splitlines()[0].startswith("tour: 0 of 2")
    with Progress("later", total=1, stream=after_out, interval=0.05) as later:
        assert later.mode == "lines"
        time.sleep(0.12)
    assert after_out.getvalue().startswith("later: 0 of 1")


def test_unknown_total_shows_the_time_only() -> None:
    p = Progress("certify", stream=io.StringIO(), interval=100)
    assert p.line() == "certify: 0 s"
    p.close()


def test_interval_setting_is_checked(monkeypatch) -> None:
    monkeypatch.setenv(INTERVAL_ENV, "0")
    with pytest.raises(ConfigError, match=INTERVAL_ENV):
        interval()
    monkeypatch.setenv(INTERVAL_ENV, "2.5")
    assert interval() == 2.5


def test_sweep_redirected_to_files_prints_progress_lines(tmp_path) -> None:
    sweep = tmp_path / "tiny.toml"
    sweep.write_text('families = ["parity"]\nmodels = ["diagonal"]\nlrs = [0.01]\nseeds = [0, 1]\nworkers = 1\n'
                     "[train]\nsteps = 300\nhidden = 2\ntest_len = 20\ntest_words = 5\n")
    # two lines need the sweep to outlast one interval: 300 steps a run and 0.05 s lines (a quiet
    # machine finished 40 steps inside one 0.2 s interval and printed nothing, as designed)
    env = {**os.environ, INTERVAL_ENV: "0.05", "OMP_NUM_THREADS": "1"}
    with open(tmp_path / "out.txt", "w") as stdout, open(tmp_path / "err.txt", "w") as stderr:
        proc = subprocess.run([sys.executable, "-m", "bilinear.cli", "sweep", str(sweep), "--out", str(tmp_path / "o")],
                              stdout=stdout, stderr=stderr, timeout=300, env=env)
    assert proc.returncode == 0, Path(tmp_path / "err.txt").read_text()
    lines = (tmp_path / "err.txt").read_text().splitlines()
    progress = [line for line in lines if line.startswith("sweep: ")]
    assert len(progress) >= 2, lines
    assert progress[-1].startswith("sweep: 2 of 2 runs, done in")
    assert "\r" not in (tmp_path / "err.txt").read_text()  # lines, not a bar
    assert "results:" in (tmp_path / "out.txt").read_text()


def _swallowing_sleep(seconds: float) -> int:
    """Sleep, clearing a BudgetSpent the way a C extension that runs Python code can (numpy's
    random module, imported inside a budget, lost the first alarm: the certify budget test)."""
    try:
        time.sleep(seconds)
    except BudgetSpent:
        return 1
    return 0


def test_a_swallowed_alarm_fires_again_and_stops_the_work() -> None:
    before = signal.getsignal(signal.SIGALRM)
    started = time.monotonic()
    with pytest.raises(BudgetSpent) as spent:
        with deadline(0.02):
            swallowed = _swallowing_sleep(5)
            time.sleep(5)  # the repeat stops this
    assert swallowed == 1 and spent.value.args == (0.02,)
    assert time.monotonic() - started < 0.02 + 2 * DEADLINE_RETRY + 1.0
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0) and signal.getsignal(signal.SIGALRM) is before


def test_a_block_that_ends_after_a_swallowed_alarm_still_reports_the_budget_spent() -> None:
    with pytest.raises(BudgetSpent):
        with deadline(0.02):
            assert _swallowing_sleep(5) == 1  # then the block ends normally, before the repeat
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_a_block_within_its_budget_ends_normally_and_disarms_the_timer() -> None:
    before = signal.getsignal(signal.SIGALRM)
    with deadline(5):
        time.sleep(0.01)
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0) and signal.getsignal(signal.SIGALRM) is before


def test_an_inner_deadline_gives_the_outer_timer_back() -> None:
    """The inner block used to set the timer to 0 on leaving: the outer budget was never spent."""
    started = time.monotonic()
    with pytest.raises(BudgetSpent) as spent:
        with deadline(0.3):
            with deadline(5):
                time.sleep(0.05)
            time.sleep(5)
    assert spent.value.args == (0.3,) and 0.25 < time.monotonic() - started < 2.0
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_a_budget_spent_before_the_block_starts_leaves_no_timer_and_no_handler() -> None:
    """With a budget of 1e-6 s the alarm is due while the timer is being armed; it was raised
    before the block's clean-up was in place, leaving the timer repeating and the handler set:
    ``bilinear.cli.main(["verify", ..., "--time-budget", "0.000001"])`` returned, and a quarter
    of a second later BudgetSpent came out of whatever the process did next."""
    before = signal.getsignal(signal.SIGALRM)
    hook = sys.unraisablehook
    for _ in range(50):
        with pytest.raises(BudgetSpent):
            with deadline(1e-6):
                for _ in range(10_000):
                    pass
        assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
        assert signal.getsignal(signal.SIGALRM) is before and sys.unraisablehook is hook
    time.sleep(2 * DEADLINE_RETRY)  # nothing left to go off


class _SlowToDelete:
    def __del__(self):
        time.sleep(1)  # the alarm lands here: Python can only report it as unraisable


def test_an_alarm_inside_a_finaliser_is_not_reported_and_the_budget_still_ends_the_block(monkeypatch) -> None:
    reported = []
    monkeypatch.setattr(sys, "unraisablehook", reported.append)
    started = time.monotonic()
    with pytest.raises(BudgetSpent):
        with deadline(0.02):
            obj = _SlowToDelete()
            del obj  # the finaliser runs here and swallows the first alarm
    assert reported == [] and time.monotonic() - started < 2.5
    assert sys.unraisablehook == reported.append  # given back


def test_an_alarm_during_an_import_waits_for_the_import_to_finish(tmp_path, monkeypatch) -> None:
    """An exception raised inside an import leaves what the module's finished submodules
    registered, without the module: an alarm landing there waits for the next repeat, and the
    work stops after the import has finished."""
    (tmp_path / "slow_import_for_deadline.py").write_text("import time\ntime.sleep(0.6)\nFINISHED = True\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "slow_import_for_deadline", raising=False)
    started = time.monotonic()
    with pytest.raises(BudgetSpent):
        with deadline(0.05):
            import slow_import_for_deadline  # the alarm and its first repeats land in here

            imported = time.monotonic() - started
            time.sleep(5)  # the next repeat stops this
    assert slow_import_for_deadline.FINISHED and imported >= 0.6
    assert time.monotonic() - started < 0.6 + 2 * DEADLINE_RETRY + 1.0
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    sys.modules.pop("slow_import_for_deadline", None)
