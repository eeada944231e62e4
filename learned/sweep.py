"""Sweeps: a grid of families x models x learning rates x seeds, one results table.

A sweep file is TOML::

    families = ["parity", "cyclic:3"]     # automaton family specs
    models = ["full", "diagonal", "lstm"] # model specs
    lrs = [1e-2, 1e-3]                    # learning rates (chosen per family, model, seed on validation words)
    seeds = [0, 1]
    n_train = [16, 256]                   # optional: distinct training words (data efficiency)
    hidden = [2, 4, 8]                    # optional: hidden sizes as an axis (else [train] hidden)
    workers = 2                           # optional: local worker processes
    preset = "paper"                      # optional: a named protocol (TrainConfig presets: paper, chomsky, ...)

    [train]                               # optional: any other TrainConfig field
    steps = 2000
    hidden = 16

A ``preset`` sets the [train] fields it names (``paper``: hidden 256, embed 256, angles) unless
[train] or a grid axis gives them; the rest of the grid is the file's.

Every run trains into ``OUT/runs/<family>__<model>__lr<lr>__s<seed>[__n<n_train>][__h<hidden>]`` (the learning
rate written exactly; two grid points that would share a folder, or an axis listing a value twice,
are refused up front).  A non-empty ``OUT`` is refused unless ``--resume`` (a finished run is
reused, an interrupted one resumed) or ``--force`` (replaced); ``OUT`` and each run folder are
locked while written, so a second sweep into them fails at once.  The sweep writes ``OUT/results.csv`` (one row per run)
and ``OUT/results.md`` (the per-run table and a family x model table of the normalised
accuracy at the test length: the learning rate chosen per seed on the held-out validation words,
averaged over seeds, and, labelled, the best on the test words for comparison; with an
``n_train`` or ``hidden`` axis its rows are ``family (h=H, n=N)``).

Runs go to local worker processes by default, or to a Ray cluster with ``ray_address``
(``pip install bilinear[ray]``).  An unknown key anywhere in the file is a ConfigError naming it.

>>> s = Sweep.from_toml_text('families = ["parity"]\\nmodels = ["diagonal"]\\n[train]\\nsteps = 5')
>>> [(c.spec, c.model, c.lr, c.seed, c.steps) for c in s.configs()]
[('parity', 'diagonal', 0.01, 0, 5)]
>>> Sweep.from_toml_text('families = ["parity"]\\nmodels = ["full"]\\nlearning_rates = [1]')
Traceback (most recent call last):
...
bilinear.errors.ConfigError: unknown key 'learning_rates' in sweep file (known: families, models, lrs, seeds, n_train, hidden, workers, train, preset)
>>> Sweep.from_toml_text('families = ["parity"]\\nmodels = ["full"]\\npreset = "paper"\\n[train]\\nsteps = 5').train
{'hidden': 256, 'embed': 256, 'angles': True, 'steps': 5}
"""

from __future__ import annotations

import csv
import io
import itertools
import math
import re
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path

from bilinear.argtypes import check_positive_int
from bilinear.errors import BilinearError, ConfigError
from bilinear.fileio import FolderLock, prepare_output_dir
from bilinear.metrics import AT_LENGTH, LR_SELECTIONS, TEST_LENGTH, headline_label, selection_key, upgrade_result
from bilinear.progress import Progress

try:  # Python >= 3.11
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10: the same parser, as a package
    import tomli as tomllib

from .config import TrainConfig
from .runs import RESULTS_CSV, RESULTS_MD

#: Largest sweep file read (a sweep is a few lines of TOML; a 255 MiB file took 41.6 s to refuse).
MAX_SWEEP_FILE_BYTES = 2**20
#: Most grid points (runs) of one sweep, counted from the axes' lengths before the grid is
#: expanded (a 10^6-point grid validated for over two minutes in silence; validating takes about
#: 2 ms a point).
MAX_SWEEP_RUNS = 10_000
#: Grids of at least this many points report their validation (about a second of work).
_VALIDATION_PROGRESS_POINTS = 500

