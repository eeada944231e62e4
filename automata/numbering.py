"""A data file's own numbering of the symbols and classes, mapped onto an automaton's.

A words file from another repository numbers its tokens and its classes its own way. A
*numbering* says, for each file index, which symbol (``symbols``) and which class (``classes``)
of the automaton it is: ``symbols[k]`` is the automaton's symbol index of the file's token ``k``,
``classes[k]`` the automaton's class index of the file's class ``k``.  Two sources:

* ``word-problem``, built in for ``symmetric:N`` and ``alternating:N`` with every element as a
  symbol (``alphabet=all``): the numbering of the word-problem data (Merrill, Petty and
  Sabharwal 2024, ``generate_data.py``; reused by DeltaProduct, Siems et al. 2025).  There, element
  ``k`` is the ``k``-th tuple of ``itertools.permutations(range(N))`` (for A_N: the even ones, in
  that order), token and class numbers are the same numbering, the target after a prefix is the
  running product ``acc * x`` from the identity (element 0) with ``(p * q)[i] = p[q[i]]`` (``q``
  first, then ``p``).  That product is ours read backwards, ``x_1 ∘ ... ∘ x_t``, and inversion
  turns one into the other: file element ``p`` is our element ``p^-1`` (docs/training.md, "Data
  files from other repositories").
* a JSON file ``{"symbols": [NAME, ...], "classes": [NAME, ...]}`` listing, in the file's order,
  the automaton's symbol and class names.

:func:`file_automaton` is the automaton as the file numbers it (the same machine, symbols and
classes permuted), so the file is checked row by row as any other file is (a wrong numbering is
refused with the row that shows it, never read silently wrong); :func:`to_automaton` maps the
words and labels read back onto the automaton's own indices.

>>> from bilinear.automata import from_spec
>>> a = from_spec("symmetric:3,alphabet=all")
>>> n = word_problem_numbering(a)
>>> [a.symbols[i] for i in n.symbols]
['e', '(1 2)', '(0 1)', '(0 2 1)', '(0 1 2)', '(0 2)']
"""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bilinear.errors import DataError

from .automaton import Automaton
from .data import Dataset

__all__ = ["Numbering", "WORD_PROBLEM", "MAX_NUMBERING_BYTES", "word_problem_numbering", "load_numbering", "file_automaton", "to_automaton",
           "word_problem_spec"]

#: The built-in numbering's name (``--relabel word-problem``).
WORD_PROBLEM = "word-problem"
#: Largest numbering file read (a list of names).
MAX_NUMBERING_BYTES = 2**20


@dataclass(frozen=True)
class Numbering:
    """File index -> automaton index, for the tokens (``symbols``) and the classes (``classes``);
    both permutations (tuples of distinct indices covering the automaton's)."""

    symbols: tuple
    classes: tuple


def _cycles(perm: tuple) -> str:
    """Cycle notation of a permutation in array form (``e`` for the identity), as the
    ``symmetric`` and ``alternating`` families name their elements."""
    seen, out = set(), []
    for i in range(len(perm)):
        if i in seen or perm[i] == i:
            continue
        cyc, j = [], i
        while j not in seen:
            seen.add(j)
            cyc.append(j)
            j = perm[j]
        out.append("(" + " ".join(map(str, cyc)) + ")")
    return "".join(out) or "e"


def _even(perm: tuple) -> bool:
    return sum(perm[i] > perm[j] for i in range(len(perm)) for j in range(i + 1, len(perm))) % 2 == 0


def word_problem_spec(spec: str) -> str:
    """``symmetric:N`` / ``alternating:N`` with every element as a symbol (the word problem's
    alphabet); DataError for another family.

    >>> word_problem_spec("symmetric:3"), word_problem_spec("alternating:5,alphabet=all")
    ('symmetric:3,alphabet=all', 'alternating:5,alphabet=all')
    """
    m = re.fullmatch(r"(symmetric|alternating):(\d+)(,alphabet=\w+)?", spec.strip())
    if not m:
        raise DataError(f"the {WORD_PROBLEM} numbering is built in for symmetric:N and alternating:N only, "
                        f"not {spec!r}; give a numbering file instead (docs/formats.md)")
    return f"{m.group(1)}:{int(m.group(2))},alphabet=all"


