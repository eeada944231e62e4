"""The :class:`Automaton`: a frozen, validated, multi-class deterministic automaton.

An automaton has states ``0..n-1``, named symbols, a transition table ``delta[symbol, state]``,
a start state and a label (class index) per state.  Words are read left to right; the class of a
word ``w`` is ``labels[start . w]``.

Examples
--------
>>> a = Automaton([[1, 0], [0, 1]], symbols=("flip", "stay"), name="toggle")
>>> a.run(["flip", "flip", "flip"])
1
>>> a.trace("flip stay flip").tolist()
[0, 1, 1, 0]
>>> a.run_batch([[0, 0, 1], [0, 1, 1]]).tolist()
[0, 1]
"""

from __future__ import annotations

import numbers
from functools import cached_property
from typing import TYPE_CHECKING, Iterable, Sequence

import numpy as np

from bilinear.errors import AutomatonError, UnknownSymbolError

if TYPE_CHECKING:  # pragma: no cover
    from .spec import Spec

__all__ = ["Automaton"]


def _readonly(array: np.ndarray, copy: bool = True) -> np.ndarray:
    """A read-only array (a copy unless ``copy=False`` says ``array`` is already private)."""
    array = np.array(array, copy=True) if copy else array
    array.setflags(write=False)
    return array


#: Without class names, labels must be below max(states, this): each class up to the largest
#: label gets a default name, so a label of 10**8 would make 10**8 names.  An automaton file may
#: give at most as many class names (:mod:`~bilinear.automata.fileformat`).
MAX_UNNAMED_CLASSES = 1 << 16

_INT64_MIN, _INT64_MAX = int(np.iinfo(np.int64).min), int(np.iinfo(np.int64).max)


def _int_table(table, what: str, ndim: int) -> np.ndarray:
    """Convert ``table`` to an int64 array of ``ndim`` dimensions, rejecting non-integers."""
    if isinstance(table, np.ndarray):
        array = table
    else:
        try:
            array = np.array(table, dtype=object)
        except ValueError as exc:  # numpy >= 1.24 refuses ragged nested lists
            raise AutomatonError(f"{what} is ragged: rows have different lengths") from exc
    if array.ndim != ndim:
        if (
            array.dtype == object
            and array.ndim < ndim
            and any(isinstance(x, (list, tuple, np.ndarray)) for x in array.reshape(-1))
        ):
            raise AutomatonError(f"{what} is ragged: rows have different lengths")
        raise AutomatonError(f"{what} must have {ndim} dimension(s), got shape {array.shape}")
    if array.dtype.kind == "u" and array.size and int(array.max()) > np.iinfo(np.int64).max:
        where = ", ".join(str(int(i)) for i in np.unravel_index(int(np.argmax(array)), array.shape))
        raise AutomatonError(f"{what}[{where}] = {int(array.max())} is out of range (too large)")
    if array.dtype.kind in "iu":
        return array.astype(np.int64)  # always a private copy
    if array.dtype.kind == "b":
        raise AutomatonError(f"{what} must hold integers, got booleans")
    out = np.empty(array.shape, dtype=np.int64)
    for index, value in np.ndenumerate(array):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
            if isinstance(value, (float, np.floating)) and float(value).is_integer():
                if not _INT64_MIN <= int(value) <= _INT64_MAX:  # 1e300: an integer, but no int64
                    where = ", ".join(str(i) for i in index)
                    raise AutomatonError(f"{what}[{where}] = {value!r} is out of range (too large)")
                out[index] = int(value)
                continue
            where = ", ".join(str(i) for i in index)
            raise AutomatonError(f"{what}[{where}] = {value!r} is not an integer")
        if not _INT64_MIN <= int(value) <= _INT64_MAX:
            where = ", ".join(str(i) for i in index)
            raise AutomatonError(f"{what}[{where}] = {int(value)} is out of range (too large)")
        out[index] = int(value)
    return out


def _start_state(start, n_states: int) -> int:
    """The start state as an int in ``0..n_states - 1``; an integral float (2.0) is the state, as
    in ``delta`` and ``labels``; AutomatonError otherwise."""
    if isinstance(start, (float, np.floating)) and float(start).is_integer() and abs(start) < 2**63:
        start = int(start)
    if isinstance(start, (bool, np.bool_)) or not isinstance(start, numbers.Integral):
        raise AutomatonError(f"start state {start!r} is not an integer")
    if not 0 <= int(start) < n_states:
        raise AutomatonError(f"start state {start} is out of range 0..{n_states - 1}")
    return int(start)


