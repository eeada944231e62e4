"""docs/cli.md is what the parser says (regenerate with ``python -m bilinear.docgen > docs/cli.md``)."""

from __future__ import annotations

from pathlib import Path

from bilinear.docgen import cli_reference

DOC = Path(__file__).resolve().parent.parent / "docs" / "cli.md"


def test_cli_reference_is_current():
    assert DOC.read_text(encoding="utf-8") == cli_reference(), (
        "docs/cli.md is stale: run `python -m bilinear.docgen > docs/cli.md`"
    )


def test_cli_reference_lists_every_command():
    text = cli_reference()
    for command in ("families", "describe", "verify", "matrix", "train", "sweep", "reproduce", "analyze", "tour"):
        assert f"## `bilinear {command}`" in text
