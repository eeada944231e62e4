"""``bilinear certify --from fla DIR --task SPEC``: certify a one-layer fla delta-rule model with its
own head (docs/theory.md, Theorems A1, A4, A5, A6 with Theorems 16 and 18).

1. **Snap** (per head): each key of dimension 2 to the nearest direction at a multiple of 15
   degrees, each beta to 0, 1 or 2, the gate to 1, and the common fixed point ``C`` of the
   affine maps ``S -> A_s S + b_s`` (least squares of ``(I - A_s) C = b_s``) to a dyadic rational;
   the snapped ``b_s = (I - A_s) C`` exactly, so every snapped map fixes ``C``.
2. **Proof** (Theorem A4): the closure of the reachable (automaton state, snapped states) pairs,
   and on every edge the model's head (:class:`~bilinear.analysis.external_head.HeadBalls`, real
   arithmetic in 128-bit balls) at the state reached and the token read: a positive margin for the
   automaton's label on every edge proves the snapped model, head included, for every length.
3. **Horizon** in a float format (Theorems 16, 18, A5, A6): the model's per-token transitions in
   that format differ from the snap by ``a`` (matrices) and ``db`` (additive terms); a float step
   costs at most ``rho``; the error after t steps is at most ``c ((1 + a)^t - 1) / a`` with
   ``c = a M + db + rho`` (M the largest snapped state); the head, evaluated in balls of radius r*
   around every reachable snapped state with the format's rounding charged, keeps the label; the
   certified length is the largest t whose error stays within r*.
4. **Diff**: the toolkit's forward in float64 and in the format on every word to a depth and on
   random longer words; the first word (shortest, then in order) whose labels differ.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction

import flint
import numpy as np
import torch

from bilinear.constructions.exact.balls import arb, frob
from bilinear.constructions.exact.field import cos2pi, sin2pi
from bilinear.constructions.values.factored import householder_compose

from .external_head import HeadBalls, Rounding, affine_balls, margin, step_rounding, torch_dtype

__all__ = ["ExternalCertificate", "certify_external", "snap_heads", "float_labels", "label_diff", "MAX_PAIRS"]

#: The most (automaton state, snapped states) pairs the proof's closure visits.
MAX_PAIRS = 20000
_ANGLES = 24          # key directions snapped to multiples of 360 / 24 degrees
_DYADIC = 2 ** 16     # the fixed point's grid


@dataclass
class HeadSnap:
    """One head's snap: exact ``A`` (symbols, dk, dk) and ``b`` (symbols, dk, dv), fixed point ``C``."""

    A: np.ndarray
    b: np.ndarray
    C: np.ndarray


def _snap_key(k: np.ndarray, tol: float):
    angle = math.atan2(float(k[1]), float(k[0])) % math.pi
    m = round(angle / (2 * math.pi / _ANGLES))
    if abs(angle - m * 2 * math.pi / _ANGLES) > tol:
        return None
    return [cos2pi(m, _ANGLES), sin2pi(m, _ANGLES)]


def snap_heads(heads, tol: float = 1e-3) -> tuple[list[HeadSnap] | None, str]:
    """Snap every head (module docstring); ``(None, why)`` when a head cannot be snapped."""
    out = []
    for h in heads:
        if h.V is None:
            return None, f"{h.name}: a positive diagonal (Mamba) transition is not snapped (reflections only)"
        n, K, dk = h.V.shape
        if h.S0 is not None:
            return None, "a BOS token's state is not snapped"
        if np.max(np.abs(h.gate - 1.0)) > tol:
            return None, f"head {h.head}: a gate exp(g) = {float(h.gate.min()):.4g} is not snapped (only gate 1)"
        V = np.empty((n, K, dk), dtype=object)
        beta = np.empty((n, K), dtype=object)
        for s in range(n):
            for j in range(K):
                bj = min((0, 1, 2), key=lambda x: abs(h.beta[s, j] - x))
                if abs(h.beta[s, j] - bj) > tol:
                    return None, f"head {h.head}: beta {h.beta[s, j]:.4g} is not near 0, 1 or 2"
                beta[s, j] = bj
                if dk != 2:
                    return None, f"head {h.head}: keys of dimension {dk} are not snapped (dimension 2 only)"
                key = _snap_key(h.V[s, j], tol) if bj != 0 else [1, 0]
                if key is None:
                    return None, f"head {h.head}: a key direction is not within {tol} rad of a multiple of 15 degrees"
                V[s, j] = key
        A = householder_compose(V, beta)
        I = np.eye(dk)
        M = np.concatenate([I - h.A[s] for s in range(n)])
        C, *_ = np.linalg.lstsq(M, np.concatenate(list(h.b)), rcond=None)
        Cq = np.array([[Fraction(round(x * _DYADIC), _DYADIC) for x in row] for row in C], dtype=object)
        eye = np.array([[Fraction(int(i == j)) for j in range(dk)] for i in range(dk)], dtype=object)
        b = np.array([(eye - A[s]).dot(Cq) for s in range(n)], dtype=object)
        scale = max(1.0, float(np.abs(h.b).max()))
        worst = max(float(np.abs(np.array(b[s], dtype=float) - h.b[s]).max()) for s in range(n))
        if worst > tol * scale:
            return None, f"head {h.head}: the additive terms have no common fixed point (residual {worst:.3g})"
        out.append(HeadSnap(A, b, Cq))
    return out, ""


