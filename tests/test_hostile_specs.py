"""Lenient input (issue 25, defect 19): other scripts' digits, empty grid entries, a learning
rate that float32 rounds to zero."""

from __future__ import annotations

import pytest

from bilinear.cli import main


@pytest.mark.parametrize("argv, message", [
    (["describe", "cyclic:\u0663"], "parameter M of 'cyclic' must be an integer"),
    (["verify", "parity", "block:\u0662"], "parameter B of variant 'block' must be a positive integer"),
    (["verify", "parity", "diagonal", "--float", "--length", "\u0663"], "expected a positive integer (ASCII digits)"),
    (["verify", "parity", "diagonal", "--time-budget", "\u0663"], "not a number"),
    (["train", "parity", "diagonal", "--lr-grid", "1e-3,,1e-4", "--steps", "2"],
     "--lr-grid must be comma-separated numbers, got '1e-3,,1e-4'"),
    (["train", "parity", "diagonal", "--lr", "1e-320", "--steps", "2"],
     "is under 1.17549e-38 (float32's smallest normal number)"),
])
def test_lenient_input_is_refused(capsys, argv, message):
    try:
        code = main(argv)
    except SystemExit as exit_:  # argparse's usage errors
        code = exit_.code
    assert code == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1, err


def test_ascii_input_still_works():
    from bilinear.automata import from_spec
    from bilinear.automata.words import compress  # noqa: F401  (the token pattern compiles)

    assert from_spec("cyclic:+3").n_states == 3
