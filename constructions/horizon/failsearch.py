"""The directed search for a failing word of a float network, and its shortening.

:func:`search_failure` runs the float network (float64, renormalised every step, as
:func:`~bilinear.constructions.horizon.floatcheck.check` does: one
:func:`~bilinear.constructions.values.floatrun.float_run`) on powers of every symbol, powers of short
loops ranked by their measured drift from a snap, shortest words to each automaton state followed
by every symbol's powers, random words, every prefix of those directed words followed by one more
symbol (:func:`exit_failure`: ``w1 r^69 w0``, a state turned by one symbol's powers and then sent
on by another), and a beam search on the margin (the 256 words of each
length with the smallest margin, each extended by every symbol), and returns the shortest
failing prefix.  A tie of
the label's score with another class is a failure (the argmax is not the label).
:func:`shorten_failure` then deletes blocks of symbols while the word still fails, so the word
printed is short and readable (a 299-symbol random prefix becomes a few symbols when a few
suffice).
"""

from __future__ import annotations

import itertools
import time

import numpy as np

from ..values.floatrun import float_steps, rescaled
from .floatcheck import label_margins  # score[label] - max other score, the float check's own

__all__ = ["search_failure", "exit_failure", "beam_failure", "beam_worth_running", "shorten_failure", "first_failures",
           "compress_word", "BEAM_WIDTH", "BEAM_MAX_LENGTH"]

#: Words kept per length by the beam phase of :func:`search_failure`.
BEAM_WIDTH = 256
#: The beam phase searches words up to this length (the other phases go to the search length).
BEAM_MAX_LENGTH = 2000


def compress_word(automaton, word) -> str:
    """A word, run-length compressed: ``2^639``, ``(0 1)^320 0``, ``3^2 1 4^5``.

    >>> from bilinear.automata.families import from_spec
    >>> a = from_spec("cyclic:5")
    >>> compress_word(a, (2,) * 639), compress_word(a, (0, 1) * 3 + (0,)), compress_word(a, (3, 3, 1))
    ('2^639', '(0 1)^3 0', '3^2 1')
    """
    from bilinear.automata.words import compress

    return compress(word, automaton)


def first_failures(weights, automaton, words: np.ndarray, shortest: bool = False) -> np.ndarray:
    """Per word (rows of ``words``), the length of its shortest failing prefix in the float64
    run (0: the empty word; -1: none).  A tie counts as a failure.

    ``shortest``: only the shortest failures are wanted, so the run stops after the first step
    at which some word fails: the words failing there get that length, every other -1 (none
    fails sooner; whether they fail later is not run)."""
    A, h0, R = weights.float_arrays()
    h0, R = rescaled(h0), rescaled(R)  # exact, as float_run
    first = np.full(words.shape[0], -1)
    s0 = R @ (h0 / (np.linalg.norm(h0) or 1.0))
    lab0 = int(automaton.labels[automaton.start])
    if R.shape[0] > 1 and not s0[lab0] > np.delete(s0, lab0).max():
        return np.zeros(words.shape[0], dtype=int)
    if words.shape[1] == 0 or R.shape[0] == 1:
        return first
    labels = np.ascontiguousarray(automaton.labels[automaton.run_batch(words, trace=True)].T)  # (time, batch)
    R = rescaled(R)  # as float_run does to its readout
    for t, H in enumerate(float_steps(A, h0, words)):  # float_run's states; its scores, classes along rows
        bad = (label_margins(R @ H.T, labels[t]) <= 0) & (first < 0)  # scores (classes, batch)
        first[bad] = t + 1
        if shortest and bad.any():
            break
    return first


def _loops(weights, snap, k: int, top: int = 16) -> list[tuple[int, ...]]:
    """Loops of length 2 (all) and 3 (the ``top`` that drift most from the snap per use)."""
    loops = [u for u in itertools.product(range(k), repeat=2) if len(set(u)) > 1]
    if k**3 > 4096 or snap is None:
        return loops
    A, _, _ = weights.float_arrays()
    S, h, _ = snap.block_weights.float_arrays()
    P = np.eye(weights.dim) if snap.basis is None else np.array(snap.basis, dtype=float)
    F = np.einsum("ij,sjk,kl->sil", np.linalg.inv(P), A * np.array(snap.scale)[:, None, None], P)
    y = h / (np.linalg.norm(h) or 1.0)
    drift = {}
    for u in itertools.product(range(k), repeat=3):
        if len(set(u)) > 1:
            x, z = y, y
            for a in u:
                x, z = F[a] @ x, S[a] @ z
            drift[u] = float(np.linalg.norm(x - z))
    return loops + sorted(drift, key=drift.__getitem__, reverse=True)[:top]