__all__ = [
    "Sweep", "run_sweep", "results_table", "seed_table", "SeedSpread", "markdown_table", "run_dir_name", "check_run_names", "row_label", "table_label", "cell", "COLUMNS",
    "tested_length",
]

#: Columns of results.csv, in order.
COLUMNS = (
    "family", "model", "lr", "seed", "n_train", "hidden", "params", "steps", "stopped_early", "train_accuracy",
    "val_accuracy", "test_length", "accuracy_at_length", "accuracy_mean_over_positions", "accuracy_worst_near_length",
    "train_seconds", "run_dir",
)
_TOP_KEYS = ("families", "models", "lrs", "seeds", "n_train", "hidden", "workers", "train", "preset")
_GRID_FIELDS = ("spec", "model", "lr", "seed", "n_train")


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9.]+", "-", text).strip("-")


@dataclass(frozen=True)
class Sweep:
    """A parsed sweep: the grid axes, the shared training overrides and the worker count."""

    families: tuple
    models: tuple
    lrs: tuple = (1e-2,)
    seeds: tuple = (0,)
    workers: int = 1
    train: dict = field(default_factory=dict)
    n_train: tuple = (None,)
    hidden: tuple = (None,)

    def __post_init__(self) -> None:
        for name in ("families", "models", "lrs", "seeds", "n_train", "hidden"):
            value = getattr(self, name)
            if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
                raise ConfigError(f"sweep key {name!r} must be a list, got {value!r}")
            if not value:
                raise ConfigError(f"sweep key {name!r} is empty")
            object.__setattr__(self, name, tuple(value))
        check_positive_int(self.workers, "sweep key 'workers'", error=ConfigError)
        if not isinstance(self.train, dict):
            raise ConfigError(f"sweep key 'train' must be a table, got {self.train!r}")
        if self.by_hidden and "hidden" in self.train:
            raise ConfigError("hidden is both a grid axis (top-level list) and a [train] key: keep one")
        for key in self.train:
            if key in _GRID_FIELDS:
                raise ConfigError(f"key {key!r} in [train] is a grid axis; set it with the top-level list")
            if key not in TrainConfig.field_names():
                raise ConfigError(f"unknown key {key!r} in [train] of sweep file")
        axes = ("families", "models", "hidden", "n_train", "lrs", "seeds")
        points = math.prod(len(getattr(self, name)) for name in axes)
        if points > MAX_SWEEP_RUNS:  # before the grid is expanded or any point validated
            sizes = " x ".join(f"{len(getattr(self, name)):,} {name}" for name in axes)
            raise ConfigError(f"the sweep grid has {points:,} points ({sizes}), over the limit of "
                              f"{MAX_SWEEP_RUNS:,} runs (bilinear.learned.sweep.MAX_SWEEP_RUNS): split it into sweeps")
        self._check_families()
        self._check_models()
        for name in ("families", "models", "lrs", "seeds", "n_train", "hidden"):
            seen: dict = {}
            for v in getattr(self, name):  # linear: 10^6 seeds were compared pairwise
                key = repr(v) if isinstance(v, (list, dict)) else v
                if key in seen:
                    raise ConfigError(f"sweep key {name!r} lists {v!r} twice: every grid point must be unique")
                seen[key] = v
        # validate every grid point now, not in a worker (progress lines when it takes long; no
        # thread or bar for a small grid: the presets are built at import)
        with Progress("sweep: validating the grid", total=points, unit="grid points",
                      quiet=points < _VALIDATION_PROGRESS_POINTS) as bar:
            check_run_names(self.configs(bar), self.by_hidden)

    def _check_families(self) -> None:
        """Each family in its canonical form (docs/formats.md: ``cyclic:03`` and ``CYCLIC:3`` are
        ``cyclic:3``; two that are one automaton are refused, naming both), and each automaton file
        there and readable now, before any worker starts (a missing one failed later, in a worker)."""
        from bilinear.automata.families import is_automaton_file
        from bilinear.automata.fileformat import read

        from .config import canonical_or_as_given

        for family in self.families:
            if isinstance(family, str) and is_automaton_file(family):
                try:
                    read(family.strip())
                except BilinearError as exc:
                    raise ConfigError(f"sweep family {family!r}: {exc}") from None
        self._canonical("families", canonical_or_as_given, "automaton")

    def _check_models(self) -> None:
        """Each model in its canonical form (:func:`~bilinear.learned.config.canonical_model_or_as_given`:
        ``MONOMIAL,complex`` and ``householder:01`` are ``monomial,complex`` and ``householder:1``);
        two that are one model are refused, naming both (they ran twice, under two names)."""
        from .config import canonical_model_or_as_given

        self._canonical("models", canonical_model_or_as_given, "model")

    def _canonical(self, key: str, canonical_form, what: str) -> None:
        """Replace the sweep key ``key``'s entries by their canonical forms; two entries with one
        canonical form are refused, naming both (they ran twice, under two names)."""
        canonical: list = []
        given: dict = {}
        for entry in getattr(self, key):
            name = canonical_form(entry)
            if isinstance(name, str) and name in given and given[name] != entry:
                raise ConfigError(f"sweep key {key!r} lists {given[name]!r} and {entry!r}: both are {name!r} "
                                  f"(one {what}, one run per grid point)")
            given.setdefault(name, entry)
            canonical.append(name)
        object.__setattr__(self, key, tuple(canonical))

    @classmethod
    def from_toml_text(cls, text: str, source: str = "sweep file") -> "Sweep":
        """Parse TOML text (ConfigError on bad TOML or unknown keys)."""
        try:
            data = tomllib.loads(text)
        except (ValueError, RecursionError) as exc:  # TOMLDecodeError; ints over 4300 digits; nesting
            first = (str(exc).splitlines() or [type(exc).__name__])[0][:200]
            raise ConfigError(f"{source} is not valid TOML: {first}") from None
        for key in data:
            if key not in _TOP_KEYS:
                raise ConfigError(f"unknown key {key!r} in {source} (known: {', '.join(_TOP_KEYS)})")
        for key in ("families", "models"):
            if key not in data:
                raise ConfigError(f"{source} needs the key {key!r}")
        if "preset" in data:
            data = _with_preset(data, source)
        return cls(**data)

    @classmethod
    def load(cls, path) -> "Sweep":
        """Read a sweep file."""
        from bilinear.jsonfile import read_file_bytes

        p = Path(path)
        data = read_file_bytes(p, ConfigError, what="sweep file", max_bytes=MAX_SWEEP_FILE_BYTES)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ConfigError(f"sweep file {p} is not UTF-8 text (byte {exc.start})") from None
        return cls.from_toml_text(text, source=f"sweep file {p}")

    @property
    def by_hidden(self) -> bool:
        """True when the hidden size is a grid axis (the top-level ``hidden`` list)."""
        return self.hidden != (None,)

    def configs(self, progress: Progress | None = None) -> list[TrainConfig]:
        """Every grid point as a TrainConfig, families outermost, seeds innermost (``progress``
        counts them)."""
        out = []
        grid = itertools.product(self.families, self.models, self.hidden, self.n_train, self.lrs, self.seeds)
        for spec, model, h, n, lr, seed in grid:
            axis = {"spec": spec, "model": model, "lr": lr, "seed": seed, "n_train": n}
            if h is not None:
                axis["hidden"] = h
            out.append(TrainConfig(**{**self.train, **axis}))
            if progress is not None:
                progress.update(1)
        return out

    def row_labels(self) -> list[str]:
        """Row labels of the summary table: the families, split by ``hidden`` and ``n_train`` when
        they vary."""
        return [row_label(f, n, h) for f in self.families for h in self.hidden for n in self.n_train]


