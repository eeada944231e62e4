"""`bilinear analyze --construction SPEC VARIANT --layers L`: the stack `verify --layers L` proves."""

from __future__ import annotations

import json

from bilinear.cli import main


def _analyze(capsys, *argv):
    code = main(["analyze", *argv, "--json", "--words", "40", "--length", "12"])
    captured = capsys.readouterr()
    return code, (json.loads(captured.out) if code == 0 else None), captured.err


def test_analyze_a_constructed_cascade(capsys):
    code, report, _ = _analyze(capsys, "--construction", "dihedral:3", "rotation2d", "--layers", "2")
    assert code == 0
    assert report["accuracy_by_length"]["first_failure_length"] is None
    assert report["extraction"]["isomorphic"] is True and report["extraction"]["n_clusters"] == 6
    assert "stack of 2 layers" in report["relations_note"]
    assert report["source"]["layers"] == 2 and "2 layers (d=2+4)" in report["title"]


def test_analyze_a_repeated_layer_and_one_layer(capsys):
    code, report, _ = _analyze(capsys, "--construction", "flipflop:2", "full", "--layers", "3")
    assert code == 0 and report["extraction"]["isomorphic"] is True and "3 layers (d=2+2+2)" in report["title"]
    code, report, _ = _analyze(capsys, "--construction", "dihedral:3", "full", "--layers", "1")
    assert code == 0 and report["relations_note"] is None and report["spectrum"]  # one layer: the matrices' analyses
    assert "layers" not in report["source"]


def test_analyze_layers_errors(capsys):
    code, _, err = _analyze(capsys, "--construction", "flipflop:2", "diagonal", "--layers", "2")
    assert code == 2 and "no cascade construction" in err and err.count("\n") == 1
    code, _, err = _analyze(capsys, "--construction", "symmetric:4", "rotation2d", "--layers", "2")
    assert code == 2 and "no cascade construction" in err
    code, _, err = _analyze(capsys, "--weights", "x.json", "parity", "--layers", "2")
    assert code == 2 and "--layers goes with --construction" in err
    code, _, err = _analyze(capsys, "--construction", "parity", "diagonal", "--layers", "17")
    assert code == 2 and "from 1 to 16" in err
