"""``bilinear export``: a trained run's float weights leave its folder in the weights file format,
and the run's headline ``accuracy_at_length`` agrees with an evaluation of the exported file that
shares no code with the project's float run or training evaluation."""

from __future__ import annotations

import json

import numpy as np
import pytest

from bilinear.cli import main
from bilinear.constructions import Weights


def independent_accuracy_at_length(payload: dict, delta, start: int, labels, words) -> float:
    """Normalised accuracy at the last position of ``words`` (all of one length), computed from
    the weights file's JSON and the automaton's table with plain Python loops: h <- A[s] h,
    renormalised to unit length at every step; argmax of readout h at the end against the label
    of the state the automaton reaches.  (Nothing from bilinear: no floatrun, no torch.)"""
    A = np.array(payload["A"], dtype=float)
    h0 = np.array(payload["h0"], dtype=float)
    R = np.array(payload["readout"], dtype=float)
    n_classes = R.shape[0]
    right = 0
    for word in words:
        h, q = h0 / np.linalg.norm(h0), start
        for s in word:
            h = A[s] @ h
            h = h / np.linalg.norm(h)
            q = delta[s][q]
        right += int(np.argmax(R @ h)) == labels[q]
    acc = right / len(words)
    return (acc - 1 / n_classes) / (1 - 1 / n_classes)


def test_export_matches_the_runs_headline(tmp_path, capsys):
    run = tmp_path / "run"
    assert main(["train", "cyclic:5", "rotation2d", "--json", "--quiet", "--out", str(run)]) == 0
    result = json.loads(capsys.readouterr().out)
    n = result["test_length"]
    assert n == 500
    # the headline is the last position, not the mean over positions (this run drifts: they differ)
    assert result["accuracy_at_length"] != pytest.approx(result["accuracy_mean_over_positions"], abs=0.1)

    out = tmp_path / "w.json"
    assert main(["export", str(run), str(out)]) == 0
    assert "cyclic:5 / rotation2d" in capsys.readouterr().out
    payload = json.loads(out.read_text())
    assert payload["checksum"] and payload["variant"] == "rotation2d"
    Weights.load(out)  # signed: loads without allow_unsigned

    # the automaton's table as plain lists; the run's own test words ((seed, 3) is the test
    # stream of learned/train.py)
    from bilinear.automata import from_spec
    from bilinear.automata import sample_words

    automaton = from_spec("cyclic:5")
    delta, start, labels = automaton.delta.tolist(), int(automaton.start), automaton.labels.tolist()
    ds = sample_words(automaton, 100, n, n, seed=np.random.default_rng((0, 3)))
    same = independent_accuracy_at_length(payload, delta, start, labels, [list(map(int, w)) for w in ds.words])
    assert abs(same - result["accuracy_at_length"]) <= 0.05
    # fresh words (an independent sample of 400): within sampling error of the headline
    fresh = np.random.default_rng(12345).integers(0, 5, size=(400, n)).tolist()
    other = independent_accuracy_at_length(payload, delta, start, labels, fresh)
    assert abs(other - result["accuracy_at_length"]) <= 0.15

    # verify re-checks the file (exit 1 counterexample or 3 open: the drifted network is not proved)
    rc = main(["verify", "cyclic:5", "--weights", str(out), "--json", "--bound", "4"])
    assert rc in (1, 3)
    # never overwritten without --force
    assert main(["export", str(run), str(out)]) == 2
    assert "exists: use --force" in capsys.readouterr().err
    assert main(["export", str(run), str(out), "--force", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["accuracy_at_length"] == result["accuracy_at_length"]


def test_export_refuses_a_baseline_and_a_missing_run(tmp_path, capsys):
    run = tmp_path / "lstm"
    assert main(["train", "parity", "lstm", "--hidden", "4", "--steps", "5", "--test-len", "10",
                 "--test-words", "4", "--quiet", "--out", str(run)]) == 0
    capsys.readouterr()
    for argv, message in ((["export", str(run), str(tmp_path / "a.json")], "has no Weights"),
                          (["export", str(tmp_path / "nothing"), str(tmp_path / "b.json")], "does not exist")):
        assert main(argv) == 2
        assert message in capsys.readouterr().err
    assert not (tmp_path / "a.json").exists()
