"""Hostile runs (issue 46: N1, N2, N12, N14): no run lost to an export, the words files checked
before the run folder is touched and again on resume, a stored result checked before it is read."""

from __future__ import annotations

import json

import pytest

from bilinear.cli import main

TINY = ["--steps", "10", "--eval-every", "5", "--hidden", "2", "--test-len", "12", "--test-words", "4",
        "--val-len", "12", "12", "--val-words", "4", "--quiet"]


def _train(out, *extra) -> int:
    return main(["train", "parity", "diagonal", *TINY, "--out", str(out), *extra])


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    run = tmp_path_factory.mktemp("finished") / "good"
    assert _train(run) == 0
    return run


def _snapshot(folder):
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


@pytest.mark.parametrize("name", ["model.pt", "result.json", "sub/w.json"])
def test_export_never_writes_into_its_run(finished, tmp_path, capsys, name):
    """N1: ``export good good/model.pt --force`` replaced the run's model by the weights JSON."""
    before = _snapshot(finished)
    capsys.readouterr()
    assert main(["export", str(finished), str(finished / name), "--force"]) == 2
    err = capsys.readouterr().err
    assert f"weights file {finished / name} " in err and "choose a file apart from the inputs" in err
    assert err.count("\n") == 1 and _snapshot(finished) == before
    assert main(["export", str(finished), str(tmp_path / "w.json")]) == 0  # beside the run: written
    assert json.loads((tmp_path / "w.json").read_text())["variant"] == "diagonal"


def _words(path, seed):
    assert main(["data", "parity", "--lengths", "2", "6", "--count", "20", "--seed", str(seed), "--out", str(path),
                 "--force"]) == 0


def test_resume_refuses_a_words_file_that_changed(tmp_path, capsys):
    """N2: ``train --data FILE --resume`` after a kill read whatever FILE held then, mixing two
    data sets under one name; the checkpoint now carries the words' digest."""
    data, run = tmp_path / "words.csv", tmp_path / "run"
    _words(data, 1)
    assert _train(run, "--data", str(data), "--train-len", "2", "6") == 0
    first = json.loads((run / "result.json").read_text())
    assert first["data_digest"]["data"].startswith("sha256:")
    for name in ("result.json", "model.pt"):  # as if killed after the last checkpoint
        (run / name).unlink()
    _words(data, 2)  # other words under the same name
    capsys.readouterr()
    assert _train(run, "--data", str(data), "--train-len", "2", "6", "--resume") == 2
    err = capsys.readouterr().err
    assert f"the words of {data} are not those the run started with" in err and err.count("\n") == 1
    assert not (run / "result.json").exists()
    _words(data, 1)  # the file put back: the run resumes and ends where it would have
    assert _train(run, "--data", str(data), "--train-len", "2", "6", "--resume") == 0
    again = json.loads((run / "result.json").read_text())
    assert {k: v for k, v in again.items() if "seconds" not in k} == {k: v for k, v in first.items()
                                                                      if "seconds" not in k}


def test_the_words_are_checked_before_the_run_folder_is_made(tmp_path, capsys):
    """N14: ``train --data BAD --out DIR`` made DIR (config.json) before refusing BAD."""
    bad = tmp_path / "bad.csv"
    bad.write_text("seed,input,target\n0,0 7 1,\n")
    for option in ("--data", "--test-data"):
        run = tmp_path / f"run{option}"
        assert _train(run, option, str(bad)) == 2
        assert "symbol index 7 is not a symbol of parity" in capsys.readouterr().err
        assert not run.exists()


def test_a_run_folder_around_its_words_file_is_refused(tmp_path, capsys):
    """``train --data RUN/words.csv --out RUN --force`` would remove the words before reading them."""
    run = tmp_path / "run"
    run.mkdir()
    data = run / "words.csv"
    _words(data, 1)
    capsys.readouterr()
    assert _train(run, "--data", str(data), "--train-len", "2", "6", "--force") == 2
    assert "run folder" in capsys.readouterr().err and data.is_file()


