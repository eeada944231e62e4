"""RWKV-7 read from an fla folder: per-window transitions (``dplr:1``) whose lifted recurrence
reproduces the model's own float64 states (1e-12: both sides float64, the same products in another
order), the variant checked on the matrices against an independent eigenvalue computation, the
deeper layer sampled, a wrong reader seen by the oracle, and bad folders refused in one line."""

from __future__ import annotations

import dataclasses
import json
import shutil

import numpy as np
import pytest
import torch

from bilinear.errors import CheckpointError, ConfigError
from bilinear.learned.external import head_transitions, load_external
from bilinear.learned.external.rwkv7 import W_SCALE

from external_fixtures import lifted_states, need, oracle


@pytest.mark.parametrize("bos", [None, 5])
def test_window_transitions_reproduce_the_states(bos, saved):
    folder, _ = saved("rwkv7")
    m = load_external(folder)
    tr = m.as_tracker(tokens="a=1,b=3,c=4", labels="0=0,1=2", bos=bos)
    heads = head_transitions(m, tr, layer=0)
    assert heads[0].keys == ("a", "b", "c", "a·a", "a·b", "a·c", "b·a", "b·b", "b·c", "c·a", "c·b", "c·c")
    assert heads[0].windows == ((0,), (1,), (2,)) + tuple((i, j) for i in range(3) for j in range(3))
    words = np.random.default_rng(2).integers(0, 3, size=(4, 10))
    S = m.states(tr.token_ids(words))[0].numpy()[:, 0 if bos is None else 1:]   # (B, T, H, dk, dv)
    keys = {t: i for i, t in enumerate(heads[0].windows)}
    worst = 0.0
    for h in heads:
        assert h.exact and h.identified.variant == "dplr:1" and h.identified.rank == 1
        L = h.lifted()
        for b, word in enumerate(words):
            idx = [keys[tuple(int(s) for s in word[max(0, t - 1):t + 1])] for t in range(len(word))]
            want = S[b, :, h.head].reshape(len(word), -1, order="F")
            worst = max(worst, float(np.abs(lifted_states(L, idx) - want).max() / np.abs(want).max()))
    print(f"rwkv7 bos={bos}: lifted window transitions vs the model's states, largest relative deviation {worst:.1e}")
    assert worst < 1e-12


def test_the_variant_and_its_ranges(saved):
    """dplr:1 on the matrices; the decays inside fla's bound (exp(-e^-1/2), 1); the eigenvalues, computed
    here from A itself, real and in (min w - 1, max w): a symmetric-definite rank-one update of a
    diagonal (kappa^T (a * kappa) in (0, 1)) can move them only that far."""
    folder, _ = saved("rwkv7")
    m = load_external(folder)
    for h in head_transitions(m, m.as_tracker(tokens="a=1,b=3", labels="0=0,1=2"), layer=0):
        ident = h.identified
        ev = np.linalg.eigvals(h.A)
        assert np.abs(ev.imag).max() < 1e-9 and ident.imag < 1e-9
        assert ident.eigen == (ev.real.min(), ev.real.max())
        assert np.exp(-W_SCALE) < h.D.min() and h.D.max() < 1
        assert h.D.min() - 1 < ev.real.min() and ev.real.max() < h.D.max() + 1e-12
        assert 0 < ident.beta[0] <= ident.beta[1] < 1
        Wt = h.homogeneous(2)
        assert Wt.variant == "dplr:1" and np.allclose(np.asarray(Wt.A, dtype=float), h.A, rtol=0, atol=1e-12)
    broken = dataclasses.replace(h, A=h.A + np.eye(h.A.shape[1]) * np.arange(h.A.shape[1]) * 1e-3)
    assert broken.identified.variant == "full"  # A - diag(w) of rank > 1: not this variant


def test_deeper_layers_are_sampled(saved):
    folder, _ = saved("rwkv7")
    m = load_external(folder)
    heads = head_transitions(m, m.as_tracker(tokens="a=1,b=3", labels="0=0,1=2"), layer=1)
    assert len(heads) == 4 and heads[0].keys == ("a", "b") and not heads[0].exact
    assert heads[0].spread is not None and heads[0].spread.shape == (2,) and heads[0].spread.max() > 0


def test_a_wrong_reader_is_seen(saved):
    """The oracle comparison can fail: without layer 0's v_first in layer 1 (v left as is), the
    logits move far beyond the forward test's tolerance."""
    folder, live = saved("rwkv7")
    m = load_external(folder)
    b1 = m.blocks[1]
    wrong = dataclasses.replace(m, blocks=(m.blocks[0], dataclasses.replace(
        b1, mixer=dataclasses.replace(b1.mixer, v_lora=(b1.mixer.v_lora[0], b1.mixer.v_lora[1],
                                                        torch.full_like(b1.mixer.v_lora[2], -60.0))))))
    ids = torch.as_tensor(np.random.default_rng(1).integers(0, 6, size=(3, 12)))
    expected = oracle(live, ids, "rwkv7")
    assert np.abs(m.logits(ids.numpy()) - expected).max() / np.abs(expected).max() < 1e-4
    assert np.abs(wrong.logits(ids.numpy()) - expected).max() / np.abs(expected).max() > 1e-2


def _copy(folder, dst, config=None, edit=None):
    shutil.copytree(folder, dst)
    if config is not None:
        cfg = json.loads((dst / "config.json").read_text())
        (dst / "config.json").write_text(json.dumps({**cfg, **config}))
    if edit is not None:
        need("safetensors")
        from safetensors.torch import load_file, save_file

        t = load_file(f"{dst}/model.safetensors")
        edit(t)
        save_file(t, f"{dst}/model.safetensors")
    return str(dst)


