"""argparse types shared by every room's command line, and the same checks for values given to a
function (:func:`check_positive_int`, :func:`check_tolerance`, raising the caller's error type).
A leaf module: it imports nothing of ours.

>>> positive_int("3"), positive_float("0.5"), nonnegative_int("0"), seed("7")
(3, 0.5, 0, 7)
>>> seed("18446744073709551616")
Traceback (most recent call last):
...
argparse.ArgumentTypeError: a seed must be in 0..9223372036854775807, got 18446744073709551616
"""

from __future__ import annotations

import argparse
import math
from numbers import Integral, Real

__all__ = [
    "positive_int", "positive_float", "nonnegative_int", "seed", "MAX_SEED", "MAX_INT_DIGITS", "budget_seconds",
    "MAX_TIME_BUDGET", "check_positive_int", "check_tolerance", "add_json", "add_time_budget", "add_run_dir",
    "add_weights_file",
]

#: Largest seed (torch and numpy take seeds below 2**63).
MAX_SEED = 2**63 - 1
#: Most digits of an integer argument (checked before ``int()``, whose own limit is 4300).
MAX_INT_DIGITS = 30
#: Largest time budget, in seconds (about 31 years).  A budget is kept by a SIGALRM timer
#: (:func:`bilinear.progress.deadline`), which takes at most about 9.2e9 s (int64 nanoseconds): a
#: larger budget is a promise the toolkit cannot keep, so it is refused rather than dropped.
MAX_TIME_BUDGET = 1e9


def _short(text: str) -> str:
    return repr(text) if len(text) <= 40 else repr(text[:40]) + f"... ({len(text)} characters)"


def _int(text: str, expected: str) -> int:
    digits = text.strip().lstrip("+-")
    if len(digits) > MAX_INT_DIGITS and digits.isdigit():
        raise argparse.ArgumentTypeError(f"{expected}: {len(digits)} digits is over the limit of {MAX_INT_DIGITS}")
    if not text.strip().isascii():  # int() also reads other scripts' digits ("٣")
        raise argparse.ArgumentTypeError(f"{expected} (ASCII digits), got {_short(text)}")
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{expected}, got {_short(text)}") from None


def positive_int(text: str) -> int:
    """argparse type: an integer >= 1 (the usage error names the option and the value)."""
    value = _int(text, "expected a positive integer")
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value


def positive_float(text: str) -> float:
    """argparse type: a finite number > 0."""
    try:
        if not text.strip().isascii():  # float() also reads other scripts' digits
            raise ValueError
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {_short(text)}") from None
    if not value > 0 or value == float("inf"):  # NaN fails ``value > 0``
        raise argparse.ArgumentTypeError(f"must be positive and finite, got {_short(text)}")
    return value


def budget_seconds(text: str) -> float:
    """argparse type: a time budget, a number of seconds in (0, :data:`MAX_TIME_BUDGET`].

    >>> budget_seconds("1e10")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be at most 1e+09 seconds (about 31 years), got '1e10'
    """
    value = positive_float(text)
    if value > MAX_TIME_BUDGET:
        raise argparse.ArgumentTypeError(
            f"must be at most {MAX_TIME_BUDGET:g} seconds (about 31 years), got {_short(text)}")
    return value


def nonnegative_int(text: str) -> int:
    """argparse type: an integer >= 0 (a seed)."""
    value = _int(text, "expected an integer >= 0")
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {_short(text)}")
    return value


def seed(text: str) -> int:
    """argparse type: a seed, an integer in ``0..MAX_SEED``."""
    value = _int(text, "expected a seed (an integer >= 0)")
    if not 0 <= value <= MAX_SEED:
        raise argparse.ArgumentTypeError(f"a seed must be in 0..{MAX_SEED}, got {value}")
    return value


def add_json(parser: argparse.ArgumentParser, help: str) -> None:
    """``--json``: print JSON instead of text (``help`` says what), in every command that has it."""
    parser.add_argument("--json", action="store_true", help=help)


def add_time_budget(parser: argparse.ArgumentParser, help: str) -> None:
    """``--time-budget SECONDS`` (a positive number up to :data:`MAX_TIME_BUDGET`, default None: no
    budget unless the command has its own); ``help`` says what stops and how (exit status, what is
    printed)."""
    parser.add_argument("--time-budget", type=budget_seconds, default=None, metavar="SECONDS", help=help)


def add_run_dir(parser: argparse.ArgumentParser, help: str = "a finished training run directory",
                optional: bool = True) -> None:
    """The positional ``RUN_DIR`` (``args.run_dir``): a run folder of ``bilinear train --out``;
    ``optional`` when the command also reads ``--weights`` or ``--construction``."""
    parser.add_argument("run_dir", nargs="?" if optional else None, metavar="RUN_DIR", help=help)


def add_weights_file(parser: argparse.ArgumentParser, help: str, with_spec: bool) -> None:
    """``--weights FILE`` (``with_spec``: ``--weights FILE SPEC``, the automaton it should track)
    and ``--unsigned``, which accepts such a file without a checksum."""
    if with_spec:
        parser.add_argument("--weights", nargs=2, metavar=("FILE", "SPEC"), help=help)
    else:
        parser.add_argument("--weights", metavar="FILE", default=None, help=help)
    parser.add_argument("--unsigned", action="store_true",
                        help="with --weights: accept a file without a checksum (hand-written, docs/formats.md)")


def check_tolerance(tol, name: str = "tol", error: type[Exception] = ValueError) -> float:
    """``tol`` as a positive finite float, or ``error`` naming it.

    >>> check_tolerance(1e-6)
    1e-06
    >>> check_tolerance(0)
    Traceback (most recent call last):
    ...
    ValueError: tolerance tol must be positive and finite, got 0
    """
    if isinstance(tol, bool) or not isinstance(tol, Real):
        raise error(f"tolerance {name} must be a number, got {tol!r}")
    value = float(tol)
    if not math.isfinite(value) or value <= 0:
        raise error(f"tolerance {name} must be positive and finite, got {tol!r}")
    return value


def _integer_range(minimum: int, maximum: int | None) -> str:
    if maximum is not None:
        return f"an integer from {minimum} to {maximum}"
    return {0: "a non-negative integer", 1: "a positive integer"}.get(minimum, f"an integer >= {minimum}")


def check_positive_int(value, name: str, minimum: int = 1, error: type[Exception] = ValueError,
                       maximum: int | None = None) -> int:
    """``value`` as an int in ``minimum..maximum`` (numpy integers too; never a bool), or ``error``
    naming it: the one check of an integer argument given to a function.

    >>> check_positive_int(3, "words"), check_positive_int(0, "seed", minimum=0)
    (3, 0)
    >>> check_positive_int(True, "words")
    Traceback (most recent call last):
    ...
    ValueError: words must be a positive integer, got True
    >>> check_positive_int(17, "layers", maximum=16)
    Traceback (most recent call last):
    ...
    ValueError: layers must be an integer from 1 to 16, got 17
    """
    if (isinstance(value, bool) or not isinstance(value, Integral) or int(value) < minimum
            or (maximum is not None and int(value) > maximum)):
        raise error(f"{name} must be {_integer_range(minimum, maximum)}, got {value!r}")
    return int(value)