def _with_preset(data: dict, source: str) -> dict:
    """The sweep file's keys with its ``preset`` merged into ``train`` (the file's own [train] keys
    and its ``hidden`` axis win)."""
    from .config import PRESETS

    data = dict(data)
    name = data.pop("preset")
    if not isinstance(name, str) or name not in PRESETS:
        raise ConfigError(f"{source}: unknown preset {name!r} (known: {', '.join(PRESETS)})")
    train = data.get("train", {})
    if not isinstance(train, dict):
        raise ConfigError(f"sweep key 'train' must be a table, got {train!r}")
    preset = {k: v for k, v in PRESETS[name].items() if not (k == "hidden" and "hidden" in data)}
    data["train"] = {**preset, **train}
    return data


def row_label(family: str, n_train, hidden=None) -> str:
    """``family``, or ``family (h=H, n=N)`` with the axes that are set.

    >>> row_label("parity", None), row_label("parity", 16), row_label("cyclic:5", None, 4)
    ('parity', 'parity (n=16)', 'cyclic:5 (h=4)')
    """
    parts = [f"h={hidden}"] * (hidden is not None) + [f"n={n_train}"] * (n_train is not None)
    return f"{family} ({', '.join(parts)})" if parts else family


def table_label(row: dict) -> str:
    """The summary-table row label of a results row (``grid_hidden`` is set on a hidden axis)."""
    return row_label(row["family"], row.get("n_train") or None, row.get("grid_hidden") or None)


