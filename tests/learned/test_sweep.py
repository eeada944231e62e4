"""Sweeps: grid, results tables, unknown keys, local workers, Ray (when installed)."""

from __future__ import annotations

import csv
import json
import importlib.util

import pytest

import os

from bilinear.errors import ConfigError, FolderLockedError, OutputExistsError
from bilinear.fileio import FolderLock
from bilinear.learned.runs import RunDir
from bilinear.learned.reproduce import FULL, QUICK
from bilinear.learned.sweep import COLUMNS, Sweep, markdown_table, results_table, run_dir_name, run_sweep

TINY = """
families = ["parity", "cyclic:3"]
models = ["diagonal"]
lrs = [0.05, 0.001]
seeds = [0]

[train]
steps = 20
hidden = 4
test_len = 20
test_words = 4
"""


def test_grid_order_and_overrides():
    s = Sweep.from_toml_text(TINY)
    grid = [(c.spec, c.model, c.lr, c.seed, c.steps, c.hidden) for c in s.configs()]
    assert grid == [
        ("parity", "diagonal", 0.05, 0, 20, 4),
        ("parity", "diagonal", 0.001, 0, 20, 4),
        ("cyclic:3", "diagonal", 0.05, 0, 20, 4),
        ("cyclic:3", "diagonal", 0.001, 0, 20, 4),
    ]


@pytest.mark.parametrize(
    "text, match",
    [
        ('families = ["parity"]\nmodels = ["full"]\nlearning_rate = 1', "unknown key 'learning_rate'"),
        ('families = ["parity"]\nmodels = ["full"]\n[train]\nstepz = 1', "unknown key 'stepz' in \\[train\\]"),
        ('families = ["parity"]\nmodels = ["full"]\n[train]\nlr = 1', "grid axis"),
        ('families = ["parity"]', "needs the key 'models'"),
        ('families = ["parity"]\nmodels = []', "'models' is empty"),
        ('families = "parity"\nmodels = ["full"]', "must be a list"),
        ('families = ["parity"]\nmodels = ["gru"]', "unknown model 'gru'"),
        ('families = ["nosuch"]\nmodels = ["full"]', "family spec 'nosuch'"),
        ('families = ["parity"]\nmodels = ["full"]\nlrs = [-1.0]', "learning rate must be positive"),
        ('families = ["parity"]\nmodels = ["full"]\nworkers = 0', "workers"),
        ("families = [", "not valid TOML"),
    ],
)
def test_bad_sweep_files(text, match):
    with pytest.raises(ConfigError, match=match):
        Sweep.from_toml_text(text)


def test_missing_sweep_file(tmp_path):
    with pytest.raises(ConfigError, match="cannot read sweep file"):
        Sweep.load(tmp_path / "nope.toml")


def test_sweep_writes_csv_and_markdown(tmp_path):
    rows = run_sweep(Sweep.from_toml_text(TINY), tmp_path / "out")
    assert len(rows) == 4
    with open(tmp_path / "out" / "results.csv") as fh:
        table = list(csv.DictReader(fh))
    assert tuple(table[0]) == COLUMNS
    assert [r["family"] for r in table] == ["parity", "parity", "cyclic:3", "cyclic:3"]
    md = (tmp_path / "out" / "results.md").read_text()
    assert "| family | diagonal |" in md and "| parity |" in md
    # a second run refuses the folder, and with resume reuses the finished runs (same numbers)
    with pytest.raises(OutputExistsError, match="sweep folder .* is not empty .*--force.*--resume"):
        run_sweep(Sweep.from_toml_text(TINY), tmp_path / "out")
    again = run_sweep(Sweep.from_toml_text(TINY), tmp_path / "out", resume=True)
    assert [r["test_accuracy"] for r in again] == [r["test_accuracy"] for r in rows]
    assert not (tmp_path / "out" / ".lock").exists()


def test_sweep_with_local_worker_processes(tmp_path):
    text = TINY.replace('families = ["parity", "cyclic:3"]', 'families = ["parity"]')
    serial = run_sweep(Sweep.from_toml_text(text), tmp_path / "a", workers=1)
    parallel = run_sweep(Sweep.from_toml_text(text), tmp_path / "b", workers=2)
    key = lambda rows: [(r["lr"], r["test_accuracy"], r["steps"]) for r in rows]  # noqa: E731
    assert key(serial) == key(parallel)


@pytest.mark.skipif(importlib.util.find_spec("ray") is None, reason="Ray is not installed (optional extra)")
def test_sweep_on_a_local_ray_instance(tmp_path):  # pragma: no cover - needs the optional extra
    import ray

    ray.init(num_cpus=2, include_dashboard=False)
    try:
        text = TINY.replace('families = ["parity", "cyclic:3"]', 'families = ["parity"]')
        local = run_sweep(Sweep.from_toml_text(text), tmp_path / "a")
        remote = run_sweep(Sweep.from_toml_text(text), tmp_path / "b", ray_address="auto")
        assert [r["test_accuracy"] for r in local] == [r["test_accuracy"] for r in remote]
    finally:
        ray.shutdown()


