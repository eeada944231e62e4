"""Reading a JSON file a user hands us, defensively (a leaf module: it imports nothing of ours).

Used by the weights and automaton file formats (docs/formats.md).  :func:`read_json_file` refuses,
with the caller's exception type and one line naming the file:

- anything that is not a regular file (a folder, a FIFO, ``/dev/zero``), checked before opening,
  and a file over ``max_bytes`` (default :data:`MAX_FILE_BYTES`), checked before reading;
- a file whose first bytes cannot begin a JSON text (zero bytes, any binary file), sniffed
  before the rest is read, and a NUL byte anywhere, before anything is decoded;
- text that is not UTF-8 or not JSON; ``NaN``/``Infinity`` constants and numbers that overflow a
  float (``1e999``);
- an integer literal of more than :data:`MAX_INT_DIGITS` digits (checked before ``int()``);
- a key that appears twice in one object (JSON would silently keep the last one);
- nesting deeper than :data:`MAX_DEPTH`.

>>> import tempfile, pathlib
>>> p = pathlib.Path(tempfile.mkdtemp()) / "x.json"
>>> _ = p.write_text('{"a": [1, 2.5, "3/4"]}')
>>> read_json_file(p, ValueError)
{'a': [1, 2.5, '3/4']}
>>> _ = p.write_text('{"a": 1, "a": 2}')
>>> read_json_file(p, ValueError)
Traceback (most recent call last):
...
ValueError: ...x.json: duplicate key 'a' in one JSON object
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import stat
from pathlib import Path

__all__ = ["read_json_file", "parse_json_text", "read_file_bytes", "checksum", "check_header", "MAX_FILE_BYTES", "MAX_INT_DIGITS", "MAX_DEPTH"]

#: Largest file read (bytes): 256 MiB.
MAX_FILE_BYTES = 256 * 2**20
#: Most digits of one integer literal (Python's own ``int`` limit is 4300).
MAX_INT_DIGITS = 1000
#: Deepest nesting of arrays and objects.
MAX_DEPTH = 64


class _Refused(Exception):
    """Raised inside the JSON hooks; turned into the caller's exception."""


def _no_duplicates(pairs):
    out = {}
    for key, value in pairs:
        if key in out:
            raise _Refused(f"duplicate key {key!r} in one JSON object")
        out[key] = value
    return out


def _parse_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise _Refused(f"an integer of {len(text.lstrip('-'))} digits (the limit is {MAX_INT_DIGITS})")
    return int(text)


def _parse_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Refused(f"number {text[:40]!r} overflows a float")
    return value


def _parse_constant(name: str):
    raise _Refused(f"non-finite number {name}")


def _parse_infinity(name: str) -> float:
    """``Infinity`` and ``-Infinity`` as floats (Python's json writes them; configs hold them, e.g.
    a time-step limit); ``NaN`` still refused."""
    if name == "NaN":
        raise _Refused("non-finite number NaN")
    return float("inf") if name == "Infinity" else float("-inf")


_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
#: Every character but the four brackets, deleted before the brackets are counted.
_NOT_BRACKETS = {c: None for c in range(128) if chr(c) not in "[]{}"}


def _depth(text: str) -> int:
    """The deepest nesting of ``[``/``{`` outside strings: strings removed and everything but the
    brackets deleted at C speed, then one pass over the brackets alone that stops past
    :data:`MAX_DEPTH` (returning the depth reached; a scan of every character in Python took 20 s
    on 255 MiB).

    >>> _depth('{"a": [1, "[[[", {"b": []}]}'), _depth("[" * 100 + "]" * 100)
    (4, 65)
    """
    brackets = _STRING.sub("", text).translate(_NOT_BRACKETS)
    depth = deepest = 0
    for ch in brackets:
        if ch in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > MAX_DEPTH:
                    return deepest
        elif ch in "]}":
            depth -= 1
    return deepest


def _sniff(head: bytes, path: Path, error: type) -> None:
    """Refuse at once a file whose first byte after white space is a control byte, which no JSON
    text begins with: a file of zero bytes (255 MiB of them took 41.6 s to refuse) or most binary
    files.  ``head`` is the file's first bytes."""
    start = head.lstrip(b" \t\r\n")
    if head.startswith(b"\xef\xbb\xbf"):
        start = head[3:].lstrip(b" \t\r\n")
    if start and (start[0] < 0x20 or start[0] == 0x7f):  # a control byte (text and JSON errors say the rest)
        raise error(f"{path}: not a JSON file (it starts with the byte 0x{start[0]:02x} at offset "
                    f"{len(head) - len(start)})")


