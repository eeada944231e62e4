"""Memory limits of a training run, checked when its :class:`~bilinear.learned.config.TrainConfig`
is built, before anything is allocated.

The estimate adds, in bytes (float32 = 4 bytes, token and label arrays int64):

* the parameters with their gradients and Adam's two moments: ``16 x params``;
* for a stack of ``layers`` bilinear layers (learned/stacked.py), the parameters of the layers
  above the first (``symbols x classes`` tokens each) and, in training, every layer's activations
  plus the soft cascade's ``batch x train_max_len x classes x hidden^2`` floats (three copies);
* the larger of the training activations (``batch x train_max_len x (64 x hidden + 4 x tokens)``
  bytes, per layer, with the curriculum's longest length for ``train_max_len`` when there is one,
  plus per layer the attention scores ``batch x train_max_len^2`` of a
  Transformer or the six ``batch x train_max_len x 2 hidden x state`` float tensors of a ``mamba``
  block's scan: decay, drive, the states kept for the backward pass, their gradients, or the
  four ``batch x train_max_len x hidden`` float tensors each of the K reflections of a
  ``householder:K`` step keeps) and the
  evaluation activations (256 words of ``test_len`` at a time, ``16 x hidden + 4 x tokens`` bytes a
  position, without gradients; a ``mamba`` adds three scan tensors of one block for as many words
  as its ``max_batch`` allows); ``tokens`` is the embedding width or the symbol count;
* the words of the evaluation (``test_words x test_len``), of the training accuracy (512 words)
  and of the ``n_train`` pool (``n_train x train_max_len``), 24 bytes a position; also the
  validation words (``val_words x val_max_len``: early stopping reads them, and every run's final
  ``val_accuracy``, which chooses learning rates), and their evaluation activations count like the test's (``--val-len 20 1000000000`` asked numpy for
  477 GiB at the first validation).

A run whose estimate is over ``max_memory_gb`` (default :data:`DEFAULT_MAX_MEMORY_GB`, the
``--max-memory-gb`` option of ``bilinear train``, a ``[train]`` key of a sweep) is refused with
the estimate and its largest part.  The parameter count is first bounded from the sizes alone;
only when that bound decides the verdict is the model built on torch's ``meta`` device (no memory)
to count exactly, a layered baseline at one and two layers and extrapolated.  ``match_params``
over the parameter count of the largest model searched (hidden size up to
:data:`MAX_MATCH_HIDDEN`, counted on the ``meta`` device; :func:`largest_model`) is refused at
once instead of searching every size and silently clamping.

>>> from bilinear.learned.config import TrainConfig
>>> TrainConfig(spec="parity", model="full", test_len=10**9)
Traceback (most recent call last):
...
bilinear.errors.ConfigError: this run needs more than 5.8e+04 GB (activations: 5.3e+04 GB), over the limit of 8 GB: make it smaller or raise --max-memory-gb (max_memory_gb)
>>> TrainConfig(spec="parity", model="full", hidden=20000, test_len=10, test_words=8)
Traceback (most recent call last):
...
bilinear.errors.ConfigError: this run needs about 17 GB (parameters with gradients and Adam state: 13 GB), over the limit of 8 GB: make it smaller or raise --max-memory-gb (max_memory_gb)
"""

from __future__ import annotations

from bilinear.errors import ConfigError

__all__ = [
    "DEFAULT_MAX_MEMORY_GB", "MAX_MATCH_HIDDEN", "estimate_bytes", "check_limits", "param_bound", "param_count",
    "largest_model",
]

