"""A second, independent extraction: AALpy's L* learns the automaton of any tracker.

:func:`bilinear.analysis.extract.extract` reads an automaton off a network's hidden states
(clusters of what the network *is*).  Angluin's L*, as implemented by AALpy (Muškardin et al.,
*AALpy: an active automata learning library*, Innovations in Systems and Software Engineering,
2022; optional extra ``aalpy``), learns one from what the network *does*: membership queries
(the class the network predicts after every prefix of a word) and an equivalence oracle (random
walks that look for a word on which the hypothesis and the network differ, AALpy's random
W-method).  The tracker is learned as a Moore machine whose output is the predicted class; the
empty word's output is the class the readout gives ``h0`` when the tracker has weights, and
``·`` (no prediction) for a module that predicts only after a symbol.

:func:`compare_extractions` runs both and compares them exactly (both minimised; the L*
machine started where the extraction's burn-in leads): isomorphic, or the shortest word on
which they differ.  Two independent extractions that agree are evidence that the automaton is
the network's; that they disagree is a finding (one of them saw what the other did not).  A
random-walk oracle is not a proof: L* is as good as the words its oracle tries.

Example (needs ``pip install 'bilinear[aalpy]'``; tests/analysis/test_lstar.py runs these)::

    from bilinear.analysis.lstar import compare_extractions, lstar
    learned = lstar(build("cyclic:3", "rotation2d"), from_spec("cyclic:3"))
    learned.automaton.n_states                      # 3
    compare_extractions(my_gru_module, from_spec("cyclic:3")).text()
    # 'L* (4 states, ... queries) and the extraction (3 states, minimal) agree: isomorphic'
"""

from __future__ import annotations

from typing import Any

import random
import time
from dataclasses import dataclass

import numpy as np

from bilinear.argtypes import check_positive_int
from bilinear.errors import AnalysisError
from bilinear.extras import require

__all__ = ["LStarConfig", "LStarResult", "Agreement", "lstar", "compare_extractions", "NO_PREDICTION"]

#: The output of the empty word of a tracker that predicts only after a symbol.
NO_PREDICTION = "·"


@dataclass(frozen=True)
class LStarConfig:
    """Budget and oracle of one L* run: ``walks_per_state`` random walks of ``walk_len`` symbols
    per hypothesis state (AALpy's random W-method), at most ``max_states`` states and
    ``max_steps`` symbols fed to the tracker in all; ``seed`` seeds the oracle's walks."""

    walks_per_state: int = 40
    walk_len: int = 12
    max_states: int = 200
    max_steps: int = 2_000_000
    seed: int = 0

    def validated(self) -> "LStarConfig":
        for name in ("walks_per_state", "walk_len", "max_states", "max_steps"):
            value = getattr(self, name)
            check_positive_int(value, f"LStarConfig.{name}", error=AnalysisError)
        check_positive_int(self.seed, "LStarConfig.seed", minimum=0, error=AnalysisError)
        return self


@dataclass(frozen=True)
class LStarResult:
    """The learned ``automaton`` (an :class:`~bilinear.automata.automaton.Automaton` over the
    reference's symbols and classes, plus ``·`` when the empty word has no prediction), the
    membership ``queries`` and ``steps`` (symbols fed to the tracker), learning ``rounds`` and
    ``seconds``."""

    automaton: Any
    queries: int
    steps: int
    rounds: int
    seconds: float


