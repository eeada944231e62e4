"""Run directories that survive interruption: storage only (training lives in
:mod:`bilinear.learned.train`, which writes through this module; this module never imports it).

Layout of a run directory::

    config.json      the TrainConfig (written first)
    automaton.json   the automaton, when SPEC is an automaton file (docs/formats.md): a copy, so
                     the run folder is complete without the original file
    metrics.jsonl    one JSON object per evaluation: step, loss, train_batch_accuracy, streak
    checkpoint.pt    a self-describing checkpoint (rewritten atomically): its ``format``
                     (:data:`CHECKPOINT_FORMAT`), the run's ``config`` (as nanoGPT's checkpoints
                     carry theirs), the model and optimizer state, the torch RNG state, the step
                     and the early-stop streak (the data needs no RNG state: batch t is drawn
                     from (seed, t))
    model.pt         final model state dict (loads with torch.load(weights_only=True))
    result.json      the result dict, written last and atomically: its presence means "finished"

Every file is written to a temporary name in the same folder and moved into place with
``os.replace``, so a crash never leaves a half-written file under a final name.  Resuming
(:class:`RunDir` with ``resume=True``) reloads ``checkpoint.pt`` with ``weights_only=True``,
reads its ``format`` and ``config`` and refuses one of another format or another run, drops
metric lines past the checkpoint's step, and continues; because batch t depends only on
``(seed, t)`` the resumed run ends exactly where the uninterrupted one would have.

:class:`RunFiles` reads a run folder (no lock, nothing written); :class:`RunDir` is the writer
(it holds the folder's lock).  Importing this module does not import torch (the command line
reads its file names); the functions that load tensors import it.

>>> import tempfile, os
>>> from bilinear.learned.config import TrainConfig
>>> from bilinear.learned.train import train_run
>>> d = os.path.join(tempfile.mkdtemp(), "run")
>>> c = TrainConfig(spec="parity", model="diagonal", hidden=2, steps=100, lr=0.05, test_len=20, test_words=8)
>>> r = train_run(c, d)
>>> sorted(os.listdir(d))
['checkpoint.pt', 'config.json', 'metrics.jsonl', 'model.pt', 'result.json']
>>> config, model, automaton, result = load_run(d)
>>> config == c, result["steps"] == r["steps"], automaton.name
(True, True, 'parity')
>>> state = RunFiles(d).checkpoint()
>>> state["format"] == CHECKPOINT_FORMAT, TrainConfig.from_dict(state["config"]) == c
(True, True)
"""

from __future__ import annotations

import json
from pathlib import Path

from bilinear.errors import BilinearError, CheckpointError, ConfigError
from bilinear.jsonfile import read_file_bytes, read_json_file
from bilinear.fileio import LOCK_FILE, FolderLock, atomic_write, prepare_output_dir

from .config import TrainConfig

