"""A loaded model's own head in ball arithmetic: the logits after a step as balls, from the layer's
recurrent state (a ball per entry) and the token just read (docs/theory.md, Theorems A4 and A5).

Scope: a one-layer delta-rule model (fla DeltaNet, GatedDeltaNet, GatedDeltaProduct) without a
short convolution, so the layer's input at a step is a function of the current token only.  Every
quantity after the recurrence is evaluated from the checkpoint's weights (cast to the arithmetic's
dtype first, as ``model.to(dtype)`` does): the pre-norm and the query (``l2norm(silu(W_q x))``
times ``d_k^(-1/2)``), ``o = S^T q`` per head, ``o_norm`` and the output gate, ``o_proj``, the
residual, the gated MLP, the final norm and the rows of ``lm_head`` of the task's classes.

:class:`Rounding` models a float format: every dot product of length n is widened by
``gamma_n = n u / (1 - n u)`` times the sum of the magnitudes of its terms, every other operation by
``2 u`` times its magnitude (the elementary functions ``exp``, ``sqrt`` assumed correct to two units
in the last place) plus ``eta`` (half the smallest subnormal) per operation for underflow; the
constants are the table :data:`~bilinear.constructions.horizon.roundoff.FORMATS`.  ``u = 0`` is
real arithmetic: the head of a snapped model evaluated exactly up to the balls' 128 bits.

>>> import numpy as np
>>> from bilinear.learned.handset import head_rows
>>> r = Rounding.of("float64")
>>> float(r.u) == 2.0 ** -53, Rounding.of("bfloat16").u == 2.0 ** -8, Rounding.exact().u
(True, True, 0.0)
"""

from __future__ import annotations

from dataclasses import dataclass

import flint
import numpy as np
import torch

from bilinear.constructions.exact.balls import arb, hi, lo, root, sq
from bilinear.constructions.horizon.roundoff import FORMATS
from bilinear.errors import AnalysisError

__all__ = ["Rounding", "HeadBalls", "torch_dtype", "largest", "margin", "affine_balls", "step_rounding"]


def torch_dtype(name: str) -> torch.dtype:
    """The torch dtype of a ``--dtype`` name (the formats of
    :data:`~bilinear.constructions.horizon.roundoff.FORMATS`)."""
    if name not in FORMATS:
        raise AnalysisError(f"--dtype takes {', '.join(FORMATS)}, got {name!r}")
    return getattr(torch, name)


def largest(name: str) -> float:
    """The largest finite number of a format (overflow is excluded, not charged)."""
    torch_dtype(name)
    return FORMATS[name].largest


@dataclass(frozen=True)
class Rounding:
    """A float format's unit roundoff ``u`` and underflow ``eta`` (both 0: real arithmetic)."""

    name: str
    u: float
    eta: float

    @classmethod
    def of(cls, name: str) -> "Rounding":
        torch_dtype(name)
        f = FORMATS[name]
        return cls(name, float(f.u), float(f.eta))

    @classmethod
    def exact(cls) -> "Rounding":
        return cls("real", 0.0, 0.0)

    def gamma(self, n: int) -> flint.arb:
        """An upper bound of ``n u / (1 - n u)`` (0 for real arithmetic)."""
        if self.u == 0.0:
            return flint.arb(0)
        nu = flint.arb(n) * arb(self.u)
        return (nu / (1 - nu)).upper()

    def op(self, x: flint.arb, k: float = 2.0) -> flint.arb:
        """``x`` widened by one rounded operation: ``k u |x| + eta``."""
        if self.u == 0.0:
            return x
        return x + flint.arb(0, 1) * (arb(k * self.u) * abs(x).upper() + arb(self.eta))

    def dot(self, a: list, b: list) -> flint.arb:
        """``sum a_i b_i`` widened by ``gamma_n sum |a_i b_i| + n eta``."""
        s = flint.arb(0)
        m = flint.arb(0)
        for x, y in zip(a, b):
            t = x * y
            s += t
            m += abs(t).upper()
        if self.u == 0.0:
            return s
        return s + flint.arb(0, 1) * (self.gamma(len(a)) * m + arb(len(a) * self.eta))


def _sigmoid(x: flint.arb) -> flint.arb:
    return 1 / (1 + (-x).exp())