def _key(states) -> tuple:
    return tuple(x for S in states for x in S.ravel())


def closure(snaps: list[HeadSnap], automaton, budget: int = MAX_PAIRS):
    """The reachable (automaton state, snapped states) pairs from ``(q0, 0)``: ``(pairs, edges,
    words)`` with edges ``(pair, symbol, pair')`` and a shortest word per pair; None over budget."""
    zero = [np.zeros_like(h.C) * Fraction(0) for h in snaps]
    start = (automaton.start, _key(zero))
    pairs = {start: zero}
    words: dict = {start: ()}
    edges = []
    frontier = [start]
    while frontier:
        nxt = []
        for p in frontier:
            S = pairs[p]
            for s in range(automaton.n_symbols):
                T = [h.A[s].dot(X) + h.b[s] for h, X in zip(snaps, S)]
                q = (int(automaton.delta[s, p[0]]), _key(T))
                if q not in pairs:
                    if len(pairs) >= budget:
                        return None
                    pairs[q] = T
                    words[q] = words[p] + (s,)
                    nxt.append(q)
                edges.append((p, s, q))
        frontier = nxt
    return pairs, edges, words


def _balls(S: np.ndarray, r=None) -> list:
    return [[arb(x) if r is None else arb(x) + flint.arb(0, 1) * r for x in row] for row in S]


def _check_edges(head: HeadBalls, pairs, edges, automaton, tokens, radius=None):
    """The smallest margin lower bound over the distinct (state, token) targets, and a failing target."""
    seen: dict = {}
    low, bad = None, None
    for p, s, q in edges:
        key = (q, s)
        if key in seen:
            continue
        states = [_balls(S, radius) for S in pairs[q]]
        m = margin(head.logits(states, tokens[s]), int(automaton.labels[q[0]]))
        seen[key] = m
        if low is None or m < low:
            low, bad = m, p + (s,)
    return low, bad


def _to_mat(X: np.ndarray) -> flint.arb_mat:
    return flint.arb_mat([[arb(x) for x in row] for row in X])


def horizon(model, automaton, tokens, labels, snaps, closed, dtype: str, cap: int = 10 ** 12) -> dict:
    """The certified length of the model run in ``dtype`` (module docstring, step 3)."""
    pairs, edges, _ = closed
    r = Rounding.of(dtype)
    head = HeadBalls(model, labels, dtype, r)
    K = model.config.householders
    a = flint.arb(0)
    db = flint.arb(0)
    kap = nu = bmax = flint.arb(0)
    for s, t in enumerate(tokens):
        inp = head.token_inputs(t)
        for i, h in enumerate(snaps):
            A, b = affine_balls(inp, i, K)
            a = max(a, frob(A - _to_mat(h.A[s])).upper(), key=float)
            db = max(db, frob(b - _to_mat(h.b[s])).upper(), key=float)
            for j in range(K):
                kap = max(kap, frob(flint.arb_mat([[x] for x in inp["k"][j][i]])).upper(), key=float)
                nu = max(nu, frob(flint.arb_mat([[x] for x in inp["v"][j][i]])).upper(), key=float)
                bmax = max(bmax, abs(inp["beta"][j][i]).upper(), key=float)
    M = max((frob(_to_mat(S)).upper() for p in pairs.values() for S in p), key=float)
    low, _ = _check_edges(head, pairs, edges, automaton, tokens, flint.arb(0))
    out = {"dtype": dtype, "a": float(a), "db": float(db), "M": float(M), "radius": 0.0, "length": 0,
           "head_margin": float(low)}
    if not low > 0:
        return out
    lo_r, hi_r = 0.0, float(M) + 1.0
    for _ in range(30):  # the largest radius the head keeps every label for, by bisection
        mid = (lo_r + hi_r) / 2 if lo_r > 0 else hi_r / 1024
        m, _ = _check_edges(head, pairs, edges, automaton, tokens, arb(mid))
        if m > 0:
            lo_r = mid
        else:
            hi_r = mid
        if hi_r - lo_r <= 1e-3 * hi_r:
            break
    if lo_r == 0.0:
        return out
    dk, dv = snaps[0].C.shape
    rho = step_rounding(r, M + arb(lo_r), kap, nu, bmax, K, dk, dv)
    if not rho.is_finite():
        return out
    c = (a * M + db + rho).upper()
    L = _length(a, c, lo_r, cap)
    out.update(radius=lo_r, length=L, rho=float(rho), c=float(c), kappa=float(kap), nu=float(nu), beta_max=float(bmax))
    return out


