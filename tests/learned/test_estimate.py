"""reproduce --full is the paper's Table 1 and the rebuttal's parts; the estimate and the --yes guard."""

import json

import pytest

from bilinear.cli import main
from bilinear.learned.config import PRESETS
from bilinear.learned.estimate import CONFIRM_SECONDS, estimate, plan, step_seconds
from bilinear.learned.reproduce import FULL_PART_NAMES, PAPER_TRAIN, parts
from bilinear.learned.sweep import Sweep


def test_full_is_table_1_with_the_papers_models_and_the_rebuttal_parts():
    full = {p.name: p.sweep for p in parts("full")}
    assert tuple(full) == FULL_PART_NAMES
    t1 = full["table-1"]
    for family in ("parity", "cyclic:3", "cyclic:5", "cyclic:10", "cyclic:25", "cyclic:50", "dihedral:3", "dihedral:4"):
        assert family in t1.families
    for model in ("full", "factorized:1", "factorized:16", "block:2", "rotation2d", "diagonal", "positive", "lstm",
                  "rnn", "transformer:1", "transformer:4", "mamba:1", "mamba:4"):
        assert model in t1.models
    for p in ("table-1", "hierarchy", "dihedral", "data-efficiency", "additive-off", "additive-on"):
        c = full[p].configs()[0]
        assert (c.hidden, c.embed, c.angles, c.steps) == (256, 256, True, 20000)
        assert full[p].lrs == (1e-3, 1e-4, 1e-5) and full[p].seeds == (0, 1, 2)
    assert all(c.additive for c in full["additive-on"].configs())
    assert {c.match_params for c in full["parameter-matched"].configs()} == {5000}
    assert max(int(f.split(":")[1]) for f in full["dihedral"].families) == 30
    assert PAPER_TRAIN["hidden"] == PRESETS["paper"]["hidden"]


def test_experiment_files_that_claim_the_protocol_run_the_papers_models():
    for name in ("modular-addition", "hierarchy"):
        c = Sweep.load(f"experiments/{name}.toml").configs()[0]
        assert (c.hidden, c.embed, c.angles) == (256, 256, True)


def test_estimate_multiplies_runs_steps_and_the_measured_rate():
    s = Sweep(families=["parity", "cyclic:3"], models=["diagonal", "full"], seeds=[0, 1], train={"steps": 7, "hidden": 2})
    seen = []

    def rate(c):
        seen.append((c.spec, c.model))
        return 0.25 if c.model == "full" else 0.5

    e = estimate(s.configs(), workers=4, measure=rate)
    assert sorted(seen) == [("cyclic:3", "diagonal"), ("cyclic:3", "full")]  # once per model, costliest family
    assert e.runs == 8 and e.steps == 56 and e.core_seconds == pytest.approx(2 * 2 * 7 * (0.25 + 0.5))
    assert e.wall_seconds == pytest.approx(e.core_seconds / 4)
    cells = plan([type("P", (), {"name": "p", "title": "t", "sweep": s})], measure=rate)[0]["cells"]
    assert {(c["row"], c["model"]): c["core_seconds"] for c in cells}[("parity", "full")] == pytest.approx(2 * 7 * 0.25)


def test_step_seconds_is_a_measurement():
    from bilinear.learned.config import TrainConfig

    t = step_seconds(TrainConfig(spec="parity", model="diagonal", hidden=2, steps=10))
    assert 0 < t < 5


def test_a_long_sweep_needs_yes_and_writes_nothing(tmp_path, capsys):
    f = tmp_path / "long.toml"
    f.write_text('families = ["parity"]\nmodels = ["diagonal"]\n[train]\nhidden = 2\nsteps = 100000000\n')
    out = tmp_path / "out"
    assert main(["sweep", str(f), "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "add --yes" in err and "1 runs, 100,000,000 training steps" in err and "seconds per step" in err
    assert not out.exists()
    assert CONFIRM_SECONDS == 3600


def test_sweep_dry_run_lists_cells_as_json(tmp_path, capsys):
    f = tmp_path / "s.toml"
    f.write_text('families = ["parity", "cyclic:3"]\nmodels = ["diagonal"]\nseeds = [0, 1]\n[train]\nhidden = 2\nsteps = 10\n')
    assert main(["sweep", str(f), "--dry-run", "--json"]) == 0
    planned = json.loads(capsys.readouterr().out)
    assert [(c["row"], c["runs"], c["steps"]) for c in planned[0]["cells"]] == [("parity", 2, 20), ("cyclic:3", 2, 20)]


def test_reproduce_asks_before_a_long_run(tmp_path, capsys, monkeypatch):
    """The guard of ``reproduce`` (every size): past the limit it stops before anything is written;
    the quick table is under an hour, so the limit is lowered here to reach it."""
    import bilinear.learned.estimate as est

    monkeypatch.setattr(est, "CONFIRM_SECONDS", 1e-9)
    out = tmp_path / "r"
    assert main(["reproduce", "--quick", "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "reproduce --quick is estimated at 50 runs" in err and "add --yes" in err
    assert not out.exists()
