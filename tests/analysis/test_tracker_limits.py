"""The analysis of a model without transition matrices (analysis/extract.py extract_tracker,
analysis/report.py analyze_tracker): the extraction's memory limit is checked before the model
runs, the accuracy-by-length cap is refused or said, never silent (docs/limits.md), and a
module with a ``to_weights`` of its own is analysed as a module."""

from __future__ import annotations

import importlib

import pytest
import torch

from bilinear.analysis.extract import ExtractConfig, extract_tracker
from bilinear.analysis.report import TRACKER_CURVE_LENGTH, AnalysisConfig, analyze_tracker
from bilinear.analysis.targets import load_target
from bilinear.automata import from_spec
from bilinear.cli import main
from bilinear.constructions.values.tracker import ModuleTracker
from bilinear.errors import AnalysisError

extract_module = importlib.import_module("bilinear.analysis.extract")  # the package exports the function as `extract`

PARITY = from_spec("parity")
HUGE = ExtractConfig(words=10**5, length=10**4)


class Parity(torch.nn.Module):
    """docs/your-model.md's parity module (logits only)."""

    def forward(self, words):
        sign = torch.cumprod(1.0 - 2.0 * words.double(), dim=1)
        return torch.stack([sign, -sign], dim=-1)


class ParityWithState(Parity):
    """The same, with an 8-unit hidden state: the input of its ``readout``."""

    def __init__(self):
        super().__init__()
        self.readout = torch.nn.Linear(8, 2, bias=False, dtype=torch.float64)
        with torch.no_grad():
            self.readout.weight.copy_(torch.tensor([[1.0] + [0.0] * 7, [-1.0] + [0.0] * 7], dtype=torch.float64))

    def forward(self, words):
        sign = torch.cumprod(1.0 - 2.0 * words.double(), dim=1)
        return self.readout(torch.nn.functional.pad(sign[..., None], (0, 7)))


def _never_run(monkeypatch):
    def never(*args, **kwargs):
        raise AssertionError("the module ran before the size was checked")

    monkeypatch.setattr(ModuleTracker, "run", never)


@pytest.mark.parametrize("call", [
    lambda: extract_tracker(Parity(), PARITY, HUGE),
    lambda: analyze_tracker(Parity(), PARITY, AnalysisConfig(extract=HUGE)),
], ids=["extract_tracker", "analyze_tracker"])
def test_the_extraction_limit_is_checked_before_a_module_runs(call, monkeypatch):
    """Both raised numpy's MemoryError (7.45 GiB for the words) before."""
    _never_run(monkeypatch)
    with pytest.raises(AnalysisError, match=r"^extracting from 100,000 words of length 10,000 \(hidden size not "
                                            r"counted, 2 logits a symbol, 256 words a model call\) would need about "
                                            r"29.9 GiB; the limit is 1 GiB \(bilinear.analysis.extract."
                                            r"MAX_EXTRACT_BYTES\): lower --words or --length$"):
        call()


def test_the_hidden_size_of_a_module_is_counted(monkeypatch):
    """100 words of 20 symbols: 100 x 21 x 32 = 67,200 bytes, one call's 2 logits 64,000 and its 8
    hidden units 100 x 8 x 16 + 100 x 20 x 8 x 16 = 268,800 more: 400,000 in all."""
    config = ExtractConfig(words=100, length=20)
    monkeypatch.setattr(extract_module, "MAX_EXTRACT_BYTES", 400_000)
    assert extract_tracker(ParityWithState(), PARITY, config).accuracy == 1.0  # exactly at the limit
    monkeypatch.setattr(extract_module, "MAX_EXTRACT_BYTES", 399_999)
    with pytest.raises(AnalysisError, match=r"100 words of length 20 \(hidden size 8, 2 logits a symbol, 100 words "
                                            r"a model call\) would need about 0.000373 GiB"):
        extract_tracker(ParityWithState(), PARITY, config)


def test_a_stacks_hidden_size_is_its_layers(monkeypatch):
    """dihedral:3 in two rotation2d layers: hidden 2 + 4 = 6, 6 classes; 10 words of 10 symbols
    need 10 x 11 x 32 + 10 x 6 x 16 + 10 x 10 x 12 x 16 = 23,680 bytes."""
    stack, d3, _, _ = load_target(construction=("dihedral:3", "rotation2d"), layers=2)
    monkeypatch.setattr(extract_module, "MAX_EXTRACT_BYTES", 23_679)
    with pytest.raises(AnalysisError, match=r"10 words of length 10 \(hidden size 6, 6 logits a symbol"):
        analyze_tracker(stack, d3, AnalysisConfig(extract=ExtractConfig(words=10, length=10), curve_length=0))


