"""A small cache of per-automaton results (constructions are pure functions of the automaton).

The registry tries every applicable construction for every variant, so the same automaton is
minimised and decomposed many times; :func:`per_automaton` remembers the last results (values and
:class:`~bilinear.errors.ConstructionError` alike), keyed by the automaton's full content (table,
start, labels, names), so equal automata share entries and different ones never collide.

>>> from bilinear.automata.families import from_spec
>>> calls = []
>>> @per_automaton
... def states(a):
...     calls.append(1)
...     return a.n_states
>>> states(from_spec("cyclic:3")), states(from_spec("cyclic:3")), len(calls)
(3, 3, 1)
"""

from __future__ import annotations

from collections import OrderedDict
from functools import wraps

from bilinear.errors import ConstructionError

__all__ = ["per_automaton", "automaton_key", "minimal", "clear_caches"]

#: Entries kept per cached function.
MAX_ENTRIES = 64


def automaton_key(a) -> tuple:
    """A hashable key of everything that defines the automaton, and of the spec the constructions
    read (``automaton.spec`` is not part of equality, but a builder may answer differently
    with and without it)."""
    spec = None if a.spec is None else a.spec.text
    return (a.delta.shape, a.delta.tobytes(), int(a.start), a.labels.tobytes(), a.symbols, a.classes, a.name, spec)


#: The ``cache_clear`` of every :func:`per_automaton` function (:func:`clear_caches`).
_CLEARS: list = []


def clear_caches() -> None:
    """Forget every :func:`per_automaton` result: the caches are keyed by the automaton's content,
    so a benchmark that builds a fresh automaton per repeat must also call this, or it times a
    cache hit."""
    for clear in _CLEARS:
        clear()


def per_automaton(fn):
    """Memoise ``fn(automaton)`` (the last :data:`MAX_ENTRIES` automata; :func:`clear_caches`
    forgets them all).  Only a value or a :class:`~bilinear.errors.ConstructionError` is kept: any
    other exception (a bad argument, a time budget that ran out) propagates and the next call
    computes again."""
    cache: OrderedDict = OrderedDict()
    _CLEARS.append(cache.clear)

    @wraps(fn)
    def wrapper(automaton):
        key = automaton_key(automaton)
        if key in cache:
            cache.move_to_end(key)
            ok, value = cache[key]
            if ok:
                return value
            raise value.with_traceback(None)  # the same error, of the same class (ConstructionTooLargeError)
        try:
            value = fn(automaton)
            cache[key] = (True, value)
        except ConstructionError as exc:
            cache[key] = (False, exc)
            raise
        finally:
            while len(cache) > MAX_ENTRIES:
                cache.popitem(last=False)
        return value

    wrapper.cache_clear = cache.clear
    return wrapper


@per_automaton
def minimal(automaton):
    """The minimal automaton (:func:`bilinear.automata.minimize.minimize`), remembered."""
    from bilinear.automata.minimize import minimize

    return minimize(automaton)