def run_dir_name(config: TrainConfig, by_hidden: bool = False) -> str:
    """``<family>__<model>__lr<lr>__s<seed>[__n<n_train>][__h<hidden>]`` with unsafe characters
    replaced (``__h`` when the hidden size is a grid axis); the learning rate is written exactly
    (``repr``), so two learning rates never share a folder.

    >>> c = TrainConfig(spec="cyclic:3", model="full", lr=0.0010000001)
    >>> run_dir_name(c), run_dir_name(c.replace(lr=0.001)), run_dir_name(c.replace(lr=1e-05))
    ('cyclic-3__full__lr0.0010000001__s0', 'cyclic-3__full__lr0.001__s0', 'cyclic-3__full__lr1e-05__s0')
    """
    name = f"{_slug(config.spec)}__{_slug(config.model)}__lr{_slug(repr(float(config.lr)))}__s{config.seed}"
    name = name if config.n_train is None else f"{name}__n{config.n_train}"
    return f"{name}__h{config.hidden}" if by_hidden else name


def _grid_point(c: TrainConfig) -> str:
    n = "" if c.n_train is None else f", n_train {c.n_train}"
    return f"(family {c.spec!r}, model {c.model!r}, lr {c.lr!r}, seed {c.seed}{n})"


def check_run_names(configs, by_hidden: bool = False) -> list[str]:
    """The run folder names of ``configs``; ConfigError naming both grid points when two share one."""
    seen: dict[str, TrainConfig] = {}
    for c in configs:
        name = run_dir_name(c, by_hidden)
        if name in seen:
            raise ConfigError(
                f"grid points {_grid_point(seen[name])} and {_grid_point(c)} would share the run folder {name}"
            )
        seen[name] = c
    return list(seen)


def _run_one(config_dict: dict, run_dir: str) -> dict:
    """Worker: train (or reuse / resume) one run; returns its result (or the error)."""
    import torch

    from .train import train_run

    torch.set_num_threads(1)
    config = TrainConfig.from_dict(config_dict)
    try:  # a finished run is reused, an interrupted one resumed (from scratch before its first checkpoint)
        result = dict(train_run(config, run_dir, resume=Path(run_dir).is_dir()))
    except BilinearError as exc:
        result = {"error": f"{type(exc).__name__}: {exc}", "spec": config.spec, "model": config.model}
    result["run_dir"] = run_dir
    result["lr"] = config.lr
    result["seed"] = config.seed
    return result


def _row(result: dict, config: TrainConfig, by_hidden: bool = False) -> dict:
    """A results row: the CSV columns, plus ``grid_hidden`` (not a column) on a hidden axis."""
    row = {k: result.get(k, "") for k in COLUMNS}
    row["family"], row["model"] = config.spec, config.model
    row["n_train"] = "" if config.n_train is None else config.n_train
    if by_hidden:
        row["grid_hidden"] = config.hidden
    return row


