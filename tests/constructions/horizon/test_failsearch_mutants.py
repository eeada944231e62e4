"""The failing-word search (constructions/horizon/failsearch.py) against references written here:
a plain float64 run (h = A[s] h, divided by its norm, the label's score against the best other's;
a tie fails), the shortest failure of every word up to a small length by exhaustive enumeration,
access words by a breadth-first walk, and the directed phases' order spelt out.  These kill the
operator mutants of ``benchmarks/mutate_auto.py -k failsearch`` that the older tests left alive: a
wrong word or a wrong length is what ``certify`` prints as "fails at length N on WORD"."""

from __future__ import annotations

import itertools
from types import SimpleNamespace

import numpy as np
import pytest

from bilinear.automata import from_spec
from bilinear.constructions.handmade.registry import build
from bilinear.constructions.horizon.failsearch import (_certificate_words, _loops, beam_failure, beam_worth_running,
                                                        exit_failure, first_failures, search_failure, shorten_failure)
from bilinear.constructions.values.weights import Weights

PARITY = from_spec("parity")
CYC3 = from_spec("cyclic:3")
FLIP = from_spec("flipflop:2")


# ------------------------------------------------------------------------------------------
# references
# ------------------------------------------------------------------------------------------
def _first(w: Weights, a, words, shortest: bool = False) -> np.ndarray:
    """Per word, the length of its shortest failing prefix in a plain float64 run (0 the empty
    word, -1 none): the state divided by its norm every step (a zero state left 0), a failure
    where the label's score is not strictly above every other (a tie, or NaN).  ``shortest``:
    only the shortest failures (the run stops at the first length where some word fails)."""
    A, h0, R = w.float_arrays()
    words = np.asarray(words, dtype=np.int64).reshape(len(words), -1)
    n, T = words.shape
    H = np.tile(h0 / np.linalg.norm(h0), (n, 1))
    q = np.full(n, int(a.start))
    out = np.full(n, -1)
    for t in range(T + 1):
        if t:
            H = np.einsum("bij,bj->bi", A[words[:, t - 1]], H)
            norm = np.linalg.norm(H, axis=1, keepdims=True)
            H = H / np.where(norm > 0, norm, 1.0)
            q = np.asarray(a.delta)[words[:, t - 1], q]
        S = H @ R.T
        lab = np.asarray(a.labels)[q]
        own = S[np.arange(n), lab].copy()
        S[np.arange(n), lab] = -np.inf
        bad = ~(own > S.max(axis=1)) & (out < 0)
        out[bad] = t
        if shortest and bad.any():
            break
    return out


def _fails_at_its_end(w, a, word) -> bool:
    return int(_first(w, a, [tuple(word)])[0]) == len(word)


def _exhaustive(w, a, longest: int):
    """The shortest failing length over every word up to ``longest`` symbols, and the words of
    that length that fail (at their end: their prefixes are shorter, and right)."""
    for m in range(1, longest + 1):
        words = np.array(list(itertools.product(range(a.n_symbols), repeat=m)))
        f = _first(w, a, words)
        if (f == m).any():
            return m, {tuple(int(x) for x in row) for row in words[f == m]}
    return None, set()


def _access(a) -> list[tuple[int, ...] | None]:
    """Per state (index order), its shortlex-least word from the start, or None when unreachable."""
    best: dict[int, tuple[int, ...]] = {int(a.start): ()}
    level: list[tuple[int, ...]] = [()]
    while level:
        nxt: list[tuple[int, ...]] = []
        for u in level:
            q = int(a.start)
            for x in u:
                q = int(a.delta[x, q])
            for s in range(a.n_symbols):
                r = int(a.delta[s, q])
                if r not in best:
                    best[r] = u + (s,)
                    nxt.append(u + (s,))
        level = nxt
    return [best.get(q) for q in range(a.n_states)]


def _directed(w, a, length: int, loops=None) -> list[tuple[int, ...]]:
    """search_failure's directed words in its order (module docstring): every symbol's powers,
    the loops' powers (length 2: every ordered pair of two different symbols), then a shortest
    word to each state (state order) followed by every symbol's powers (at most 256)."""
    k = a.n_symbols
    out = [(s,) * length for s in range(k)]
    loops = [u for u in itertools.product(range(k), repeat=2) if u[0] != u[1]] if loops is None else loops
    out += [tuple(u[i % len(u)] for i in range(length)) for u in loops]
    cert = []
    for u in _access(a):
        if u and len(u) < length:
            cert += [u + (s,) * (length - len(u)) for s in range(k)]
    return out + cert[:256]