def word_problem_numbering(automaton: Automaton) -> Numbering:
    """The word-problem data's numbering of S_N or A_N (module docstring) on ``automaton``, the
    ``symmetric:N,alphabet=all`` or ``alternating:N,alphabet=all`` family."""
    spec = automaton.name or ""
    m = re.fullmatch(r"(symmetric|alternating):(\d+),alphabet=all", spec)
    if not m:
        raise DataError(f"the {WORD_PROBLEM} numbering needs symmetric:N or alternating:N with alphabet=all, "
                        f"got {spec or 'an unnamed automaton'!r}")
    n = int(m.group(2))
    elements = [p for p in itertools.permutations(range(n)) if m.group(1) == "symmetric" or _even(p)]
    inverse = [tuple(int(i) for i in np.argsort(p)) for p in elements]  # file element p is our p^-1
    names = [_cycles(p) for p in inverse]
    return Numbering(symbols=tuple(automaton.symbols.index(x) for x in names),
                     classes=tuple(automaton.classes.index(x) for x in names))


def load_numbering(source: str, automaton: Automaton) -> Numbering:
    """The numbering ``source`` names: ``word-problem`` or a JSON file of names (module docstring)."""
    if source == WORD_PROBLEM:
        return word_problem_numbering(automaton)
    path = Path(source)
    if not path.is_file():
        raise DataError(f"numbering {source!r} is neither {WORD_PROBLEM!r} nor an existing JSON file")
    if path.stat().st_size > MAX_NUMBERING_BYTES:
        raise DataError(f"numbering file {source} is over {MAX_NUMBERING_BYTES:,} bytes")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise DataError(f"numbering file {source} is not JSON: {exc}") from None
    if not isinstance(data, dict) or set(data) != {"symbols", "classes"}:
        raise DataError(f"numbering file {source} must be an object with exactly the keys 'symbols' and 'classes'")
    return Numbering(symbols=_indices(data["symbols"], automaton.symbols, "symbol", source),
                     classes=_indices(data["classes"], automaton.classes, "class", source))


def _indices(names, known, what: str, source: str) -> tuple:
    if not isinstance(names, list) or not all(isinstance(x, str) for x in names):
        raise DataError(f"numbering file {source}: {what}s must be a list of names")
    missing = [x for x in names if x not in known]
    if missing:
        raise DataError(f"numbering file {source}: {missing[0]!r} is not a {what} of the automaton")
    if len(set(names)) != len(names) or len(names) != len(known):
        raise DataError(f"numbering file {source}: the {what}s must list each of the automaton's "
                        f"{len(known)} {what} names once, got {len(names)}")
    return tuple(list(known).index(x) for x in names)


def file_automaton(automaton: Automaton, numbering: Numbering) -> Automaton:
    """``automaton`` with its symbols and classes in the file's order (the same machine)."""
    delta = np.asarray(automaton.delta)[list(numbering.symbols)]  # (file symbols, states)
    to_file = np.empty(len(numbering.classes), dtype=np.int64)
    to_file[list(numbering.classes)] = np.arange(len(numbering.classes))
    labels = to_file[np.asarray(automaton.labels)]
    return Automaton(delta, start=automaton.start, labels=labels,
                     symbols=[automaton.symbols[i] for i in numbering.symbols],
                     classes=[automaton.classes[i] for i in numbering.classes], name=automaton.name)


def to_automaton(ds: Dataset, numbering: Numbering) -> Dataset:
    """The words and labels of ``ds`` (read in the file's numbering) in the automaton's indices;
    padding stays 0 in the words and -1 in the labels."""
    sym = np.asarray(numbering.symbols, dtype=np.int64)
    cls = np.asarray(numbering.classes, dtype=np.int64)
    words = np.where(ds.mask, sym[ds.words], 0)
    labels = np.where(ds.labels >= 0, cls[np.clip(ds.labels, 0, None)], ds.labels)
    return Dataset(words=words, lengths=ds.lengths.copy(), labels=labels, mask=ds.mask.copy(), every=ds.every,
                   n_classes=ds.n_classes)
