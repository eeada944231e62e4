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
from types import SimpleNamespace
import numbers
from dataclasses import dataclass, field

from bilinear.errors import BilinearError, ConfigError

from bilinear.constructions.values.variants import variant_usage

from .limits import DEFAULT_MAX_MEMORY_GB

__all__ = ["TrainConfig", "DEFAULT_LRS", "EARLY_STOPS", "PRESETS", "MIXINGS", "DEFAULT_MIXING"]

#: The part names of ``reproduce --full`` (``bilinear.learned.reproduce.parts``; here so the command line's parser needs no torch), in order.
FULL_PART_NAMES = ("table-1", "hierarchy", "dihedral", "parameter-matched", "data-efficiency", "additive-off",
                   "additive-on", "frozen-diagonal")


#: The learning-rate grid of the paper's protocol (best kept).
DEFAULT_LRS = (1e-3, 1e-4, 1e-5)
#: How layer ``l`` of a stack reads layer ``l - 1`` in training (learned/stacked.py): ``soft`` mixes
#: its matrices by the softmax of layer ``l - 1``'s readout; ``straight-through`` uses the argmax's
#: one-hot (training runs the hard cascade that evaluation runs and ``to_weights`` exports) with the
#: softmax's gradient.
MIXINGS = ("soft", "straight-through")
#: The default of ``stack_mixing`` (docs/training-results.md, "Stacks of layers: which mixing":
#: straight-through fits the hard cascade in every measured run, soft in none).
DEFAULT_MIXING = "straight-through"
#: Most training steps of one run: about eleven days at 1 ms a step (the tour's small models take
#: about 3 ms a step on one CPU core); 10^30 steps were accepted, and a run with a curriculum then
#: waited for its ramp's top at step 5e29.
MAX_STEPS = 10**9

#: Early-stopping rules: on held-out longer words, on the training batches, or never.
EARLY_STOPS = ("validation", "train", "none")
#: Named groups of field values (``bilinear train --preset NAME``; a preset sets the fields left at
#: their defaults), each a published protocol (docs/training.md, "Presets", says what was taken from
#: where and what is uncertain):
#:
#: * ``paper``: the models as the paper ran them: hidden 256, every token embedded in 256
#:   dimensions (the paper's full model is 256^3 = 16.7M parameters), and rotation2d as one angle
#:   per 2x2 block (the paper's 2D-rotation, about 38K parameters).
#: * ``chomsky``: Delétang et al. 2023 (Neural networks and the Chomsky hierarchy): training words
#:   of lengths 1-40, test up to 500 (they test every length 41-500; here words of length 500,
#:   labelled at every position), batch 128; validation on 41-100, past the training lengths.
#: * ``deltaproduct``: Siems et al. 2025 (DeltaProduct) state tracking on S_3, S_5, A_5: training
#:   words of length 128, test 512, batch 256, hidden 128 (uncertain: see docs/training.md).
#: * ``pd-ssm``: Terzic et al. 2025 (PD-SSM) automaton emulation: training lengths 3-40, test 256
#:   (hidden = the automaton's states is the claim's d = n: give ``--hidden N``).
PRESETS: dict[str, dict] = {
    "paper": {"hidden": 256, "embed": 256, "angles": True},
    "chomsky": {"train_min_len": 1, "train_max_len": 40, "test_len": 500, "val_min_len": 41, "val_max_len": 100,
                "batch": 128},
    "deltaproduct": {"train_min_len": 128, "train_max_len": 128, "test_len": 512, "val_min_len": 129,
                     "val_max_len": 256, "batch": 256, "hidden": 128},
    "pd-ssm": {"train_min_len": 3, "train_max_len": 40, "test_len": 256, "val_min_len": 41, "val_max_len": 128},
}
#: The largest learning rate: Adam's step in float32 overflows beyond it.
MAX_LR = 1e30
#: The smallest learning rate: float32's smallest normal number (1e-320 is 0 in float32).
MIN_LR = 1.1754943508222875e-38


def _moved_automaton_file(spec) -> bool:
    """An automaton file that is not there (any more): a run folder keeps its own copy
    (``automaton.json``), so a stored config stays valid when the original moves."""
    import os

    from bilinear.automata.families import is_automaton_file

    return isinstance(spec, str) and is_automaton_file(spec) and not os.path.exists(spec)


