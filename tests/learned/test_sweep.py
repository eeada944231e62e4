"""Sweeps: grid, results tables, unknown keys, local workers, Ray (when installed)."""

from __future__ import annotations

import csv
import json
import importlib.util
import os
import signal
import threading
import time
from pathlib import Path

import pytest
import torch


from bilinear.errors import ConfigError, FolderLockedError, OutputExistsError
from bilinear.fileio import FolderLock
from bilinear.learned.runs import RunDir
from bilinear.learned.reproduce import FULL, MEDIUM, MEDIUM_PARTS, QUICK, lr_spread_table, reproduce
from bilinear.learned.sweep import COLUMNS, Sweep, cell, markdown_table, results_table, run_dir_name, run_sweep

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
    assert "| family (cells: normalised accuracy at length 20 (last position)) | diagonal |" in md and "| parity |" in md
    # a second run refuses the folder, and with resume reuses the finished runs (same numbers)
    with pytest.raises(OutputExistsError, match="sweep folder .* is not empty .*--force.*--resume"):
        run_sweep(Sweep.from_toml_text(TINY), tmp_path / "out")
    again = run_sweep(Sweep.from_toml_text(TINY), tmp_path / "out", resume=True)
    assert [r["accuracy_mean_over_positions"] for r in again] == [r["accuracy_mean_over_positions"] for r in rows]
    assert not (tmp_path / "out" / ".lock").exists()


def test_sweep_with_local_worker_processes(tmp_path):
    text = TINY.replace('families = ["parity", "cyclic:3"]', 'families = ["parity"]')
    serial = run_sweep(Sweep.from_toml_text(text), tmp_path / "a", workers=1)
    parallel = run_sweep(Sweep.from_toml_text(text), tmp_path / "b", workers=2)
    key = lambda rows: [(r["lr"], r["accuracy_mean_over_positions"], r["steps"]) for r in rows]  # noqa: E731
    assert key(serial) == key(parallel)


# .ci/run installs the `ray` extra and sets BILINEAR_REQUIRE_RAY: there a missing Ray fails these tests
needs_ray = pytest.mark.skipif(
    importlib.util.find_spec("ray") is None and not os.environ.get("BILINEAR_REQUIRE_RAY"),
    reason="Ray is not installed (the `ray` extra)",
)


@pytest.fixture
def local_ray():
    import ray
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield ray
    finally:
        ray.shutdown()


@needs_ray
def test_sweep_on_a_local_ray_instance(tmp_path, local_ray):
    text = TINY.replace('families = ["parity", "cyclic:3"]', 'families = ["parity"]')
    local = run_sweep(Sweep.from_toml_text(text), tmp_path / "a")
    remote = run_sweep(Sweep.from_toml_text(text), tmp_path / "b", ray_address="auto")
    assert [r["accuracy_mean_over_positions"] for r in local] == [r["accuracy_mean_over_positions"] for r in remote]


def _ray_task_pids(name: str = "ray::_run_one") -> list[int]:
    """PIDs of Ray workers executing a sweep run (Ray titles a busy worker ``ray::<task>``)."""
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as fh:
                    if fh.read().split(b"\0")[0].decode(errors="replace").startswith(name):
                        pids.append(int(entry))
            except OSError:
                continue
    return pids


def _strip_times(rows):
    return [{k: v for k, v in r.items() if not k.endswith("seconds") and k != "run_dir"} for r in rows]


