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
the float model is right on every word of every length; when the level exceeds ``max_nodes`` the
levels completed are the certified length; a negative margin stops the search there.
"""

from __future__ import annotations

import flint
from dataclasses import dataclass

from bilinear.constructions.exact.balls import frob, op_norm

from .external_head import HeadBalls, Rounding, affine_balls, margin, step_rounding

__all__ = ["ball_horizon", "MAX_NODES"]

#: The most nodes of one level (then the levels completed are the certified length).
MAX_NODES = 2000
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


def ball_horizon(model, automaton, tokens, labels, dtype: str, delta: float = 2.0 ** -10,
                 max_nodes: int = MAX_NODES, max_depth: int = 10 ** 6) -> dict:
    """``{"length": L, "every": bool, "failing": word or None, "nodes": n}`` for the model run in
    ``dtype`` (module docstring): ``every`` when the search closed (every length), else L levels."""
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
    nodes = 0
    rad = flint.arb(delta)
    for depth in range(1, max_depth + 1):
        nxt = []
        for q, _, S, word in frontier:
            for s in range(automaton.n_symbols):
                T = []
                for i in range(H):
                    A, b, a_norm, inp = maps[s][i]
                    rho = _step_rounding(r, S[i].norm(), inp, i, K, dk, dv)
                    T.append(_step(S[i], A, b, a_norm, rho))
                q2 = int(automaton.delta[s, q])
                if not margin(head.logits([X.entries() for X in T], tokens[s]), int(automaton.labels[q2])) > 0:
                    return {"length": depth - 1, "every": False, "failing": word + (s,), "nodes": nodes}
                wide = [_Ball(X.centre, (X.radius + rad).upper()) for X in T]
                seen = expanded.setdefault((q2, s), [])
                if any(_inside(B, T) for B in seen):
                    continue
                seen.append(wide)
                nxt.append((q2, s, wide, word + (s,)))
                nodes += 1
        if not nxt:
            return {"length": depth, "every": True, "failing": None, "nodes": nodes}
        if len(nxt) > max_nodes:
            return {"length": depth, "every": False, "failing": None, "nodes": nodes}
        frontier = nxt
    return {"length": max_depth, "every": False, "failing": None, "nodes": nodes}
