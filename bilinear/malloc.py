"""Keep freed multi-MB buffers in the process instead of handing them back to the kernel.

glibc's ``malloc`` serves a request over its mmap threshold (128 KiB at start, raised on the fly
up to 32 MiB) with a fresh ``mmap`` and returns it with ``munmap`` when freed; the free memory at
the top of the heap is returned too once it passes the trim threshold.  Torch's CPU allocator asks
``malloc`` for every tensor, so a loop that allocates and frees the same few MB at every call (the
evaluation's logits and plan, a training step's states and gradients) takes a page fault on
every 4 KiB page it touches, at most calls.  Measured (one thread, ``bilinear.learned.scan``,
d = 64, ten symbols, 256 words of length 500): 2500-4200 faults and 4-8 ms of system time per
evaluation call of about 31 ms (benchmarks/SPEED.md, "Evaluation at d = 64"); after the first two
calls, with the thresholds raised, most calls fault nothing.

:func:`keep_freed_buffers` sets both thresholds once (``mallopt``), so that freed buffers stay in
the heap and are reused.  The command line (``bilinear``) and ``benchmarks/bench_train.py`` call
it; a library user may call it too.  Nothing changes where the C library has no ``mallopt`` or
refuses the values, or where the user has set the thresholds in the environment
(``MALLOC_MMAP_THRESHOLD_``, ``MALLOC_TRIM_THRESHOLD_``), which then stand.
"""

from __future__ import annotations

import ctypes
import os
import sys

#: ``mallopt`` parameters (glibc's malloc.h).
M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3

#: Requests up to this size are served from the heap (glibc's largest mmap threshold, 32 MiB on
#: 64-bit systems).
MMAP_THRESHOLD = 32 * 2**20

#: Free memory at the top of the heap kept before it is returned to the kernel.
TRIM_THRESHOLD = 512 * 2**20

_ENVIRONMENT = ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_")


def keep_freed_buffers() -> bool:
    """Raise glibc's mmap and trim thresholds (:data:`MMAP_THRESHOLD`, :data:`TRIM_THRESHOLD`) for
    this process; True when both were set, False where nothing was changed (not Linux, no
    ``mallopt``, or the thresholds already given in the environment)."""
    if not sys.platform.startswith("linux") or any(name in os.environ for name in _ENVIRONMENT):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD))