#: The default memory limit of a run, in GB (10**9 bytes).
DEFAULT_MAX_MEMORY_GB = 8.0
#: The largest hidden size ``match_params`` searches.
MAX_MATCH_HIDDEN = 1024
#: Bytes a token position costs in a sampled dataset (words, labels and a share of the lengths).
_POSITION_BYTES = 24
_PARAMS = "parameters with gradients and Adam state"
#: Words of the training accuracy and per evaluation pass (see bilinear.learned.train).
_TRAIN_EVAL_WORDS, _EVAL_BATCH = 512, 256
#: (batch, time, inner, state) tensors a selective-scan block holds while training: the decay,
#: the drive and the states kept for the backward pass, and their gradients.  Measured (peak RSS
#: of a forward and backward pass, 16 words of length 200, hidden 64) before the mixer became
#: Mamba-1 (inner = hidden then, 2 hidden now; not measured again since): 1.2x this estimate
#: with one layer, 1.0x with two, 0.75x with four.
_SSM_TRAIN_TENSORS = 6
#: ... and while evaluating (no gradients, one block at a time): the decay, the drive, one transient.
_SSM_EVAL_TENSORS = 3
# The K reflections of householder:K (learned/models.py: factor_activations = 4 (batch, time,
# hidden) float tensors each).  Measured (growth of the peak RSS over one forward and backward
# pass, batch 64, lengths 2-10, cyclic:30): K = 64, hidden 256: 174 MB, the term 168 MB; K = 8:
# 31 MB (21 MB); K = 64, hidden 64: 52 MB (42 MB).  Without it the estimate of K = 64, hidden
# 256 was 0.059 GB (peak 682 MB, issue 46).


def param_bound(ms, n_symbols: int, n_classes: int, hidden: int, embed: int | None) -> int:
    """An upper bound of the parameter count of every model of the registry, from sizes alone.

    The token axis T is the embedding width or the symbol count; a model's integer parameter
    p (rank, block size, layers) enters as ``16 p h^2 + 160 p h + T p`` (a Mamba-1 block is about
    6.25 h^2 + 121 h, a Transformer block 12 h^2 + 13 h), and a Transformer's learned positions
    as ``1024 h``: a bound, not a count.
    """
    t = max(n_symbols, embed or 0)
    p = ms.param or 1
    h = hidden
    return ((t + 16 * p) * h * h + 16 * (t + n_classes + 10 * p + 8) * h + 1024 * h + t * (n_symbols + 1 + p)
            + n_classes + 64)


def param_count(ms, n_symbols: int, n_classes: int, hidden: int, embed: int | None) -> int:
    """The exact parameter count, the model built on the ``meta`` device (nothing allocated);
    a layered baseline is counted at one and two layers and extrapolated linearly."""
    import torch

    from .registry import ModelSpec, build_model, count_params

    def count(spec) -> int:
        with torch.device("meta"):
            return count_params(build_model(spec, n_symbols, n_classes, hidden, embed=embed))

    if ms.bilinear or ms.param is None or ms.param <= 2:
        return count(ms)
    one, two = count(ModelSpec(ms.name, 1, ms.options)), count(ModelSpec(ms.name, 2, ms.options))
    return one + (ms.param - 1) * (two - one)


