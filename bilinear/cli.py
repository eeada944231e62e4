"""The ``bilinear`` command line.

Each room contributes its own sub-commands through a ``register(subparsers)`` function in its
``cli`` module (``bilinear tour`` is registered here); this file only assembles them and turns a :class:`~bilinear.errors.BilinearError`
into one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Sequence

from bilinear.argtypes import positive_float, positive_int  # noqa: F401  (re-exported)
from bilinear.errors import BilinearError

#: Modules whose ``register(subparsers)`` adds sub-commands, in the order ``--help`` lists them.
COMMAND_MODULES = (
    "bilinear.automata.cli",
    "bilinear.constructions.cli",
    "bilinear.learned.cli",
    "bilinear.analysis.cli",
    "bilinear.analysis.certify_cli",
)


def _run_tour(args: argparse.Namespace) -> int:
    from bilinear.tour import TourConfig, run_tour

    config = TourConfig(out=args.out, seed=args.seed, steps=args.steps, test_len=args.test_len,
                        check_words=args.check_words, quiet=args.quiet, force=args.force)
    data = run_tour(config)
    print(data["text"])
    print(f"\nreport written to {data['report']}")
    return 0


def _register_tour(sub) -> None:
    """Add ``bilinear tour`` to the command line."""
    from bilinear import tour

    defaults = tour.TourConfig()
    p = sub.add_parser("tour", help="the whole toolkit in one command; writes a Markdown report",
                       description=tour.__doc__.split("\n\n")[0])
    p.add_argument("--out", default=defaults.out, help="report folder (default: %(default)s)")
    p.add_argument("--seed", type=int, default=defaults.seed, help="seed (default: %(default)s)")
    p.add_argument("--steps", type=int, default=defaults.steps, help="most training steps per model (default: %(default)s)")
    p.add_argument("--test-len", type=int, default=defaults.test_len, help="check length (default: %(default)s)")
    p.add_argument("--check-words", type=int, default=defaults.check_words, help="words per float check (default: %(default)s)")
    p.add_argument("--force", action="store_true", help="replace a non-empty --out folder")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(handler=_run_tour)


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
        importlib.import_module(name).register(sub)
    _register_tour(sub)
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