def run_sweep(sweep: Sweep, out_dir, workers: int | None = None, ray_address: str | None = None,
              quiet: bool = True, force: bool = False, resume: bool = False, log: str | None = None) -> list[dict]:
    """Run every grid point; write results.csv and results.md into ``out_dir``; return the rows.

    A non-empty ``out_dir`` is refused unless ``resume`` (finished runs are reused, interrupted
    ones resumed) or ``force`` (replaced).  The folder is locked while the sweep runs.  ``log``
    (``"tensorboard"``, ``"wandb"`` or both, comma-separated) logs every run's metrics there too.
    """
    if ray_address:  # before anything is written: Ray itself retries an address forever
        _require_ray()
        _check_ray_address(ray_address)
    out = prepare_output_dir(out_dir, force=force, resume=resume, what="sweep folder")
    with FolderLock(out, what="sweep folder"):
        return _run_locked(sweep, out, workers, ray_address, quiet, log)


#: Seconds one attempt to reach a Ray cluster's address may take, and the attempts (``ray.init``
#: retried ``--ray 127.0.0.1:1`` forever).
RAY_CONNECT_TIMEOUT = 5.0
RAY_CONNECT_ATTEMPTS = 3


def _check_ray_address(address: str) -> None:
    """ConfigError in one line unless something accepts a TCP connection at ``address``
    (``HOST:PORT`` or ``ray://HOST:PORT``), within :data:`RAY_CONNECT_ATTEMPTS` attempts of
    :data:`RAY_CONNECT_TIMEOUT` seconds; ``auto`` and ``local`` are left to Ray.

    >>> _check_ray_address("not a host")
    Traceback (most recent call last):
    ...
    bilinear.errors.ConfigError: --ray 'not a host': expected HOST:PORT, ray://HOST:PORT, auto or local
    """
    import socket
    import time

    text = address.strip() if isinstance(address, str) else ""
    if text in ("auto", "local"):
        return
    host, sep, port = (text.split("://", 1)[1] if text.startswith("ray://") else text).rpartition(":")
    host = host.strip("[]")
    if not sep or not host or " " in host or not re.fullmatch(r"[0-9]{1,5}", port) or not 0 < int(port) < 65536:
        raise ConfigError(f"--ray {address!r}: expected HOST:PORT, ray://HOST:PORT, auto or local")
    last: OSError | None = None
    for attempt in range(RAY_CONNECT_ATTEMPTS):
        if attempt:
            time.sleep(0.5)
        try:
            with socket.create_connection((host, int(port)), timeout=RAY_CONNECT_TIMEOUT):
                return
        except OSError as exc:
            last = exc
    why = (last.strerror if last is not None and last.strerror else str(last)) or "no answer"
    raise ConfigError(f"--ray {address!r}: nothing accepts connections there ({why}; {RAY_CONNECT_ATTEMPTS} attempts "
                      f"of {RAY_CONNECT_TIMEOUT:g} s); is the cluster started (ray start --head)?")


def _require_ray():
    try:
        import ray
    except ImportError:
        raise ConfigError("--ray needs Ray installed (pip install 'bilinear[ray]')") from None
    return ray


def _run_locked(sweep: Sweep, out: Path, workers, ray_address, quiet: bool, log: str | None = None) -> list[dict]:
    (out / "runs").mkdir(parents=True, exist_ok=True)
    configs = sweep.configs()
    if log is not None:  # not part of what a run computes (compare=False): the run names stay
        configs = [c.replace(log=log) for c in configs]
    dirs = [str(out / "runs" / name) for name in check_run_names(configs, sweep.by_hidden)]
    jobs = [(c.to_dict(), d) for c, d in zip(configs, dirs)]
    workers = workers or sweep.workers
    if ray_address:
        results = _run_ray(jobs, ray_address)
    elif workers == 1:
        results = [_run_one(*job) for job in _progress_iter(jobs, quiet)]
    else:
        with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn")) as pool:
            futures = [pool.submit(_run_one, *job) for job in jobs]
            results = [f.result() for f in _progress_iter(futures, quiet)]
    rows = [_row(r, c, sweep.by_hidden) for r, c in zip(results, configs)]
    errors = [r["error"] for r in results if "error" in r]
    _write_tables(out, rows, sweep)
    if errors:
        raise ConfigError(f"{len(errors)} run(s) of the sweep failed; first: {errors[0]}")
    return rows


