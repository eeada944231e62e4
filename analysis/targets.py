"""What ``bilinear analyze`` analyses: a finished training run, a hand construction, or saved
weights, each as ``(weights, automaton, title, source)``.  A run of a model without transition
matrices (LSTM, RNN, Transformer, Mamba-style) gives a tracker
(:func:`bilinear.constructions.values.tracker.as_tracker`) in place of the weights.

>>> weights, automaton, title, source = load_target(construction=("parity", "diagonal"))
>>> weights.dim, title, source
(1, 'construction parity / diagonal', {'construction': 'parity diagonal'})
"""

from __future__ import annotations

from pathlib import Path

from bilinear.argtypes import check_positive_int
from bilinear.errors import AnalysisError, BilinearError
from bilinear.metrics import AT_LENGTH, MEAN_OVER_POSITIONS, TEST_LENGTH, upgrade_result

__all__ = ["load_target"]


def load_target(run_dir=None, construction=None, weights_file=None, allow_unsigned=False, layers=None):
    """``(weights, automaton, title, source)`` for a run directory, a (spec, variant) pair, or a
    (weights file, spec) pair; for a run of a baseline ``weights`` is a tracker.

    ``layers`` (with ``construction`` only): the stack of that many layers that ``bilinear verify
    SPEC VARIANT --layers L`` proves (:func:`~bilinear.constructions.handmade.cascade.build_stack`), analysed
    as a tracker (a stack is not one :class:`Weights`); 1 is the one-layer construction.

    AnalysisError for a missing or unfinished run directory, or unless exactly one is given.
    ``allow_unsigned`` accepts a weights file without a checksum (hand-written, docs/formats.md).

    >>> tracker, automaton, title, source = load_target(construction=("dihedral:3", "rotation2d"), layers=2)
    >>> title, source
    ('construction dihedral:3 / rotation2d, 2 layers (d=2+4)', {'construction': 'dihedral:3 rotation2d', 'layers': 2})
    """
    given = [x is not None for x in (run_dir, construction, weights_file)]
    if sum(given) != 1:
        raise AnalysisError("give exactly one of RUN_DIR, --construction SPEC VARIANT, --weights FILE SPEC")
    if layers is not None and construction is None:
        raise AnalysisError("--layers goes with --construction SPEC VARIANT (a run or a weights file has its own depth)")
    if layers is not None and layers > 1:
        return _constructed_stack(construction, layers)
    if weights_file is not None:
        return _weights_file_target(*weights_file, allow_unsigned=allow_unsigned)
    if construction is not None:
        return _construction_target(*construction)
    return _run_target(run_dir)


def _weights_file_target(path, spec: str, allow_unsigned: bool):
    """:func:`load_target` of a weights or stack file and the spec it tracks (a stack of more
    than one layer is analysed as a tracker)."""
    from bilinear.automata import from_spec
    from bilinear.constructions.values.stack import Stack, load_network

    automaton = from_spec(spec)
    weights = load_network(path, allow_unsigned=allow_unsigned)
    if isinstance(weights, Stack):  # a stack of layers: analysed as a tracker
        from bilinear.constructions.values.tracker import as_tracker

        weights = weights.layers[0] if weights.depth == 1 else as_tracker(weights)
    return weights, automaton, f"weights {Path(path).name} / {automaton.name or spec}", {
        "weights": str(path)
    }


def _construction_target(spec: str, variant: str):
    """:func:`load_target` of the construction ``build(spec, variant)``."""
    from bilinear.automata import from_spec
    from bilinear.constructions import build

    weights = build(spec, variant)
    automaton = from_spec(spec)
    return weights, automaton, f"construction {automaton.name or spec} / {weights.variant}", {
        "construction": f"{spec} {variant}"
    }


def _run_target(run_dir):
    """:func:`load_target` of a finished run directory (a baseline or a trained stack is analysed
    as a tracker); its source carries the run's headline numbers."""
    path = Path(run_dir)
    if not path.is_dir():
        raise AnalysisError(f"run directory {str(path)!r} does not exist")
    if not (path / "result.json").is_file():
        raise AnalysisError(f"run directory {str(path)!r} has no result.json: the run is not finished")
    from bilinear.learned.runs import load_run

    try:
        config, model, automaton, result = load_run(path)
    except BilinearError as exc:
        raise AnalysisError(f"run directory {str(path)!r}: {exc}") from None
    from bilinear.errors import ConfigError

    from bilinear.constructions.values.stack import Stack

    try:
        weights = model.to_weights()
    except ConfigError:  # a baseline: no Weights, analysed as a tracker
        from bilinear.constructions.values.tracker import as_tracker

        weights = as_tracker(model, name=getattr(config, "model", type(model).__name__))
    if isinstance(weights, Stack):  # a trained stack: accuracy and extraction, as a tracker
        from bilinear.constructions.values.tracker import as_tracker

        weights = as_tracker(weights, name=f"{config.model} x {weights.depth} layers")
    source = {"run": str(path), "train_range": [config.train_min_len, config.longest_train_len]}
    if isinstance(result, dict):
        result = upgrade_result(result)  # a run written before the headline keys
        for key in (AT_LENGTH, MEAN_OVER_POSITIONS, TEST_LENGTH, "train_accuracy", "steps", "params"):
            if key in result:
                source[key] = result[key]
    hidden = source.get("hidden", result.get("hidden") if isinstance(result, dict) else None)
    depth = getattr(config, "layers", 1) or 1
    if depth > 1:  # every layer of a trained stack has the hidden size: said per layer, never summed
        model_name = f"{config.model}, {depth} layers" + (f" of hidden {hidden} each" if hidden else "")
    else:
        model_name = config.model + (f", hidden {hidden}" if hidden else "")
    return weights, automaton, f"{automaton.name or config.spec} / {model_name} (run {path.name})", source


def _constructed_stack(construction, layers: int):
    """The stack ``verify SPEC VARIANT --layers L`` proves, as a tracker (see :func:`load_target`)."""
    from bilinear.automata import from_spec
    from bilinear.constructions.handmade.cascade import build_stack
    from bilinear.constructions.values.stack import MAX_LAYERS
    from bilinear.constructions.values.tracker import as_tracker
    from bilinear.constructions.values.weights import parse_variant

    spec, variant = construction
    layers = check_positive_int(layers, "--layers", error=AnalysisError, maximum=MAX_LAYERS)
    automaton = from_spec(spec)
    variant = parse_variant(variant).spec
    stack, how = build_stack(automaton, variant, layers)
    dims = "+".join(map(str, stack.dims))
    tracker = as_tracker(stack, name=f"{variant} x {layers} layers")
    return tracker, automaton, f"construction {automaton.name or spec} / {variant}, {layers} layers (d={dims})", {
        "construction": f"{spec} {variant}", "layers": layers
    }
