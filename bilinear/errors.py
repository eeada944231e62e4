"""Every exception the toolkit raises on bad input.

All derive from :class:`BilinearError`, so a caller (and the command line) can catch one base
class.  Each also derives from the closest built-in exception (``ValueError``, ``KeyError`` ...)
so that generic handlers keep working.  Messages name the offending item.
"""

from __future__ import annotations


class BilinearError(Exception):
    """Base class of every error raised by :mod:`bilinear` on bad input."""


# --- automata -----------------------------------------------------------------------------
class AutomatonError(BilinearError, ValueError):
    """An automaton's definition is invalid (table, start state, labels, symbols)."""


class UnknownSymbolError(AutomatonError, KeyError):
    """A word contains a symbol the automaton does not have."""

    def __str__(self) -> str:  # KeyError would otherwise quote the message
        return str(self.args[0]) if self.args else ""


class SpecError(BilinearError, ValueError):
    """A spec string (family or variant) is unknown or malformed."""


class MonoidTooLargeError(BilinearError, MemoryError):
    """The transformation monoid has more elements than the requested limit."""


class DataError(BilinearError, ValueError):
    """Dataset sampling parameters are invalid (count, length range, seed)."""


# --- constructions ------------------------------------------------------------------------
class WeightsError(BilinearError, ValueError):
    """Weights have the wrong shape, type or class count, or a weights file is malformed."""


class ConformanceError(WeightsError):
    """Weights do not conform to their declared variant (the message names the entry)."""


class FieldError(BilinearError, ValueError):
    """Exact arithmetic across incompatible fields, or an element outside its field."""


class ConstructionError(BilinearError, ValueError):
    """No construction exists (or is known) for this family and variant."""


class ConstructionTooLargeError(ConstructionError, MemoryError):
    """A construction would pass the size limit (checked before its matrices are allocated; the
    message gives the estimate and the limit)."""


# --- learned ------------------------------------------------------------------------------
class ConfigError(BilinearError, ValueError):
    """A training, model or sweep configuration is invalid."""


class CheckpointError(BilinearError, OSError):
    """A checkpoint or run directory is missing, incomplete or corrupt."""


# --- analysis -----------------------------------------------------------------------------
class AnalysisError(BilinearError, ValueError):
    """Analysis inputs are inconsistent (symbol counts, tolerances, unfinished runs)."""


# --- shared -------------------------------------------------------------------------------
class MismatchError(WeightsError, AnalysisError):
    """Weights do not fit the automaton they are compared with (symbol or class count, type).

    Raised by :func:`bilinear.constructions.values.floatrun.check_compatible` for every room, so it is
    both a WeightsError (constructions) and an AnalysisError (analysis)."""


class OutputExistsError(BilinearError, FileExistsError):
    """A command would overwrite a non-empty folder or an existing file without ``--force``."""


class FolderLockedError(BilinearError, BlockingIOError):
    """Another process is writing the folder (a run or a sweep holds its lock)."""


class ExtraMissingError(BilinearError, ImportError):
    """An optional extra (``pip install 'bilinear[NAME]'``) that a feature needs is not installed."""