def _certificate_words(automaton, length: int, limit: int = 256) -> list[np.ndarray]:
    from bilinear.automata.minimize import access_words

    reach = access_words(automaton)
    out = []
    for _state, w in sorted(zip(reach.states.tolist(), reach.words)):  # in state order
        if w and len(w) < length:
            out += [np.concatenate([np.array(w), np.full(length - len(w), a)]) for a in range(automaton.n_symbols)]
        if len(out) >= limit:
            break
    return out[:limit]


def search_failure(weights, automaton, length: int, snap=None, random_words: int = 256, seed: int = 0,
                   beam: bool = True, floor: int = 0):
    """The shortest failing word found (a tuple of symbol indices), or None (module docstring).

    Runs, up to ``length``: every symbol's powers, powers of the loops of :func:`_loops`, a
    shortest word reaching each automaton state followed by every symbol's powers, and
    ``random_words`` uniform random words (of length ``min(length, 2000)``; in the same float run
    as the others when that is ``length``); then every prefix of the directed words followed by one
    more symbol (:func:`exit_failure`, below the shortest failure so far and at most
    :data:`BEAM_MAX_LENGTH`); then, with ``beam``, the beam search on the margin
    (:func:`beam_failure`) up to one less than the shortest failure found so far, and at most
    :data:`BEAM_MAX_LENGTH`.  Only a shorter failure can replace the best one, so every run stops
    at its first failing step and a later one runs only below the best found (the same word as
    running every word to its end: the first of the shortest, in this order).

    ``floor``: no word of that length or shorter fails (a certified horizon), so a failure of
    length ``floor + 1`` ends the search (the beam cannot shorten it), and the beam confirms no
    failure at or below it (the confirmation could not succeed).  The beam steps through those
    ``floor`` lengths before it can confirm anything, so it runs only where the lengths it could
    still find, ``floor + 1`` to one less than the failure found, are at least as many
    (:func:`beam_worth_running`): otherwise more than half of its work could not shorten the
    word, and the failure kept is at most ``2 floor + 1`` symbols long, within a factor two of
    the certified length.  Whether the beam runs is decided before the exits, which only shorten
    its range.
    """
    k = weights.n_symbols
    words = [np.full(length, a) for a in range(k)]
    words += [np.resize(np.array(u), length) for u in _loops(weights, snap, k)]
    words += _certificate_words(automaton, length)
    batches = [np.stack(words)]
    if random_words:
        rng = np.random.default_rng(seed)
        batches.append(rng.integers(0, k, size=(random_words, min(length, 2000))))
        if batches[1].shape[1] == length:  # one run for both: the directed words first, as before
            batches = [np.concatenate(batches)]
    best = None
    for batch in batches:
        if best is not None:  # only a strictly shorter failure can replace it: no longer run
            batch = batch[:, : len(best) - 1]
        first = first_failures(weights, automaton, batch, shortest=True)  # stops at its first failure
        hit = np.nonzero(first >= 0)[0]
        if hit.size:  # all at one length: the first such word, as the order of the phases ranks them
            best = tuple(int(x) for x in batch[hit[0], : first[hit[0]]])
    top = min(BEAM_MAX_LENGTH, length if best is None else len(best) - 1)  # the longest word the beam may return
    worth = beam and beam_worth_running(top, floor)  # decided before the exits: they only shorten its range
    if top > floor:
        found = exit_failure(weights, automaton, batches[0][: len(words), : top - 1], floor=floor)
        if found is not None and (best is None or len(found) < len(best)):
            best = found
            top = min(top, len(best) - 1)
    if worth and top > floor:
        found = beam_failure(weights, automaton, top, floor=floor)
        if found is not None and (best is None or len(found) < len(best)):
            best = found
    return best