__all__ = [
    "export_run",
    "RunFiles", "RunDir", "load_run", "load_config", "check_checkpoint", "check_data_digest", "check_result",
    "checkpoint_state", "RESULT_KEYS",
    "CHECKPOINT_FORMAT",
    "CONFIG_FILE", "AUTOMATON_FILE", "METRICS_FILE", "CHECKPOINT_FILE", "MODEL_FILE", "RESULT_FILE", "RESULTS_CSV",
    "RESULTS_MD",
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
#: The layout of ``checkpoint.pt`` this version writes and reads: 2 carries the run's config
#: (format 1, before it, did not, and is refused on resume: replace such a run with --force).
CHECKPOINT_FORMAT = 2


def _write_json(path: Path, data) -> None:
    atomic_write(path, lambda fh: fh.write((json.dumps(data, indent=2, sort_keys=True) + "\n").encode()))


#: Largest ``config.json`` / ``result.json`` of a run read (an 8 GiB sparse config was read whole).
MAX_RUN_FILE_BYTES = 16 * 2**20
#: Largest ``metrics.jsonl`` read (one short record per evaluation interval).
MAX_METRICS_BYTES = 256 * 2**20


def _read_run_json(path: Path, what: str):
    """A run's JSON file, read defensively (regular file, size, nesting; see
    :func:`bilinear.jsonfile.read_json_file`); CheckpointError saying it is corrupt."""
    try:
        return read_json_file(path, CheckpointError, what=what, max_bytes=MAX_RUN_FILE_BYTES)
    except CheckpointError as exc:
        raise CheckpointError(f"{path} is corrupt: {str(exc).replace(f'{path}: ', '')}") from None


def load_config(run_dir) -> TrainConfig:
    """The :class:`TrainConfig` stored in ``run_dir/config.json`` (CheckpointError if missing/corrupt)."""
    path = Path(run_dir) / CONFIG_FILE
    if not path.is_file():
        raise CheckpointError(f"{path} is missing: {run_dir} is not a run directory")
    data = _read_run_json(path, "run config")
    try:
        return TrainConfig.from_dict(data, where=str(path))
    except BilinearError as exc:
        raise CheckpointError(f"{path} holds an invalid config: {exc}") from None


#: The keys of a finished run's ``result.json`` every reader relies on, and their types.
RESULT_KEYS: dict[str, tuple[type, ...]] = {
    "spec": (str,), "model": (str,), "hidden": (int,), "params": (int,), "steps": (int,),
    "stopped_early": (bool,), "train_accuracy": (int, float), "accuracy_at_length": (int, float),
    "accuracy_mean_over_positions": (int, float), "test_length": (int,),
}


def check_result(result, path) -> dict:
    """``result`` (a finished run's stored result, read through
    :func:`bilinear.metrics.upgrade_result`) when it has every key of :data:`RESULT_KEYS` with its
    type; CheckpointError naming the file and the first missing or mistyped key otherwise (a
    ``result.json`` without ``test_length`` was a KeyError traceback on ``train --resume``)."""
    from bilinear.metrics import upgrade_result

    if not isinstance(result, dict):
        raise CheckpointError(f"{path} is corrupt: a run's result is a JSON object, not {type(result).__name__}")
    result = upgrade_result(result)
    for key, types in RESULT_KEYS.items():
        value = result.get(key)
        if key not in result or not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            why = (f"it has no {key!r}" if key not in result else
                   f"its {key!r} is a {type(value).__name__}, not {' or '.join(t.__name__ for t in types)}")
            raise CheckpointError(f"{path} is corrupt: {why} (the result of a finished run); replace the run "
                                  "with --force")
    return result


def checkpoint_state(config: TrainConfig, step: int, streak: int, stopped_early: bool, model, optimizer,
                     data_digest: dict | None = None) -> dict:
    """The contents of ``checkpoint.pt`` (format :data:`CHECKPOINT_FORMAT`): what a run needs to
    continue, the config that says which run it belongs to, and (``data_digest``) the digests of
    the words it read from files, checked on resume (:func:`check_data_digest`)."""
    import torch

    return {
        "format": CHECKPOINT_FORMAT, "config": config.to_dict(), "step": step, "streak": streak,
        "stopped_early": stopped_early, "model": model.state_dict(), "optimizer": optimizer.state_dict(),
        "torch_rng": torch.get_rng_state(), "data_digest": dict(data_digest or {}),
    }


def check_data_digest(state: dict, expected: dict, config: TrainConfig, where: str) -> None:
    """CheckpointError unless the checkpoint ``state`` was written by a run that read the same
    words as ``expected`` (``{"data": digest, "test_data": digest}`` of the files named by
    ``config``): ``train --data FILE --resume`` after FILE changed would mix two data sets."""
    stored = state.get("data_digest", {})
    if not isinstance(stored, dict):
        raise CheckpointError(f"{where}: the words files' digests are malformed")
    for key, digest in sorted(expected.items()):
        name = getattr(config, key)
        if key not in stored:
            raise CheckpointError(_one_line(
                f"cannot resume: {where} carries no digest of the words of {name} (written before runs kept one), "
                f"so the words cannot be checked: start again with --force"))
        if stored[key] != digest:
            raise CheckpointError(_one_line(
                f"cannot resume: the words of {name} are not those the run started with (digest {digest[:19]}..., "
                f"the checkpoint's {str(stored[key])[:19]}...): put the file back, or start again with --force"))


class RunFiles:
    """A run directory, read only (no lock, nothing written): its config, automaton, metrics,
    checkpoint and result.  :class:`RunDir` is the writer; :func:`load_run` reads a finished run.

    CheckpointError when ``path`` is not a run directory (no readable ``config.json``).
    """

    def __init__(self, path, config: TrainConfig | None = None):
        self.path = Path(path)
        if config is None:
            if not self.path.is_dir():
                raise CheckpointError(f"run directory {self.path} does not exist")
            config = load_config(self.path)
        self.config = config

    def automaton(self):
        """The run's automaton: the copy in ``automaton.json`` when there is one, else SPEC's."""
        from bilinear.automata import from_spec, read_automaton

        copy = self.path / AUTOMATON_FILE
        return read_automaton(copy) if copy.is_file() else from_spec(self.config.spec)

    @property
    def finished(self) -> bool:
        """True when ``result.json`` exists."""
        return (self.path / RESULT_FILE).is_file()

    def result(self) -> dict:
        """The stored result (CheckpointError when unfinished or corrupt)."""
        path = self.path / RESULT_FILE
        if not path.is_file():
            raise CheckpointError(f"{path} is missing: the run in {self.path} has not finished")
        return check_result(_read_run_json(path, "run result"), path)

    def metrics(self) -> list[dict]:
        """Every complete metric record (a torn last line is ignored); CheckpointError for a
        line that is not a record with an integer ``step`` or steps out of order."""
        path = self.path / METRICS_FILE
        if not path.is_file():
            return []
        data = read_file_bytes(path, CheckpointError, what="metrics file", max_bytes=MAX_METRICS_BYTES)
        lines = data.decode("utf-8", errors="replace").splitlines()
        out: list[dict] = []
        for i, line in enumerate(lines, 1):
            try:
                record = json.loads(line)
            except (ValueError, RecursionError):  # RecursionError: nested past the parser's stack
                if i == len(lines):  # torn by a kill in the middle of a write
                    break
                raise CheckpointError(f"{path} line {i} is not JSON") from None
            step = record.get("step") if isinstance(record, dict) else None
            if isinstance(step, bool) or not isinstance(step, int) or step < 1:
                raise CheckpointError(f"{path} line {i} is not a metric record with a positive integer step")
            if out and step <= out[-1]["step"]:
                raise CheckpointError(f"{path} line {i}: step {step} is out of order (after {out[-1]['step']})")
            out.append(record)
        return out

    def checkpoint(self) -> dict | None:
        """The checked checkpoint state (None when there is none yet); CheckpointError when it is
        corrupt, of another format or of another run (:func:`check_checkpoint`)."""
        path = self.path / CHECKPOINT_FILE
        if not path.is_file():
            return None
        state = _load_tensors(path, "checkpoint")
        check_checkpoint(state, self.config, where=f"checkpoint {path}")
        return state


class RunDir(RunFiles):
    """A run directory (see the module docstring), locked while this object writes it.

    ``resume=False`` needs ``path`` to be absent or empty (``force=True``: emptied first) and
    writes ``config.json``; ``resume=True`` needs ``config.json`` equal to ``config`` (or takes it
    when ``config`` is None).  A folder the run left before its first checkpoint (a config, some
    metric lines, or nothing) restarts from scratch (``restarted`` is then True).  Orphan
    temporary files of killed writers are removed.  The folder's lock (:class:`FolderLock`) is
    held until :meth:`close`; a second writer fails at once naming the holder's process id.
    """

    def __init__(self, path, config: TrainConfig | None = None, resume: bool = False, force: bool = False):
        self.path = Path(path)
        self.restarted = False
        self._lock = FolderLock(self.path, what="run folder")
        if resume:
            self._open_existing(config)
        else:
            self._create(config, force)

    def _create(self, config: TrainConfig | None, force: bool) -> None:
        if config is None:
            raise ConfigError("a new run directory needs a config")
        prepare_output_dir(self.path, force=force, what="run folder")
        self._lock.acquire()
        if any(p.name != LOCK_FILE for p in self.path.iterdir()):  # another writer got here first
            self.close()
            raise CheckpointError(f"run folder {self.path} was written by another process meanwhile")
        self.config = config
        automaton = _file_automaton(config.spec)
        if automaton is not None:  # a run on an automaton file keeps its own copy
            from bilinear.automata.fileformat import write

            write(automaton, self.path / AUTOMATON_FILE)
        _write_json(self.path / CONFIG_FILE, config.to_dict())

    def _open_existing(self, config: TrainConfig | None) -> None:
        if not self.path.is_dir():
            raise CheckpointError(f"cannot resume: run directory {self.path} does not exist")
        self._lock.acquire()
        try:
            self._remove_orphans()
            if not (self.path / CONFIG_FILE).exists() and config is not None and not self._leftovers():
                self.restarted = True  # killed before config.json was written
                self.config = config
                _write_json(self.path / CONFIG_FILE, config.to_dict())
                return
            stored = load_config(self.path)
            if config is not None and config != stored:
                diff = [k for k in TrainConfig.field_names() if getattr(config, k) != getattr(stored, k)]
                raise ConfigError(
                    f"cannot resume {self.path}: the config differs from the stored one in {', '.join(diff)}"
                )
            self.config = stored if config is None else stored.replace(log=config.log)  # this call's loggers
            if not self.finished and not (self.path / CHECKPOINT_FILE).is_file():
                self.restarted = True  # killed before the first checkpoint: start from scratch
                for name in (METRICS_FILE, MODEL_FILE):
                    (self.path / name).unlink(missing_ok=True)
        except BaseException:
            self.close()
            raise

    def _leftovers(self) -> list[str]:
        return [p.name for p in self.path.iterdir() if p.name != LOCK_FILE]

    def _remove_orphans(self) -> None:
        """Remove ``.<file>.*.tmp`` left by a writer killed inside an atomic write."""
        names = (CONFIG_FILE, AUTOMATON_FILE, METRICS_FILE, CHECKPOINT_FILE, MODEL_FILE, RESULT_FILE)
        for p in self.path.glob(".*.tmp"):
            if any(p.name.startswith(f".{n}.") for n in names):
                p.unlink(missing_ok=True)

    def close(self) -> None:
        """Release the folder's lock (idempotent)."""
        self._lock.release()

    def __enter__(self) -> "RunDir":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self) -> None:
        lock = getattr(self, "_lock", None)
        if lock is not None:
            lock.release()

    # --- metrics ----------------------------------------------------------------------------
    def log(self, record: dict) -> None:
        """Append one JSON line to ``metrics.jsonl`` (and to the loggers of ``config.log``)."""
        path = self.path / METRICS_FILE
        try:
            with open(path, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(record, sort_keys=True) + "\n")
        except OSError as exc:  # a full disk fails the write with no file name: name it
            if exc.filename is not None or exc.errno is None:
                raise
            raise type(exc)(exc.errno, exc.strerror, str(path)) from None
        for logger in self.loggers():
            logger.log(record)

    def loggers(self) -> list:
        """The loggers of ``config.log`` (learned/loggers.py), opened once (ExtraMissingError
        when one's extra is not installed)."""
        if getattr(self, "_opened_loggers", None) is None:
            from .loggers import open_loggers

            self._opened_loggers = open_loggers(self.config, self.path)
        return self._opened_loggers

    def _truncate_metrics(self, step: int) -> None:
        kept = [r for r in self.metrics() if r["step"] <= step]
        text = "".join(json.dumps(r, sort_keys=True) + "\n" for r in kept)
        atomic_write(self.path / METRICS_FILE, lambda fh: fh.write(text.encode()))

    # --- checkpoints --------------------------------------------------------------------------
    def save_checkpoint(self, state: dict) -> None:
        """Write ``checkpoint.pt`` atomically (``state``: :func:`checkpoint_state`)."""
        _save_tensors(self.path / CHECKPOINT_FILE, state)

    def load_checkpoint(self, data_digest: dict | None = None) -> dict | None:
        """The checkpoint state (None when there is none yet); CheckpointError when corrupt, of
        another format or of another run, or (``data_digest``) of other words
        (:func:`check_data_digest`).  Then truncates the metrics to the checkpoint's step."""
        state = self.checkpoint()
        if state is not None:
            check_data_digest(state, data_digest or {}, self.config, f"checkpoint {self.path / CHECKPOINT_FILE}")
            self._truncate_metrics(state["step"])
        return state

    def restore(self, state: dict, model, optimizer) -> tuple[int, int, bool]:
        """Load a checked checkpoint ``state`` into ``model`` and ``optimizer`` (and the torch RNG);
        returns ``(step, streak, stopped_early)``.  CheckpointError when the contents do not fit."""
        import torch

        where = f"checkpoint {self.path / CHECKPOINT_FILE}"
        _check_fits(model, state.get("model") if isinstance(state, dict) else None, f"{where} does not fit the model")
        try:
            model.load_state_dict(state["model"])
        except Exception:  # past the names and shapes checked above: a tensor torch cannot copy
            raise CheckpointError(f"{where} does not fit the model: its tensors cannot be loaded into it") from None
        try:
            optimizer.load_state_dict(state["optimizer"])
        except Exception:  # a malformed optimizer state (its groups or their sizes)
            raise CheckpointError(f"{where}: its optimizer state does not fit the model's parameters") from None
        _check_optimizer(optimizer, where)
        if "torch_rng" in state:  # nothing in training draws from it today; kept for exactness
            try:
                torch.set_rng_state(state["torch_rng"])
            except Exception as exc:
                raise CheckpointError(_one_line(f"{where} has a bad RNG state: {exc}")) from None
        return state["step"], state["streak"], bool(state.get("stopped_early", False))

    def finish(self, model, result: dict) -> None:
        """Write ``model.pt`` then ``result.json`` (last: it marks the run finished)."""
        _save_tensors(self.path / MODEL_FILE, model.state_dict())
        _write_json(self.path / RESULT_FILE, result)
        for logger in self.loggers():
            logger.finish(result)
        self._opened_loggers = []


