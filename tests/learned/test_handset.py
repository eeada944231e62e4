"""Fixture (b): a hand-set fla GatedDeltaProduct checkpoint that computes S_3.

Checked through fla's own pure-PyTorch reference (``naive_recurrent_gated_delta_product``; fla's
Triton kernels do not run on CPU), with the layer's inputs computed here in the order of fla's
``GatedDeltaProduct.forward`` (silu, the kernel's l2norm with eps 1e-6, ``beta = 2 sigmoid``,
``g = -exp(A_log) softplus(a + dt_bias)``) and the block's residual, norms and MLP as
``GatedDeltaProductBlock`` has them.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

torch = pytest.importorskip("torch")
fla_models = pytest.importorskip("fla.models")
naive = pytest.importorskip("fla.ops.gated_delta_product.naive")

from bilinear.learned.handset import RHO, S3_TOKENS, gated_deltaproduct_s3, s3_construction  # noqa: E402

F = torch.nn.functional


@pytest.fixture(scope="module", params=[True, False], ids=["gate", "no-gate"])
def fixture_b(request, tmp_path_factory):
    """The checkpoint folder, written by fla's save_pretrained, and the model fla loads back."""
    folder = tmp_path_factory.mktemp("fixture_b")
    built = gated_deltaproduct_s3(folder, forget_gate=request.param)
    loaded = fla_models.GatedDeltaProductForCausalLM.from_pretrained(folder)
    return folder, built, loaded


def _rms(x, w, eps):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w


def _layer_inputs(model, tokens):
    """q, k, v, g, beta of layer 0 for token ids (batch, time), in fla's order of operations."""
    block = model.model.layers[0]
    attn, eps = block.attn, model.config.norm_eps
    x = model.model.embeddings.weight[tokens]
    h = _rms(x, block.attn_norm.weight, eps)
    B, T = tokens.shape
    n, dk, dv = attn.num_householder, attn.head_k_dim, attn.head_v_dim
    q = F.silu(attn.q_proj(h)).reshape(B, T, 1, dk)
    k = F.silu(attn.k_proj(h)).reshape(B, T, n, 1, dk).reshape(B, T * n, 1, dk)
    v = F.silu(attn.v_proj(h)).reshape(B, T, n, 1, dv).reshape(B, T * n, 1, dv)
    q = q * torch.rsqrt(q.pow(2).sum(-1, keepdim=True) + 1e-6)  # fla's l2norm_fwd, eps 1e-6
    k = k * torch.rsqrt(k.pow(2).sum(-1, keepdim=True) + 1e-6)
    beta = attn.b_proj(h).sigmoid() * 2.0
    beta = beta.reshape(B, T, n, 1).reshape(B, T * n, 1)
    g = None
    if attn.use_forget_gate:
        g = -attn.A_log.float().exp() * F.softplus(attn.a_proj(h).float() + attn.dt_bias)
    return x, q, k, v, g, beta


def _labels(model, tokens):
    """The argmax of the logits at every position (batch, time), and the smallest logit gap."""
    block = model.model.layers[0]
    attn, eps = block.attn, model.config.norm_eps
    x, q, k, v, g, beta = _layer_inputs(model, tokens)
    o, _ = naive.naive_recurrent_gated_delta_product(q, k, v, g, beta, scale=attn.head_k_dim ** -0.5,
                                                     num_householder=attn.num_householder)
    o = _rms(o, attn.o_norm.weight, eps).flatten(2)
    z = x + attn.o_proj(o)
    mlp = block.mlp
    m = _rms(z, block.mlp_norm.weight, eps)
    z = z + mlp.down_proj(F.silu(mlp.gate_proj(m)) * mlp.up_proj(m))
    logits = model.lm_head(_rms(z, model.model.norm.weight, eps))
    top = logits.topk(2, dim=-1).values
    return logits.argmax(-1), float((top[..., 0] - top[..., 1]).min())


def test_saved_by_fla_and_loaded_back_by_fla(fixture_b) -> None:
    folder, built, loaded = fixture_b
    assert (folder / "config.json").is_file() and (folder / "model.safetensors").is_file()
    cfg = loaded.config
    assert (cfg.num_householder, cfg.use_short_conv, cfg.allow_neg_eigval, cfg.num_hidden_layers) == (2, False, True, 1)
    mine, theirs = built.state_dict(), loaded.state_dict()
    assert set(mine) == set(theirs) and all(torch.equal(mine[k], theirs[k]) for k in mine)


