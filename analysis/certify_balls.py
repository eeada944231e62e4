"""A certified length for a float model that has no snap: the reachable states carried as balls
(docs/theory.md, Theorem A8), the model's own head checked on every ball.

From ``S_0 = 0`` every word is run at once, level by level: a node is (automaton state, last token,
a ball per head that holds the float model's state); a step applies the token's transition in
ball arithmetic (its ``A`` and ``b`` themselves balls from the weights in the float format) and
adds the format's rounding of the step; the head (:class:`~bilinear.analysis.external_head.HeadBalls`
with the format's rounding) must give the automaton's label with a positive margin.  Before it is
expanded a node's ball is widened to radius ``delta``; a new node whose ball lies inside a widened
ball already expanded with the same (automaton state, last token) is not expanded again: every
state it holds is a state that ball holds, whose successors are checked.  When no node is left
the float model is right on every word of every length; when the level exceeds ``max_nodes`` the
levels completed are the certified length; a negative margin stops the search there.
"""

from __future__ import annotations

import flint

from bilinear.constructions.exact.balls import frob

from .external_head import HeadBalls, Rounding, affine_balls, largest, margin

__all__ = ["ball_horizon", "MAX_NODES"]

#: The most nodes of one level (then the levels completed are the certified length).
MAX_NODES = 2000


def _step_rounding(r: Rounding, S: flint.arb_mat, inp: dict, i: int, K: int) -> flint.arb:
    """Theorem A7's per-step rounding bound at a state ball ``S`` of head ``i``."""
    if r.u == 0.0:
        return flint.arb(0)
    dk, dv = S.nrows(), S.ncols()
    kap = max((frob(flint.arb_mat([[x] for x in inp["k"][j][i]])).upper() for j in range(K)), key=float)
    nu = max((frob(flint.arb_mat([[x] for x in inp["v"][j][i]])).upper() for j in range(K)), key=float)
    bb = max((abs(inp["beta"][j][i]).upper() for j in range(K)), key=float)
    P = (1 + bb * kap * kap) ** K * frob(S).upper() + K * bb * kap * nu
    if not float(P.upper()) < largest(r.name) / 4:
        return flint.arb("inf")
    return (flint.arb(r.u) * P + K * r.gamma(dk + 4) * (1 + bb * kap) * (P + bb * kap * (nu + kap * P))
            + flint.arb(K * (dk + 5) * dk * dv) * flint.arb(r.eta)).upper()


def _widen(S: flint.arb_mat, rad: flint.arb) -> flint.arb_mat:
    out = flint.arb_mat(S.nrows(), S.ncols())
    for a in range(S.nrows()):
        for b in range(S.ncols()):
            out[a, b] = S[a, b] + flint.arb(0, 1) * rad
    return out


def _inside(big: list, small: list) -> bool:
    return all(B[a, b].contains(Sm[a, b]) for B, Sm in zip(big, small)
               for a in range(B.nrows()) for b in range(B.ncols()))


def ball_horizon(model, automaton, tokens, labels, dtype: str, delta: float = 2.0 ** -10,
                 max_nodes: int = MAX_NODES, max_depth: int = 10 ** 6) -> dict:
    """``{"length": L, "every": bool, "failing": word or None, "nodes": n}`` for the model run in
    ``dtype`` (module docstring): ``every`` when the search closed (every length), else L levels."""
    r = Rounding.of(dtype)
    head = HeadBalls(model, labels, dtype, r)
    c = model.config
    K, H = c.householders, c.heads
    maps = []
    for t in tokens:
        inp = head.token_inputs(t)
        maps.append([affine_balls(inp, i, K) + (inp,) for i in range(H)])
    zero = [flint.arb_mat(c.head_k_dim, c.head_v_dim) for _ in range(H)]
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
                    A, b, inp = maps[s][i]
                    rho = _step_rounding(r, S[i], inp, i, K)
                    T.append(_widen(A * S[i] + b, rho))
                q2 = int(automaton.delta[s, q])
                rows = [[[T[i][a, e] for e in range(c.head_v_dim)] for a in range(c.head_k_dim)] for i in range(H)]
                if not margin(head.logits(rows, tokens[s]), int(automaton.labels[q2])) > 0:
                    return {"length": depth - 1, "every": False, "failing": word + (s,), "nodes": nodes}
                wide = [_widen(X, rad) for X in T]
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
