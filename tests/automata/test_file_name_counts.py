"""The lengths of an automaton file's name lists before its names (probe 2, defect 2): 10^7 symbol
names for one table row were checked one by one (22 s, 1.4 GB) and only then refused for their
count, and 3,000,000 class names for 2 states were accepted (``describe`` 13 s, ``verify`` open).
The counts are decided from the lists' lengths, before any name is checked, and a file gives at
most max(states, MAX_UNNAMED_CLASSES) class names."""

from __future__ import annotations

import json

import pytest

from bilinear.automata import Automaton, read_automaton, write_automaton
from bilinear.automata import automaton as automaton_module
from bilinear.automata.automaton import MAX_UNNAMED_CLASSES
from bilinear.automata.fileformat import decode
from bilinear.cli import main
from bilinear.errors import AutomatonError


def _file(**keys) -> dict:
    return {"format": "bilinear.automaton", "version": 1, "states": 1, "symbols": ["a"], "delta": [[0]], **keys}


@pytest.fixture
def names_unchecked(monkeypatch):
    """Fail the test if any name is checked: the count must be refused first."""
    def checked(*args, **kwargs):
        pytest.fail("a name was checked before the count")

    monkeypatch.setattr(Automaton, "_check_names", staticmethod(checked))
    monkeypatch.setattr(automaton_module, "_check_printable", checked)


def test_a_million_symbol_names_for_one_row_are_refused_by_their_count(names_unchecked):
    symbols = [f"s{i}" for i in range(1_000_000)]
    with pytest.raises(AutomatonError, match=r"^big.json: 1000000 symbol names given for 1 table rows$"):
        decode(_file(symbols=symbols), source="big.json")
    with pytest.raises(AutomatonError, match=r"^1000000 symbol names given for 1 table rows$"):
        Automaton([[0]], symbols=symbols)  # the API compares the count first too


def test_three_million_class_names_are_refused_naming_the_limit(names_unchecked):
    data = _file(states=2, delta=[[1, 0]], classes=[f"c{i}" for i in range(3_000_000)])
    with pytest.raises(AutomatonError) as refused:
        decode(data, source="classes.json")
    assert str(refused.value) == ("classes.json: 3,000,000 class names for 2 states are over the limit of "
                                  "max(states, 65,536) = 65,536 (bilinear.automata.automaton.MAX_UNNAMED_CLASSES)")


def test_labels_of_the_wrong_length_and_too_few_class_names_are_refused_by_their_count(names_unchecked):
    with pytest.raises(AutomatonError, match=r"^f.json: labels has length 3, expected one per state \(1\)$"):
        decode(_file(labels=[0, 0, 0]), source="f.json")
    with pytest.raises(AutomatonError, match="labels use class 1 but only 1 class names given"):
        decode(_file(states=2, delta=[[1, 0]], labels=[0, 1], classes=["x"]), source="f.json")


def test_class_names_up_to_the_limit_are_read_and_written(tmp_path):
    """A class no state has is allowed (it keeps the later classes' indices), up to the limit."""
    classes = [f"c{i}" for i in range(MAX_UNNAMED_CLASSES)]
    a = decode(_file(states=2, delta=[[1, 0]], classes=classes))
    assert a.n_classes == MAX_UNNAMED_CLASSES
    assert read_automaton(write_automaton(a, tmp_path / "a.json")) == a


def test_an_automaton_with_more_class_names_than_a_file_holds_is_not_written(tmp_path):
    a = Automaton([[0]], classes=[f"c{i}" for i in range(MAX_UNNAMED_CLASSES + 1)])  # the API takes it
    path = tmp_path / "a.json"
    with pytest.raises(AutomatonError, match=f"{MAX_UNNAMED_CLASSES + 1:,} class names for 1 states are over"):
        write_automaton(a, path)
    assert not path.exists()


def test_a_file_of_many_symbol_names_is_one_line_and_exit_2(tmp_path, capsys):
    path = tmp_path / "many.json"
    path.write_text(json.dumps(_file(symbols=[f"s{i}" for i in range(100_000)])))
    assert main(["describe", str(path)]) == 2
    err = capsys.readouterr().err
    assert err == f"bilinear: error: {path}: 100000 symbol names given for 1 table rows\n"


def test_names_are_still_checked_one_by_one():
    with pytest.raises(AutomatonError, match=r"symbol name at position 1 'a\\nb' holds the character '\\n'"):
        Automaton([[0], [0]], symbols=["ok", "a\nb"])
    with pytest.raises(AutomatonError, match="class name at position 0 must be a non-empty string"):
        Automaton([[0]], classes=[""])
    with pytest.raises(AutomatonError, match="duplicate symbol name 'x'"):
        Automaton([[0], [0]], symbols=["x", "x"])
