"""Hostile inputs to certify and analyze (issue 25): a one-symbol automaton ends, a time budget
is honoured (exit 3, nothing printed or written), all under a 6 GB cap."""

from __future__ import annotations

import json

ONE = {"format": "bilinear.automaton", "version": 1, "states": 1, "symbols": ["a"], "delta": [[0]],
       "labels": [0], "classes": ["x", "y"]}


def _one_symbol(tmp_path):
    """A float diagonal network on the one-state, one-symbol automaton (always x): h0 = (1, 1/2),
    A = diag(0.9, 1), so x wins while 0.9^n > 1/2, i.e. up to length 6; a^7 is the first failure."""
    aut = tmp_path / "one.json"
    aut.write_text(json.dumps(ONE))
    weights = tmp_path / "w.json"
    weights.write_text(json.dumps({"format": "bilinear.weights", "version": 1, "variant": "diagonal", "exact": False,
                                   "A": [[[0.9, 0], [0, 1.0]]], "h0": [1, 0.5], "readout": [[1, 0], [0, 1]]}))
    return aut, weights


def test_certify_of_a_one_symbol_automaton_ends(capped_cli, tmp_path):
    """``horizon._exhaustive`` grew words only while a level grew: with one symbol it never did."""
    aut, weights = _one_symbol(tmp_path)
    proc = capped_cli("certify", "--weights", weights, aut, "--unsigned", "--json", timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    cert = json.loads(proc.stdout)
    assert cert["status"] == "snapped"
    assert "a^7" in json.dumps(cert)  # the first failing word, found


def test_analyze_of_a_one_symbol_automaton_ends(capped_cli, tmp_path):
    aut, weights = _one_symbol(tmp_path)
    proc = capped_cli("analyze", "--weights", weights, aut, "--unsigned", timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "fails at length 7 on a^7" in proc.stdout


def test_certify_and_analyze_honour_the_time_budget(capped_cli, tmp_path):
    aut, weights = _one_symbol(tmp_path)
    proc = capped_cli("certify", "--weights", weights, aut, "--unsigned", "--time-budget", "0.01",
                      "--write", tmp_path / "snap.json")
    assert proc.returncode == 3, proc.stderr[-2000:]
    assert proc.stderr == ("bilinear: certify: not finished within the time budget of 0.01 s "
                           "(nothing printed, nothing written); raise --time-budget\n")
    assert proc.stdout == "" and not (tmp_path / "snap.json").exists()
    proc = capped_cli("analyze", "--construction", "parity", "diagonal", "--words", "30000", "--length", "1000",
                      "--time-budget", "0.5", "--out", tmp_path / "report")
    assert proc.returncode == 3, proc.stderr[-2000:]
    assert "analyze: not finished within the time budget of 0.5 s" in proc.stderr and proc.stderr.count("\n") == 1
    assert proc.stdout == "" and not (tmp_path / "report").exists()