def exit_failure(weights, automaton, words: np.ndarray, floor: int = 0) -> tuple[int, ...] | None:
    """The shortest failing word among every prefix of ``words`` (batch, time) followed by one
    more symbol, or None: one float run of ``words`` (as :func:`first_failures`), every symbol
    applied to every state of it.  A prefix that runs right can still end in a state that one
    more symbol sends across the readout's boundary (``flipflop:2`` ``full`` with noise 1e-2:
    ``w1 r^69 w0``, the read symbol's powers turn the state set by ``w1`` past the line ``w0``
    maps to the wrong class), and neither the powers nor the beam (which keeps the smallest
    margins, not those one symbol from a failure) find it.  Candidates are confirmed by
    :func:`first_failures`, the run every check uses; none of length ``floor`` or less."""
    A, h0, R = weights.float_arrays()
    if R.shape[0] < 2 or words.size == 0:
        return None
    from ..values.floatrun import scale_exponents

    As = np.ldexp(A, -scale_exponents(A)[:, None, None])  # as float_steps scales them
    k, d, n = As.shape[0], As.shape[1], words.shape[0]
    At = np.ascontiguousarray(As.transpose(2, 0, 1).reshape(d, k * d))  # H @ At: A_c h for every row and c
    R = rescaled(R)
    states = automaton.run_batch(words, trace=True)  # (batch, time)
    label_of = np.asarray(automaton.labels)[np.asarray(automaton.delta)]  # [c, q]: the label after c from q
    for t, H in enumerate(float_steps(A, h0, words)):
        if t + 2 <= floor:
            continue
        S = (H @ At).reshape(n * k, d) @ R.T  # row b k + c; a positive row scale changes no argmax
        lab = label_of[:, states[:, t]].T.reshape(n * k)
        bad = np.nonzero(label_margins(S.T, lab) <= 0)[0]
        if bad.size:
            cands = np.array([np.append(words[i // k, : t + 1], i % k) for i in bad[:256]])
            first = first_failures(weights, automaton, cands)
            hit = np.nonzero(first > floor)[0]
            if hit.size:
                i = int(hit[np.argmin(first[hit])])
                return tuple(int(x) for x in cands[i, : first[i]])
    return None


def beam_worth_running(top: int, floor: int) -> bool:
    """Whether :func:`search_failure` runs the beam up to length ``top`` above a certified
    ``floor``: it steps through lengths 1 to ``floor`` without being able to confirm a failure
    there, and can find one only at lengths ``floor + 1`` to ``top``; it runs when those are
    some, and at least as many as the lengths it steps through first.

    >>> beam_worth_running(139, 27), beam_worth_running(1256, 725), beam_worth_running(1, 0)
    (True, False, True)
    >>> beam_worth_running(54, 27), beam_worth_running(53, 27), beam_worth_running(27, 27)
    (True, False, False)
    """
    window = top - floor  # the lengths floor + 1 .. top
    return window >= 1 and window >= floor


def beam_failure(weights, automaton, length: int, width: int = BEAM_WIDTH, floor: int = 0) -> tuple[int, ...] | None:
    """A beam search on the margin: the ``width`` words of each length with the smallest margin
    (the label's score minus the best other's, in the float64 run renormalised every step, each
    matrix first divided by the power of two :func:`~bilinear.constructions.values.floatrun.float_run`
    divides it by) are each extended by every symbol, up to ``length``; the first failing word
    (confirmed by :func:`first_failures`, the run every check uses) is returned, else None.  It
    finds failures that no periodic or random word of the other phases reaches first (a prefix
    that sets a badly phased block up, then the loop that grows it).  The words are kept as
    parent pointers, so a step costs the same at any length.  ``floor``: no word of that length
    or shorter fails in that run (a certified horizon), so no failure is confirmed up to it."""
    from ..values.floatrun import scale_exponents

    A, h0, R = weights.float_arrays()
    if R.shape[0] < 2 or length < 1:
        return None
    A = np.ldexp(A, -scale_exponents(A)[:, None, None])  # exact, as float_run
    h0, R = rescaled(h0), rescaled(R)
    k, d = A.shape[0], A.shape[1]
    At = np.ascontiguousarray(A.transpose(2, 0, 1).reshape(d, k * d))  # H @ At: A_s h of every word and symbol, one GEMM
    after = np.ascontiguousarray(np.asarray(automaton.delta).T)  # after[q, s] = delta(s, q)
    label_after = np.asarray(automaton.labels)[after]  # the label reached from q by s
    H = (h0 / (np.linalg.norm(h0) or 1.0))[None, :]
    Q = np.array([int(automaton.start)])
    kept: list[np.ndarray] = []  # per step, the kept words' rows b k + s: parent b in the previous beam, symbol s

    def word(i: int) -> tuple[int, ...]:  # the word of row i of the current step
        out = [i % k]
        i //= k
        for keep in reversed(kept):
            i = int(keep[i])
            out.append(i % k)
            i //= k
        return tuple(reversed(out))

    for _t in range(length):
        B = H.shape[0]
        Hn = (H @ At).reshape(B * k, d)  # row b k + s: A_s h_b
        n = np.sqrt(np.add.reduce(Hn * Hn, axis=1))  # np.linalg.norm's own sums, without its checks
        Hn /= np.where(n > 0, n, 1.0)[:, None]
        margin = label_margins(R @ Hn.T, label_after[Q].reshape(B * k))  # scores (classes, words)
        bad = np.nonzero(margin <= 0)[0]
        if bad.size and _t + 1 > floor:  # confirmed by the one float run every check uses (rounding may differ)
            cands = [word(int(i)) for i in bad[:width]]
            first = first_failures(weights, automaton, np.array(cands))
            hit = np.nonzero(first >= 0)[0]
            if hit.size:
                i = int(hit[np.argmin(first[hit])])
                return cands[i][: first[i]]
        keep = np.argsort(margin, kind="stable")[:width]
        H, Q = Hn[keep], after[Q[keep // k], keep % k]
        kept.append(keep)
    return None


def shorten_failure(weights, automaton, word, seconds: float = 5.0, batch: int = 256, floor: int = 0):
    """A failing word no longer than ``word`` (a shortest failing prefix, as :func:`search_failure`
    returns it: it fails at its last position and at no earlier one): blocks of
    symbols are deleted while some prefix of the result still fails (block sizes halving from
    half the word to one symbol; at most ``batch`` deletions tried per size, one float run per
    size), for at most ``seconds``.  Returns the shortest failing prefix found.

    ``floor``: no word of that length or shorter fails (a certified horizon), so a word of length
    ``floor + 1`` is returned at once, and deletions that leave ``floor`` symbols or fewer are not
    run (they could not fail): the same word, without the runs that cannot shorten it.  Nor are a
    deletion that repeats another (a periodic word's) or one that leaves a prefix of the word
    (``word`` is a shortest failing prefix: none of its own prefixes fails)."""
    word = tuple(int(x) for x in word)
    if len(word) <= max(1, floor + 1):
        return word
    deadline = time.monotonic() + seconds
    size = max(1, len(word) // 2)
    while size >= 1 and time.monotonic() < deadline:
        starts = list(range(0, len(word) - size + 1, max(1, size)))
        if len(starts) > batch:  # spread the tries over the word
            starts = [starts[int(i)] for i in np.linspace(0, len(starts) - 1, batch)]
        # deleting word[s : s + size] leaves a prefix of the word (no failure before its end) exactly
        # when the rest from s has period size: only starts up to the last break of that period
        w = np.asarray(word)
        breaks = np.nonzero(w[size:] != w[:-size])[0]
        last = int(breaks[-1]) if breaks.size else -1
        cands = [word[:s] + word[s + size:] for s in starts if s <= last]
        cands = [c for c in cands if len(c) > floor]  # (the empty word, and words certified right)
        cands = list(dict.fromkeys(cands))  # a periodic word's deletions repeat: one run each (first kept)
        improved = False
        if cands:
            width = max(len(c) for c in cands)
            M = np.zeros((len(cands), width), dtype=np.int64)
            for i, c in enumerate(cands):
                M[i, :len(c)] = c
            first = first_failures(weights, automaton, M)
            lens = np.array([len(c) for c in cands])
            ok = (first >= 0) & (first <= lens) & (first < len(word))
            if ok.any():
                i = int(np.argmin(np.where(ok, first, np.iinfo(np.int64).max)))
                word, improved = cands[i][: first[i]], True
        if not improved:
            size //= 2
        else:
            size = min(size, max(1, len(word) // 2))
    return word
