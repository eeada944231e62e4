"""The directed words of a tracker's report (analysis/lengths.py, ``directed_run``): a model that
random words never catch (it breaks after a run of one symbol) is caught, the line names the
word with both labels, and the report's other lines do not read as if the model were right.
Each sentence of the line ("errs at length", "no error on", "a tie", "on the sampled words
only") is also shown absent on a model where it would be false; the failing word and its labels
are checked against the model's own definition (``_first_wrong_power``)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from bilinear.analysis import AnalysisConfig
from bilinear.analysis.lengths import DirectedRun, directed_plan, directed_run
from bilinear.analysis.report import analyze_tracker
from bilinear.automata import from_spec
from bilinear.constructions.horizon.floatcheck import directed_words
from bilinear.constructions.values.tracker import as_tracker

CYCLIC3 = from_spec("cyclic:3")


def _breaks_after_run(run: int, tie: bool = False, hidden: bool = False):
    """A cyclic:3 model, right until ``run`` ones in a row; then class 0 for good (or, with
    ``tie``, equal logits for classes 0 and 1).  With ``hidden`` it also returns the one-hot of
    the true sum as its hidden state, so its extracted automaton is cyclic:3 itself."""

    def model(words):
        words = np.asarray(words)
        runs = np.zeros(words.shape[0], dtype=int)
        broken = np.zeros(words.shape[0], dtype=bool)
        logits = np.zeros(words.shape + (3,))
        sums = np.cumsum(words, axis=1) % 3
        for t in range(words.shape[1]):
            runs = np.where(words[:, t] == 1, runs + 1, 0)
            broken |= runs >= run
            logits[:, t] = np.eye(3)[np.where(broken, 0, sums[:, t])]
            if tie:
                logits[broken, t] = (1.0, 1.0, 0.0)
        return (logits, np.eye(3)[sums]) if hidden else logits

    return as_tracker(model, hidden=hidden, n_symbols=3, n_classes=3, name="breaks")


def _first_wrong_power(run: int) -> int:
    """The shortest power 1^n the model above labels wrong, by its definition: from n = run on it
    says 0, and cyclic:3 says n mod 3."""
    return next(n for n in range(run, run + 3) if n % 3 != 0)


def test_a_model_right_on_random_words_is_caught_by_a_power():
    config = AnalysisConfig(curve_length=400, curve_words=50)
    report = analyze_tracker(_breaks_after_run(25), CYCLIC3, config)
    assert report.curve.first_failure is None  # 50 random words of 400 symbols hold no run of 25 ones
    n = _first_wrong_power(25)
    d = report.directed
    assert d.failure.word == (1,) * n and d.failure.automaton == str(n % 3) and d.failure.network == "0"
    assert d.words == directed_words(CYCLIC3, 10).shape[0] and d.length == 400
    line = f"directed words: errs at length {n} on 1^{n} (automaton {n % 3}, network 0)"
    assert line in report.summary and "## Directed words" in report.to_markdown()
    out = json.loads(json.dumps(report.to_json()))["directed_words"]
    assert out["first_failure"] == f"1^{n}" and out["first_failure_length"] == n and out["network_label"] == "0"
    assert 0 < d.accuracy < 1
    assert "no error on" not in report.summary and "a tie" not in report.summary  # false here: not printed


def test_an_extraction_that_matches_is_said_to_match_on_the_sampled_words_only():
    config = AnalysisConfig(curve_length=200, curve_words=20)
    report = analyze_tracker(_breaks_after_run(40, hidden=True), CYCLIC3, config)
    assert report.extraction.isomorphic is True and report.directed.failure is not None
    assert "isomorphic to the true one on the sampled words only" in report.summary
    right = analyze_tracker(_breaks_after_run(10**6, hidden=True), CYCLIC3, config)
    assert right.directed.failure is None and "sampled words only" not in right.summary
    assert "errs at length" not in right.summary and right.directed.accuracy == 1.0
    length = min(200, 20 * 200 // right.directed.words)  # no more symbols than the curve's 20 x 200
    assert f"directed words: no error on {right.directed.words} directed words of length {length}" in right.summary


def test_a_tie_is_an_error_and_is_said_to_be_one():
    """The check counts a tie as wrong; the argmax of the re-run would pick the label (class 0 or
    1 first), so the line says it is a tie instead of printing two equal labels."""
    d = directed_run(_breaks_after_run(6, tie=True), CYCLIC3, 30)
    assert d.failure is not None and len(d.failure.word) == 6 and d.failure.automaton == "0"
    assert "network: a tie of 0 with another class" in d.reading


def test_the_length_is_cut_to_the_token_budget_and_the_size_is_checked_first():
    parts, length = directed_plan(CYCLIC3, 1000, max_tokens=390)
    assert length == 390 // len(parts) == 10
    assert directed_run(_breaks_after_run(25), CYCLIC3, 1000, max_tokens=390).failure is None  # too short to see it
    report = analyze_tracker(_breaks_after_run(25), CYCLIC3, AnalysisConfig(curve_length=100, curve_words=1))
    assert report.directed.length == max(1, 100 // report.directed.words)  # never more than the curve reads
    from bilinear.errors import WeightsError

    with pytest.raises(WeightsError, match="GiB"):
        directed_plan(CYCLIC3, 1000, max_tokens=10**9, classes=10**5)


def test_the_reading_of_a_run_without_failure():
    d = DirectedRun(words=4, length=9, accuracy=1.0, failure=None)
    assert d.reading.startswith("no error on 4 directed words of length 9 (") and d.reading.endswith("evidence, not a proof")


def test_bad_arguments_are_refused_by_name():
    from bilinear.errors import AnalysisError, MismatchError

    model = _breaks_after_run(25)
    with pytest.raises(MismatchError, match="expected an Automaton"):
        directed_run(model, "cyclic:3", 10)
    for bad in (0, 2.5, "x"):
        with pytest.raises(AnalysisError, match="max_length must be a positive integer"):
            directed_run(model, CYCLIC3, bad)
    with pytest.raises(AnalysisError, match="max_tokens must be a positive integer"):
        directed_plan(CYCLIC3, 10, max_tokens=0)
    with pytest.raises(AnalysisError, match="cannot track with a NoneType"):
        directed_run(None, CYCLIC3, 10)
