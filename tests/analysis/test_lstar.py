"""AALpy's L* against our extraction: agreement is evidence, a distinguishing word a finding."""

from __future__ import annotations

import re
import sys

import numpy as np
import pytest

from bilinear.analysis.examples import cyclic_rotation2d
from bilinear.analysis import ExtractConfig
from bilinear.automata import from_spec
from bilinear.errors import AnalysisError, ExtraMissingError

aalpy = pytest.importorskip("aalpy")

from bilinear.analysis.lstar import NO_PREDICTION, LStarConfig, compare_extractions, lstar  # noqa: E402

SMALL = ExtractConfig(words=200, length=30)


def test_lstar_learns_the_rotation_network_and_agrees_with_the_extraction() -> None:
    agreement = compare_extractions(cyclic_rotation2d(5), from_spec("cyclic:5"), extract_config=SMALL)
    assert agreement.isomorphic and agreement.distinguishing_word is None
    learned = agreement.lstar.automaton
    assert learned.n_states == 5 and NO_PREDICTION not in learned.classes  # h0's class is the empty word's
    assert learned.classes[learned.label("1 1 4 3")] == "4"
    assert "agree: isomorphic" in agreement.text()


def test_a_users_torch_module_is_learned() -> None:
    import torch
    from torch import nn

    class ParityModule(nn.Module):  # a hand-set recurrent module: hidden = one-hot running parity
        def __init__(self):
            super().__init__()
            self.readout = nn.Linear(2, 2, bias=False)
            with torch.no_grad():
                self.readout.weight.copy_(torch.eye(2))

        def forward(self, words):
            bit = torch.cumsum(words, dim=1) % 2
            return self.readout(nn.functional.one_hot(bit, 2).float())

    parity = from_spec("parity")
    agreement = compare_extractions(ParityModule(), parity, extract_config=SMALL)
    learned = agreement.lstar.automaton
    assert learned.classes[learned.labels[learned.start]] == NO_PREDICTION  # no prediction before a symbol
    assert agreement.isomorphic, agreement.text()
    assert learned.classes[learned.label("1 1 1")] == "odd"


def test_hidden_states_that_hide_the_outputs_are_a_finding() -> None:
    """Logits of Z_3 over hidden states that keep only the parity of the length: the extraction
    (clusters of hidden states) sees two states, L* (behaviour) three; they differ on a word."""
    def tracker(words):
        total = np.cumsum(words, axis=1) % 3
        logits = np.eye(3)[total]
        hidden = np.eye(2)[(np.arange(words.shape[1])[None, :] + np.zeros_like(words)) % 2]
        return logits, hidden

    from bilinear.constructions import as_tracker

    model = as_tracker(tracker, hidden=True, n_symbols=3, n_classes=3)
    agreement = compare_extractions(model, from_spec("cyclic:3"), extract_config=SMALL)
    assert agreement.extraction.automaton is not None and agreement.extraction.n_clusters == 2
    assert not agreement.isomorphic
    assert agreement.lstar.automaton.n_states == 4  # Z_3 and the no-prediction start
    word = agreement.distinguishing_word
    assert word is not None and "disagree" in agreement.text()
    # on that word (after the extraction's start) the two automata give different classes
    start = agreement.extraction.start_word
    lstar_label = agreement.lstar.automaton.label(start + word)
    extracted = agreement.extraction.automaton
    assert lstar_label != extracted.label(word)


def test_budgets_and_the_missing_extra(monkeypatch) -> None:
    broken = cyclic_rotation2d(5, angle_error=0.05)  # not finite-state: L* keeps growing
    with pytest.raises(AnalysisError, match="max_steps"):
        lstar(broken, from_spec("cyclic:5"), LStarConfig(max_steps=2_000))
    with pytest.raises(AnalysisError, match="must be a positive integer"):
        LStarConfig(walk_len=0).validated()
    monkeypatch.setitem(sys.modules, "aalpy.learning_algs", None)
    with pytest.raises(ExtraMissingError, match=r"bilinear\[aalpy\]"):
        lstar(cyclic_rotation2d(3), from_spec("cyclic:3"))


# --- bilinear analyze --lstar: the comparison in the report ----------------------------------------

def test_analyze_lstar_on_the_command_line(tmp_path, capsys) -> None:
    import json

    from bilinear.cli import main

    small = ["--words", "200", "--length", "30"]
    assert main(["analyze", "--construction", "cyclic:5", "rotation2d", "--json", *small]) == 0
    assert json.loads(capsys.readouterr().out)["lstar"] is None  # only when asked for
    # docs/analysis.md's example, as it is written there
    assert main(["analyze", "--construction", "cyclic:5", "rotation2d", "--lstar"]) == 0
    text = capsys.readouterr().out
    assert "## A second extraction: AALpy's L*" in text
    assert re.search(r"^L\* \(5 states, \d+ queries\) and the extraction \(5 states, minimal\) agree: isomorphic$",
                     text, flags=re.M)
    out = tmp_path / "report"
    assert main(["analyze", "--construction", "cyclic:5", "rotation2d", "--lstar", "--out", str(out), *small]) == 0
    assert "agree: isomorphic" in (out / "report.md").read_text()
    data = json.loads((out / "report.json").read_text())
    lstar_json = data["lstar"]
    assert lstar_json["isomorphic"] is True and lstar_json["distinguishing_word"] is None
    assert lstar_json["lstar_states"] == 5 and lstar_json["queries"] > 0 and lstar_json["steps"] > 0
    assert lstar_json["text"] in data["summary"]
    assert data["config"]["lstar"]["seed"] == 0


def test_analyze_report_names_the_word_on_which_lstar_and_the_extraction_differ() -> None:
    """The report's L* section on the tracker whose hidden states hide its outputs (above): the
    verdict is 'disagree' and the word the report prints tells the two automata apart."""
    from bilinear.analysis.report import AnalysisConfig, analyze_tracker
    from bilinear.constructions import as_tracker

    def tracker(words):
        total = np.cumsum(words, axis=1) % 3
        hidden = np.eye(2)[(np.arange(words.shape[1])[None, :] + np.zeros_like(words)) % 2]
        return np.eye(3)[total], hidden

    z3 = from_spec("cyclic:3")
    model = as_tracker(tracker, hidden=True, n_symbols=3, n_classes=3)
    report = analyze_tracker(model, z3, AnalysisConfig(extract=SMALL, lstar=LStarConfig(), curve_length=20))
    agreement = report.lstar
    assert agreement is not None and not agreement.isomorphic
    assert "disagree: they differ on the word" in report.summary
    word = agreement.distinguishing_word
    assert report.to_json()["lstar"]["distinguishing_word"] == list(word)
    assert f"shortest word on which L* and the extraction differ: `{agreement.distinguishing_text}`" in report.to_markdown()
    start = agreement.extraction.start_word
    assert agreement.lstar.automaton.label(start + word) != agreement.extraction.automaton.label(word)
