"""Float check of weights against an automaton on long random words.

The network runs with the hidden state renormalised to unit Euclidean norm after every step
(:func:`bilinear.constructions.floatrun.float_run`: the argmax is invariant under positive
scaling, so no prediction changes and the numbers stay finite at any length), vectorised over
the batch of words.

Every prefix of every word is checked (positions 1..length, plus the empty word): ``accuracy``
is the fraction of prefixes whose strict argmax is the automaton's label, ``worst_margin`` the
smallest ``score[label] - max other score`` on unit-norm hidden states, ``first_failure`` the
shortest failing prefix (the lowest-indexed word among equals).

>>> from bilinear.automata.families import from_spec
>>> from bilinear.constructions.registry import build
>>> r = check(build("cyclic:7", "rotation2d"), from_spec("cyclic:7"), length=500, words=64)
>>> r.accuracy, r.first_failure, round(r.worst_margin, 4)
(1.0, None, 0.3765)
"""

from __future__ import annotations

import time as _time
from dataclasses import dataclass

import numpy as np

from bilinear.errors import WeightsError

from .floatrun import check_compatible, float_run, scale_exponents
from .weights import Weights

__all__ = ["check", "CheckResult", "float_run", "check_size", "MAX_CHECK_BYTES"]


@dataclass(frozen=True)
class CheckResult:
    """Outcome of :func:`check` (all prefixes of ``n_words`` random words of ``length``)."""

    accuracy: float
    final_accuracy: float
    worst_margin: float
    first_failure: tuple[int, ...] | None
    first_failure_text: str | None
    n_words: int
    length: int
    seed: int
    seconds: float

    @property
    def passed(self) -> bool:
        """True when every checked prefix had a strictly positive margin."""
        return self.first_failure is None

    @property
    def tokens(self) -> int:
        return self.n_words * self.length

    def to_json(self) -> dict:
        return {
            "accuracy": self.accuracy,
            "final_accuracy": self.final_accuracy,
            "worst_margin": self.worst_margin,
            "first_failure": self.first_failure_text,
            "n_words": self.n_words,
            "length": self.length,
            "seed": self.seed,
        }


def _margins(scores: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """score[label] - max other score, per row; (batch, classes), (batch,) -> (batch,).

    Overwrites ``scores`` (a fresh array each step) instead of copying it.
    """
    rows = np.arange(scores.shape[0])
    own = scores[rows, labels].copy()
    if scores.shape[1] == 1:
        return np.full(scores.shape[0], np.inf)
    scores[rows, labels] = -np.inf
    return own - scores.max(axis=1)


#: Largest memory the float check may hold, in bytes: the words, their state trace and labels
#: (24 bytes per symbol) and two hidden states per word (16 bytes per hidden unit); checked
#: before anything is allocated.  Check long words in several runs with other seeds.
MAX_CHECK_BYTES = 1024**3


def check_bytes(words: int, length: int, hidden: int) -> int:
    """Bytes the float check holds for ``words`` words of ``length`` symbols and ``hidden`` units."""
    return words * length * 24 + words * hidden * 16


def check_size(words: int, length: int, hidden: int = 0) -> None:
    """WeightsError, with the estimate, when the float check would pass :data:`MAX_CHECK_BYTES`."""
    need = check_bytes(words, length, hidden)
    if need > MAX_CHECK_BYTES:
        raise WeightsError(
            f"the float check of {words:,} words of length {length:,}"
            f"{f' (hidden size {hidden})' if hidden else ''} would "
            f"need about {need / 1024**3:.3g} GiB (words x length x 24 bytes + words x hidden x 16); "
            f"the limit is {MAX_CHECK_BYTES / 1024**3:g} GiB "
            f"(bilinear.constructions.check.MAX_CHECK_BYTES): lower --words or --length"
        )


def _positive(value, what: str) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < 1:
        raise WeightsError(f"{what} must be a positive integer, got {value!r}")
    return int(value)


def check(weights: Weights, automaton, length: int = 500, words: int = 1000, seed: int = 0, word_batch=None) -> CheckResult:
    """Check ``weights`` against ``automaton`` on random words (uniform symbols, fixed length).

    ``word_batch`` (batch, time) of symbol indices replaces the random words when given.
    Exact weights are converted with ``to_float()``.  Sizes past :data:`MAX_CHECK_BYTES` are
    refused before any word is drawn.
    """
    check_compatible(weights, automaton)
    start = _time.perf_counter()
    if word_batch is None:
        length, words = _positive(length, "length"), _positive(words, "words")
        check_size(words, length, weights.dim)
        rng = np.random.default_rng(seed)
        batch = rng.integers(0, automaton.n_symbols, size=(words, length), dtype=np.int64)
    else:
        batch = np.asarray(word_batch)
        if batch.ndim != 2 or batch.shape[0] == 0 or batch.shape[1] == 0:
            raise WeightsError(f"word_batch must have shape (batch, time) with both > 0, got {batch.shape}")
        check_size(batch.shape[0], batch.shape[1], weights.dim)
    states = automaton.run_batch(batch, trace=True)  # (batch, time), validates symbols
    labels = automaton.labels[states]
    A, h0, R = weights.float_arrays()
    A = np.ldexp(A, -scale_exponents(A)[:, None, None])  # margins up to scale, without underflow
    n, T = batch.shape

    worst = np.inf
    first: tuple[int, ...] | None = None
    # the empty word
    h = h0 / (np.linalg.norm(h0) or 1.0)
    m0 = float(_margins((R @ h)[None, :].copy(), np.array([automaton.labels[automaton.start]]))[0])
    worst = min(worst, m0)
    if not m0 > 0:
        first = ()
    correct = 0
    final_correct = 0
    for t, scores in float_run(A, h0, batch, R):
        m = _margins(scores, labels[:, t])
        ok = m > 0
        correct += int(ok.sum())
        if t == T - 1:
            final_correct = int(ok.sum())
        worst = min(worst, float(m.min()))
        if first is None and not ok.all():
            b = int(np.argmin(ok))
            first = tuple(int(x) for x in batch[b, : t + 1])
    return CheckResult(
        accuracy=correct / (n * T),
        final_accuracy=final_correct / n,
        worst_margin=worst,
        first_failure=first,
        first_failure_text=None if first is None else automaton.format_word(first),
        n_words=n,
        length=T,
        seed=seed,
        seconds=_time.perf_counter() - start,
    )
