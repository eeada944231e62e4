"""Sign a hand-written weights, affine weights, stack or automaton file: validate it, then add its checksum.

A weights file needs a checksum (``verify --weights`` refuses one without, unless ``--unsigned``):
the checksum says the file is what a program wrote, unchanged since.  A file written by hand has
none; :func:`sign_file` checks it exactly as loading would (every entry, the variant's structure,
every layer of a stack, the automaton's table) and writes it back with the checksum of
docs/formats.md (the SHA-256 of the canonical JSON of every other key), the entries exactly as
written (``"3/4"`` stays ``"3/4"``).  A stack's layers are signed first, then the stack.

>>> import json, tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "parity.json"
>>> _ = path.write_text(json.dumps({"format": "bilinear.weights", "version": 1, "variant": "diagonal",
...     "exact": True, "A": [[["1"]], [["-1"]]], "h0": ["1"], "readout": [["1"], ["-1"]]}))
>>> sign_file(path).kind
'weights'
>>> from bilinear.constructions.values.stack import load_network
>>> load_network(path).variant
'diagonal'
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bilinear.errors import WeightsError
from bilinear.fileio import atomic_write_text
from bilinear.jsonfile import checksum, read_json_file

__all__ = ["Signed", "sign_data", "sign_file"]

_KINDS: dict[Any, str] = {"bilinear.weights": "weights", "bilinear.stack": "stack", "bilinear.automaton": "automaton",
                          "bilinear.affine": "affine"}


@dataclass(frozen=True)
class Signed:
    """What :func:`sign_file` did: the ``kind`` of file, where it wrote it, and whether a
    checksum was already there (``had_checksum``) and still matched (``was_valid``)."""

    kind: str
    path: Path
    checksum: str
    had_checksum: bool
    was_valid: bool


def _signed(data: dict, error: type, source: str) -> dict:
    body = {k: v for k, v in data.items() if k != "checksum"}
    return {**body, "checksum": checksum(body, error, source)}


def sign_data(data, source: str = "file") -> tuple[str, dict]:
    """``(kind, signed copy)`` of a weights, stack or automaton JSON object, after validating it
    as loading would (WeightsError or AutomatonError naming ``source`` and the item)."""
    if not isinstance(data, dict):
        raise WeightsError(f"{source}: top level must be a JSON object")
    kind = _KINDS.get(data.get("format"))
    if kind is None:
        raise WeightsError(f"{source}: format is {data.get('format')!r}; sign reads "
                           f"{', '.join(repr(f) for f in _KINDS)} files (docs/formats.md)")
    if kind == "automaton":
        from bilinear.automata.fileformat import decode
        from bilinear.errors import AutomatonError

        decode({k: v for k, v in data.items() if k != "checksum"}, source)
        return kind, _signed(data, AutomatonError, source)
    if kind == "affine":
        from .values.affine import AffineWeights

        signed = _signed(data, WeightsError, source)
        AffineWeights.from_json(signed, source)  # every check of loading, now with the checksum required
        return kind, signed
    from .values.stack import network_from_json

    if kind == "stack":
        layers = data.get("layers")
        if isinstance(layers, list):
            data = {**data, "layers": [_signed(layer, WeightsError, f"{source}: layer {i + 1}")
                                       if isinstance(layer, dict) else layer for i, layer in enumerate(layers)]}
    signed = _signed(data, WeightsError, source)
    network_from_json(signed, source)  # every check of loading, now with the checksum required
    return kind, signed


def sign_file(path, out=None) -> Signed:
    """Validate the file ``path`` and write it with its checksum to ``out`` (default: in place,
    atomically, keeping its mode; through a symbolic link, into the file it points to).  The caller
    checks that ``out`` may be written (``--force``)."""
    path = Path(path)
    data = read_json_file(path, WeightsError, what="file to sign")
    had = isinstance(data, dict) and "checksum" in data
    was_valid = False
    if had:
        body = {k: v for k, v in data.items() if k != "checksum"}
        try:
            was_valid = data["checksum"] == checksum(body, WeightsError, str(path))
        except WeightsError:
            was_valid = False
    kind, signed = sign_data(data, str(path))
    # in place: the file a link points to is signed and the link kept (replacing the link by a
    # signed copy left its target unsigned); the file's mode is kept (bilinear.fileio.atomic_write)
    target = Path(out) if out is not None else Path(os.path.realpath(path))
    atomic_write_text(target, json.dumps(signed, indent=1, allow_nan=False) + "\n")
    return Signed(kind, target, signed["checksum"], had, was_valid)
