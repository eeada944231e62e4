"""bilinear.learned: trained bilinear RNNs and baselines under the paper's protocol.

Modules: :mod:`~bilinear.learned.scan` (one scan for every variant), :mod:`~bilinear.learned.models`
(the variants), :mod:`~bilinear.learned.baselines`, :mod:`~bilinear.learned.registry` (model
names), :mod:`~bilinear.learned.config`, :mod:`~bilinear.learned.train`,
:mod:`~bilinear.learned.runs` (run directories, resume), :mod:`~bilinear.learned.sweep`,
:mod:`~bilinear.learned.reproduce` and the command line in :mod:`~bilinear.learned.cli`.

>>> from bilinear.learned import BilinearRNN, MODELS
>>> MODELS[:3]
('full', 'factorized', 'block')
"""

import importlib
import sys
import types

# The exports load on first use: ``import bilinear.learned.cli`` (the command line registering
# ``train``) must not import torch, so the commands that need no torch start fast.
_EXPORTS = {
    "TrainConfig": ".config",
    "BilinearRNN": ".models",
    "MODELS": ".registry", "build_model": ".registry", "count_params": ".registry", "parse_model": ".registry",
    "load_run": ".runs", "train_run": ".train", "make_model": ".registry",
    "data_efficiency": ".train", "evaluate": ".train", "normalized_accuracy": ".train", "train": ".train",
    "train_best_lr": ".train", "TrainResult": ".train",
    "ExternalModel": ".external", "load_external": ".external",
}


def _load_exports() -> None:
    for name, module in _EXPORTS.items():
        globals()[name] = getattr(importlib.import_module(module, __name__), name)


def __getattr__(name: str):
    if name in _EXPORTS:
        _load_exports()
        return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class _Package(types.ModuleType):
    """Keeps an export (the function ``train``) from being replaced by the submodule of the same
    name when that submodule is imported first, as an eager ``from .train import train`` would."""

    def __setattr__(self, name, value):
        if name in _EXPORTS and isinstance(value, types.ModuleType):
            _load_exports()
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package

__all__ = [
    "BilinearRNN",
    "ExternalModel",
    "MODELS",
    "TrainConfig",
    "build_model",
    "count_params",
    "data_efficiency",
    "evaluate",
    "load_external",
    "load_run",
    "make_model",
    "normalized_accuracy",
    "parse_model",
    "train",
    "train_best_lr",
    "train_run",
    "TrainResult",
]
