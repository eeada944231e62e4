"""Per-head transitions: the lifted affine recurrence, stepped as matrices, reproduces the model's
own float64 states (1e-12: both sides float64, the same operations in another order; a state after
12 steps of 4x4 products carries a few hundred roundings of 2^-53); the variant is identified on the
matrices; windows for a short convolution; sampled deeper layers say so."""

from __future__ import annotations

import numpy as np
import pytest

from bilinear.errors import AnalysisError
from bilinear.learned.external import load_external
from bilinear.learned.external.transitions import head_transitions, identify

from external_fixtures import lifted_states


@pytest.mark.parametrize("kind,bos", [("delta_net", None), ("delta_net", 5), ("delta_net_conv", None),
                                      ("gated_deltaproduct", 5)])
def test_lifted_transitions_reproduce_the_states(kind, bos, saved):
    folder, _ = saved(kind)
    m = load_external(folder)
    tr = m.as_tracker(tokens="a=1,b=3,c=4", labels="0=0,1=2", bos=bos)
    heads = head_transitions(m, tr, layer=0)
    w = m.config.window
    words = np.random.default_rng(2).integers(0, 3, size=(4, 12))
    S = m.states(tr.token_ids(words))[0].numpy()[:, 0 if bos is None else 1:]  # (B, T, H, dk, dv)
    keys = {t: i for i, t in enumerate(heads[0].windows)}
    worst = 0.0
    for h in heads:
        assert h.exact and h.identified.variant.startswith(f"householder:{m.config.householders}")
        L = h.lifted()
        for b, word in enumerate(words):
            idx = [keys[tuple(int(s) for s in word[max(0, t - w + 1):t + 1])] for t in range(len(word))]
            if w == 1:  # one key per symbol, named by the symbol
                assert [h.keys[i] for i in idx] == [tr.symbol_names[s] for s in word]
            got = lifted_states(L, idx)
            want = S[b, :, h.head].reshape(len(word), -1, order="F")
            worst = max(worst, float(np.abs(got - want).max() / np.abs(want).max()))
    print(f"{kind} bos={bos}: lifted transitions vs the model's states, largest relative deviation {worst:.1e}")
    assert worst < 1e-12


def test_identify_sees_a_matrix_that_is_no_reflection():
    rng = np.random.default_rng(0)
    V = rng.normal(size=(2, 1, 3))
    beta = np.array([[1.5], [0.5]])
    from bilinear.constructions.values.factored import householder_compose

    A = householder_compose(V, beta, exact=False)
    assert identify(A, np.ones(2), V, beta).variant == "householder:1"
    assert identify(A, np.ones(2), V, beta).beta == (0.5, 1.5)
    small = np.array([[0.5], [0.4]])
    assert identify(householder_compose(V, small, exact=False), np.ones(2), V, small).variant == "householder:1,nonneg"
    B = A.copy()
    B[0, 0, 1] += 0.1  # no longer a reflection: rank(A - I) = 2
    assert identify(B, np.ones(2), V, beta).variant == "full"


def test_deeper_layers_are_sampled(saved):
    folder, _ = saved("delta_net")
    m = load_external(folder)
    tr = m.as_tracker(tokens="a=1,b=3", labels="0=0,1=2")
    heads = head_transitions(m, tr, layer=1)
    assert not heads[0].exact and heads[0].spread is not None and heads[0].spread.shape == (2,)
    assert heads[0].spread.max() > 0  # the input of layer 2 depends on the states below


def test_window_alphabet_over_its_limit(saved, monkeypatch):
    import bilinear.learned.external.transitions as T

    folder, _ = saved("delta_net_conv")
    m = load_external(folder)
    tr = m.as_tracker(tokens="a=1,b=3,c=4", labels="0=0,1=2")
    monkeypatch.setattr(T, "MAX_WINDOWS", 20)
    with pytest.raises(AnalysisError, match="window alphabet: 3 symbols over a window of 3 tokens make 39 windows"):
        head_transitions(m, tr)