def _check_printable(text: str, what: str) -> None:
    """AutomatonError for a name holding a character that is not printable: a newline or a
    terminal escape would be printed raw into reports and the terminal, a lone surrogate
    (``"\\ud800"``) cannot even be written as UTF-8 (``analyze --out`` crashed half-way)."""
    if text.isprintable():  # at C speed: the search below, a Python loop, only names the character
        return
    bad = next((ch for ch in text if not ch.isprintable()), None)
    if bad is not None:
        raise AutomatonError(f"{what} {text[:40]!a} holds the character {bad!a}, which is not printable")


class Automaton:
    """A deterministic automaton with labelled states.

    Parameters
    ----------
    delta:
        Transition table, shape ``(symbols, states)``: ``delta[a, q]`` is the state reached from
        ``q`` on symbol ``a``.  Entries must be integers in ``0..states-1``.
    start:
        Start state.
    labels:
        Class index of each state (default: every state is its own class).
    symbols:
        Symbol names (default ``"0", "1", ...``); must be distinct non-empty strings.
    classes:
        Class names (default ``"0", "1", ...``, as many as ``max(labels) + 1``).
    name:
        A name; families use their spec string, e.g. ``"dihedral:5"``.

    The object is immutable: arrays are read-only copies and attributes cannot be set.
    ``spec`` is the parsed family spec (:class:`~bilinear.automata.spec.Spec`) for an automaton
    made by :func:`~bilinear.automata.families.from_spec`, else None; it is not part of equality
    or hash (see :meth:`with_spec`).
    """

    __slots__ = ("delta", "start", "labels", "symbols", "classes", "name", "spec", "__dict__")
    delta: np.ndarray  # (symbols, states), read-only
    start: int
    labels: np.ndarray  # (states,), read-only
    symbols: tuple[str, ...]
    classes: tuple[str, ...]
    name: str
    spec: Spec | None

    def __init__(
        self,
        delta,
        start: int = 0,
        labels=None,
        symbols: Sequence[str] | None = None,
        classes: Sequence[str] | None = None,
        name: str = "",
    ) -> None:
        table = _int_table(delta, "transition table", 2)
        n_symbols, n_states = table.shape
        if n_symbols == 0:
            raise AutomatonError("an automaton needs at least one symbol")
        if n_states == 0:
            raise AutomatonError("an automaton needs at least one state")
        out_of_range = (table < 0) | (table >= n_states)
        if out_of_range.any():
            bad = np.argwhere(out_of_range)
            a, q = (int(i) for i in bad[0])
            raise AutomatonError(
                f"transition table entry delta[{a}, {q}] = {int(table[a, q])} is out of range "
                f"0..{n_states - 1}"
            )
        start = _start_state(start, n_states)

        if labels is None:
            label_array = np.arange(n_states, dtype=np.int64)
        else:
            label_array = _int_table(labels, "labels", 1)
            if label_array.shape[0] != n_states:
                raise AutomatonError(
                    f"labels has length {label_array.shape[0]}, expected one per state ({n_states})"
                )
            if (label_array < 0).any():
                q = int(np.argmax(label_array < 0))
                raise AutomatonError(f"label of state {q} is negative ({int(label_array[q])})")
            top = int(np.argmax(label_array))
            most = max(n_states, MAX_UNNAMED_CLASSES)
            if classes is None and label_array[top] >= most:
                raise AutomatonError(
                    f"label of state {top} is {int(label_array[top])}: without class names a label must "
                    f"be below max(states, {MAX_UNNAMED_CLASSES:,}) = {most:,} (each class gets a "
                    f"default name); pass classes=... to name more classes"
                )

        n_classes = int(label_array.max()) + 1
        if classes is None:
            class_names = tuple(str(c) for c in range(n_classes))
        else:  # each count is compared before the names are checked one by one (10^7 names: 22 s)
            class_names = self._sequence(classes, "class")
            if len(class_names) < n_classes:
                raise AutomatonError(
                    f"labels use class {n_classes - 1} but only {len(class_names)} class names given"
                )
            self._check_names(class_names, "class")

        if symbols is None:
            symbol_names = tuple(str(a) for a in range(n_symbols))
        else:
            symbol_names = self._sequence(symbols, "symbol")
            if len(symbol_names) != n_symbols:
                raise AutomatonError(
                    f"{len(symbol_names)} symbol names given for {n_symbols} table rows"
                )
            self._check_names(symbol_names, "symbol")

        set_ = object.__setattr__
        set_(self, "delta", _readonly(table, copy=table is delta))
        set_(self, "start", int(start))
        set_(self, "labels", _readonly(label_array, copy=label_array is labels))
        set_(self, "symbols", symbol_names)
        set_(self, "classes", class_names)
        if not isinstance(name, str):
            raise AutomatonError(f"an automaton's name must be a string, got {type(name).__name__} {name!r:.40}")
        _check_printable(name, "automaton name")
        set_(self, "name", name)
        set_(self, "spec", None)

    def with_spec(self, spec: "Spec | None") -> "Automaton":
        """The same automaton carrying the parsed ``spec`` (a new object; arrays are shared,
        being read-only).

        >>> from bilinear.automata import from_spec
        >>> a = from_spec("dihedral:3")
        >>> b = Automaton(a.delta, symbols=a.symbols, classes=a.classes)
        >>> (a.spec.family, b.spec, a == b, hash(a) == hash(b))
        ('dihedral', None, True, True)
        """
        out = object.__new__(Automaton)
        for key in ("delta", "start", "labels", "symbols", "classes", "name"):
            object.__setattr__(out, key, getattr(self, key))
        object.__setattr__(out, "spec", spec)
        return out

    @staticmethod
    def _sequence(names: Iterable[str], kind: str) -> tuple[str, ...]:
        """``names`` as a tuple, not yet checked (:meth:`_check_names`); one string is refused."""
        if isinstance(names, str):
            raise AutomatonError(f"{kind} names must be a sequence of strings, not one string")
        return tuple(names)

    @staticmethod
    def _check_names(out: tuple[str, ...], kind: str) -> None:
        """AutomatonError unless every name is a distinct, non-empty, printable string."""
        for i, value in enumerate(out):
            if not isinstance(value, str) or not value:
                raise AutomatonError(f"{kind} name at position {i} must be a non-empty string, got {value!r}")
            _check_printable(value, f"{kind} name at position {i}")
        seen: dict[str, int] = {}
        for i, value in enumerate(out):
            if value in seen:
                raise AutomatonError(
                    f"duplicate {kind} name {value!r} (positions {seen[value]} and {i})"
                )
            seen[value] = i

    # -- immutability ----------------------------------------------------------------------
    def __setattr__(self, key, value):
        raise AttributeError(f"Automaton is immutable; cannot set {key!r}")

    def __delattr__(self, key):
        raise AttributeError(f"Automaton is immutable; cannot delete {key!r}")

    # -- sizes -----------------------------------------------------------------------------
    @property
    def n_states(self) -> int:
        return int(self.delta.shape[1])

    @property
    def n_symbols(self) -> int:
        return int(self.delta.shape[0])

    @property
    def n_classes(self) -> int:
        return len(self.classes)

    def __repr__(self) -> str:
        name = f"{self.name!r}, " if self.name else ""
        return (
            f"Automaton({name}states={self.n_states}, symbols={self.n_symbols}, "
            f"classes={self.n_classes})"
        )

    def __eq__(self, other) -> bool:
        if not isinstance(other, Automaton):
            return NotImplemented
        return (
            self.start == other.start
            and self.symbols == other.symbols
            and self.classes == other.classes
            and np.array_equal(self.delta, other.delta)
            and np.array_equal(self.labels, other.labels)
        )

    def __hash__(self) -> int:
        return hash((self.start, self.symbols, self.classes, self.delta.tobytes(), self.labels.tobytes()))

    # -- words -----------------------------------------------------------------------------
    @cached_property
    def _symbol_index(self) -> dict[str, int]:
        return {name: i for i, name in enumerate(self.symbols)}

    def encode(self, word) -> np.ndarray:
        """Symbol indices of ``word`` as an int64 array.

        ``word`` may be a sequence of names or of indices, an integer array, or one string:
        whitespace-separated names, or (when every symbol name is one character) one character
        per symbol.  An unknown symbol raises :class:`UnknownSymbolError` naming it and its
        position.

        >>> from bilinear.automata import from_spec
        >>> from_spec("dihedral:3").encode("rrs").tolist()
        [0, 0, 1]
        """
        if isinstance(word, str):
            if not word.strip():
                items: list = []
            elif any(ch.isspace() for ch in word):
                items = word.split()
            elif all(len(s) == 1 for s in self.symbols):
                items = list(word)
            elif word in self._symbol_index:
                items = [word]
            else:
                raise UnknownSymbolError(
                    f"cannot split word {word!r} into symbols of {self.name or 'this automaton'}: "
                    "separate multi-character symbol names with spaces or pass a list"
                )
        elif isinstance(word, np.ndarray):
            if word.ndim != 1:
                raise AutomatonError(f"a word must be one-dimensional, got shape {word.shape}")
            if word.dtype.kind in "iu":
                out = word.astype(np.int64)
                bad = np.flatnonzero((out < 0) | (out >= self.n_symbols))
                if bad.size:
                    p = int(bad[0])
                    raise UnknownSymbolError(
                        f"unknown symbol index {int(out[p])} at position {p} "
                        f"(valid 0..{self.n_symbols - 1})"
                    )
                return out
            items = word.tolist()
        else:
            try:
                items = list(word)
            except TypeError:  # None, a bare integer: not a word
                raise AutomatonError(
                    f"a word must be a string, a sequence of symbol names or indices, or an integer array; "
                    f"got {type(word).__name__} {word!r:.40}"
                ) from None
        out = np.empty(len(items), dtype=np.int64)
        index = self._symbol_index
        for pos, item in enumerate(items):
            if isinstance(item, str):
                try:
                    out[pos] = index[item]
                except KeyError:
                    raise UnknownSymbolError(
                        f"unknown symbol {item!r} at position {pos} "
                        f"(symbols: {', '.join(self.symbols[:12])}{' ...' if self.n_symbols > 12 else ''})"
                    ) from None
            elif isinstance(item, numbers.Integral) and not isinstance(item, (bool, np.bool_)):
                if not 0 <= int(item) < self.n_symbols:
                    raise UnknownSymbolError(
                        f"unknown symbol index {int(item)} at position {pos} "
                        f"(valid 0..{self.n_symbols - 1})"
                    )
                out[pos] = int(item)
            else:
                raise UnknownSymbolError(f"symbol {item!r} at position {pos} is neither a name nor an index")
        return out

    def decode(self, indices: Iterable[int]) -> tuple[str, ...]:
        """Symbol names of a word given as indices."""
        return tuple(self.symbols[int(i)] for i in indices)

    def format_word(self, indices: Iterable[int]) -> str:
        """A readable string for a word: names joined by nothing (one-character names) or spaces."""
        names = self.decode(indices)
        if not names:
            return "ε"
        sep = "" if all(len(s) == 1 for s in self.symbols) else " "
        return sep.join(names)

    def _state(self, state: int | None) -> int:
        if state is None:
            return self.start
        if not isinstance(state, numbers.Integral) or not 0 <= int(state) < self.n_states:
            raise AutomatonError(f"state {state!r} is out of range 0..{self.n_states - 1}")
        return int(state)

    # -- running ---------------------------------------------------------------------------
    def run(self, word, state: int | None = None) -> int:
        """The state reached from ``state`` (default: the start) after reading ``word``."""
        q = self._state(state)
        delta = self.delta
        for a in self.encode(word):
            q = delta[a, q]
        return int(q)

    def trace(self, word, state: int | None = None) -> np.ndarray:
        """Every state visited, including the first: an array of length ``len(word) + 1``."""
        q = self._state(state)
        symbols = self.encode(word)
        out = np.empty(len(symbols) + 1, dtype=np.int64)
        out[0] = q
        delta = self.delta
        for t, a in enumerate(symbols):
            q = delta[a, q]
            out[t + 1] = q
        return out

    def label(self, word, state: int | None = None) -> int:
        """Class index of the state reached after ``word``."""
        return int(self.labels[self.run(word, state)])

    def _batch(self, words) -> np.ndarray:
        try:
            array = np.asarray(words)
        except ValueError as exc:  # numpy refuses ragged nested lists
            raise AutomatonError("a batch of words must have shape (batch, time): the words have "
                                 "different lengths (run them one by one with run())") from exc
        if array.ndim != 2:
            raise AutomatonError(f"a batch of words must have shape (batch, time), got {array.shape}")
        if array.size and array.dtype.kind not in "iu":
            raise AutomatonError(f"a batch of words must hold symbol indices, got dtype {array.dtype}")
        array = array.astype(np.int64, copy=False)
        if array.size:
            bad = np.argwhere((array < 0) | (array >= self.n_symbols))
            if bad.size:
                b, t = (int(i) for i in bad[0])
                raise UnknownSymbolError(
                    f"unknown symbol index {int(array[b, t])} in word {b} at position {t} "
                    f"(valid 0..{self.n_symbols - 1})"
                )
        return array

    def run_batch(self, words, trace: bool = False, state: int | None = None) -> np.ndarray:
        """Run a batch of equal-length words, shape ``(batch, time)`` of symbol indices.

        Returns the final states ``(batch,)``, or with ``trace=True`` the state after every
        step ``(batch, time)``.  Vectorised over the batch: one fancy-indexing step per time step
        on the flattened table.
        """
        array = self._batch(words)
        batch, time = array.shape
        q = np.full(batch, self._state(state), dtype=np.int64)
        flat = self.delta.reshape(-1)
        n = self.n_states
        if trace:
            out = np.empty((batch, time), dtype=np.int64)
            for t in range(time):
                q = flat[array[:, t] * n + q]
                out[:, t] = q
            return out
        for t in range(time):
            q = flat[array[:, t] * n + q]
        return q

    def labels_batch(self, words, trace: bool = False) -> np.ndarray:
        """Class indices for a batch of words (final, or after every step with ``trace``)."""
        return self.labels[self.run_batch(words, trace=trace)]
