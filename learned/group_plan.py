"""The group plan of the sequential scan: the rows of a batch sorted by token at every step, once
for all steps, so that a step is one GEMM per symbol (learned/scan.py)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

__all__ = ["GroupPlan"]


def _stable_order(tk: torch.Tensor, n_symbols: int) -> torch.Tensor:
    """Each row of tokens (time, batch) sorted stably by token: the indices (time, batch).  On
    CPU with at most 2^16 symbols this is numpy's stable sort of uint8 or uint16 keys, a radix
    sort (linear time), about ten times faster than ``torch.argsort(stable=True)`` (measured at
    500 x 256, ten symbols: 0.27 against 2.9 ms); elsewhere it is torch's.  A stable sort has
    one result, so both give the same indices."""
    if tk.device.type == "cpu" and n_symbols <= 2**16:
        keys = tk.numpy().astype(np.uint8 if n_symbols <= 2**8 else np.uint16)
        return torch.from_numpy(np.argsort(keys, axis=1, kind="stable").astype(np.int64, copy=False))
    return torch.argsort(tk, dim=1, stable=True)


@dataclass(frozen=True, eq=False)
class GroupPlan:
    """Rows grouped by token at every step, computed once for a batch of words.

    ``order[t]`` (time, batch): the stable sort of the rows by their token at step t;
    ``relink[t]``: where row j of step t's sorted order sits in step t-1's sorted order;
    ``inverse[t]``: where original row b sits in step t's sorted order; ``counts[t][s]``: rows
    with symbol s at step t; ``sorted_tokens`` (time, batch).
    """

    order: torch.Tensor
    relink: torch.Tensor
    inverse: torch.Tensor
    counts: list
    sorted_tokens: torch.Tensor

    @classmethod
    def build(cls, tokens: torch.Tensor, n_symbols: int) -> "GroupPlan":
        """Plan for tokens (batch, time).

        >>> p = GroupPlan.build(torch.tensor([[1, 0], [0, 0], [1, 1]]), 2)
        >>> p.order.tolist(), p.counts
        ([[1, 0, 2], [0, 1, 2]], [[1, 2], [2, 1]])
        """
        tk = tokens.T.contiguous()  # (time, batch)
        time, batch = tk.shape
        order = _stable_order(tk, n_symbols)  # (time, batch)
        # the inverse permutation by one scatter (a second argsort costs 30 times more)
        rows = torch.arange(batch, device=tk.device).expand(time, batch)
        inverse = torch.empty_like(order).scatter_(1, order, rows)  # (time, batch)
        relink = torch.zeros_like(order)
        if time > 1:
            relink[1:] = torch.gather(inverse[:-1], 1, order[1:])
        per_step = torch.zeros(time, n_symbols, dtype=torch.long, device=tk.device)
        counts = per_step.scatter_add_(1, tk, torch.ones_like(tk)).tolist()  # (time, symbols)
        sorted_tokens = torch.gather(tk, 1, order)
        return cls(order, relink, inverse, counts, sorted_tokens)

    def padded_slots(self) -> tuple:
        """Per step, the padded slot of each sorted row (:meth:`Dense._padded_step`): row j with
        symbol s goes to ``s * max(counts[t]) + j - (rows before symbol s)``.  Integer arithmetic
        for all steps in a few operations, where each step made its own in eight."""
        slots = self.__dict__.get("_slots")
        if slots is None:
            time, batch = self.sorted_tokens.shape
            n = torch.tensor(self.counts, device=self.sorted_tokens.device)  # (time, symbols)
            widest = n.max(1, keepdim=True).values
            starts = torch.cumsum(n, 1) - n
            rank = torch.arange(batch, device=n.device) - torch.gather(starts, 1, self.sorted_tokens)
            slots = (self.sorted_tokens * widest + rank).unbind(0)
            object.__setattr__(self, "_slots", slots)
        return slots

    def unsort(self, Y: torch.Tensor) -> torch.Tensor:
        """Rows of Y (time, batch, ...) from each step's sorted order back to the words' order,
        as (batch, time, ...): one ``index_select`` of whole rows over the flattened (time x
        batch) axis (a ``gather`` with the index expanded over the last axis costs 2-3 times
        more); a pure copy of values."""
        time, batch = self.inverse.shape
        return Y.reshape(time * batch, *Y.shape[2:]).index_select(0, self._flat()).view(Y.shape).transpose(0, 1)

    def unsort_columns(self, YT: torch.Tensor) -> torch.Tensor:
        """Logits stored transposed, (classes, time x batch) with the columns in each step's
        sorted order, as (batch, time, classes) in the words' order: one ``index_select`` of
        columns (contiguous rows of ``time x batch``), a pure copy of values."""
        time, batch = self.inverse.shape
        return YT.index_select(1, self._flat()).view(-1, time, batch).permute(2, 1, 0)

    def _flat(self) -> torch.Tensor:
        """The flattened (time x batch) position of each step's sorted row, made once."""
        flat = self.__dict__.get("_flat_index")
        if flat is None:
            time, batch = self.inverse.shape
            step = torch.arange(0, time * batch, batch, device=self.inverse.device).unsqueeze(1)
            flat = (self.inverse + step).reshape(-1)
            object.__setattr__(self, "_flat_index", flat)
        return flat