def _length(a: flint.arb, c: flint.arb, radius: float, cap: int) -> int:
    """The largest ``t <= cap`` with ``c ((1 + a)^t - 1) / a <= radius`` (``c t`` when ``a = 0``): the
    closed form in floats, then stepped down until :func:`_grown`'s upper bound holds in balls."""
    L = int(min(cap, math.floor(radius / float(c)) if float(a) == 0 else
                math.floor(math.log1p(float(a) * radius / float(c)) / math.log1p(float(a)))))
    while L > 0 and not _grown(a, c, L) <= arb(radius):
        L = int(L * 0.99)
    return L


def _grown(a: flint.arb, c: flint.arb, L: int) -> flint.arb:
    """``c ((1 + a)^L - 1) / a`` (``c L`` when ``a = 0``), an upper bound."""
    if a == 0:
        return (c * L).upper()
    return (c * ((1 + a) ** L - 1) / a).upper()


def float_labels(model, tokens, labels, words: np.ndarray, dtype: str) -> np.ndarray:
    """The model's labels (batch, time) on symbol ``words``, by the toolkit's forward in ``dtype``."""
    ids = np.asarray(tokens)[np.asarray(words)]
    with torch.no_grad():
        logits = model.forward(ids, torch_dtype(dtype))[..., list(labels)]
    return logits.to(torch.float64).argmax(-1).numpy()


def label_diff(model, tokens, labels, n_symbols: int, dtype: str, depth: int = 6, long: int = 64,
               count: int = 64, seed: int = 0):
    """The first word (every word to ``depth``, shortest first, then ``count`` random words of
    length ``long``) whose labels differ between float64 and ``dtype``: ``(word, words_run)``."""
    runs = [np.array(list(np.ndindex(*(n_symbols,) * depth)), dtype=np.int64).reshape(-1, depth)]
    runs.append(np.random.default_rng(seed).integers(0, n_symbols, size=(count, long)))
    total = 0
    for words in runs:
        total += len(words)
        diff = float_labels(model, tokens, labels, words, "float64") != float_labels(model, tokens, labels, words, dtype)
        if diff.any():
            t = int(np.nonzero(diff.any(axis=0))[0][0])
            rows = np.nonzero(diff[:, t])[0]
            w = min(tuple(int(x) for x in words[r, :t + 1]) for r in rows)
            return w, total
    return None, total