def canonical_or_as_given(spec: str) -> str:
    """The canonical form of a family spec (``CYCLIC:03`` -> ``cyclic:3``, docs/formats.md), so that
    one automaton is one run folder, one grid point and one row; an automaton file, or a spec that
    does not parse (validation then says why), as given.

    >>> canonical_or_as_given("CYCLIC:03"), canonical_or_as_given("cyclic:x")
    ('cyclic:3', 'cyclic:x')
    """
    from bilinear.automata.families import canonical_spec, is_automaton_file

    if not isinstance(spec, str) or is_automaton_file(spec):
        return spec
    try:
        return canonical_spec(spec)
    except BilinearError:
        return spec


def canonical_model_or_as_given(model: str) -> str:
    """The canonical form of a model spec (``MONOMIAL, complex`` -> ``monomial,complex``,
    ``householder:01`` -> ``householder:1``, ``factorized(3)`` -> ``factorized:3``), as
    :func:`canonical_or_as_given` does for families: one model is one run folder, one grid point
    and one column; a spec that does not parse as given (validation then says why).

    >>> canonical_model_or_as_given("MONOMIAL, complex"), canonical_model_or_as_given("householder:01")
    ('monomial,complex', 'householder:1')
    >>> canonical_model_or_as_given("gru")
    'gru'
    """
    from .registry import parse_model

    if not isinstance(model, str):
        return model
    try:
        return parse_model(model).spec
    except BilinearError:
        return model


def _cli(help: str, **option) -> dict:
    """Field metadata: ``help`` is the field's help on ``bilinear train`` (argparse expands
    ``%(default)s``); ``positional`` names a positional argument's metavar; ``option`` overrides the
    option name (``None``: not an option of ``train``); fields sharing one option list the others
    in ``with_fields`` (and ``metavar`` names each value).  Bounds are checked here, not there."""
    return {"help": help, **option}


