"""Models from elsewhere: fla and transformers checkpoints read on CPU, run in float64, and their
per-head transitions as the toolkit's values (docs/your-model.md).

Modules: :mod:`~bilinear.learned.external.tensors` (safetensors / torch state dicts),
:mod:`~bilinear.learned.external.delta` (the delta-rule layers' float64 forward),
:mod:`~bilinear.learned.external.mamba` and :mod:`~bilinear.learned.external.mamba2` (fla's Mamba mixers),
:mod:`~bilinear.learned.external.rwkv7` (fla's RWKV-7; its ``dplr:1`` transitions per window in
:mod:`~bilinear.learned.external.rwkv7_transitions`),
:mod:`~bilinear.learned.external.model` (the whole model), :mod:`~bilinear.learned.external.tracker`
(the tracker adapter), :mod:`~bilinear.learned.external.transitions` (per-head transitions, the
variant check, the lift to Weights); the configuration is read by
:mod:`bilinear.constructions.values.external` (torch-free, so ``verify --from`` needs no torch).
"""

from .fit import bind, fit
from .model import ExternalModel, load_external
from .tracker import ExternalTracker, parse_token_map
from .transitions import HeadTransitions, Identified, head_transitions, identify

__all__ = ["ExternalModel", "ExternalTracker", "HeadTransitions", "Identified", "bind", "fit", "identify",
           "head_transitions", "load_external", "parse_token_map"]
