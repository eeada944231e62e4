"""What a model of one's own may return, and the refusals of everything else (a tracker's output
read as logits): each refusal names the tracker and what it returned, where before complex logits
lost their imaginary part in silence and a string, a ragged list or a tuple of three reached the
user as numpy's or Python's own error."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from bilinear.automata import from_spec
from bilinear.constructions import check
from bilinear.constructions.values.tracker import as_tracker
from bilinear.errors import AnalysisError

PARITY = from_spec("parity")


def _parity(words: np.ndarray) -> np.ndarray:
    return np.eye(2)[np.cumsum(words, axis=1) % 2]


class _Module(torch.nn.Module):
    def __init__(self, out):
        super().__init__()
        self.out = out

    def forward(self, words):
        return self.out(torch.as_tensor(_parity(words.numpy())))


class _Output:
    """A transformers-style output object: the logits under ``.logits``."""

    def __init__(self, logits):
        self.logits = logits


def _refused(model, message: str) -> None:
    with pytest.raises(AnalysisError, match=message):
        check(model, PARITY, length=8, words=4)


def test_a_module_returning_the_logits_passes_and_anything_else_is_named():
    assert check(_Module(lambda x: x), PARITY, length=8, words=4).passed
    _refused(_Module(lambda x: (x, x)), r"tracker _Module returned a tuple, not a tensor of logits \(batch, time, classes\)$")
    _refused(_Module(_Output), r"returned a _Output, not a tensor of logits .*\(it has \.logits, as a transformers "
                               r"model's output has: wrap the model in a module whose forward returns model\(ids\)\.logits\)")
    _refused(_Module(lambda x: x.to(torch.complex128)), r"tracker _Module returned complex logits \(torch\.complex128\)")


def test_a_function_returning_what_numpy_cannot_read_is_named():
    fn = as_tracker(_parity, n_symbols=2, n_classes=2)
    assert check(fn, PARITY, length=8, words=4).passed
    refused = {
        "complex": (lambda w: _parity(w) + 0j, r"returned complex logits \(complex128\): they must be real numbers"),
        "strings": (lambda w: np.full(w.shape + (2,), "a"), r"returned logits that are not an array of numbers "
                                                             r"\(ValueError: could not convert string"),
        "ragged": (lambda w: [[1.0], [1.0, 2.0]], r"returned logits that are not an array of numbers \(ValueError"),
        "three": (lambda w: (_parity(w), None, 1), r"returned a tuple of 3 items; expected the logits or \(logits, "),
        "raises": (lambda w: 1 / 0, r"failed on words of shape \(\d+, 8\): ZeroDivisionError: division by zero"),
        "hidden": (lambda w: (_parity(w), [["x"]]), r"returned hidden states that are not an array of numbers"),
    }
    for name, (f, message) in refused.items():
        tracker = as_tracker(f, n_symbols=2, n_classes=2, name=name)
        if name == "hidden":  # hidden states are read only when asked for
            with pytest.raises(AnalysisError, match=f"tracker {name} " + message):
                tracker.run(np.zeros((2, 3), dtype=np.int64), hidden=True)
            continue
        _refused(tracker, f"tracker {name} " + message)


def test_a_function_may_return_a_torch_tensor_that_requires_grad():
    def logits(words):  # a model run without torch.no_grad(): its output requires grad
        return torch.tensor(_parity(words), requires_grad=True) * 2.0

    def with_hidden(words):
        return logits(words), logits(words)

    assert check(as_tracker(logits, n_symbols=2, n_classes=2), PARITY, length=8, words=4).passed
    run = as_tracker(with_hidden, n_symbols=2, n_classes=2).run(np.array([[1, 1, 0]]), hidden=True)
    assert run.logits.tolist() == [[[0.0, 2.0], [2.0, 0.0], [2.0, 0.0]]] and run.hidden.shape == (1, 3, 2)