def _shortest_in(w, a, words):
    """The first of the shortest failing prefixes of ``words`` (in their order), or None."""
    if not words:
        return None
    f = _first(w, a, words, shortest=True)
    if not (f >= 0).any():
        return None
    m = int(f[f >= 0].min())
    i = int(np.nonzero(f == m)[0][0])
    return tuple(words[i][:m])


def _exits(w, a, words, floor: int = 0):
    """exit_failure's promise, by enumeration: the prefixes of 1..T symbols of every word followed
    by every symbol, shortest prefix first (then word, then symbol order); the first whose own
    shortest failing prefix is longer than ``floor``, cut there."""
    T = max((len(u) for u in words), default=0)
    for t in range(1, T + 1):
        cands = [tuple(u[:t]) + (c,) for u in words if len(u) >= t for c in range(a.n_symbols)]
        f = _first(w, a, cands)
        ok = np.nonzero(f > floor)[0]
        if ok.size:
            i = int(ok[np.argmin(f[ok])])
            return cands[i][: f[i]]
    return None


def _search(w, a, length: int, random_words: int = 0, seed: int = 0, floor: int = 0):
    """search_failure with beam=False (its docstring): the directed words, the random ones (one
    run with the others when as long), a later phase kept only when strictly shorter; then the
    exits of the directed words below the best, and above the floor."""
    k = a.n_symbols
    directed = _directed(w, a, length)
    rand = []
    if random_words:
        rand = [tuple(int(x) for x in r) for r in
                np.random.default_rng(seed).integers(0, k, size=(random_words, min(length, 2000)))]
    if rand and len(rand[0]) == length:
        best = _shortest_in(w, a, directed + rand)
    else:
        best = _shortest_in(w, a, directed)
        other = _shortest_in(w, a, rand)
        if other is not None and (best is None or len(other) < len(best)):
            best = other
    top = min(2000, length if best is None else len(best) - 1)
    if top > floor:
        found = _exits(w, a, [u[: top - 1] for u in directed], floor)
        if found is not None and (best is None or len(found) < len(best)):
            best = found
    return best


def _noisy(spec: str, seed: int, noise: float) -> Weights:
    """A construction as floats, each matrix entry moved by noise * N(0, 1)."""
    variant = "full" if spec.startswith("flipflop") else "rotation2d"
    A, h, R = build(spec, variant).to_float().float_arrays()
    A = A + noise * np.random.default_rng(seed).normal(size=A.shape)
    return Weights("full", A, h, R)


def _turning(theta: float) -> Weights:
    """parity: 0 turns the state by theta, 1 negates it, the readout +-x: the margin after any word
    with n zeros is 2 cos(n theta), so with theta = 0.4 a word fails first at its fourth 0."""
    c, s = np.cos(theta), np.sin(theta)
    return Weights("full", np.array([[[c, -s], [s, c]], -np.eye(2)]), [1.0, 0.0], [[1.0, 0.0], [-1.0, 0.0]])


# the exactly tied network: 0 turns (1, 0) to (0, 1) exactly, where both classes score 0
QUARTER = Weights("full", np.array([[[0.0, -1.0], [1.0, 0.0]], -np.eye(2)]), [1.0, 0.0], [[1.0, 0.0], [-1.0, 0.0]])
TURN = _turning(0.4)
# (spec, seed, noise): drifting networks whose shortest failure is 3 to 7 symbols
DRIFTING = [("parity", 3, 0.2), ("parity", 5, 0.2), ("parity", 5, 0.3), ("cyclic:3", 0, 0.3), ("cyclic:3", 2, 0.2),
            ("cyclic:3", 3, 0.1), ("cyclic:3", 5, 0.2), ("flipflop:2", 4, 0.1), ("flipflop:2", 3, 0.1),
            ("cyclic:3", 4, 0.2)]


# ------------------------------------------------------------------------------------------
# first_failures
# ------------------------------------------------------------------------------------------
def test_first_failures_gives_every_words_own_length_by_hand():
    words = np.array([[0, 0, 0, 0, 0, 0], [0, 0, 1, 0, 0, 1], [1, 0, 1, 0, 0, 0], [1, 1, 1, 1, 1, 1]])
    assert first_failures(TURN, PARITY, words).tolist() == [4, 5, 6, -1]  # the fourth 0
    assert first_failures(TURN, PARITY, words, shortest=True).tolist() == [4, -1, -1, -1]
    assert first_failures(TURN, PARITY, words[1:], shortest=True).tolist() == [5, -1, -1]
    assert first_failures(TURN, PARITY, words[3:], shortest=True).tolist() == [-1]
    assert _first(TURN, PARITY, words).tolist() == [4, 5, 6, -1]