@needs_ray
@pytest.mark.skipif(not os.path.isdir("/proc"), reason="finds the Ray worker through /proc (Linux)")
def test_a_killed_ray_worker_is_retried_and_its_run_resumes(tmp_path, local_ray):
    """SIGKILL the worker once its run has a checkpoint and no result: Ray retries the task, the
    retry resumes from the checkpoint, and the sweep equals the local-process one, metric by metric."""
    text = """
families = ["cyclic:3"]
models = ["full"]
lrs = [0.01]
[train]
steps = 2000
hidden = 8
eval_every = 10
early_stop = "none"
test_len = 40
test_words = 8
"""
    sweep = Sweep.from_toml_text(text)
    run = tmp_path / "ray" / "runs" / "cyclic-3__full__lr0.01__s0"
    outcome = {}
    thread = threading.Thread(target=lambda: outcome.update(rows=run_sweep(sweep, tmp_path / "ray", ray_address="auto")))
    thread.start()
    killed = None
    deadline = time.monotonic() + 120
    while killed is None and time.monotonic() < deadline and thread.is_alive():
        if (run / "checkpoint.pt").is_file() and not (run / "result.json").is_file():
            pids = _ray_task_pids()
            if pids:
                os.kill(pids[0], signal.SIGKILL)
                killed = pids[0]
                finished_at_kill = (run / "result.json").is_file()
                step_at_kill = torch.load(run / "checkpoint.pt", weights_only=True)["step"]
                break
        time.sleep(0.01)
    thread.join(timeout=300)
    assert killed is not None, "the run finished before its worker could be killed (make it longer)"
    assert not finished_at_kill and 10 <= step_at_kill < 2000  # killed mid-run, with a checkpoint
    assert "rows" in outcome  # the sweep finished despite the kill: the task was retried
    local = run_sweep(sweep, tmp_path / "local")
    assert _strip_times(outcome["rows"]) == _strip_times(local)
    assert (run / "metrics.jsonl").read_text() == (tmp_path / "local" / "runs" / run.name / "metrics.jsonl").read_text()


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


def test_hidden_axis(tmp_path):
    """The hidden size as a grid axis: one run per size, folders and table rows name it."""
    text = TINY.replace('families = ["parity", "cyclic:3"]', 'families = ["parity"]').replace(
        "lrs = [0.05, 0.001]", "lrs = [0.05]\nhidden = [2, 6]").replace("hidden = 4\n", "")
    sweep = Sweep.from_toml_text(text)
    assert [c.hidden for c in sweep.configs()] == [2, 6] and sweep.by_hidden
    assert sweep.row_labels() == ["parity (h=2)", "parity (h=6)"]
    rows = run_sweep(sweep, tmp_path / "out")
    assert [r["hidden"] for r in rows] == [2, 6]
    assert sorted(p.name for p in (tmp_path / "out" / "runs").iterdir()) == [
        "parity__diagonal__lr0.05__s0__h2", "parity__diagonal__lr0.05__s0__h6"]
    table = results_table(rows)
    assert set(table) == {("parity (h=2)", "diagonal"), ("parity (h=6)", "diagonal")}
    assert table[("parity (h=6)", "diagonal")] == pytest.approx(float(rows[1]["accuracy_at_length"]))
    md = (tmp_path / "out" / "results.md").read_text()
    assert "| parity (h=2) |" in md and "| parity (h=6) |" in md
    with open(tmp_path / "out" / "results.csv") as fh:  # grid_hidden is not a column
        assert next(csv.reader(fh)) == list(COLUMNS)
    with pytest.raises(ConfigError, match="hidden is both a grid axis"):
        Sweep.from_toml_text(text + "hidden = 4\n")
    with pytest.raises(ConfigError, match="lists 2 twice"):
        Sweep.from_toml_text(text.replace("hidden = [2, 6]", "hidden = [2, 2]"))
    with pytest.raises(ConfigError, match="not divisible by the block size"):
        Sweep.from_toml_text(text.replace('models = ["diagonal"]', 'models = ["block:4"]'))


def test_results_table_chooses_the_lr_on_validation_words_and_averages_seeds():
    rows = [
        {"family": "f", "model": "m", "seed": 0, "lr": 0.1, "accuracy_at_length": 0.2, "val_accuracy": "0.9"},
        {"family": "f", "model": "m", "seed": 0, "lr": 0.01, "accuracy_at_length": 1.0, "val_accuracy": "0.7"},
        {"family": "f", "model": "m", "seed": 1, "lr": 0.1, "accuracy_at_length": 0.6, "val_accuracy": "1.0"},
        {"family": "f", "model": "m", "seed": 1, "lr": 0.01, "accuracy_at_length": "", "val_accuracy": ""},
    ]
    assert results_table(rows) == {("f", "m"): 0.4}  # seed 0 chooses lr 0.1 (0.2), seed 1 its only run (0.6)
    assert results_table(rows, select="test") == {("f", "m"): 0.8}
    with pytest.raises(ConfigError, match="unknown learning-rate selection"):
        results_table(rows, select="train")
    assert markdown_table({("f", "m"): 0.8}, ["f", "g"], ["m"]).splitlines()[2:] == ["| f | 0.80 |", "| g | - |"]


