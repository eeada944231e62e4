"""Float check of weights (or any tracker) against an automaton on long directed and random words.

The words, all of one length: first the *directed* words (:func:`directed_words`) — every
symbol's power ``a^length``, every symbol followed by another's power, every primitive loop word ``u`` of length 2..3 repeated to the
length (``(a b)^n``), and the witnesses of the variant's impossibility certificate when it has
one — then ``words`` uniformly random words.  Random words rarely contain long runs of one
symbol, so a network that drifts under ``inc`` but is reset by ``reset`` passes them; the powers
find it.  The first failing word is named run-length compressed (``inc^358``,
:func:`bilinear.automata.words.compress`).

Any model can be checked: a :class:`~bilinear.constructions.values.weights.Weights` runs the float run
below; anything else goes through :func:`bilinear.constructions.values.tracker.as_tracker` (our bilinear and
baseline models, a torch module of your own, a callable returning logits) and is judged on its
logits (``worst_margin`` is then in logit units, not scale-free).

The network runs vectorised over the batch of words, its states known up to a positive scale
per word (:func:`bilinear.constructions.values.floatrun.float_blocks`: multiplied on, and divided
by a power of two every few steps, exactly, so the numbers stay finite at any length; the argmax
is invariant under positive scaling, so no prediction changes).  Each margin is divided by its
state's norm: the margins are those of the unit-norm states of the run renormalised after every
step (:func:`~bilinear.constructions.values.floatrun.float_steps`, the run docs/theory.md
describes), up to rounding (one division per step fewer).

Every prefix of every word is checked (positions 1..length, plus the empty word): ``accuracy``
is the fraction of prefixes whose strict argmax is the automaton's label, ``worst_margin`` the
smallest ``score[label] - max other score`` on unit-norm hidden states, ``first_failure`` the
shortest failing prefix (the lowest-indexed word among equals).  With many classes (at least
3 hidden + 8) a bound per prefix spares most prefixes the score of every class
(:class:`_Bound`): the accuracy and the first failure are unchanged, the worst margin is the
smallest to within 1e-9 of the largest readout row's norm.

When every product of the run is exact and its states up to powers of two are few (exact
constructions with small dyadic entries: one-hot, permutation, signed permutation, +-1 diagonal
matrices), the run is an automaton (:mod:`~bilinear.constructions.values.floatstates`,
docs/theory.md, Theorem 26): each (automaton state, float state) pair is judged once and the
words are looked up in the pair table, one look-up per symbol (:func:`_table_check`), with the
dense run's accuracy, worst margin and first failure (to the bit when the readout's scores are
exact too; otherwise the margins agree to a few units of roundoff, and a prefix at an exact tie
may be judged either way: BLAS sums a product of another shape in another order).  At most (words x length) / 8 table
entries are built before the dense run takes over (:data:`TABLE_SHARE`); a rotation by an
irrational angle or a learned network gives up at its first product that rounds.

>>> from bilinear.automata.families import from_spec
>>> from bilinear.constructions.handmade.registry import build
>>> r = check(build("cyclic:7", "rotation2d"), from_spec("cyclic:7"), length=500, words=64)
>>> r.accuracy, r.first_failure, round(r.worst_margin, 4), r.directed
(1.0, None, 0.3765, 427)
"""

from __future__ import annotations

import time as _time
from dataclasses import dataclass
from functools import partial

import numpy as np

from bilinear.argtypes import check_positive_int
from bilinear.automata.loops import DIRECTED_MAX
from bilinear.errors import MismatchError, WeightsError

from ..values.floatrun import check_compatible, float_blocks, float_run, rescaled, scale_exponents, stack_inputs
from ..values.floatstates import float_states, pair_table, walk
from ..values.stack import Stack
from ..values.weights import Weights

#: What the float run takes directly (anything else goes through a tracker).
_NETWORKS = (Weights, Stack)

__all__ = ["check", "CheckResult", "directed_words", "float_run", "check_size", "MAX_CHECK_BYTES", "label_margins"]