def test_a_tie_is_a_failure_at_every_length():
    assert first_failures(QUARTER, PARITY, np.array([[0, 1], [1, 0], [1, 1]])).tolist() == [1, 2, -1]
    at_start = Weights("full", QUARTER.float_arrays()[0], [0.0, 1.0], [[1.0, 0.0], [-1.0, 0.0]])  # scores 0, 0
    assert first_failures(at_start, PARITY, np.array([[1, 1], [0, 1]])).tolist() == [0, 0]
    wrong = Weights("full", QUARTER.float_arrays()[0], [-1.0, 0.0], [[1.0, 0.0], [-1.0, 0.0]])
    assert first_failures(wrong, PARITY, np.array([[1, 1]])).tolist() == [0]


def test_no_symbols_or_one_class_fail_nowhere():
    assert first_failures(TURN, PARITY, np.zeros((3, 0), dtype=np.int64)).tolist() == [-1, -1, -1]
    A = TURN.float_arrays()[0]
    one = Weights("full", A, [1.0, 0.0], [[1.0, 0.0]])  # one class: its argmax is always the label 0
    assert first_failures(one, PARITY, np.array([[0] * 8, [1] * 8])).tolist() == [-1, -1]


def test_more_classes_than_hidden_coordinates_and_the_reverse():
    """A readout of 3 rows on 2 coordinates (cyclic:3), and 2 rows on 3 coordinates (parity)."""
    w = _noisy("cyclic:3", 3, 0.1)
    words = np.array(list(itertools.product(range(3), repeat=5)))
    assert first_failures(w, CYC3, words).tolist() == _first(w, CYC3, words).tolist()
    A = TURN.float_arrays()[0]
    A3 = np.zeros((2, 3, 3))
    A3[:, :2, :2], A3[:, 2, 2] = A, 0.5
    w3 = Weights("full", A3, [1.0, 0.0, 1.0], [[1.0, 0.0, 0.0], [-1.0, 0.0, 0.0]])
    words = np.array(list(itertools.product(range(2), repeat=6)))
    got = first_failures(w3, PARITY, words)
    assert got.tolist() == _first(w3, PARITY, words).tolist() and sorted(set(got.tolist())) == [-1, 4, 5, 6]


# ------------------------------------------------------------------------------------------
# the loops and the access words
# ------------------------------------------------------------------------------------------
def _fake_snap(k: int, seed: int):
    r = np.random.default_rng(seed)
    S = Weights("full", r.normal(size=(k, 2, 2)), [0.6, -0.8], [[1.0, 0.0], [-1.0, 0.0]])
    return SimpleNamespace(block_weights=S, basis=np.array([[1.0, 2.0], [0.0, 1.0]]),
                           scale=tuple(0.5 + r.random(k)))


def test_loops_are_the_pairs_then_the_triples_that_drift_most():
    pairs = [(0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1)]
    w = _noisy("cyclic:3", 1, 0.1)
    assert _loops(w, None, 3) == pairs
    snap = _fake_snap(3, 0)
    A = w.float_arrays()[0]
    S, h, _ = snap.block_weights.float_arrays()
    P = snap.basis
    y = h / np.linalg.norm(h)
    drift = {}
    for u in itertools.product(range(3), repeat=3):
        if len(set(u)) > 1:
            x, z = y, y
            for s in u:  # the float matrix scaled and written in the snap's basis, against the snap
                x, z = np.linalg.solve(P, snap.scale[s] * A[s] @ P @ x), S[s] @ z
            drift[u] = np.linalg.norm(x - z)
    ranked = sorted(drift, key=lambda u: -drift[u])
    assert _loops(w, snap, 3, top=5) == pairs + ranked[:5]
    assert _loops(w, snap, 3) == pairs + ranked[:16]


def test_loops_of_three_up_to_16_symbols():
    """k^3 at most 4096: the triples are ranked (16 symbols: 4096 of them); beyond, pairs only."""
    for k, triples in ((16, 2), (17, 0)):
        A = np.random.default_rng(k).normal(size=(k, 2, 2))
        w = Weights("full", A, [1.0, 0.0], [[1.0, 0.0], [-1.0, 0.0]])
        got = _loops(w, _fake_snap(k, 1), k, top=2)
        assert len(got) == k * (k - 1) + triples
        assert all(len(u) == 3 and len(set(u)) > 1 for u in got[k * (k - 1):])


