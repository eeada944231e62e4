"""The toolkit's float64 forward of a loaded checkpoint against the packages' own CPU paths: fla's
naive recurrences (``fla/ops/*/naive.py``) inside the layer glue of the live fla model (its own
``nn.Linear``, ``nn.Embedding`` and torch's ``rms_norm``/``conv1d``; fla's fused norms, MLP and
short convolution run only on a GPU), and the whole transformers Qwen3-Next model
(``use_cache=False``, its ``torch_chunk_gated_delta_rule``).

Tolerance: both oracles compute the recurrence in float32 whatever the input dtype (fla's naive
references cast with ``.float()``; transformers casts to float32 in the recurrence and in its
norms), so float64 on both sides is not available from them.  float32 rounds each input to a
relative 2^-24 = 6e-8; a state after T = 12 steps of dk <= 8-dimensional updates accumulates at most
about T * dk * 2^-24 = 6e-6 of the output's scale, and the MLP and head add a few more roundings:
the bound depends on the model's conditioning, so the test measures it on the same model: the
deviation of our own forward run in float32 from our float64 forward (``noise``), and asserts the
deviation from the reference is within 4 x noise (plus 1e-6) and below 1e-4 outright; it prints both.
A definitional mismatch (a flag read wrongly) moves the outputs by 1e-2 or more (test_a_wrong_layer_is_seen).  The float64 side is checked
at 1e-12 against itself elsewhere (the extracted transition matrices run as Weights, test_transitions).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from bilinear.learned.external import load_external

from external_fixtures import KINDS, need, oracle

TOL = 1e-4


@pytest.mark.parametrize("kind", KINDS)
def test_forward_matches_the_packages_own_cpu_path(kind, saved):
    folder, live = saved(kind)
    ids = torch.as_tensor(np.random.default_rng(1).integers(0, 6, size=(3, 12)))
    expected = oracle(live, ids, kind)
    scale = np.abs(expected).max()
    for model in (load_external(folder), load_external(live)):  # the saved folder and the live object
        got = model.logits(ids.numpy())
        with torch.no_grad():
            noise = float(np.abs(model.forward(ids, dtype=torch.float32).double().numpy() - got).max() / scale)
        dev = float(np.abs(got - expected).max() / scale)
        print(f"{kind}: largest relative deviation from the reference {dev:.2e} (float32 noise of this model "
              f"{noise:.2e}; tolerance min(4 x noise + 1e-6, {TOL:g}))")
        assert dev < min(4 * noise + 1e-6, TOL), (kind, dev, noise)


def test_a_wrong_layer_is_seen(saved):
    """The comparison can fail: the reader with allow_neg_eigval flipped is far from the oracle."""
    import dataclasses

    folder, live = saved("delta_net")
    m = load_external(folder)
    wrong_cfg = dataclasses.replace(m.config, neg_eigval=False)
    blocks = tuple(dataclasses.replace(b, mixer=dataclasses.replace(b.mixer, config=wrong_cfg)) for b in m.blocks)
    wrong = dataclasses.replace(m, config=wrong_cfg, blocks=blocks)
    ids = torch.as_tensor(np.random.default_rng(1).integers(0, 6, size=(3, 12)))
    expected = oracle(live, ids, "delta_net")
    assert np.abs(wrong.logits(ids.numpy()) - expected).max() / np.abs(expected).max() > 100 * TOL


def test_reading_needs_neither_package(saved):
    """The folder is read with fla and transformers hidden from the import system."""
    import subprocess
    import sys

    need("fla")
    folder, _ = saved("gated_deltaproduct")
    code = ("import sys; sys.modules['fla'] = None; sys.modules['transformers'] = None; sys.modules['safetensors'] = None\n"
            "from bilinear.learned.external import load_external\n"
            f"m = load_external({folder!r}); print(m.config.variant, m.logits([[0, 1, 2]]).shape)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-500:]
    assert out.stdout.split() == ["householder:2", "(1,", "3,", "6)"]
