import json
import subprocess
import sys

import pytest

from bilinear.cli import main

FAST = ["--words", "100", "--length", "20"]


def test_construction_text_report(capsys):
    assert main(["analyze", "--construction", "cyclic:5", "rotation2d", *FAST]) == 0
    out = capsys.readouterr().out
    assert "A_1 acts as a rotation of order 5 on a 2-dimensional subspace" in out
    assert "all transition matrices commute (exactly)" in out
    assert "isomorphic to the true automaton" in out


def test_construction_json_and_out(tmp_path, capsys):
    out_dir = tmp_path / "rep"
    assert main(["analyze", "--construction", "dihedral:4", "block:2", "--json", "--out", str(out_dir), *FAST]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["commutators"]["verdict"] == "do not commute"
    assert data["extraction"]["isomorphic"] is True
    assert {p.name for p in out_dir.iterdir()} == {"report.json", "report.md", "eigenvalues.png", "commutators.png",
                                                 "accuracy.png", "automaton.png", "automaton.dot", "automaton.graphml"}


@pytest.mark.parametrize(
    "argv, message",
    [
        (["analyze"], "exactly one"),
        (["analyze", "--weights", "w.json", "cyclic:3", "--construction", "cyclic:3", "full"], "exactly one"),
        (["analyze", "RUN", "--construction", "cyclic:3", "full"], "exactly one"),
        (["analyze", "--construction", "cyclic:3", "nonsense"], "nonsense"),
        (["analyze", "--construction", "nofamily:3", "full"], "nofamily"),
    ],
)
def test_bad_input_is_one_line_exit_2(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_missing_and_unfinished_run_dirs(tmp_path, capsys):
    assert main(["analyze", str(tmp_path / "missing")]) == 2
    assert "does not exist" in capsys.readouterr().err
    run = tmp_path / "run"
    run.mkdir()
    (run / "config.json").write_text("{}")
    assert main(["analyze", str(run), "--out", str(tmp_path / "o")]) == 2
    assert "not finished" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()  # nothing written half-way


@pytest.mark.parametrize("flag", ["--tol", "--cluster-tol"])
def test_non_positive_tolerance_refused(flag, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["analyze", "--construction", "cyclic:3", "full", flag, "0"])
    assert exc.value.code == 2
    assert "positive" in capsys.readouterr().err


def test_subprocess():
    proc = subprocess.run(
        [sys.executable, "-m", "bilinear.cli", "analyze", "--construction", "parity", "diagonal", "--json", *FAST],
        capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["spectrum"]["symbols"][1]["reading"] == "acts as a reflection"
    assert data["extraction"]["isomorphic"] is True


def test_weights_file(tmp_path, capsys):
    from bilinear.analysis.examples import dihedral_block2

    path = dihedral_block2(3).save(tmp_path / "d3.json")
    assert main(["analyze", "--weights", str(path), "dihedral:3", "--json", *FAST]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["weights"]["exact"] is True and data["source"]["weights"] == str(path)
    assert data["relations"]["all_hold"] is True
    # the same file against an automaton with another symbol count: one clear line, exit 2
    assert main(["analyze", "--weights", str(path), "cyclic:3", *FAST]) == 2
    assert "weights have 2 symbols but automaton cyclic:3 has 3" in capsys.readouterr().err
    assert main(["analyze", "--weights", str(tmp_path / "missing.json"), "cyclic:3"]) == 2
    assert "missing.json" in capsys.readouterr().err


def test_lstar_without_the_aalpy_extra_is_one_line_before_any_work(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "aalpy.learning_algs", None)
    out = tmp_path / "report"
    assert main(["analyze", "--construction", "cyclic:5", "rotation2d", "--lstar", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "bilinear[aalpy]" in err and "Traceback" not in err
    assert not out.exists()


def test_lstar_config_needs_the_extraction():
    from bilinear.analysis.lstar import LStarConfig
    from bilinear.analysis import AnalysisConfig
    from bilinear.errors import AnalysisError

    with pytest.raises(AnalysisError, match="needs run_extraction"):
        AnalysisConfig(lstar=LStarConfig(), run_extraction=False).validated()
    with pytest.raises(AnalysisError, match="LStarConfig or None"):
        AnalysisConfig(lstar="yes").validated()  # type: ignore[arg-type]
    with pytest.raises(AnalysisError, match="walk_len"):
        AnalysisConfig(lstar=LStarConfig(walk_len=0)).validated()
