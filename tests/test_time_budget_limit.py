"""A time budget past the SIGALRM timer's range (probe 2, defect 1): ``--time-budget 1e10`` was an
OverflowError traceback from ``signal.setitimer`` (exit 1), and ``settle(..., time_budget=1e10)`` a
bare OverflowError.  A budget over :data:`~bilinear.argtypes.MAX_TIME_BUDGET` is refused: one line
on stderr and exit 2, a typed error from the API; the timer is never armed."""

from __future__ import annotations

import signal

import pytest

from bilinear.argtypes import MAX_TIME_BUDGET, budget_seconds
from bilinear.cli import main
from bilinear.errors import BilinearError, ConfigError
from bilinear.progress import deadline


@pytest.mark.parametrize("argv", [
    ["verify", "cyclic:5", "full"],
    ["describe", "cyclic:3"],
    ["matrix", "--rows", "parity", "--columns", "full"],
    ["analyze", "--construction", "parity", "diagonal"],
])
def test_a_budget_over_the_limit_is_one_line_and_exit_2(capsys, argv):
    try:
        code = main([*argv, "--time-budget", "1e10"])
    except SystemExit as exit_:  # argparse's usage errors
        code = exit_.code
    assert code == 2
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1, captured.err
    assert "--time-budget: must be at most 1e+09 seconds (about 31 years), got '1e10'" in captured.err
    assert captured.out == ""


def test_a_budget_at_the_limit_is_accepted():
    assert budget_seconds("1e9") == MAX_TIME_BUDGET == 1e9
    assert budget_seconds("0.5") == 0.5


@pytest.mark.parametrize("seconds, shown", [(1e10, "1e+10"), (10**10, "1e+10"), (float("inf"), "inf"),
                                            (10**400, "an integer over 1e308")])
def test_deadline_refuses_a_budget_over_the_limit_before_arming_the_timer(seconds, shown):
    before = signal.getsignal(signal.SIGALRM)
    with pytest.raises(ConfigError) as refused:
        with deadline(seconds):
            pytest.fail("the block ran")
    assert str(refused.value) == f"time_budget must be at most 1e+09 s (about 31 years), got {shown}"
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0) and signal.getsignal(signal.SIGALRM) is before


def test_settle_refuses_a_budget_over_the_limit_with_a_typed_error():
    from bilinear.automata import from_spec
    from bilinear.constructions.settle import settle

    with pytest.raises(BilinearError, match=r"time_budget must be at most 1e\+09 s \(about 31 years\), got 1e\+10"):
        settle(from_spec("cyclic:3"), "full", time_budget=1e10)
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert settle(from_spec("cyclic:3"), "full", time_budget=MAX_TIME_BUDGET).status == "proved"
