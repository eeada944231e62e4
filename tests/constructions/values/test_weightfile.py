"""Weights files as a hostile user writes them, and the formats document (docs/formats.md)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from bilinear.automata import from_spec, read_automaton
from bilinear.cli import main
from bilinear.constructions import build, prove
from bilinear.constructions import Weights
from bilinear.errors import WeightsError

DOC = Path(__file__).resolve().parents[3] / "docs" / "formats.md"


def doc_examples() -> list[str]:
    return re.findall(r"```json\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)


def signed(tmp_path) -> tuple[Path, str]:
    path = tmp_path / "w.json"
    build("parity", "diagonal").save(path)
    return path, path.read_text()


def test_checksum_is_required_unless_allowed(tmp_path):
    path, text = signed(tmp_path)
    data = json.loads(text)
    data.pop("checksum")
    path.write_text(json.dumps(data))
    with pytest.raises(WeightsError, match="no checksum"):
        Weights.load(path)
    assert Weights.load(path, allow_unsigned=True) == build("parity", "diagonal")
    with pytest.raises(WeightsError, match="no checksum"):
        Weights.from_json(data)


def test_duplicate_key_cannot_hide_a_tampered_copy(tmp_path):
    path, text = signed(tmp_path)
    tampered = text.replace("{", '{"A": [[[5]], [[5]]],', 1)
    path.write_text(tampered)
    with pytest.raises(WeightsError, match="duplicate key 'A'"):
        Weights.load(path)


@pytest.mark.parametrize("old, new, message", [
    ('"h0": [\n  1\n ]', '"h0": [1e999]', "overflows a float"),
    ('"h0": [\n  1\n ]', '"h0": [' + "9" * 5000 + "]", "5000 digits"),
    ('"h0": [\n  1\n ]', '"h0": ["1/' + "7" * 5000 + '"]', "5000 digits"),
    ('"h0": [\n  1\n ]', '"h0": [' + "[" * 5000 + "]" * 5000 + "]", "nested deeper"),
    ('"h0": [\n  1\n ]', '"h0": [' + "1" + "0" * 400 + "]", "401 digits"),
    ('"h0": [\n  1\n ]', '"h0": ["1/' + "3" * 101 + '"]', "101 digits"),
])
def test_malformed_entries_are_one_weights_error(tmp_path, old, new, message):
    path, text = signed(tmp_path)
    text = re.sub(r',\s*"checksum": "[^"]*"', "", text)  # unsigned: the entry itself is judged
    assert old in text
    path.write_text(text.replace(old, new))
    with pytest.raises(WeightsError, match=message):
        Weights.load(path, allow_unsigned=True)
    assert main(["verify", "parity", "--weights", str(path), "--unsigned"]) == 2


def test_float_magnitude_limit_and_in_memory_infinity(tmp_path):
    data = build("parity", "diagonal").to_float().to_json()
    data.pop("checksum")
    data["h0"] = [1e308]
    with pytest.raises(WeightsError, match="magnitude limit"):
        Weights.from_json(data, allow_unsigned=True)
    data["h0"] = [float("inf")]
    with pytest.raises(WeightsError, match="magnitude limit"):
        Weights.from_json(data, allow_unsigned=True)
    data["checksum"] = "sha256:0"
    with pytest.raises(WeightsError, match="cannot be checksummed"):
        Weights.from_json(data)


def test_non_regular_and_bad_paths_are_refused_before_reading(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path in ("/dev/zero", "/dev/urandom", fifo, tmp_path):
        with pytest.raises(WeightsError, match="not a regular file"):
            Weights.load(path)
    with pytest.raises(WeightsError, match="path must be"):
        Weights.load(None)


def test_the_documented_examples_load_and_prove(tmp_path):
    automaton_text, weights_text = doc_examples()
    automaton = read_automaton(_write(tmp_path / "toggle.json", automaton_text))
    assert automaton.classes == ("off", "on") and automaton.run("flip stay flip flip") == 1
    weights = Weights.load(_write(tmp_path / "w.json", weights_text), allow_unsigned=True)
    assert weights.variant == "diagonal" and abs(float(weights.h0[0]) - 0.6180339887) < 1e-9
    assert prove(weights, automaton).status == "proved"


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_verify_takes_the_variant_from_the_weights_file(tmp_path, capsys):
    automaton_text, weights_text = doc_examples()
    spec = _write(tmp_path / "toggle.json", automaton_text)
    wfile = _write(tmp_path / "w.json", weights_text)
    assert main(["verify", str(spec), "--weights", str(wfile), "--unsigned", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "proved" and out["variant"] == "diagonal"
    assert main(["verify", str(spec), "diagonal", "--weights", str(wfile), "--unsigned"]) == 0
    capsys.readouterr()
    for argv, message in [
        (["verify", str(spec), "full", "--weights", str(wfile), "--unsigned"], "has variant 'diagonal', not 'full'"),
        (["verify", str(spec), "--weights", str(wfile)], "no checksum"),
        (["verify", str(spec)], "needs a VARIANT"),
        (["verify", "parity", "--weights", "/dev/zero"], "not a regular file"),
        (["verify", "cyclic:" + "9" * 5000, "full"], "5000 digits"),
    ]:
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1, err[:300]


def test_analyze_and_certify_accept_unsigned_files(tmp_path, capsys):
    automaton_text, weights_text = doc_examples()
    spec = _write(tmp_path / "toggle.json", automaton_text)
    wfile = _write(tmp_path / "w.json", weights_text)
    assert main(["analyze", "--weights", str(wfile), str(spec), "--unsigned", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)
    assert main(["analyze", "--weights", str(wfile), str(spec)]) == 2
    assert "no checksum" in capsys.readouterr().err
    assert from_spec(str(spec)).name == "toggle"
