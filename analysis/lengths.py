"""Accuracy by length: how far beyond its training lengths a network stays right.

:func:`accuracy_by_length` runs ``words`` random words (seeded) of length ``max_length`` through
the renormalised float run (:func:`bilinear.constructions.values.floatrun.float_steps`) and returns the
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

from bilinear.constructions.values.floatrun import check_compatible, float_steps
from bilinear.constructions.values.weights import Weights
from bilinear.errors import AnalysisError
from bilinear.metrics import normalized_accuracy

from .matrices import check_positive_int

__all__ = ["LengthCurve", "LengthRange", "accuracy_by_length", "MAX_CURVE_CELLS", "READING_LENGTHS",
           "network_label", "shortest_error", "WordCheck", "DirectedRun", "directed_plan", "directed_run",
           "DIRECTED_TOKENS"]

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
    :mod:`bilinear.constructions.values.tracker`), run ``chunk`` words at a time to bound its memory
    (the tracker's ``chunk_words`` when it has one: a loaded checkpoint's forward loops over time in
    Python, so it runs more words at once)."""
    chunk = int(getattr(tracker, "chunk_words", chunk))
    correct = np.empty(seq.shape, dtype=bool)
    for i in range(0, seq.shape[0], chunk):
        logits = np.asarray(tracker.run(seq[i : i + chunk]).logits)
        correct[i : i + chunk] = np.argmax(logits, axis=-1) == truth[i : i + chunk]
    return correct


def check_curve_size(words: int, max_length: int, width: int) -> None:
    """AnalysisError when the curve of ``words`` words up to ``max_length`` would hold more than
    :data:`MAX_CURVE_CELLS` cells of ``width`` floats (the hidden size of weights, the classes of a
    tracker's logits); callers check it before other work (``analyze``: before the extraction)."""
    width = max(int(width), 1)
    cells = words * max_length * width
    if cells > MAX_CURVE_CELLS:
        raise AnalysisError(
            f"accuracy by length: {words} words x length {max_length} x width {width} = {cells} "
            f"cells exceeds the limit {MAX_CURVE_CELLS}; ask for fewer words or a shorter length"
        )


