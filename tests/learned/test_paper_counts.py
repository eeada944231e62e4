"""Parameter counts at hidden 256 against the paper's list (docs/training.md, "The paper's models"),
computed by ``bilinear train ... --dry-run --json`` (the model built on the meta device)."""

from __future__ import annotations

import json

import pytest

from bilinear.cli import main

#: (model, embed 256?, the paper's count); every row within 15% of the paper.
PAPER = [
    ("full", True, 16_700_000),
    ("block:1", True, 69_000), ("block:2", True, 135_000), ("block:8", True, 528_000),
    ("block:64", True, 4_200_000),
    ("factorized:2048", True, 1_500_000),
    ("rotation2d", True, 38_000),
    ("lstm", False, 531_000), ("rnn", False, 135_000),
    ("transformer:1", False, 1_000_000), ("transformer:2", False, 1_800_000), ("transformer:4", False, 3_400_000),
    ("mamba:1", False, 473_000), ("mamba:2", False, 943_000), ("mamba:4", False, 1_800_000),
]


def _dry(capsys, *argv) -> dict:
    assert main(["train", "cyclic:10", *argv, "--dry-run", "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("model, embed, paper", PAPER)
def test_counts_at_hidden_256_are_within_15_percent_of_the_paper(capsys, model, embed, paper):
    argv = [model, "--hidden", "256"] + (["--embed", "256", "--angles"] if embed else [])
    d = _dry(capsys, *argv)
    assert d["dry_run"] is True and d["hidden"] == 256
    assert abs(d["params"] - paper) <= 0.15 * paper, (model, d["params"], paper)


def test_the_paper_preset_and_the_exact_counts(capsys):
    """The preset is hidden 256, embedding 256 and the angle form; the counts by hand."""
    full = _dry(capsys, "full", "--preset", "paper")
    assert (full["hidden"], full["embed"]) == (256, 256)
    h, e, symbols, classes = 256, 256, 10, 10
    fixed = e * symbols + h + classes * h  # embedding, h0, readout (bias-free)
    assert full["params"] == e * h * h + fixed == 16_782_592
    assert _dry(capsys, "block:2", "--preset", "paper")["params"] == e * (h // 2) * 4 + fixed
    assert _dry(capsys, "rotation2d", "--preset", "paper")["params"] == e * (h // 2) + fixed == 38_144
    assert _dry(capsys, "rotation2d", "--hidden", "256", "--embed", "256")["params"] == 2 * e * (h // 2) + fixed
    # factorized:1 is the row outside 15%: U, C, W are 3 x 256; the rest is the embedding and readout
    f1 = _dry(capsys, "factorized:1", "--preset", "paper")["params"]
    assert f1 == 3 * 256 + fixed == 6_144
    # a preset keeps what the command line gives
    assert _dry(capsys, "full", "--preset", "paper", "--hidden", "8")["hidden"] == 8
    # Mamba-1 by hand: 6 h^2 in the projections, the convolution, x_proj, dt_proj, A, D, the norms
    inner, rank, state = 2 * h, 16, 16
    block = h * 2 * inner + 5 * inner + inner * (rank + 2 * state) + rank * inner + inner + inner * state + inner \
        + inner * h + h
    assert _dry(capsys, "mamba:1", "--hidden", "256")["params"] == symbols * h + block + h + (h * classes + classes)


def test_dry_run_prints_the_memory_estimate_and_trains_nothing(capsys, tmp_path):
    d = _dry(capsys, "mamba:2", "--hidden", "64")
    parts = d["memory_bytes"]
    assert set(parts) == {"parameters with gradients and Adam state", "activations", "sampled words"}
    assert parts["parameters with gradients and Adam state"] == 16 * d["params"]
    assert abs(d["memory_gb"] - sum(parts.values()) / 1e9) < 1e-6
    assert main(["train", "cyclic:10", "full", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "params; estimated memory" in out and "nothing trained" in out
    assert main(["train", "cyclic:10", "full", "--dry-run", "--out", str(tmp_path / "r")]) == 2
    assert "--dry-run trains and writes nothing" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()
