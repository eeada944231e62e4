"""A hand-set flash-linear-attention checkpoint that computes S_3: a fixture and an example.

:func:`gated_deltaproduct_s3` builds a 1-layer fla ``GatedDeltaProductForCausalLM``
(``num_householder=2``, ``use_short_conv=False``, ``allow_neg_eigval=True``, one head with key and
value size 2) with fla's own classes, sets every parameter by hand and writes it with fla's
``save_pretrained`` (``config.json`` + ``model.safetensors``).  Its per-token transitions on a
three-token alphabet are the exact construction :func:`s3_construction`: the symmetries of a
triangle, two generalised reflections per token,

    t1 = H(n_0, 2) H(n_0, 0),   t2 = H(n_60, 2) H(n_60, 0),   c = H(n_60, 2) H(n_0, 2)

(``H(n, beta) = I - beta n n^T``, the right factor acts first; ``n_0 = (1, 0)``,
``n_60 = (1/2, sqrt 3 / 2)``; both keys have no negative entry, so silu passes them unchanged).
The values are ``v = rho k`` (``rho = 128``), so every factor fixes ``C = rho I``: the state after
a word ``w`` is ``S_w = rho (I - A_w)`` from ``S_0 = 0`` (docs/theory.md, Theorem A1's fixed
point), and ``o = S^T q = rho (q - A_w^T q)`` with ``q`` from every token along ``(4, 1)``, which
lies on no mirror: the five non-identity elements give five different directions of ``o``, the
identity ``o = 0``.  The head reads the class from that direction: ``o_norm`` (RMSNorm, a positive
scale), ``o_proj`` writes ``o`` into two coordinates of the residual stream, the MLP adds 0
(``down_proj = 0``), and ``lm_head``'s row of element ``g`` is the unit direction ``u_g`` of
``o(g)``, the identity's row ``theta`` times the constant coordinate every embedding carries.

What is exact and what is float (fla's order of operations, ``fla/layers/gated_deltaproduct.py``):

* ``beta = 2 sigmoid(b)``: ``b = +-2^8``: ``sigmoid(256)`` is 1 in float32 and float64,
  ``sigmoid(-256)`` is 0 in float32 and 7e-112 in float64; in real arithmetic ``beta`` is never
  exactly 2 or 0;
* keys: ``k = l2norm(silu(W_k x))`` with fla's ``eps = 1e-6`` inside the square root; the
  pre-activations are 0 or at least 2^15, where silu is the identity and ``|x|^2 + 1e-6`` rounds to
  ``|x|^2`` in float32 and float64; ``n_60`` carries ``sqrt 3`` rounded to float32;
* the gate (``forget_gate=True``): ``g = -exp(A_log) softplus(a + dt_bias)`` with ``A_log =
  dt_bias = -60`` and ``a = 0``: ``exp(g)`` is exactly 1 in float32 (``g`` underflows to 0) and in
  float64 (``|g| < 2^-53``), and ``1 - 7.7e-53`` in real arithmetic.  ``forget_gate=False``
  builds the layer without a gate (``use_forget_gate=False``): then no gate at all;
* the head: RMSNorms and ``lm_head`` are positive scales or linear, exact up to float rounding.

Tokens: symbol ``a`` of :func:`s3_automaton` (``t1``, ``t2``, ``c``) is token id ``a``; the
vocabulary has 6 ids and logit ``c`` is class ``c`` of the automaton (its six group elements).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from bilinear.errors import SpecError

__all__ = ["s3_automaton", "s3_construction", "s3_affine", "gated_deltaproduct_s3", "S3_TOKENS", "RHO"]

#: Symbol name -> token id of the hand-set model.
S3_TOKENS = {"t1": 0, "t2": 1, "c": 2}
#: The value scale: every factor fixes the state ``RHO * I``.
RHO = 128.0
_KEY_SCALE = 2.0**17  # key pre-activations: silu is the identity there and |x|^2 absorbs fla's eps
_Q_SCALE = 2.0**15
_BETA_LOGIT = 256.0


def _reflection(n: np.ndarray, beta: float) -> np.ndarray:
    return np.eye(2) - beta * np.outer(n, n) / float(n @ n)


def _normals() -> tuple[np.ndarray, np.ndarray]:
    return np.array([1.0, 0.0]), np.array([0.5, math.sqrt(3) / 2])


def s3_construction() -> dict:
    """The hand construction (float64): per token its two factors ``(key, beta)`` in fla's order
    (factor 0 acts first), the matrices ``A`` (tokens, 2, 2), the fixed point ``C = RHO I``, the
    query direction ``q`` and the automaton.

    >>> con = s3_construction()
    >>> [round(float(x), 12) for x in np.linalg.eigvals(con["A"][2]).real], con["A"].shape
    ([-0.5, -0.5], (3, 2, 2))
    """
    n0, n60 = _normals()
    factors = [((n0, 2.0), (n0, 0.0)), ((n60, 2.0), (n60, 0.0)), ((n0, 2.0), (n60, 2.0))]
    A = np.stack([_reflection(f[1][0], f[1][1]) @ _reflection(f[0][0], f[0][1]) for f in factors])
    q = np.array([4.0, 1.0]) / math.sqrt(17.0)
    return {"factors": factors, "A": A, "C": RHO * np.eye(2), "q": q, "automaton": s3_automaton(A)}


def s3_affine():
    """The exact counterpart of one value column of the fixture: ``AffineWeights`` of variant
    ``householder:2`` (entries in Q(zeta_12)), the reflections of :func:`s3_construction` as factors
    (toolkit order: ``A[s] = H(V[s,0]) H(V[s,1])``, the last factor acts first, so fla's factor 0 is
    ``V[s,1]``), ``b_a = RHO (I - A_a) e_0`` (the fixed point ``RHO e_0``, column 0 of ``C``),
    ``h0 = 0``, and the readout of Theorem 2 on the orbit of ``-RHO e_0`` (``e_0`` lies on no mirror).
    A fixed readout of the state, not the model's head (that is docs/theory.md, Theorem A5's next
    step).

    >>> from bilinear.constructions import prove
    >>> aff = s3_affine()
    >>> aff.variant, aff.dim, prove(aff, s3_automaton()).status
    ('householder:2', 2, 'proved')
    """
    from bilinear.constructions.exact.field import sin2pi
    from bilinear.constructions.values.affine import AffineWeights
    from bilinear.constructions.values.factored import householder_compose

    n0, n60 = [1, 0], [1, 2 * sin2pi(1, 6)]  # (1, sqrt 3): along (1/2, sqrt 3 / 2)
    V = np.array([[n0, n0], [n60, n60], [n60, n0]], dtype=object)
    beta = np.array([[0, 2], [0, 2], [2, 2]], dtype=object)
    A = householder_compose(V, beta)
    rho = int(RHO)
    e0 = np.array([rho, 0], dtype=object)
    b = [list(e0 - A[a].dot(e0)) for a in range(3)]
    automaton = s3_automaton()
    rows = [None] * automaton.n_classes
    for q, word in _access_words(automaton).items():
        p = -e0
        for a in word:
            p = A[a].dot(p)
        rows[int(automaton.labels[q])] = list(p) + [-p.dot(e0)]  # score_g = p_g . (h - RHO e_0)
    return AffineWeights("householder:2", A, b, rows, factors=(V, beta))


def s3_automaton(A: np.ndarray | None = None):
    """The word problem of S_3 over ``t1``, ``t2``, ``c``: each token permutes the vertices
    ``p_i = (cos, sin)(90 + 120 i degrees)`` of the triangle the way its matrix moves them."""
    from bilinear.automata.families import from_permutations

    A = s3_construction()["A"] if A is None else A
    p = [np.array([math.cos(math.radians(90 + 120 * i)), math.sin(math.radians(90 + 120 * i))]) for i in range(3)]
    gens = []
    for M in A:
        images = [int(np.argmin([np.linalg.norm(M @ p[i] - p[j]) for j in range(3)])) for i in range(3)]
        gens.append(tuple(images))
    return from_permutations(gens, symbols=list(S3_TOKENS), name="S3-triangle")


def _access_words(automaton) -> dict[int, tuple[int, ...]]:
    """A shortest word reaching each reachable state."""
    from bilinear.automata.minimize import access_words

    reach = access_words(automaton)
    return {int(q): tuple(w) for q, w in zip(reach.states.tolist(), reach.each_word())}


def head_rows(con: dict) -> tuple[np.ndarray, float]:
    """``(rows (classes, 2), theta)``: the unit direction of ``o`` for each non-identity class (0 for
    the identity) and the identity's score ``theta``, between the best wrong and the right score of
    the RMS-normalised ``o`` (norm sqrt 2)."""
    automaton = con["automaton"]
    rows = np.zeros((automaton.n_classes, 2))
    identity = None
    for q, word in _access_words(automaton).items():
        M = np.eye(2)
        for a in word:
            M = con["A"][a] @ M
        o = con["q"] - M.T @ con["q"]
        label = int(automaton.labels[q])
        if np.linalg.norm(o) < 1e-9:
            identity = label
        else:
            rows[label] = o / np.linalg.norm(o)
    if identity is None:  # pragma: no cover - the empty word reaches the identity
        raise SpecError("internal error: no identity element")
    cos = [float(rows[a] @ rows[b]) for a in range(len(rows)) for b in range(len(rows))
           if a != b and a != identity and b != identity]
    theta = math.sqrt(2) * (1 + max(cos)) / 2
    return rows, theta


def gated_deltaproduct_s3(directory, *, forget_gate: bool = True):
    """Build the hand-set model with fla's classes and ``save_pretrained`` it into ``directory``.

    Returns the model (float32, on CPU).  Needs the ``[fla]`` extra (``flash-linear-attention``
    and ``triton``: fla's import needs triton, though its kernels do not run on CPU).
    """
    import torch
    from fla.models import GatedDeltaProductConfig, GatedDeltaProductForCausalLM

    con = s3_construction()
    config = GatedDeltaProductConfig(
        vocab_size=6, hidden_size=6, num_hidden_layers=1, num_heads=1, head_dim=2, expand_v=1.0,
        num_householder=2, use_short_conv=False, allow_neg_eigval=True, use_forget_gate=forget_gate,
        use_output_gate=False, intermediate_size=4, norm_eps=1e-6, tie_word_embeddings=False,
        bos_token_id=None, eos_token_id=None,
    )
    model = GatedDeltaProductForCausalLM(config)
    values = _parameters(con, forget_gate)
    with torch.no_grad():
        state = model.state_dict()
        for name, value in values.items():
            if tuple(state[name].shape) != value.shape:  # pragma: no cover - a changed fla layout
                raise SpecError(f"fla's {name} has shape {tuple(state[name].shape)}, expected {value.shape}")
            state[name].copy_(torch.from_numpy(value))
        missing = set(state) - set(values)
        if missing:  # pragma: no cover - a changed fla layout
            raise SpecError(f"fla's GatedDeltaProduct has parameters this builder does not set: {sorted(missing)}")
    Path(directory).mkdir(parents=True, exist_ok=True)
    model.save_pretrained(directory)
    return model


def _parameters(con: dict, forget_gate: bool) -> dict[str, np.ndarray]:
    """Every parameter of the model (float32 arrays by state-dict name).  Hidden coordinates:
    0-2 the token, 3 a constant 1, 4-5 the head's copy of ``o``."""
    f32 = np.float32
    s = 1.0 / math.sqrt(2.0 / 6.0 + 1e-6)  # attn_norm's scale: every embedding is e_a + e_3
    emb = np.zeros((6, 6))
    emb[:, 3] = 1.0
    for a in range(3):
        emb[a, a] = 1.0
    L = "model.layers.0."
    Wq, Wk, Wv, Wb = np.zeros((2, 6)), np.zeros((4, 6)), np.zeros((4, 6)), np.zeros((2, 6))
    Wq[:, 3] = _Q_SCALE * np.array([4.0, 1.0]) / s  # the same query for every token
    for a, factors in enumerate(con["factors"]):
        for j, (key, beta) in enumerate(factors):
            Wk[2 * j:2 * j + 2, a] = _KEY_SCALE * key / s
            Wv[2 * j:2 * j + 2, a] = RHO * key / s  # v = C^T k: each factor fixes C = RHO I
            Wb[j, a] = (_BETA_LOGIT if beta == 2.0 else -_BETA_LOGIT) / s
    o_proj = np.zeros((6, 2))
    o_proj[4:6, :] = np.eye(2)
    rows, theta = head_rows(con)
    head = np.zeros((6, 6))
    head[:, 4:6] = rows
    identity = int(np.nonzero(np.abs(rows).sum(axis=1) == 0)[0][0])
    head[identity, 3] = theta
    out = {
        "model.embeddings.weight": emb, L + "attn_norm.weight": np.ones(6),
        L + "attn.q_proj.weight": Wq, L + "attn.k_proj.weight": Wk, L + "attn.v_proj.weight": Wv,
        L + "attn.b_proj.weight": Wb, L + "attn.o_norm.weight": np.ones(2), L + "attn.o_proj.weight": o_proj,
        L + "mlp_norm.weight": np.ones(6), L + "mlp.gate_proj.weight": np.zeros((4, 6)),
        L + "mlp.up_proj.weight": np.zeros((4, 6)), L + "mlp.down_proj.weight": np.zeros((6, 4)),
        "model.norm.weight": np.ones(6), "lm_head.weight": head,
    }
    if forget_gate:
        out[L + "attn.A_log"] = np.array([-60.0])
        out[L + "attn.dt_bias"] = np.array([-60.0])
        out[L + "attn.a_proj.weight"] = np.zeros((1, 6))
    return {k: np.asarray(v, dtype=f32) for k, v in out.items()}
