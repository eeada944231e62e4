"""``bilinear analyze --from fla`` and ``assert_tracks`` on an RWKV-7 checkpoint (random initialisation,
fla's save_pretrained): per-head ``dplr:1`` transitions per window, a verdict that agrees with the
measured behaviour, a failing word that fails again through fla's own CPU pieces; ``verify --from``
on the same config agrees with what the reader identifies (real eigenvalues, Theorem F15)."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest
import torch

from bilinear.analysis.external import HeadAnalysis, _mechanism
from bilinear.automata import from_spec
from bilinear.cli import main
from bilinear.constructions.fromconfig import verify_config
from bilinear.constructions.horizon.testing import assert_tracks
from bilinear.learned import load_external
from external_fixtures import oracle

PARITY = from_spec("parity")
TOKENS, LABELS = "0=1,1=3", "even=0,odd=2"


def test_analyze_from_fla_on_an_rwkv7_checkpoint(saved, capsys, tmp_path):
    folder, live = saved("rwkv7")
    capsys.readouterr()
    out = tmp_path / "report"
    started = time.perf_counter()
    rc = main(["analyze", "--from", "fla", folder, "--task", "parity", "--tokens", TOKENS, "--labels", LABELS,
               "--json", "--out", str(out), "--no-figures", "--words", "12", "--length", "8", "--curve-length", "40"])
    seconds = time.perf_counter() - started
    assert rc == 0
    rep = json.loads(capsys.readouterr().out)
    print(f"rwkv7 fixture: load and analyse {seconds:.1f} s; {rep['verdict']}")
    heads = rep["heads"]
    assert len(heads) == 4 and all(h["exact"] and h["variant"].startswith("dplr:1 (rank(A - diag(w)) <= 1") for h in heads)
    assert heads[0]["keys"] == ["0", "1", "0·0", "0·1", "1·0", "1·1"] and heads[0]["betas"]["1·1"] == []
    assert heads[0]["windows"] == [[0], [1], [0, 0], [0, 1], [1, 0], [1, 1]]
    assert sorted(p.name for p in out.iterdir()) == ["report.json", "report.md"]  # figures: the trained fixture's test
    ev = [z for h in heads for k in h["eigenvalues"] for z in h["eigenvalues"][k]]
    assert max(abs(z[1]) for z in ev) < 1e-9 and min(z[0] for z in ev) > np.exp(-np.exp(-0.5)) - 1  # Theorem F15
    failing = rep["failing_word"]
    assert failing is not None and rep["verdict"].startswith("The model does not track parity")
    word = [int(s) for s in failing["word"]]
    expected = PARITY.classes.index(failing["expected"])
    assert PARITY.labels_batch(np.array([word]))[0] == expected
    logits = oracle(live, torch.as_tensor([[(1, 3)[s] for s in word]]), "rwkv7")
    assert int(np.argmax(logits[0, -1][[0, 2]])) != expected  # fails again through fla's own pieces
    assert "(diag(w) - (a * kappa) kappa^T)" in rep["mechanism"] and "reflection" not in rep["mechanism"]
    md = (out / "report.md").read_text()
    assert "eigenvalues of the transition (decay included)" in md and "eigenvalues of the reflections" not in md


def test_assert_tracks_takes_an_rwkv7_model(saved):
    folder, _ = saved("rwkv7")
    with pytest.raises(AssertionError, match="does not track parity"):
        assert_tracks(load_external(folder).as_tracker(TOKENS, LABELS), PARITY, length=20, words=5)


def test_verify_from_agrees_with_the_reader(saved):
    """cyclic:3 has a symbol of period 3: impossible for an RWKV-7 layer (the certificate checks on the
    automaton); parity is left open, although the unconstrained dplr:1 cell is proved."""
    folder, _ = saved("rwkv7")
    out = verify_config(f"{folder}/config.json", "fla", "cyclic:3")
    assert out["variant"] == "dplr:1" and out["rwkv7"]["status"] == "impossible"
    cert = out["rwkv7"]["certificate"]
    assert cert["kind"] == "symbol-period" and cert["words"] == {"u": "ε", "g": "1", "v": "ε"}
    assert "Theorem F15" in cert["theorem"] and "reflection" not in cert["theorem"]
    par = verify_config(f"{folder}/config.json", "fla", "parity")
    assert par["cell"]["status"] == "proved" and par["rwkv7"] == {"status": "open", "certificate": None}
    assert any("does not carry over" in line for line in par["scope"])
    assert any(line.startswith("window: the token shift") for line in par["scope"])


def _head(ev):
    return HeadAnalysis(0, 0, ("0", "1", "0·0", "0·1", "1·0", "1·1"), True, "dplr:1 (test)", (0.0, 0.0), (0.6, 0.99),
                        {"1·1": tuple(complex(z) for z in ev), "1": (complex(-0.3), complex(0.5))}, "", "", "",
                        rwkv7=True, windows=((0,), (1,), (0, 0), (0, 1), (1, 0), (1, 1)))


def test_the_dplr_mechanism_line_only_where_it_holds():
    """The period-2 line names the window g g's eigenvalue nearest -1; with -1 there (a head no fla
    RWKV-7 has, by Theorem F15) it is not said."""
    failing = ((1, 1), 0, 1)
    said = _mechanism([_head([-0.4, 0.9])], PARITY, failing, ["0", "1"])
    assert "transition for the window `1·1`" in said and "the one nearest -1 is -0.4, not -1" in said
    assert "decays as 0.4^n" in said
    assert _mechanism([_head([-1.0, 0.9])], PARITY, failing, ["0", "1"]).startswith("mechanism: not identified")
    z3 = from_spec("cyclic:3")
    three = _mechanism([_head([-0.4, 0.9])], z3, ((1, 1, 1), 0, 2), list(z3.symbols))
    assert "transition for the window `1·1` (diag(w) - (a * kappa) kappa^T) has only real eigenvalues" in three
    assert "Theorem F15" in three and "reflection" not in three
    rotation = _mechanism([_head([complex(-0.5, 0.866), complex(-0.5, -0.866)])], z3, ((1, 1, 1), 0, 2),
                          list(z3.symbols))
    assert "only real eigenvalues" not in rotation  # a head with complex eigenvalues: not said
