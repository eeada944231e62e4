"""bilinear.malloc: freed multi-MB buffers stay in the process (no page faults on reuse)."""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys

import pytest

from bilinear.malloc import keep_freed_buffers

_GLIBC = sys.platform.startswith("linux") and hasattr(ctypes.CDLL(None), "gnu_get_libc_version")

# one evaluation of 256 words of length 500 at d = 64, ten symbols, four times; the minor page
# faults of the last call
_SCRIPT = """
import resource, sys, torch
from bilinear.malloc import keep_freed_buffers
from bilinear.learned.scan import Dense, sequential_scan
if sys.argv[1] == "keep":
    assert keep_freed_buffers()
torch.set_num_threads(1)
gen = torch.Generator().manual_seed(0)
A = torch.randn(10, 64, 64, generator=gen) / 8
R, h0 = torch.randn(10, 64, generator=gen), torch.randn(64, generator=gen)
words = torch.randint(0, 10, (256, 500), generator=gen)
with torch.no_grad():
    for _ in range(4):
        before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        sequential_scan(Dense(A), words, h0, normalize=True, readout=R)
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def _faults(mode: str) -> int:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}
    out = subprocess.run([sys.executable, "-c", _SCRIPT, mode], capture_output=True, text=True, env=env, check=True)
    return int(out.stdout.split()[-1])


@pytest.mark.skipif(not _GLIBC, reason="glibc's mallopt only")
def test_freed_buffers_are_reused_without_page_faults():
    """glibc alone returns the evaluation's buffers to the kernel and faults them back at every
    call (thousands of faults, measured 3000-4200); with the thresholds raised, none."""
    kept, default = _faults("keep"), _faults("default")
    assert kept < 50
    assert default > 10 * max(kept, 50)


def test_thresholds_in_the_environment_stand(monkeypatch):
    monkeypatch.setenv("MALLOC_MMAP_THRESHOLD_", "1048576")
    assert keep_freed_buffers() is False
