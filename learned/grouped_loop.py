"""The no-grad grouped loop of the sequential scan, compiled once with TorchScript.

:func:`grouped_no_grad` is the evaluation loop of :func:`bilinear.learned.scan.sequential_scan`
for dense and block transitions without autograd: the batch rows grouped by token at every step
(the plan of :class:`bilinear.learned.scan.GroupPlan`), one GEMM per symbol (``bmm`` over the
blocks for block transitions) written into preallocated buffers, the deferred renormalisation and
the readout ``R @ H^T`` once per block of steps.  The function is written in the subset of Python
that TorchScript compiles, and it runs either way:

* **compiled** (:func:`loop`, the default): the loop's 20-30 operations per step are dispatched
  from TorchScript's interpreter instead of Python's, which saves their argument parsing and the
  interpreter's own work.  Measured at d = 64, B = 256, length 500, one thread, CPU time,
  interleaved with the same function run by Python, the whole evaluation: 38.5-39.3 against
  46.2-47.1 us per step with ten symbols (27% against 22-23% of the machine's sgemm), 25.4-25.8
  against 27.9-28.6 with two (benchmarks/SPEED.md, "Evaluation at d = 64: the loop in TorchScript").
* **by Python**, the same source: when TorchScript is missing or refuses the function (no source
  files, a torch without ``torch.jit``, a change of its language), or when the environment sets
  ``BILINEAR_TORCHSCRIPT=0``.

Both run the same operations in the same order, so their results are the same bit for bit
(``tests/learned/test_grouped_loop.py`` checks it, and ``tests/learned/test_scan_bits.py`` checks
the compiled loop against a plain loop written in the tests).  ``torch.jit.script`` is deprecated in recent
torch releases in favour of ``torch.compile``, which on a CPU compiles C++ at run time and needs a
compiler; the deprecation warning is silenced here, and the Python fallback is what a torch
without TorchScript gets.
"""

from __future__ import annotations

# TorchScript reads the annotations below: it knows typing.List and Optional, not every newer form.
# ruff: noqa: UP006, UP045

import os
import warnings
from contextlib import contextmanager
from typing import Callable, Iterator, List, Optional, Tuple

import torch

#: Set to ``0`` to run the loop by Python instead of TorchScript (the results are the same bit
#: for bit; only the speed changes).
ENVIRONMENT = "BILINEAR_TORCHSCRIPT"

def _unit_rows(u: torch.Tensor, norm: torch.Tensor) -> None:
    """Divide the rows of ``u`` by their norms in place, the norms (clamped at 1e-30, the scan's tiny)
    written into ``norm`` (rows, 1); complex rows as their real pairs (``scan._unit_rows_``)."""
    r = torch.view_as_real(u).flatten(-2) if u.is_complex() else u
    torch.linalg.vector_norm(r, 2.0, [-1], True, out=norm).clamp_min_(1e-30)  # scan._TINY (TorchScript takes no float globals)
    r.div_(norm)


def _run(h0: torch.Tensor, carry: torch.Tensor, scratch: torch.Tensor, slots: List[torch.Tensor],
         mats: List[torch.Tensor], blocks: int, counts: List[List[int]], relink: List[torch.Tensor],
         add: Optional[torch.Tensor], tokens: List[torch.Tensor], norm: torch.Tensor, first: int, last: int,
         per_step: bool) -> None:
    """Steps ``first .. last`` (inclusive): the rows of step t-1 (``carry`` at the block's first
    step) put in step t's order by one ``index_select``, one product per symbol written into the
    step's slot, the additive rows, and with ``per_step`` the renormalisation."""
    batch, hidden = scratch.shape[0], scratch.shape[1]
    K = len(slots)
    for t in range(first, last + 1):
        if t == 0:
            src = h0.expand(batch, hidden)
        else:
            prev = carry if t == first else slots[(t - 1) % K]
            torch.index_select(prev, 0, relink[t], out=scratch)
            src = scratch
        out = slots[t % K]
        c = counts[t]
        rows = src.split_with_sizes(c)
        dst = out.split_with_sizes(c)
        for s in range(len(mats)):
            n = c[s]
            if n > 0:
                if blocks == 0:  # dense: one GEMM with the contiguous transposed matrix
                    torch.mm(rows[s], mats[s], out=dst[s])
                else:  # block-diagonal: one bmm over the blocks (blocks, rows, b) x (blocks, b, b)
                    b = hidden // blocks
                    prod = torch.bmm(rows[s].reshape(n, blocks, b).transpose(0, 1), mats[s])
                    dst[s].copy_(prod.transpose(0, 1).reshape(n, hidden))
        if add is not None:
            out.add_(add.index_select(0, tokens[t]))
        if per_step:
            _unit_rows(out, norm)


