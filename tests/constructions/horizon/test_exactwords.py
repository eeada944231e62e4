"""verify settles what it can (issue 45, item 5): exact weights are first run on the directed words
in exact arithmetic, and a wrong label there is a counterexample the breadth-first proof cannot
reach within its budget."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np

from exact_rotations import off_rotation

from bilinear.automata.families import from_spec
from bilinear.cli import main
from bilinear.constructions.horizon.exactwords import exact_failure
from bilinear.constructions.values.weights import Weights

CYCLIC6 = from_spec("cyclic:6")


def _off_by_a_little(t: Fraction = Fraction(577, 1000)) -> Weights:
    """Exact Z_6 rotation2d weights with tan(theta / 2) = 577/1000: theta = pi/3 - 5.25e-4."""
    return off_rotation(6, t)


def _labels_exactly(w: Weights, word) -> tuple[int, int]:
    """(automaton's label, network's exact argmax) after ``word``, computed here with Fractions."""
    h = np.array([Fraction(1), Fraction(0)], dtype=object)
    for a in word:
        h = w.A[a] @ h
    scores = list(w.readout @ h)
    return CYCLIC6.label(list(word)), max(range(6), key=lambda c: scores[c])


def test_exact_failure_is_a_true_counterexample() -> None:
    w = _off_by_a_little()
    found = exact_failure(w, CYCLIC6, 500)
    assert found is not None and found.word == (5,) * 200
    expected, got = _labels_exactly(w, found.word)
    assert expected != got == found.got
    # one symbol shorter the network is still right on this word
    assert len(set(_labels_exactly(w, found.word[:-1]))) == 1


def test_verify_refutes_the_rotation_off_by_5e_4(tmp_path, capsys) -> None:
    path = tmp_path / "z6.json"
    _off_by_a_little().save(path)
    assert main(["verify", "cyclic:6", "--weights", str(path), "--time-budget", "8", "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "counterexample" and out["shortest"] is False
    assert out["word"] == "5^200"


def test_right_weights_are_not_refuted() -> None:
    from bilinear.constructions.handmade.registry import build

    assert exact_failure(build("symmetric:3", "householder:2"), from_spec("symmetric:3"), 500) is None


def test_open_verdict_says_what_was_checked(tmp_path, capsys) -> None:
    """A rotation off by about 5e-5 rad per step fails only near length 10^4: the float check at
    length 500 passes, the proof is open, and the text says no more than what was run."""
    path = tmp_path / "z6.json"
    _off_by_a_little(Fraction(5773, 10000)).save(path)
    assert main(["verify", "cyclic:6", "--weights", str(path), "--time-budget", "3", "--float",
                 "--words", "20", "--length", "500"]) == 3
    out = capsys.readouterr().out
    assert "no failure up to length 500 on these words" in out and "accuracy 1.0000" not in out
    # the budget's seconds are the whole deepening's (it used to print the last search's alone)
    seconds = float(out.split("ran out after ")[1].split(" s")[0])
    assert 2.0 <= seconds <= 3.5