def test_certificate_words_are_the_access_words_then_each_symbols_powers():
    for a in (CYC3, FLIP, from_spec("dihedral:3")):
        k = a.n_symbols
        expected = [u + (s,) * (5 - len(u)) for u in _access(a) if u for s in range(k)]
        got = [tuple(int(x) for x in v) for v in _certificate_words(a, 5)]
        assert got == expected[:256] and len(got) == k * (a.n_states - 1)
        assert [tuple(v) for v in _certificate_words(a, 5, limit=k + 1)] == expected[: k + 1]
    assert _certificate_words(CYC3, 1) == []  # the access words (1,), (2,) are not shorter than 1
    long = _certificate_words(from_spec("cyclic:17"), 3)  # 16 states past the start, 17 symbols each
    assert len(long) == 256 and tuple(long[-1]) == (16, 0, 0)  # 256 = 15 x 17 + 1: state 16, symbol 0


# ------------------------------------------------------------------------------------------
# beam_worth_running, beam_failure, exit_failure
# ------------------------------------------------------------------------------------------
def test_the_beam_is_not_worth_running_on_no_lengths():
    assert not beam_worth_running(0, 0) and beam_worth_running(2, 1) and not beam_worth_running(5, 5)


@pytest.mark.parametrize("spec,seed,noise", DRIFTING)
def test_the_beam_finds_the_exhaustive_shortest_failure(spec, seed, noise):
    """Up to 8 symbols (parity) or 5 (3 symbols) the beam of 256 keeps every word: its word is one
    of the shortest failing words found by enumerating them all, with or without a floor below."""
    a, w = from_spec(spec), _noisy(spec, seed, noise)
    m, failing = _exhaustive(w, a, 7)
    assert m is not None
    word = beam_failure(w, a, 12)
    assert word in failing
    assert beam_failure(w, a, 12, floor=m - 1) in failing
    assert beam_failure(w, a, m) in failing and beam_failure(w, a, m - 1) is None


def test_the_beam_returns_a_tie_and_a_zero_state_at_length_one():
    assert beam_failure(QUARTER, PARITY, 1) == (0,)
    zero = Weights("full", np.array([np.eye(2), np.zeros((2, 2))]), [1.0, 0.0], [[1.0, 0.0], [-1.0, 0.0]])
    assert _first(zero, PARITY, [(1,)]).tolist() == [1] and first_failures(zero, PARITY, np.array([[1]])).tolist() == [1]
    assert beam_failure(zero, PARITY, 5) == (1,)


def test_the_beam_on_matrices_past_the_float_range():
    """Matrices times 2^700: squared norms would overflow without the powers of two taken out."""
    w = _noisy("cyclic:3", 0, 0.3)
    A, h, R = w.float_arrays()
    big = Weights("full", A * 2.0**700, h, R)
    m, failing = _exhaustive(w, CYC3, 6)
    assert beam_failure(big, CYC3, 10) in failing
    assert exit_failure(big, CYC3, np.array([[2] * 6])) == _exits(w, CYC3, [(2,) * 6]) == (2, 2, 2, 2, 2, 1)


def test_the_beam_of_width_one_follows_the_smallest_margin_of_unnormalised_matrices():
    """Width 1 keeps the one word whose unit state has the smallest margin; the matrices here
    scale states by very different factors, so an unnormalised margin would choose others."""
    r = np.random.default_rng(7)
    A = r.normal(size=(3, 2, 2)) * np.array([1.0, 30.0, 0.02])[:, None, None]
    w = Weights("full", A, [1.0, 0.0], np.array(build("cyclic:3", "rotation2d").to_float().float_arrays()[2]))
    greedy: tuple = ()
    for _ in range(40):
        cands = [greedy + (s,) for s in range(3)]
        A_, h0, R = w.float_arrays()
        margins = []
        for u in cands:
            h = h0 / np.linalg.norm(h0)
            q = 0
            for s in u:
                h = A_[s] @ h
                h = h / np.linalg.norm(h)
                q = int(CYC3.delta[s, q])
            sc = R @ h
            margins.append(sc[CYC3.labels[q]] - np.delete(sc, CYC3.labels[q]).max())
        greedy = cands[int(np.argmin(margins))]
        if min(margins) <= 0:
            break
    word = beam_failure(w, CYC3, 40, width=1)
    assert word is not None and word[:-1] == greedy[:-1] and _fails_at_its_end(w, CYC3, word)