def test_reproduce_tables_are_the_issue_grid():
    assert QUICK.families == ("parity", "cyclic:3", "cyclic:5", "dihedral:3", "random:states=5,symbols=2,seed=0")  # canonical (docs/formats.md)
    assert QUICK.models == ("full", "block:2", "rotation2d", "diagonal", "lstm")
    assert FULL.lrs == (1e-3, 1e-4, 1e-5) and len(FULL.seeds) == 3 and FULL.train["hidden"] == 256
    # the medium table holds every row of the issue's experiments
    for m in (2, 3, 5, 10, 25, 50):
        assert ("parity" if m == 2 else f"cyclic:{m}") in MEDIUM.families
    for model in ("full", "factorized:1", "factorized:16", "block:1", "block:8", "rotation2d", "diagonal",
                  "lstm", "rnn", "transformer:1", "transformer:2", "transformer:4", "mamba:1", "mamba:2", "mamba:4"):
        assert model in MEDIUM.models
    # and every other experiment of the issue is a part of it
    parts = {p.name: p.sweep for p in MEDIUM_PARTS}
    assert {"factorized:64", "block:64"} <= set(parts["hierarchy-64"].models)
    assert parts["frozen-diagonal"].train["freeze_transitions"] and parts["frozen-diagonal"].by_hidden
    assert set(parts["data-efficiency"].models) == {"diagonal", "lstm", "rnn"} and len(parts["data-efficiency"].n_train) == 6
    assert parts["parameter-matched"].train["match_params"] == 2000
    assert "dihedral:30" in parts["additive-on"].families and parts["additive-on"].train["additive"]
    assert parts["additive-on"].families == parts["additive-off"].families
    assert parts["rotation-long"].train["train_max_len"] == 50 and parts["rotation-curriculum"].train["curriculum_max_len"] == 50
    assert parts["rotation"].hidden == parts["rotation-long"].hidden == parts["rotation-curriculum"].hidden == (2, 4, 16)


def test_the_medium_table_has_the_families_part_of_the_published_claims():
    """Issue 21's claims are a part of --medium: DeltaNet / DeltaProduct in both beta ranges on
    parity and S_3, PD-SSM on random machines (also at d = n), dplr beside them."""
    from bilinear.learned.models import check_variant

    parts = {p.name: p.sweep for p in MEDIUM_PARTS}
    fam = parts["families"]
    assert {"householder:1", "householder:1,nonneg", "householder:2", "householder:2,nonneg", "monomial",
            "dplr:1", "full"} == set(fam.models)
    assert {"parity", "cyclic:3", "dihedral:3", "symmetric:3", "random:states=5,symbols=2,seed=0"} == set(fam.families)
    for model in fam.models:  # every model is a variant the learned side trains at this hidden size
        assert check_variant(model, fam.train["hidden"]).spec == model
    dn = parts["families-dn"]
    assert dn.hidden == (5,) and "monomial" in dn.models
    assert all(f.startswith("random:states=5,") for f in dn.families)  # d = n = 5
    assert len(fam.configs()) == 5 * 7 * 2 and len(dn.configs()) == 2 * 2 * 2 * 2


def test_the_families_part_runs_at_a_toy_size(tmp_path):
    """Every model of the families part trains and is tabled (two steps, hidden 4, parity)."""
    from bilinear.learned.reproduce import _adjusted

    fam = {p.name: p.sweep for p in MEDIUM_PARTS}["families"]
    toy = _adjusted(fam, adjust={"families": ("parity",), "lrs": (1e-2,), "workers": 1,
                                "train": {"steps": 2, "hidden": 4, "test_len": 12, "test_words": 2, "eval_every": 1}})
    rows = run_sweep(toy, tmp_path / "fam", quiet=True)
    assert sorted(r["model"] for r in rows) == sorted(fam.models)
    assert not [r for r in rows if r.get("error")]


