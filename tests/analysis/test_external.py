"""``bilinear analyze --from``: fixture (c), a GatedDeltaProduct trained on parity on CPU, saved and
reloaded by fla; its per-head spectra, a verdict that agrees with its accuracy by length, and a
failing word that fails again through fla's naive reference."""

from __future__ import annotations

import json
import time

import numpy as np
import torch

from bilinear.automata import from_spec
from bilinear.cli import main
from external_fixtures import PARITY_LABELS, PARITY_TOKENS, fla_oracle, saved, trained_parity  # noqa: F401


def _fla_label(model, word, tokens=(0, 1), labels=(2, 3)):
    """The label fla's own naive recurrence (inside the live model's layer glue) gives the whole word."""
    ids = torch.as_tensor([[tokens[s] for s in word]])
    logits = fla_oracle(model, ids, "gated_deltaproduct")[0, -1]
    return int(np.argmax(logits[list(labels)]))


def test_analyze_from_fla_on_the_trained_fixture(trained_parity, capsys, tmp_path):
    folder, model = trained_parity
    started = time.perf_counter()
    out = tmp_path / "report"
    rc = main(["analyze", "--from", "fla", folder, "--task", "parity", "--tokens", PARITY_TOKENS,
               "--labels", PARITY_LABELS, "--json", "--out", str(out), "--words", "200", "--length", "40"])
    seconds = time.perf_counter() - started
    assert rc == 0
    rep = json.loads(capsys.readouterr().out)
    print(f"fixture (c): load and analyse {seconds:.1f} s; {rep['verdict']}; {rep['mechanism']}")
    assert (out / "report.md").is_file() and (out / "report.json").is_file()
    heads = rep["heads"]
    assert len(heads) == 2 and all(h["exact"] and h["variant"].startswith("householder:2") for h in heads)
    # per-head spectra: symbol 1's reflections carry a negative eigenvalue, symbol 0's none below -0.5
    ev1 = [z[0] for h in heads for z in h["eigenvalues"]["1"]]
    assert min(ev1) < -0.5
    curve = rep["tracker"]["accuracy_by_length"]
    failing = rep["failing_word"]
    if failing is None:  # then the verdict must say it tracks, and the curve must be perfect
        assert rep["verdict"].startswith("The model tracks parity") and min(curve["accuracy"]) == 1.0
        return
    assert rep["verdict"].startswith("The model does not track parity")
    word = [int(s) for s in failing["word"]]
    automaton = from_spec("parity")
    expected = automaton.classes.index(failing["expected"])
    assert automaton.labels_batch(np.array([word]))[0] == expected
    # the failing word fails again through fla's naive reference (float32 inside)
    assert _fla_label(model, word) != expected
    # and the verdict agrees with the measured accuracy by length: some length below 1
    assert min(curve["accuracy"]) < 1.0 or len(word) <= 64
    assert "1 - beta" in (rep["mechanism"] or "") or "not identified" in (rep["mechanism"] or "")
