"""Sweeps: grid, results tables, unknown keys, local workers, Ray (when installed)."""

from __future__ import annotations

import csv
import importlib.util

import pytest

from bilinear.errors import ConfigError
from bilinear.learned.reproduce import FULL, QUICK
from bilinear.learned.sweep import COLUMNS, Sweep, markdown_table, results_table, run_sweep

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
    # a second run reuses the finished runs (same numbers, nothing retrained)
    again = run_sweep(Sweep.from_toml_text(TINY), tmp_path / "out")
    assert [r["test_accuracy"] for r in again] == [r["test_accuracy"] for r in rows]


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


def test_validating_a_large_sweep_builds_no_automaton(monkeypatch):
    """cyclic:10000 x 50 seeds spent 168 s and 2.6 GB building the automaton 100 times before
    training: validation now parses the spec (and checks a product's size) without building."""
    import bilinear.automata.families as families

    def no_build(spec):  # pragma: no cover - the point is that it is never called
        raise AssertionError(f"validation built {spec}")

    monkeypatch.setattr(families, "from_spec", no_build)
    sweep = Sweep(families=["cyclic:10000"], models=["full"], seeds=list(range(50)))
    assert len(sweep.configs()) == 50
    with pytest.raises(ConfigError, match="MAX_PRODUCT_ENTRIES"):
        Sweep(families=["cyclic:10000*cyclic:10000"], models=["full"])
    with pytest.raises(ConfigError, match="exceeds the limit"):
        Sweep(families=["cyclic:10001"], models=["full"])
