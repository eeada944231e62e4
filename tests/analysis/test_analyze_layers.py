"""`bilinear analyze --construction SPEC VARIANT --layers L`: the stack `verify --layers L` proves."""

from __future__ import annotations

import json

import pytest

from bilinear.cli import main


def _analyze(capsys, *argv):
    code = main(["analyze", *argv, "--json", "--words", "40", "--length", "12"])
    captured = capsys.readouterr()
    return code, (json.loads(captured.out) if code == 0 else None), captured.err


@pytest.fixture(scope="module")
def d3_cascade_report():
    """``analyze --construction dihedral:3 rotation2d --layers 2 --json``, run once for the module."""
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["analyze", "--construction", "dihedral:3", "rotation2d", "--layers", "2", "--json",
                     "--words", "40", "--length", "12"])
    assert code == 0
    return json.loads(out.getvalue())


def test_analyze_a_constructed_cascade(d3_cascade_report):
    report = d3_cascade_report
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


# ---- issue 45, item 4: a stack's report has each layer's spectra and hidden size ---------------

def test_a_stack_report_has_each_layers_spectra_and_its_own_hidden_size(d3_cascade_report):
    from bilinear.analysis import spectrum
    from bilinear.automata import from_spec
    from bilinear.constructions.handmade.cascade import build_stack

    report = d3_cascade_report
    summary = "\n".join(report["summary"])
    # hidden 2 and 4, each said for its layer: a summed "6" would be false for either
    assert report["weights"]["hidden_per_layer"] == [2, 4]
    assert "layer 1 of 2: rotation2d, hidden 2, reads the 2 input symbols, 2 classes" in summary
    assert "layer 2 of 2: rotation2d, hidden 4, reads 4 (input symbol, class of layer 1) pairs, 6 classes" in summary
    assert "hidden 6" not in summary and "never read" not in summary  # every pair is read in this cascade
    assert "do not apply (accuracy and extraction only)" not in summary
    # layer 1's verdicts are the verdicts of layer 1's own matrices, computed apart
    d3 = from_spec("dihedral:3")
    stack, _ = build_stack(d3, "rotation2d", 2)
    alone = spectrum(stack.layers[0], d3).reading.splitlines()
    assert [line for line in report["summary"] if line.startswith("layer 1: ")] == [f"layer 1: {x}" for x in alone]
    assert "layer 1: A_s acts as -I (negates every hidden state)" in summary
    layer2 = report["layers"][1]["spectrum"]["symbols"]
    assert [m["name"] for m in layer2] == ["A_(r, class 0)", "A_(r, class 1)", "A_(s, class 0)", "A_(s, class 1)"]
    assert [m["order"] for m in layer2] == [3, 3, 2, 2]


def test_a_stack_layer_counts_the_matrices_the_cascade_reads():
    """Layer 2 of a padded cascade reads (symbol, class) only for the two classes layer 1 can
    take: the counts against the automaton's own run (layer 1's class is the parity of s)."""
    import numpy as np

    from bilinear.analysis.layers import LAYER_BURN_IN, LAYER_EXTRA, LAYER_WORDS, layer_spectra
    from bilinear.automata import from_spec
    from bilinear.constructions.handmade.cascade import cascade
    from bilinear.learned.stacked import padded_stack

    d3 = from_spec("dihedral:3")
    stack = padded_stack(cascade(d3, "rotation2d"))  # layer 1 padded to 6 classes, 4 of them never win
    layers = layer_spectra(stack, d3, seed=3)
    words = np.random.default_rng(3).integers(0, 2, size=(LAYER_WORDS, LAYER_BURN_IN + LAYER_EXTRA))
    parity = np.cumsum(words == 1, axis=1) % 2  # class after each step: s-count parity
    expected = np.bincount((words * 6 + parity).ravel(), minlength=12)
    # which of layer 1's classes stands for which parity is the construction's choice: match it
    assert sorted(layers[1].reads) == sorted(expected.tolist())
    assert sum(n > 0 for n in layers[1].reads) == 4 and len(layers[1].unread) == 8
    assert layers[1].header(2).endswith("; 8 of its matrices never read on the sampled words")
    assert all(not line.startswith("layer 2: A_(r, class 4)") for line in layers[1].lines(2))
    assert layers[0].reads == tuple(np.bincount(words.ravel(), minlength=2).tolist())


def test_a_trained_stack_names_its_hidden_size_per_layer(tmp_path, capsys):
    from bilinear.analysis import AnalysisConfig
    from bilinear.analysis.report import analyze_tracker
    from bilinear.analysis.figures import write_figures
    from bilinear.analysis.targets import load_target

    run = tmp_path / "run"
    assert main(["train", "parity", "diagonal", "--layers", "2", "--steps", "5", "--test-len", "20",
                 "--test-words", "10", "--hidden", "2", "--out", str(run), "--quiet"]) == 0
    capsys.readouterr()
    tracker, automaton, title, source = load_target(str(run))
    assert title == "parity / diagonal, 2 layers of hidden 2 each (run run)"
    report = analyze_tracker(tracker, automaton, AnalysisConfig(run_extraction=False, curve_length=0), title=title)
    assert [layer.hidden for layer in report.layers] == [2, 2]
    assert report.to_json()["weights"]["hidden_per_layer"] == [2, 2]
    assert "## Spectra, layer 2 of 2" in report.to_markdown()
    names = {p.name for p in write_figures(report, tmp_path / "figures")}
    assert names == {"layer1_eigenvalues.png", "layer2_eigenvalues.png"}
