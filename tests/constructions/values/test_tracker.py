"""Any model as a tracker: the float check, the extraction and ``bilinear analyze`` on baselines."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from bilinear.analysis.extract import ExtractConfig, extract_tracker
from bilinear.analysis.report import AnalysisConfig, analyze_tracker
from bilinear.constructions.values.tracker import ModuleTracker, WeightsTracker, as_tracker
from bilinear.automata import from_spec
from bilinear.cli import main
from bilinear.constructions import check
from bilinear.constructions import build
from bilinear.errors import AnalysisError
from bilinear.learned.baselines import CausalTransformer, LSTMModel, SelectiveSSM, TanhRNN

PARITY = from_spec("parity")
FAST = ["--words", "200", "--length", "40"]


def parity_lstm() -> LSTMModel:
    """An LSTM set by hand to track parity exactly (saturated gates: f = 0, i = o = 1).

    Hidden units u1 = AND(x, p), u2 = OR(x, p) in {-1, +1} (times tanh(1)); the parity after a
    step is u2 - u1 - 1, linear in them, so the next step's AND and OR are linear thresholds.
    """
    m = LSTMModel(n_symbols=2, n_classes=2, hidden=2, embed=1)
    K, s = 30.0, float(np.tanh(1.0))
    with torch.no_grad():
        m.embedding.weight[:] = torch.tensor([[-1.0], [1.0]])  # x = -1 (symbol 0), +1 (symbol 1)
        W_ih, W_hh = torch.zeros(8, 1), torch.zeros(8, 2)
        b = torch.zeros(8)
        b[0:2], b[2:4], b[6:8] = K, -K, K  # input gate open, forget gate shut, output gate open
        W_ih[4:6, 0] = K  # cell candidate g = tanh(K (x + p - 1)), tanh(K (x + p + 1)), p = u2 - u1 - 1
        W_hh[4:6] = K * torch.tensor([[-1.0, 1.0], [-1.0, 1.0]]) / s
        b[4:6] = torch.tensor([-2 * K, 0.0])
        m.rnn.weight_ih_l0[:], m.rnn.weight_hh_l0[:] = W_ih, W_hh
        m.rnn.bias_ih_l0[:], m.rnn.bias_hh_l0[:] = b, 0.0
        m.readout.weight[:] = torch.tensor([[0.0, 0.0], [-1.0, 1.0]]) / s
        m.readout.bias[:] = torch.tensor([0.0, -1.0])
    return m


def test_hand_set_lstm_tracks_parity_at_every_length():
    r = check(parity_lstm(), PARITY, length=300, words=100)
    assert r.passed and r.accuracy == 1.0 and r.directed == 12
    assert r.worst_margin > 0.9


def test_as_tracker_on_every_baseline_and_on_weights():
    words = np.array([[0, 1, 1, 0, 1]])
    for cls in (LSTMModel, TanhRNN, CausalTransformer, SelectiveSSM):
        t = as_tracker(cls(n_symbols=2, n_classes=3, hidden=8))
        assert isinstance(t, ModuleTracker) and t.has_hidden and t.weights is None
        out = t.run(words, hidden=True)
        assert out.logits.shape == (1, 5, 3) and out.hidden.shape == (1, 5, 8)
    w = build("cyclic:5", "rotation2d")
    t = as_tracker(w)
    assert isinstance(t, WeightsTracker) and t.weights is w
    assert t.run(np.array([[1, 1, 3]])).logits.argmax(-1).tolist() == [[1, 2, 0]]
    with pytest.raises(AnalysisError, match="submodule 'nope'"):
        as_tracker(LSTMModel(2, 2, 4), hidden="nope")
    with pytest.raises(AnalysisError, match="cannot track"):
        as_tracker(42)
    with pytest.raises(AnalysisError, match="outside"):
        as_tracker(LSTMModel(2, 2, 4)).run(np.array([[0, 5]]))


def test_extraction_from_the_hidden_states_of_an_lstm():
    ex = extract_tracker(parity_lstm(), PARITY, ExtractConfig(words=200, length=60))
    assert ex.status == "ok" and ex.separated and ex.isomorphic
    assert ex.n_clusters == 3 and ex.minimal.n_states == 2  # AND/OR units: 3 points, 2 states
    assert ex.accuracy == 1.0 and min(ex.accuracy_by_length) == 1.0


def test_analyze_tracker_has_no_weight_sections():
    r = analyze_tracker(parity_lstm(), PARITY, AnalysisConfig(extract=ExtractConfig(words=100, length=30)))
    j = r.to_json()
    assert j["spectrum"] is None and j["commutators"] is None and j["relations"] is None
    assert j["extraction"]["isomorphic"] is True
    text = r.to_markdown()
    assert "no transition matrices" in text and "## Spectra" not in text and "isomorphic" in text


class LogitsOnly(torch.nn.Module):
    """docs/your-model.md's parity module: logits, no hidden states (no ``readout`` submodule)."""

    def forward(self, words):
        sign = torch.cumprod(1.0 - 2.0 * words.double(), dim=1)
        return torch.stack([sign, -sign], dim=-1)


