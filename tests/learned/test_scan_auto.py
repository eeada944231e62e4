"""``scan="auto"``: which scan runs where (learned/scan.py ``auto_method``), CUDA faked by a
stand-in whose ``is_cuda`` is True (the rule reads nothing else of the tokens)."""

from types import SimpleNamespace

import pytest
import torch

from bilinear.learned.scan import PARALLEL_MAX_HIDDEN, Dense, Diagonal, auto_method

CUDA = SimpleNamespace(is_cuda=True)
CPU = torch.zeros(1, 3, dtype=torch.long)


@pytest.mark.parametrize("d, expected", [(2, "parallel"), (PARALLEL_MAX_HIDDEN, "parallel"),
                                         (PARALLEL_MAX_HIDDEN + 1, "sequential"), (256, "sequential")])
def test_dense_on_cuda_is_parallel_up_to_the_measured_size(d, expected):
    A = Dense(torch.eye(d).repeat(2, 1, 1))
    assert auto_method(A, CUDA, torch.ones(d)) == expected


def test_diagonal_on_cuda_is_parallel_at_any_size():
    assert auto_method(Diagonal(torch.ones(2, 512)), CUDA, torch.ones(512)) == "parallel"


@pytest.mark.parametrize("d", [2, 256])
def test_cpu_is_always_sequential(d):
    assert auto_method(Dense(torch.eye(d).repeat(2, 1, 1)), CPU, torch.ones(d)) == "sequential"
    assert auto_method(Diagonal(torch.ones(2, d)), CPU, torch.ones(d)) == "sequential"


def test_renormalised_affine_recurrence_is_sequential_even_on_cuda():
    A = Diagonal(torch.ones(2, 4))
    assert auto_method(A, CUDA, torch.ones(4), normalize=True, add=torch.zeros(2, 4)) == "sequential"
    assert auto_method(A, CUDA, torch.ones(4), normalize=False, add=torch.zeros(2, 4)) == "parallel"