def _file_automaton(spec: str):
    """The automaton of SPEC when it is an automaton file (to copy into the run), else None."""
    from bilinear.automata.families import is_automaton_file, resolve

    return resolve(spec) if is_automaton_file(spec) else None


def _save_tensors(path: Path, state) -> None:
    """``torch.save`` atomically; torch's RuntimeError of a failed write (a full disk) becomes
    the OSError it stands for, naming the file (no partial file is left: atomic_write)."""
    import errno

    import torch

    def write(fh):
        try:
            torch.save(state, fh)
        except RuntimeError as exc:
            if "write" not in str(exc).lower():
                raise
            raise OSError(errno.EIO, f"writing failed ({_one_line(str(exc), 120)}); is the disk full?",
                          str(path)) from None

    atomic_write(path, write)


#: Why a file torch cannot load is refused, in the toolkit's words: torch's own text names its zip reader's
#: internals ("PytorchStreamReader ... internal miniz error") and is cut off mid-sentence in one line.
_NOT_TORCH = "not a readable torch file (truncated, or not a torch zip archive)"


def _load_tensors(path: Path, what: str):
    """``torch.load(path, weights_only=True)``; CheckpointError naming the file otherwise.  A
    file holding pickled Python objects is refused as such (never with torch's advice to retry
    with ``weights_only=False``, which would run the file's code)."""
    import pickle

    import torch

    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as exc:
        if ("weights_only" in str(exc) or "Weights only load failed" in str(exc)) and _pickle_or_zip(path):
            raise CheckpointError(
                f"{what} {path} holds pickled Python objects, not only tensors, and was not loaded "
                "(loading it fully could run code it carries; the files this toolkit writes hold tensors only)"
            ) from None
        raise CheckpointError(f"{what} {path} is corrupt: {_NOT_TORCH}") from None
    except OSError as exc:
        raise CheckpointError(f"{what} {path} cannot be read ({exc.strerror or type(exc).__name__})") from None
    except Exception:  # torch raises many kinds for a damaged file (RuntimeError, EOFError, KeyError, ...)
        raise CheckpointError(f"{what} {path} is corrupt: {_NOT_TORCH}") from None
    _check_storage(state, f"{what} {path}")
    return state


