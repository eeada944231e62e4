"""The failing-word search behind ``analyze --from``'s verdict (analysis/external.py:
``_access_words``, ``failing_word``, ``_with_directed``) and the directed words' plan and JSON
(analysis/lengths.py).  Each expected word is worked out from the model's own definition here:
a cyclic:3 model that is right (the sum mod 3) until a rule breaks it, then one class off for
good.  Written for the mutants of ``benchmarks/mutate_auto.py -k directed,external_verdict``."""

from __future__ import annotations

import numpy as np

from bilinear.analysis.external import _access_words, _verdict, _with_directed, failing_word
from bilinear.analysis.extract import ExtractConfig
from bilinear.analysis.lengths import DirectedRun, WordCheck, directed_plan
from bilinear.analysis.report import AnalysisConfig, analyze_tracker
from bilinear.automata import Automaton, from_spec
from bilinear.constructions.horizon import floatcheck
from bilinear.constructions.values.tracker import as_tracker

CYCLIC3 = from_spec("cyclic:3")


def _broken_by(rule):
    """The cyclic:3 model right until ``rule(words, t, runs)`` (words (batch, time), the step t,
    ``runs[s]`` the current run of symbol s per word) is first true, then (sum + 1) mod 3."""

    def model(words):
        words = np.asarray(words)
        sums = np.cumsum(words, axis=1) % 3
        runs = np.zeros((3, words.shape[0]), dtype=int)
        broken = np.zeros(words.shape[0], dtype=bool)
        logits = np.zeros(words.shape + (3,))
        for t in range(words.shape[1]):
            for s in range(3):
                runs[s] = np.where(words[:, t] == s, runs[s] + 1, 0)
            broken |= rule(words, t, runs)
            logits[:, t] = np.eye(3)[(sums[:, t] + broken) % 3]
        return logits

    return as_tracker(model, n_symbols=3, n_classes=3, name="broken")


def test_access_words_reach_every_state_by_a_shortest_word():
    chain = Automaton(np.array([[1, 2, 3, 3], [0, 0, 0, 0]]), 0, labels=[0, 1, 2, 3], name="chain")  # step, reset
    assert _access_words(chain) == [(), (0,), (0, 0), (0, 0, 0)]
    assert _access_words(CYCLIC3) == [(), (1,), (2,)]


def test_a_run_only_the_powers_reach_is_found():
    model = _broken_by(lambda w, t, runs: runs[1] >= 40)
    # 40 ones: the automaton says 40 mod 3 = 1, the broken model 2; random words of 64 hold no such run
    assert failing_word(model, CYCLIC3) == ((1,) * 40, 1, 2)
    assert failing_word(model, CYCLIC3, max_power=1) is None


def test_a_pattern_only_random_words_reach_is_found():
    def after_101(w, t, runs):  # the prefix ends in 1 0 1
        if t < 2:
            return np.zeros(w.shape[0], dtype=bool)
        return (w[:, t - 2] == 1) & (w[:, t - 1] == 0) & (w[:, t] == 1)

    model = _broken_by(after_101)
    assert failing_word(model, CYCLIC3, random_words=0) is None  # no u g^n holds 1 0 1
    word, expected, got = failing_word(model, CYCLIC3)
    late = _broken_by(lambda w, t, runs: after_101(w, t, runs) & (t >= 64))  # only at length 65 and on
    assert failing_word(late, CYCLIC3) is None  # the powers reach 65 symbols, the random words 64
    assert word[-3:] == (1, 0, 1) and all(word[i : i + 3] != (1, 0, 1) for i in range(len(word) - 3))
    assert expected == sum(word) % 3 and got == (expected + 1) % 3


def test_the_shortest_failure_wins_and_the_first_found_among_equals():
    six_twos = _broken_by(lambda w, t, runs: runs[2] >= 6)
    random_only = failing_word(six_twos, CYCLIC3, max_power=1)
    assert random_only is not None and len(random_only[0]) > 6  # the random words find a longer one
    assert failing_word(six_twos, CYCLIC3) == ((2,) * 6, 0, 1)  # the power's, shorter, is kept

    from_five = _broken_by(lambda w, t, runs: np.full(w.shape[0], t >= 4))
    random_five = failing_word(from_five, CYCLIC3, max_power=1)
    assert len(random_five[0]) == 5 and random_five[0] != (0,) * 5
    # every power and random word fails at length 5: the first found, u = () and g = 0, is kept
    assert failing_word(from_five, CYCLIC3) == ((0,) * 5, 0, 1)