@pytest.mark.parametrize("change, said", [
    (lambda r: r.pop("test_length"), "it has no 'test_length'"),
    (lambda r: r.update(accuracy_at_length="1.0"), "its 'accuracy_at_length' is a str, not int or float"),
    (lambda r: r.update(steps=True), "its 'steps' is a bool, not int"),
])
def test_a_finished_run_with_a_broken_result_is_one_line(finished, tmp_path, capsys, change, said):
    """N12: a ``result.json`` without ``test_length``: KeyError traceback on ``train --resume``."""
    import shutil

    run = tmp_path / "run"
    shutil.copytree(finished, run)
    result = json.loads((run / "result.json").read_text())
    change(result)
    (run / "result.json").write_text(json.dumps(result))
    capsys.readouterr()
    assert _train(run, "--resume") == 2
    err = capsys.readouterr().err
    assert f"{run / 'result.json'} is corrupt: {said}" in err and err.count("\n") == 1


def test_the_estimate_counts_the_reflections():
    """N4: ``train cyclic:30 householder:1024 --hidden 512 --dry-run`` estimated 0.359 GB and the
    run reached a 6 GB cap in its first forward pass; ``householder:64 --hidden 256`` estimated
    0.059 GB (peak 682 MB).  Each of the K reflections keeps four (batch, time, hidden) float
    tensors for the backward pass (measured: 174 MB over the baseline for K = 64, hidden 256)."""
    from bilinear.errors import ConfigError
    from bilinear.learned.config import TrainConfig
    from bilinear.learned.train import dry_run

    def activations(k, hidden):
        config = TrainConfig(spec="cyclic:30", model=f"householder:{k}", hidden=hidden, test_len=20, val_min_len=20, val_max_len=20)
        return dry_run(config)["memory_bytes"]["activations"]  # the training step's, not the evaluation's

    batch, length = 64, 10  # the defaults: batch 64, lengths 2-10
    assert activations(64, 256) - activations(32, 256) == batch * length * (64 - 32) * 256 * 4 * 4
    assert activations(64, 256) >= 174e6  # at least the growth measured for one training step
    plan = dry_run(TrainConfig(spec="cyclic:30", model="householder:1024", hidden=512))
    assert plan["memory_gb"] > 5.3  # over what a 6 GB address space leaves after torch
    with pytest.raises(ConfigError, match="activations"):
        TrainConfig(spec="cyclic:30", model="householder:1024", hidden=512, max_memory_gb=4)


@pytest.mark.parametrize("models, said", [
    (["monomial,complex", "MONOMIAL,complex"], "lists 'monomial,complex' and 'MONOMIAL,complex': both are "
                                               "'monomial,complex'"),
    (["householder:1", "householder:01"], "lists 'householder:1' and 'householder:01': both are 'householder:1'"),
    (["monomial,complex,complex"], "repeats the option 'complex'"),
    (["householder:1,nonneg,nonneg"], "repeats the option 'nonneg'"),
])
def test_a_sweep_runs_each_model_once(models, said):
    """N20: five runs of two models; ``householder:1,nonneg,nonneg`` accepted."""
    from bilinear.errors import ConfigError
    from bilinear.learned.sweep import Sweep

    text = f'families = ["parity"]\nmodels = {json.dumps(models)}\n'
    with pytest.raises(ConfigError, match=said.replace("(", r"\(")):
        Sweep.from_toml_text(text)


def test_model_specs_are_canonical_in_configs_and_sweeps():
    from bilinear.learned.config import TrainConfig
    from bilinear.learned.sweep import Sweep

    assert TrainConfig(spec="parity", model="MONOMIAL, complex").model == "monomial,complex"
    assert TrainConfig(spec="parity", model="householder:01") == TrainConfig(spec="parity", model="householder:1")
    sweep = Sweep.from_toml_text('families = ["parity"]\nmodels = ["Householder:02", "factorized(3)", "lstm"]\n')
    assert sweep.models == ("householder:2", "factorized:3", "lstm")
    assert [c.model for c in sweep.configs()] == ["householder:2", "factorized:3", "lstm"]