def _pickle_or_zip(path: str | Path) -> bool:
    """Whether ``path`` begins as a pickle (its protocol opcode, 0x80) or a zip archive (``PK``): torch's
    weights-only refusal then is of objects in it; of any other file (text: "Unsupported operand 110") it
    only says the file is no pickle at all."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(2)
    except OSError:
        return False
    return head[:1] == b"\x80" or head == b"PK"


def _check_storage(value, where: str, depth: int = 0) -> None:
    """CheckpointError for a tensor whose elements do not each have their own bytes in its
    storage (a stride-0 view: 10 kB on disk, 400 GB once any check or copy touches it),
    before anything reads the tensors; containers are walked (at most 16 levels)."""
    import torch

    if depth > 16:
        raise CheckpointError(f"{where}: nested deeper than 16 levels")
    if isinstance(value, torch.Tensor):
        need = value.numel() * value.element_size()
        have = value.untyped_storage().nbytes() - value.storage_offset() * value.element_size()
        if need > have or any(st == 0 and n > 1 for st, n in zip(value.stride(), value.shape)):
            raise CheckpointError(_one_line(
                f"{where}: a tensor of shape {tuple(value.shape)} (strides {tuple(value.stride())}) has "
                f"{need:,} bytes of elements in a storage of {max(have, 0):,} bytes: not a saved parameter, not read"))
    elif isinstance(value, dict):
        for item in value.values():
            _check_storage(item, where, depth + 1)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _check_storage(item, where, depth + 1)


def _one_line(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def check_checkpoint(state, config: TrainConfig, where: str = "checkpoint") -> None:
    """CheckpointError unless ``state`` is a checkpoint of a run of ``config``: the keys, the
    format :data:`CHECKPOINT_FORMAT`, the stored config equal to ``config``, a step within
    ``0..config.steps``, a streak within ``0..step``, finite weights and a torch RNG state."""
    import torch

    keys = {"step", "streak", "model", "optimizer"}
    if not isinstance(state, dict) or not keys <= set(state):
        raise CheckpointError(f"{where} is incomplete (needs {', '.join(sorted(keys))})")
    fmt = state.get("format")
    if fmt != CHECKPOINT_FORMAT:
        raise CheckpointError(_one_line(
            f"{where} has format {fmt!r}; this version reads format {CHECKPOINT_FORMAT} (a checkpoint that carries "
            f"its config): replace the run with --force"))
    if "config" not in state:
        raise CheckpointError(f"{where} is incomplete: it carries no config")
    try:
        stored = TrainConfig.from_dict(state["config"], where=f"{where} config")
    except BilinearError as exc:
        raise CheckpointError(_one_line(f"{where} carries an invalid config: {exc}")) from None
    if stored != config:
        diff = [k for k in TrainConfig.field_names() if getattr(stored, k) != getattr(config, k)]
        raise CheckpointError(_one_line(f"{where} belongs to another run: its config differs in {', '.join(diff)}"))
    step, streak = state["step"], state["streak"]
    if not _is_int(step) or not 0 <= step <= config.steps:
        raise CheckpointError(_one_line(f"{where}: step {step!r} is not an integer in 0..{config.steps}"))
    if not _is_int(streak) or not 0 <= streak <= step:
        raise CheckpointError(_one_line(f"{where}: streak {streak!r} is not an integer in 0..{step}"))
    if not isinstance(state.get("stopped_early", False), bool):
        raise CheckpointError(f"{where}: stopped_early is not true or false")
    model, optimizer = state["model"], state["optimizer"]
    if not isinstance(model, dict) or not all(isinstance(v, torch.Tensor) for v in model.values()):
        raise CheckpointError(f"{where}: the model state is not a table of tensors")
    bad = [k for k, v in model.items() if v.is_floating_point() and not bool(torch.isfinite(v).all())]
    if bad:
        raise CheckpointError(f"{where}: the weights {', '.join(bad[:3])} are not finite (the run diverged)")
    if not isinstance(optimizer, dict) or not isinstance(optimizer.get("param_groups"), list):
        raise CheckpointError(f"{where}: the optimizer state is malformed")
    rng = state.get("torch_rng")
    if rng is not None and (not isinstance(rng, torch.Tensor) or rng.dtype != torch.uint8 or rng.dim() != 1):
        raise CheckpointError(f"{where}: the torch RNG state is not a byte tensor")


def _check_optimizer(optimizer, where: str) -> None:
    """Every moment buffer has its parameter's shape and is finite; every learning rate positive."""
    import torch

    for group in optimizer.param_groups:
        lr = group.get("lr")
        if not isinstance(lr, (int, float)) or isinstance(lr, bool) or not 0 < lr < float("inf"):
            raise CheckpointError(f"{where}: the optimizer's learning rate {lr!r} is not a positive number")
        for p in group["params"]:
            for name, value in optimizer.state.get(p, {}).items():
                if not isinstance(value, torch.Tensor):
                    raise CheckpointError(f"{where}: optimizer buffer {name!r} is not a tensor")
                if value.dim() and value.shape != p.shape:
                    raise CheckpointError(
                        f"{where}: optimizer buffer {name!r} has shape {tuple(value.shape)}, not {tuple(p.shape)}"
                    )
                if value.is_floating_point() and not bool(torch.isfinite(value).all()):
                    raise CheckpointError(f"{where}: optimizer buffer {name!r} is not finite")