def _rows(t: torch.Tensor, dtype: torch.dtype) -> np.ndarray:
    """A weight cast to ``dtype`` (rounded as ``model.to(dtype)`` rounds it), then exactly to float64."""
    return t.detach().to(dtype).to(torch.float64).numpy()


class HeadBalls:
    """The head of a one-layer delta-rule ``model`` (:class:`~bilinear.learned.external.ExternalModel`)
    for the class token ids ``labels``, with weights cast to ``dtype`` and ``rounding`` charged."""

    def __init__(self, model, labels, dtype: str = "float64", rounding: Rounding | None = None):
        c = model.config
        if len(model.blocks) != 1 or c.kind not in ("delta_net", "gated_deltanet", "gated_deltaproduct"):
            raise AnalysisError(f"certify --from takes one-layer fla DeltaNet, GatedDeltaNet or GatedDeltaProduct "
                                f"models; this is a {len(model.blocks)}-layer {c.kind}")
        layer = model.blocks[0].mixer
        if layer.conv is not None:
            raise AnalysisError("certify --from: a short convolution makes the layer's input depend on earlier "
                                "tokens; use_short_conv=False models only (analyze --from reads the windows)")
        td = torch_dtype(dtype)
        self.model, self.labels, self.config = model, tuple(int(i) for i in labels), c
        self.rounding = rounding if rounding is not None else Rounding.exact()
        self.block = model.blocks[0]
        self.layer = layer
        self.td = td
        self._tokens: dict[int, dict] = {}

    def _vec(self, W: np.ndarray, x: list) -> list:
        return [self.rounding.dot([arb(w) for w in row], x) for row in W]

    def _rms(self, x: list, weight: torch.Tensor, zero_centred: bool = False) -> list:
        """RMS norm ``x_i w_i / sqrt(mean(x^2) + eps)`` in balls (:meth:`_normalise`)."""
        w = [(1.0 + wi) if zero_centred else wi for wi in _rows(weight, self.td)]
        return self._normalise(x, len(x), self.config.norm_eps, w)

    def _normalise(self, x: list, n: int, eps: float, w: list | None) -> list:
        """``x_i w_i / sqrt(||x||^2 / n + eps)`` (no factor when ``w`` is None) in balls: the
        operation by operation enclosure, intersected, for a wide input, with
        :meth:`_normalise_lipschitz`'s."""
        r = self.rounding
        ss = r.op(r.dot(x, x).nonnegative_part() / n + arb(eps))
        inv = r.op(1 / ss.sqrt(), 4.0)
        out = [r.op(xi * inv) if w is None else r.op(r.op(xi * inv) * arb(wi)) for xi, wi in zip(x, w or x)]
        if all(xi.rad() == 0 for xi in x):
            return out
        return [a.intersection(b) for a, b in zip(out, self._normalise_lipschitz(x, n, eps, w))]

    def _normalise_lipschitz(self, x: list, n: int, eps: float, w: list | None) -> list:
        """:meth:`_normalise` on a wide ball by its Lipschitz bound (docs/theory.md, Theorem A7, the
        norm lemma): with ``c`` the centres, ``rho >= ||x - c||``, ``N(x) = sqrt(||x||^2 / n + eps)``
        and ``N_low`` its least value on the ball, ``||x / N(x) - c / N(c)|| <= rho / N_low`` and
        ``|x_i| / N(x) <= sqrt(n)``; the float format's rounding is relative, ``tau``, plus ``eta``
        per operation."""
        r = self.rounding
        e = arb(eps)
        c = [flint.arb(xi.mid()) for xi in x]
        rho = root(sum((sq(flint.arb(xi.rad())) for xi in x), flint.arb(0)))
        norm_c = sum((sq(ci) for ci in c), flint.arb(0)).sqrt()
        gap = lo(norm_c - rho)
        n_low = lo((sq(gap if gap > 0 else flint.arb(0)) / n + e).sqrt())
        n_high = hi((sq(hi(norm_c + rho)) / n + e).sqrt())
        lip = hi(rho / n_low)
        cap = hi(flint.arb(n).sqrt())
        centre = (sq(norm_c) / n + e).sqrt()
        u, eta = arb(r.u), arb(r.eta)
        d1 = hi((1 + r.gamma(len(x)) + eta / e) * (1 + 2 * u) - 1 + eta / e)  # of ||x||^2 / n + eps
        d3 = hi((1 - d1).rsqrt() * (1 + 4 * u) - 1 + eta * n_high)           # of 1 / sqrt(...)
        tau = hi((1 + d3) * (1 + 2 * u) ** (1 if w is None else 2) - 1)
        out = []
        for ci, wi in zip(c, w or [1.0] * len(x)):
            y = (ci / centre + flint.arb(0, 1) * lip).intersection(flint.arb(0, 1) * cap) * arb(wi)
            if r.u != 0.0:
                y += flint.arb(0, 1) * (tau * abs(y).upper() + eta * (abs(arb(wi)) * (1 + 2 * u) + 1))
            out.append(y)
        return out

    def token_inputs(self, token: int) -> dict:
        """The per-token quantities (balls): residual ``x``, per head query ``q`` (heads, dk) and the
        output gate's pre-activation, the keys ``k`` (K, heads, dk), values ``v`` (K, heads, dv),
        ``beta`` (K, heads) and ``decay`` (heads,)."""
        if token in self._tokens:
            return self._tokens[token]
        c, r, lay = self.config, self.rounding, self.layer
        H, Hk, K, dk, dv = c.heads, c.key_heads, c.householders, c.head_k_dim, c.head_v_dim
        x = [arb(v) for v in _rows(self.model.embeddings, self.td)[token]]
        h = self._rms(x, self.block.attn_norm)
        q = self._vec(_rows(lay.q, self.td), h)
        k = self._vec(_rows(lay.k, self.td), h)
        v = [r.op(z * _sigmoid(z), 4.0) for z in self._vec(_rows(lay.v, self.td), h)]
        if c.qk_activation == "silu":
            q = [r.op(z * _sigmoid(z), 4.0) for z in q]
            k = [r.op(z * _sigmoid(z), 4.0) for z in k]
        qh = [self._l2(q[i * dk:(i + 1) * dk], dk) for i in range(Hk)]
        kh = [[self._l2(k[(j * Hk + i) * dk:(j * Hk + i + 1) * dk], None) for i in range(Hk)] for j in range(K)]
        rep = H // Hk
        out: dict = {"x": x, "q": [qh[i // rep] for i in range(H)], "k": [[kh[j][i // rep] for i in range(H)] for j in range(K)],
               "v": [[v[(j * H + i) * dv:(j * H + i + 1) * dv] for i in range(H)] for j in range(K)],
               "h": h}
        if lay.b is not None:
            bl = self._vec(_rows(lay.b, self.td), h)
            beta = [[r.op(_sigmoid(bl[j * H + i]), 4.0) for i in range(H)] for j in range(K)]
        else:
            beta = [[flint.arb(1)] * H for _ in range(K)]
        if c.neg_eigval:
            beta = [[2 * b for b in row] for row in beta]
        out["beta"] = beta
        if lay.a is not None:
            a = self._vec(_rows(lay.a, self.td), h)
            A_log, dt_bias = _rows(lay.A_log, self.td), _rows(lay.dt_bias, self.td)
            decay = []
            for i in range(H):
                z = r.op(a[i] + arb(dt_bias[i]))
                sp = r.op((1 + z.exp()).log(), 4.0)
                decay.append(r.op((-r.op(arb(A_log[i]).exp(), 4.0) * sp).exp(), 4.0))
            out["decay"] = decay
        else:
            out["decay"] = [flint.arb(1)] * H
        out["gate"] = None if lay.g is None else self._vec(_rows(lay.g, self.td), h)
        self._tokens[token] = out
        return out

    def _l2(self, x: list, dk: int | None) -> list:
        """``x / sqrt(||x||^2 + 1e-6)`` (fla's l2norm), times ``dk^(-1/2)`` for a query."""
        return self._normalise(x, 1, 1e-6, None if dk is None else [float(dk) ** -0.5] * len(x))

    def logits(self, states: list, token: int) -> list:
        """Balls of the class logits after reading ``token`` into ``states`` (per head a dk x dv
        nested list of balls: the state *after* the step)."""
        c, r, lay, blk = self.config, self.rounding, self.layer, self.block
        inp = self.token_inputs(token)
        o: list = []
        for i, S in enumerate(states):
            q = inp["q"][i]
            oi = [r.dot([S[a][j] for a in range(len(q))], q) for j in range(c.head_v_dim)]
            oi = self._rms(oi, lay.o_norm)
            if inp["gate"] is not None:
                g = inp["gate"][i * c.head_v_dim:(i + 1) * c.head_v_dim]
                act = [_sigmoid(z) if c.gate_act == "sigmoid" else z * _sigmoid(z) for z in g]
                oi = [r.op(x * r.op(y, 4.0)) for x, y in zip(oi, act)]
            o += oi
        y = self._vec(_rows(lay.o, self.td), o)
        x1 = [r.op(a + b) for a, b in zip(inp["x"], y)]
        if blk.mlp_norm is not None:
            hm = self._rms(x1, blk.mlp_norm)
            gate = self._vec(_rows(blk.gate, self.td), hm)
            up = self._vec(_rows(blk.up, self.td), hm)
            mid = [r.op(r.op(z * _sigmoid(z), 4.0) * u_) for z, u_ in zip(gate, up)]
            x1 = [r.op(a + b) for a, b in zip(x1, self._vec(_rows(blk.down, self.td), mid))]
        hf = self._rms(x1, self.model.norm, self.model.zero_centred)
        head = _rows(self.model.head, self.td)
        return [r.dot([arb(w) for w in head[t]], hf) for t in self.labels]


def step_rounding(r: Rounding, norm: flint.arb, kap: flint.arb, nu: flint.arb, bb: flint.arb, K: int, dk: int,
                  dv: int) -> flint.arb:
    """Theorem A7's bound ``rho`` of one step's rounding (Frobenius norm) of a head in format ``r`` at a
    state of norm at most ``norm``: ``u P + K gamma_{dk+4} (1 + bb kap) (P + bb kap (nu + kap P))
    + K (dk + 5) dk dv eta`` with ``P = (1 + bb kap^2)^K norm + K bb kap nu`` (``kap``, ``nu``, ``bb``:
    the largest key norm, value norm and beta); infinite where ``P`` reaches a quarter of the format's
    largest number (overflow is excluded, not charged); 0 in real arithmetic."""
    if r.u == 0.0:
        return flint.arb(0)
    P = (1 + bb * kap * kap) ** K * norm + K * bb * kap * nu
    if not float(P.upper()) < largest(r.name) / 4:
        return flint.arb("inf")
    return (arb(r.u) * P + K * r.gamma(dk + 4) * (1 + bb * kap) * (P + bb * kap * (nu + kap * P))
            + arb(K * (dk + 5) * dk * dv) * arb(r.eta)).upper()


def margin(logits: list, label: int) -> flint.arb:
    """A ball below ``logit[label] - max_other``: its lower end is a lower bound of the head's
    margin, positive (``margin(...) > 0``) only when the argmax is ``label`` for certain; minus
    infinity where a logit is not a finite ball (an undecided margin is never skipped as a large one)."""
    diffs = [(logits[label] - z).lower() for i, z in enumerate(logits) if i != label]
    if not diffs:
        return flint.arb(1)
    if not all(d.is_finite() for d in diffs):
        return flint.arb.neg_inf()
    low = diffs[0]
    for d in diffs[1:]:
        low = d if d < low else low
    return low


def affine_balls(inp: dict, i: int, K: int):
    """Head i's transition in balls from the per-token quantities: ``A = H_K..H_1 decay``, ``b``."""
    k0 = inp["k"][0][i]
    dk, dv = len(k0), len(inp["v"][0][i])
    A = flint.arb_mat(dk, dk)
    for a in range(dk):
        A[a, a] = inp["decay"][i]
    b = flint.arb_mat(dk, dv)
    for j in range(K):
        k = flint.arb_mat([[x] for x in inp["k"][j][i]])
        v = flint.arb_mat([[x] for x in inp["v"][j][i]])
        H = _eye(dk) - inp["beta"][j][i] * (k * k.transpose())
        A, b = H * A, H * b + inp["beta"][j][i] * (k * v.transpose())
    return A, b


def _eye(n: int) -> flint.arb_mat:
    E = flint.arb_mat(n, n)
    for i in range(n):
        E[i, i] = 1
    return E