@pytest.mark.parametrize("argv, estimate", [
    (["--words", "100000", "--length", "10000"], "30 GiB"),
    (["--words", "20000", "--length", "2000"], "1.24 GiB"),  # ran for over a minute at 1.45 GB before
])
def test_analyze_layers_refuses_with_exit_2(argv, estimate, capsys):
    assert main(["analyze", "--construction", "dihedral:3", "rotation2d", "--layers", "2", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert f"would need about {estimate}; the limit is 1 GiB (bilinear.analysis.extract.MAX_EXTRACT_BYTES)" in err


NO_EXTRACTION = dict(run_extraction=False, curve_words=20)


def test_a_curve_past_the_cap_is_refused():
    """analyze_tracker gave 1000 for 3000 in silence ("no error seen" for a model failing at 1500)."""
    with pytest.raises(AnalysisError, match=r"^curve_length 3000 is past 1000, the longest accuracy-by-length curve "
                                            r"of a model without transition matrices \(Parity: .*"
                                            r"bilinear.analysis.report.TRACKER_CURVE_LENGTH\): ask for at most 1000 "
                                            r"\(--curve-length\)$"):
        analyze_tracker(Parity(), PARITY, AnalysisConfig(curve_length=3000, **NO_EXTRACTION))
    with pytest.raises(AnalysisError, match="curve_length 1001 is past 1000"):
        analyze_tracker(Parity(), PARITY, AnalysisConfig(curve_length=TRACKER_CURVE_LENGTH + 1, **NO_EXTRACTION))


def test_the_default_curve_is_capped_and_the_report_says_so():
    report = analyze_tracker(Parity(), PARITY, AnalysisConfig(**NO_EXTRACTION))
    assert AnalysisConfig().curve_length == 2000 and report.curve.max_length == 1000
    line = ("Parity has no transition matrices: no spectra, commutators or relations; the accuracy by length stops "
            "at length 1000, not the 2000 asked (capped at 1000 for a model without transition matrices)")
    assert report.summary.splitlines()[0] == line and report.to_json()["relations_note"] == line
    short = analyze_tracker(Parity(), PARITY, AnalysisConfig(curve_length=TRACKER_CURVE_LENGTH, **NO_EXTRACTION))
    assert short.curve.max_length == 1000 and "capped" not in short.summary


def test_a_stack_is_not_capped():
    """A stack's layers are float runs, linear in the length: the default 2000 is honoured."""
    stack, d3, _, _ = load_target(construction=("dihedral:3", "rotation2d"), layers=2)
    report = analyze_tracker(stack, d3, AnalysisConfig(**NO_EXTRACTION))
    assert report.curve.max_length == 2000 and "capped" not in report.summary


class OwnToWeights(Parity):
    def to_weights(self):
        return {"A": 1}


class FailingToWeights(Parity):
    def to_weights(self):
        raise NotImplementedError("not exported")


@pytest.mark.parametrize("model", [OwnToWeights(), FailingToWeights()], ids=["returns a dict", "raises"])
def test_a_module_with_its_own_to_weights_is_analysed_as_a_module(model):
    """Was MismatchError "expected a Weights value, got dict", or the user's NotImplementedError."""
    report = analyze_tracker(model, PARITY, AnalysisConfig(extract=ExtractConfig(words=20, length=10),
                                                           curve_length=50, curve_words=10))
    assert report.spectrum is None and report.curve.first_failure is None
    assert report.extraction.accuracy == 1.0
    assert report.relations_note.startswith(f"{type(model).__name__} has no transition matrices")


def test_the_curves_size_is_checked_before_the_extraction(monkeypatch):
    """curve_words x curve_length past MAX_CURVE_CELLS was refused only after the extraction had run
    (analyze and analyze_tracker alike)."""
    from bilinear.analysis import report as report_module
    from bilinear.analysis.report import analyze
    from bilinear.constructions.handmade.registry import build

    def no_extraction(*args, **kwargs):  # pragma: no cover - the point is that it is never called
        raise AssertionError("extracted before the curve's size check")

    monkeypatch.setattr(extract_module, "extract_tracker", no_extraction)  # imported where it is called
    monkeypatch.setattr(report_module, "extract", no_extraction)
    config = AnalysisConfig(curve_length=1000, curve_words=10**6, extract=ExtractConfig(words=20, length=20))
    with pytest.raises(AnalysisError, match=r"1000000 words x length 1000 x width 2 = 2000000000 cells exceeds"):
        analyze_tracker(Parity(), PARITY, config)
    with pytest.raises(AnalysisError, match=r"1000000 words x length 1000 x width 1 = 1000000000 cells exceeds"):
        analyze(build("parity", "diagonal").to_float(), PARITY, config)