def test_exit_failure_by_hand():
    """After 0 0 0 the next 0 is the fourth (margin 2 cos 1.6 < 0); 1s never fail."""
    words = np.array([[0, 0, 0, 1, 1, 1], [1] * 6])
    assert exit_failure(TURN, PARITY, words) == (0, 0, 0, 0)
    assert exit_failure(TURN, PARITY, words, floor=4) == (0, 0, 0, 1, 0)
    assert exit_failure(TURN, PARITY, words, floor=3) == (0, 0, 0, 0)
    assert exit_failure(TURN, PARITY, np.array([[1] * 6])) is None
    assert exit_failure(QUARTER, PARITY, np.array([[1]])) == (1, 0)  # a one-symbol word's exits
    assert exit_failure(QUARTER, PARITY, np.zeros((2, 0), dtype=np.int64)) is None
    one = Weights("full", QUARTER.float_arrays()[0], [1.0, 0.0], [[1.0, 0.0]])
    assert exit_failure(one, PARITY, np.array([[1, 1]])) is None


def test_exit_failure_has_none_of_length_floor_or_less():
    """The empty word fails: every candidate's shortest failing prefix is empty, of length 0."""
    wrong = Weights("full", QUARTER.float_arrays()[0], [-1.0, 0.0], [[1.0, 0.0], [-1.0, 0.0]])
    assert exit_failure(wrong, PARITY, np.array([[1, 1, 1]])) is None


@pytest.mark.parametrize("spec,seed,noise", DRIFTING)
def test_exit_failure_is_the_enumerated_one(spec, seed, noise):
    a, w = from_spec(spec), _noisy(spec, seed, noise)
    m, _ = _exhaustive(w, a, 7)
    directed = _directed(w, a, 9)
    got = exit_failure(w, a, np.array(directed))
    assert got == _exits(w, a, directed) and (got is None or _fails_at_its_end(w, a, got))
    assert exit_failure(w, a, np.array(directed), floor=m) == _exits(w, a, directed, m)


# ------------------------------------------------------------------------------------------
# search_failure and shorten_failure
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("spec,seed,noise", DRIFTING)
def test_search_failure_is_the_shortest_and_its_phases_word(spec, seed, noise):
    a, w = from_spec(spec), _noisy(spec, seed, noise)
    m, failing = _exhaustive(w, a, 7)
    found = search_failure(w, a, 30)
    assert found in failing  # the beam keeps every word this short: the shortest of all
    assert search_failure(w, a, 30, random_words=0) in failing  # cyclic:3 (0, 5): the beam's, one below the rest
    assert search_failure(w, a, 30, floor=m - 1) in failing
    assert search_failure(w, a, 30, beam=False, random_words=0) == _search(w, a, 30)
    assert search_failure(w, a, 30, beam=False, random_words=8, seed=2) == _search(w, a, 30, 8, 2)
    assert search_failure(w, a, 2001, beam=False, random_words=8, seed=2) == _search(w, a, 2001, 8, 2)


def test_search_failure_keeps_the_earlier_phases_word_on_a_tie():
    """Every word with its fourth 0 fails there: the powers' 0^4 first, not a random word's."""
    assert search_failure(TURN, PARITY, 2001, random_words=64) == (0, 0, 0, 0)
    assert search_failure(TURN, PARITY, 40, random_words=64, floor=3) == (0, 0, 0, 0)
    assert search_failure(QUARTER, PARITY, 10) == (0,)


def test_shorten_failure_returns_a_failing_word_no_longer():
    w = _noisy("cyclic:3", 3, 0.1)
    m, failing = _exhaustive(w, CYC3, 6)
    long = (0, 0, 0) + min(failing)
    assert _fails_at_its_end(w, CYC3, long)
    short = shorten_failure(w, CYC3, long)
    assert _fails_at_its_end(w, CYC3, short) and len(short) <= len(long)


def test_search_failure_runs_up_to_its_length_and_no_further():
    """TURN fails first at a fourth 0: nothing within 3 symbols (not even one exit past them)."""
    assert search_failure(TURN, PARITY, 3, random_words=0) is None
    assert search_failure(TURN, PARITY, 3) is None
    assert search_failure(TURN, PARITY, 4, random_words=0, beam=False) == (0, 0, 0, 0)


def test_search_failure_of_a_network_wrong_on_the_empty_word_is_the_empty_word():
    wrong = Weights("full", QUARTER.float_arrays()[0], [-1.0, 0.0], [[1.0, 0.0], [-1.0, 0.0]])
    assert search_failure(wrong, PARITY, 10, beam=False) == ()
    assert search_failure(wrong, PARITY, 10, beam=False, random_words=0) == ()