def _check_fits(model, state, where: str) -> None:
    """CheckpointError ``where: ...`` naming the first tensor of ``state`` the model lacks, the
    first the model needs that is missing, or the first of another shape, in the toolkit's words
    (torch's own message lists every key in one paragraph)."""
    if not isinstance(state, dict):
        raise CheckpointError(f"{where}: it holds a {type(state).__name__}, not a state dict")
    own = model.state_dict()
    extra = next((k for k in state if k not in own), None)
    if extra is not None:
        raise CheckpointError(f"{where}: it has the tensor {str(extra)[:80]!r}, which the model has not")
    missing = next((k for k in own if k not in state), None)
    if missing is not None:
        raise CheckpointError(f"{where}: the tensor {missing!r} is missing")
    for key, value in own.items():
        shape = tuple(getattr(state[key], "shape", ()))
        if shape != tuple(value.shape):
            raise CheckpointError(f"{where}: the tensor {key!r} has shape {shape}, the model's {tuple(value.shape)}")


def load_run(run_dir):
    """``(config, model, automaton, result)`` of a finished run; the model is in eval mode.

    CheckpointError when the directory is missing, unfinished (no ``result.json``) or corrupt.
    """
    from .registry import make_model

    run = RunFiles(run_dir)
    config, result = run.config, run.result()
    model_path = run.path / MODEL_FILE
    if not model_path.is_file():
        raise CheckpointError(f"{model_path} is missing")
    automaton = run.automaton()
    model = make_model(config, automaton)
    state = _load_tensors(model_path, "model")
    where = f"model {model_path} does not fit the run's {config.model} model"
    _check_fits(model, state, where)
    try:
        model.load_state_dict(state)
    except Exception:  # past the names and shapes checked above: a tensor torch cannot copy
        raise CheckpointError(f"{where}: its tensors cannot be loaded into it") from None
    model.eval()
    return config, model, automaton, result