def _progress_iter(items, quiet: bool):
    """The items, with a bar on a terminal or a line on stderr every few seconds elsewhere (a
    line comes even while one run takes minutes: :mod:`bilinear.progress`)."""
    from bilinear.progress import Progress

    items = list(items)
    with Progress("sweep", total=len(items), unit="runs", quiet=quiet) as progress:
        yield from progress.wrap(items)


def _run_ray(jobs, address: str) -> list[dict]:
    ray = _require_ray()
    try:
        ray.init(address=address, ignore_reinit_error=True, log_to_driver=False)
    except (ValueError, ConnectionError, RuntimeError) as exc:  # "not a host": Ray's ValueError
        first = (str(exc).splitlines() or [type(exc).__name__])[0][:200]
        raise ConfigError(f"--ray {address!r}: cannot connect to a Ray cluster there ({first})") from None
    # a task whose worker dies (node lost, process killed) is retried; the retry resumes the run
    # from its last checkpoint (see _run_one), so the result equals the uninterrupted run's
    remote = ray.remote(num_cpus=1, max_retries=3)(_run_one)
    return ray.get([remote.remote(*job) for job in jobs])


def results_table(rows: list[dict], select: str = "validation") -> dict:
    """``{(family, model): mean over seeds of the normalised accuracy at the test length of the
    learning rate chosen per seed}`` (``accuracy_at_length``: the last position of test words;
    rows of old sweeps are read through :func:`bilinear.metrics.upgrade_result`).

    ``select="validation"`` (the protocol) chooses each seed's learning rate on the held-out
    validation words (:func:`bilinear.metrics.selection_key`: validation accuracy, then training
    accuracy, then fewer steps) and reports that run's test accuracy as measured;
    ``select="test"`` takes the best test accuracy (optimistic: the test words choose).

    >>> rows = [{"family": "p", "model": "m", "seed": s, "lr": lr, "accuracy_at_length": a, "val_accuracy": v}
    ...         for s, lr, a, v in [(0, 1, 0.5, 1.0), (0, 2, 0.9, 0.8), (1, 1, 0.7, 0.9), (1, 2, 0.1, 1.0)]]
    >>> results_table(rows), results_table(rows, select="test")
    ({('p', 'm'): 0.3}, {('p', 'm'): 0.8})
    """
    return {k: v.mean for k, v in seed_table(rows, select).items()}


@dataclass(frozen=True)
class SeedSpread:
    """One table cell over seeds: the ``mean``, the smallest (``low``) and largest (``high``) of
    the seeds' values, and how many seeds (``n``)."""

    mean: float
    low: float
    high: float
    n: int

    def text(self, digits: int = 2) -> str:
        """``mean`` alone for one seed, else ``mean (low..high)``.

        >>> SeedSpread(0.515, 0.22, 0.81, 2).text(), SeedSpread(1.0, 1.0, 1.0, 1).text()
        ('0.52 (0.22..0.81)', '1.00')
        """
        if self.n == 1:
            return cell(self.mean, digits)
        return f"{cell(self.mean, digits)} ({cell(self.low, digits)}..{cell(self.high, digits)})"


def seed_table(rows: list[dict], select: str = "validation") -> dict:
    """``{(family, model): SeedSpread}`` of the normalised accuracy at the test length of the run
    chosen per seed (``select``: on the validation words, or ``test``, see :func:`results_table`):
    the mean over seeds and the spread (0.22 and 0.81 are not 0.52 twice).

    >>> rows = [{"family": "p", "model": "m", "seed": s, "lr": 1, "accuracy_at_length": a}
    ...         for s, a in [(0, 0.22), (1, 0.81)]]
    >>> seed_table(rows)[("p", "m")].text()
    '0.52 (0.22..0.81)'
    """
    if select not in LR_SELECTIONS:
        raise ConfigError(f"unknown learning-rate selection {select!r} (known: {', '.join(LR_SELECTIONS)})")
    chosen: dict = {}
    for r in rows:
        acc = upgrade_result(r).get(AT_LENGTH)
        if acc in ("", None):
            continue
        key = (table_label(r), r["model"], r["seed"])
        if key not in chosen or selection_key(r, select) > selection_key(chosen[key], select):
            chosen[key] = r
    grouped: dict = {}
    for (family, model, _), r in chosen.items():
        grouped.setdefault((family, model), []).append(float(upgrade_result(r)[AT_LENGTH]))
    return {k: SeedSpread(round(sum(v) / len(v), 6), min(v), max(v), len(v)) for k, v in grouped.items()}