@pytest.mark.parametrize("spec,seed,noise,length", [(*case, 30) for case in DRIFTING[:4]] + [("cyclic:3", 38, 0.15, 20)])
def test_search_failure_with_its_default_random_words(spec, seed, noise, length):
    """256 random words of seed 0 (the signature's defaults); on cyclic:3 seed 38 (found by trying
    networks here) the search's word has 13 symbols, where one more random word (the 257th of the
    same stream) would fail at 11."""
    a, w = from_spec(spec), _noisy(spec, seed, noise)
    assert search_failure(w, a, length, beam=False) == _search(w, a, length, 256, 0)


def test_shorten_failure_deletes_every_symbol_not_needed_by_hand():
    """TURN: a word fails exactly where its fourth 0 is, whatever its 1s, and deleting a 1 keeps
    it failing: at size 1 (every single deletion tried) the 1s go, down to 0^4, the one shortest
    failing word.  (0 0 0 1 0): only the deletion at the last change of symbol (the 1) fails."""
    for word in ((1, 0, 1, 0, 1, 0, 1, 0), (1, 1, 0, 0, 1, 1, 0, 0), (0, 0, 1, 0, 0), (0, 0, 0, 1, 0),
                 (0, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0)):
        assert _fails_at_its_end(TURN, PARITY, word)
        assert shorten_failure(TURN, PARITY, word) == (0, 0, 0, 0)
    assert shorten_failure(QUARTER, PARITY, (1, 0)) == (0,)  # two symbols: (0,) alone ties
    assert shorten_failure(TURN, PARITY, (1, 0, 1, 0, 1, 0, 1, 0), seconds=0.0) == (1, 0, 1, 0, 1, 0, 1, 0)


def test_shorten_failure_above_a_floor():
    """floor 3 (no word of 3 symbols fails): 1 0^4 still loses its 1; a word of floor + 1 symbols
    is returned at once (the docstring)."""
    assert shorten_failure(TURN, PARITY, (1, 0, 0, 0, 0), floor=3) == (0, 0, 0, 0)
    assert shorten_failure(TURN, PARITY, (0, 1, 0, 0, 0), floor=3) == (0, 0, 0, 0)
    assert shorten_failure(TURN, PARITY, (1, 0, 0, 0, 0), floor=4) == (1, 0, 0, 0, 0)


def test_shorten_failure_tries_batch_deletions_spread_over_the_word_by_hand():
    """batch 2 on (1 0)^4: sizes 4 and 2 leave prefixes or too few 0s (the word has period 2);
    at size 1 the starts 0..7 are spread to 0 and 7, and the last change of symbol is at 6:
    start 0 only, leaving (0 1)^3 0 (four 0s, failing at its end).  Then the starts 0..6 are
    spread to 0 and 6, 6 past the last change (5): deleting the first 0 leaves three; nothing
    more.  (1 1 0 0)^2: size 4 leaves prefixes; size 2 spreads 0, 2, 4, 6 to 0 and 6, and
    deleting 1 1 at 0 leaves 0 0 1 1 0 0 (four 0s); then size 2 (starts 0 and 4, the last change
    at 3: deleting 0 0 leaves two) and size 1 (starts 0 and 5, the last change at 3: deleting the
    first 0 leaves three) find nothing more."""
    assert shorten_failure(TURN, PARITY, (1, 0) * 4, batch=2) == (0, 1, 0, 1, 0, 1, 0)
    assert shorten_failure(TURN, PARITY, (1, 1, 0, 0) * 2, batch=2) == (0, 0, 1, 1, 0, 0)


@pytest.mark.parametrize("spec,seed,noise", [("cyclic:3", 5, 0.3), ("flipflop:2", 4, 0.15)])
def test_random_words_of_2000_replace_only_a_longer_word(spec, seed, noise):
    """Past 2000 symbols the random words are a run of their own, after the directed words
    (found by trying networks here): on cyclic:3 both fail first at 4 symbols (the powers' 2 0^3
    is kept), on flipflop:2 the random words at 3, one less than the directed words."""
    a, w = from_spec(spec), _noisy(spec, seed, noise)
    directed = _shortest_in(w, a, _directed(w, a, 2001))
    rand = _shortest_in(w, a, [tuple(r) for r in np.random.default_rng(0).integers(0, a.n_symbols, size=(8, 2000))])
    assert directed is not None and rand is not None and len(rand) in (len(directed), len(directed) - 1)
    assert search_failure(w, a, 2001, beam=False, random_words=8) == _search(w, a, 2001, 8, 0)


def test_a_failure_only_the_beam_finds():
    """flipflop:2 seed 20 (found by trying networks here): no directed word nor exit fails within
    12 symbols; the beam finds the shortest failure of all, 5 symbols."""
    w = _noisy("flipflop:2", 20, 0.2)
    m, failing = _exhaustive(w, FLIP, 6)
    assert m == 5 and _search(w, FLIP, 12) is None
    assert search_failure(w, FLIP, 12, random_words=0, beam=False) is None
    assert search_failure(w, FLIP, 12, random_words=0) in failing


