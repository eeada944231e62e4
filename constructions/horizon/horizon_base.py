"""The certified horizon as a value: what was certified, in which arithmetic, by which theorem.

A :class:`Horizon` has one of three kinds, each with its named constructor:

* :meth:`Horizon.every_length` -- every word of every length is right (Theorem 17, invariant tube);
* :meth:`Horizon.up_to` -- every word of length at most ``length`` is right (Theorems 16 and the
  block-wise horizon; ``length`` may be 0: only the empty word);
* :meth:`Horizon.none` -- no length certified (the reason in ``note``).

``arithmetic`` says what the statement is about (docs/theory.md Section 7): ``real`` (the
network with its float weights taken as exact numbers), ``float64`` or ``float32`` (the network
evaluated with rounding at every step, :mod:`~bilinear.constructions.horizon.roundoff`).

>>> h = Horizon.up_to(725, "float64", "global", "every word up to length 4 run exhaustively")
>>> h.length, h.every, h.certified, h.order_key() < Horizon.every_length("real", "tube", "").order_key()
(725, False, True, True)
>>> Horizon.none("real", "not an isometry").length is None
True
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Horizon", "STEPPED", "CAP", "KINDS"]

#: Steps of a recurrence evaluated one by one before its closed form takes over.
STEPPED = 256
#: Largest certified length reported (a bound beyond it is reported as this).
CAP = 10**18
#: Deepest level of the exhaustive search: with one symbol a level never grows, so the word count
#: alone never ended the loop (certify of any one-symbol automaton hung); two symbols stop at 10.
MAX_EXHAUSTIVE_DEPTH = 32
#: The kinds of horizon.
KINDS = ("every length", "up to", "none")


@dataclass(frozen=True)
class Horizon:
    """A certified horizon (module docstring).  Build it with a named constructor.

    ``constants`` holds the theorem's ingredients (upper ends of their balls, margins lower ends)
    by name, for the report.
    """

    kind: str
    arithmetic: str
    bound: str = ""
    note: str = ""
    count: int = 0
    constants: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"unknown horizon kind {self.kind!r}")
        if self.kind == "up to" and not (isinstance(self.count, int) and 0 <= self.count <= CAP):
            raise ValueError(f"a certified length must be an integer in 0..{CAP}, got {self.count!r}")

    @classmethod
    def every_length(cls, arithmetic: str, bound: str, note: str, **constants) -> "Horizon":
        """Every word of every length is right."""
        return cls("every length", arithmetic, bound, note, 0, constants)

    @classmethod
    def up_to(cls, length: int, arithmetic: str, bound: str, note: str, **constants) -> "Horizon":
        """Every word of length at most ``length`` (>= 0) is right."""
        return cls("up to", arithmetic, bound, note, int(length), constants)

    @classmethod
    def none(cls, arithmetic: str, note: str, bound: str = "", **constants) -> "Horizon":
        """No length is certified (not even the empty word); ``note`` says why."""
        return cls("none", arithmetic, bound, note, 0, constants)

    @property
    def every(self) -> bool:
        """True when every length is certified."""
        return self.kind == "every length"

    @property
    def certified(self) -> bool:
        """True when some length (or every length) is certified."""
        return self.kind != "none"

    @property
    def length(self) -> int | None:
        """The certified length of an ``up to`` horizon, else None (see :attr:`every`)."""
        return self.count if self.kind == "up to" else None

    def order_key(self) -> float:
        """Sort key: none < up to L (by L) < every length."""
        return {"none": -1.0, "up to": float(self.count), "every length": float("inf")}[self.kind]

    def covers(self, n: int) -> bool:
        """True when every word of length ``n`` is certified right."""
        return self.every or (self.kind == "up to" and n <= self.count)

    def text(self) -> str:
        """``every word up to length 725`` / ``every word of every length`` / ``no length``."""
        if self.every:
            return "every word of every length"
        if self.kind == "up to":
            return f"every word up to length {self.count}"
        return "no length"

    def to_json(self) -> dict:
        return {"kind": self.kind, "length": self.length, "every_length": self.every,
                "arithmetic": self.arithmetic, "bound": self.bound, "note": self.note,
                **{k: float(v) for k, v in self.constants.items()}}
