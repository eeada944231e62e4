"""Tests of bilinear.automata.automaton: validation (each bad input a specific error) and runs."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bilinear.automata import Automaton, from_spec
from bilinear.automata.strategies import automata
from bilinear.errors import AutomatonError, BilinearError, UnknownSymbolError


@pytest.mark.parametrize(
    "kwargs, error, fragment",
    [
        (dict(delta=[[0, 3]]), AutomatonError, "delta[0, 1] = 3 is out of range 0..1"),
        (dict(delta=[[0, -1]]), AutomatonError, "delta[0, 1] = -1 is out of range"),
        (dict(delta=[[0, 1.5]]), AutomatonError, "[0, 1] = 1.5 is not an integer"),
        (dict(delta=[[0, "a"]]), AutomatonError, "[0, 1] = 'a' is not an integer"),
        (dict(delta=[[0, True]]), AutomatonError, "is not an integer"),
        (dict(delta=[[0, None]]), AutomatonError, "is not an integer"),
        (dict(delta=[[0, 1], [1]]), AutomatonError, "ragged"),
        (dict(delta=[[0, 1], [1, 0, 1]]), AutomatonError, "ragged"),
        (dict(delta=[[]]), AutomatonError, "at least one state"),
        (dict(delta=[0, 1]), AutomatonError, "2 dimension(s)"),
        (dict(delta=[[0, 1]], start=2), AutomatonError, "start state 2 is out of range 0..1"),
        (dict(delta=[[0, 1]], start=-1), AutomatonError, "start state -1 is out of range"),
        (dict(delta=[[0, 1]], start=0.5), AutomatonError, "start state 0.5 is not an integer"),
        (dict(delta=[[0, 1]], start=float("nan")), AutomatonError, "start state nan is not an integer"),
        (dict(delta=[[0, 1]], start=True), AutomatonError, "start state True is not an integer"),
        (dict(delta=[[0, 1]], start=2.0), AutomatonError, "start state 2 is out of range 0..1"),
        (dict(delta=[[0, 1]], start=1e300), AutomatonError, "start state 1e+300 is not an integer"),
        (dict(delta=[[0, 1]], labels=[0]), AutomatonError, "labels has length 1, expected one per state (2)"),
        (dict(delta=[[0, 1]], labels=[0, 1, 1]), AutomatonError, "labels has length 3"),
        (dict(delta=[[0, 1]], labels=[0, -1]), AutomatonError, "label of state 1 is negative"),
        (dict(delta=[[0, 1], [1, 0]], symbols=["a", "a"]), AutomatonError, "duplicate symbol name 'a' (positions 0 and 1)"),
        (dict(delta=[[0, 1]], symbols=["a", "b"]), AutomatonError, "2 symbol names given for 1 table rows"),
        (dict(delta=[[0, 1]], symbols=[""]), AutomatonError, "non-empty string"),
        (dict(delta=[[0, 1]], symbols="ab"), AutomatonError, "not one string"),
        (dict(delta=[[0, 1]], classes=["x", "x"]), AutomatonError, "duplicate class name 'x'"),
        (dict(delta=[[0, 1]], labels=[0, 2], classes=["x", "y"]), AutomatonError, "only 2 class names"),
    ],
)
def test_bad_definitions_raise_specific_errors(kwargs, error, fragment) -> None:
    with pytest.raises(error) as info:
        Automaton(**kwargs)
    assert fragment in str(info.value)
    assert isinstance(info.value, BilinearError) and isinstance(info.value, ValueError)


@pytest.mark.parametrize(
    "spec, word, fragment",
    [
        ("dihedral:3", "rxs", "unknown symbol 'x' at position 1"),
        ("dihedral:3", ["r", "s", "t"], "unknown symbol 't' at position 2"),
        ("cyclic:3", [0, 5], "unknown symbol index 5 at position 1"),
        ("cyclic:3", [0, 1, -1], "unknown symbol index -1 at position 2"),
        ("modarith:3", "+1 *9", "unknown symbol '*9' at position 1"),
        ("modarith:3", "+1*2", "cannot split word"),
        ("parity", [0, 1.5], "at position 1"),
    ],
)
def test_unknown_symbols_are_named_with_their_position(spec, word, fragment) -> None:
    a = from_spec(spec)
    with pytest.raises(UnknownSymbolError) as info:
        a.run(word)
    assert fragment in str(info.value)
    assert isinstance(info.value, KeyError) and isinstance(info.value, AutomatonError)


def test_batch_errors() -> None:
    a = from_spec("parity")
    with pytest.raises(UnknownSymbolError, match="unknown symbol index 2 in word 1 at position 0"):
        a.run_batch([[0, 1], [2, 0]])
    with pytest.raises(AutomatonError, match="shape \\(batch, time\\)"):
        a.run_batch([0, 1])
    with pytest.raises(AutomatonError, match="symbol indices"):
        a.run_batch(np.array([[0.0, 1.0]]))


def test_frozen_and_read_only() -> None:
    a = from_spec("parity")
    with pytest.raises(AttributeError):
        a.start = 1  # type: ignore[misc]
    with pytest.raises(ValueError):
        a.delta[0, 0] = 1
    with pytest.raises(ValueError):
        a.labels[0] = 1


def test_words_by_name_index_or_string() -> None:
    a = from_spec("dihedral:4")
    assert a.run("rrs") == a.run(["r", "r", "s"]) == a.run([0, 0, 1]) == a.run(np.array([0, 0, 1]))
    assert a.classes[a.label("rrs")] == "r^2 s"
    assert a.trace("").tolist() == [a.start]
    assert a.format_word([0, 1]) == "rs" and a.format_word([]) == "ε"
    m = from_spec("modarith:5")
    assert m.label("+3 *2") == (0 + 3) * 2 % 5


@given(automata(max_states=6, max_symbols=3), st.data())
def test_batch_runner_agrees_with_the_single_runner(a: Automaton, data) -> None:
    length = data.draw(st.integers(0, 12))
    batch = data.draw(st.lists(st.lists(st.integers(0, a.n_symbols - 1), min_size=length, max_size=length), min_size=1, max_size=6))
    words = np.array(batch, dtype=np.int64).reshape(len(batch), length)
    final = a.run_batch(words)
    assert final.tolist() == [a.run(w) for w in batch]
    if length:
        traces = a.run_batch(words, trace=True)
        assert traces.tolist() == [a.trace(w)[1:].tolist() for w in batch]
        assert a.labels_batch(words, trace=True).tolist() == a.labels[traces].tolist()


def test_equality_and_hash() -> None:
    assert from_spec("cyclic:3") == from_spec("cyclic:3")
    assert hash(from_spec("cyclic:3")) == hash(from_spec("cyclic:3"))
    assert from_spec("cyclic:3") != from_spec("cyclic:4")


def test_hostile_tables_and_labels_are_typed_errors() -> None:
    """Huge entries overflowed int64 (OverflowError); a huge label made 10**8 class names."""
    import time

    with pytest.raises(AutomatonError, match=r"transition table\[0, 1\] = 10{30} is out of range"):
        Automaton([[0, 10**30]])
    with pytest.raises(AutomatonError, match=r"out of range"):
        Automaton(np.array([[0, 2**63]], dtype=np.uint64))
    start = time.process_time()
    with pytest.raises(AutomatonError, match=r"label of state 1 is 100000000.*below max\(states, 65,536\)"):
        Automaton([[0, 1]], labels=[0, 10**8])
    assert time.process_time() - start < 1.0
    named = Automaton([[0, 1]], labels=[0, 2], classes=["a", "b", "c"])  # named classes still fine
    assert named.n_classes == 3


def test_ragged_batch_is_a_typed_error() -> None:
    with pytest.raises(AutomatonError, match="different lengths"):
        Automaton([[0, 1]]).run_batch([[0, 0], [0]])


def test_integral_floats_are_states_in_start_as_in_delta() -> None:
    """``start: 1.0`` in a file is state 1, as ``1.0`` in ``delta`` is (it was refused)."""
    a = Automaton(delta=[[1.0, 0.0]], start=1.0, labels=[0.0, 1.0])
    assert a.start == 1 and type(a.start) is int and a.delta.tolist() == [[1, 0]] and a.run([0]) == 0