# DIRECTED_MAX (most directed words) and LOOP_MAX (longest repeated loop) come with the list
# itself, bilinear.automata.loops.directed_loops (shared with the `directed` strategy).


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
    directed: int = 0

    @property
    def passed(self) -> bool:
        """True when every checked prefix had a strictly positive margin."""
        return self.first_failure is None

    @property
    def tokens(self) -> int:
        """Symbols read: (directed + random words) * length."""
        return (self.n_words + self.directed) * self.length

    @property
    def reading(self) -> str:
        """One line: passed, or the first failing word."""
        what = f"{self.directed} directed + {self.n_words} random words of length {self.length}"
        if self.first_failure is None:  # passed
            return (f"float check passed ({what}): no failure up to length {self.length} on these words, "
                    f"worst margin {self.worst_margin:.3g}")
        return (f"float check FAILED ({what}): accuracy {self.accuracy:.4f}; first failing word "
                f"{self.first_failure_text} (length {len(self.first_failure)})")

    def to_json(self) -> dict:
        return {
            "accuracy": self.accuracy,
            "final_accuracy": self.final_accuracy,
            "worst_margin": self.worst_margin,
            "passed": self.passed,
            "first_failure": self.first_failure_text,
            "first_failure_length": None if self.first_failure is None else len(self.first_failure),
            "directed": self.directed,
            "n_words": self.n_words,
            "length": self.length,
            "seed": self.seed,
        }


def label_margins(scores: np.ndarray, labels: np.ndarray, work: _Work | None = None) -> np.ndarray:
    """score[label] - max other score; scores (classes, ...) class-major, labels (...) -> (...).

    Overwrites ``scores`` (a fresh array) instead of copying it.  The indices and the margins are
    formed in ``work``'s buffers (rows at least the prefixes'; a check's judge keeps one, the
    margins then a view of a buffer the next call overwrites), else in buffers made for the call.
    """
    classes = scores.shape[0]
    if classes == 1:
        return np.full(scores.shape[1:], np.inf)
    scores = np.ascontiguousarray(scores)
    n = scores.size // classes
    if work is None:
        work = _Work(n, 0)
    return _chunk_margins(scores.reshape(1, classes, n), labels.reshape(-1), work).reshape(scores.shape[1:])


def _chunk_margins(scores: np.ndarray, labels: np.ndarray, work: _Work) -> np.ndarray:
    """The margins of :func:`label_margins` from scores laid out in chunks, (chunks, classes, chunk),
    row ``r`` in column ``r % chunk`` of chunk ``r // chunk`` (one chunk: class-major), labels
    (n,) -> (n,), in ``work``'s buffers (whose ``cols`` place the rows so: a work made for that
    chunk size, or any for one chunk).  Overwrites ``scores``."""
    chunks, _, chunk = scores.shape
    n = labels.shape[0]
    at = np.multiply(labels, chunk, out=work.at[:n])
    at += work.cols[:n]
    flat = scores.reshape(-1)  # a view of the contiguous scores
    own = flat.take(at, out=work.own[:n], mode="wrap")  # valid indices: unbuffered
    flat[at] = -np.inf  # an index assignment: 2-3x faster than flat.put here (numpy 2.4)
    other = scores.max(axis=1, out=work.other[: chunks * chunk].reshape(chunks, chunk))
    return np.subtract(own, other.reshape(-1)[:n], out=own)


