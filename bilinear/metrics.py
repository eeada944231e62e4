"""Scores shared by the rooms (a leaf module: numpy only).

>>> normalized_accuracy(0.5, 2), normalized_accuracy(0.4, 5)
(0.0, 0.25)
>>> normalized_accuracy(np.array([0.5, 1.0]), 2).tolist()
[0.0, 1.0]
"""

from __future__ import annotations

import numpy as np

__all__ = ["normalized_accuracy"]


def normalized_accuracy(acc, n_classes: int):
    """``(acc - 1/C) / (1 - 1/C)``: 0 at chance, 1 when perfect (``acc`` itself when C = 1).

    ``acc`` is a number (a float is returned) or an array (an array of floats is returned).
    """
    value = np.asarray(acc, dtype=float)
    if n_classes > 1:
        chance = 1.0 / n_classes
        value = (value - chance) / (1.0 - chance)
    return float(value) if value.ndim == 0 else value
