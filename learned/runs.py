"""Run directories that survive interruption.

Layout of a run directory::

    config.json      the TrainConfig (written first)
    automaton.json   the automaton, when SPEC is an automaton file (docs/formats.md): a copy, so
                     the run folder is complete without the original file
    metrics.jsonl    one JSON object per evaluation: step, loss, train_batch_accuracy, streak
    checkpoint.pt    model + optimizer state, torch RNG state, step, early-stop streak (rewritten
                     atomically; the data needs no RNG state: batch t is drawn from (seed, t))
    model.pt         final model state dict (loads with torch.load(weights_only=True))
    result.json      the result dict, written last and atomically: its presence means "finished"

Every file is written to a temporary name in the same folder and moved into place with
``os.replace``, so a crash never leaves a half-written file under a final name.  Resuming
(:class:`RunDir` with ``resume=True``) reloads ``checkpoint.pt`` with ``weights_only=True``,
drops metric lines past the checkpoint's step, and continues; because batch t depends only on
``(seed, t)`` the resumed run ends exactly where the uninterrupted one would have.

>>> import tempfile, os
>>> from bilinear.learned.config import TrainConfig
>>> d = os.path.join(tempfile.mkdtemp(), "run")
>>> c = TrainConfig(spec="parity", model="diagonal", hidden=2, steps=100, lr=0.05, test_len=20, test_words=8)
>>> r = train_run(c, d)
>>> sorted(os.listdir(d))
['checkpoint.pt', 'config.json', 'metrics.jsonl', 'model.pt', 'result.json']
>>> config, model, automaton, result = load_run(d)
>>> config == c, result["steps"] == r["steps"], automaton.name
(True, True, 'parity')
"""

from __future__ import annotations

import json
from pathlib import Path

import torch

from bilinear.fileio import atomic_write
from bilinear.errors import BilinearError, CheckpointError, ConfigError

from .config import TrainConfig

__all__ = [
    "RunDir", "train_run", "load_run", "load_config",
    "CONFIG_FILE", "AUTOMATON_FILE", "METRICS_FILE", "CHECKPOINT_FILE", "MODEL_FILE", "RESULT_FILE", "RESULTS_CSV", "RESULTS_MD",
]

#: The files of a run directory (see the module docstring); every reader and writer uses these.
CONFIG_FILE = "config.json"
AUTOMATON_FILE = "automaton.json"
METRICS_FILE = "metrics.jsonl"
CHECKPOINT_FILE = "checkpoint.pt"
MODEL_FILE = "model.pt"
RESULT_FILE = "result.json"
#: The tables a sweep (and ``bilinear reproduce``) writes into its output folder.
RESULTS_CSV = "results.csv"
RESULTS_MD = "results.md"


def _write_json(path: Path, data) -> None:
    atomic_write(path, lambda fh: fh.write((json.dumps(data, indent=2, sort_keys=True) + "\n").encode()))


def load_config(run_dir) -> TrainConfig:
    """The :class:`TrainConfig` stored in ``run_dir/config.json`` (CheckpointError if missing/corrupt)."""
    path = Path(run_dir) / CONFIG_FILE
    if not path.is_file():
        raise CheckpointError(f"{path} is missing: {run_dir} is not a run directory")
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise CheckpointError(f"{path} is corrupt: {exc}") from None
    try:
        return TrainConfig.from_dict(data, where=str(path))
    except BilinearError as exc:
        raise CheckpointError(f"{path} holds an invalid config: {exc}") from None


