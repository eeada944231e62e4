"""A words file in the word-problem / DeltaProduct numbering, built here from the published
description (element k = the k-th of itertools.permutations, running product acc * x with
(p * q)[i] = p[q[i]] from the identity), read and trained on through --relabel word-problem."""

import itertools
import json

import numpy as np
import pytest

from bilinear.automata import from_spec
from bilinear.automata.numbering import file_automaton, load_numbering, to_automaton, word_problem_numbering
from bilinear.automata.wordfile import read_words
from bilinear.cli import main
from bilinear.errors import DataError


def _published_file(path, n, k, rows, alternating=False, seed=0):
    """``rows`` words of length ``k`` numbered as the word-problem data numbers S_n / A_n."""
    elements = [p for p in itertools.permutations(range(n))
                if not alternating or sum(p[i] > p[j] for i in range(n) for j in range(i + 1, n)) % 2 == 0]
    index = {p: i for i, p in enumerate(elements)}
    rng = np.random.default_rng(seed)
    lines = ["seed,input,target"]
    for _ in range(rows):
        word = rng.integers(0, len(elements), size=k).tolist()
        acc, targets = 0, []
        for x in word:
            p, q = elements[acc], elements[x]
            acc = index[tuple(p[q[i]] for i in range(n))]
            targets.append(acc)
        lines.append(f"{seed},{' '.join(map(str, word))},{' '.join(map(str, targets))}")
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("spec,n,alt", [("symmetric:3,alphabet=all", 3, False), ("alternating:4,alphabet=all", 4, True)])
def test_word_problem_file_reads_onto_the_automaton(tmp_path, spec, n, alt):
    a = from_spec(spec)
    path = _published_file(tmp_path / "G=8.csv", n, 8, 30, alternating=alt)
    with pytest.raises(DataError, match="numbers the classes differently|not a symbol"):
        read_words(path, a)  # the file's own numbering is not ours
    numbering = word_problem_numbering(a)
    ds = to_automaton(read_words(path, file_automaton(a, numbering)), numbering)
    for b in range(len(ds)):  # independent: run our automaton on the mapped word
        word = ds.words[b, : ds.lengths[b]].tolist()
        assert [a.run(word[: t + 1]) for t in range(len(word))] == [int(a.labels[q]) for q in
                                                                     _states(a, word)]
        assert ds.labels[b, : ds.lengths[b]].tolist() == [int(a.labels[q]) for q in _states(a, word)]


def _states(a, word):
    q, out = a.start, []
    for x in word:
        q = int(a.delta[x, q])
        out.append(q)
    return out


def test_a_numbering_without_the_inversion_is_refused(tmp_path):
    """The published product is ours read backwards: numbering the elements without the inverse
    reads a wrong task, and the file check says so (never a silently wrong label)."""
    a = from_spec("symmetric:3,alphabet=all")
    path = _published_file(tmp_path / "S3=8.csv", 3, 8, 30)
    names = [_name(p) for p in itertools.permutations(range(3))]  # no inverse
    mapping = tmp_path / "plain.json"
    mapping.write_text(json.dumps({"symbols": names, "classes": names}))
    numbering = load_numbering(str(mapping), a)
    with pytest.raises(DataError, match="numbers the classes differently"):
        read_words(path, file_automaton(a, numbering))


def _name(p):
    from bilinear.automata.numbering import _cycles

    return _cycles(p)


def test_train_on_a_deltaproduct_file(tmp_path, capsys):
    path = _published_file(tmp_path / "S3=8.csv", 3, 8, 64)
    rc = main(["train", "symmetric:3", "full", "--data", str(path), "--relabel", "word-problem", "--steps", "3",
               "--test-len", "12", "--test-words", "4", "--val-len", "9", "12", "--quiet", "--json"])
    assert rc == 0
    result = json.loads(capsys.readouterr().out)
    assert result["spec"] == "symmetric:3,alphabet=all" and result["steps"] == 3
    assert result["data"] == str(path) and result["n_classes"] == 6


def test_training_lengths_default_to_the_file(tmp_path):
    from bilinear.cli import build_parser
    from bilinear.learned.cli import config_from_args

    path = _published_file(tmp_path / "S3=16.csv", 3, 16, 5)
    args = build_parser().parse_args(["train", "symmetric:3", "full", "--data", str(path), "--relabel", "word-problem"])
    config = config_from_args(args)
    assert (config.train_min_len, config.train_max_len) == (16, 16)
    args = build_parser().parse_args(["train", "symmetric:3", "full", "--data", str(path), "--relabel", "word-problem",
                                      "--train-len", "2", "20"])
    assert (config_from_args(args).train_min_len, config_from_args(args).train_max_len) == (2, 20)


def test_relabel_needs_a_file_and_a_group(tmp_path, capsys):
    assert main(["train", "parity", "full", "--relabel", "word-problem", "--steps", "1"]) == 2
    assert "needs data" in capsys.readouterr().err
    path = _published_file(tmp_path / "S3=4.csv", 3, 4, 3)
    assert main(["train", "cyclic:3", "full", "--data", str(path), "--relabel", "word-problem", "--steps", "1"]) == 2
    assert "symmetric:N and alternating:N only" in capsys.readouterr().err