def _directed(word, automaton_label, network_label):
    text = " ".join(map(str, word))
    return DirectedRun(3, 10, 0.5, WordCheck(tuple(word), text, automaton_label, network_label))


def test_the_directed_failure_replaces_only_a_longer_search_failure():
    search = ((0, 0, 1), 1, 2)
    assert _with_directed(search, _directed((1, 1, 1), "0", "2"), CYCLIC3) == search  # equal lengths: the search's
    assert _with_directed(search, _directed((1, 1), "2", "0"), CYCLIC3) == ((1, 1), 2, 0)  # shorter: class indices
    assert _with_directed(None, _directed((2, 2, 2, 2), "2", "1"), CYCLIC3) == ((2, 2, 2, 2), 2, 1)
    assert _with_directed(search, _directed((1,), "1", "1"), CYCLIC3) == search  # a tie names no wrong class
    assert _with_directed(search, DirectedRun(3, 10, 1.0, None), CYCLIC3) == search
    assert _with_directed(search, None, CYCLIC3) == search


def test_the_verdict_names_a_directed_wrong_class_and_calls_only_a_tie_a_tie():
    names = list(CYCLIC3.symbols)
    wrong = _directed((2, 2, 2, 2), "2", "1")  # 2 2 2 2 sums to 2; the network says 1
    for failing in (None, _with_directed(None, wrong, CYCLIC3)):  # merged by the caller or not: one sentence
        said = _verdict(CYCLIC3, None, failing, None, names, wrong)
        assert "labels the word `2 2 2 2` (length 4) as 1, the task as 2" in said and "tie" not in said
    tie = _directed((1,), "1", "1")  # the argmax re-run gives the right class: the check saw a tie
    assert "scores the task's label 1 no higher than another class (a tie)" in _verdict(CYCLIC3, None, None, None,
                                                                                        names, tie)
    search = ((0, 0, 1), 1, 2)  # a shorter search failure is named, not the directed one
    assert "`0 0 1` (length 3) as 2, the task as 1" in _verdict(CYCLIC3, None, search, None, names, wrong)


def test_the_json_of_a_directed_run_with_and_without_a_failure():
    assert _directed((1, 1), "2", "0").to_json() == {
        "words": 3, "length": 10, "accuracy": 0.5, "first_failure": "1 1", "first_failure_length": 2,
        "automaton_label": "2", "network_label": "0"}
    assert DirectedRun(4, 9, 1.0, None).to_json() == {
        "words": 4, "length": 9, "accuracy": 1.0, "first_failure": None, "first_failure_length": None,
        "automaton_label": None, "network_label": None}


def test_the_plan_is_never_shorter_than_one_symbol_and_counts_its_words():
    parts, length = directed_plan(CYCLIC3, 100, max_tokens=1)
    assert length == 1 and len(parts) > 1  # fewer tokens than words: each word still reads one symbol
    one = Automaton(np.array([[1, 2, 0]]), 0, labels=[0, 1, 2], name="one symbol")
    parts, length = directed_plan(one, 100, max_tokens=10)
    assert len(parts) == 1 and length == 10  # one word: all ten tokens


def test_a_tracker_s_report_lists_its_directed_words_once(monkeypatch):
    listed = []
    real = floatcheck._directed_parts
    monkeypatch.setattr(floatcheck, "_directed_parts", lambda *a, **k: listed.append(a) or real(*a, **k))
    model = _broken_by(lambda w, t, runs: runs[1] >= 40)
    r = analyze_tracker(model, CYCLIC3, AnalysisConfig(extract=ExtractConfig(words=20, length=6), curve_length=60,
                                                       curve_words=100))
    assert len(listed) == 1  # the size check's list is the one run
    assert r.directed.words == len(real(CYCLIC3)) and r.directed.failure.text == "1^40"