@dataclass(frozen=True)
class Agreement:
    """L* against the extraction: ``isomorphic`` (both minimised, from the extraction's start),
    else ``distinguishing_word`` (symbol indices, ``distinguishing_text`` with names), the
    shortest word on which they differ; ``lstar`` and ``extraction`` are the two results."""

    isomorphic: bool
    distinguishing_word: tuple[int, ...] | None
    distinguishing_text: str | None
    lstar: LStarResult
    extraction: Any

    def text(self) -> str:
        ex = self.extraction
        head = (f"L* ({self.lstar.automaton.n_states} states, {self.lstar.queries} queries) and the extraction "
                f"({ex.minimal.n_states if ex.minimal is not None else '?'} states, minimal)")
        if self.isomorphic:
            return f"{head} agree: isomorphic"
        if self.distinguishing_word is None:
            return f"{head}: the extraction found no automaton ({ex.status}), nothing to compare"
        return f"{head} disagree: they differ on the word {self.distinguishing_text}"

    def to_json(self) -> dict:
        """The comparison as JSON: the verdict, the word, and L*'s machine and budget."""
        learned = self.lstar
        return {
            "isomorphic": self.isomorphic,
            "distinguishing_word": None if self.distinguishing_word is None else list(self.distinguishing_word),
            "distinguishing_text": self.distinguishing_text,
            "lstar_states": learned.automaton.n_states,
            "queries": learned.queries,
            "steps": learned.steps,
            "rounds": learned.rounds,
            "seconds": learned.seconds,
            "text": self.text(),
        }


class _OutOfSteps(Exception):
    pass


def _empty_word_class(tracker, automaton) -> int | None:
    """The class the tracker gives the empty word (readout of h0), or None when it has no weights."""
    weights = getattr(tracker, "weights", None)
    if weights is None:
        return None
    w = weights.to_float() if getattr(weights, "exact", False) else weights
    h0 = np.asarray(w.h0, dtype=float)
    return int(np.argmax(np.asarray(w.readout, dtype=float) @ h0))


def _sul(tracker, automaton, config: LStarConfig):
    """An AALpy SUL: the tracker's predicted class after every prefix."""
    base = require("aalpy.base", "aalpy", "L* extraction (aalpy)")
    empty = _empty_word_class(tracker, automaton)
    names = list(automaton.classes)

    sul_base: Any = base.SUL  # aalpy is optional: its class is known only at run time

    class TrackerSUL(sul_base):
        def __init__(self):
            super().__init__()
            self.prefix: list[int] = []
            self.fed = 0

        def _predict(self, words: list[int]) -> list[str]:
            self.fed += len(words)
            if self.fed > config.max_steps:
                raise _OutOfSteps()
            logits = tracker.run(np.asarray([words], dtype=np.int64)).logits[0]  # (time, classes)
            return [names[int(c)] for c in np.argmax(logits, axis=-1)]

        def query(self, word):
            self.num_queries += 1
            self.num_steps += len(word)
            if len(word) == 0:
                return [NO_PREDICTION if empty is None else names[empty]]
            return self._predict(list(word))

        def pre(self):
            self.prefix = []

        def post(self):
            self.prefix = []

        def step(self, letter):
            if letter is None:
                return NO_PREDICTION if empty is None else names[empty]
            self.prefix.append(letter)
            return self._predict(self.prefix)[-1]

    return TrackerSUL()


def _to_automaton(model, automaton):
    """Our :class:`Automaton` of an AALpy Moore machine over the reference's symbols and classes."""
    from bilinear.automata.automaton import Automaton

    states = list(model.states)
    index = {id(s): i for i, s in enumerate(states)}
    symbols = range(automaton.n_symbols)
    delta = [[index[id(s.transitions[a])] for s in states] for a in symbols]
    classes = list(automaton.classes)
    outputs = [s.output for s in states]
    if NO_PREDICTION in outputs:
        classes.append(NO_PREDICTION)
    labels = [classes.index(o) for o in outputs]
    name = f"lstar({automaton.name})" if automaton.name else "lstar"
    return Automaton(delta, start=index[id(model.initial_state)], labels=labels, symbols=automaton.symbols,
                     classes=classes, name=name)


