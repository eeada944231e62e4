"""``bilinear verify``: the issue's examples, through main() and one real subprocess."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from bilinear.cli import main
from bilinear.constructions import build
from bilinear.constructions import Weights


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


def _broken_d3_file(path) -> None:
    """The exact D_3 ``full`` construction with one entry of A_r changed to -3/5, unsigned: a
    network right on every word shorter than 12 symbols and wrong on r^12."""
    from bilinear.automata import from_spec
    from bilinear.constructions import build

    data = build(from_spec("dihedral:3"), "full").to_json()
    del data["checksum"]
    data["A"][0][1][1] = "-3/5"
    path.write_text(json.dumps(data))


def test_verify_deepens_its_bound_within_the_time_budget(tmp_path, capsys):
    """Without --bound, the proof doubles the bound within its time budget (default 10 s): the
    broken D_3 file's counterexample r^12 lies past the default bound of 64 x states.  verify
    finds it first among the directed words run in exact arithmetic (issue 45: a counterexample,
    not claimed shortest); the deepened proof reaches the same word as a shortest one."""
    from bilinear.automata.families import from_spec
    from bilinear.constructions.settle import _deepened_prove
    from bilinear.constructions.values.weights import Weights

    f = tmp_path / "d3.json"
    _broken_d3_file(f)
    assert main(["verify", "dihedral:3", "--weights", str(f), "--unsigned", "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "counterexample" and out["word_indices"] == [0] * 12 and out["shortest"] is False
    assert out["time_budget"] == 10
    result, bound = _deepened_prove(Weights.load(f, allow_unsigned=True), from_spec("dihedral:3"), 64, 10.0, None)
    assert result.status == "counterexample" and list(result.word) == [0] * 12 and bound > 64
    # a fixed --bound 64 does not deepen; the directed words still refute
    assert main(["verify", "dihedral:3", "--weights", str(f), "--unsigned", "--bound", "64"]) == 1
    text = capsys.readouterr().out
    assert "counterexample" in text and "a shorter counterexample may exist" in text
    # a tiny budget: the text says nothing was decided in that budget, or refutes
    assert main(["verify", "dihedral:3", "--weights", str(f), "--unsigned", "--json", "--bound", "64",
                 "--time-budget", "0.001"]) in (1, 3)
    out = json.loads(capsys.readouterr().out)
    assert out["time_budget"] == 0.001 and not out["deepened"]


def test_verify_keeps_why_each_construction_refused(capsys):
    code, out = run_json(capsys, "cyclic:3", "rotation2d")
    assert code == 0 and out["built"] == "rotation2d"
    reasons = {r["construction"]: r["reason"] for r in out["refusals"]}
    assert "real diagonal only represents Z_1 and Z_2, not Z_3" in reasons["sign"]
    assert reasons["signed-cycles"] == "its d = 3 cannot beat the d = 2 found"  # known before building (issue 48)
    assert reasons["one-hot"] == "its d = 3 cannot beat the d = 2 found"
    assert "rotation" not in reasons  # the chosen one is not a refusal
    assert main(["verify", "cyclic:3", "rotation2d", "--explain"]) == 0
    text = capsys.readouterr().out
    assert "constructions not used:" in text and "    one-hot: its d = 3 cannot beat the d = 2 found" in text
    assert main(["verify", "cyclic:3", "rotation2d"]) == 0
    assert "constructions not used" not in capsys.readouterr().out
    # a cell left without construction keeps its reasons too
    code, out = run_json(capsys, "quaternion", "block:2")
    assert out["status"] == "open" and out["refusals"] and all(set(r) == {"construction", "reason"} for r in out["refusals"])


def test_verify_float_and_save_reuse_the_proved_weights(capsys, tmp_path, monkeypatch):
    import bilinear.constructions.handmade.registry as registry

    calls = []
    real = registry.build

    def counting(*args, **kwargs):
        calls.append(args[1] if len(args) > 1 else kwargs.get("variant"))
        return real(*args, **kwargs)

    monkeypatch.setattr(registry, "build", counting)
    path = tmp_path / "d3.json"
    assert main(["verify", "dihedral:3", "block:2", "--float", "--words", "20", "--length", "50",
                 "--save", str(path)]) == 0
    assert calls == ["block:2"]  # built once, for the proof; --float and --save use those weights
    assert Weights.load(path) == real("dihedral:3", "block:2")


def test_verify_parses_its_variant_once(capsys):
    from bilinear.constructions.values.variants import _parse_text

    _parse_text.cache_clear()
    assert main(["verify", "dihedral:5", "block:2"]) == 0
    info = _parse_text.cache_info()
    assert info.misses == 1 and info.hits >= 1  # asked several times, parsed once