def test_bad_folders_are_refused_naming_the_item(saved, tmp_path, capsys):
    """An unsupported flag, a missing tensor, a tensor of the wrong shape, a window alphabet over its
    limit: ``analyze --from`` says so in one line, exits 2 and writes nothing."""
    from bilinear.cli import main

    folder, _ = saved("rwkv7")
    out = tmp_path / "out"
    base = ["analyze", "--task", "parity", "--tokens", "0=1,1=2", "--out", str(out), "--from", "fla"]

    def one_line(folder_, message, argv=base):
        assert main(argv + [folder_]) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1, err
        assert not out.exists()

    capsys.readouterr()
    for name, cfg, message in (
            ("vd", {"value_dim": [32, 32]}, "config flag value_dim = [32, 32] is not supported for rwkv7"),
            ("act", {"hidden_act": "relu"}, "config flag hidden_act = 'relu' is not supported for rwkv7"),
            ("attn", {"attn": {"layers": [1], "num_heads": 2}}, "config flag attn = "),
            ("hd", {"head_dim": 5}, "config field head_dim = 5 does not divide hidden_size = 16 for rwkv7")):
        one_line(_copy(folder, tmp_path / name, config=cfg), message)
    with pytest.raises(ConfigError, match=r"value_dim = \[32, 32\]"):  # the library raises the same, typed
        load_external(str(tmp_path / "vd"))
    one_line(_copy(folder, tmp_path / "missing", edit=lambda t: t.pop("model.layers.1.attn.v_lora.lora.2.bias")),
             "missing tensor 'model.layers.1.attn.v_lora.lora.2.bias'")

    def reshape(t):
        t["model.layers.0.attn.r_k"] = t["model.layers.0.attn.r_k"][:, :3].contiguous()

    wrong = _copy(folder, tmp_path / "wrong", edit=reshape)
    one_line(wrong, "tensor 'model.layers.0.attn.r_k' has shape (4, 3), expected (4, 4)")
    with pytest.raises(CheckpointError, match="r_k"):
        load_external(wrong)
    from external_fixtures import make_model

    make_model("rwkv7", vocab=64).save_pretrained(tmp_path / "v64")  # each symbol its own token
    capsys.readouterr()  # the library's own progress lines
    tokens = ",".join(f"{i}={i}" for i in range(64))  # 64 + 64^2 windows of the token shift
    one_line(str(tmp_path / "v64"), "window alphabet: 64 symbols over a window of 2 tokens make 4,160 windows, over "
             "the limit 4,096", ["analyze", "--task", "cyclic:64", "--tokens", tokens, "--labels", tokens, "--out", str(out),
                                 "--from", "fla"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["act", "attn", "hd", "missing", "v64", "vd", "wrong"]


def test_theorem_f15_on_random_matrices():
    """Theorem F15 checked on random parameters, extreme ones included (a near 0 and 1, w near fla's
    bounds): real eigenvalues in (min w - 1, max w]."""
    rng = np.random.default_rng(5)
    worst_imag, lowest = 0.0, 1.0
    for d in (2, 3, 8):
        for _ in range(200):
            w = np.exp(-W_SCALE * rng.uniform(0, 1, size=d))
            a = rng.choice([1e-9, 1 - 1e-9, 0.5], size=d) if rng.random() < 0.3 else rng.uniform(0, 1, size=d)
            kappa = rng.normal(size=d)
            kappa /= np.linalg.norm(kappa)
            ev = np.linalg.eigvals(np.diag(w) - np.outer(a * kappa, kappa))
            worst_imag = max(worst_imag, float(np.abs(ev.imag).max()))
            assert w.min() - 1 < ev.real.min() and ev.real.max() <= w.max() + 1e-12
            lowest = min(lowest, float(ev.real.min()))
    assert worst_imag < 1e-9 and lowest > np.exp(-W_SCALE) - 1


def test_sizes_fla_derives_are_read(tmp_path):
    """Null low-rank sizes (fla's formula in RWKV7Attention), heads from num_heads, no pre-norm and no
    norm bias: the reader derives the sizes fla's own classes built (every tensor's shape checks) and
    runs the same function as fla's pieces."""
    import warnings

    need("fla")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import fla.models as fm

        torch.manual_seed(3)
        live = fm.RWKV7ForCausalLM(fm.RWKV7Config(
            vocab_size=5, hidden_size=16, head_dim=None, num_heads=2, num_hidden_layers=2, decay_low_rank_dim=None,
            gate_low_rank_dim=None, a_low_rank_dim=None, v_low_rank_dim=None, hidden_ratio=3, norm_first=False,
            norm_bias=False, fuse_norm=False)).eval()
        with torch.no_grad():  # fla initialises o_proj and the channel mix's value to zero: every term must count
            for p in live.parameters():
                if p.ndim >= 2:
                    p.add_(torch.randn_like(p) * 0.3)
        live.save_pretrained(tmp_path)
    m = load_external(str(tmp_path))
    b = m.blocks[1]
    assert (m.config.heads, m.config.head_k_dim, b.mixer.w_lora[0].shape[0], b.mixer.g_lora[0].shape[0]) == (2, 8, 32, 32)
    assert m.blocks[0].pre_norm is None and b.attn_norm[1] is None and b.key.shape == (64, 16)  # 48 rounded up to 32s
    ids = torch.as_tensor(np.random.default_rng(4).integers(0, 5, size=(2, 7)))
    expected = oracle(live, ids, "rwkv7")
    assert np.abs(m.logits(ids.numpy()) - expected).max() / np.abs(expected).max() < 1e-5  # float32 oracle: test_forward