class RunDir:
    """A run directory (see the module docstring).

    ``resume=False`` needs ``path`` to be absent or empty and writes ``config.json``;
    ``resume=True`` needs ``config.json`` equal to ``config`` (or takes it when ``config`` is
    None) and a loadable ``checkpoint.pt`` unless the run already finished.
    """

    def __init__(self, path, config: TrainConfig | None = None, resume: bool = False):
        self.path = Path(path)
        if resume:
            if not self.path.is_dir():
                raise CheckpointError(f"cannot resume: run directory {self.path} does not exist")
            stored = load_config(self.path)
            if config is not None and config != stored:
                diff = [k for k in TrainConfig.field_names() if getattr(config, k) != getattr(stored, k)]
                raise ConfigError(
                    f"cannot resume {self.path}: the config differs from the stored one in {', '.join(diff)}"
                )
            self.config = stored
            if not self.finished and not (self.path / CHECKPOINT_FILE).is_file():
                raise CheckpointError(f"cannot resume: {self.path / CHECKPOINT_FILE} is missing")
        else:
            if config is None:
                raise ConfigError("a new run directory needs a config")
            if self.path.exists() and (not self.path.is_dir() or any(self.path.iterdir())):
                raise CheckpointError(
                    f"run directory {self.path} already exists and is not empty (use --resume to continue it)"
                )
            automaton = _file_automaton(config.spec)
            self.path.mkdir(parents=True, exist_ok=True)
            self.config = config
            if automaton is not None:
                automaton.save(self.path / AUTOMATON_FILE)
            _write_json(self.path / CONFIG_FILE, config.to_dict())

    def automaton(self):
        """The run's automaton: the copy in ``automaton.json`` when there is one, else SPEC's."""
        from bilinear.automata import Automaton, from_spec

        copy = self.path / AUTOMATON_FILE
        return Automaton.load(copy) if copy.is_file() else from_spec(self.config.spec)

    @property
    def finished(self) -> bool:
        """True when ``result.json`` exists."""
        return (self.path / RESULT_FILE).is_file()

    def result(self) -> dict:
        """The stored result (CheckpointError when unfinished or corrupt)."""
        path = self.path / RESULT_FILE
        if not path.is_file():
            raise CheckpointError(f"{path} is missing: the run in {self.path} has not finished")
        try:
            return json.loads(path.read_text())
        except (OSError, ValueError) as exc:
            raise CheckpointError(f"{path} is corrupt: {exc}") from None

    # --- metrics ----------------------------------------------------------------------------
    def log(self, record: dict) -> None:
        """Append one JSON line to ``metrics.jsonl``."""
        with open(self.path / METRICS_FILE, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(record, sort_keys=True) + "\n")

    def metrics(self) -> list[dict]:
        """Every complete metric record (a torn last line is ignored)."""
        path = self.path / METRICS_FILE
        if not path.is_file():
            return []
        out = []
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                out.append(json.loads(line))
            except ValueError:
                break
        return out

    def _truncate_metrics(self, step: int) -> None:
        kept = [r for r in self.metrics() if int(r.get("step", 0)) <= step]
        text = "".join(json.dumps(r, sort_keys=True) + "\n" for r in kept)
        atomic_write(self.path / METRICS_FILE, lambda fh: fh.write(text.encode()))

    # --- checkpoints --------------------------------------------------------------------------
    def save_checkpoint(self, state: dict) -> None:
        """Write ``checkpoint.pt`` atomically."""
        atomic_write(self.path / CHECKPOINT_FILE, lambda fh: torch.save(state, fh))

    def load_checkpoint(self) -> dict | None:
        """The checkpoint state (None when there is none yet); CheckpointError when corrupt.

        Loads with ``weights_only=True`` and truncates the metrics to the checkpoint's step.
        """
        path = self.path / CHECKPOINT_FILE
        if not path.is_file():
            return None
        try:
            state = torch.load(path, map_location="cpu", weights_only=True)
        except Exception as exc:  # torch raises many kinds for a damaged file
            raise CheckpointError(f"checkpoint {path} is corrupt: {type(exc).__name__}: {exc}"[:300]) from None
        keys = {"step", "streak", "model", "optimizer"}
        if not isinstance(state, dict) or not keys <= set(state):
            raise CheckpointError(f"checkpoint {path} is incomplete (needs {', '.join(sorted(keys))})")
        self._truncate_metrics(int(state["step"]))
        return state

    def finish(self, model: torch.nn.Module, result: dict) -> None:
        """Write ``model.pt`` then ``result.json`` (last: it marks the run finished)."""
        atomic_write(self.path / MODEL_FILE, lambda fh: torch.save(model.state_dict(), fh))
        _write_json(self.path / RESULT_FILE, result)


def _file_automaton(spec: str):
    """The automaton of SPEC when it is an automaton file (to copy into the run), else None."""
    from bilinear.automata.families import is_automaton_file, resolve

    return resolve(spec) if is_automaton_file(spec) else None


def train_run(config: TrainConfig | None, run_dir, resume: bool = False, quiet: bool = True) -> dict:
    """Train into ``run_dir`` (or resume it); returns the result dict.

    Resuming a finished run returns its stored result without training.
    """
    from .train import train

    run = RunDir(run_dir, config, resume=resume)
    if run.finished:
        return run.result()
    return train(run.config, run=run, quiet=quiet)


def load_run(run_dir):
    """``(config, model, automaton, result)`` of a finished run; the model is in eval mode.

    CheckpointError when the directory is missing, unfinished (no ``result.json``) or corrupt.
    """
    from .train import make_model

    path = Path(run_dir)
    if not path.is_dir():
        raise CheckpointError(f"run directory {path} does not exist")
    config = load_config(path)
    run = RunDir.__new__(RunDir)
    run.path, run.config = path, config
    result = run.result()
    model_path = path / MODEL_FILE
    if not model_path.is_file():
        raise CheckpointError(f"{model_path} is missing")
    automaton = run.automaton()
    model = make_model(config, automaton)
    try:
        state = torch.load(model_path, map_location="cpu", weights_only=True)
        model.load_state_dict(state)
    except Exception as exc:
        raise CheckpointError(f"model {model_path} is corrupt: {type(exc).__name__}: {exc}"[:300]) from None
    model.eval()
    return config, model, automaton, result