def test_analyze_tracker_on_a_model_without_hidden_states_renders_and_writes(tmp_path):
    r = analyze_tracker(LogitsOnly(), PARITY, AnalysisConfig(extract=ExtractConfig(words=50, length=20)))
    assert r.extraction.automaton is None and r.extraction.accuracy == 1.0
    text = r.to_markdown()
    assert "no extraction: the model gives no hidden states (accuracy only)" in r.summary
    assert "nan" not in text and "transition conflicts" not in text and "extraction failed" not in text
    assert json.loads(json.dumps(r.to_json()))["extraction"]["status"] == "the model gives no hidden states (accuracy only)"
    written = r.write(tmp_path / "out", figures=False)
    assert sorted(p.name for p in written) == ["report.json", "report.md"]


def test_a_report_that_cannot_be_rendered_writes_no_folder(tmp_path, monkeypatch):
    r = analyze_tracker(LogitsOnly(), PARITY, AnalysisConfig(extract=ExtractConfig(words=50, length=20)))

    def broken(self):
        raise AnalysisError("cannot render")

    monkeypatch.setattr(type(r), "to_json", broken)
    with pytest.raises(AnalysisError, match="cannot render"):
        r.write(tmp_path / "out")
    assert not (tmp_path / "out").exists()


def _lstm_run(tmp_path, model):
    from bilinear.learned import TrainConfig
    from bilinear.learned.runs import MODEL_FILE
    from bilinear.learned import train_run

    run = tmp_path / "run"
    train_run(TrainConfig(spec="parity", model="lstm", hidden=2, embed=1, steps=1, test_len=20,
                          test_words=4, eval_every=1), run)
    torch.save(model.state_dict(), run / MODEL_FILE)  # the hand-set weights in place of the trained
    return run


def test_bilinear_analyze_on_an_lstm_run(tmp_path, capsys):
    run = _lstm_run(tmp_path, parity_lstm())
    assert main(["analyze", str(run), "--json", "--out", str(tmp_path / "out"), *FAST]) == 0
    j = json.loads(capsys.readouterr().out)
    ex = j["extraction"]
    assert ex["isomorphic"] is True and len(ex["accuracy_by_length"]) == 40
    assert min(ex["accuracy_by_length"]) == 1.0
    assert j["spectrum"] is None
    curve = j["accuracy_by_length"]  # the accuracy-by-length curve of the report, from length 1
    assert curve is not None and min(curve["accuracy"]) == 1.0
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "accuracy.png", "automaton.dot", "automaton.graphml", "automaton.png", "report.json", "report.md"]


def test_the_hidden_states_of_a_layered_ssm_are_its_final_norm():
    """The readout's input: the residual stream after the last block, through the final norm."""
    import torch

    m = SelectiveSSM(n_symbols=2, n_classes=2, hidden=6, layers=3, seed=1)
    words = np.array([[0, 1, 1, 0], [1, 1, 0, 1]])
    out = as_tracker(m).run(words, hidden=True)
    with torch.no_grad():
        x = m.embedding(torch.as_tensor(words))
        for norm, block in zip(m.norms, m.blocks):
            x = x + block(norm(x))
        expect = m.norm(x).double().numpy()
    assert out.hidden.shape == (2, 4, 6) and np.allclose(out.hidden, expect, atol=1e-6)


@pytest.mark.parametrize("cls", [TanhRNN, CausalTransformer, SelectiveSSM])
def test_analyze_tracker_runs_on_every_baseline(cls):
    """Untrained baselines: the report exists, with an accuracy per length, the directed words and no
    weight sections (a curve of 100, not the default 1000 the cap gives a tracker: the Transformer's
    forward is quadratic in the length, and the cap is tested in tests/analysis/test_tracker_limits.py)."""
    model = cls(n_symbols=2, n_classes=2, hidden=8)
    r = analyze_tracker(model, PARITY, AnalysisConfig(extract=ExtractConfig(words=40, length=12), curve_length=100,
                                                      curve_words=50))
    ex = r.to_json()["extraction"]
    assert len(ex["accuracy_by_length"]) == 12 and -1.0 <= ex["accuracy"] <= 1.0
    assert r.spectrum is None and r.variant == cls.__name__ and "no transition matrices" in r.summary
    assert r.curve.max_length == 100 and r.directed.length == 100 and "\ndirected words: " in r.summary


def test_extract_and_check_take_a_model_and_need_an_automaton():
    from bilinear.errors import MismatchError

    ex = __import__("bilinear.analysis.extract", fromlist=["extract"]).extract(
        parity_lstm(), PARITY, ExtractConfig(words=50, length=20))
    assert ex.isomorphic and ex.accuracy == 1.0
    for call in (lambda: check(parity_lstm(), None), lambda: extract_tracker(parity_lstm(), "parity"),
                 lambda: analyze_tracker(parity_lstm(), None)):
        with pytest.raises(MismatchError, match="expected an Automaton"):
            call()
