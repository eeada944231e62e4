"""Seeded datasets of words and their labels.

:func:`sample_words` draws ``n`` words with lengths uniform in ``[min_len, max_len]`` and symbols
uniform over the alphabet, from ``np.random.default_rng(seed)``: the same arguments always give
the same data.  Words are right-padded with symbol 0 to ``max_len``; ``mask`` tells real
positions from padding.

With ``every=True`` (the training protocol of the paper) ``labels[b, t]`` is the class of the
prefix ``words[b, :t+1]`` (-1 at padding); with ``every=False`` ``labels[b]`` is the class of
the whole word.

>>> from bilinear.automata import from_spec
>>> ds = sample_words(from_spec("parity"), n=3, min_len=2, max_len=4, seed=0)
>>> ds.words.shape, ds.labels.shape, ds.mask.shape
((3, 4), (3, 4), (3, 4))
>>> bool(((ds.labels == -1) == ~ds.mask).all())
True
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from bilinear.errors import DataError

from .automaton import Automaton

__all__ = ["Dataset", "sample_words", "labels_for", "check_positions", "MAX_POSITIONS", "PEAK_BYTES_PER_POSITION"]

#: Most padded positions (words x longest word) :func:`sample_words` draws by default: the limit of
#: ``bilinear data --count`` and of a words file read back (``wordfile.MAX_POSITIONS`` is this one).
MAX_POSITIONS = 200_000_000
#: Bytes a padded position takes at the peak of :func:`sample_words` (the drawn symbols, the
#: mask, the run's states, the labels and the dataset's own copies: 41 measured with tracemalloc).
PEAK_BYTES_PER_POSITION = 42


def _owned(array: np.ndarray) -> np.ndarray:
    """A contiguous, writable copy that no other dataset shares: torch takes it without the
    warning a read-only array raises (``torch.as_tensor``), and writing to it changes nothing else."""
    return np.array(array, copy=True, order="C")


@dataclass(frozen=True, eq=False)
class Dataset:
    """Words of one automaton with their labels.

    Each dataset owns its arrays (writable copies, shared with no other dataset, so
    ``torch.as_tensor(ds.words)`` takes them without a warning).

    Attributes
    ----------
    words:
        ``(batch, time)`` int64 symbol indices, right-padded with 0 to ``time = max_len``.
    lengths:
        ``(batch,)`` int64 true lengths.
    labels:
        ``(batch, time)`` int64 class of the prefix ending at each position, -1 at padding
        (``every=True``); or ``(batch,)`` class of the whole word (``every=False``).
    mask:
        ``(batch, time)`` bool, True at real (non-padding) positions.
    every:
        Whether labels are given at every position.
    n_classes:
        Number of classes of the automaton (for one-hot targets and chance level).
    """

    words: np.ndarray
    lengths: np.ndarray
    labels: np.ndarray
    mask: np.ndarray
    every: bool = True
    n_classes: int = 0

    def __len__(self) -> int:
        return int(self.words.shape[0])

    @property
    def max_len(self) -> int:
        """Length of the time axis (the padded length)."""
        return int(self.words.shape[1])

    @property
    def n_tokens(self) -> int:
        """Number of real (non-padding) positions."""
        return int(self.lengths.sum())

    def to_torch(self, device=None) -> dict:
        """The arrays as torch tensors (copies: the dataset keeps its own):
        ``{"words", "lengths", "labels": int64, "mask": bool}`` on ``device``.

        >>> from bilinear.automata import from_spec
        >>> t = sample_words(from_spec("parity"), 4, 1, 3, seed=0).to_torch()
        >>> tuple(t["words"].shape), t["mask"].dtype
        ((4, 3), torch.bool)
        """
        import torch

        return {
            name: torch.tensor(np.array(getattr(self, name)), device=device)
            for name in ("words", "lengths", "labels", "mask")
        }

    def subset(self, index) -> "Dataset":
        """The rows ``index`` (a slice, index array or boolean mask over the batch axis).

        >>> from bilinear.automata import from_spec
        >>> ds = sample_words(from_spec("cyclic:3"), 10, 1, 5, seed=1)
        >>> len(ds.subset(slice(0, 4)))
        4
        """
        return Dataset(
            words=_owned(self.words[index]),
            lengths=_owned(self.lengths[index]),
            labels=_owned(self.labels[index]),
            mask=_owned(self.mask[index]),
            every=self.every,
            n_classes=self.n_classes,
        )


def _check_int(value, what: str, minimum: int) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise DataError(f"{what} must be an integer, got {value!r}")
    if int(value) < minimum:
        raise DataError(f"{what} must be >= {minimum}, got {int(value)}")
    return int(value)


def check_positions(n: int, max_len: int, limit: int | None = None, what: str = "") -> None:
    """DataError, with the estimate, when ``n`` words padded to ``max_len`` pass ``limit``
    positions (None: :data:`MAX_POSITIONS`): numpy's MemoryError came only after the allocation
    was tried, and a request of a few GB was simply allocated.  ``what`` opens the message (the
    option that asked, ``"--count "``): ``bilinear data`` checks this before it builds the
    automaton, :func:`sample_words` before it draws."""
    limit = MAX_POSITIONS if limit is None else _check_int(limit, "max_positions", 0)
    positions = n * max_len
    if positions > limit:
        name = " (bilinear.automata.data.MAX_POSITIONS)" if limit == MAX_POSITIONS else ""
        raise DataError(f"{what}{n:,} words of up to {max_len:,} symbols are {positions:,} positions (about "
                        f"{positions * PEAK_BYTES_PER_POSITION / 1e9:.3g} GB at the peak), over the limit of "
                        f"{limit:,}{name}")


def labels_for(automaton: Automaton, words, lengths, every: bool = True) -> np.ndarray:
    """Labels of padded words: ``(batch, time)`` per prefix (-1 at padding) or ``(batch,)``.

    ``words`` is ``(batch, time)`` of symbol indices, ``lengths`` ``(batch,)``; positions at or
    past a word's length are ignored.

    >>> from bilinear.automata import from_spec
    >>> labels_for(from_spec("parity"), [[1, 1, 0], [1, 0, 0]], [3, 1]).tolist()
    [[1, 0, 0], [1, -1, -1]]
    >>> labels_for(from_spec("parity"), [[1, 1, 0], [1, 0, 0]], [3, 1], every=False).tolist()
    [0, 1]
    """
    words = np.asarray(words)
    lengths = np.asarray(lengths, dtype=np.int64)
    if words.ndim != 2 or lengths.shape != (words.shape[0],):
        raise DataError(
            f"words must be (batch, time) and lengths (batch,), got {words.shape} and {lengths.shape}"
        )
    batch, time = words.shape
    if ((lengths < 0) | (lengths > time)).any():
        b = int(np.argmax((lengths < 0) | (lengths > time)))
        raise DataError(f"length {int(lengths[b])} of word {b} is outside 0..{time}")
    states = automaton.run_batch(words, trace=True)  # (batch, time)
    mask = np.arange(time)[None, :] < lengths[:, None]  # (batch, time)
    per_position = np.where(mask, automaton.labels[states], -1)
    if every:
        return per_position
    final = np.full(batch, automaton.labels[automaton.start], dtype=np.int64)
    nonempty = lengths > 0
    final[nonempty] = per_position[nonempty, lengths[nonempty] - 1]
    return final


def sample_words(
    automaton: Automaton,
    n: int,
    min_len: int,
    max_len: int,
    seed: int | np.random.Generator = 0,
    every: bool = True,
    *,
    max_positions: int | None = None,
) -> Dataset:
    """Sample ``n`` labelled words (see the module docstring for the layout).

    Parameters
    ----------
    automaton:
        The automaton whose labels are the targets.
    n:
        Number of words (batch size), ``>= 0``.
    min_len, max_len:
        Lengths are uniform in ``[min_len, max_len]`` (``0 <= min_len <= max_len``).
    seed:
        An integer seed or a ``np.random.Generator`` (then consumed).
    every:
        Label every prefix (``(batch, time)``) or only the whole word (``(batch,)``).
    max_positions:
        Most padded positions ``n * max_len`` (default :data:`MAX_POSITIONS`, the limit of
        ``bilinear data``), checked before anything is drawn: a DataError with the estimate past
        it.  A caller that bounds its memory itself passes its own.

    >>> from bilinear.automata import from_spec
    >>> a = from_spec("cyclic:5")
    >>> ds = sample_words(a, n=2, min_len=3, max_len=3, seed=4, every=False)
    >>> [a.label(w) for w in ds.words] == ds.labels.tolist()
    True
    """
    if not isinstance(automaton, Automaton):
        raise DataError(f"sample_words needs an Automaton, got {type(automaton).__name__}")
    n = _check_int(n, "number of words n", 0)
    min_len = _check_int(min_len, "min_len", 0)
    max_len = _check_int(max_len, "max_len", 0)
    if min_len > max_len:
        raise DataError(f"min_len {min_len} is greater than max_len {max_len}")
    check_positions(n, max_len, max_positions)
    if isinstance(seed, np.random.Generator):
        rng = seed
    else:
        rng = np.random.default_rng(_check_int(seed, "seed", 0))
    lengths = rng.integers(min_len, max_len + 1, size=n, dtype=np.int64)  # (batch,)
    words = rng.integers(0, automaton.n_symbols, size=(n, max_len), dtype=np.int64)  # (batch, time)
    mask = np.arange(max_len)[None, :] < lengths[:, None]  # (batch, time)
    words = np.where(mask, words, 0)
    labels = labels_for(automaton, words, lengths, every=every)
    return Dataset(
        words=_owned(words),
        lengths=_owned(lengths),
        labels=_owned(labels.astype(np.int64)),
        mask=_owned(mask),
        every=bool(every),
        n_classes=automaton.n_classes,
    )