def test_a_one_dimensional_network():
    """Hidden size 1, two classes (the readout +-1): 0 negates the state where parity keeps it."""
    w = Weights("full", np.array([[[-1.0]], [[-1.0]]]), [1.0], [[1.0], [-1.0]])
    assert first_failures(w, PARITY, np.array([[1, 1, 0], [0, 1, 1]])).tolist() == [3, 1]
    assert exit_failure(w, PARITY, np.array([[1, 1]])) == (1, 0)
    assert beam_failure(w, PARITY, 3) == (0,) and search_failure(w, PARITY, 5) == (0,)


def test_exit_failure_keeps_a_failure_of_one_symbol():
    """(0, c) both fail at their first symbol (a tie): the exit's word is that one symbol, above
    the default floor 0."""
    assert exit_failure(QUARTER, PARITY, np.array([[0, 1]])) == (0,)


def _runs_of_shorten(monkeypatch, w, word, **kwargs):
    """shorten_failure's result and the candidate words of each of its float runs."""
    from bilinear.constructions.horizon import failsearch

    runs, run = [], failsearch.first_failures

    def spy(weights, automaton, words, shortest=False):
        runs.append([tuple(int(x) for x in row) for row in words])
        return run(weights, automaton, words, shortest)

    monkeypatch.setattr(failsearch, "first_failures", spy)
    return shorten_failure(w, PARITY, word, **kwargs), runs


def test_shorten_failure_tries_the_documented_deletions_by_hand(monkeypatch):
    """The deletions of the docstring, worked out by hand: sizes from half the word, halving when
    nothing fails; at each size every start (a multiple of the size) up to the last change of the
    word's period (later ones leave a prefix), each distinct result once; the shortest failing
    prefix found replaces the word, and the size stays.

    0 0 0 1 0: size 2 leaves 0 1 0 (start 0; the period-2 comparison changes last at 1); size 1,
    starts 0..3 (the last change of symbol is at 3): 0 0 1 0 three times, then 0 0 0 0, which
    fails; then nothing to delete (no change of symbol).  1 1 0 (QUARTER): size 1, starts 0 and 1
    (the last change at 1) both leave 1 0, which ties at its end; then 1 0 gives 0, which ties.
    (1 0)^4: sizes 4 and 2 leave prefixes only; size 1 deletes each of 0..6 (a 1 deleted keeps
    four 0s: the first, start 0, is kept), and so on down to 0^4."""
    assert _runs_of_shorten(monkeypatch, TURN, (0, 0, 0, 1, 0)) == (
        (0, 0, 0, 0), [[(0, 1, 0)], [(0, 0, 1, 0), (0, 0, 0, 0)]])
    got, runs = _runs_of_shorten(monkeypatch, QUARTER, (1, 1, 0))
    assert (got, runs) == ((0,), [[(1, 0)], [(0,)]])
    got, runs = _runs_of_shorten(monkeypatch, TURN, (1, 0) * 4)
    word = (1, 0) * 4
    assert runs[0] == [word[:s] + word[s + 1:] for s in range(7)]
    word = (0, 1, 0, 1, 0, 1, 0)
    assert runs[1] == [word[:s] + word[s + 1:] for s in range(6)]
    assert runs[2:] == [[(0, 1, 0, 1, 0), (0, 0, 0, 1, 0), (0, 0, 1, 1, 0), (0, 0, 1, 0, 0)],
                        [(0, 0, 1, 0), (0, 0, 0, 0)]]
    assert got == (0, 0, 0, 0)


def test_shorten_failure_after_a_block_of_half_the_word(monkeypatch):
    """An improvement at a size above 1 sets the size to at most half the new word.  1^5 0^4
    (TURN): size 4 deletes 1^4 at 0 (the word's last change of period 4 is at 4: starts 0 and 4,
    the second leaving four 1s), leaving 1 0^4; then size 2 (start 0 only: 0 0 0) and size 1
    (start 0: 0^4).  1^5 0 (QUARTER, failing at its first 0): size 3 at 0 leaves 1 1 0, then size
    1 (starts 0 and 1, one word) 1 0, then 0."""
    got = _runs_of_shorten(monkeypatch, TURN, (1,) * 5 + (0,) * 4)
    assert got == ((0, 0, 0, 0), [[(1, 0, 0, 0, 0), (1, 1, 1, 1, 0)], [(0, 0, 0)], [(0, 0, 0, 0)]])
    got = _runs_of_shorten(monkeypatch, QUARTER, (1,) * 5 + (0,))
    assert got == ((0,), [[(1, 1, 0)], [(1, 0)], [(0,)]])


