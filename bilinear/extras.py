"""Optional extras: import a module that an optional feature needs, or say how to install it.

>>> require("json", "test", "reading JSON").__name__
'json'
>>> require("no_such_module_here", "parquet", "parquet files")
Traceback (most recent call last):
...
bilinear.errors.ExtraMissingError: parquet files need no_such_module_here, which is not installed: pip install 'bilinear[parquet]'
"""

from __future__ import annotations

import importlib

from .errors import ExtraMissingError

__all__ = ["require"]


def require(module: str, extra: str, purpose: str):
    """The imported ``module``; :class:`ExtraMissingError` naming ``extra`` when it is missing."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise ExtraMissingError(
            f"{purpose} need {module}, which is not installed: pip install 'bilinear[{extra}]'"
        ) from None