def lstar(model, automaton, config: LStarConfig = LStarConfig()) -> LStarResult:
    """Learn the automaton of ``model`` (a tracker, a Weights value, one of our models or your
    torch module: :func:`bilinear.constructions.values.tracker.as_tracker`) with AALpy's L* over the symbols of
    ``automaton`` (the reference, whose class names name the outputs).  AnalysisError when the
    hypothesis outgrows ``max_states`` or the tracker is fed more than ``max_steps`` symbols;
    ExtraMissingError without the ``aalpy`` extra."""
    from bilinear.constructions.values.tracker import as_tracker, need_automaton

    need_automaton(automaton)
    config = config.validated()
    learning = require("aalpy.learning_algs", "aalpy", "L* extraction (aalpy)")
    oracles = require("aalpy.oracles", "aalpy", "L* extraction (aalpy)")
    tracker = as_tracker(model, n_symbols=automaton.n_symbols, n_classes=automaton.n_classes)
    sul = _sul(tracker, automaton, config)
    alphabet = list(range(automaton.n_symbols))
    oracle = oracles.RandomWMethodEqOracle(alphabet, sul, walks_per_state=config.walks_per_state,
                                           walk_len=config.walk_len)
    state = random.getstate()
    random.seed(config.seed)  # AALpy's oracles draw from the random module
    started = time.perf_counter()
    try:
        learned, info = learning.run_Lstar(alphabet, sul, oracle, automaton_type="moore", print_level=0,
                                           return_data=True, max_learning_rounds=config.max_states)
    except _OutOfSteps:
        raise AnalysisError(f"L* fed the tracker more than {config.max_steps:,} symbols without converging "
                            f"(LStarConfig.max_steps)") from None
    finally:
        random.setstate(state)
    if len(learned.states) > config.max_states:
        raise AnalysisError(f"L* learned {len(learned.states)} states, over LStarConfig.max_states = {config.max_states}")
    return LStarResult(
        automaton=_to_automaton(learned, automaton), queries=int(info.get("queries_learning", 0)) +
        int(info.get("queries_eq_oracle", 0)), steps=sul.fed, rounds=int(info.get("learning_rounds", 0)),
        seconds=round(time.perf_counter() - started, 3),
    )


def compare_extractions(model, automaton, lstar_config: LStarConfig = LStarConfig(), extract_config=None,
                        extraction=None) -> Agreement:
    """L* (:func:`lstar`) against our extraction (:func:`bilinear.analysis.extract.extract` for
    weights, :func:`~bilinear.analysis.extract.extract_tracker` otherwise), compared exactly.
    ``extraction``: an extraction of ``model`` already made (``bilinear analyze --lstar`` hands
    the report's own), used instead of extracting again."""
    from bilinear.automata.automaton import Automaton
    from bilinear.automata.minimize import distinguishing_word, isomorphism, minimize
    from bilinear.automata.words import compress

    from .extract import ExtractConfig, extract, extract_tracker
    from bilinear.constructions.values.tracker import as_tracker

    tracker = as_tracker(model, n_symbols=automaton.n_symbols, n_classes=automaton.n_classes)
    config = extract_config or ExtractConfig()
    if extraction is not None:
        ex = extraction
    else:
        ex = extract(tracker.weights, automaton, config) if tracker.weights is not None else \
            extract_tracker(tracker, automaton, config)
    learned = lstar(tracker, automaton, lstar_config)
    if ex.automaton is None:
        return Agreement(False, None, None, learned, ex)
    a = learned.automaton
    # the extraction starts where its burn-in word leads; the L* machine is started there too
    shifted = Automaton(a.delta, start=a.run(ex.start_word), labels=a.labels, symbols=a.symbols,
                        classes=a.classes, name=a.name)
    word = distinguishing_word(shifted, ex.automaton)  # label indices; '·' is never reached again
    iso = word is None and isomorphism(minimize(shifted), minimize(ex.automaton)) is not None
    text = None if word is None else compress(word, automaton)
    return Agreement(iso, word, text, learned, ex)
