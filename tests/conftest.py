"""Shared test configuration: Hypothesis profiles, one torch thread, numpy errors raised.

Profiles: ``dev`` (default, randomised) and ``ci`` (derandomised, used when ``CI`` is set).
Select one explicitly with ``HYPOTHESIS_PROFILE=dev|ci``.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "dev", max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "ci",
    max_examples=30,
    deadline=None,
    derandomize=True,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


@pytest.fixture(autouse=True)
def _numpy_errors_raise():
    """A division by zero, an overflow or an invalid operation (0/0, inf - inf) in numpy is a
    FloatingPointError in every test instead of a silent inf/nan; underflow to zero stays quiet
    (a renormalised run and a contracting direction underflow by design).  Code that expects one
    of these says so with its own ``np.errstate``."""
    import numpy as np

    with np.errstate(divide="raise", over="raise", invalid="raise", under="ignore"):
        yield


try:  # the machines are shared: one thread keeps the suite fair and predictable
    import torch

    torch.set_num_threads(1)
except ImportError:  # pragma: no cover
    pass


#: The address-space cap of :func:`capped_cli` (the hostile-input trials ran under 6 GB).
MEMORY_CAP = 6 * 1024**3


def _cap_memory() -> None:  # runs in the child, before it executes Python
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


@pytest.fixture
def capped_cli():
    """``run(*argv, timeout=60, cwd=None, env=None)``: ``bilinear ARGV`` in a subprocess whose
    address space is capped at :data:`MEMORY_CAP` (a refusal that comes after allocating fails such
    a test with a MemoryError traceback, not a one-line error), with one thread and the variables
    of ``env`` added; returns the CompletedProcess."""
    import subprocess
    import sys

    def run(*argv, timeout=60, cwd=None, env=None):
        code = "import sys; from bilinear.cli import main; sys.exit(main(sys.argv[1:]))"
        env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", **(env or {}))
        return subprocess.run([sys.executable, "-c", code, *map(str, argv)], capture_output=True, text=True,
                              timeout=timeout, cwd=cwd, env=env, preexec_fn=_cap_memory)

    return run


@pytest.fixture
def unwritable_folders(tmp_path) -> list[tuple[str, str, str]]:
    """``(folder, error, the path the error names)``: folders in which no process, root included,
    can create a file (root writes into a chmod 0555 folder, and CI runs as root): a file in place
    of the folder (the parent folders are made first: that fails), and sysfs, which refuses every
    new file (when the machine has it)."""
    (tmp_path / "afile").write_text("x")
    out = [(str(tmp_path / "afile"), "File exists", str(tmp_path / "afile"))]
    if os.path.isdir("/sys/kernel"):
        import tempfile

        try:
            fd, name = tempfile.mkstemp(dir="/sys/kernel")
        except PermissionError:
            out.append(("/sys/kernel", "Permission denied", "/sys/kernel/w.json"))
        except OSError:
            pass
        else:  # pragma: no cover - a machine whose sysfs takes files
            os.close(fd)
            os.unlink(name)
    return out
