"""The safetensors reader, on files written here byte by byte (the format: an 8-byte little-endian
header length, a JSON header, the raw bytes): dtypes, and bad files refused in one line."""

from __future__ import annotations

import json
import struct

import numpy as np
import pytest

import bilinear.learned.external.tensors as T
from bilinear.errors import CheckpointError


def _write(folder, tensors: dict, header_extra=None, corrupt=None):
    header, body = {}, b""
    for name, (dtype, arr, raw) in tensors.items():
        header[name] = {"dtype": dtype, "shape": list(arr.shape), "data_offsets": [len(body), len(body) + len(raw)]}
        body += raw
    header.update(header_extra or {})
    text = json.dumps(header).encode()
    data = struct.pack("<Q", len(text)) + text + body
    if corrupt is not None:
        data = corrupt(data)
    (folder / "model.safetensors").write_bytes(data)


def test_dtypes_read_back(tmp_path):
    a = np.arange(6, dtype="<f4").reshape(2, 3) / 7
    b = np.array([1.5, -2.25], dtype="<f8")
    c = np.array([0.5, 3.0], dtype="<f2")
    bf = np.array([1.0, -0.375], dtype=np.float32)
    bf_raw = (bf.view(np.uint32) >> 16).astype("<u2").tobytes()   # bfloat16: the top 16 bits
    _write(tmp_path, {"a": ("F32", a, a.tobytes()), "b": ("F64", b, b.tobytes()), "c": ("F16", c, c.tobytes()),
                      "bf": ("BF16", bf, bf_raw)}, {"__metadata__": {"format": "pt"}})
    t = T.read_tensors(str(tmp_path))
    assert t["a"].dtype == np.float64 and np.array_equal(t["a"], a.astype(np.float64))
    assert t["b"].tolist() == [1.5, -2.25] and t["c"].tolist() == [0.5, 3.0] and t["bf"].tolist() == [1.0, -0.375]


def test_bad_files(tmp_path, monkeypatch):
    a = np.zeros(4, dtype="<f4")
    _write(tmp_path, {"a": ("I8", a, a.tobytes())})
    with pytest.raises(CheckpointError, match="tensor 'a' in .* has dtype 'I8'"):
        T.read_tensors(str(tmp_path))
    _write(tmp_path, {"a": ("F32", a, a.tobytes())}, corrupt=lambda d: d[:-4])  # truncated body
    with pytest.raises(CheckpointError, match="byte range 0..16, which does not fit"):
        T.read_tensors(str(tmp_path))
    _write(tmp_path, {"a": ("F32", a, a.tobytes())}, corrupt=lambda d: struct.pack("<Q", 10 ** 12) + d[8:])
    with pytest.raises(CheckpointError, match="has a header of 1,000,000,000,000 bytes"):
        T.read_tensors(str(tmp_path))
    monkeypatch.setattr(T, "MAX_TENSOR_BYTES", 10)
    with pytest.raises(CheckpointError, match="over the reader's limit 10"):
        T.read_tensors(str(tmp_path))
    with pytest.raises(CheckpointError, match="has no model.safetensors or pytorch_model.bin"):
        T.read_tensors(str(tmp_path / "nothing"))


def test_a_torch_state_dict_and_a_pickle_that_is_not_one(tmp_path):
    import torch

    torch.save({"w": torch.tensor([[1.0, 2.0]], dtype=torch.bfloat16), "step": 3}, tmp_path / "pytorch_model.bin")
    t = T.read_tensors(str(tmp_path))
    assert list(t) == ["w"] and t["w"].tolist() == [[1.0, 2.0]] and t["w"].dtype == np.float64

    torch.save({"w": _Code()}, tmp_path / "pytorch_model.bin")  # weights_only=True refuses arbitrary objects
    with pytest.raises(CheckpointError, match="is not a plain torch state dict"):
        T.read_tensors(str(tmp_path))


class _Code:
    """An object a plain state dict never holds."""