def estimate_bytes(config, n_symbols: int, n_classes: int, hidden: int | None = None,
                   exact: bool = False) -> dict[str, int]:
    """The parts of the memory estimate of ``config`` (see the module docstring), in bytes."""
    from .baselines import SSM_EXPAND, SSM_STATE
    from .registry import parse_model

    ms = parse_model(config.model)
    h = hidden or config.hidden
    count = param_count if exact else param_bound
    params = count(ms, n_symbols, n_classes, h, config.embed)
    layers = 1 if ms.bilinear else (ms.param or 1)
    tokens = 4 * max(n_symbols, config.embed or 0)
    length = config.longest_train_len
    train = config.batch * length * (64 * h + tokens) * layers
    stacked = getattr(config, "layers", 1)
    if ms.bilinear and stacked > 1:  # layers above the first read symbols x classes (learned/stacked.py)
        params += (stacked - 1) * param_bound(ms, n_symbols * n_classes, n_classes, h, None)
        # the soft cascade gathers (batch, classes, hidden, hidden) per step, kept for the backward pass
        train = train * stacked + config.batch * length * n_classes * h * h * 4 * 3 * (stacked - 1)

    def evaluation(words: int, eval_len: int) -> int:  # one evaluation pass, without gradients
        n = min(_EVAL_BATCH, words)
        total = n * eval_len * (16 * h + tokens)
        if ms.name == "mamba":  # three scan tensors of one block, for SelectiveSSM.max_batch words
            inner = SSM_EXPAND * h
            n = min(n, max(1, 2**26 // (eval_len * inner * SSM_STATE)))
            total += n * eval_len * inner * SSM_STATE * 4 * _SSM_EVAL_TENSORS
        return total

    evaluate = evaluation(config.test_words, config.test_len)
    # the held-out words: drawn at each validation (early stop) and once at the end of every run
    # (val_accuracy, which chooses learning rates)
    val_positions = config.val_words * config.val_max_len
    evaluate = max(evaluate, evaluation(config.val_words, config.val_max_len))
    if ms.name == "transformer":  # the attention scores
        train += config.batch * length * length * 16 * layers
    elif ms.name == "mamba":  # the scan's (batch, time, hidden, state) tensors
        train += config.batch * length * SSM_EXPAND * h * SSM_STATE * 4 * _SSM_TRAIN_TENSORS * layers
    if ms.bilinear and ms.param:  # each of the K reflections of householder:K keeps its own tensors
        from .models import learned_row
        from bilinear.constructions.values.variants import parse_variant

        per_factor = learned_row(parse_variant(ms.spec)).factor_activations
        train += config.batch * length * ms.param * h * 4 * per_factor * stacked
    data = (config.test_words * config.test_len + _TRAIN_EVAL_WORDS * length
            + (config.n_train or config.batch) * length + val_positions) * _POSITION_BYTES
    return {
        _PARAMS: 16 * params,
        "activations": max(train, evaluate),
        "sampled words": data,
    }


def _gb(n: float) -> str:
    return f"{n / 1e9:.2g} GB"


#: What a refusal of :func:`check_limits` tells the user to do, by default (``train``, a sweep).
MEMORY_REMEDY = "make it smaller or raise --max-memory-gb (max_memory_gb)"


def check_limits(config, automaton, limit_gb: float | None = None, remedy: str = MEMORY_REMEDY) -> None:
    """ConfigError when the memory estimate of ``config`` is over ``limit_gb`` (default
    ``config.max_memory_gb``; or ``match_params`` is over the largest searched model); nothing is
    allocated.  ``remedy`` ends the message (a caller without ``--max-memory-gb``, such as ``bilinear
    tour``, names its own options)."""
    k, c = automaton.n_symbols, automaton.n_classes
    hidden = config.hidden if config.match_params is None else MAX_MATCH_HIDDEN
    limit_gb = config.max_memory_gb if limit_gb is None else limit_gb
    limit = limit_gb * 1e9
    parts = estimate_bytes(config, k, c, hidden)
    bound = parts.pop(_PARAMS)
    if sum(parts.values()) <= limit < sum(parts.values()) + bound:  # the bound may be loose: count exactly
        parts = estimate_bytes(config, k, c, hidden, exact=True)
    total = sum(parts.values())
    if total > limit:
        name, big = max(parts.items(), key=lambda kv: kv[1])
        raise ConfigError(
            f"this run needs {'about' if _PARAMS in parts else 'more than'} {_gb(total)} ({name}: {_gb(big)}), "
            f"over the limit of {limit_gb:g} GB: {remedy}"
        )
    if config.match_params is not None:
        from .registry import parse_model

        hidden, largest = largest_model(parse_model(config.model), k, c, config.embed)
        if config.match_params > largest:
            raise ConfigError(
                f"match_params {config.match_params} is more than the largest {config.model} model searched "
                f"has (hidden {hidden}: {largest} parameters)"
            )


def largest_model(ms, n_symbols: int, n_classes: int, embed: int | None,
                  max_hidden: int = MAX_MATCH_HIDDEN) -> tuple[int, int]:
    """``(hidden, parameters)`` of the largest valid hidden size up to ``max_hidden``, counted
    exactly on torch's ``meta`` device (:func:`param_count`: nothing allocated)."""
    from .models import check_variant

    def valid(h: int) -> bool:
        if not ms.bilinear:
            return True
        try:
            check_variant(ms.spec, h)
        except ConfigError:
            return False
        return True

    top = next((h for h in range(max_hidden, 0, -1) if valid(h)), None)
    if top is None:
        raise ConfigError(f"no valid hidden size for model {ms.spec!r} up to {max_hidden}")
    return top, param_count(ms, n_symbols, n_classes, top, embed)
