"""The ``bilinear`` command line.

Each room contributes its own sub-commands through a ``register(subparsers)`` function in its
``cli`` module (``bilinear tour`` is registered here); this file only assembles them and turns a
:class:`~bilinear.errors.BilinearError` or an ``OSError`` (a folder that cannot be written, a full
disk, standard output on ``/dev/full``) into one line on stderr and exit status 2.  With the
environment variable ``BILINEAR_DEBUG=1`` the traceback behind that line is printed first (for a
bug report; the line and the exit status stay the same).

Registering the sub-commands imports no torch and no matplotlib: the commands that need them
import them when they run, so ``families``, ``describe``, ``verify``, ``matrix`` and ``--help``
start in the time of numpy (``benchmarks/bench_startup.py``).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import NoReturn, Sequence

from bilinear.argtypes import positive_float, positive_int, seed  # noqa: F401  (re-exported)
from bilinear.errors import BilinearError
from bilinear.malloc import keep_freed_buffers

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
                        check_words=args.check_words, quiet=args.quiet, format=args.format, force=args.force)
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
    p.add_argument("--seed", type=seed, default=defaults.seed, help="seed (default: %(default)s)")
    p.add_argument("--steps", type=int, default=defaults.steps, help="most training steps per model (default: %(default)s)")
    p.add_argument("--test-len", type=int, default=defaults.test_len, help="check length (default: %(default)s)")
    p.add_argument("--check-words", type=int, default=defaults.check_words, help="words per float check (default: %(default)s)")
    p.add_argument("--force", action="store_true", help="replace a non-empty --out folder")
    p.add_argument("--quiet", action="store_true",
                   help="print no progress (else: a bar on a terminal, a line on stderr every few seconds elsewhere)")
    p.add_argument("--format", choices=("png", "svg", "pdf"), default=defaults.format,
                   help="file format of the figures (default: %(default)s)")
    p.set_defaults(handler=_run_tour)


class _Parser(argparse.ArgumentParser):
    """argparse, but usage errors are one line on stderr and exit status 2."""

    def error(self, message: str) -> NoReturn:  # pragma: no cover - exercised through main()
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
    keep_freed_buffers()  # training and evaluation reuse their freed multi-MB buffers (bilinear/malloc.py)
    if not getattr(args, "handler", None):
        parser.print_help()
        return 2
    try:
        status = int(args.handler(args) or 0)
        sys.stdout.flush()  # a full disk or /dev/full fails here, not at interpreter exit
        return status
    except BilinearError as exc:
        _debug_traceback()
        return _fail(_first_line(str(exc)))
    except BrokenPipeError:  # output piped into a command that stopped reading (e.g. head)
        _drop_stdout()
        return 141
    except OSError as exc:
        _debug_traceback()
        if exc.filename is None:  # a write to standard output: what is buffered cannot go anywhere
            _drop_stdout()
        return _fail(_os_message(exc))
    except KeyboardInterrupt:  # pragma: no cover
        print("bilinear: interrupted", file=sys.stderr)
        return 130


def _debug_traceback() -> None:
    """The traceback of the exception being handled, on stderr, when ``BILINEAR_DEBUG`` is set
    to anything but empty or ``0``."""
    import os

    if os.environ.get("BILINEAR_DEBUG", "").strip() not in ("", "0"):
        import traceback

        traceback.print_exc(file=sys.stderr)


def _first_line(text: str) -> str:
    """The first non-empty line of a message (torch and numpy messages span several)."""
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[0].strip() if lines else text


def _os_message(exc: OSError) -> str:
    """One line for an OSError, naming the path(s) it is about."""
    reason = exc.strerror or _first_line(str(exc)) or type(exc).__name__
    if exc.filename is None:  # every file writer names its file (bilinear.fileio.atomic_write)
        return f"cannot write to standard output: {reason}"
    target = exc.filename2 if getattr(exc, "filename2", None) is not None else exc.filename
    return f"{reason}: {str(target)!r}"  # a rename's target is the path the user named


def _fail(message: str) -> int:
    try:
        print(f"bilinear: error: {message}", file=sys.stderr)
    except OSError:  # pragma: no cover - stderr itself is gone
        pass
    return 2


def _drop_stdout() -> None:
    """Point standard output at /dev/null, so the interpreter's final flush does not fail too."""
    import os

    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):  # pragma: no cover - no file descriptor (captured output)
        pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
