"""``bilinear verify --weights AFFINE.json``: an affine file is proved as its lift (Theorems A1, A4)."""

from __future__ import annotations

import json

import pytest

from bilinear.cli import main
from bilinear.constructions.values.affine import AffineWeights


def _flip(per_symbol: bool, keep: int = 1) -> AffineWeights:
    readout = [[-1, 0], [1, 0]]
    return AffineWeights("diagonal", A=[[[0]], [[0]], [[keep]]], b=[[-1], [1], [0]],
                         readout=[readout] * 3 if per_symbol else readout, h0=[-1])


@pytest.mark.parametrize("per_symbol", [False, True])
def test_affine_flipflop_file_is_proved(tmp_path, capsys, per_symbol) -> None:
    path = _flip(per_symbol).save(tmp_path / "flip.json")
    assert main(["verify", "flipflop:2", "--weights", str(path)]) == 0
    text = capsys.readouterr().out
    assert ": proved for every" in text and "hidden 2, dplr:1" in text
    assert ("non-empty word" in text) == per_symbol
    assert main(["verify", "flipflop:2", "--weights", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "proved" and out["lifted_variant"] == "dplr:1" and out["margin"]["float"] == 2.0


def test_affine_counterexample_and_bad_input(tmp_path, capsys) -> None:
    bad = _flip(False, keep=-1).save(tmp_path / "bad.json")  # r flips the sign: wrong after "r"
    assert main(["verify", "flipflop:2", "--weights", str(bad)]) == 1
    assert "counterexample: the word r gets 1, the automaton says 0" in capsys.readouterr().out
    for argv, message in (
        (["flipflop:2", "--weights", str(bad), "--float"], "--float does not apply to an affine weights file"),
        (["flipflop:2", "positive", "--weights", str(bad)], "has variant 'diagonal', not 'positive'"),
        (["parity", "--weights", str(bad)], "3 symbols and 2 classes but automaton parity has 2 symbols"),
    ):
        assert main(["verify", *argv]) == 2
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1
