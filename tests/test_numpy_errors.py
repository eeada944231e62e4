"""The conftest fixture: numpy's floating errors raise in every test (underflow excepted)."""

from __future__ import annotations

import numpy as np
import pytest


def test_a_division_by_zero_raises_in_tests():
    with pytest.raises(FloatingPointError):
        np.array([1.0]) / np.array([0.0])
    with pytest.raises(FloatingPointError):
        np.exp(np.array([1000.0]))
    assert np.array([1e-300]) * np.array([1e-300]) == 0.0  # underflow is quiet
