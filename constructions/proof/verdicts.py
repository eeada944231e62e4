"""The verdicts of the exact prover: :class:`Proof`, :class:`Counterexample`, :class:`Unproved`.

Each has ``status`` and ``to_json()``; see :func:`bilinear.constructions.proof.prover.prove`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from ..exact.field import CyclotomicField, FieldElement

__all__ = ["Proof", "Counterexample", "Unproved", "to_scalar"]


@dataclass(frozen=True)
class Proof:
    """The weights are right on every word: closure of ``states_explored`` pairs.

    ``margin`` is the exact minimum, over reachable pairs, of ``score[label] - max other score``
    on the stored representative of each hidden direction (the hidden vector of the shortest
    word reaching it; for norm-preserving weights that is the true hidden state); ``None`` when
    there is a single class.  ``state_map[q]`` lists the hidden-direction indices
    paired with automaton state ``q``; ``hidden_vectors()`` gives those directions exactly.

    See Also
    --------
    bilinear.constructions.settle.Cell : a whole verdict of ``verify`` / the capability matrix
        (a Proof is one of its possible outcomes, next to an impossibility certificate, a
        counterexample or an open cell, with the lower bound on d); its JSON holds this proof's
        figures under the same keys.
    """

    dim: int
    states_explored: int
    hidden_states: int
    margin: object
    margin_float: float | None
    state_map: tuple[tuple[int, ...], ...]
    conductor: int = 1
    _hidden: tuple = field(default=(), repr=False, compare=False)

    status = "proved"

    def hidden_vectors(self) -> list[tuple]:
        """The reachable hidden directions (representatives) as tuples of exact scalars."""
        return [tuple(to_scalar(x, self.conductor) for x in h) for h in self._hidden]

    def to_json(self) -> dict:
        return {
            "status": self.status,
            "dim": self.dim,
            "states_explored": self.states_explored,
            "hidden_states": self.hidden_states,
            "margin": None if self.margin is None else {"exact": _exact_str(self.margin), "float": self.margin_float},
        }


@dataclass(frozen=True)
class Counterexample:
    """A shortest word on which the weights' label differs from (or ties with) the automaton's.

    ``got`` is the class the weights rank highest (``None`` when that maximum is tied);
    ``scores`` are the readout scores of the failing hidden vector, as floats.  For a stack
    (:func:`~bilinear.constructions.proof.stackprover.prove_stack`) ``layer`` names the layer: the last
    one for a wrong or tied label, an earlier one when its class tied (``got`` None, ``scores``
    that layer's).
    """

    dim: int
    word: tuple[int, ...]
    text: str
    expected: int
    got: int | None
    scores: tuple[float, ...]
    states_explored: int
    layer: int | None = None  # for a stack: the (1-based) layer whose class failed or tied

    status = "counterexample"

    def to_json(self) -> dict:
        out = {
            "status": self.status,
            "dim": self.dim,
            "word": self.text,
            "word_indices": list(self.word),
            "expected": self.expected,
            "got": self.got,
            "scores": list(self.scores),
            "states_explored": self.states_explored,
        }
        if self.layer is not None:
            out["layer"] = self.layer
        return out


@dataclass(frozen=True)
class Unproved:
    """Neither proof nor refutation: the search stopped before the pair set closed.

    ``cause`` is ``"bound"`` (the reachable pair set outgrew ``bound * n_states``) or ``"time"``
    (the time budget ran out).  ``words`` are two words the automaton sends to the same state
    ``state`` but the weights to different hidden directions (evidence that the directions do
    not close up); after a time-out they may be empty (``()``, ``state`` None) when no such pair
    was seen yet.  ``reason`` says all this in one sentence.
    """

    dim: int
    words: tuple[tuple[int, ...], ...]
    texts: tuple[str, ...]
    state: int | None
    bound: int
    states_explored: int
    reason: str
    cause: str = "bound"

    status = "open"  # the word the command line prints (verify: open), one name for one verdict

    def to_json(self) -> dict:
        return {
            "status": self.status,
            "dim": self.dim,
            "words": list(self.texts),
            "state": self.state,
            "bound": self.bound,
            "states_explored": self.states_explored,
            "reason": self.reason,
            **({} if self.cause == "bound" else {"cause": self.cause}),
        }


def _exact_str(x) -> str:
    if isinstance(x, FieldElement):
        return repr(x)
    return str(x)


def to_scalar(x, m: int):
    if isinstance(x, int):
        return x
    if m == 1:
        return Fraction(int(x.p), int(x.q))
    if isinstance(x, dict):  # a sparse element (constructions.exact.domains.Terms)
        from ..exact.domains import terms_poly

        x = terms_poly(x)
    return FieldElement(CyclotomicField(m), x, reduced=True).simplify()
