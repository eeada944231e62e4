"""The automaton file format (docs/formats.md): write_automaton / read_automaton, and a file as SPEC."""

from __future__ import annotations

import json
import os

import pytest

from bilinear.automata import Automaton, from_spec, read_automaton, resolve, write_automaton
from bilinear.automata.families import is_automaton_file
from bilinear.automata.fileformat import encode
from bilinear.cli import main
from bilinear.errors import AutomatonError

HAND = {"format": "bilinear.automaton", "version": 1, "name": "toggle", "states": 2,
        "symbols": ["flip", "stay"], "delta": [[1, 0], [0, 1]], "classes": ["off", "on"]}


def write(path, data) -> str:
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return str(path)


def test_save_load_round_trip_keeps_everything(tmp_path):
    a = from_spec("dihedral:4")
    path = write_automaton(a, tmp_path / "sub" / "d4.json")
    b = read_automaton(path)
    assert b == a and b.name == "dihedral:4" and b.classes == a.classes and b.spec is None
    assert json.loads(path.read_text())["checksum"].startswith("sha256:")
    assert oct(path.stat().st_mode & 0o777) == oct(0o666 & ~_umask())


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def test_hand_written_file_without_checksum_loads(tmp_path):
    a = read_automaton(write(tmp_path / "toggle.json", HAND))
    assert a.run("flip flip flip") == 1 and a.classes == ("off", "on") and a.name == "toggle"
    assert a.start == 0 and a.labels.tolist() == [0, 1]


@pytest.mark.parametrize(
    "change, message",
    [
        ({"delta": [[1, 2], [0, 1]]}, "delta[0, 1] = 2 is out of range 0..1"),
        ({"delta": [[1, 0], [0]]}, "delta[1] must be a list of 2 states"),
        ({"states": 0}, "'states' must be an integer"),
        ({"start": 5}, "start state 5 is out of range"),
        ({"labels": [0, 3]}, "labels use class 3 but only 2 class names"),
        ({"symbols": ["flip", "flip"]}, "duplicate symbol name 'flip'"),
        ({"delta": [[1, 10**30], [0, 1]]}, "out of range"),
        ({"format": "bilinear.weights"}, "format is 'bilinear.weights'"),
        ({"version": 2}, "unsupported version 2"),
        ({"colour": "red"}, "unknown key 'colour'"),
    ],
)
def test_bad_content_is_a_typed_error_naming_the_item(tmp_path, change, message):
    path = write(tmp_path / "bad.json", {**HAND, **change})
    with pytest.raises(AutomatonError, match="bad.json") as info:
        read_automaton(path)
    assert message in str(info.value)


def test_checksum_catches_an_edit_and_duplicate_keys_are_refused(tmp_path):
    data = encode(from_spec("cyclic:3"))
    data["delta"][0][0] = 1
    with pytest.raises(AutomatonError, match="checksum mismatch"):
        read_automaton(write(tmp_path / "edited.json", data))
    text = json.dumps(HAND)[:-1] + ', "delta": [[0, 0], [0, 1]]}'
    with pytest.raises(AutomatonError, match="duplicate key 'delta'"):
        read_automaton(write(tmp_path / "dup.json", text))


@pytest.mark.parametrize("text, message", [
    ("[" * 5000 + "]" * 5000, "nested deeper"),
    ('{"states": ' + "9" * 5000 + "}", "5000 digits"),
    ('{"states": 1e999}', "overflows a float"),
    ('{"states": NaN}', "non-finite"),
    ("\xff\xfe", "not UTF-8"),
])
def test_malformed_json_is_one_typed_error(tmp_path, text, message):
    path = tmp_path / "m.json"
    path.write_bytes(text.encode("latin-1"))
    with pytest.raises(AutomatonError, match=message):
        read_automaton(path)


def test_non_regular_files_are_refused_before_reading(tmp_path):
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    for path in (fifo, "/dev/zero", tmp_path):
        with pytest.raises(AutomatonError, match="not a regular file"):
            read_automaton(path)
    with pytest.raises(AutomatonError, match="path must be"):
        read_automaton(None)


def test_resolver_tells_files_from_specs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "parity", HAND)  # a file named like a family: the family wins
    write(tmp_path / "mine", HAND)
    assert resolve("parity").classes == ("even", "odd")
    assert resolve("mine").classes == ("off", "on") and is_automaton_file("mine")
    assert is_automaton_file("a.JSON") and not is_automaton_file("cyclic:3*parity")
    assert from_spec(str(tmp_path / "mine")).name == "toggle"


def test_cli_describe_and_verify_take_a_file(tmp_path, capsys):
    path = write(tmp_path / "toggle.json", HAND)
    assert main(["describe", path, "--json"]) == 0
    facts = json.loads(capsys.readouterr().out)
    assert facts["states"] == 2 and facts["monoid_size"] == 2 and facts["symbol_names"] == ["flip", "stay"]
    assert main(["verify", path, "full", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "proved"
    assert main(["verify", path, "diagonal", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["dim"] == 1


def test_cli_corrupted_file_is_one_line_exit_2(tmp_path, capsys):
    path = tmp_path / "toggle.json"
    path.write_text(json.dumps(HAND)[:-5])
    for argv in (["describe", str(path)], ["verify", str(path), "full"]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "toggle.json: not valid JSON" in err


def test_out_of_range_integers_are_automaton_errors_not_overflow():
    with pytest.raises(AutomatonError, match=r"transition table\[0, 1\] = 1000000000000000000000000000000 is out of range"):
        Automaton([[0, 10**30]])
    import numpy as np

    with pytest.raises(AutomatonError, match=r"transition table\[0, 1\] = 9223372036854775808 is out of range"):
        Automaton(np.array([[0, 2**63]], dtype=np.uint64))