def test_a_table_of_several_parts_gives_each_a_folder(tmp_path, monkeypatch):
    """The medium table's shape, at a toy size: one sub-folder and one section per part, and
    tables.md with every table; a second call resumes (finished runs reused) or is refused."""
    import bilinear.learned.reproduce as rep

    tiny = {"steps": 20, "test_len": 20, "test_words": 4}
    parts = (rep.Part("a", "Part A", "about A", Sweep(families=("parity",), models=("diagonal",), train={**tiny, "hidden": 2})),
             rep.Part("b", "Part B", "about B", Sweep(families=("parity",), models=("diagonal",), hidden=(2, 4),
                                                      train=tiny)))
    monkeypatch.setitem(rep.SIZES, "medium", parts)
    out = tmp_path / "out"
    text = reproduce(out, size="medium")
    assert sorted(p.name for p in out.iterdir() if p.name != ".lock") == ["a", "b", "tables.md"]
    assert (out / "a" / "results.csv").is_file() and len(list((out / "b" / "runs").iterdir())) == 2
    assert "## Part A\n\nabout A" in text and "| parity (h=4) |" in text and "Range across" not in text
    md = (out / "tables.md").read_text()
    assert text in md and "Wall time of this call:" in md
    first = (out / "a" / "runs" / "parity__diagonal__lr0.01__s0" / "result.json").stat().st_mtime_ns
    assert reproduce(out, size="medium", resume=True).split("runs,")[0] == text.split("runs,")[0]
    assert (out / "a" / "runs" / "parity__diagonal__lr0.01__s0" / "result.json").stat().st_mtime_ns == first
    with pytest.raises(OutputExistsError):
        reproduce(out, size="medium")


def test_reproduce_reports_the_best_and_the_range_across_learning_rates(tmp_path):
    """A corner of the medium table, two learning rates: the best per seed and the min-max."""
    corner = Sweep(families=("parity",), models=("diagonal", "lstm"), lrs=(0.05, 1e-5), seeds=(0,),
                   train={**MEDIUM.train, "steps": 40, "hidden": 4, "test_len": 30, "test_words": 4})
    text = reproduce(tmp_path / "out", sweep=corner)
    with open(tmp_path / "out" / "results.csv") as fh:
        rows = list(csv.DictReader(fh))
    spread = lr_spread_table(rows)
    accs = {(r["model"], float(r["lr"])): float(r["accuracy_at_length"]) for r in rows}
    for model in ("diagonal", "lstm"):
        lo, hi = spread[("parity", model)]
        pair = (accs[(model, 0.05)], accs[(model, 1e-5)])
        assert (lo, hi) == pytest.approx((min(pair), max(pair)), abs=1e-6)
        assert f"{cell(lo)}..{cell(hi)}" in text
    assert "Range across the learning rates 0.05, 1e-05" in text
    assert results_table(rows, select="test")[("parity", "diagonal")] == pytest.approx(
        max(accs[("diagonal", 0.05)], accs[("diagonal", 1e-5)]), abs=1e-6)
    val = {float(r["lr"]): (float(r["val_accuracy"]), float(r["train_accuracy"]), -int(r["steps"]))
           for r in rows if r["model"] == "diagonal"}
    chosen = max(val, key=val.get)  # the validation words' choice, whatever the test words say
    assert results_table(rows)[("parity", "diagonal")] == pytest.approx(accs[("diagonal", chosen)], abs=1e-6)
    assert "chosen per seed on the held-out validation words (lengths 20-200)" in text
    assert "For comparison only, the best learning rate per seed on the test words" in text


EXPERIMENTS = sorted((Path(__file__).resolve().parents[2] / "experiments").glob("*.toml"))


def test_every_experiment_file_is_a_valid_sweep():
    """Each sweep file under experiments/ parses and every grid point is a valid TrainConfig."""
    names = {p.name for p in EXPERIMENTS}
    assert {"modular-addition.toml", "hierarchy.toml", "data-efficiency.toml"} <= names
    for path in EXPERIMENTS:
        sweep = Sweep.load(path)  # validates every grid point
        assert sweep.configs()
    addition = Sweep.load(EXPERIMENTS[0].parent / "modular-addition.toml")
    assert addition.families == ("parity", "cyclic:3", "cyclic:5", "cyclic:10", "cyclic:25", "cyclic:50")
    assert addition.lrs == (1e-3, 1e-4, 1e-5) and addition.train["hidden"] == 256


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

    monkeypatch.setattr(sweep_module, "run_dir_name", lambda c, by_hidden=False: f"{c.spec}__lr{c.lr:.2g}")  # the old, lossy way
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


