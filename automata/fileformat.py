"""The automaton file format: one JSON object, UTF-8 (docs/formats.md).

::

    {"format": "bilinear.automaton", "version": 1,
     "name": "toggle",                      optional (default: the file name's stem)
     "states": 2,                           the number of states
     "symbols": ["flip", "stay"],           symbol names, one per row of delta
     "delta": [[1, 0], [0, 1]],             delta[symbol][state] = next state
     "start": 0,                            optional (default 0)
     "labels": [0, 1],                      optional: class of each state (default: the state)
     "classes": ["off", "on"],              optional: class names (default "0", "1", ...)
     "checksum": "sha256:..."}              optional when written by hand

Written by :func:`write` (atomically, with the checksum; ``bilinear.automata.write_automaton``),
read by :func:`read` (``bilinear.automata.read_automaton``).  The
checksum, when present, is the SHA-256 of the canonical JSON (sorted keys, no spaces) of every
other key, as in the weights format; a file whose checksum does not match is refused.  The
content is validated exactly as :class:`~bilinear.automata.automaton.Automaton` validates its
arguments; every problem is an :class:`~bilinear.errors.AutomatonError` naming the file and the
item.

>>> from bilinear.automata import Automaton
>>> a = Automaton([[1, 0], [0, 1]], symbols=("flip", "stay"), name="toggle")
>>> data = encode(a)
>>> data["delta"], data["checksum"][:7]
([[1, 0], [0, 1]], 'sha256:')
>>> decode(data) == a
True
"""

from __future__ import annotations

import json
from pathlib import Path

from bilinear.argtypes import check_positive_int
from bilinear.errors import AutomatonError
from bilinear.jsonfile import check_header, checksum

from .automaton import MAX_UNNAMED_CLASSES, Automaton

__all__ = ["FORMAT", "FORMAT_VERSION", "MAX_STATES", "encode", "decode", "read", "write"]

FORMAT = "bilinear.automaton"
FORMAT_VERSION = 1
#: Largest transition table (symbols x states entries) a file may declare.
MAX_STATES = 10_000_000
_KEYS = ("format", "version", "name", "states", "symbols", "delta", "start", "labels", "classes", "checksum")
_REQUIRED = ("format", "version", "states", "symbols", "delta")


def _checksum(payload: dict) -> str:
    return checksum(payload, AutomatonError, "automaton")


def encode(automaton: Automaton) -> dict:
    """The JSON object of ``automaton`` (with checksum)."""
    payload = {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "name": automaton.name,
        "states": automaton.n_states,
        "symbols": list(automaton.symbols),
        "delta": automaton.delta.tolist(),
        "start": automaton.start,
        "labels": automaton.labels.tolist(),
        "classes": list(automaton.classes),
    }
    payload["checksum"] = _checksum(payload)
    return payload


def _check_header(data, source: str) -> None:
    check_header(data, source, AutomatonError, FORMAT, FORMAT_VERSION, _KEYS, _REQUIRED)


def _check_classes(count: int, states: int, source: str) -> None:
    """At most max(states, :data:`~bilinear.automata.automaton.MAX_UNNAMED_CLASSES`) class names,
    the bound on classes without names.  Labels use at most ``states`` classes; a name no state
    uses is allowed (it keeps the later classes' indices), but not without end: 3,000,000 names
    for 2 states took 13 s to describe."""
    most = max(states, MAX_UNNAMED_CLASSES)
    if count > most:
        raise AutomatonError(
            f"{source}: {count:,} class names for {states:,} states are over the limit of max(states, "
            f"{MAX_UNNAMED_CLASSES:,}) = {most:,} (bilinear.automata.automaton.MAX_UNNAMED_CLASSES)")


def _check_sizes(data, source: str) -> int:
    """``states`` is a positive integer, ``delta`` a list of one row of that length per symbol,
    and the lists of names and labels have lengths that fit: all decided from the lengths alone,
    before any name is checked (10^7 symbol names took 22 s to check, then were refused for their
    count)."""
    n = data["states"]
    n = check_positive_int(n, f"{source}: 'states'", error=AutomatonError, maximum=MAX_STATES)
    delta, symbols = data["delta"], data["symbols"]
    if not isinstance(delta, list) or not isinstance(symbols, list):
        raise AutomatonError(f"{source}: 'delta' and 'symbols' must be lists")
    if len(delta) * n > MAX_STATES:
        raise AutomatonError(f"{source}: {len(delta)} x {n} transition table is over the limit of {MAX_STATES} entries")
    if len(symbols) != len(delta):
        raise AutomatonError(f"{source}: {len(symbols)} symbol names given for {len(delta)} table rows")
    labels, classes = data.get("labels"), data.get("classes")
    if isinstance(labels, list) and len(labels) != n:
        raise AutomatonError(f"{source}: labels has length {len(labels)}, expected one per state ({n})")
    if isinstance(classes, list):
        _check_classes(len(classes), n, source)
    for a, row in enumerate(delta):
        if not isinstance(row, list) or len(row) != n:
            got = len(row) if isinstance(row, list) else type(row).__name__
            raise AutomatonError(f"{source}: delta[{a}] must be a list of {n} states (one per state), got {got}")
    return n


def _name(given, default: str, source: str) -> str:
    """The file's ``name``: a string (or absent / null: the file name's stem), never another
    JSON value turned into text."""
    if given is None:
        return default
    if not isinstance(given, str):
        raise AutomatonError(f"{source}: 'name' must be a string, got {type(given).__name__}")
    return given or default


def decode(data, source: str = "automaton", name: str = ""):
    """The :class:`~bilinear.automata.automaton.Automaton` of a JSON object of the format."""
    _check_header(data, source)
    _check_sizes(data, source)
    given_name = _name(data.get("name"), name, source)  # its error names the source itself
    try:
        return Automaton(
            data["delta"], start=data.get("start", 0), labels=data.get("labels"),
            symbols=data["symbols"], classes=data.get("classes"), name=given_name,
        )
    except AutomatonError as exc:
        raise AutomatonError(f"{source}: {exc}") from None


def read(path) -> Automaton:
    """The automaton in the file ``path`` (AutomatonError naming the file and the item).

    >>> import tempfile, pathlib
    >>> a = Automaton([[1, 0], [0, 1]], symbols=("flip", "stay"), name="toggle")
    >>> path = write(a, pathlib.Path(tempfile.mkdtemp()) / "toggle.json")
    >>> read(path) == a, read(path).name
    (True, 'toggle')
    """
    from bilinear.jsonfile import read_json_file

    data = read_json_file(path, AutomatonError, what="automaton file")
    return decode(data, source=str(path), name=Path(path).stem)


def write(automaton: Automaton, path) -> Path:
    """Write ``automaton`` to ``path`` atomically (parent folders are created); an automaton with
    more class names than a file may hold (:func:`read` would refuse the file) is not written."""
    from bilinear.fileio import atomic_write_text

    path = Path(path)
    _check_classes(automaton.n_classes, automaton.n_states, str(path))
    text = json.dumps(encode(automaton), indent=1, allow_nan=False)
    path.parent.mkdir(parents=True, exist_ok=True)
    return atomic_write_text(path, text + "\n")
