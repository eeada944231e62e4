"""Scores shared by the rooms (a leaf module: numpy only).

>>> normalized_accuracy(0.5, 2), normalized_accuracy(0.4, 5)
(0.0, 0.25)
>>> normalized_accuracy(np.array([0.5, 1.0]), 2).tolist()
[0.0, 1.0]

The headline of a trained network is its normalised accuracy *at* the test length: the last
position of test words of exactly that length (``accuracy_at_length``).  The mean over every
position 1..length (``accuracy_mean_over_positions``) is kept beside it; it is not the accuracy at
the length (a network right up to 300 and wrong after reads 0.6 at 500).  Results written before
these keys existed are read through :func:`upgrade_result`:

>>> old = {"test_len": 500, "test_accuracy_normalized": 0.65, "test_final_accuracy_normalized": -0.1}
>>> new = upgrade_result(old)
>>> new["accuracy_at_length"], new["accuracy_mean_over_positions"], new["test_length"]
(-0.1, 0.65, 500)
>>> headline_label(500)
'normalised accuracy at length 500 (last position)'
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "normalized_accuracy", "upgrade_result", "headline_label", "mean_label",
    "AT_LENGTH", "MEAN_OVER_POSITIONS", "TEST_LENGTH", "VAL_ACCURACY", "LR_SELECTIONS", "selection_key",
]

#: Result key of the headline: normalised accuracy at the last position of words of the test length.
AT_LENGTH = "accuracy_at_length"
#: Result key of the normalised accuracy averaged over every position 1..test length.
MEAN_OVER_POSITIONS = "accuracy_mean_over_positions"
#: Result key of the test length.
TEST_LENGTH = "test_length"

#: Result key of the accuracy (every position) on the held-out validation words after training:
#: words of lengths val_min_len..val_max_len, drawn apart from the training and test words.
VAL_ACCURACY = "val_accuracy"
#: How a grid of learning rates picks its run: on the validation words (the protocol), or on the
#: test words (optimistic: the test words then choose the model; shown only as a labelled alternative).
LR_SELECTIONS = ("validation", "test")


def selection_key(result: dict, select: str = "validation") -> tuple:
    """The key whose largest value picks a learning rate among runs of one grid point.

    ``validation``: the validation accuracy, then the training accuracy, then fewer steps (a
    result without ``val_accuracy``, written before it existed, ranks by the other two); no
    test word is read.  ``test``: the accuracy at the test length, then the mean over positions.

    >>> a = {"val_accuracy": 1.0, "train_accuracy": 1.0, "steps": 400, "accuracy_at_length": 0.2}
    >>> b = {"val_accuracy": 0.9, "train_accuracy": 1.0, "steps": 300, "accuracy_at_length": 0.9}
    >>> max([a, b], key=selection_key)["accuracy_at_length"], max([a, b], key=lambda r: selection_key(r, "test"))["accuracy_at_length"]
    (0.2, 0.9)
    """
    if select == "test":
        r = upgrade_result(result)
        return (_number(r.get(AT_LENGTH)), _number(r.get(MEAN_OVER_POSITIONS)))
    if select != "validation":
        raise ValueError(f"unknown learning-rate selection {select!r} (known: {', '.join(LR_SELECTIONS)})")
    return (_number(result.get(VAL_ACCURACY)), _number(result.get("train_accuracy")), -_number(result.get("steps"), 0))


def _number(value, missing: float = -np.inf) -> float:
    """A float from a result field (results.csv rows hold text); ``missing`` for an empty one."""
    if value in (None, ""):
        return missing
    return float(value)


#: Keys of results written before the headline was named: new key -> old key (same quantity).
_OLD_KEYS = {
    AT_LENGTH: "test_final_accuracy_normalized",
    MEAN_OVER_POSITIONS: "test_accuracy_normalized",
    TEST_LENGTH: "test_len",
}


def normalized_accuracy(acc, n_classes: int):
    """``(acc - 1/C) / (1 - 1/C)``: 0 at chance, 1 when perfect (``acc`` itself when C = 1).

    ``acc`` is a number (a float is returned) or an array (an array of floats is returned).
    """
    value = np.asarray(acc, dtype=float)
    if n_classes > 1:
        chance = 1.0 / n_classes
        value = (value - chance) / (1.0 - chance)
    return float(value) if value.ndim == 0 else value


def upgrade_result(result: dict) -> dict:
    """A copy of a training result (or a results.csv row) with the headline keys
    :data:`AT_LENGTH`, :data:`MEAN_OVER_POSITIONS` and :data:`TEST_LENGTH`, read from the old keys
    (``test_final_accuracy_normalized``, ``test_accuracy_normalized``, ``test_len``) when a result
    was written before them.  The old keys held the same quantities, so nothing is re-labelled."""
    out = dict(result)
    for new, old in _OLD_KEYS.items():
        if out.get(new) in (None, "") and out.get(old) not in (None, ""):
            out[new] = out[old]
    return out


def headline_label(test_length) -> str:
    """The name of the headline metric, for table headers and report lines."""
    return f"normalised accuracy at length {test_length} (last position)"


def mean_label(test_length) -> str:
    """The name of the mean-over-positions metric."""
    return f"normalised accuracy averaged over positions 1-{test_length}"
