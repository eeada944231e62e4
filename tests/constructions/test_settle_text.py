"""Verdict text: long counterexamples run-length compressed, open cells name the next step, a
failed float check heads ``verify --float``."""

from __future__ import annotations

import json

import numpy as np

from bilinear.automata import Automaton
from bilinear.cli import main
from bilinear.constructions.settle import Cell, settle
from bilinear.constructions import Weights


def _leaky():
    P = np.roll(np.eye(3), 1, axis=0)
    return 0.99 * P + 0.01 * np.eye(3)


def test_long_counterexample_is_compressed_in_text_and_json():
    a = Automaton([[1, 2, 0], [0, 0, 0]], labels=[0, 1, 2], symbols=("inc", "reset"), name="counter3")
    w = Weights("full", np.stack([_leaky(), np.outer([1.0, 0, 0], np.ones(3))]), np.array([1.0, 0, 0]), np.eye(3))
    cell = settle(a, "full", weights=w, bound=400)
    assert cell.status == "counterexample"
    n = len(cell.word_indices)
    assert n > 50 and cell.word_indices == (0,) * n
    assert cell.word == f"inc^{n}"
    text = cell.text()
    assert f"shortest failing word: inc^{n} (length {n})" in text and "inc inc" not in text
    j = cell.to_json()
    assert j["word"] == f"inc^{n}" and j["word_indices"] == [0] * n and j["next_step"] is None


def test_open_cell_names_the_next_step():
    w = Weights("full", np.stack([np.eye(3), _leaky(), _leaky() @ _leaky()]), np.array([1.0, 0, 0]), np.eye(3))
    cell = settle("cyclic:3", "full", weights=w, bound=2)
    assert cell.status == "open" and cell.cause == "bound"
    assert "next: raise --bound (now 2), give --time-budget SECONDS, or run the float check (--float)" in cell.text()
    assert cell.to_json()["next_step"].startswith("raise --bound (now 2)")
    timed = Cell("cyclic:3", "full", "open", cause="time", detail="time budget ran out")
    assert "next: give a larger --time-budget SECONDS" in timed.text()
    unbuilt = Cell("x", "full", "open", detail="no construction")
    assert "--weights FILE" in unbuilt.next_step and "train" in unbuilt.next_step


def test_failed_float_check_heads_verify(tmp_path, capsys):
    path = tmp_path / "leaky.json"
    L = _leaky()
    Weights("full", np.stack([np.eye(3), L, L @ L]), np.array([1.0, 0, 0]), np.eye(3)).save(path)
    args = ["verify", "cyclic:3", "full", "--weights", str(path), "--bound", "2", "--float",
            "--length", "200", "--words", "50"]
    assert main(args) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("cyclic:3 full: FAILS the float check (accuracy")
    assert out[0].endswith("on 2^60") and out[1] == "  exact verdict: open"
    assert main(args + ["--json"]) == 1
    j = json.loads(capsys.readouterr().out)
    assert j["status"] == "open" and j["float_check"]["passed"] is False
    assert j["float_check"]["first_failure"] == "2^60" and j["next_step"].startswith("raise --bound")