def test_validating_a_large_sweep_builds_no_automaton(monkeypatch):
    """cyclic:10000 x 50 seeds spent 168 s and 2.6 GB building the automaton 100 times before
    training: validation now parses the spec (and checks a product's size) without building."""
    import bilinear.automata.families as families

    def no_build(spec):  # pragma: no cover - the point is that it is never called
        raise AssertionError(f"validation built {spec}")

    monkeypatch.setattr(families, "from_spec", no_build)
    sweep = Sweep(families=["cyclic:7000"], models=["full"], seeds=list(range(50)))
    assert len(sweep.configs()) == 50
    with pytest.raises(ConfigError, match="MAX_PRODUCT_ENTRIES"):
        Sweep(families=["cyclic:7000*cyclic:7000"], models=["full"])
    with pytest.raises(ConfigError, match="exceeds the limit"):
        Sweep(families=["cyclic:10001"], models=["full"])


#: The full protocol's grid and code path at a tiny size (CI's smoke test of ``reproduce --full``).
TINY_FULL = {"families": ("parity",), "models": ("full", "rotation2d", "lstm"), "seeds": (0,), "workers": 1,
             "train": {"steps": 3, "hidden": 4, "embed": 4, "test_len": 12, "test_words": 4, "eval_every": 3,
                       "val_max_len": 20, "val_words": 4}}


def test_reproduce_full_smoke_on_cpu(tmp_path, capsys):
    """The full table's runs (the paper preset, three learning rates) at a tiny size; ``--device``
    reaches every run, and a missing CUDA is one error before any run."""
    from bilinear.learned.reproduce import FULL, reproduce

    text = reproduce(tmp_path / "out", size="full", device="cpu", adjust=TINY_FULL, only=("table-1",))
    with open(tmp_path / "out" / "table-1" / "results.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 3 * len(FULL.lrs) and {float(r["lr"]) for r in rows} == set(FULL.lrs)
    config = json.loads((tmp_path / "out" / "table-1" / "runs" / "parity__rotation2d__lr0.001__s0" / "config.json").read_text())
    assert (config["device"], config["angles"], config["embed"], config["hidden"]) == ("cpu", True, 4, 4)
    assert "chosen per seed on the held-out validation words" in text
    if not __import__("torch").cuda.is_available():
        with pytest.raises(ConfigError, match="CUDA is not available"):
            reproduce(tmp_path / "cuda", size="full", device="cuda", adjust=TINY_FULL, only=("table-1",))
        assert not (tmp_path / "cuda").exists()


@needs_ray
def test_reproduce_full_smoke_on_a_local_ray_instance(tmp_path, local_ray):
    from bilinear.learned.reproduce import reproduce

    local = reproduce(tmp_path / "a", size="full", device="cpu", adjust=TINY_FULL, only=("table-1",))
    remote = reproduce(tmp_path / "b", size="full", device="cpu", adjust=TINY_FULL, ray_address="auto", only=("table-1",))
    assert local.rsplit("\n\n", 1)[0] == remote.rsplit("\n\n", 1)[0]  # the last line names the folder and the time


def test_seed_table_shows_the_spread_across_seeds():
    from bilinear.learned.sweep import SeedSpread, seed_table

    rows = [{"family": "f", "model": "m", "seed": s, "lr": lr, "accuracy_at_length": a}
            for s, lr, a in [(0, 1, 0.22), (0, 2, 0.1), (1, 1, 0.81), (1, 2, 0.5), (2, 1, 0.5)]]
    spread = seed_table(rows)[("f", "m")]
    assert spread == SeedSpread(round((0.22 + 0.81 + 0.5) / 3, 6), 0.22, 0.81, 3)
    table = markdown_table(seed_table(rows) | {("g", "m"): SeedSpread(1.0, 1.0, 1.0, 1)}, ["f", "g"], ["m"])
    assert table.splitlines()[2:] == ["| f | 0.51 (0.22..0.81) |", "| g | 1.00 |"]
