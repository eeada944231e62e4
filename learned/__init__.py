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

from .config import TrainConfig
from .models import BilinearRNN
from .registry import MODELS, build_model, count_params, parse_model
from .runs import load_run, train_run
from .train import data_efficiency, evaluate, normalized_accuracy, train, train_best_lr

__all__ = [
    "BilinearRNN",
    "MODELS",
    "TrainConfig",
    "build_model",
    "count_params",
    "data_efficiency",
    "evaluate",
    "load_run",
    "normalized_accuracy",
    "parse_model",
    "train",
    "train_best_lr",
    "train_run",
]