def test_per_token_transitions_are_the_hand_construction(fixture_b) -> None:
    """One step of fla's naive reference from S_0 = 0 and from S_0 = E_ij gives, per token, the
    matrix A_a (on the key space) and the additive term B_a of S -> A_a S + B_a; they equal the
    construction's A_a and (I - A_a) C, C = RHO I, to float32 precision."""
    _, _, model = fixture_b
    con = s3_construction()
    attn = model.model.layers[0].attn
    worst = 0.0
    with torch.no_grad():
        for a in range(3):
            _, q, k, v, g, beta = _layer_inputs(model, torch.tensor([[a]]))
            starts = torch.zeros(5, 1, 2, 2)
            for i in range(2):
                for j in range(2):
                    starts[1 + 2 * i + j, 0, i, j] = 1024.0  # large: B (about 2 RHO) rounds in float32
            expand = (lambda t: None if t is None else t.expand(5, *t.shape[1:]))
            _, S = naive.naive_recurrent_gated_delta_product(
                expand(q), expand(k), expand(v), expand(g), expand(beta), scale=1.0,
                initial_state=starts, output_final_state=True, num_householder=attn.num_householder)
            B = S[0, 0].double().numpy()
            A = np.stack([S[1 + 2 * i, 0, :, 0].double().numpy() - B[:, 0] for i in range(2)], axis=1) / 1024.0
            assert np.abs(A - con["A"][a]).max() < 1e-6
            want_B = (np.eye(2) - con["A"][a]) @ con["C"]
            assert np.abs(B - want_B).max() < 1e-6 * RHO
            worst = max(worst, float(np.abs(A - con["A"][a]).max()))
    print(f"largest deviation of fla's per-token transition from the construction: {worst:.2e}")


def test_whole_model_label_tracks_s3_on_every_word_to_length_6(fixture_b) -> None:
    _, _, model = fixture_b
    automaton = s3_construction()["automaton"]
    assert list(automaton.symbols) == list(S3_TOKENS) and automaton.n_classes == 6
    words = np.array(list(itertools.product(range(3), repeat=6)))  # every word of length 6: all prefixes too
    with torch.no_grad():
        labels, gap = _labels(model, torch.from_numpy(words))
    want = np.stack([[automaton.label(list(w[:t + 1])) for t in range(6)] for w in words])
    assert np.array_equal(labels.numpy(), want)
    assert gap > 0.02  # the smallest logit gap (about 0.033: theta sits between the right and the best wrong score)
    print(f"fixture (b): 729 words x 6 positions right, smallest logit gap {gap:.4f}")


def test_a_broken_reflection_is_seen_by_the_same_check(fixture_b, tmp_path) -> None:
    """The check can fail: beta = 1.5 (b = 1.1 instead of 256) on t1's reflection is a transition
    with eigenvalue -0.5, no longer the construction, and the labels stop tracking S_3."""
    _, _, model = fixture_b
    broken = fla_models.GatedDeltaProductForCausalLM.from_pretrained(fixture_b[0])
    with torch.no_grad():
        W = broken.model.layers[0].attn.b_proj.weight
        W[0, 0] = W[0, 0] * (1.0986 / 256.0)  # sigmoid(1.0986) = 3/4: beta = 1.5
    words = np.array(list(itertools.product(range(3), repeat=6)))
    with torch.no_grad():
        labels, _ = _labels(broken, torch.from_numpy(words))
    automaton = s3_construction()["automaton"]
    want = np.stack([[automaton.label(list(w[:t + 1])) for t in range(6)] for w in words])
    assert not np.array_equal(labels.numpy(), want)


def test_the_exact_counterpart_is_proved_and_is_what_fla_computes() -> None:
    """s3_affine (exact, householder:2 with factors, one value column) is proved for every length,
    and its matrices are the float construction that fla's reference was compared with above."""
    from bilinear.constructions import prove
    from bilinear.learned.handset import s3_affine

    aff = s3_affine()
    con = s3_construction()
    proof = prove(aff, con["automaton"])
    assert proof.status == "proved" and proof.hidden_states == 6 and proof.conductor == 12
    A = np.array([[[float(x) for x in row] for row in M] for M in aff.A])
    assert np.abs(A - con["A"]).max() < 1e-15
    b = np.array([[float(x) for x in row] for row in aff.b])
    assert np.abs(b - np.stack([(np.eye(2) - M) @ con["C"][:, 0] for M in con["A"]])).max() < 1e-12