def _read_bytes(path: Path, error: type, what: str, max_bytes: int, sniff: bool = False) -> bytes:
    try:
        info = os.stat(path)
    except OSError as exc:
        raise error(f"cannot read {what} {str(path)!r}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(info.st_mode):
        raise error(f"{what} {str(path)!r} is not a regular file")
    if info.st_size > max_bytes:
        raise error(f"{what} {str(path)!r} has {info.st_size} bytes, over the limit of {max_bytes}")
    try:
        with open(path, "rb") as fh:  # a regular file: opening and reading cannot block
            if sniff:
                head = fh.read(4096)
                _sniff(head, path, error)
                data = head + fh.read(max_bytes + 1 - len(head))
            else:
                data = fh.read(max_bytes + 1)
    except OSError as exc:
        raise error(f"cannot read {what} {str(path)!r}: {exc.strerror or exc}") from None
    if len(data) > max_bytes:
        raise error(f"{what} {str(path)!r} has more than {max_bytes} bytes (the limit)")
    return data


def _read_json_bytes(path: Path, error: type, what: str, max_bytes: int) -> bytes:
    """:func:`_read_bytes` with the first bytes sniffed (:func:`_sniff`) before the rest is read,
    and a NUL byte anywhere (never part of a JSON text) refused before anything is decoded."""
    data = _read_bytes(path, error, what, max_bytes, sniff=True)
    nul = data.find(b"\x00")
    if nul >= 0:
        raise error(f"{path}: not a JSON file (a NUL byte at offset {nul})")
    return data


def read_file_bytes(path, error: type = ValueError, what: str = "file", max_bytes: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of ``path``: a regular file of at most ``max_bytes``, checked before reading
    (``error(message)`` naming the file otherwise)."""
    return _read_bytes(Path(path), error, what, max_bytes)


def read_json_file(path, error: type = ValueError, what: str = "file", max_bytes: int = MAX_FILE_BYTES,
                   infinity: bool = False):
    """The JSON value in ``path``; every problem is ``error(message)`` naming the file.  With
    ``infinity=True`` the constants ``Infinity`` and ``-Infinity`` read as floats (``NaN`` is still
    refused): the model configs of docs/your-model.md may hold them.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "config.json"
    >>> _ = p.write_text('{"limit": [0.0, Infinity]}')
    >>> read_json_file(p, ValueError, infinity=True)
    {'limit': [0.0, inf]}
    >>> read_json_file(p, ValueError)
    Traceback (most recent call last):
    ...
    ValueError: ...config.json: non-finite number Infinity
    """
    if not isinstance(path, (str, os.PathLike)) or not str(path):
        raise error(f"{what} path must be a non-empty string or path, got {path!r}")
    path = Path(path)
    data = _read_json_bytes(path, error, what, max_bytes)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"{path}: not UTF-8 text (byte {exc.start})") from None
    return parse_json_text(text, error, str(path), infinity=infinity)


def parse_json_text(text: str, error: type = ValueError, source: str = "text", line: str = " at line {}",
                    infinity: bool = False):
    """The JSON value of ``text`` under the checks of :func:`read_json_file` (nesting, integer
    digits, non-finite numbers, duplicate keys), each ``error("SOURCE: ...")``: the one parser of
    JSON files and of each line of a JSON-lines file (``line=""`` leaves out the line number the
    decoder counts inside ``text``).

    >>> parse_json_text('[1, 2]')
    [1, 2]
    >>> parse_json_text("[" * 100 + "]" * 100, ValueError, "rows.jsonl line 3")
    Traceback (most recent call last):
    ...
    ValueError: rows.jsonl line 3: JSON nested deeper than 64 levels
    >>> parse_json_text("9" * 5000, ValueError, "rows.jsonl line 1")
    Traceback (most recent call last):
    ...
    ValueError: rows.jsonl line 1: an integer of 5000 digits (the limit is 1000)
    """
    if _depth(text) > MAX_DEPTH:
        raise error(f"{source}: JSON nested deeper than {MAX_DEPTH} levels")
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates, parse_int=_parse_int,
                          parse_float=_parse_float,
                          parse_constant=_parse_infinity if infinity else _parse_constant)
    except _Refused as exc:
        raise error(f"{source}: {exc}") from None
    except json.JSONDecodeError as exc:
        raise error(f"{source}: not valid JSON ({exc.msg}{line.format(exc.lineno)})") from None
    except (ValueError, RecursionError) as exc:  # pragma: no cover - guarded above
        raise error(f"{source}: unreadable JSON ({type(exc).__name__})") from None


def checksum(payload: dict, error: type = ValueError, source: str = "file") -> str:
    """``"sha256:..."`` of the canonical JSON of ``payload`` (sorted keys, no spaces): the
    checksum of both file formats (docs/formats.md).

    >>> checksum({"b": 1, "a": [2]})[:15]
    'sha256:63c9663d'
    """
    try:
        canon = json.dumps(payload, sort_keys=True, separators=(",", ":"), allow_nan=False)
    except (ValueError, TypeError, RecursionError) as exc:
        raise error(f"{source}: cannot be checksummed ({str(exc).splitlines()[0][:80]})") from None
    return "sha256:" + hashlib.sha256(canon.encode("utf-8")).hexdigest()


def check_header(data, source: str, error: type, fmt: str, version: int, keys, required,
                 signed: bool = False, unsigned_hint: str = "") -> None:
    """The checks both file formats share, raising ``error`` with one line naming ``source``: a
    JSON object with only ``keys`` and every key of ``required``, ``format`` and ``version`` as
    expected, and a ``checksum`` that matches (required when ``signed``; ``unsigned_hint`` says
    how to load a hand-written file without one)."""
    if not isinstance(data, dict):
        raise error(f"{source}: top level must be a JSON object")
    unknown = sorted(set(data) - set(keys))
    if unknown:
        raise error(f"{source}: unknown key {unknown[0]!r} (keys: {', '.join(keys)})")
    for key in required:
        if key not in data:
            raise error(f"{source}: missing key {key!r}")
    if data["format"] != fmt:
        raise error(f"{source}: format is {data['format']!r}, expected {fmt!r}")
    if type(data["version"]) is not int or data["version"] != version:  # not true, not 1.0
        raise error(f"{source}: unsupported version {data['version']!r} (expected {version})")
    if "checksum" not in data:
        if signed:
            raise error(f"{source}: no checksum ({unsigned_hint})")
        return
    body = {k: v for k, v in data.items() if k != "checksum"}
    if data["checksum"] != checksum(body, error, source):
        raise error(f"{source}: checksum mismatch (the file was modified after it was written)")