class _Work:
    """Buffers of one float check's judge for blocks of up to ``rows`` prefixes and ``classes``
    scores each, made once: a fresh megabyte of scores per block may page-fault (a freed large
    array can go back to the system), which costs about as much as the scores' product.  With
    ``chunk`` (:func:`_chunk_rows`) the rows are scored that many at a time (:func:`_row_margins`),
    each chunk's scores class-major; ``hidden`` sizes the squares of :func:`_norms`."""

    def __init__(self, rows: int, classes: int, chunk: int = 0, hidden: int = 0):
        padded = -(-rows // chunk) * chunk if chunk else rows  # whole chunks: the last one padded
        self.chunk = chunk
        self.scores = np.zeros(padded * classes)  # a padded chunk's columns hold numbers, never NaN
        self.at = np.empty(rows, dtype=np.int64)
        self.cols = np.arange(rows)  # a row's column in the scores (the row itself in one chunk)
        if chunk:  # row r is column r % chunk of chunk r // chunk: r + (r // chunk) (classes - 1) chunk
            self.cols += (self.cols // chunk) * ((classes - 1) * chunk)
        self.own, self.other, self.norms = np.empty(rows), np.empty(padded), np.empty(rows)
        self.squares = np.empty((rows, hidden))


#: Bytes of rows and their scores that one readout product takes at most (:func:`_chunk_rows`):
#: 16 classes by 16 hidden units ran at about 14 G multiply-adds a second on 8,000 rows at once
#: and about 21 G on 2,048 at a time (their rows and scores then stay in the core's cache),
#: ``python benchmarks/bench_check.py --parts``.
_SCORE_BYTES = 1 << 19


def _chunk_rows(classes: int, hidden: int) -> int:
    """Rows of one readout product (:func:`_row_margins`): 0 (all at once) below 8 hidden units
    (a product that short is bound by memory: chunks did not help), else as many as fit
    :data:`_SCORE_BYTES` with their scores, at least 64.

    >>> _chunk_rows(16, 16), _chunk_rows(7, 2)
    (2048, 0)
    """
    return 0 if hidden < 8 else max(64, _SCORE_BYTES // (8 * (classes + hidden)))


def _row_margins(RF: np.ndarray, rows: np.ndarray, labels: np.ndarray, work: _Work) -> np.ndarray:
    """``score[label] - max other score`` of each row of ``rows`` (n, hidden), not divided by its
    norm, under the readout ``RF`` (classes, hidden) in Fortran order (BLAS then reads both
    operands transposed: about 1.4x faster than a C-order readout on chunks of 2,048 rows of
    16); labels (n,) -> (n,), in ``work``'s buffers.  The rows are scored ``work.chunk`` at a
    time, the scores laid out (chunks, classes, chunk).  Both ways of judging Weights (the dense
    run's blocks, the table's pairs) score their rows here."""
    classes, n = RF.shape[0], rows.shape[0]
    chunk = work.chunk if 0 < work.chunk < n else max(n, 1)  # one chunk: the scores class-major
    chunks = -(-n // chunk)
    scores = work.scores[: chunks * classes * chunk].reshape(chunks, classes, chunk)
    for a in range(0, n, chunk):
        b = min(n, a + chunk)
        np.matmul(RF, rows[a:b].T, out=scores[a // chunk, :, : b - a])
    return _chunk_margins(scores, labels, work)


def _cycled(u, length: int) -> list[int]:
    """``u u u ...`` cut to ``length`` symbols."""
    u = list(u)
    return (u * (length // len(u) + 1))[:length]


def _directed_parts(automaton, variant: str | None = None,
                    max_words: int = DIRECTED_MAX) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """The directed words of :func:`directed_words` as ``(head, loop)`` (the word of length ``n``:
    ``head`` then ``loop`` repeated, cut to ``n``): none depends on the length, so the check counts
    them before it draws a word (a witness of the certificate is ``((), witness)``)."""
    from bilinear.automata.loops import directed_loops

    parts = list(directed_loops(automaton, max_words))
    if variant is not None:
        from ..impossible.certificates import certifiable_kinds, certify

        if certifiable_kinds(variant):
            cert = certify(automaton, variant)
            if cert is not None:
                parts += [((), tuple(w)) for w in cert.witnesses if len(w)]
    return parts


def directed_words(automaton, length: int, variant: str | None = None, max_words: int = DIRECTED_MAX,
                   parts=None) -> np.ndarray:
    """The directed words of :func:`check`, (count, length): powers of each symbol, each symbol
    followed by a power of another (``w1 r^499``), primitive loop words of length 2..:data:`LOOP_MAX` repeated (longer loops only while the count stays
    within ``max_words``; the list is
    :func:`bilinear.automata.loops.directed_loops`, which the ``directed``
    strategy draws from), and, for a ``variant`` with an impossibility certificate for
    ``automaton``, its two witnesses repeated.  Every prefix of a row is checked, so the row
    ``a^length`` checks every power ``a^n``, n <= length.  ``parts``: the list of
    :func:`_directed_parts` when already made.

    >>> from bilinear.automata.families import from_spec
    >>> directed_words(from_spec("parity"), 5).tolist()
    [[0, 0, 0, 0, 0], [1, 1, 1, 1, 1], [0, 1, 1, 1, 1], [1, 0, 0, 0, 0], [0, 1, 0, 1, 0], [1, 0, 1, 0, 1], [0, 0, 1, 0, 0], [0, 1, 0, 0, 1], [0, 1, 1, 0, 1], [1, 0, 0, 1, 0], [1, 0, 1, 1, 0], [1, 1, 0, 1, 1]]
    """
    if parts is None:
        parts = _directed_parts(automaton, variant, max_words)
    rows: list[list[int]] = [(list(head) + _cycled(loop, length - len(head)))[:length] for head, loop in parts]
    return np.array(rows, dtype=np.int64).reshape(len(rows), length)


#: Largest memory the float check may hold, in bytes: the words (the directed ones too), their
#: state trace and labels (24 bytes per symbol), two hidden states per word (16 bytes per hidden
#: unit) and, for a model judged on its logits, the logits of every word held twice (16 bytes per
#: class and symbol) and one forward pass of
#: :data:`~bilinear.constructions.values.tracker.CHUNK_TOKENS` symbols (the model's own output
#: and a temporary of its size: 16 bytes per class); checked before any word is drawn or any
#: model run.  Check long words in several runs with other seeds.
MAX_CHECK_BYTES = 1024**3


def check_bytes(words: int, length: int, hidden: int, classes: int = 0) -> int:
    """Bytes the float check holds for ``words`` words (the directed words counted among them) of
    ``length`` symbols, ``hidden`` units and, for a model judged on its logits (any tracker),
    ``classes`` logits per symbol: its output and the concatenation of its chunks (16 bytes each),
    and one forward pass of up to ``CHUNK_TOKENS`` symbols (the model's own output and a temporary
    of its size: 16 bytes each).

    >>> check_bytes(1000, 500, 16), check_bytes(12, 100, 0, classes=2)
    (12256000, 105600)
    """
    from ..values.tracker import CHUNK_TOKENS

    logits = (words * length + min(words * length, CHUNK_TOKENS)) * classes * 16
    return words * length * 24 + logits + words * hidden * 16


def check_size(words: int, length: int, hidden: int = 0, remedy: str = "lower --words or --length",
               classes: int = 0, directed: int = 0) -> None:
    """WeightsError, with the estimate, when the float check would pass :data:`MAX_CHECK_BYTES`
    (``remedy`` ends the message: the caller's own options); ``directed`` words are checked
    besides the ``words`` random ones, and ``classes`` logits per symbol are held for a model
    judged on its logits (:func:`check_bytes`)."""
    need = check_bytes(words + directed, length, hidden, classes)
    if need > MAX_CHECK_BYTES:
        what = f"{directed:,} directed + {words:,} random words" if directed else f"{words:,} words"
        per_symbol = f"(24 + 16 x {classes} classes) bytes + a forward pass's logits" if classes else "24 bytes"
        raise WeightsError(
            f"the float check of {what} of length {length:,}"
            f"{f' (hidden size {hidden})' if hidden else ''}{f' ({classes} logits a symbol)' if classes else ''} "
            f"would need about {need / 1024**3:.3g} GiB (words x length x {per_symbol} + words x hidden x 16); "
            f"the limit is {MAX_CHECK_BYTES / 1024**3:g} GiB "
            f"(bilinear.constructions.horizon.floatcheck.MAX_CHECK_BYTES): {remedy}"
        )


def _batch(automaton, length, words, seed, word_batch, directed, variant, hidden: int,
           classes: int = 0) -> tuple[np.ndarray, int]:
    """The checked words and how many of them (the first rows) are directed; the size is checked
    (:func:`check_size`, with the directed words counted) before any word is drawn."""
    seed = check_positive_int(seed, "seed", minimum=0, error=WeightsError)
    if word_batch is not None:
        batch = np.asarray(word_batch)
        if batch.ndim != 2 or batch.shape[0] == 0 or batch.shape[1] == 0:
            raise WeightsError(f"word_batch must have shape (batch, time) with both > 0, got {batch.shape}")
        check_size(batch.shape[0], batch.shape[1], hidden, classes=classes)
        return batch, 0
    length = check_positive_int(length, "length", error=WeightsError)
    words = check_positive_int(words, "words", error=WeightsError)
    length, words = int(length), int(words)
    # before the directed words are made (the certificate search for their witnesses takes 5 s on
    # cyclic:1000 rotation2d): every symbol's power is one of them
    check_size(words, length, hidden, classes=classes, directed=automaton.n_symbols if directed else 0)
    parts = _directed_parts(automaton, variant) if directed else []
    check_size(words, length, hidden, classes=classes, directed=len(parts))
    rng = np.random.default_rng(seed)
    batch = rng.integers(0, automaton.n_symbols, size=(words, length), dtype=np.int64)
    if not directed:
        return batch, 0
    first = directed_words(automaton, length, parts=parts)
    return np.concatenate([first, batch]), first.shape[0]


#: Entries (words x steps x max(hidden, classes)) of one block of scores the check judges at once
#: (about 1 MiB: a block stays in the cache while it is scored and judged); a block has at least
#: 4 steps while that holds at most 4 times as many entries (fewer Python steps with many classes).
_BLOCK_ENTRIES = 1 << 17


def _block_steps(words: int, width: int) -> int:
    """Steps per block for ``words`` words and ``width`` = max(hidden, classes) (see :data:`_BLOCK_ENTRIES`):
    as many as hold that many entries, at least 4 while they hold at most 4 times as many, at least 1.

    >>> _block_steps(1000, 16), _block_steps(1000, 0), _block_steps(40000, 1), _block_steps(200000, 1), _block_steps(10**7, 1)
    (8, 131, 4, 2, 1)
    """
    per_step = words * max(1, width)
    return max(1, _BLOCK_ENTRIES // per_step, min(4, 4 * _BLOCK_ENTRIES // per_step))


def _score_blocks(model, automaton, batch):
    """Yield ``(t, steps, judge)`` for blocks of steps from ``t``: ``judge(labels, states, worst)``
    (the automaton's labels and states of the block, (steps, batch), and the worst margin so far)
    returns ``(ok, least)``, ``ok`` (steps, batch) whether each prefix's margin is positive and
    ``least`` the block's smallest margin (+inf when none is below ``worst``).  For Weights (a
    Stack: its last layer) the margins are those of the float run's states divided by their norms
    (:func:`~bilinear.constructions.values.floatrun.float_blocks` knows them up to a positive
    scale), with many classes from :class:`_Bound` where it rules prefixes out; for any other
    model those of its logits."""
    if isinstance(model, _NETWORKS):  # its symbols and classes checked by check()
        if isinstance(model, Stack):
            batch = stack_inputs(model, batch)
            model = model.layers[-1]
        A, h0, R = model.float_arrays()
        A = np.ldexp(A, -scale_exponents(A)[:, None, None])  # margins up to scale, without underflow
        R = np.asfortranarray(rescaled(R))  # for _row_margins
        bound = _Bound.make(R, automaton)
        width = max(A.shape[1], R.shape[0] if bound is None else R.shape[0] // 8)  # a bound scores few classes
        steps = _block_steps(batch.shape[0], width)
        work = _Work(steps * batch.shape[0], R.shape[0], _chunk_rows(*R.shape), A.shape[1])
        for t0, block in float_blocks(A, h0, batch, steps):
            flat = block.reshape(-1, A.shape[1])  # rows up to a positive scale: margins divided by their norms
            norms = _norms(flat, work.norms[: flat.shape[0]], work.squares[: flat.shape[0]])
            yield t0, block.shape[0], partial(_judge_states, R, flat, norms, bound, work)
        return
    from bilinear.constructions.values.tracker import as_tracker

    tracker = as_tracker(model, n_symbols=automaton.n_symbols, n_classes=automaton.n_classes)
    if tracker.n_symbols not in (None, automaton.n_symbols):
        raise MismatchError(f"model reads {tracker.n_symbols} symbols but automaton "
                            f"{automaton.name or '(unnamed)'} has {automaton.n_symbols}")
    logits = tracker.run(batch).logits
    if logits.shape[2] != automaton.n_classes:
        raise MismatchError(f"model predicts {logits.shape[2]} classes but automaton "
                            f"{automaton.name or '(unnamed)'} has {automaton.n_classes}")
    steps = _block_steps(batch.shape[0], logits.shape[2])
    for t in range(0, batch.shape[1], steps):
        scores = np.array(logits[:, t : t + steps].transpose(2, 1, 0), dtype=float, order="C")
        yield t, scores.shape[1], partial(_judge_scores, scores)


def _judge_scores(scores, labels, states, worst) -> tuple[np.ndarray, float]:
    m = label_margins(scores, labels)
    return m > 0, float(m.min())


def _judge_states(R, flat, norms, bound, work: _Work, labels, states, worst) -> tuple[np.ndarray, float]:
    """The judge of a block of Weights' states ``flat`` (steps * batch, hidden), each row up to a
    positive scale, ``norms`` their norms; the scores and margins in ``work``'s buffers."""
    if bound is not None:
        judged = bound.judge(flat, norms, labels.reshape(-1), states.reshape(-1), worst)
        if judged is not None:
            return judged[0].reshape(labels.shape), judged[1]
    m = _row_margins(R, flat, labels.reshape(-1), work)
    m /= norms
    return (m > 0).reshape(labels.shape), float(m.min())


class _Bound:
    """Margins with many classes, without the score of every class for every prefix.

    For a unit state ``u`` in automaton state ``q`` with label ``l``, ``v`` a unit state seen
    in ``q`` before and ``m`` its margin ``min_{c != l} (r_l - r_c) . v``: every difference
    ``(r_l - r_c) . u = (r_l - r_c) . v + (r_l - r_c) . (u - v) >= m - L ||u - v||_1`` (Hoelder),
    ``L`` the largest magnitude of an entry of a difference of two readout rows, so the margin
    is at least ``lo = m - L ||u - v||_1``, less a rounding slack of ``8 (hidden + 8) 2^-52 rho``,
    ``rho`` the largest norm of a readout row (a dot product of n terms errs by at most about
    n 2^-53 of its terms' magnitudes, here at most ``rho``).  A prefix with ``lo > 0`` is
    correct, and one whose ``lo`` is at least the worst margin so far less ``WORST_TOL * rho``
    cannot lower it by more than that: only the others are scored (every class), so the accuracy
    and the first failure are those of scoring everything (but for a prefix at an exact tie, whose
    sign BLAS may round either way in a product of another shape) and the worst margin agrees to
    ``WORST_TOL * rho``.  A block where more than a quarter of the prefixes are left is scored in
    full, and after :data:`MISSES` such blocks in a row (states that do not repeat, as a learned
    network's) the bound is no longer tried.  Per prefix: one gathered reference row, its
    distance, one gathered margin (no score of the prefix's own class).
    """

    #: Blocks in a row left to full scoring after which the bound is no longer tried.
    MISSES = 3

    #: Tolerance of the worst margin, in units of the largest readout row's norm.
    WORST_TOL = 1e-9

    def __init__(self, R: np.ndarray, labels: np.ndarray):
        self.R, self.labels = R, labels
        self.rho = float(np.sqrt(np.einsum("ij,ij->i", R, R).max()))
        self.lip = float((R.max(axis=0) - R.min(axis=0)).max())  # the largest |r_l - r_c| entry
        self.slack = 8 * (R.shape[1] + 8) * 2.0**-52 * self.rho
        self.ones = np.ones(R.shape[1])
        self.refs = np.zeros((labels.size, R.shape[1]))  # v per automaton state
        self.least = np.zeros(labels.size)  # m per automaton state
        self.seen = np.zeros(labels.size, dtype=bool)
        self.misses = 0

    @classmethod
    def make(cls, R: np.ndarray, automaton) -> _Bound | None:
        """A bound where it is cheaper than every class's score: classes >= 3 hidden + 8 (a
        score costs hidden multiply-adds, the bound about 8 hidden operations), and at most
        2^24 numbers for the references (states x (classes + hidden))."""
        classes, hidden = R.shape
        if classes < 3 * hidden + 8 or automaton.n_states * (classes + hidden) > 1 << 24:
            return None
        return cls(R, np.asarray(automaton.labels))

    def _see(self, u: np.ndarray, states: np.ndarray) -> None:
        """Take the first unit state of each automaton state not seen yet as its reference."""
        new = np.flatnonzero(~self.seen[states])
        if new.size:
            qs, first = np.unique(states[new], return_index=True)
            v = u[new[first]]
            self.least[qs] = label_margins(self.R @ v.T, self.labels[qs])
            self.refs[qs], self.seen[qs] = v, True

    def judge(self, flat, norms, labels, states, worst):
        """``(ok, least)`` for the rows of ``flat`` (see :func:`_judge_states`), or None when
        more than a quarter of them need every score."""
        if self.misses >= self.MISSES:
            return None
        u = flat / norms[:, None]
        self._see(u, states)
        gap = self.refs.take(states, axis=0)
        np.subtract(u, gap, out=gap)
        gap = np.abs(gap, out=gap) @ self.ones
        lo = self.least.take(states)
        lo -= self.lip * gap  # the margin is at least lo - slack
        left = np.flatnonzero(lo <= max(0.0, worst - self.WORST_TOL * self.rho) + self.slack)
        if 4 * left.size > lo.size:
            self.misses += 1
            return None
        self.misses = 0
        ok = lo > self.slack
        if not left.size:
            return ok, np.inf
        m = label_margins(self.R @ flat[left].T, labels[left]) / norms[left]
        ok[left] = m > 0
        return ok, float(m.min())


def _norms(flat: np.ndarray, out: np.ndarray | None = None, squares: np.ndarray | None = None) -> np.ndarray:
    """The Euclidean norms of the rows of ``flat`` (rows, hidden), 1 for a zero row (its scores
    and margin are 0); written into ``out`` (rows,) when given, the squared entries into
    ``squares`` (rows, hidden) when given."""
    if flat.shape[1] <= 3:  # a few columns: one pass per column beats einsum's per-row loop
        norms = np.multiply(flat[:, 0], flat[:, 0], out=out)
        for j in range(1, flat.shape[1]):
            norms += flat[:, j] * flat[:, j]
    else:  # the squares summed by a product with ones: 1.2-2.6x faster than einsum's per-row sums, 4 to 32
        # columns (benchmarks/SPEED.md, round 8); np.square reads its operand once: the same numbers as
        # multiply(flat, flat), 1.2-1.4x faster at 8 and 16 columns (round 22)
        norms = np.matmul(np.square(flat, out=squares), np.ones(flat.shape[1]), out=out)
    norms = np.sqrt(norms, out=norms)
    norms[norms == 0] = 1.0
    return norms


def _empty_margin(model, automaton) -> float:
    """The margin of the empty word (Weights only: a tracker predicts after each symbol)."""
    if not isinstance(model, _NETWORKS):
        return np.inf
    if isinstance(model, Stack):
        model = model.layers[-1]
    A, h0, R = model.float_arrays()
    h = rescaled(h0)
    h = h / (np.linalg.norm(h) or 1.0)
    return float(label_margins((rescaled(R) @ h)[:, None], np.array([automaton.labels[automaton.start]]))[0])


#: Steps the dense check's automaton walk reads ahead at least (:func:`_states`): each word's row
#: of symbols is then read a cache line at a time, not one strided symbol per block.
_WALK_STEPS = 16


def _states(automaton, batch: np.ndarray):
    """``states(t0, steps)``: the automaton's states after steps ``t0 + 1 .. t0 + steps`` and
    their labels, both (steps, batch), laid out by time (a block's rows contiguous), for
    consecutive blocks of ``steps`` (the last one may be shorter) from ``t0 = 0``, each valid
    until the next call: walked whole blocks and at least :data:`_WALK_STEPS` steps at a time (:func:`~bilinear.constructions.values.floatstates.walk`
    on its table from the last walked states) into buffers kept from block to block, so no array
    of the words' size is made and none made again per block (their page faults cost more than
    the walk).  Words with a symbol out of range go to ``run_batch``, which names it."""
    labels = automaton.labels
    n, T = batch.shape
    if not (batch.size and batch.dtype.kind in "iu" and 0 <= batch.min() and batch.max() < automaton.n_symbols):
        trace = np.ascontiguousarray(automaton.run_batch(batch, trace=True).T)
        return lambda t0, steps: (trace[t0 : t0 + steps], labels[trace[t0 : t0 + steps]])
    delta = np.ascontiguousarray(automaton.delta)
    last, at = np.full(n, automaton.start, dtype=np.int64), np.empty(n, dtype=np.int64)
    kept: dict = {"lo": 0, "hi": 0}

    def states(t0: int, steps: int):
        if not kept["lo"] <= t0 <= t0 + steps <= kept["hi"]:  # walk on from the last walked step, t0
            assert t0 == kept["hi"], "blocks are consecutive"
            span = min(steps * -(-_WALK_STEPS // steps), T - t0)  # whole blocks
            if kept.get("q") is None or kept["q"].shape[0] < span:
                kept.update(q=np.empty((span, n), dtype=np.int64), labels=np.empty((span, n), dtype=labels.dtype))
            q = walk(delta, last, batch[:, t0 : t0 + span], kept["q"][:span], at)
            labels.take(q, out=kept["labels"][:span], mode="wrap")  # valid states
            np.copyto(last, q[-1])  # the next walk overwrites q first
            kept.update(lo=t0, hi=t0 + span)
        i = t0 - kept["lo"]
        return kept["q"][i : i + steps], kept["labels"][i : i + steps]

    return states


#: What the two ways of judging return: correct prefixes, correct last steps, worst margin, first failure.
_Judged = tuple[int, int, float, "tuple[int, ...] | None"]


def _dense_check(weights, automaton, batch: np.ndarray, worst: float) -> _Judged:
    """``(correct, final_correct, worst, first)`` of :func:`check` by the float run itself
    (:func:`_score_blocks`), the worst margin starting from the empty word's ``worst``."""
    states_of = _states(automaton, batch)
    T = batch.shape[1]
    first: tuple[int, ...] | None = None if worst > 0 else ()
    correct = final_correct = 0
    for t0, steps, judge in _score_blocks(weights, automaton, batch):
        states, labels = states_of(t0, steps)
        ok, least = judge(labels, states, worst)  # ok: (steps, words)
        passed = int(np.count_nonzero(ok))
        correct += passed
        if t0 + steps == T:
            final_correct = int(np.count_nonzero(ok[-1]))
        worst = min(worst, least)
        if first is None and passed < ok.size:  # the shortest failing prefix, the lowest word among equals
            t = int(np.argmin(ok.all(axis=1)))
            b = int(np.argmin(ok[t]))
            first = tuple(int(x) for x in batch[b, : t0 + t + 1])
    return correct, final_correct, worst, first


#: The float run's table may hold at most (words x length) / TABLE_SHARE (state, symbol) entries
#: (float states, then pairs with automaton states): a fraction of the dense run's own work.
TABLE_SHARE = 8


def _table_check(weights, automaton, batch: np.ndarray, worst: float) -> _Judged | None:
    """``(correct, final_correct, worst, first)`` of :func:`check` from the float run's finitely
    many states (:mod:`~bilinear.constructions.values.floatstates`; Weights whose products are
    exact), each (automaton state, float state) pair judged once; None when the run has no such
    table within :data:`TABLE_SHARE` (then the dense run judges every prefix).  Each pair's
    margin is computed as :func:`_judge_states` computes a row's (its scores and norm by the same
    calls), on the canonical state, of which the dense run's row is a power-of-two multiple:
    the same margin (docs/theory.md, Theorem 26)."""
    if not isinstance(weights, Weights) or batch.dtype.kind not in "iu" or not batch.size:
        return None
    if batch.min() < 0 or batch.max() >= automaton.n_symbols:
        return None  # the dense run's simulation names the bad symbol
    A, h0, R = weights.float_arrays()
    cap = batch.size // (TABLE_SHARE * A.shape[0])
    fs = float_states(A, h0, cap)
    if fs is None:
        return None
    pairs = pair_table(fs, automaton.delta, automaton.start, cap)
    if pairs is None:
        return None
    q, f, table, start = pairs
    S = fs.states[f]
    RF = np.asfortranarray(rescaled(R))
    work = _Work(S.shape[0], RF.shape[0], _chunk_rows(*RF.shape))
    margins = _row_margins(RF, S, automaton.labels[q], work) / _norms(S)
    if np.isnan(margins).any():
        return None
    ok = margins > 0
    P = walk(table, start, batch)  # (time, batch) pair after each step
    counts = np.bincount(P.reshape(-1), minlength=q.size)
    correct = int(counts[ok].sum())
    first: tuple[int, ...] | None = None if worst > 0 else ()  # the empty word's
    worst = min(worst, float(margins[counts > 0].min()))
    if first is None and correct < P.size:
        bad = ~ok[P]
        t = int(np.argmax(bad.any(axis=1)))
        first = tuple(int(x) for x in batch[int(np.argmax(bad[t])), : t + 1])
    return correct, int(np.count_nonzero(ok[P[-1]])), worst, first


def check(weights, automaton, length: int = 500, words: int = 1000, seed: int = 0, word_batch=None,
          directed: bool = True, float_table: bool = True, witnesses: bool = True) -> CheckResult:
    """Check ``weights`` (a Weights value, a Stack (judged on its last layer's margins; the
    layers below pass their float argmax up) or any model :func:`~bilinear.constructions.values.tracker.as_tracker`
    accepts) against ``automaton`` on the directed words, then ``words`` random words (uniform
    symbols), all of ``length`` symbols; ``directed=False`` skips the directed words.

    ``word_batch`` (batch, time) of symbol indices replaces all of them when given.
    Exact weights are converted with ``to_float()``.  Weights whose float run has finitely many
    states, every product exact (0/1 and signed permutation matrices, +-1 diagonals: the exact
    constructions with small dyadic entries), are judged once per (automaton state, float state)
    pair and the words looked up in that table (:func:`_table_check`): the same result as the
    dense run, which ``float_table=False`` forces (the worst margin exactly, where the dense run
    with many classes gives it to within ``_Bound.WORST_TOL``).
    ``witnesses=False`` skips the search for the variant's impossibility certificate (whose two
    witnesses join the directed words): a caller that has proved a network of this variant for
    ``automaton`` knows there is none (the certificate rules out every network of the variant),
    and the search is the slowest part of making the words (5 s on ``cyclic:1000 rotation2d``).

    See Also
    --------
    bilinear.constructions.proof.prover.prove : an exact proof for *every* word of every length (or a
        shortest counterexample); this check samples words of one length in float64 and can
        only find failures, never prove their absence.
    """
    if not isinstance(weights, _NETWORKS) and hasattr(weights, "to_weights"):
        from bilinear.constructions.values.tracker import as_tracker

        weights = as_tracker(weights).weights or weights  # a bilinear model: its Weights
    if isinstance(weights, _NETWORKS):
        check_compatible(weights, automaton)
    else:
        from bilinear.constructions.values.tracker import need_automaton

        need_automaton(automaton)
    start = _time.perf_counter()
    variant = weights.variant if isinstance(weights, _NETWORKS) else None
    if not witnesses or variant is not None and "+" in variant:
        variant = None  # layers of several variants: no one certificate's witnesses
    hidden = weights.dim if isinstance(weights, _NETWORKS) else 0
    classes = 0 if isinstance(weights, _NETWORKS) else automaton.n_classes  # a tracker's logits, all at once
    batch, n_directed = _batch(automaton, length, words, seed, word_batch, directed, variant, hidden, classes)
    n, T = batch.shape
    worst = _empty_margin(weights, automaton)
    judged = _table_check(weights, automaton, batch, worst) if float_table else None
    correct, final_correct, worst, first = judged or _dense_check(weights, automaton, batch, worst)
    from bilinear.automata.words import compress

    return CheckResult(
        accuracy=correct / (n * T),
        final_accuracy=final_correct / n,
        worst_margin=worst,
        first_failure=first,
        first_failure_text=None if first is None else compress(first, automaton),
        n_words=n - n_directed,
        length=T,
        seed=int(seed),
        seconds=_time.perf_counter() - start,
        directed=n_directed,
    )
