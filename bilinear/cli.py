"""The ``bilinear`` command line.

Each room contributes its own sub-commands through a ``register(subparsers)`` function in its
``cli`` module; this file only assembles them and turns a :class:`~bilinear.errors.BilinearError`
into one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Sequence

from bilinear.errors import BilinearError

#: Modules whose ``register(subparsers)`` adds sub-commands, in the order ``--help`` lists them.
COMMAND_MODULES = (
    "bilinear.automata.cli",
    "bilinear.constructions.cli",
    "bilinear.learned.cli",
    "bilinear.analysis.cli",
    "bilinear.analysis.certify_cli",
    "bilinear.tour",
)


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


class _Parser(argparse.ArgumentParser):
    """argparse, but usage errors are one line on stderr and exit status 2."""

    def error(self, message: str) -> None:  # pragma: no cover - exercised through main()
        self.exit(2, f"bilinear: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    """The full parser, with every room's sub-commands."""
    from bilinear import __version__

    parser = _Parser(
        prog="bilinear",
        description="Theory and verification toolkit for bilinear RNNs and state tracking.",
    )
    parser.add_argument("--version", action="version", version=f"bilinear {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:  # a real import error inside the module: surface it
                raise
            continue
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``bilinear`` console script; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help()
        return 2
    try:
        return int(args.handler(args) or 0)
    except BilinearError as exc:
        print(f"bilinear: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # output piped into a command that stopped reading (e.g. head)
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except KeyboardInterrupt:  # pragma: no cover
        print("bilinear: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