def accuracy_by_length(weights, automaton, max_length: int = 2000, words: int = 200, seed: int = 0,
                       train_range: tuple[int, int] | None = None) -> LengthCurve:
    """The :class:`LengthCurve` of ``weights`` on ``automaton`` (module docstring); ``weights``
    may also be a tracker (:func:`bilinear.constructions.values.tracker.as_tracker`: any model without
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
    check_curve_size(words, max_length, weights.dim if tracker is None else automaton.n_classes)
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


@dataclass(frozen=True)
class WordCheck:
    """One word run through the network and the automaton: ``word`` (symbol indices), its
    ``text`` (run-length compressed), and the class names the ``automaton`` and the ``network``
    give it (``network`` None when the network gives no label for it: a tracker on the empty
    word)."""

    word: tuple[int, ...]
    text: str
    automaton: str
    network: str | None

    @property
    def right(self) -> bool | None:
        return None if self.network is None else self.network == self.automaton

    def labels_text(self) -> str:
        """``automaton 1, network 0``."""
        return f"automaton {self.automaton}, network {self.network if self.network is not None else '-'}"


def network_label(weights, automaton, word, prefix=()) -> WordCheck:
    """Run ``prefix + word`` through the network (:class:`Weights` through the renormalised float
    run; a tracker through its ``run``) and through ``automaton``: a :class:`WordCheck` of
    ``word`` with both labels, so that a word a report names is re-checked on the network itself.

    >>> from bilinear.analysis.examples import cyclic_rotation2d
    >>> from bilinear.automata import from_spec
    >>> network_label(cyclic_rotation2d(5), from_spec("cyclic:5"), (1, 1)).labels_text()
    'automaton 2, network 2'
    """
    from bilinear.automata.words import compress

    full = tuple(int(a) for a in (*prefix, *word))
    expected = automaton.classes[automaton.label(full)]
    got = None
    if isinstance(weights, Weights):
        A, h0, R = weights.float_arrays()
        if full:
            got = int(_weights_labels(weights, np.array([full]))[0, -1])
        else:
            got = int(np.argmax(R @ h0))
    elif full:
        got = int(np.argmax(np.asarray(weights.run(np.array([full])).logits)[0, -1]))
    text = compress(tuple(int(a) for a in word), automaton) if word else "ε"
    return WordCheck(tuple(int(a) for a in word), text, expected, None if got is None else automaton.classes[got])


def _weights_labels(weights, seq: np.ndarray) -> np.ndarray:
    A, h0, R = weights.float_arrays()
    out = np.empty(seq.shape, dtype=np.int64)
    for t, H in enumerate(float_steps(A, h0, seq)):
        out[:, t] = np.argmax(H @ R.T, axis=1)
    return out


#: Most words :func:`shortest_error` runs (all words of each length, shortest first).
MAX_ERROR_SEARCH_WORDS = 50_000


def shortest_error(weights, automaton, max_words: int = MAX_ERROR_SEARCH_WORDS) -> WordCheck | None:
    """A shortest word on which the network's label differs from the automaton's, found by running
    *every* word of length 0, 1, 2, ... (as long as the words of the next length fit in
    ``max_words`` in all); None when every word of the lengths searched is right.  Ties count as
    errors only through argmax (the first class wins), as in every float run.

    >>> from bilinear.analysis.examples import cyclic_rotation2d
    >>> from bilinear.automata import from_spec
    >>> e = shortest_error(cyclic_rotation2d(5, angle_error=0.3), from_spec("cyclic:5"))
    >>> e.text, e.labels_text()
    ('3', 'automaton 3, network 4')
    """
    max_words = check_positive_int(max_words, "max_words")
    k = automaton.n_symbols
    first = network_label(weights, automaton, ())
    if first.right is False:
        return first
    used, length = 1, 1
    while used + k**length <= max_words:
        seq = np.array(np.unravel_index(np.arange(k**length), (k,) * length)).T  # every word, lexicographic
        if isinstance(weights, Weights):
            got = _weights_labels(weights, seq)[:, -1]
        else:
            got = np.argmax(np.asarray(weights.run(seq).logits)[:, -1], axis=-1)
        truth = np.asarray(automaton.labels_batch(seq, trace=True))[:, -1]
        wrong = np.flatnonzero(got != truth)
        if wrong.size:
            return network_label(weights, automaton, tuple(int(a) for a in seq[wrong[0]]))
        used += k**length
        length += 1
    return None


#: Symbols that the directed words of a model without transition matrices read in all
#: (:func:`directed_run`): their length is cut so that they fit, and the model runs once on them.
DIRECTED_TOKENS = 1 << 18

#: What the directed words are, for a report's line (docs/analysis.md).
_DIRECTED_KINDS = "every symbol's powers, a symbol then another's powers, short loops repeated"


@dataclass(frozen=True)
class DirectedRun:
    """A model run on the float check's directed words (:func:`directed_run`): ``words`` words of
    ``length`` symbols, the fraction ``accuracy`` of their prefixes it labels right, and
    ``failure``, its shortest failing prefix re-run through the model (None when it failed on
    none)."""

    words: int
    length: int
    accuracy: float
    failure: WordCheck | None

    @property
    def reading(self) -> str:
        """One line: no error on them, or the first error with both labels."""
        what = f"{self.words} directed words of length {self.length} ({_DIRECTED_KINDS})"
        if self.failure is None:
            return f"no error on {what}; evidence, not a proof"
        labels = self.failure.labels_text()
        if self.failure.right:  # the check counts a tie as an error; the argmax re-run picks the label
            labels = f"automaton {self.failure.automaton}, network: a tie of {self.failure.automaton} with another class"
        return (f"errs at length {len(self.failure.word)} on {self.failure.text} ({labels}), "
                f"the shortest failing prefix of {what}; right on {self.accuracy:.4f} of their prefixes")

    def to_json(self) -> dict:
        return {"words": self.words, "length": self.length, "accuracy": self.accuracy,
                "first_failure": None if self.failure is None else self.failure.text,
                "first_failure_length": None if self.failure is None else len(self.failure.word),
                "automaton_label": None if self.failure is None else self.failure.automaton,
                "network_label": None if self.failure is None else self.failure.network}


def directed_plan(automaton, max_length: int, max_tokens: int = DIRECTED_TOKENS, classes: int | None = None):
    """``(parts, length)`` of :func:`directed_run`: the directed words (as the float check lists
    them, :func:`~bilinear.constructions.horizon.floatcheck._directed_parts`) and their length,
    ``max_length`` cut so that they read at most ``max_tokens`` symbols; their size with
    ``classes`` logits per symbol (the automaton's by default) checked
    (:func:`~bilinear.constructions.horizon.floatcheck.check_size`), so a caller can refuse
    before any model runs."""
    from bilinear.constructions.horizon.floatcheck import _directed_parts, check_size
    from bilinear.constructions.values.tracker import need_automaton

    need_automaton(automaton)
    max_length = check_positive_int(max_length, "max_length")
    max_tokens = check_positive_int(max_tokens, "max_tokens")
    parts = _directed_parts(automaton)
    length = max(1, min(max_length, max_tokens // max(1, len(parts))))
    check_size(len(parts), length, classes=automaton.n_classes if classes is None else classes)
    return parts, length


def directed_run(tracker, automaton, max_length: int, max_tokens: int = DIRECTED_TOKENS, plan=None) -> DirectedRun:
    """Run ``tracker`` (a model judged on its logits) on the float check's directed words
    (:func:`bilinear.constructions.horizon.floatcheck.directed_words`: the runs of one symbol and
    the repeated short loops that random words almost never contain) of ``max_length`` symbols,
    cut so that they read at most ``max_tokens`` symbols in all (:func:`directed_plan`, which
    checks their size before the model runs).  The failing word is run through the model again
    (:func:`network_label`), so the line names the label the model gives it.  ``plan``: what
    :func:`directed_plan` gave for these arguments, when the caller has already asked it.

    >>> import numpy as np
    >>> from bilinear.automata import from_spec
    >>> from bilinear.constructions.values.tracker import as_tracker
    >>> def sums(words):  # right until a run of 20 ones, then class 0 for good
    ...     words = np.asarray(words)
    ...     runs = np.zeros(words.shape[0], dtype=int); broken = np.zeros(words.shape[0], dtype=bool)
    ...     out = np.zeros(words.shape + (3,))
    ...     for t in range(words.shape[1]):
    ...         runs = np.where(words[:, t] == 1, runs + 1, 0); broken |= runs >= 20
    ...         out[:, t] = np.eye(3)[np.where(broken, 0, words[:, : t + 1].sum(axis=1) % 3)]
    ...     return out
    >>> run = directed_run(as_tracker(sums), from_spec("cyclic:3"), 100)
    >>> run.failure.text, run.failure.labels_text(), run.words * run.length
    ('1^20', 'automaton 2, network 0', 3900)
    """
    from bilinear.constructions.horizon.floatcheck import check, directed_words

    parts, length = directed_plan(automaton, max_length, max_tokens) if plan is None else plan
    result = check(tracker, automaton, word_batch=directed_words(automaton, length, parts=parts))
    failure = None
    if result.first_failure is not None:
        failure = network_label(tracker, automaton, result.first_failure)
    return DirectedRun(len(parts), length, result.accuracy, failure)