def test_data_efficiency_axis(tmp_path):
    text = TINY.replace('families = ["parity", "cyclic:3"]', 'families = ["parity"]').replace(
        "lrs = [0.05, 0.001]", "lrs = [0.05]\nn_train = [2, 32]")
    sweep = Sweep.from_toml_text(text)
    assert [c.n_train for c in sweep.configs()] == [2, 32]
    assert sweep.row_labels() == ["parity (n=2)", "parity (n=32)"]
    rows = run_sweep(sweep, tmp_path / "out")
    assert [r["n_train"] for r in rows] == [2, 32]
    assert sorted(p.name for p in (tmp_path / "out" / "runs").iterdir()) == [
        "parity__diagonal__lr0.05__s0__n2", "parity__diagonal__lr0.05__s0__n32"]
    assert "| parity (n=2) |" in (tmp_path / "out" / "results.md").read_text()
    with pytest.raises(ConfigError, match="grid axis"):
        Sweep.from_toml_text('families = ["parity"]\nmodels = ["full"]\n[train]\nn_train = 4')


def test_results_table_keeps_the_best_lr_and_averages_seeds():
    rows = [
        {"family": "f", "model": "m", "seed": 0, "lr": 0.1, "test_accuracy_normalized": 0.2},
        {"family": "f", "model": "m", "seed": 0, "lr": 0.01, "test_accuracy_normalized": 1.0},
        {"family": "f", "model": "m", "seed": 1, "lr": 0.1, "test_accuracy_normalized": 0.6},
        {"family": "f", "model": "m", "seed": 1, "lr": 0.01, "test_accuracy_normalized": ""},
    ]
    assert results_table(rows) == {("f", "m"): 0.8}
    assert markdown_table({("f", "m"): 0.8}, ["f", "g"], ["m"]).splitlines()[2:] == ["| f | 0.80 |", "| g | - |"]


def test_reproduce_tables_are_the_issue_grid():
    assert QUICK.families == ("parity", "cyclic:3", "cyclic:5", "dihedral:3", "random:states=5,symbols=2")
    assert QUICK.models == ("full", "block:2", "rotation2d", "diagonal", "lstm")
    assert FULL.lrs == (1e-3, 1e-4, 1e-5) and len(FULL.seeds) == 3


def test_learning_rates_that_print_alike_get_their_own_run_folders(tmp_path):
    text = TINY.replace('families = ["parity", "cyclic:3"]', 'families = ["parity"]').replace(
        "lrs = [0.05, 0.001]", "lrs = [0.001, 0.0010000001]")
    rows = run_sweep(Sweep.from_toml_text(text), tmp_path / "out", workers=2)
    names = sorted(p.name for p in (tmp_path / "out" / "runs").iterdir())
    assert names == ["parity__diagonal__lr0.0010000001__s0", "parity__diagonal__lr0.001__s0"]
    for name, lr in [(names[0], 0.0010000001), (names[1], 0.001)]:
        run = tmp_path / "out" / "runs" / name
        assert json.loads((run / "config.json").read_text())["lr"] == lr
        assert [json.loads(x)["step"] for x in (run / "metrics.jsonl").read_text().splitlines()] == [20]
    assert [r["lr"] for r in rows] == [0.001, 0.0010000001]


@pytest.mark.parametrize("axis, message", [
    ("seeds = [0, 0]", "'seeds' lists 0 twice"),
    ("lrs = [0.001, 1e-3]", "'lrs' lists 0.001 twice"),
    ('families = ["parity", "parity"]', "'families' lists 'parity' twice"),
])
def test_duplicate_grid_points_are_refused_up_front(axis, message):
    key = axis.split(" =")[0]
    text = "\n".join(line for line in TINY.splitlines() if not line.startswith(key + " ="))
    with pytest.raises(ConfigError, match=message):
        Sweep.from_toml_text(axis + "\n" + text)


def test_grid_points_sharing_a_run_folder_are_refused_naming_both(monkeypatch):
    import bilinear.learned.sweep as sweep_module

    monkeypatch.setattr(sweep_module, "run_dir_name", lambda c: f"{c.spec}__lr{c.lr:.2g}")  # the old, lossy way
    text = TINY.replace("lrs = [0.05, 0.001]", "lrs = [0.001, 0.0010000001]")
    with pytest.raises(ConfigError, match=r"grid points \(family 'parity', model 'diagonal', lr 0.001, seed 0\) and "
                                          r"\(family 'parity', model 'diagonal', lr 0.0010000001, seed 0\) would share"):
        Sweep.from_toml_text(text)


def test_a_sweep_folder_in_use_is_refused_at_once(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    with FolderLock(out, what="sweep folder"):
        with pytest.raises(FolderLockedError, match=f"sweep folder {out} is being written by process {os.getpid()}"):
            run_sweep(Sweep.from_toml_text(TINY), out, resume=True)


def test_a_run_in_use_is_an_error_of_the_sweep_not_a_second_writer(tmp_path):
    text = TINY.replace('families = ["parity", "cyclic:3"]', 'families = ["parity"]').replace(
        "lrs = [0.05, 0.001]", "lrs = [0.05]")
    sweep = Sweep.from_toml_text(text)
    run = tmp_path / "out" / "runs" / run_dir_name(sweep.configs()[0])
    with RunDir(run, sweep.configs()[0]):
        with pytest.raises(ConfigError, match="1 run.s. of the sweep failed.*FolderLockedError"):
            run_sweep(sweep, tmp_path / "out", resume=True)
    assert not (run / "metrics.jsonl").exists()  # the holder's folder was left alone
    rows = run_sweep(sweep, tmp_path / "out", resume=True)  # and once released, it trains
    assert rows[0]["steps"] == 20


def test_force_replaces_a_sweep_folder(tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "old.txt").write_text("x")
    text = TINY.replace('families = ["parity", "cyclic:3"]', 'families = ["parity"]').replace(
        "lrs = [0.05, 0.001]", "lrs = [0.05]")
    run_sweep(Sweep.from_toml_text(text), tmp_path / "out", force=True)
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["results.csv", "results.md", "runs"]
