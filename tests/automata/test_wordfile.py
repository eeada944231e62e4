"""Words files: the word-problem CSV layout, JSON lines and parquet, written and read back."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from bilinear.automata import from_spec
from bilinear.automata import sample_words
from bilinear.automata.wordfile import read_words, word_format, write_words
from bilinear.errors import DataError, ExtraMissingError

A = from_spec("dihedral:3")


def _has_pyarrow() -> bool:
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return False
    return True


FORMATS = ["csv", "jsonl"] + (["parquet"] if _has_pyarrow() else [])


@pytest.mark.parametrize("fmt", FORMATS)
def test_round_trip_keeps_words_and_labels(tmp_path, fmt: str) -> None:
    ds = sample_words(A, 40, 1, 7, seed=3)
    path = write_words(tmp_path / f"d3=7.{fmt}", ds, seed=3)
    back = read_words(path, A)
    assert back.words.tolist() == ds.words.tolist()
    assert back.labels.tolist() == ds.labels.tolist() and back.lengths.tolist() == ds.lengths.tolist()


def test_csv_is_the_word_problem_layout(tmp_path) -> None:
    a = from_spec("cyclic:5")
    ds = sample_words(a, 2, 3, 3, seed=0)
    lines = write_words(tmp_path / "Z5=3.csv", ds, seed=0).read_text().splitlines()
    assert lines[0] == "seed,input,target"
    seed, word, target = lines[1].split(",")
    w = [int(x) for x in word.split()]
    assert seed == "0" and [int(x) for x in target.split()] == list(np.cumsum(w) % 5)


def test_a_peer_file_with_other_columns_and_final_targets_reads(tmp_path) -> None:
    # the README's layout (length,input,target) with only the final element as target
    path = tmp_path / "Z5=3.csv"
    path.write_text("length,input,target\n3,1 2 4,2\n3,4 4 4,2\n")
    ds = read_words(path, from_spec("cyclic:5"))
    assert ds.labels.tolist() == [[1, 3, 2], [4, 3, 2]]
    path.write_text("length,input,target\n3,1 2 4,3\n")
    with pytest.raises(DataError, match=r"line 2: target 3 after 3 symbols, but cyclic:5 gives class 2"):
        read_words(path, from_spec("cyclic:5"))


def test_targets_are_optional_and_computed(tmp_path) -> None:
    path = tmp_path / "w.jsonl"
    path.write_text(json.dumps({"input": [0, 1, 1]}) + "\n\n")
    assert read_words(path, from_spec("parity")).labels.tolist() == [[0, 1, 0]]


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "is empty"),
        ("seed,word\n0,1 2\n", "no 'input' column"),
        ("seed,input,target\n0,1 x,1 0\n", r"line 2: symbol index 'x' is not an integer"),
        ("seed,input,target\n0,1 9,1 0\n", r"line 2: symbol index 9 is not a symbol of parity \(0..1\)"),
        ("seed,input,target\n0,,\n", "line 2: the word is empty"),
        ("seed,input,target\n0,1 1,1\n0,1 1 1,1 0\n", r"line 3: 2 targets for a word of 3 symbols"),
        ("seed,input,target\n0,1\n", "line 2: 2 fields, the header has 3"),
        ("seed,input,target\n", "has no words"),
    ],
)
def test_bad_csv_names_the_line(tmp_path, text: str, message: str) -> None:
    path = tmp_path / "bad.csv"
    path.write_text(text)
    with pytest.raises(DataError, match=message):
        read_words(path, from_spec("parity"))


def test_limits_are_checked_before_reading_the_whole_file(tmp_path) -> None:
    path = tmp_path / "big.csv"
    path.write_text("seed,input,target\n" + "0,1 0,1 1\n" * 50)
    with pytest.raises(DataError, match="bytes, over the limit of 100"):
        read_words(path, from_spec("parity"), max_bytes=100)
    with pytest.raises(DataError, match="more than 10 rows"):
        read_words(path, from_spec("parity"), max_rows=10)
    with pytest.raises(DataError, match="longer than 1"):
        read_words(path, from_spec("parity"), max_len=1)
    bad = tmp_path / "x.jsonl"
    bad.write_text("{not json\n")
    with pytest.raises(DataError, match="line 1: not valid JSON"):
        read_words(bad, from_spec("parity"))
    with pytest.raises(DataError, match="cannot tell the format"):
        word_format("words.txt")


def test_parquet_without_pyarrow_says_which_extra(tmp_path, monkeypatch) -> None:
    import builtins

    real_import = builtins.__import__

    def no_pyarrow(name, *args, **kwargs):
        if name.startswith("pyarrow"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_pyarrow)
    monkeypatch.delitem(sys.modules, "pyarrow", raising=False)
    monkeypatch.delitem(sys.modules, "pyarrow.parquet", raising=False)
    with pytest.raises(ExtraMissingError, match=r"pip install 'bilinear\[parquet\]'"):
        write_words(tmp_path / "w.parquet", sample_words(A, 2, 1, 2))


def _cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "bilinear.cli", *args], capture_output=True, text=True,
                          timeout=300, cwd=cwd, env={"OMP_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"})


def test_data_then_train_on_it(tmp_path) -> None:
    made = _cli("data", "cyclic:5", "--lengths", "2", "10", "--count", "100", "--out", "F.csv", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    assert "wrote 100 words of cyclic:5" in made.stdout
    rows = (tmp_path / "F.csv").read_text().splitlines()
    assert len(rows) == 101 and all(2 <= len(r.split(",")[1].split()) <= 10 for r in rows[1:])
    again = _cli("data", "cyclic:5", "--count", "3", "--out", "F.csv", cwd=tmp_path)
    assert again.returncode == 2 and "exists" in again.stderr
    trained = _cli("train", "cyclic:5", "full", "--data", "F.csv", "--steps", "60", "--test-len", "20",
                   "--test-words", "10", "--quiet", "--json", cwd=tmp_path)
    assert trained.returncode == 0, trained.stderr
    assert json.loads(trained.stdout)["data"] == "F.csv"
    other = _cli("train", "cyclic:3", "full", "--data", "F.csv", "--steps", "5", cwd=tmp_path)
    assert other.returncode == 2 and "is not a symbol of cyclic:3" in other.stderr


def test_train_pool_is_the_file(tmp_path) -> None:
    from bilinear.learned import TrainConfig
    from bilinear.learned.train import _batch, words_file

    a = from_spec("cyclic:5")
    path = write_words(tmp_path / "w.csv", sample_words(a, 7, 2, 4, seed=1))
    config = TrainConfig(spec="cyclic:5", data=str(path), steps=5)
    pool = words_file(config.data, a, config.longest_train_len, "--train-len")
    words, _ = _batch(a, config, 0, pool)
    rows = {tuple(r) for r in pool.words.tolist()}
    assert all(tuple(r[: pool.max_len]) in rows for r in words.tolist())
    with pytest.raises(DataError, match="longer than 3: raise --train-len"):
        words_file(config.data, a, 3, "--train-len")
