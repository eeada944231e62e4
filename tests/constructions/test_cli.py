"""``bilinear verify``: the issue's examples, through main() and one real subprocess."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from bilinear.cli import main
from bilinear.constructions.registry import build
from bilinear.constructions.weights import Weights


def run_json(capsys, *argv):
    code = main(["verify", *argv, "--json"])
    out = json.loads(capsys.readouterr().out)
    return code, out


def test_dihedral_50_block2_proved_in_d2(capsys):
    code, out = run_json(capsys, "dihedral:50", "block:2")
    assert code == 0
    assert out["status"] == "proved" and out["dim"] == 2 and out["states_explored"] == 100
    assert out["margin"]["float"] > 0 and "Q(z_100)" in out["margin"]["exact"]


def test_cyclic_7_rotation2d_proved_with_cyclotomic_arithmetic(capsys):
    code, out = run_json(capsys, "cyclic:7", "rotation2d")
    assert code == 0 and out["status"] == "proved" and out["dim"] == 2
    assert "Q(z_28)" in out["margin"]["exact"]


def test_symmetric_5_full_proved_in_d_at_most_5(capsys):
    code, out = run_json(capsys, "symmetric:5", "full")
    assert code == 0 and out["status"] == "proved" and out["dim"] <= 5


@pytest.mark.parametrize("spec,variant,kind", [
    ("cyclic:3", "diagonal", "period"),
    ("dihedral:4", "rotation2d", "commutation"),
    ("parity", "positive", "constancy"),
])
def test_impossible_cells_print_a_certificate(capsys, spec, variant, kind):
    code, out = run_json(capsys, spec, variant)
    assert code == 0 and out["status"] == "impossible" and out["dim"] is None
    assert out["certificate"]["kind"] == kind
    assert out["certificate"]["words"] and out["certificate"]["theorem"]


def test_open_cell(capsys):
    code, out = run_json(capsys, "modarith:3", "block:2")
    assert code == 3 and out["status"] == "open" and "no construction" in out["detail"]


def test_text_output(capsys):
    assert main(["verify", "cyclic:7", "rotation2d"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("cyclic:7 rotation2d: proved, d=2 (minimal)")


def test_weights_file_with_wrong_angle_gives_a_counterexample(tmp_path, capsys):
    # cyclic:7 weights whose symbol a rotates by 2 pi a / 8 (the angle of cyclic:8)
    seven = build("cyclic:7", "rotation2d")
    eight = build("cyclic:8", "rotation2d")
    bad = Weights("rotation2d", eight.A[:7], seven.h0, seven.readout)
    path = bad.save(tmp_path / "bad.json")
    code, out = run_json(capsys, "cyclic:7", "rotation2d", "--weights", str(path))
    assert code == 1 and out["status"] == "counterexample"
    assert out["word"] and out["expected"] != out["got"]


def test_save_and_float(tmp_path, capsys):
    path = tmp_path / "d5.json"
    code, out = run_json(capsys, "dihedral:5", "block:2", "--save", str(path), "--float", "--length", "100", "--words", "20")
    assert code == 0 and out["float_check"]["accuracy"] == 1.0
    assert Weights.load(path) == build("dihedral:5", "block:2")


@pytest.mark.parametrize("argv,message", [
    (["verify", "cyclic:3", "spiral"], "unknown variant 'spiral'"),
    (["verify", "cyclic:0", "full"], "cyclic"),
    (["verify", "cyclic:3", "full", "--bound", "0"], "--bound"),
])
def test_bad_input_is_one_line_and_status_2(capsys, argv, message):
    with pytest.raises(SystemExit) if "--bound" in argv else _nullcontext():
        code = main(argv)
        assert code == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_tampered_weights_file(tmp_path, capsys):
    path = build("parity", "diagonal").save(tmp_path / "p.json")
    path.write_text(path.read_text().replace('"h0": [\n  1\n ]', '"h0": [\n  2\n ]'))
    assert main(["verify", "parity", "diagonal", "--weights", str(path)]) == 2
    assert "checksum mismatch" in capsys.readouterr().err


@pytest.mark.slow
def test_subprocess():
    proc = subprocess.run(
        [sys.executable, "-m", "bilinear.cli", "verify", "dihedral:50", "block:2", "--json"],
        capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["status"] == "proved" and out["dim"] == 2


class _nullcontext:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
