"""Metric loggers beside ``metrics.jsonl``: TensorBoard and Weights & Biases (offline).

``--log tensorboard`` (``train``, ``sweep``, ``reproduce``; optional extra ``tensorboard``) writes
TensorBoard event files to ``RUN_DIR/tensorboard/``; ``--log wandb`` (extra ``wandb``) writes an
offline Weights & Biases run to ``RUN_DIR/wandb/`` (``wandb sync`` uploads it later; nothing is
sent while training).  ``--log tensorboard,wandb`` does both.  Every evaluation record of
``metrics.jsonl`` is logged at its ``step`` (its numbers only), and at the end the numbers of the
result (``result/...`` in TensorBoard, the run summary in W&B).  ``metrics.jsonl`` stays the
record the toolkit reads; the loggers are for the dashboards people already use.

>>> parse_log("tensorboard, wandb"), parse_log(None)
(('tensorboard', 'wandb'), ())
>>> parse_log("mlflow")
Traceback (most recent call last):
...
bilinear.errors.ConfigError: unknown logger 'mlflow' in log (known: tensorboard, wandb)
"""

from __future__ import annotations

import numbers
from pathlib import Path

from bilinear.errors import ConfigError
from bilinear.extras import require

__all__ = ["LOGGERS", "parse_log", "check_loggers", "open_loggers", "TensorBoardLogger", "WandbLogger"]

#: The loggers ``--log`` knows, each with the optional extra it needs.
LOGGERS = {"tensorboard": "tensorboard", "wandb": "wandb"}


def parse_log(text) -> tuple[str, ...]:
    """The loggers named by a comma-separated ``log`` value (None or empty: none)."""
    if text is None or not str(text).strip():
        return ()
    names = tuple(part.strip().lower() for part in str(text).split(","))
    for name in names:
        if name not in LOGGERS:
            raise ConfigError(f"unknown logger {name!r} in log (known: {', '.join(LOGGERS)})")
    if len(set(names)) != len(names):
        raise ConfigError(f"a logger is named twice in log {text!r}")
    return names


def check_loggers(text) -> tuple[str, ...]:
    """The loggers of ``text`` (:func:`parse_log`), each one's extra imported: ExtraMissingError
    before any work when one is not installed."""
    names = parse_log(text)
    for name in names:
        require(name, LOGGERS[name], f"--log {name}")
    return names


def _numbers(record: dict) -> dict:
    """The finite numeric entries of ``record`` (booleans as 0/1), without ``step``."""
    out: dict[str, float] = {}
    for key, value in record.items():
        if key == "step" or value is None:
            continue
        if isinstance(value, bool):
            out[key] = int(value)
        elif isinstance(value, numbers.Real) and value == value and abs(value) != float("inf"):
            out[key] = float(value)
    return out


class TensorBoardLogger:
    """TensorBoard event files in ``RUN_DIR/tensorboard`` (torch's ``SummaryWriter``)."""

    def __init__(self, run_dir: Path, config) -> None:
        require("tensorboard", "tensorboard", "--log tensorboard")
        from torch.utils.tensorboard import SummaryWriter

        self.writer = SummaryWriter(log_dir=str(Path(run_dir) / "tensorboard"))
        self.writer.add_text("config", "\n".join(f"    {k} = {v!r}" for k, v in config.to_dict().items()))

    def log(self, record: dict) -> None:
        for key, value in _numbers(record).items():
            self.writer.add_scalar(key, value, int(record.get("step", 0)))
        self.writer.flush()

    def finish(self, result: dict) -> None:
        step = int(result.get("steps", 0))
        for key, value in _numbers(result).items():
            self.writer.add_scalar(f"result/{key}", value, step)
        self.close()

    def close(self) -> None:
        self.writer.close()


class WandbLogger:
    """An offline Weights & Biases run in ``RUN_DIR/wandb`` (``mode="offline"``: nothing is sent)."""

    def __init__(self, run_dir: Path, config) -> None:
        wandb = require("wandb", "wandb", "--log wandb")
        self.run = wandb.init(mode="offline", dir=str(run_dir), project="bilinear", name=Path(run_dir).name,
                              config=config.to_dict(), reinit=True)

    def log(self, record: dict) -> None:
        self.run.log(_numbers(record), step=int(record.get("step", 0)))

    def finish(self, result: dict) -> None:
        self.run.summary.update(_numbers(result))
        self.close()

    def close(self) -> None:
        self.run.finish()


_CLASSES = {"tensorboard": TensorBoardLogger, "wandb": WandbLogger}


def open_loggers(config, run_dir) -> list:
    """The loggers ``config.log`` names, writing into ``run_dir`` (ExtraMissingError naming the
    extra when one is not installed)."""
    return [_CLASSES[name](Path(run_dir), config) for name in parse_log(getattr(config, "log", None))]
