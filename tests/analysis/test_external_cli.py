"""Bad input to ``analyze --from``: one line on stderr, exit 2, nothing written."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from external_fixtures import handset_parity, need

from bilinear.automata import from_spec
from bilinear.cli import main


def _one_line(capsys, argv, message, out=None):
    assert main(argv + ([] if out is None else ["--out", str(out)])) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1, err[:400]
    assert out is None or not out.exists()


def _rewrite(folder, dst, edit):
    """A copy of the checkpoint folder with its tensors edited (safetensors' own writer)."""
    need("safetensors")
    from safetensors.torch import load_file, save_file

    shutil.copytree(folder, dst)
    t = load_file(f"{dst}/model.safetensors")
    edit(t)
    save_file(t, f"{dst}/model.safetensors")
    return str(dst)


def test_bad_checkpoints_and_maps(tmp_path, capsys):
    folder, _ = handset_parity(tmp_path / "ok")
    capsys.readouterr()  # the fixture's own progress output
    base = ["analyze", "--task", "parity", "--tokens", "0=0,1=1", "--labels", "even=2,odd=3"]
    out = tmp_path / "out"
    # a config flag the reader does not implement
    cfg = json.loads((tmp_path / "ok" / "config.json").read_text())
    shutil.copytree(folder, tmp_path / "flag")
    (tmp_path / "flag" / "config.json").write_text(json.dumps({**cfg, "qk_norm": "sum"}))
    _one_line(capsys, base + ["--from", "fla", str(tmp_path / "flag")],
              "config flag qk_norm = 'sum' is not supported for delta_net (supported: 'l2')", out)
    # a missing tensor, a tensor of the wrong shape
    missing = _rewrite(folder, tmp_path / "missing", lambda t: t.pop("model.layers.0.attn.b_proj.weight"))
    _one_line(capsys, base + ["--from", "fla", missing], "missing tensor 'model.layers.0.attn.b_proj.weight'", out)

    def reshape(t):
        t["model.layers.0.attn.k_proj.weight"] = t["model.layers.0.attn.k_proj.weight"][:3]

    wrong = _rewrite(folder, tmp_path / "wrong", reshape)
    _one_line(capsys, base + ["--from", "fla", wrong],
              "tensor 'model.layers.0.attn.k_proj.weight' has shape (3, 4), expected (4, 4)", out)
    # a NaN or an infinity in a tensor (a float16 file whose weights overflowed): named, not an SVD
    # error from the analysis, and never a label read off a NaN logit
    def poison(key, index, value):
        def edit(t):
            t[key][index] = value
        return edit

    nan = _rewrite(folder, tmp_path / "nan", poison("lm_head.weight", (2, 1), float("nan")))
    _one_line(capsys, base + ["--from", "fla", nan],
              "tensor 'lm_head.weight' has a non-finite entry nan at (2, 1)\n", out)  # the float16 hint: an infinity's
    inf = _rewrite(folder, tmp_path / "inf", poison("model.layers.0.attn.k_proj.weight", (1, 3), -float("inf")))
    _one_line(capsys, ["certify"] + base[1:] + ["--from", "fla", inf],
              "tensor 'model.layers.0.attn.k_proj.weight' has a non-finite entry -inf at (1, 3) "
              "(a float16 file holds nothing past 65504)", None)
    # finite tensors, a NaN all the same: norm_eps = 0 and token 0's embedding zero make 0 / 0 in the
    # first norm; the transitions say so (an SVD error before), and so does the tracker on its own
    zero = _rewrite(folder, tmp_path / "zero", poison("model.embeddings.weight", 0, 0.0))
    (tmp_path / "zero" / "config.json").write_text(json.dumps({**cfg, "norm_eps": 0.0}))
    _one_line(capsys, base + ["--from", "fla", zero],
              "layer 1 head 0: the transition of '0' is not finite (A holds a NaN or an infinity", out)
    from bilinear.constructions import check
    from bilinear.errors import AnalysisError
    from bilinear.learned.external import ExternalTracker, load_external

    tracker = ExternalTracker.make(load_external(zero), "0=0,1=1", "even=2,odd=3")
    with pytest.raises(AnalysisError, match=r"after the word 1\^2 0 \(position 3 of word 1 of 1\): logits must be finite"):
        tracker.run(np.array([[1, 1, 0, 1]]))
    with pytest.raises(AnalysisError, match="logits must be finite"):
        check(tracker, from_spec("parity"), length=8, words=4)
    # a token map that does not cover the alphabet; a token id outside the vocabulary
    _one_line(capsys, ["analyze", "--from", "fla", folder, "--task", "parity", "--tokens", "0=0"],
              "--tokens does not cover '1' (needs every one of 0, 1)", out)
    _one_line(capsys, ["analyze", "--from", "fla", folder, "--task", "parity", "--tokens", "0=0,1=9"],
              "--tokens: token id 9 for '1' is outside the vocabulary 0..3", out)
    # a key that names no symbol or class (a typo: it was ignored, its symbol read from another key)
    _one_line(capsys, base[:3] + ["--tokens", "0=0,1=1,zz=3"] + base[5:] + ["--from", "fla", folder],
              "--tokens: 'zz' is no name or index of 0, 1", out)
    _one_line(capsys, base[:5] + ["--labels", "even=2,odd=3,Odd=3", "--from", "fla", folder],
              "--labels: 'Odd' is no name or index of even, odd", out)
    # the wrong package, a kind the toolkit does not know
    _one_line(capsys, base + ["--from", "hf", folder], "config model_type = 'delta_net' is a fla model: use --from fla")
    (tmp_path / "flag" / "config.json").write_text(json.dumps({**cfg, "model_type": "rwkv6"}))
    _one_line(capsys, base + ["--from", "fla", str(tmp_path / "flag")], "config model_type = 'rwkv6' is not supported", out)
    # two symbols on one token (the model cannot tell them apart), two classes read from one logit
    _one_line(capsys, base[:3] + ["--tokens", "0=0,1=0", "--labels", "even=2,odd=3", "--from", "fla", folder],
              "--tokens: '0' and '1' are both token id 0; each needs its own", out)
    _one_line(capsys, base[:3] + ["--tokens", "0=0,1=1", "--labels", "even=2,odd=2", "--from", "fla", folder],
              "--labels: 'even' and 'odd' are both token id 2; each needs its own", out)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["flag", "inf", "missing", "nan", "ok", "wrong", "zero"]


def test_window_alphabet_over_its_limit(saved, tmp_path, capsys):
    from external_fixtures import make_model

    folder = tmp_path / "v17"  # a short convolution of width 3: 17 + 17^2 + 17^3 windows
    make_model("delta_net_conv", layers=1, vocab=17).save_pretrained(folder)
    folder = str(folder)
    tokens = ",".join(f"{i}={i}" for i in range(17))
    capsys.readouterr()
    _one_line(capsys, ["analyze", "--from", "fla", folder, "--task", "cyclic:17", "--tokens", tokens, "--labels", tokens],
              "window alphabet: 17 symbols over a window of 3 tokens make 5,219 windows, over the limit 4,096",
              tmp_path / "out")