def cell(value: float, digits: int = 2) -> str:
    """A table number: ``digits`` decimals, and a value that rounds to zero is ``0.00``, never ``-0.00``.
    The value is first rounded to 9 decimals, so that two computations of one number (a seed's
    accuracy 0.175 and the mean of two such seeds, one float step apart) print the same.

    >>> cell(-0.001), cell(0.5), cell(-0.25)
    ('0.00', '0.50', '-0.25')
    >>> cell(0.17500000000000002), cell(0.175)
    ('0.17', '0.17')
    """
    return f"{round(round(float(value), 9), digits) + 0.0:.{digits}f}"


def markdown_table(table: dict, families, models, digits: int = 2, metric: str | None = None) -> str:
    """A family x model Markdown table of ``table`` values (``-`` where missing); ``metric`` names
    what the cells are, in the first column's header.

    >>> print(markdown_table({("p", "m"): 0.5}, ["p"], ["m"], metric="accuracy at 500").splitlines()[0])
    | family (cells: accuracy at 500) | m |
    """
    corner = "family" if metric is None else f"family (cells: {metric})"
    lines = [f"| {corner} | " + " | ".join(models) + " |", "|---|" + "---|" * len(models)]

    def text(value) -> str:  # a number, or a SeedSpread (mean and min..max over seeds)
        return value.text(digits) if isinstance(value, SeedSpread) else cell(value, digits)

    for f in families:
        cells = [text(table[(f, m)]) if (f, m) in table else "-" for m in models]
        lines.append(f"| {f} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def tested_length(rows: list[dict]) -> str:
    """The test length of ``rows`` as text (``500``; ``20-500`` when the rows differ; ``?`` when
    no row says).

    >>> tested_length([{"test_length": 500}, {"test_len": 500}]), tested_length([])
    ('500', '?')
    """
    lengths = sorted({int(v) for v in (upgrade_result(r).get(TEST_LENGTH) for r in rows) if v not in (None, "")})
    if not lengths:
        return "?"
    return str(lengths[0]) if len(lengths) == 1 else f"{lengths[0]}-{lengths[-1]}"


def _write_tables(out: Path, rows: list[dict], sweep: Sweep) -> None:
    from bilinear.fileio import atomic_write

    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=COLUMNS, lineterminator="\n", extrasaction="ignore")
    writer.writeheader()
    writer.writerows(rows)
    atomic_write(out / RESULTS_CSV, lambda fh: fh.write(buf.getvalue().encode()))
    metric = headline_label(tested_length(rows))
    md = ["# Sweep results", "",
          f"{metric.capitalize()} (0 = chance, 1 = perfect), the learning rate chosen per seed on the held-out "
          "validation words, mean over seeds (the smallest..largest seed in brackets, with several seeds):",
          "", markdown_table(seed_table(rows), sweep.row_labels(), sweep.models, metric=metric)]
    if len(sweep.lrs) > 1:
        md += ["", "The best learning rate per seed on the test words (optimistic: the test words choose; for "
               "comparison only):", "",
               markdown_table(seed_table(rows, select="test"), sweep.row_labels(), sweep.models, metric=metric)]
    md += ["", "## Every run", "", "| " + " | ".join(COLUMNS[:-1]) + " |", "|" + "---|" * (len(COLUMNS) - 1)]
    for r in rows:
        cells = []
        for k in COLUMNS[:-1]:
            v = r[k]
            cells.append(f"{v:.4f}" if isinstance(v, float) and k != "lr" else str(v))
        md.append("| " + " | ".join(cells) + " |")
    atomic_write(out / RESULTS_MD, lambda fh: fh.write(("\n".join(md) + "\n").encode()))
