"""bilinear sign: a hand-written file, validated and signed, loads without --unsigned."""

from __future__ import annotations

import json

import pytest

from bilinear.automata import read_automaton
from bilinear.cli import main
from bilinear.constructions.signing import sign_data, sign_file
from bilinear.constructions import Stack, load_network
from bilinear.constructions import Weights
from bilinear.errors import AutomatonError, WeightsError

HAND = {"format": "bilinear.weights", "version": 1, "variant": "diagonal", "exact": True,
        "A": [[["1"]], [["-1"]]], "h0": ["1/2"], "readout": [["1"], ["-1"]]}


def _unsigned(data: dict) -> dict:
    return {k: v for k, v in data.items() if k != "checksum"}


def test_sign_keeps_the_entries_as_written_and_adds_the_checksum(tmp_path) -> None:
    path = tmp_path / "w.json"
    path.write_text(json.dumps(HAND))
    with pytest.raises(WeightsError, match="no checksum"):
        load_network(path)
    done = sign_file(path)
    assert (done.kind, done.had_checksum) == ("weights", False)
    written = json.loads(path.read_text())
    assert _unsigned(written) == HAND  # "1/2" stays "1/2"
    assert load_network(path).h0.tolist() == Weights.from_json(HAND, allow_unsigned=True).h0.tolist()
    # an edit after signing breaks the checksum; signing again repairs it and says so
    written["h0"] = ["1"]
    path.write_text(json.dumps(written))
    with pytest.raises(WeightsError, match="checksum mismatch"):
        load_network(path)
    again = sign_file(path)
    assert again.had_checksum and not again.was_valid
    assert load_network(path).h0.tolist()[0] == 1


def test_sign_refuses_what_loading_refuses(tmp_path) -> None:
    with pytest.raises(WeightsError, match="off the diagonal"):
        sign_data({**HAND, "A": [[["1", "1"], ["0", "1"]], [["-1", "0"], ["0", "1"]]], "h0": ["1", "0"],
                   "readout": [["1", "0"], ["-1", "0"]]})
    with pytest.raises(WeightsError, match="format is 'nonsense'"):
        sign_data({**HAND, "format": "nonsense"})
    bad = {"format": "bilinear.automaton", "version": 1, "states": 2, "symbols": ["a"], "delta": [[0, 5]]}
    with pytest.raises(AutomatonError, match="out of range"):
        sign_data(bad)


def test_a_stack_is_signed_layer_by_layer(tmp_path) -> None:
    first = Weights("diagonal", A=[[[1]], [[-1]]], h0=[1], readout=[[1], [-1]])
    second = Weights("diagonal", A=[[[1]], [[1]], [[-1]], [[-1]]], h0=[1], readout=[[1], [-1]])
    data = Stack((first, second)).to_json()
    hand = {**_unsigned(data), "layers": [_unsigned(layer) for layer in data["layers"]]}
    path = tmp_path / "s.json"
    path.write_text(json.dumps(hand))
    with pytest.raises(WeightsError):
        load_network(path)
    assert sign_file(path).kind == "stack"
    assert load_network(path).depth == 2


def test_an_automaton_file_is_signed(tmp_path) -> None:
    path = tmp_path / "toggle.json"
    path.write_text(json.dumps({"format": "bilinear.automaton", "version": 1, "states": 2, "symbols": ["flip", "stay"],
                                "delta": [[1, 0], [0, 1]]}))
    assert sign_file(path, tmp_path / "out.json").kind == "automaton"
    assert "checksum" in json.loads((tmp_path / "out.json").read_text())
    assert read_automaton(tmp_path / "out.json").n_states == 2


def test_command_signs_then_verify_accepts_without_unsigned(tmp_path, capsys) -> None:
    hand = tmp_path / "hand.json"
    hand.write_text(json.dumps(HAND))
    assert main(["verify", "parity", "--weights", str(hand)]) == 2
    assert "no checksum" in capsys.readouterr().err
    assert main(["sign", str(hand), "--out", str(tmp_path / "signed.json")]) == 0
    assert "it had none" in capsys.readouterr().out
    assert main(["verify", "parity", "--weights", str(tmp_path / "signed.json")]) == 0
    assert "proved" in capsys.readouterr().out
    assert main(["sign", str(hand), "--out", str(tmp_path / "signed.json")]) == 2  # exists: --force
    assert main(["sign", str(hand), "--force"]) == 2


def test_verify_save_writes_proved_weights_and_only_those(tmp_path, capsys) -> None:
    hand = tmp_path / "hand.json"
    hand.write_text(json.dumps(HAND))
    out = tmp_path / "proved.json"
    assert main(["verify", "parity", "--weights", str(hand), "--unsigned", "--save", str(out)]) == 0
    assert f"written to {out}, signed" in capsys.readouterr().out
    assert load_network(out).variant == "diagonal"  # signed: loads without allow_unsigned
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps({**HAND, "A": [[["1"]], [["1"]]]}))
    nothing = tmp_path / "nothing.json"
    assert main(["verify", "parity", "--weights", str(wrong), "--unsigned", "--save", str(nothing)]) == 1
    assert "nothing written" in capsys.readouterr().out and not nothing.exists()
