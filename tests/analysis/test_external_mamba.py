"""``analyze --from fla`` on Mamba-2 and Mamba checkpoints made by fla's save_pretrained: per-head
(Mamba: per channel group) positive diagonal transitions, their spectra and commutator figures, a
verdict that agrees with the measured behaviour and a failing word that fails again through fla's own
CPU path; bad Mamba-2 input refused in one line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import torch

from bilinear.analysis.external import _positive_power, analyze_external
from bilinear.analysis.report import AnalysisConfig
from bilinear.automata import from_spec
from bilinear.cli import main
from bilinear.learned import load_external

from external_fixtures import oracle

PARITY = from_spec("parity")
TOKENS, LABELS = "0=1,1=2", "even=3,odd=4"
FAST = ["--curve-length", "30", "--words", "20", "--length", "8", "--no-figures"]


def test_analyze_from_fla_on_a_random_mamba2(saved, tmp_path, capsys):
    folder, live = saved("mamba2")
    out = tmp_path / "report"
    argv = ["analyze", "--from", "fla", folder, "--task", "parity", "--tokens", TOKENS, "--labels", LABELS,
            "--out", str(out)] + FAST
    assert main(argv) == 0
    text = capsys.readouterr().out
    rep = json.loads((out / "report.json").read_text())
    assert [h["name"] for h in rep["heads"]] == ["head 0", "head 1", "head 2", "head 3"]
    assert all(h["variant"].startswith("positive (exp(Delta a) I, a positive scalar times the identity")
               and h["beta"] is None and h["exact"] for h in rep["heads"])
    # up to a positive scale a Mamba-2 head's transition is the identity: the spectra say so
    assert "1·1·1 acts as the identity (up to a positive scale)" in rep["heads"][0]["spectrum"]
    # the verdict agrees with the measured behaviour: a random model fails, and the word it prints
    # fails again through fla's own CPU path (Mamba2.torch_forward)
    word, got = rep["failing_word"]["word"], rep["failing_word"]["model"]
    assert rep["verdict"].startswith("The model does not track parity") and rep["failing_word"]["expected"] != got
    ids = torch.as_tensor([[1 + int(s) for s in word]])
    fla_label = ["even", "odd"][int(np.argmax(oracle(live, ids, "mamba2")[0, -1, [3, 4]]))]
    assert fla_label == got
    curve = rep["tracker"]["accuracy_by_length"]  # measured: errors by length 30 as well
    assert curve["worst"] < 1.0 and curve["first_failure_length"] is not None
    assert "positive diagonal in every head" in text and "cannot cycle" in text


def test_a_mamba_checkpoint_per_channel_group_and_its_figures(saved, tmp_path, monkeypatch):
    """Mamba: heads are groups of 8 channels; the figures of one group (the full windows `0·0·0` ... `1·1·1`:
    positive eigenvalues, zero commutators) are written under the output folder by the toolkit's own
    figure functions."""
    import dataclasses

    import bilinear.analysis.external as E

    folder, _ = saved("mamba")
    rep = analyze_external(load_external(folder), PARITY, TOKENS, LABELS, config=AnalysisConfig(
        curve_length=30, run_extraction=False), search_words=32)
    assert [h.label for h in rep.heads] == ["channels 0-7", "channels 8-15"]
    assert rep.heads[0].identified.startswith("positive (diagonal exp(Delta A)") and len(rep.heads[0].keys) == 14
    assert "a \"head\" below is a group of up to 8 channels" in rep.heads_note
    assert rep.heads[0].commutators.startswith("the transition matrices commute")
    assert rep.verdict.startswith("The model does not track parity") and rep.failing is not None
    h = rep.heads[0]
    assert [m.name for m in h.spectrum_value.symbols] == ["0·0·0", "0·0·1", "0·1·0", "0·1·1", "1·0·0", "1·0·1", "1·1·0",
                                                       "1·1·1"]
    assert h.commutators_value.symbols == tuple(m.name for m in h.spectrum_value.symbols)
    assert max(max(r) for r in h.commutators_value.norms) == 0.0
    assert all(z.real > 0 and z.imag == 0 for m in h.spectrum_value.symbols for z in m.normalised)
    monkeypatch.setattr(E, "MAX_HEAD_FIGURES", 1)  # the figures of the first group only (and the report says so)
    paths = rep.write(tmp_path, figures=True)
    names = sorted(p.name for p in paths)
    assert [n for n in names if n.startswith("layer")] == ["layer1_channels0-7_commutators.png",
                                                          "layer1_channels0-7_eigenvalues.png"]
    assert all(p.stat().st_size > 1000 for p in paths)
    assert "Figures (with --out): the first 1 of the 2 heads" in (tmp_path / "report.md").read_text()
    assert "Figures (with --out)" not in dataclasses.replace(rep, heads=rep.heads[:1]).to_markdown()


def _heads(ev, name="head 0"):
    """One Mamba head of two keys, symbol 1 and the window (1, 1), both with eigenvalues ``ev``."""
    from bilinear.analysis.external import HeadAnalysis

    return [HeadAnalysis(layer=0, head=0, keys=("1", "1·1"), exact=True, identified="positive", beta=None,
                         gate=(1.0, 1.0), eigenvalues={"1": ev, "1·1": ev}, spectrum="", commutators="", relations="",
                         name=name, windows=((1,), (1, 1)))]


def test_the_positive_power_sentence_only_where_it_holds():
    inside = _positive_power(1, "1", 2, _heads((0.5, 0.9)))
    assert len(inside) == 1 and "reads the one window `1·1`" in inside[0] and "cannot cycle" in inside[0]
    assert "in every head" in inside[0]
    # an entry 1: positive, but no contraction is claimed
    one = _positive_power(1, "1", 2, _heads((0.5, 1.0), "channels 0-7"))
    assert "cannot cycle" not in one[0] and "all positive" in one[0] and "in every channel" in one[0]
    # a negative or complex eigenvalue: not a positive recurrence, no sentence
    assert _positive_power(1, "1", 2, _heads((-0.5, 0.9))) == []
    assert _positive_power(1, "1", 2, _heads((0.5 + 0.1j, 0.5 - 0.1j))) == []
    assert _positive_power(2, "2", 2, _heads((0.5, 0.9))) == []  # no window of the symbol


def _one_line(capsys, argv, message, out):
    assert main(argv + ["--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1, err[:400]
    assert not out.exists()


def test_bad_mamba2_input(saved, tmp_path, capsys):
    from safetensors.torch import load_file, save_file

    folder, _ = saved("mamba2")
    capsys.readouterr()
    base = ["analyze", "--task", "parity", "--tokens", TOKENS, "--labels", LABELS, "--from", "fla"]
    out = tmp_path / "out"
    cfg = json.loads(Path(folder, "config.json").read_text())
    shutil.copytree(folder, tmp_path / "flag")
    (tmp_path / "flag" / "config.json").write_text(json.dumps({**cfg, "hidden_act": "gelu"}))
    _one_line(capsys, base + [str(tmp_path / "flag")],
              "config flag hidden_act = 'gelu' is not supported for mamba2 (supported: 'silu', 'swish')", out)
    for name, edit, message in (
            ("missing", lambda t: t.pop("backbone.layers.0.mixer.dt_bias"), "missing tensor 'backbone.layers.0.mixer.dt_bias'"),
            ("wrong", lambda t: t.update({"backbone.layers.0.mixer.conv1d.weight":
                                          t["backbone.layers.0.mixer.conv1d.weight"][:, :, :2].contiguous()}),
             "tensor 'backbone.layers.0.mixer.conv1d.weight' has shape (22, 1, 2), expected (22, 1, 3)")):
        shutil.copytree(folder, tmp_path / name)
        t = load_file(f"{tmp_path / name}/model.safetensors")
        edit(t)
        save_file(t, f"{tmp_path / name}/model.safetensors")
        _one_line(capsys, base + [str(tmp_path / name)], message, out)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["flag", "missing", "wrong"]
