"""A stack of layers of different variants (a diagonal layer under a rotation2d layer, the natural
hand cascade) is proved as given by ``verify`` (issue 45, item 6); it used to be refused."""

from __future__ import annotations

import json

from bilinear.cli import main
from bilinear.constructions.values.stack import Stack
from bilinear.constructions.values.weights import Weights

PARITY = Weights("diagonal", A=[[[1]], [[-1]]], h0=[1], readout=[[1], [-1]])


def _copy(sign: int) -> Weights:
    """Layer 2 reads (symbol, class of layer 1) and flips its sign on symbol 1 (times ``sign``)."""
    flip = [[-sign, 0], [0, -sign]]
    return Weights("rotation2d", A=[[[1, 0], [0, 1]]] * 2 + [flip] * 2, h0=[1, 0], readout=[[1, 0], [-1, 0]])


def test_verify_proves_a_mixed_stack(tmp_path, capsys) -> None:
    path = tmp_path / "mixed.json"
    Stack((PARITY, _copy(1))).save(path)
    assert main(["verify", "parity", "--weights", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "proved" and out["variant"] == "diagonal+rotation2d" and out["dims"] == [1, 2]


def test_verify_refutes_a_wrong_mixed_stack(tmp_path, capsys) -> None:
    path = tmp_path / "wrong.json"
    Stack((PARITY, _copy(-1))).save(path)  # symbol 1 keeps the sign: wrong on the word 1
    assert main(["verify", "parity", "--weights", str(path), "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "counterexample" and out["word_indices"] == [1]
