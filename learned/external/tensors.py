"""Reading a Hugging Face folder's tensors without safetensors, fla or transformers installed.

``model.safetensors`` is parsed directly (an 8-byte little-endian header length, a JSON header
naming each tensor's dtype, shape and byte range, then the raw bytes; F64, F32, F16 and BF16);
``pytorch_model.bin`` is read with ``torch.load(weights_only=True)`` (no pickled code runs).
Every tensor comes back as a float64 numpy array.  The file size is checked against
:data:`MAX_TENSOR_BYTES` before anything is read, each tensor's byte range against the file.
"""

from __future__ import annotations

import json
import os
import struct

import numpy as np

from bilinear.errors import CheckpointError

__all__ = ["read_tensors", "MAX_TENSOR_BYTES", "tensor"]

#: Largest weights file the reader opens (bytes; docs/limits.md).
MAX_TENSOR_BYTES = 4 << 30
_MAX_HEADER = 100 << 20
_DTYPES = {"F64": ("<f8", 8), "F32": ("<f4", 4), "F16": ("<f2", 2), "BF16": (None, 2)}


def _bf16(raw: bytes) -> np.ndarray:
    """bfloat16 bytes as float32 (the top half of a float32's bits)."""
    u = np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16
    return u.view(np.float32)


def _safetensors(path: str) -> dict[str, np.ndarray]:
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        head = f.read(8)
        if len(head) < 8:
            raise CheckpointError(f"weights file {path!r} is truncated (no safetensors header)")
        (n,) = struct.unpack("<Q", head)
        if n > min(_MAX_HEADER, size - 8):
            raise CheckpointError(f"weights file {path!r} has a header of {n:,} bytes, larger than the file allows")
        try:
            header = json.loads(f.read(n))
        except ValueError as exc:
            raise CheckpointError(f"weights file {path!r} has a malformed header: {exc}"[:300]) from None
        body = size - 8 - n
        out: dict[str, np.ndarray] = {}
        for name, info in header.items():
            if name == "__metadata__":
                continue
            dtype, shape, (start, end) = info.get("dtype"), info.get("shape"), info.get("data_offsets", (0, -1))
            if dtype not in _DTYPES:
                raise CheckpointError(f"tensor {name!r} in {path!r} has dtype {dtype!r} (supported: F64, F32, F16, BF16)")
            count = int(np.prod(shape)) if shape else 1
            if not 0 <= start <= end <= body or end - start != count * _DTYPES[dtype][1]:
                raise CheckpointError(f"tensor {name!r} in {path!r} has byte range {start}..{end}, which does not "
                                      f"fit its shape {shape} ({dtype}) or the file")
            f.seek(8 + n + start)
            raw = f.read(end - start)
            np_dtype = _DTYPES[dtype][0]
            arr = _bf16(raw) if np_dtype is None else np.frombuffer(raw, dtype=np_dtype)
            out[name] = arr.astype(np.float64).reshape(shape)
    return out


def _torch_bin(path: str) -> dict[str, np.ndarray]:
    """The tensors of a ``pytorch_model.bin``; CheckpointError naming the file, in the toolkit's words
    (torch's own text names its zip reader's internals and advises ``weights_only=False``)."""
    import pickle

    import torch

    from bilinear.learned.runs import _pickle_or_zip  # the same test as a run's own files

    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except OSError as exc:
        raise CheckpointError(f"weights file {path!r} cannot be read ({exc.strerror or type(exc).__name__})") from None
    except pickle.UnpicklingError as exc:
        if ("weights_only" in str(exc) or "Weights only load failed" in str(exc)) and _pickle_or_zip(path):
            raise CheckpointError(f"weights file {path!r} is not a plain torch state dict: it holds pickled Python "
                                  "objects besides tensors and was not loaded (loading it fully could run code it "
                                  "carries)") from None
        raise CheckpointError(f"weights file {path!r} is not a readable torch file (truncated, or not a torch zip "
                              "archive)") from None
    except Exception:  # torch raises many kinds for a damaged file (RuntimeError, EOFError, KeyError, ...)
        raise CheckpointError(f"weights file {path!r} is not a readable torch file (truncated, or not a torch zip "
                              "archive)") from None
    if not isinstance(state, dict):
        raise CheckpointError(f"weights file {path!r} holds a {type(state).__name__}, not a state dict")
    return {k: v.detach().to(torch.float64).numpy() for k, v in state.items() if isinstance(v, torch.Tensor)}


def read_tensors(folder: str) -> dict[str, np.ndarray]:
    """Every tensor of ``folder/model.safetensors`` (or ``folder/pytorch_model.bin``), float64."""
    for name, reader in (("model.safetensors", _safetensors), ("pytorch_model.bin", _torch_bin)):
        path = os.path.join(folder, name)
        if os.path.isfile(path):
            size = os.path.getsize(path)
            if size > MAX_TENSOR_BYTES:
                raise CheckpointError(f"weights file {path!r} has {size:,} bytes, over the reader's limit "
                                      f"{MAX_TENSOR_BYTES:,} (docs/limits.md)")
            return reader(path)
    if os.path.isfile(os.path.join(folder, "model.safetensors.index.json")):
        raise CheckpointError(f"folder {folder!r} holds a sharded checkpoint (model.safetensors.index.json): "
                              "not supported by the reader")
    raise CheckpointError(f"folder {folder!r} has no model.safetensors or pytorch_model.bin")


def tensor(tensors: dict, name: str, shape: tuple[int, ...]) -> np.ndarray:
    """``tensors[name]``, checked to have ``shape``; CheckpointError naming it otherwise."""
    if name not in tensors:
        raise CheckpointError(f"missing tensor {name!r} (shape {shape} expected)")
    t = tensors[name]
    if tuple(t.shape) != tuple(shape):
        raise CheckpointError(f"tensor {name!r} has shape {tuple(t.shape)}, expected {tuple(shape)}")
    if not isinstance(t, np.ndarray):  # a live torch parameter (fit.py binds them): not read from a file
        return t
    finite = np.isfinite(t)
    if not finite.all():  # a NaN would reach the analysis as an SVD error or a label read off a NaN logit
        at = tuple(int(i) for i in np.argwhere(~finite)[0])
        hint = "" if np.isnan(t[at]) else " (a float16 file holds nothing past 65504)"  # an export's overflow
        raise CheckpointError(f"tensor {name!r} has a non-finite entry {float(t[at])} at {at}{hint}")
    return t
