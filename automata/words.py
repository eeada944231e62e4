"""Words written short: run-length compression of long words.

A failing word found at length 500 is mostly a power: ``inc^358``, ``(a b)^120 a``.
:func:`compress` writes a word (symbol indices) with the symbol names, each maximal repetition
of a block of length 1..``max_period`` as ``name^n`` or ``(name name)^n``; the empty word is
``ε``.  :func:`expand` reads such a text back (for tests and for users pasting a word).

>>> compress((0,) * 358, ["inc", "reset"])
'inc^358'
>>> compress((0, 1) * 3 + (0,), ["0", "1"]), compress((1, 1, 0), ["0", "1"]), compress((), ["a"])
('(0 1)^3 0', '1^2 0', 'ε')
>>> expand("(0 1)^3 0", ["0", "1"]) == (0, 1) * 3 + (0,)
True
"""

from __future__ import annotations

import re

from bilinear.errors import AutomatonError

__all__ = ["compress", "expand", "names_of"]

#: Longest repeated block :func:`compress` looks for.
MAX_PERIOD = 3


def names_of(names_or_automaton) -> list[str]:
    """Symbol names from a sequence of names or from an automaton (its ``symbols``)."""
    symbols = getattr(names_or_automaton, "symbols", names_or_automaton)
    return [str(s) for s in symbols]


def _repeats(word: tuple, i: int, p: int) -> int:
    """How many times the block ``word[i:i+p]`` repeats from position ``i``."""
    block = word[i:i + p]
    if len(block) < p:
        return 0
    n = 1
    while word[i + n * p:i + (n + 1) * p] == block:
        n += 1
    return n


def _primitive(block: tuple) -> bool:
    """True unless ``block`` is a power of a shorter block."""
    p = len(block)
    return not any(p % q == 0 and block == block[:q] * (p // q) for q in range(1, p))


def compress(word, names, max_period: int = MAX_PERIOD) -> str:
    """``word`` (symbol indices) as text, every maximal repetition of a block of length
    ``1..max_period`` written as a power (greedy, left to right, longest coverage first).

    ``names`` is a sequence of symbol names or an automaton.  AutomatonError for an index
    without a name.
    """
    names = names_of(names)
    word = tuple(int(x) for x in word)
    bad = [x for x in word if not 0 <= x < len(names)]
    if bad:
        raise AutomatonError(f"word uses symbol index {bad[0]}, outside 0..{len(names) - 1}")
    if not word:
        return "ε"
    out, i = [], 0
    while i < len(word):
        best_p, best_n = 1, _repeats(word, i, 1)
        for p in range(2, max_period + 1):
            n = _repeats(word, i, p)
            if n >= 2 and n * p > best_n * best_p and _primitive(word[i:i + p]):
                best_p, best_n = p, n
        block = " ".join(names[x] for x in word[i:i + best_p])
        if best_n == 1:
            out.append(block)
        else:
            out.append(f"{block}^{best_n}" if best_p == 1 else f"({block})^{best_n}")
        i += best_p * best_n
    return " ".join(out)


_TOKEN = re.compile(r"\(([^()]*)\)\^([0-9]+)|(\S+?)\^([0-9]+)|(\S+)")


def expand(text: str, names) -> tuple[int, ...]:
    """The word written by :func:`compress` (names separated by spaces); AutomatonError for an
    unknown name."""
    names = names_of(names)
    index = {n: i for i, n in enumerate(names)}
    text = text.strip()
    if text in ("", "ε"):
        return ()

    def look(name: str) -> int:
        if name not in index:
            raise AutomatonError(f"unknown symbol {name!r} in word {text!r} (known: {', '.join(names)})")
        return index[name]

    word: list[int] = []
    for group, gn, single, sn, plain in _TOKEN.findall(text):
        if group or gn:
            word += [look(x) for x in group.split()] * int(gn)
        elif sn:
            word += [look(single)] * int(sn)
        else:
            word.append(look(plain))
    return tuple(word)