def export_run(run_dir, path, force: bool = False) -> tuple[Path, dict]:
    """Write the float weights of the finished run in ``run_dir`` to ``path`` in the weights file
    format (docs/formats.md; signed, so ``bilinear verify SPEC --weights FILE`` loads it without
    ``--unsigned``); returns ``(path, facts)`` with the run's ``spec``, ``variant``, ``hidden`` and
    headline ``accuracy_at_length`` / ``test_length``.

    An existing ``path`` is refused unless ``force`` (:func:`bilinear.fileio.check_output_file`),
    and a ``path`` inside ``run_dir`` always (:func:`bilinear.fileio.check_apart`), both checked
    before the run is loaded.  CheckpointError for a missing or unfinished run;
    ConfigError for a model with no transition matrices (a baseline, the additive ablation).
    """
    from bilinear.fileio import check_apart, check_output_file
    from bilinear.metrics import AT_LENGTH, TEST_LENGTH, upgrade_result

    target = check_output_file(path, force=force, what="weights file")
    check_apart(target, [run_dir], what="weights file")  # RUN/model.pt --force would lose the run
    config, model, automaton, result = load_run(run_dir)
    weights = model.to_weights()  # ConfigError for a baseline or the additive ablation
    weights.save(target)
    result = upgrade_result(result) if isinstance(result, dict) else {}
    facts = {"spec": config.spec, "variant": weights.variant, "hidden": weights.dim,
             AT_LENGTH: result.get(AT_LENGTH), TEST_LENGTH: result.get(TEST_LENGTH)}
    return target, facts
