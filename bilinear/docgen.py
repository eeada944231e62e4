"""The command-line reference (``docs/cli.md``), generated from the parser itself.

``python -m bilinear.docgen > docs/cli.md`` rewrites the page; a test checks that the committed
page equals what the parser says, so the reference cannot drift from the code.
"""

from __future__ import annotations

import argparse
import os
from contextlib import contextmanager

__all__ = ["cli_reference"]

HEADER = """# Command-line reference

Generated from the parser by `python -m bilinear.docgen > docs/cli.md`; do not edit by hand.
Every command prints one line on stderr and exits with status 2 on bad input.
"""


@contextmanager
def _fixed_width(columns: int = 100):
    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(columns)
    try:
        yield
    finally:
        if old is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = old


def cli_reference() -> str:
    """Markdown: the top-level help, then each sub-command's help, in the parser's order."""
    from bilinear.cli import build_parser

    with _fixed_width():
        parser = build_parser()
        parts = [HEADER, "```text", parser.format_help().rstrip(), "```", ""]
        assert parser._subparsers is not None  # build_parser adds the sub-commands
        for action in parser._subparsers._group_actions:  # the one sub-parsers action
            if not isinstance(action, argparse._SubParsersAction):
                continue
            for name, sub in action.choices.items():
                parts += [f"## `bilinear {name}`", "", "```text", sub.format_help().rstrip(), "```", ""]
    return "\n".join(parts)


if __name__ == "__main__":  # pragma: no cover
    print(cli_reference(), end="")