@dataclass(frozen=True)
class TrainConfig:
    """Everything a training run depends on (a run is a pure function of its config)."""

    spec: str = field(  # automaton family spec (bilinear.automata.from_spec)
        default="parity", metadata=_cli("automaton family spec, e.g. parity, cyclic:5", positional="SPEC"))
    model: str = field(  # model spec: a bilinear variant or a baseline (see registry.MODELS)
        default="full", metadata=_cli(f"{variant_usage()}, lstm, rnn, "
                                      "transformer[:L][,sinusoidal], mamba[:L][,neg]", positional="MODEL"))
    hidden: int = field(  # hidden size d (replaced when match_params is set)
        default=16, metadata=_cli("hidden size (default %(default)s)"))
    embed: int | None = field(  # None: one-hot tokens; else tokens embedded in this many dims
        default=None, metadata=_cli("embed tokens in this many dims (default one-hot)"))
    additive: bool = field(  # ablation: h_t = A(x_t) h_{t-1} + B x_t + b (not bilinear)
        default=False, metadata=_cli("ablation: add B x_t + b (not bilinear), h still renormalised at every step "
                                     "(see --no-additive-renorm)"))
    additive_renorm: bool = field(  # with additive: renormalise h as the bilinear models do; False:
        # the older ablation, never renormalised (it changed two things at once)
        default=True, metadata=_cli("with --additive: never renormalise h (the older ablation form)"))
    angles: bool = field(  # variants with an angle form (rotation2d): one learned angle per 2x2 block
        default=False, metadata=_cli("rotation2d: one learned angle per 2x2 block (pure rotations, the paper's "
                                     "2D-rotation) instead of a scaled rotation; other models are unchanged"))
    steps: int = field(  # most optimizer steps (training stops earlier once it is perfect)
        default=3000, metadata=_cli("most optimizer steps (default %(default)s)"))
    lr: float = field(  # Adam learning rate of a single run (sweeps use `lrs`)
        default=1e-2, metadata=_cli("Adam learning rate (default %(default)g)"))
    lrs: tuple = field(  # learning-rate grid of sweeps and reproduce (best kept); train: --lr-grid
        default=DEFAULT_LRS, metadata=_cli("learning-rate grid of sweeps and reproduce", option=None))
    batch: int = field(  # words per step
        default=64, metadata=_cli("batch size (default %(default)s)"))
    seed: int = field(  # seeds the initialisation and every batch (batch t uses seed (seed, t))
        default=0, metadata=_cli("seed of init and data (default %(default)s)"))
    train_min_len: int = field(  # training word lengths are uniform in [train_min_len, train_max_len]
        default=2, metadata=_cli("training lengths (default %(default)s)", option="--train-len",
                                 metavar=("MIN", "MAX"), with_fields=("train_max_len",)))
    train_max_len: int = field(
        default=10, metadata=_cli("longest training length", option="--train-len"))
    test_len: int = field(  # evaluation length (labels at every position, h renormalised)
        default=500, metadata=_cli("evaluation length (default %(default)s)"))
    test_words: int = field(  # words at the evaluation length
        default=200, metadata=_cli("evaluation words (default %(default)s)"))
    eval_every: int = field(  # steps between evaluations of the training accuracy (and checkpoints)
        default=50, metadata=_cli("steps per evaluation (default %(default)s)"))
    patience: int = field(  # stop after this many evaluations in a row with perfect training accuracy
        default=4, metadata=_cli("stop after this many perfect evaluations in a row (see --early-stop; default %(default)s)"))
    normalize_train: bool = field(  # renormalise h at every step in training too
        default=True, metadata=_cli("do not renormalise h in training"))
    init: str = field(  # transition init of bilinear models: orthogonal | identity
        default="orthogonal", metadata=_cli("orthogonal or identity (default %(default)s)"))
    grad_clip: float = field(  # gradient norm clip (0: none)
        default=1.0, metadata=_cli("clip the gradient norm to this, 0 for none (default %(default)s)"))
    max_memory_gb: float = field(  # refuse a run whose estimated memory is over this (learned/limits.py)
        default=DEFAULT_MAX_MEMORY_GB, compare=False,  # not part of what a run computes: a resume may change it
        metadata=_cli("refuse a run estimated to need more GB of memory (default %(default)s)"))
    n_train: int | None = field(  # distinct training words (data efficiency); None: fresh each step
        default=None, metadata=_cli("distinct training words (default: fresh every step)"))
    match_params: int | None = field(  # pick the hidden size whose parameter count is closest
        default=None, metadata=_cli("choose the hidden size with about this many parameters"))
    scan: str = field(  # auto (scan.auto_method) | sequential | parallel
        default="auto", metadata=_cli("auto, sequential or parallel (default %(default)s)"))
    device: str = field(  # cpu | cuda | auto
        default="cpu", metadata=_cli("cpu, cuda or auto (default %(default)s)"))
    # early stopping (docs/training.md): "validation" stops once held-out words of lengths
    # val_min_len..val_max_len (longer than the training words, shorter than the test length)
    # are labelled perfectly for `patience` evaluations in a row; "train" stops on perfect
    # training batches (fitting lengths 2-10 is not generalising: dihedral:4 full scored 0.43 at
    # length 500 that way, and 0.43 again with validation at lengths 20-50, where it was already
    # perfect); "none" runs every step
    early_stop: str = field(
        default="validation",
        metadata=_cli("validation (perfect held-out longer words), train (perfect training batches) or "
                      "none (run every step) (default %(default)s)"))
    curriculum_max_len: int | None = field(  # None: fixed lengths; else the longest training length
        # grows linearly from train_max_len (step 0) to this (the last step): the rotation-precision
        # remedy of docs/training.md, an option, never a change of the protocol
        default=None, metadata=_cli("grow the longest training length linearly from the --train-len maximum to "
                                    "MAX over the steps (a curriculum; default: fixed lengths)",
                                    option="--curriculum", metavar="MAX"))
    val_min_len: int = field(  # validation word lengths (drawn from (seed, 5), never the test words)
        default=20, metadata=_cli("validation word lengths (default %(default)s)", option="--val-len",
                                  metavar=("MIN", "MAX"), with_fields=("val_max_len",)))
    val_max_len: int = field(
        default=200, metadata=_cli("longest validation length", option="--val-len"))
    val_words: int = field(  # validation words, labelled at every position
        default=64, metadata=_cli("validation words (default %(default)s)"))
    layers: int = field(  # a stack of this many bilinear layers (docs/theory.md section 8; learned/stacked.py)
        default=1, metadata=_cli("stack this many layers of the bilinear variant: layer l reads (symbol, class of "
                                 "layer l-1), the argmax in evaluation, in training as --stack-mixing says "
                                 "(default %(default)s)"))
    stack_mixing: str = field(  # with layers > 1: how layer l reads layer l-1 in training (learned/stacked.py)
        default=DEFAULT_MIXING, metadata=_cli(
            "with --layers: straight-through (the argmax of layer l-1, with the softmax's gradient: training runs "
            "the hard cascade that is evaluated) or soft (the softmax of layer l-1 mixes layer l's matrices) "
            "(default %(default)s)"))
    freeze_transitions: bool = field(  # train only h0 and the readout (the paper's frozen random transitions)
        default=False, metadata=_cli("train only h0 and the readout; the transition matrices keep their random "
                                     "initialisation (bilinear models)"))
    data: str | None = field(  # a words file (bilinear data; CSV, JSON lines, parquet): the training words
        default=None, metadata=_cli("train on the words of this file (bilinear data, or the word-problem CSV "
                                    "layout; .csv, .jsonl, .parquet) instead of fresh random words",
                                    metavar="FILE"))
    relabel: str | None = field(  # the data file's numbering: "word-problem" or a JSON file (automata/numbering.py)
        default=None, metadata=_cli("with --data / --test-data: the file's numbering of symbols and classes, "
                                    "word-problem (S_N / A_N as the word-problem and DeltaProduct data number "
                                    "them; the spec becomes symmetric:N,alphabet=all) or a JSON file of names "
                                    "(docs/formats.md)", metavar="NUMBERING"))
    test_data: str | None = field(  # a words file to test on instead of random words of test_len
        default=None, metadata=_cli("test on the words of this file instead of random words of --test-len",
                                    metavar="FILE"))
    log: str | None = field(  # loggers beside metrics.jsonl: tensorboard, wandb (learned/loggers.py)
        default=None, compare=False,  # where metrics also go changes nothing a run computes
        metadata=_cli("also log the metrics to tensorboard and/or wandb (offline), comma-separated, into the "
                      "run folder (needs --out and bilinear[tensorboard] / bilinear[wandb])", metavar="LOGGERS"))

    def __post_init__(self) -> None:
        self._validate_types()
        self._validate_ranges()
        self._validate_limits(self._validate_names())

    # --- validation ----------------------------------------------------------------------
    def _validate_types(self) -> None:
        ints = ("hidden", "steps", "batch", "seed", "train_min_len", "train_max_len", "test_len", "layers",
                "test_words", "eval_every", "patience", "val_min_len", "val_max_len", "val_words")
        for name in ints:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, numbers.Integral):
                raise ConfigError(f"{name} must be an integer, got {value!r}")
        for name in ("embed", "n_train", "match_params", "curriculum_max_len"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, numbers.Integral)):
                raise ConfigError(f"{name} must be an integer or null, got {value!r}")
        for name in ("lr", "grad_clip", "max_memory_gb"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
                raise ConfigError(f"{name} must be a finite number, got {value!r}")
        for name in ("additive", "additive_renorm", "angles", "normalize_train", "freeze_transitions"):
            if not isinstance(getattr(self, name), bool):
                raise ConfigError(f"{name} must be true or false, got {getattr(self, name)!r}")
        if self.log is not None:
            from .loggers import parse_log

            if not isinstance(self.log, str):
                raise ConfigError(f"log must be a comma-separated string of loggers or null, got {self.log!r}")
            parse_log(self.log)
        for name in ("data", "test_data", "relabel"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, str) or not value.strip()):
                raise ConfigError(f"{name} must be a file name or null, got {value!r}")
        for name in ("spec", "model", "init", "scan", "device", "early_stop"):
            if not isinstance(getattr(self, name), str):
                raise ConfigError(f"{name} must be a string, got {getattr(self, name)!r}")
        object.__setattr__(self, "spec", canonical_or_as_given(self.spec))
        if self.relabel is not None:
            self._validate_relabel()
        object.__setattr__(self, "model", canonical_model_or_as_given(self.model))
        lrs = self.lrs
        if isinstance(lrs, (list, tuple)):
            object.__setattr__(self, "lrs", tuple(lrs))
        else:
            raise ConfigError(f"lrs must be a list of learning rates, got {lrs!r}")

    def _validate_relabel(self) -> None:
        """A numbering applies to a data file; the built-in word-problem one sets the word problem's
        alphabet (every element a symbol)."""
        from bilinear.automata.numbering import WORD_PROBLEM, word_problem_spec

        if self.data is None and self.test_data is None:
            raise ConfigError("relabel gives a data file's numbering: it needs data or test_data")
        if self.relabel == WORD_PROBLEM:
            try:
                object.__setattr__(self, "spec", word_problem_spec(self.spec))
            except BilinearError as exc:
                raise ConfigError(str(exc)) from None

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
        if self.steps > MAX_STEPS:
            raise ConfigError(f"steps must be at most {MAX_STEPS:,} (bilinear.learned.config.MAX_STEPS), got "
                              f"{self.steps:,}")
        if not 0 <= self.seed < 2**63:
            raise ConfigError(f"seed must be in 0..2**63-1, got {self.seed}")
        if self.train_min_len < 1:
            raise ConfigError(f"train_min_len must be >= 1, got {self.train_min_len}")
        if self.train_min_len > self.train_max_len:
            raise ConfigError(
                f"training lengths out of order: train_min_len {self.train_min_len} > "
                f"train_max_len {self.train_max_len}"
            )
        if self.curriculum_max_len is not None:
            if self.curriculum_max_len < self.train_max_len:
                raise ConfigError(f"curriculum_max_len {self.curriculum_max_len} is shorter than train_max_len "
                                  f"{self.train_max_len}: the curriculum only lengthens the training words")
            if self.n_train is not None:
                raise ConfigError("curriculum_max_len and n_train exclude each other: a fixed pool of training "
                                  "words has fixed lengths")
        if self.data is not None and (self.n_train is not None or self.curriculum_max_len is not None):
            raise ConfigError("data excludes n_train and curriculum_max_len: the file gives the training words")
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

    def _validate_names(self):
        """Check the names; returns the automaton's shape for the memory limits (symbols,
        classes), found without building the automaton, or None for a moved automaton file."""
        from bilinear.automata import from_spec
        from bilinear.automata.families import check_spec, is_automaton_file

        from .models import INITS, check_variant
        from .registry import max_length, parse_model
        from .scan import SCANS

        try:
            if _moved_automaton_file(self.spec):  # the run folder keeps its copy (automaton.json)
                automaton = None
            elif is_automaton_file(self.spec):
                automaton = from_spec(self.spec)
            else:  # parsed, not built: a sweep validates many configs; classes <= states bounds
                states, symbols = check_spec(self.spec)  # the estimate from above
                automaton = SimpleNamespace(n_symbols=symbols, n_classes=states)
        except BilinearError as exc:
            shown = self.spec if len(self.spec) <= 80 else f"{self.spec[:60]}... ({len(self.spec):,} characters)"
            raise ConfigError(f"unknown or invalid family spec {shown!r}: {exc}") from None
        ms = parse_model(self.model)
        if ms.bilinear and self.match_params is None:
            check_variant(ms.spec, self.hidden)
        longest = max_length(ms)
        if longest is not None:
            for name in ("test_len", "val_max_len", "longest_train_len"):
                if getattr(self, name) > longest:
                    raise ConfigError(f"{name} {getattr(self, name)} is longer than the {longest} symbols model "
                                      f"{ms.spec!r} reads (its learned positions); use a shorter length or "
                                      f"{ms.spec},sinusoidal")
        if self.additive and not ms.bilinear:
            raise ConfigError(f"the additive ablation applies to bilinear models only, not {self.model!r}")
        if self.stack_mixing not in MIXINGS:
            raise ConfigError(f"unknown stack mixing {self.stack_mixing!r} (known: {', '.join(MIXINGS)})")
        if self.stack_mixing != DEFAULT_MIXING and self.layers == 1:
            raise ConfigError("stack_mixing applies to a stack of layers (--layers 2 or more)")
        if self.layers != 1:
            from bilinear.constructions.values.stack import MAX_LAYERS

            if not 1 <= self.layers <= MAX_LAYERS:
                raise ConfigError(f"layers must be from 1 to {MAX_LAYERS}, got {self.layers}")
            if not ms.bilinear:
                raise ConfigError(f"layers applies to bilinear variants only, not {self.model!r}")
            for name in ("additive", "embed", "match_params"):
                if getattr(self, name):
                    raise ConfigError(f"layers > 1 excludes {name}: a stack has one-hot tokens, no additive terms "
                                      "and the given hidden size")
        if self.freeze_transitions and not ms.bilinear:
            raise ConfigError(f"freeze_transitions applies to bilinear models only, not {self.model!r}")
        if self.init not in INITS:
            raise ConfigError(f"unknown init {self.init!r} (known: {', '.join(INITS)})")
        if self.scan not in SCANS:
            raise ConfigError(f"unknown scan {self.scan!r} (known: {', '.join(SCANS)})")
        if self.early_stop not in EARLY_STOPS:
            raise ConfigError(f"unknown early_stop {self.early_stop!r} (known: {', '.join(EARLY_STOPS)})")
        if self.device not in ("cpu", "cuda", "auto"):
            raise ConfigError(f"unknown device {self.device!r} (known: cpu, cuda, auto)")
        return automaton

    def _validate_limits(self, automaton) -> None:
        """Sizes before allocating: the memory estimate and the largest learning rate."""
        from .limits import check_limits

        if self.max_memory_gb <= 0:
            raise ConfigError(f"max_memory_gb must be positive, got {self.max_memory_gb}")
        for lr in (self.lr, *self.lrs):
            if lr > MAX_LR:
                raise ConfigError(f"learning rate {lr:g} is over {MAX_LR:g}: float32 training cannot represent it")
            if lr < MIN_LR:  # 1e-320 is 0 in float32: training would silently do nothing
                raise ConfigError(f"learning rate {lr:g} is under {MIN_LR:g} (float32's smallest normal number): "
                                  "float32 training would round its updates to nothing")
        if automaton is not None:  # None: a moved automaton file, checked when its run is opened
            self._check_factor_rank(automaton)
            check_limits(self, automaton)

    def _check_factor_rank(self, automaton) -> None:
        """A factored variant's R within the limit ``analyze`` and ``certify`` apply to its
        weights (``factorized:100000`` trained, then every reader refused the run)."""
        from bilinear.constructions.values.variants import check_factor_rank, parse_variant
        from bilinear.errors import ConformanceError, SpecError

        from .registry import parse_model

        ms = parse_model(self.model)
        if not ms.bilinear:
            return
        try:
            v = parse_variant(ms.spec)
        except SpecError:
            return  # refused by the model's own check
        if v.info.factored and v.param is not None:
            try:
                check_factor_rank(v.param, automaton.n_symbols, self.hidden, v.spec)
            except ConformanceError as exc:
                raise ConfigError(str(exc)) from None

    # --- conversion ----------------------------------------------------------------------
    @property
    def longest_train_len(self) -> int:
        """The longest training word of the run: ``train_max_len``, or the curriculum's top."""
        return max(self.train_max_len, self.curriculum_max_len or 0)

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
        if data.get("additive") is True and "additive_renorm" not in data:
            # written before additive_renorm existed: the additive ablation was never renormalised then
            data = {**data, "additive_renorm": False}
        if isinstance(data.get("layers"), int) and data["layers"] > 1 and "stack_mixing" not in data:
            # written before stack_mixing existed: every stack trained the soft mixture then
            data = {**data, "stack_mixing": "soft"}
        if data.get("layers", 1) == 1 and data.get("stack_mixing") == "soft" and DEFAULT_MIXING != "soft":
            # a one-layer run written while soft was the default stored it; one layer mixes nothing
            data = {**data, "stack_mixing": DEFAULT_MIXING}
        return cls(**data)