def grouped_no_grad(h0: torch.Tensor, mats: List[torch.Tensor], blocks: int, counts: List[List[int]],
                    relink: torch.Tensor, add: Optional[torch.Tensor], sorted_tokens: torch.Tensor,
                    readout: Optional[torch.Tensor],
                    block: int, normalize: bool, deferred: bool, low: float, high: float) -> torch.Tensor:
    """The grouped loop without autograd, in sorted row order (``scan._grouped_no_grad`` prepares
    the arguments and documents the deferred renormalisation).

    ``mats``: per symbol, the contiguous transposed matrix (hidden, hidden) when ``blocks == 0``,
    else the transposed blocks (blocks, b, b); ``counts`` and ``relink`` (time, batch): the plan;
    ``add`` (symbols, hidden): the additive term or None, with ``sorted_tokens`` (time, batch),
    each step's tokens in sorted order (any (time, 0) tensor without it); ``readout``
    (classes, hidden) or None.  The result: the logits transposed, (classes, time x batch), with a
    readout, else the states (time, batch, hidden); rows in each step's sorted order."""
    time, batch = relink.shape[0], relink.shape[1]
    hidden = h0.shape[0]
    block = min(time, block)
    R = readout
    K = time if R is None else block
    H = h0.new_empty([K, batch, hidden])
    classes = 1 if R is None else R.shape[0]
    # the logits transposed, (classes, time x batch): ``R @ H^T`` is about three times faster in
    # MKL than ``H @ R^T`` for an output 2-10 wide (it rounds differently in the last bits, so
    # evaluation is not bit-identical to the autograd forward: docs/training.md)
    YT = h0.new_empty([classes, time * batch if R is not None else 0])
    scratch = h0.new_empty([batch, hidden])
    carry = h0.new_empty([batch, hidden])  # the state carried into a block, renormalised
    norm = h0.new_zeros([batch, 1]).abs()  # real, also for complex states (their norms)
    slots = list(H.unbind(0))  # lists (TorchScript's unbind gives one; Python's, a tuple)
    links = list(relink.unbind(0))
    tokens = list(sorted_tokens.unbind(0))
    for first in range(0, time, block):
        last = min(first + block, time) - 1
        n = last - first + 1
        states = H[first % K : first % K + n]  # (n, batch, hidden)
        _run(h0, carry, scratch, slots, mats, blocks, counts, links, add, tokens, norm, first, last,
             normalize and not deferred)
        norms: Optional[torch.Tensor] = None
        if deferred:
            block_norms = torch.linalg.vector_norm(states, 2.0, [2])  # (n, batch)
            smallest, largest = torch.aminmax(block_norms)
            if bool(smallest >= low) and bool(largest <= high):  # NaN fails both
                norms = block_norms
            else:  # again from the carried state, renormalised at every step
                _run(h0, carry, scratch, slots, mats, blocks, counts, links, add, tokens, norm, first, last, True)
        if R is None:
            if norms is not None:
                states.div_(norms.unsqueeze(2))
            if last + 1 < time:
                carry.copy_(states[-1])
        else:
            if last + 1 < time:
                if norms is None:
                    carry.copy_(states[-1])
                else:
                    torch.div(states[-1], norms[-1].unsqueeze(1), out=carry)
            logits = YT[:, first * batch : (last + 1) * batch]
            torch.mm(R, states.reshape(n * batch, hidden).t(), out=logits)
            if norms is not None:
                logits.div_(norms.reshape(1, n * batch))
    if R is None:
        return H
    return YT


_COMPILED: List[Tuple[Callable[..., torch.Tensor], str]] = []

#: Set while :func:`by_python` is in force (a depth, so that the blocks nest).
_BY_PYTHON: List[int] = [0]


def _compile() -> Tuple[Callable[..., torch.Tensor], str]:
    """The compiled loop and ``"torchscript"``, or the Python function and the reason it runs."""
    if os.environ.get(ENVIRONMENT, "1").strip() == "0":
        return grouped_no_grad, f"python ({ENVIRONMENT}=0)"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch.jit.script's deprecation notice
            return torch.jit.script(grouped_no_grad), "torchscript"
    except Exception as exc:  # no source, no torch.jit, a language change: the same loop by Python
        return grouped_no_grad, f"python (TorchScript refused it: {type(exc).__name__})"


def loop() -> Callable[..., torch.Tensor]:
    """:func:`grouped_no_grad`, compiled by TorchScript on the first call when it can be (the
    compiled function is kept for the process), else the Python function itself."""
    if _BY_PYTHON[0]:
        return grouped_no_grad
    if not _COMPILED:
        _COMPILED.append(_compile())
    return _COMPILED[0][0]


def backend() -> str:
    """How :func:`loop` runs: ``"torchscript"``, or ``"python (why)"``."""
    if _BY_PYTHON[0]:
        return "python (by_python)"
    loop()
    return _COMPILED[0][1]


@contextmanager
def by_python() -> Iterator[None]:
    """Within the block, :func:`loop` is the Python function (to time or test the two side by
    side; the results are the same bit for bit)."""
    _BY_PYTHON[0] += 1
    try:
        yield
    finally:
        _BY_PYTHON[0] -= 1
