"""A certified length for a float model that has no snap: the reachable states carried as balls
(docs/theory.md, Theorem A8), the model's own head checked on every ball.

From ``S_0 = 0`` every word is run at once, level by level: a node is (automaton state, last token,
a ball per head that holds the float model's state); a step applies the token's transition in
ball arithmetic (its ``A`` and ``b`` themselves balls from the weights in the float format), on a
Frobenius ball per head (centre and radius: ``||A||_2`` scales the radius, so an isometry does not
inflate it as entry-wise balls do), and adds the format's rounding of the step; the head (:class:`~bilinear.analysis.external_head.HeadBalls`
with the format's rounding) must give the automaton's label with a positive margin.  Before it is
expanded a node's ball is widened by ``delta``; a new node whose ball lies inside a widened
ball already expanded with the same (automaton state, last token) is not expanded again: every
state it holds is a state that ball holds, whose successors are checked.  When no node is left
the float model is right on every word of every length; a negative margin stops the search there.

The search is bounded (docs/limits.md): a level of more than ``max_nodes`` nodes, a level that would
take the steps (one token applied to one node and the head checked) past ``max_steps`` in all, or
the time budget stop it, and the levels completed are the certified length, never more.  An
isometry (a reflection with beta = 2) never lets a ball fit inside an earlier one (every step adds
``delta`` and the rounding to the radius), so such a search stops only at these bounds.  The test
"inside an earlier ball" reads a float copy of every ball kept first and checks in ball arithmetic
only the few that can hold the new one, so a level costs the same at depth 10 and 10,000.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import flint
import numpy as np

from bilinear.constructions.exact.balls import frob, op_norm

from .external_head import HeadBalls, Rounding, affine_balls, margin, step_rounding

__all__ = ["ball_horizon", "MAX_NODES", "MAX_STEPS"]

#: The most nodes of one level (then the levels completed are the certified length).
MAX_NODES = 2000
#: The most steps of one search in all (a step: one token applied to one node's balls and the head
#: checked there, about 1.3 ms for a head of 4 x 4); a level that would pass it is not started, and
#: the levels completed are the certified length.
MAX_STEPS = 8000
_SQUARINGS = 10  # op_norm's bound of ||A||_2 is at most dk^(2^-11) times too large


def _step_rounding(r: Rounding, norm: flint.arb, inp: dict, i: int, K: int, dk: int, dv: int) -> flint.arb:
    """Theorem A7's per-step rounding bound of head ``i`` at a state of Frobenius norm at most ``norm``
    (:func:`~bilinear.analysis.external_head.step_rounding` with this token's key and value norms and beta)."""
    if r.u == 0.0:
        return flint.arb(0)
    kap = max((frob(flint.arb_mat([[x] for x in inp["k"][j][i]])).upper() for j in range(K)), key=float)
    nu = max((frob(flint.arb_mat([[x] for x in inp["v"][j][i]])).upper() for j in range(K)), key=float)
    bb = max((abs(inp["beta"][j][i]).upper() for j in range(K)), key=float)
    return step_rounding(r, norm, kap, nu, bb, K, dk, dv)


@dataclass(frozen=True)
class _Ball:
    """The states ``{S : ||S - centre||_F <= radius}`` of one head (``centre`` exact points)."""

    centre: flint.arb_mat
    radius: flint.arb

    def norm(self) -> flint.arb:
        """An upper bound of ``||S||_F`` over the ball."""
        return (frob(self.centre) + self.radius).upper()

    def entries(self) -> list:
        """Per entry a ball that holds it (a dk x dv nested list): the box around the Frobenius ball."""
        C = self.centre
        return [[C[a, e] + flint.arb(0, 1) * self.radius for e in range(C.ncols())] for a in range(C.nrows())]


def _step(ball: _Ball, A: flint.arb_mat, b: flint.arb_mat, a_norm: flint.arb, rho: flint.arb) -> _Ball:
    """``{A S + b + e : S in ball, ||e||_F <= rho}`` enclosed: ``A C + b`` in balls, recentred at its
    midpoints, and ``||A (S - C)||_F <= ||A||_2 ||S - C||_F`` (``a_norm`` bounds ``||A||_2`` over the ball of ``A``)."""
    T = A * ball.centre + b
    mid = flint.arb_mat([[flint.arb(T[a, e].mid()) for e in range(T.ncols())] for a in range(T.nrows())])
    return _Ball(mid, (a_norm * ball.radius + frob(T - mid) + rho).upper())


def _inside(big: list, small: list) -> bool:
    """Every Frobenius ball of ``small`` inside the one of ``big``, head by head."""
    return all(frob(S.centre - B.centre) + S.radius <= B.radius for B, S in zip(big, small))


def _floats(balls: list) -> tuple[np.ndarray, np.ndarray]:
    """Float copies of the heads' centres (heads, dk * dv) and radii (heads,)."""
    c = np.array([[float(X.centre[a, e].mid()) for a in range(X.centre.nrows()) for e in range(X.centre.ncols())]
                  for X in balls])
    return c, np.array([float(X.radius) for X in balls])


class _Kept:
    """The widened balls expanded with one (automaton state, last token), with float copies of their
    centres and radii: a new node is checked in ball arithmetic (:func:`_inside`) only against the
    ones the floats allow to hold it (distance + its radius <= their radius, with a slack 32 times
    the floats' rounding, so no ball that holds it is passed over)."""

    def __init__(self) -> None:
        self.balls: list = []
        self.centres: np.ndarray | None = None
        self.radii: np.ndarray | None = None
        self.norms: np.ndarray | None = None  # the centres' norms, (kept, heads): computed once, when kept
        self.n = 0

    def holds(self, balls: list) -> bool:
        """Whether a kept ball holds ``balls`` (head by head), decided by :func:`_inside`.  The floats
        only choose which kept balls to check: one they pass over is never a ball that holds it
        (the slack), and a NaN from an infinite radius passes it over, which only expands a node
        that could have been skipped."""
        if not self.n or self.centres is None or self.radii is None or self.norms is None:
            return False
        c, r = _floats(balls)
        C, R = self.centres[:self.n], self.radii[:self.n]
        with np.errstate(all="ignore"):
            dist = np.sqrt(((C - c) ** 2).sum(axis=2))                      # (kept, heads)
            # each float is its exact value within 2^-53 relative; the distance's own rounding is
            # within (entries + 2) 2^-53 of it: the slack is 32 times that
            norms = self.norms[:self.n] + np.sqrt((c ** 2).sum(axis=1))
            slack = 2.0 ** -48 * (norms + R + r) + (c.shape[1] + 2) * 2.0 ** -48 * dist
            maybe = np.flatnonzero((dist + r - slack <= R).all(axis=1))
        return any(_inside(self.balls[i], balls) for i in maybe)

    def add(self, balls: list) -> None:
        c, r = _floats(balls)
        if self.centres is None or self.radii is None or self.norms is None or self.n == len(self.centres):
            size = max(16, 2 * self.n)
            centres, radii, norms = np.empty((size,) + c.shape), np.empty((size,) + r.shape), np.empty((size,) + r.shape)
            if self.n and self.centres is not None and self.radii is not None and self.norms is not None:
                centres[:self.n], radii[:self.n], norms[:self.n] = (self.centres[:self.n], self.radii[:self.n],
                                                                    self.norms[:self.n])
            self.centres, self.radii, self.norms = centres, radii, norms
        with np.errstate(all="ignore"):
            self.norms[self.n] = np.sqrt((c ** 2).sum(axis=1))  # what holds() would compute for it each time
        self.centres[self.n], self.radii[self.n] = c, r
        self.balls.append(balls)
        self.n += 1


def ball_horizon(model, automaton, tokens, labels, dtype: str, delta: float = 2.0 ** -10,
                 max_nodes: int = MAX_NODES, max_depth: int | None = None, max_steps: int = MAX_STEPS,
                 stop_at: float | None = None, progress=None) -> dict:
    """``{"length": L, "every": bool, "failing": word or None, "nodes": n, "steps": m, "stopped": why}``
    for the model run in ``dtype`` (module docstring): ``every`` when the search closed (every length),
    else every word of length <= L is labelled right; ``failing`` the word whose margin is not
    certified; ``stopped`` None (closed, or a failing word) or the bound that ended the search:
    ``"nodes"`` (a level over ``max_nodes``), ``"steps"`` (the next level would pass ``max_steps``),
    ``"depth"`` (``max_depth`` levels, None: no such cap) or ``"time"`` (``time.monotonic()`` passed
    ``stop_at``; the level under way is dropped).  ``progress``: a :class:`~bilinear.progress.Progress`
    told the level and the steps."""
    r = Rounding.of(dtype)
    head = HeadBalls(model, labels, dtype, r)
    c = model.config
    K, H, dk, dv = c.householders, c.heads, c.head_k_dim, c.head_v_dim
    maps = []
    for t in tokens:
        inp = head.token_inputs(t)
        per_head = []
        for i in range(H):
            A, b = affine_balls(inp, i, K)
            per_head.append((A, b, op_norm(A, range(dk), range(dk), squarings=_SQUARINGS), inp))
        maps.append(per_head)
    zero = [_Ball(flint.arb_mat(dk, dv), flint.arb(0)) for _ in range(H)]
    frontier: list = [(automaton.start, -1, zero, ())]
    expanded: dict = {}
    nodes = steps = 0
    rad = flint.arb(delta)
    n = automaton.n_symbols

    def out(length: int, every: bool = False, failing=None, stopped=None) -> dict:
        return {"length": length, "every": every, "failing": failing, "nodes": nodes, "steps": steps, "stopped": stopped}

    depth = 0
    while True:
        depth += 1
        if max_depth is not None and depth > max_depth:
            return out(depth - 1, stopped="depth")
        if steps + len(frontier) * n > max_steps:  # checked before the level's work
            return out(depth - 1, stopped="steps")
        if progress is not None:
            progress.phase(f"{dtype}, widening 2^{np.log2(delta):.0f}: level {depth}, {nodes:,} nodes, {steps:,} steps")
        nxt = []
        for q, _, S, word in frontier:
            for s in range(n):
                if stop_at is not None and time.monotonic() > stop_at:
                    return out(depth - 1, stopped="time")
                steps += 1
                T = []
                for i in range(H):
                    A, b, a_norm, inp = maps[s][i]
                    rho = _step_rounding(r, S[i].norm(), inp, i, K, dk, dv)
                    T.append(_step(S[i], A, b, a_norm, rho))
                q2 = int(automaton.delta[s, q])
                if not margin(head.logits([X.entries() for X in T], tokens[s]), int(automaton.labels[q2])) > 0:
                    return out(depth - 1, failing=word + (s,))
                wide = [_Ball(X.centre, (X.radius + rad).upper()) for X in T]
                seen = expanded.setdefault((q2, s), _Kept())
                if seen.holds(T):
                    continue
                seen.add(wide)
                nxt.append((q2, s, wide, word + (s,)))
                nodes += 1
        if progress is not None:
            progress.update(len(frontier) * n)
        if not nxt:
            return out(depth, every=True)
        if len(nxt) > max_nodes:
            return out(depth, stopped="nodes")
        frontier = nxt
