"""The training configuration: one frozen dataclass, validated when built.

>>> c = TrainConfig(spec="cyclic:3", model="full", steps=100)
>>> c.train_min_len, c.train_max_len, c.test_len, c.batch
(2, 10, 500, 64)
>>> c.replace(lr=0.001).lr
0.001
>>> TrainConfig(train_min_len=12, train_max_len=10)
Traceback (most recent call last):
...
bilinear.errors.ConfigError: training lengths out of order: train_min_len 12 > train_max_len 10
>>> TrainConfig.from_dict({"spec": "parity", "stpes": 10})
Traceback (most recent call last):
...
bilinear.errors.ConfigError: unknown config key 'stpes' (known: spec, model, hidden, ...)
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from dataclasses import dataclass

from bilinear.errors import BilinearError, ConfigError

__all__ = ["TrainConfig", "DEFAULT_LRS", "EARLY_STOPS"]

#: The learning-rate grid of the paper's protocol (best kept).
DEFAULT_LRS = (1e-3, 1e-4, 1e-5)
#: Early-stopping rules: on held-out longer words, on the training batches, or never.
EARLY_STOPS = ("validation", "train", "none")


@dataclass(frozen=True)
class TrainConfig:
    """Everything a training run depends on (a run is a pure function of its config)."""

    spec: str = "parity"  # automaton family spec (bilinear.automata.from_spec)
    model: str = "full"  # model spec: a bilinear variant or a baseline (see registry.MODELS)
    hidden: int = 16  # hidden size d (replaced when match_params is set)
    embed: int | None = None  # None: one-hot tokens; else tokens embedded in this many dims
    additive: bool = False  # ablation: h_t = A(x_t) h_{t-1} + B x_t + b (not bilinear)
    steps: int = 3000  # most optimizer steps (training stops earlier once it is perfect)
    lr: float = 1e-2  # Adam learning rate of a single run (sweeps use `lrs`)
    lrs: tuple = DEFAULT_LRS  # learning-rate grid of sweeps and reproduce (best kept)
    batch: int = 64  # words per step
    seed: int = 0  # seeds the initialisation and every batch (batch t uses seed (seed, t))
    train_min_len: int = 2  # training word lengths are uniform in [train_min_len, train_max_len]
    train_max_len: int = 10
    test_len: int = 500  # evaluation length (labels at every position, h renormalised)
    test_words: int = 200  # words at the evaluation length
    eval_every: int = 50  # steps between evaluations of the training accuracy (and checkpoints)
    patience: int = 4  # stop after this many evaluations in a row that are perfect (see early_stop)
    normalize_train: bool = True  # renormalise h at every step in training too
    init: str = "orthogonal"  # transition init of bilinear models: orthogonal | identity
    grad_clip: float = 1.0  # gradient norm clip (0: none)
    n_train: int | None = None  # distinct training words (data efficiency); None: fresh each step
    match_params: int | None = None  # pick the hidden size whose parameter count is closest
    scan: str = "auto"  # auto (parallel on CUDA) | sequential | parallel
    device: str = "cpu"  # cpu | cuda | auto
    # early stopping (docs/training.md): "validation" stops once held-out words of lengths
    # val_min_len..val_max_len (longer than the training words, shorter than the test length)
    # are labelled perfectly for `patience` evaluations in a row; "train" stops on perfect
    # training batches (fitting lengths 2-10 is not generalising: dihedral:4 full scored 0.43 at
    # length 500 that way, and 0.43 again with validation at lengths 20-50, where it was already
    # perfect); "none" runs every step
    early_stop: str = "validation"
    val_min_len: int = 20  # validation word lengths (drawn from (seed, 5), never the test words)
    val_max_len: int = 200
    val_words: int = 64  # validation words, labelled at every position

    def __post_init__(self) -> None:
        self._validate_types()
        self._validate_ranges()
        self._validate_names()

    # --- validation ----------------------------------------------------------------------
    def _validate_types(self) -> None:
        ints = ("hidden", "steps", "batch", "seed", "train_min_len", "train_max_len", "test_len",
                "test_words", "eval_every", "patience", "val_min_len", "val_max_len", "val_words")
        for name in ints:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, numbers.Integral):
                raise ConfigError(f"{name} must be an integer, got {value!r}")
        for name in ("embed", "n_train", "match_params"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, numbers.Integral)):
                raise ConfigError(f"{name} must be an integer or null, got {value!r}")
        for name in ("lr", "grad_clip"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
                raise ConfigError(f"{name} must be a finite number, got {value!r}")
        for name in ("additive", "normalize_train"):
            if not isinstance(getattr(self, name), bool):
                raise ConfigError(f"{name} must be true or false, got {getattr(self, name)!r}")
        for name in ("spec", "model", "init", "scan", "device", "early_stop"):
            if not isinstance(getattr(self, name), str):
                raise ConfigError(f"{name} must be a string, got {getattr(self, name)!r}")
        lrs = self.lrs
        if isinstance(lrs, (list, tuple)):
            object.__setattr__(self, "lrs", tuple(lrs))
        else:
            raise ConfigError(f"lrs must be a list of learning rates, got {lrs!r}")

    def _validate_ranges(self) -> None:
        if self.lr <= 0:
            raise ConfigError(f"learning rate must be positive, got lr = {self.lr}")
        if not self.lrs:
            raise ConfigError("lrs (the learning-rate grid) is empty")
        for x in self.lrs:
            if isinstance(x, bool) or not isinstance(x, numbers.Real) or not math.isfinite(x) or x <= 0:
                raise ConfigError(f"learning rate {x!r} in lrs must be a positive number")
        positive = ("hidden", "steps", "batch", "test_len", "test_words", "eval_every", "patience")
        for name in positive:
            if getattr(self, name) < 1:
                raise ConfigError(f"{name} must be positive, got {getattr(self, name)}")
        if self.seed < 0:
            raise ConfigError(f"seed must be >= 0, got {self.seed}")
        if self.train_min_len < 1:
            raise ConfigError(f"train_min_len must be >= 1, got {self.train_min_len}")
        if self.train_min_len > self.train_max_len:
            raise ConfigError(
                f"training lengths out of order: train_min_len {self.train_min_len} > "
                f"train_max_len {self.train_max_len}"
            )
        if self.val_min_len < 1 or self.val_words < 1:
            raise ConfigError(f"val_min_len and val_words must be positive, got {self.val_min_len}, {self.val_words}")
        if self.val_min_len > self.val_max_len:
            raise ConfigError(
                f"validation lengths out of order: val_min_len {self.val_min_len} > val_max_len {self.val_max_len}"
            )
        if self.grad_clip < 0:
            raise ConfigError(f"grad_clip must be >= 0, got {self.grad_clip}")
        for name in ("embed", "n_train", "match_params"):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise ConfigError(f"{name} must be positive or null, got {value}")

    def _validate_names(self) -> None:
        from bilinear.automata import from_spec

        from .models import INITS, check_variant
        from .registry import parse_model
        from .scan import SCANS

        try:
            from_spec(self.spec)
        except BilinearError as exc:
            raise ConfigError(f"unknown or invalid family spec {self.spec!r}: {exc}") from None
        ms = parse_model(self.model)
        if ms.bilinear and self.match_params is None:
            check_variant(ms.spec, self.hidden)
        if self.additive and not ms.bilinear:
            raise ConfigError(f"the additive ablation applies to bilinear models only, not {self.model!r}")
        if self.init not in INITS:
            raise ConfigError(f"unknown init {self.init!r} (known: {', '.join(INITS)})")
        if self.scan not in SCANS:
            raise ConfigError(f"unknown scan {self.scan!r} (known: {', '.join(SCANS)})")
        if self.early_stop not in EARLY_STOPS:
            raise ConfigError(f"unknown early_stop {self.early_stop!r} (known: {', '.join(EARLY_STOPS)})")
        if self.device not in ("cpu", "cuda", "auto"):
            raise ConfigError(f"unknown device {self.device!r} (known: cpu, cuda, auto)")

    # --- conversion ----------------------------------------------------------------------
    def replace(self, **changes) -> "TrainConfig":
        """A copy with some fields changed (validated again); unknown names are ConfigError."""
        for key in changes:
            if key not in self.field_names():
                raise ConfigError(f"unknown config key {key!r}")
        return dataclasses.replace(self, **changes)

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in dataclasses.fields(cls))

    def to_dict(self) -> dict:
        """Plain JSON-able dict (tuples become lists)."""
        d = dataclasses.asdict(self)
        d["lrs"] = list(self.lrs)
        return d

    @classmethod
    def from_dict(cls, data: dict, where: str = "config") -> "TrainConfig":
        """Build from a dict; an unknown key is a ConfigError naming it."""
        if not isinstance(data, dict):
            raise ConfigError(f"{where} must be a mapping, got {type(data).__name__}")
        names = cls.field_names()
        for key in data:
            if key not in names:
                raise ConfigError(f"unknown {where} key {key!r} (known: {', '.join(names[:3])}, ...)")
        return cls(**data)
