"""A torch file that torch cannot load (a run's ``model.pt`` or ``checkpoint.pt``, a checkpoint's
``pytorch_model.bin``) is refused in one line that names the file and says what is wrong in the toolkit's
words: never torch's own text ("PytorchStreamReader failed reading zip archive ... internal miniz error",
cut off mid-sentence), nor its advice to load with ``weights_only=False``."""

from __future__ import annotations

import io
import pickle
import shutil

import pytest
import torch

import bilinear.learned.external.tensors as T
from bilinear.cli import main
from bilinear.errors import CheckpointError
from bilinear.learned import TrainConfig, load_run

TORCH_TEXT = ("miniz", "PytorchStreamReader", "RuntimeError", "KeyError", "EOFError", "UnpicklingError",
              "weights_only")
NOT_TORCH = "not a readable torch file (truncated, or not a torch zip archive)"


def _zip() -> bytes:
    buf = io.BytesIO()
    torch.save({"w": torch.ones(40)}, buf)
    return buf.getvalue()


#: What torch raised for each: KeyError 101, UnpicklingError ("Weights only load failed ... Unsupported operand
#: 110": text is no pickle of objects either), EOFError, RuntimeError (miniz) twice, struct.error.
BAD = {"text": b"hello world\n", "text n": b"not a checkpoint", "empty": b"", "zip magic": b"PK\x03\x04garbage",
       "truncated": _zip()[:300], "pickle cut short": b"\x80\x02}q\x00(X\x01\x00"}


def _clean(message: str) -> None:
    assert not [t for t in TORCH_TEXT if t in message], message
    assert "\n" not in message


@pytest.mark.parametrize("kind", BAD)
def test_a_runs_model_that_torch_cannot_load(finished_run, tmp_path, kind):
    run = tmp_path / "run"
    shutil.copytree(finished_run, run)
    (run / "model.pt").write_bytes(BAD[kind])
    with pytest.raises(CheckpointError) as info:
        load_run(run)
    assert str(info.value) == f"model {run / 'model.pt'} is corrupt: {NOT_TORCH}"
    _clean(str(info.value))


def test_export_of_a_truncated_model_is_one_line(finished_run, tmp_path, capsys):
    """probe3's case: ``head -c 300 model.pt``."""
    run = tmp_path / "run"
    shutil.copytree(finished_run, run)
    (run / "model.pt").write_bytes((finished_run / "model.pt").read_bytes()[:300])
    assert main(["export", str(run), str(tmp_path / "out.json")]) == 2
    err = capsys.readouterr().err
    assert err == f"bilinear: error: model {run / 'model.pt'} is corrupt: {NOT_TORCH}\n"
    assert not (tmp_path / "out.json").exists()


@pytest.mark.parametrize("kind", BAD)
def test_a_pytorch_model_bin_that_torch_cannot_load(tmp_path, kind):
    path = tmp_path / "pytorch_model.bin"
    path.write_bytes(BAD[kind])
    with pytest.raises(CheckpointError) as info:
        T.read_tensors(str(tmp_path))
    assert str(info.value) == f"weights file {str(path)!r} is {NOT_TORCH}"
    _clean(str(info.value))


def test_a_pytorch_model_bin_with_pickled_objects_says_so(tmp_path):
    path = tmp_path / "pytorch_model.bin"
    with open(path, "wb") as fh:
        pickle.dump({"w": TrainConfig}, fh)  # a class: a global, refused by weights_only
    with pytest.raises(CheckpointError) as info:
        T.read_tensors(str(tmp_path))
    assert str(info.value) == (f"weights file {str(path)!r} is not a plain torch state dict: it holds pickled "
                               "Python objects besides tensors and was not loaded (loading it fully could run "
                               "code it carries)")
    _clean(str(info.value))


def test_a_pytorch_model_bin_that_is_a_folder_cannot_be_read(tmp_path):
    (tmp_path / "pytorch_model.bin").mkdir()
    with pytest.raises(CheckpointError, match="has no model.safetensors or pytorch_model.bin"):
        T.read_tensors(str(tmp_path))  # not a file: not offered to torch