def test_shorten_failure_runs_no_deletion_at_or_below_the_floor(monkeypatch):
    """floor 3: 1 0^4 at size 2 leaves 3 symbols (not run); size 1 deletes the 1 (start 0, the
    last change of symbol)."""
    got = _runs_of_shorten(monkeypatch, TURN, (1, 0, 0, 0, 0), floor=3)
    assert got == ((0, 0, 0, 0), [[(0, 0, 0, 0)]])
    assert _runs_of_shorten(monkeypatch, TURN, (0, 0, 0, 0), floor=3) == ((0, 0, 0, 0), [])


def test_shorten_failure_spreads_three_tries_by_hand(monkeypatch):
    """batch 3 on (1 0)^4: size 2's starts 0, 2, 4, 6 are spread to 0, 2, 6 (none runs: period 2);
    size 1's 0..7 to 0, 3, 7 (7 past the last change, 6): deleting the first 1 keeps four 0s;
    then 0..6 to 0, 3, 6 (6 past 5): deleting 1 at 3 keeps four 0s; then 0..5 to 0, 2, 5 (5
    past 4): both deletions are of a 0."""
    got = _runs_of_shorten(monkeypatch, TURN, (1, 0) * 4, batch=3)
    assert got == ((0, 1, 0, 0, 1, 0), [[(0, 1, 0, 1, 0, 1, 0), (1, 0, 1, 1, 0, 1, 0)],
                                        [(1, 0, 1, 0, 1, 0), (0, 1, 0, 0, 1, 0)],
                                        [(1, 0, 0, 1, 0), (0, 1, 0, 1, 0)]])


def test_shorten_failure_tries_at_most_256_deletions_a_size(monkeypatch):
    """Both symbols turn the state by pi / 599 (1 also negates it, as parity's label): every word
    fails first at 300 symbols, so no deletion fails and every size is tried.  (0 1)^150 has 300
    distinct one-symbol deletions; the default batch spreads 256 of them, the last (start 299,
    leaving a prefix) not run: 255."""
    theta = np.pi / 599
    c, s = np.cos(theta), np.sin(theta)
    rot = np.array([[c, -s], [s, c]])
    w = Weights("full", np.array([rot, -rot]), [1.0, 0.0], [[1.0, 0.0], [-1.0, 0.0]])
    word = (0, 1) * 150
    assert _first(w, PARITY, [word]).tolist() == [300]
    got, runs = _runs_of_shorten(monkeypatch, w, word)
    assert got == word and max(len(r) for r in runs) == 255 == len(runs[-1])


def test_exit_failure_confirms_only_failing_candidates():
    """300 words 0 0 1 1 1 1 before 0 0 0 1 1 1: at the third prefix every candidate 0 0 1 0 has
    margin 2 cos(1.2) = 0.72 (three 0s), right, and only 0 0 0 0 fails: it is found there, though
    its word comes after 256 others."""
    words = np.array([[0, 0, 1, 1, 1, 1]] * 300 + [[0, 0, 0, 1, 1, 1]])
    assert exit_failure(TURN, PARITY, words) == (0, 0, 0, 0)


def test_as_many_random_words_as_symbols_past_2000():
    """2001 random words of 2000 symbols (length 2001): a run of their own, as any past 2000."""
    assert search_failure(TURN, PARITY, 2001, random_words=2001, beam=False) == (0, 0, 0, 0)


def test_the_beam_confirms_the_failing_word_at_its_last_step():
    """parity with 0 the identity and 1 turning by 0.4 (and negating): the margin after n 1s is
    2 cos(0.4 n).  Width 1 follows the 1s; at step 4, 1 1 1 0 (margin 0.72, right) comes before
    1 1 1 1 (margin 2 cos 1.6 < 0), which is confirmed and returned at the last step."""
    c, s = np.cos(0.4), np.sin(0.4)
    w = Weights("full", np.array([np.eye(2), -np.array([[c, -s], [s, c]])]), [1.0, 0.0], [[1.0, 0.0], [-1.0, 0.0]])
    assert _first(w, PARITY, [(1, 1, 1, 1), (1, 1, 1, 0)]).tolist() == [4, -1]
    assert beam_failure(w, PARITY, 4, width=1) == (1, 1, 1, 1)
    assert beam_failure(w, PARITY, 3, width=1) is None
