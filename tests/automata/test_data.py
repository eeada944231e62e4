"""Tests of bilinear.automata.data: the Dataset contract and determinism."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bilinear.automata import from_spec
from bilinear.automata.data import Dataset, labels_for, sample_words
from bilinear.errors import BilinearError, DataError

SPECS = ["parity", "cyclic:5", "dihedral:4", "flipflop:3", "modarith:4"]


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("every", [True, False])
def test_layout_and_labels_match_the_automaton(spec: str, every: bool) -> None:
    a = from_spec(spec)
    ds = sample_words(a, n=40, min_len=0, max_len=9, seed=3, every=every)
    assert isinstance(ds, Dataset) and len(ds) == 40 and ds.max_len == 9
    assert ds.words.dtype == np.int64 and ds.labels.dtype == np.int64
    assert ds.mask.dtype == bool
    assert ds.words.shape == ds.mask.shape == (40, 9)
    assert ds.labels.shape == ((40, 9) if every else (40,))
    assert ((ds.lengths >= 0) & (ds.lengths <= 9)).all()
    assert (ds.mask.sum(axis=1) == ds.lengths).all()
    assert (ds.words[~ds.mask] == 0).all()
    assert ds.n_classes == a.n_classes
    for b in range(len(ds)):
        word = ds.words[b, : ds.lengths[b]].tolist()
        if every:
            expected = [a.label(word[: t + 1]) for t in range(len(word))]
            assert ds.labels[b, : len(word)].tolist() == expected
            assert (ds.labels[b, len(word):] == -1).all()
        else:
            assert ds.labels[b] == a.label(word)


def test_same_seed_same_data_and_different_seed_differs() -> None:
    a = from_spec("dihedral:5")
    one = sample_words(a, 50, 2, 10, seed=11)
    two = sample_words(a, 50, 2, 10, seed=11)
    three = sample_words(a, 50, 2, 10, seed=12)
    for field in ("words", "lengths", "labels", "mask"):
        assert np.array_equal(getattr(one, field), getattr(two, field))
    assert not np.array_equal(one.words, three.words)


def test_generator_seed_is_accepted_and_the_fields_are_frozen() -> None:
    ds = sample_words(from_spec("parity"), 5, 1, 3, seed=np.random.default_rng(0))
    assert len(ds) == 5
    with pytest.raises(AttributeError):
        ds.every = False  # type: ignore[misc]


def test_lengths_cover_the_range_and_symbols_are_uniform() -> None:
    a = from_spec("cyclic:4")
    ds = sample_words(a, 4000, 2, 6, seed=0)
    assert set(np.unique(ds.lengths).tolist()) == {2, 3, 4, 5, 6}
    counts = np.bincount(ds.words[ds.mask], minlength=4) / ds.n_tokens
    assert np.allclose(counts, 0.25, atol=0.02)


def test_fixed_length_has_no_padding() -> None:
    ds = sample_words(from_spec("parity"), 7, 5, 5, seed=1)
    assert ds.mask.all() and (ds.labels >= 0).all()


def test_empty_words_take_the_start_label() -> None:
    a = from_spec("cyclic:3")
    ds = sample_words(a, 4, 0, 0, seed=0, every=False)
    assert ds.words.shape == (4, 0)
    assert ds.labels.tolist() == [a.labels[a.start]] * 4


def test_subset_keeps_rows() -> None:
    ds = sample_words(from_spec("quaternion"), 20, 1, 6, seed=2)
    sub = ds.subset(np.arange(5, 9))
    assert np.array_equal(sub.words, ds.words[5:9]) and np.array_equal(sub.labels, ds.labels[5:9])


@given(n=st.integers(0, 30), lo=st.integers(0, 6), extra=st.integers(0, 6), seed=st.integers(0, 2**32))
def test_final_labels_are_the_last_prefix_labels(n: int, lo: int, extra: int, seed: int) -> None:
    a = from_spec("dihedral:3")
    every = sample_words(a, n, lo, lo + extra, seed=seed, every=True)
    final = sample_words(a, n, lo, lo + extra, seed=seed, every=False)
    assert np.array_equal(every.words, final.words)
    for b in range(n):
        length = int(every.lengths[b])
        want = every.labels[b, length - 1] if length else a.labels[a.start]
        assert final.labels[b] == want


@pytest.mark.parametrize(
    "kwargs, fragment",
    [
        (dict(n=-1, min_len=1, max_len=2), "number of words n"),
        (dict(n=2.5, min_len=1, max_len=2), "number of words n"),
        (dict(n=3, min_len=4, max_len=2), "min_len 4 is greater than max_len 2"),
        (dict(n=3, min_len=-1, max_len=2), "min_len"),
        (dict(n=3, min_len=1, max_len=2, seed=-5), "seed"),
        (dict(n=3, min_len=1, max_len=2, seed="x"), "seed"),
    ],
)
def test_bad_parameters_raise_data_error(kwargs: dict, fragment: str) -> None:
    with pytest.raises(DataError, match=fragment):
        sample_words(from_spec("parity"), **kwargs)


def test_not_an_automaton_and_bad_lengths() -> None:
    with pytest.raises(BilinearError, match="Automaton"):
        sample_words("parity", 3, 1, 2)  # type: ignore[arg-type]
    with pytest.raises(DataError, match="length 4 of word 0"):
        labels_for(from_spec("parity"), [[0, 1]], [4])


def test_to_torch_copies_every_array() -> None:
    import torch

    ds = sample_words(from_spec("cyclic:3"), 6, 1, 4, seed=5)
    t = ds.to_torch()
    for name in ("words", "lengths", "labels", "mask"):
        assert np.array_equal(t[name].numpy(), getattr(ds, name))
    assert t["words"].dtype == torch.int64 and t["mask"].dtype == torch.bool
    before = ds.words.copy()
    t["words"].add_(1)  # a copy: the dataset is untouched
    assert np.array_equal(ds.words, before)


def test_sampled_arrays_are_owned_and_taken_by_torch_without_a_warning() -> None:
    import warnings

    import torch

    ds = sample_words(from_spec("cyclic:3"), 5, 1, 4, seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for name in ("words", "lengths", "labels", "mask"):
            torch.as_tensor(getattr(ds, name))
    part = ds.subset(slice(0, 2))  # a subset is a copy: writing to it leaves the parent alone
    before = int(ds.words[0, 0])
    part.words[0, 0] = (before + 1) % 3
    assert int(ds.words[0, 0]) == before