@dataclass
class ExternalCertificate:
    """The outcome of :func:`certify_external`."""

    status: str
    automaton: str
    heads: int
    snap_note: str
    pairs: int = 0
    head_margin: float | None = None
    counterexample: tuple | None = None
    horizons: dict = field(default_factory=dict)
    diffs: dict = field(default_factory=dict)
    seconds: float = 0.0
    symbols: tuple = ()      # the task's symbol names, for the words in to_text (JSON keeps the indices)

    def to_text(self) -> str:
        lines = [f"certify --from: {self.automaton}, layer 1, {self.heads} head(s)", f"snap: {self.snap_note}"]
        word = self._word
        if self.status == "proved":
            lines.append(f"proved: the snapped model, its own head included, labels every word of every length right "
                         f"({self.pairs} reachable (state, token) pairs, smallest head margin {self.head_margin:.4g}; "
                         "docs/theory.md, Theorems A1 and A4)")
        elif self.counterexample is not None:
            lines.append(f"not proved: the head's margin on the snapped model is not certified positive after the "
                         f"word {word(self.counterexample)}")
        for name, h in self.horizons.items():
            if "every" in h:  # the ball search of a model without a snap
                lines.append(f"horizon ({name}): " + (
                    f"every word of every length is labelled right by the model run in {name} (its reachable "
                    f"states closed in {h['nodes']} balls; Theorem A8)" if h["every"] else
                    (f"every word of length <= {h['length']} is labelled right by the model run in {name} "
                     if h["length"] > 0 else "no length certified ") +
                    "(every word run in balls, Theorem A8" + ("" if h["failing"] is None else
                    f"; the margin is not certified after {word(h['failing'])}") + _stopped(h) + ")"))
            elif h["length"] > 0:
                lines.append(f"horizon ({name}): every word of length <= {h['length']} is labelled right by the model "
                             f"run in {name} (Theorems 16, 18, A5, A6: transitions within {h['a']:.3g}, additive terms "
                             f"within {h['db']:.3g} of the snap, head radius {h['radius']:.3g})")
            elif not h["head_margin"] > 0:
                lines.append(f"horizon ({name}): no length certified (the head's margin in {name} at the snapped states "
                             f"is not certified positive: lower bound {h['head_margin']:.3g})")
            else:
                lines.append(f"horizon ({name}): no length certified (the head's margin in {name} is positive at the "
                             f"snapped states, but one step's error bound {h.get('c', math.inf):.3g} exceeds the "
                             f"largest radius {h['radius']:.3g} the head is certified on; Theorems A6, A7)")
        for name, (w, n) in self.diffs.items():
            lines.append(f"diff float64 vs {name}: " + (f"labels differ first on the word {word(w)}"
                                                          if w is not None else f"no label differs on {n} words"))
        lines.append(f"status: {self.status}  ({self.seconds:.2f} s)")
        return "\n".join(lines) + "\n"

    def _word(self, w) -> str:
        """A word of symbol indices in the task's symbol names (as ``analyze`` writes words)."""
        if not w:
            return "ε"
        names = self.symbols or tuple(str(i) for i in range(max(w) + 1))
        return " ".join(names[s] for s in w)

    def to_json(self) -> dict:
        """JSON-ready: a margin that is not a number (an overflowing ball) is null."""

        def clean(x):
            if isinstance(x, float) and not math.isfinite(x):
                return None
            if isinstance(x, dict):
                return {k: clean(v) for k, v in x.items()}
            return list(x) if isinstance(x, tuple) else x

        return {"status": self.status, "automaton": self.automaton, "heads": self.heads, "snap": self.snap_note,
                "pairs": self.pairs, "head_margin": clean(self.head_margin),
                "counterexample": None if self.counterexample is None else list(self.counterexample),
                "horizons": clean(self.horizons),
                "diffs": {k: (None if w is None else list(w)) for k, (w, _) in self.diffs.items()},
                "seconds": self.seconds}


def _stopped(h: dict) -> str:
    """Why a ball search that neither closed nor failed stopped (its levels completed are the length)."""
    why = h.get("stopped")
    if why == "nodes":
        return (f"; stopped: length {h['length'] + 1} would start from more than {h['max_nodes']:,} balls, the limit "
                "of one level")
    if why == "steps":
        return (f"; stopped: length {h['length'] + 1} would take the search past its limit of {h['max_steps']:,} "
                "steps")
    if why == "depth":
        return f"; stopped at its depth limit of {h['length']} levels"
    if why == "time":
        return f"; stopped by the time budget during length {h['length'] + 1}"
    return ""


def _alarm_left() -> float | None:
    """Seconds left on the command's ``--time-budget`` (the SIGALRM timer of
    :func:`bilinear.progress.deadline`), or None when none is set."""
    import signal

    if not hasattr(signal, "getitimer"):
        return None
    left = signal.getitimer(signal.ITIMER_REAL)[0]
    return left if left > 0 else None


#: Share of the time left that the ball searches may take: the rest is kept for the report (so a
#: command's ``--time-budget`` ends them with the levels completed, not with nothing printed).
BALL_TIME_SHARE = 0.8


