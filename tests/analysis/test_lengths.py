"""Accuracy by length: the reading covers every length, so a failure between the reading lengths
(1, 10, 100, 500, 1000, 2000) is not hidden."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from bilinear.analysis.lengths import accuracy_by_length
from bilinear.analysis.report import AnalysisConfig, analyze, curve_reading
from bilinear.automata import from_spec
from bilinear.constructions import Weights


def square_wave_parity() -> Weights:
    """A parity network (hidden 8: parity x length mod 4, one-hot) whose readout is right at every
    length except those = 3 mod 4, where it names the other class: its accuracy by length is a
    square wave, right at 1, 10, 100, 500, 1000 and 2000 (= 1, 2, 0, 0, 0, 0 mod 4)."""
    def index(p, c):
        return 4 * p + c

    A = np.zeros((2, 8, 8))
    for s in (0, 1):
        for p in (0, 1):
            for c in range(4):
                A[s, index(p ^ s, (c + 1) % 4), index(p, c)] = 1.0
    h0 = np.zeros(8)
    h0[index(0, 0)] = 1.0
    R = np.zeros((2, 8))
    for k in (0, 1):
        for c in range(4):
            R[k, index(k if c != 3 else 1 - k, c)] = 1.0
    return Weights("full", A, h0, R)


def test_square_wave_is_seen_between_the_reading_lengths():
    weights, automaton = square_wave_parity(), from_spec("parity")
    curve = accuracy_by_length(weights, automaton, max_length=2000, words=20)
    # the square wave: right at lengths != 3 mod 4, always wrong at 3 mod 4
    acc = np.array(curve.accuracy)
    assert np.all(acc[np.arange(2000) % 4 != 2] == 1.0) and np.all(acc[np.arange(2000) % 4 == 2] == -1.0)
    assert [curve.at(t) for t in (1, 10, 100, 500, 1000, 2000)] == [1.0] * 6  # what sampling read
    ranges = curve.ranges()
    assert [(r.start, r.stop) for r in ranges] == [(1, 1), (2, 10), (11, 100), (101, 500), (501, 1000), (1001, 2000)]
    assert [r.worst for r in ranges] == [1.0] + [-1.0] * 5
    assert [r.worst_length for r in ranges] == [1, 3, 11, 103, 503, 1003]
    line = curve_reading(curve)
    assert "2-10: worst -1.00 (at 3; 1.00 at 10)" in line and "1001-2000: worst -1.00" in line
    assert "first error at length 3" in line
    assert "11-100: worst -1.00 (at 11; 1.00 at 100)" in line  # docs/analysis.md quotes this range
    doc = (Path(__file__).resolve().parents[2] / "docs" / "analysis.md").read_text(encoding="utf-8")
    assert "(`11-100: worst -1.00 (at 11; 1.00 at 100)`)" in " ".join(doc.split())
    assert curve.to_json()["worst"] == -1.0 and curve.to_json()["worst_length"] == 3
    # the report's summary line carries it too (never "1.00" alone for a range that fails)
    report = analyze(weights, automaton, AnalysisConfig(run_extraction=False, curve_length=2000, curve_words=20,
                                                        run_certify=False))
    assert "101-500: worst -1.00" in report.summary


def test_figure_draws_the_worst_of_each_range(tmp_path):
    from bilinear.analysis.figures import accuracy_figure

    curve = accuracy_by_length(square_wave_parity(), from_spec("parity"), max_length=200, words=10)
    path = accuracy_figure(curve, tmp_path / "acc.png", title="square wave")
    assert path.exists() and path.stat().st_size > 1000
