"""The one registry of model names: bilinear variants and baselines.

A model spec is a bilinear variant spec (one of
:func:`~bilinear.constructions.values.variants.variant_usage`) or a baseline: ``lstm``, ``rnn`` (tanh),
``transformer[:L]`` (L layers, default 1; ``,sinusoidal`` for sinusoidal positions), ``mamba[:L]``
(L Mamba-1 blocks, default 1; ``,neg`` for the negative-eigenvalue form).

>>> parse_model("Transformer:2")
ModelSpec(name='transformer', param=2)
>>> m = build_model("lstm", n_symbols=2, n_classes=2, hidden=8)
>>> count_params(m)
610
>>> build_model("block:3", 2, 2, hidden=8)
Traceback (most recent call last):
...
bilinear.errors.ConfigError: hidden size 8 is not divisible by the block size 3 of variant 'block:3'
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

from bilinear.argtypes import check_positive_int
from bilinear.constructions.values.variants import KINDS, variant_usage
from bilinear.constructions.values.weights import VARIANT_KINDS, parse_variant
from bilinear.errors import ConfigError, SpecError

from .positions import MAX_POSITIONS

if TYPE_CHECKING:
    from torch import nn

__all__ = [
    "MODELS", "BASELINES", "Baseline", "model_usage", "max_length", "ModelSpec", "parse_model", "build_model", "make_model", "resolve_hidden", "count_params",
    "hidden_for_params",
]

def _baselines():
    """The torch baselines, imported when a model is built (parsing a spec needs no torch)."""
    from . import baselines

    return baselines


@dataclass(frozen=True)
class Baseline:
    """One baseline of the registry: its builder ``build(n_symbols, n_classes, hidden, embed,
    param, seed, flags)``, the name of its optional integer parameter (or None), the flags it
    takes after a comma (``mamba:2,neg``), each with its help, and ``max_length(flags)``: the
    longest word the model reads (None: any length)."""

    build: Callable
    param: str | None = None
    flags: dict = field(default_factory=dict)
    max_length: Callable = lambda flags: None

    def usage(self, name: str) -> str:
        """``name[:L][,flag]`` for help strings."""
        param = f"[:{self.param[0].upper()}]" if self.param else ""
        return name + param + "".join(f"[,{f}]" for f in self.flags)


#: Baselines by name.  Only the recurrent baselines take an embedding.
BASELINES = {
    "lstm": Baseline(lambda k, c, h, embed, p, seed, flags: _baselines().LSTMModel(k, c, h, embed=embed, seed=seed)),
    "rnn": Baseline(lambda k, c, h, embed, p, seed, flags: _baselines().TanhRNN(k, c, h, embed=embed, seed=seed)),
    "transformer": Baseline(
        lambda k, c, h, embed, p, seed, flags: _baselines().CausalTransformer(
            k, c, h, layers=p or 1, seed=seed, positions="sinusoidal" if "sinusoidal" in flags else "learned"),
        "layers",
        {"sinusoidal": "sinusoidal positions (defined at every length) instead of the "
                       f"{MAX_POSITIONS} learned ones"},
        max_length=lambda flags: None if "sinusoidal" in flags else MAX_POSITIONS),
    "mamba": Baseline(
        lambda k, c, h, embed, p, seed, flags: _baselines().SelectiveSSM(k, c, h, layers=p or 1, seed=seed, negative="neg" in flags),
        "layers",
        {"neg": "the negative-eigenvalue form of Grazzi et al. (2025): transitions 2 exp(Delta A) - 1 in (-1, 1)"}),
}
#: Every model name: the bilinear variants first, then the baselines.
MODELS = tuple(VARIANT_KINDS) + tuple(BASELINES)


@dataclass(frozen=True)
class ModelSpec:
    """A parsed model spec: ``name``, its integer parameter (or None) and its options (a variant's, or a baseline's flags)."""

    name: str
    param: int | None = None
    options: tuple[str, ...] = field(default=(), repr=False)

    @property
    def spec(self) -> str:
        """Canonical spec string."""
        if self.name in KINDS:
            return KINDS[self.name].spec(self.param, self.options)
        text = self.name if self.param is None else f"{self.name}:{self.param}"
        return ",".join((text, *self.options))

    @property
    def bilinear(self) -> bool:
        """True for the bilinear variants."""
        return self.name in VARIANT_KINDS


def parse_model(spec: str) -> ModelSpec:
    """Parse a model spec; ConfigError naming it when unknown or malformed.

    >>> parse_model("block:2").spec, parse_model("block:2").bilinear
    ('block:2', True)
    >>> parse_model("gru")
    Traceback (most recent call last):
    ...
    bilinear.errors.ConfigError: unknown model 'gru' (known: full, factorized:R, block:B, rotation2d, diagonal, positive, householder:K[,nonneg], monomial[,complex], dplr:R, lstm, rnn, transformer[:L][,sinusoidal], mamba[:L][,neg])
    >>> parse_model("mamba:2, neg").spec
    'mamba:2,neg'

    """
    if not isinstance(spec, str) or not spec.strip():
        raise ConfigError(f"empty or non-string model spec {spec!r}")
    text = re.sub(r"\s+", "", spec).lower()
    name = re.split(r"[:(,]", text, maxsplit=1)[0]
    if name in VARIANT_KINDS:
        try:
            v = parse_variant(text)
        except SpecError as exc:
            raise ConfigError(f"model {spec!r}: {exc}") from None
        return ModelSpec(v.kind, v.param, v.options)
    if name in BASELINES:
        entry = BASELINES[name]
        m = re.fullmatch(r"([a-z]+)(?::([0-9]+))?((?:,[a-z]+)*)", text)
        if not m:
            raise ConfigError(f"malformed model spec {spec!r}")
        flags = tuple(f for f in m.group(3).split(",") if f)
        for f in flags:
            if f not in entry.flags:
                known = ", ".join(entry.flags) or "none"
                raise ConfigError(f"model {name!r} has no flag {f!r} in {spec!r} (its flags: {known})")
        if len(set(flags)) < len(flags):
            raise ConfigError(f"model spec {spec!r} repeats a flag")
        flags = tuple(f for f in entry.flags if f in flags)  # canonical order
        if m.group(2) is not None:
            if entry.param is None:
                raise ConfigError(f"model {name!r} takes no parameter, got {spec!r}")
            value = int(m.group(2))
            if value < 1:
                raise ConfigError(f"parameter {entry.param} of model {name!r} must be >= 1, got {value} in {spec!r}")
            return ModelSpec(name, value, flags)
        return ModelSpec(name, None, flags)
    raise ConfigError(f"unknown model {spec!r} (known: {model_usage()})")


def model_usage() -> str:
    """Every model name with its parameter and flags, for help strings and errors (from the
    tables: the bilinear variants, then :data:`BASELINES`)."""
    return ", ".join([variant_usage()] + [entry.usage(name) for name, entry in BASELINES.items()])


def max_length(spec: "str | ModelSpec") -> int | None:
    """The longest word the model reads (None: any length; a Transformer's learned positions).

    >>> max_length("transformer:2"), max_length("transformer:2,sinusoidal"), max_length("full")
    (1024, None, None)
    """
    ms = spec if isinstance(spec, ModelSpec) else parse_model(spec)
    return None if ms.bilinear else BASELINES[ms.name].max_length(ms.options)


def build_model(
    spec: "str | ModelSpec",
    n_symbols: int,
    n_classes: int,
    hidden: int,
    embed: int | None = None,
    additive: bool = False,
    seed: int = 0,
    layers: int = 1,
    **bilinear_options,
) -> nn.Module:
    """Build the model named by ``spec``; ``bilinear_options`` go to :class:`BilinearRNN`
    (``normalize_train``, ``init``, ``init_noise``, ``scan``, ``additive_renorm``, ``angles``) and
    are ignored by baselines.  ``layers > 1`` stacks bilinear layers
    (:class:`~bilinear.learned.stacked.StackedBilinearRNN`)."""
    ms = spec if isinstance(spec, ModelSpec) else parse_model(spec)
    if layers != 1:
        if not ms.bilinear:
            raise ConfigError(f"layers applies to bilinear variants only, not {ms.spec!r} (a baseline's own "
                              f"depth is its parameter, e.g. transformer:2)")
        from .stacked import StackedBilinearRNN

        return StackedBilinearRNN(n_symbols, n_classes, hidden, variant=ms.spec, layers=layers, seed=seed,
                                  embed=embed, additive=additive, **bilinear_options)
    if ms.bilinear:
        from .models import BilinearRNN

        return BilinearRNN(
            n_symbols, n_classes, hidden, variant=ms.spec, embed=embed, additive=additive, seed=seed,
            **bilinear_options,
        )
    if additive:
        raise ConfigError(f"the additive ablation applies to bilinear models only, not {ms.spec!r}")
    return BASELINES[ms.name].build(n_symbols, n_classes, hidden, embed, ms.param, seed, ms.options)


def resolve_hidden(config, n_symbols: int, n_classes: int) -> int:
    """The hidden size of a :class:`~bilinear.learned.config.TrainConfig`: ``config.hidden``, or
    the parameter-matched one when ``match_params`` is set (:func:`hidden_for_params`)."""
    if config.match_params is None:
        return config.hidden
    return hidden_for_params(config.model, n_symbols, n_classes, config.match_params, embed=config.embed)


def make_model(config, automaton=None) -> nn.Module:
    """The freshly initialised model of a :class:`~bilinear.learned.config.TrainConfig` (its
    automaton: ``automaton``, else built from ``config.spec``): :func:`build_model` with the
    config's sizes and options.  Training and loading a run (``runs.load_run``) both build here.

    >>> from bilinear.learned.config import TrainConfig
    >>> m = make_model(TrainConfig(spec="parity", model="block:2", hidden=4, seed=3))
    >>> m.variant.spec, m.hidden, count_params(m)
    ('block:2', 4, 28)
    """
    from bilinear.automata import from_spec

    automaton = automaton if automaton is not None else from_spec(config.spec)
    hidden = resolve_hidden(config, automaton.n_symbols, automaton.n_classes)
    options = {}
    if parse_model(config.model).bilinear:
        options = {"normalize_train": config.normalize_train, "init": config.init, "scan": config.scan,
                   "additive_renorm": config.additive_renorm, "angles": config.angles}
        if config.layers != 1:
            options["mixing"] = config.stack_mixing
    return build_model(
        config.model, automaton.n_symbols, automaton.n_classes, hidden, embed=config.embed,
        additive=config.additive, seed=config.seed, layers=config.layers, **options,
    )


def count_params(model: nn.Module) -> int:
    """Number of trainable scalars."""
    return int(sum(p.numel() for p in model.parameters() if p.requires_grad))


def _valid_hidden(ms: ModelSpec, hidden: int) -> bool:
    if ms.bilinear:
        from .models import check_variant

        try:
            check_variant(ms.spec, hidden)
        except ConfigError:
            return False
    return True


def hidden_for_params(
    spec: str, n_symbols: int, n_classes: int, target: int, embed: int | None = None, max_hidden: int = 1024
) -> int:
    """The valid hidden size whose parameter count is closest to ``target`` (ties: smaller).

    >>> h = hidden_for_params("diagonal", 2, 2, target=610)  # the LSTM of hidden size 8
    >>> h, count_params(build_model("diagonal", 2, 2, h))
    (122, 610)
    """
    target = check_positive_int(target, "target parameter count", error=ConfigError)
    ms = parse_model(spec)
    best, best_err = None, None
    for hidden in range(1, max_hidden + 1):
        if not _valid_hidden(ms, hidden):
            continue
        n = count_params(build_model(ms, n_symbols, n_classes, hidden, embed=embed))
        err = abs(n - target)
        if best_err is None or err < best_err:
            best, best_err = hidden, err
        if n > target and err > (best_err or 0):
            break
    if best is None:
        raise ConfigError(f"no valid hidden size for model {spec!r} up to {max_hidden}")
    return best