def certify_external(model, automaton, tokens=None, labels=None, dtypes=("float64",),
                     diff: bool = True, max_nodes: int | None = None, max_steps: int | None = None,
                     time_budget: float | None = None) -> ExternalCertificate:
    """Snap, prove with the model's head, and certify a length per float format (module docstring).

    ``tokens``/``labels``: token ids of the automaton's symbols and classes, in any form
    :func:`~bilinear.learned.external.tracker.parse_token_map` reads (default: i is token i);
    ``max_nodes``: the ball search's level limit (default :data:`~bilinear.analysis.certify_balls.MAX_NODES`);
    ``max_steps``: each ball search's limit of steps in all (default :data:`~bilinear.analysis.certify_balls.
    MAX_STEPS`); ``time_budget``: seconds from the call's start within which the ball searches end
    (None: the time left on a command's ``--time-budget``, if one is running): each search takes
    :data:`BALL_TIME_SHARE` of the time left when it starts, divided by the searches still to run,
    and a search stopped by it certifies the levels it completed; the other stages do not read it (a
    command's ``--time-budget`` stops them with nothing printed).  A ball search longer than a few
    seconds prints progress lines on stderr (:class:`~bilinear.progress.Progress`)."""
    from bilinear.learned.external import head_transitions
    from bilinear.learned.external.tracker import ExternalTracker

    _check_limits(max_nodes, max_steps, time_budget)
    t0 = time.perf_counter()
    started = time.monotonic()
    end = started + time_budget if time_budget is not None else None
    if end is None and (left := _alarm_left()) is not None:
        end = started + left
    if isinstance(tokens, (tuple, list)):  # ids in the task's symbol order
        tokens = dict(zip(automaton.symbols, tokens))
    if isinstance(labels, (tuple, list)):
        labels = dict(zip(automaton.classes, labels))
    tracker = ExternalTracker.make(model, tokens, labels, None, symbols=list(automaton.symbols),
                                   classes=list(automaton.classes))
    tokens, labels = tuple(int(t) for t in tracker.tokens), tuple(int(t) for t in tracker.labels)
    head = HeadBalls(model, labels)
    heads = head_transitions(model, tracker, 0)
    snaps, why = snap_heads(heads)
    cert = ExternalCertificate("failed", automaton.name or "the task", len(heads), why or "every head snapped",
                               symbols=tuple(automaton.symbols))
    if diff:
        for d in dtypes:
            if d != "float64":
                cert.diffs[d] = label_diff(model, tokens, labels, automaton.n_symbols, d)
    if snaps is not None:
        closed = closure(snaps, automaton)
        if closed is None:
            cert.snap_note += f"; the snapped orbit has more than {MAX_PAIRS} pairs"
        else:
            pairs, edges, words = closed
            low, bad = _check_edges(head, pairs, edges, automaton, tokens)
            cert.pairs, cert.head_margin = len({(q, s) for _, s, q in edges}), float(low)
            if low > 0:
                cert.status = "proved"
                for d in dtypes:
                    cert.horizons[d] = horizon(model, automaton, tokens, labels, snaps, closed, d)
            else:
                cert.counterexample = words[bad[:2]] + bad[2:]
    if cert.status != "proved" and cert.counterexample is None:  # no snap: the ball search (Theorem A8)
        cert.horizons.update(_ball_horizons(model, automaton, tokens, labels, dtypes, end, max_nodes, max_steps))
    cert.seconds = time.perf_counter() - t0
    return cert


def _check_limits(max_nodes, max_steps, time_budget) -> None:
    """AnalysisError for a limit that is not a positive integer or a budget that is not a positive
    number of seconds (None: the default)."""
    from bilinear.argtypes import check_positive_int
    from bilinear.errors import AnalysisError

    for what, value in (("max_nodes", max_nodes), ("max_steps", max_steps)):
        if value is not None:
            check_positive_int(value, what, error=AnalysisError)
    if time_budget is not None and (isinstance(time_budget, bool) or not isinstance(time_budget, (int, float))
                                    or not time_budget > 0 or not math.isfinite(time_budget)):
        raise AnalysisError(f"time_budget = {time_budget!r} must be a positive number of seconds")


def _ball_horizons(model, automaton, tokens, labels, dtypes, end: float | None, max_nodes: int | None,
                   max_steps: int | None) -> dict:
    """Per format the better of two ball searches (widenings 2^-30 and 2^-12), each stopping at its
    share of the time left before ``end`` (``time.monotonic()``; None: no budget), with progress."""
    from bilinear.progress import Progress

    from .certify_balls import MAX_NODES, MAX_STEPS, ball_horizon

    limits = {"max_nodes": max_nodes or MAX_NODES, "max_steps": max_steps or MAX_STEPS}
    plan = [(d, w) for d in dtypes for w in (2.0 ** -30, 2.0 ** -12)]
    runs: dict = {}
    with Progress("certify --from: ball search", unit="steps") as progress:
        for i, (d, w) in enumerate(plan):
            stop_at = None
            if end is not None:  # this search's share of the time left
                stop_at = time.monotonic() + BALL_TIME_SHARE * max(end - time.monotonic(), 0.0) / (len(plan) - i)
            h = ball_horizon(model, automaton, tokens, labels, d, delta=w, stop_at=stop_at, progress=progress,
                             **limits)
            runs.setdefault(d, []).append({**h, **limits})
    return {d: max(runs[d], key=lambda h: (h["every"], h["length"])) for d in dtypes}
