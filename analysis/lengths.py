"""Accuracy by length: how far beyond its training lengths a network stays right.

:func:`accuracy_by_length` runs ``words`` random words (seeded) of length ``max_length`` through
the renormalised float run (:func:`bilinear.constructions.floatrun.float_steps`) and returns the
network's *normalised* accuracy at every prefix length 1..``max_length``: ``(acc - 1/C) / (1 -
1/C)`` for C classes, so 0 is chance and 1 is perfect.  A value below 0 means the network does
*worse* than guessing uniformly at that length: it predicts a consistent wrong class, as a
rotation whose phase has drifted by a whole step does.

>>> from bilinear.analysis.examples import cyclic_rotation2d
>>> from bilinear.automata import from_spec
>>> curve = accuracy_by_length(cyclic_rotation2d(5, angle_error=0.05), from_spec("cyclic:5"), max_length=300, words=50)
>>> curve.accuracy[0], min(curve.accuracy) < 0, curve.first_failure     # worse than chance at times
(1.0, True, 5)

A few sample lengths can miss a failure that comes and goes (a network right at even lengths and
wrong at odd ones reads 1.00 at 10, 100 and 1000): :meth:`LengthCurve.ranges` gives the *worst*
length of every range between the reading lengths, so every length of the curve is covered.

>>> [(r.start, r.stop, r.worst_length) for r in curve.ranges()][:3]
[(1, 1, 1), (2, 10, 10), (11, 100, 12)]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bilinear.constructions.floatrun import check_compatible, float_steps
from bilinear.constructions.weights import Weights
from bilinear.errors import AnalysisError
from bilinear.metrics import normalized_accuracy

from .matrices import check_positive_int

__all__ = ["LengthCurve", "LengthRange", "accuracy_by_length", "MAX_CURVE_CELLS", "READING_LENGTHS"]

#: The lengths the one-line reading of a curve names; :meth:`LengthCurve.ranges` splits the curve
#: at them and reports the worst length of each range, so no length between them is skipped.
READING_LENGTHS = (1, 10, 100, 500, 1000, 2000)


@dataclass(frozen=True)
class LengthRange:
    """Lengths ``start..stop`` (inclusive) of a curve: the worst normalised accuracy among them
    (``worst``, first reached at ``worst_length``) and the accuracy at ``stop``."""

    start: int
    stop: int
    worst: float
    worst_length: int
    at_stop: float

    def text(self) -> str:
        """``2-10: 1.00`` when the range is as good at every length as its worst reading says,
        else ``11-100: worst -1.00 (at 11; 1.00 at 100)``."""
        span = str(self.start) if self.start == self.stop else f"{self.start}-{self.stop}"
        if self.worst_length == self.stop or self.worst >= self.at_stop:
            return f"{span}: {self.worst:.2f}"
        return f"{span}: worst {self.worst:.2f} (at {self.worst_length}; {self.at_stop:.2f} at {self.stop})"

    def to_json(self) -> dict:
        return {"from": self.start, "to": self.stop, "worst": round(self.worst, 6),
                "worst_length": self.worst_length, "at_end": round(self.at_stop, 6)}

#: Largest ``words * max_length * hidden`` a curve may simulate (about 4 s of numpy on one core).
MAX_CURVE_CELLS = 200_000_000


@dataclass(frozen=True)
class LengthCurve:
    """Normalised accuracy at every prefix length 1..``max_length`` (``accuracy[t - 1]``), the
    sampling parameters, the shortest length with an error (None: none seen), and the training
    range ``(shortest, longest)`` when known."""

    accuracy: tuple[float, ...]
    words: int
    seed: int
    n_classes: int
    first_failure: int | None
    train_range: tuple[int, int] | None = None

    @property
    def max_length(self) -> int:
        return len(self.accuracy)

    def at(self, length: int) -> float:
        """The normalised accuracy at prefix length ``length`` (1-based)."""
        return self.accuracy[length - 1]

    def ranges(self, marks=READING_LENGTHS) -> list[LengthRange]:
        """The curve cut at ``marks`` (and its last length): one :class:`LengthRange` per piece
        ``(previous mark, mark]``, each with its worst length, covering every length 1..max."""
        ends = sorted({t for t in (*marks, self.max_length) if 1 <= t <= self.max_length})
        acc = np.asarray(self.accuracy, dtype=float)
        out, start = [], 1
        for stop in ends:
            piece = acc[start - 1 : stop]
            i = int(np.argmin(piece))
            out.append(LengthRange(start, stop, float(piece[i]), start + i, float(acc[stop - 1])))
            start = stop + 1
        return out

    @property
    def worst(self) -> tuple[float, int]:
        """``(worst normalised accuracy, the first length where it occurs)`` over the whole curve."""
        acc = np.asarray(self.accuracy, dtype=float)
        i = int(np.argmin(acc))
        return float(acc[i]), i + 1

    def to_json(self) -> dict:
        worst, at = self.worst
        return {
            "max_length": self.max_length,
            "worst": round(worst, 6),
            "worst_length": at,
            "ranges": [r.to_json() for r in self.ranges()],
            "words": self.words,
            "seed": self.seed,
            "classes": self.n_classes,
            "first_failure_length": self.first_failure,
            "train_range": None if self.train_range is None else list(self.train_range),
            "accuracy": [round(x, 6) for x in self.accuracy],
        }


def _weights_correct(weights, seq: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """(words, time) bool: the float run's argmax is the automaton's label."""
    A, h0, R = weights.float_arrays()
    correct = np.empty(seq.shape, dtype=bool)
    for t, H in enumerate(float_steps(A, h0, seq)):
        correct[:, t] = np.argmax(H @ R.T, axis=1) == truth[:, t]
    return correct


def _tracker_correct(tracker, seq: np.ndarray, truth: np.ndarray, chunk: int = 16) -> np.ndarray:
    """(words, time) bool for a model without transition matrices (a tracker, see
    :mod:`bilinear.analysis.tracker`), run ``chunk`` words at a time to bound its memory."""
    correct = np.empty(seq.shape, dtype=bool)
    for i in range(0, seq.shape[0], chunk):
        logits = np.asarray(tracker.run(seq[i : i + chunk]).logits)
        correct[i : i + chunk] = np.argmax(logits, axis=-1) == truth[i : i + chunk]
    return correct


def accuracy_by_length(weights, automaton, max_length: int = 2000, words: int = 200, seed: int = 0,
                       train_range: tuple[int, int] | None = None) -> LengthCurve:
    """The :class:`LengthCurve` of ``weights`` on ``automaton`` (module docstring); ``weights``
    may also be a tracker (:func:`bilinear.analysis.tracker.as_tracker`: any model without
    transition matrices), run a few words at a time.

    Raises AnalysisError for bad sizes, or when ``words * max_length * hidden`` exceeds
    :data:`MAX_CURVE_CELLS` (the estimate is in the message).
    """
    tracker = None if isinstance(weights, Weights) else weights
    if tracker is None:
        check_compatible(weights, automaton)
    max_length = check_positive_int(max_length, "max_length")
    words = check_positive_int(words, "words")
    seed = check_positive_int(seed, "seed", minimum=0)
    width = weights.dim if tracker is None else max(automaton.n_classes, 1)
    cells = words * max_length * width
    if cells > MAX_CURVE_CELLS:
        raise AnalysisError(
            f"accuracy by length: {words} words x length {max_length} x width {width} = {cells} "
            f"cells exceeds the limit {MAX_CURVE_CELLS}; ask for fewer words or a shorter length"
        )
    rng = np.random.default_rng(seed)
    seq = rng.integers(0, automaton.n_symbols, size=(words, max_length))
    truth = np.asarray(automaton.labels_batch(seq, trace=True))  # (words, time)
    if tracker is None:
        correct = _weights_correct(weights, seq, truth)
    else:
        correct = _tracker_correct(tracker, seq, truth)
    wrong = np.flatnonzero(~correct.all(axis=0))
    acc = normalized_accuracy(correct.mean(axis=0), automaton.n_classes)
    return LengthCurve(tuple(float(x) for x in np.atleast_1d(acc)), words, seed, automaton.n_classes,
                       int(wrong[0]) + 1 if wrong.size else None, train_range)
