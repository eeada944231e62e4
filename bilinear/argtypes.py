"""argparse types shared by every room's command line (a leaf module: it imports nothing of ours).

>>> positive_int("3"), positive_float("0.5"), nonnegative_int("0")
(3, 0.5, 0)
"""

from __future__ import annotations

import argparse

__all__ = ["positive_int", "positive_float", "nonnegative_int"]


def positive_int(text: str) -> int:
    """argparse type: an integer >= 1 (the usage error names the option and the value)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value


def positive_float(text: str) -> float:
    """argparse type: a finite number > 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value > 0 or value == float("inf"):  # NaN fails ``value > 0``
        raise argparse.ArgumentTypeError(f"must be positive and finite, got {text!r}")
    return value


def nonnegative_int(text: str) -> int:
    """argparse type: an integer >= 0 (a seed)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {text!r}")
    return value
