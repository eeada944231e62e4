"""Window names of a layer fed by a short convolution (or RWKV-7's token shift) on a task of 12 symbols
(``0`` .. ``11``): every window gets its own name (``1·10`` and ``11·0``, never both ``110``), every
per-key table of the report holds every key once with that window's own matrix, and the mechanism
line of a Mamba layer reads the window ``g g`` by its symbol indices, not by repeating a name."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
import torch

from bilinear.analysis.external import HeadAnalysis, _head, _mechanism
from bilinear.analysis.report import AnalysisConfig
from bilinear.automata import from_spec
from bilinear.learned.external import head_transitions, load_external
from bilinear.learned.external.tracker import ExternalTracker
from bilinear.learned.external.transitions import window_name
from external_fixtures import need

CYCLIC12 = from_spec("cyclic:12")
NAMES = list(CYCLIC12.symbols)


def _saved(folder, build, seed: int):
    need("fla")
    torch.manual_seed(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import fla.models as fm

        model = build(fm)
    with torch.no_grad():  # away from the initialisation's near-identity
        for name, p in model.named_parameters():
            if p.ndim >= 2 or name.endswith("norm.weight"):
                p.add_(torch.randn_like(p) * 0.3)
    model.save_pretrained(folder)
    return load_external(str(folder), "fla")


@pytest.fixture(scope="module")
def conv_delta_net(tmp_path_factory):
    """A 1-layer DeltaNet with a short convolution of width 2 over 16 tokens (probe 5's checkpoint)."""
    return _saved(tmp_path_factory.mktemp("dn_conv2"), lambda fm: fm.DeltaNetForCausalLM(fm.DeltaNetConfig(
        vocab_size=16, hidden_size=8, num_hidden_layers=1, hidden_ratio=2, intermediate_size=8, fuse_norm=False,
        fuse_swiglu=False, num_heads=1, use_short_conv=True, conv_size=2, allow_neg_eigval=True)), 1)


@pytest.fixture(scope="module")
def mamba_k2(tmp_path_factory):
    """A 1-layer Mamba with conv_kernel 2 over 12 tokens (probe 5's checkpoint)."""
    return _saved(tmp_path_factory.mktemp("mamba_k2"), lambda fm: fm.MambaForCausalLM(fm.MambaConfig(
        vocab_size=12, hidden_size=8, state_size=3, num_hidden_layers=1, expand=1, conv_kernel=2, dt_rank=2,
        fuse_norm=False)), 0)


def _tracker(model):
    return ExternalTracker.make(model, None, None, None, symbols=NAMES, classes=[str(c) for c in CYCLIC12.classes])


def _parse(name: str) -> tuple:
    """The symbol indices of a window name, read back (names ``0`` .. ``11`` need no quoting)."""
    return tuple(NAMES.index(part) for part in name.split("·"))


def test_window_names_are_distinct_and_read_back():
    windows = [t for j in (1, 2, 3) for t in itertools.product(range(12), repeat=j)]
    names = [window_name(t, NAMES) for t in windows]
    assert len(set(names)) == len(names) == 12 + 144 + 1728
    assert all(_parse(n) == t for n, t in zip(names, windows))
    assert window_name((1, 10), NAMES) == "1·10" != window_name((11, 0), NAMES) == "11·0"
    assert window_name((11,), NAMES) == "11" != window_name((1, 1), NAMES) == "1·1"
    # a name holding the separator, or starting with a quote, is quoted: still one name per window
    odd = ["a·b", "a", "b", '"x']
    pairs = [window_name(t, odd) for t in itertools.product(range(4), repeat=2)] + [window_name((i,), odd)
                                                                                    for i in range(4)]
    assert len(set(pairs)) == 20 and window_name((0,), odd) == '"a·b"' and window_name((1, 2), odd) == "a·b"


def test_every_window_keeps_its_own_eigenvalues(conv_delta_net):
    """156 windows (12 + 144), 156 names, 156 eigenvalue entries; the symbol `11` at the first step
    and the window `1·1` are different matrices, each under its own name."""
    heads = head_transitions(conv_delta_net, _tracker(conv_delta_net), 0)
    h = heads[0]
    want = tuple((s,) for s in range(12)) + tuple(itertools.product(range(12), repeat=2))
    assert h.windows == want and len(set(h.keys)) == len(h.keys) == 156
    assert all(_parse(k) == t for k, t in zip(h.keys, h.windows))
    rep = _head(h, CYCLIC12, AnalysisConfig())
    assert len(rep.eigenvalues) == len(rep.betas) == len(rep.keys) == 156 and rep.windows == want
    assert rep.to_json()["windows"][:13] == [[s] for s in range(12)] + [[0, 0]]
    A = h.A / h.gate[:, None, None]  # the reflections, gate divided out, as the report reads them
    for j, (key, window) in enumerate(zip(h.keys, h.windows)):
        assert key == window_name(window, NAMES) and rep.key_of(window) == key
        ev = np.sort_complex(np.linalg.eigvals(A[j]))
        assert np.allclose(np.sort_complex(np.array(rep.eigenvalues[key])), ev, atol=1e-9), key
        assert np.allclose(rep.betas[key], h.beta[j])
    one_one, eleven = h.windows.index((1, 1)), h.windows.index((11,))
    assert rep.key_of((1, 1)) == "1·1" and rep.key_of((11,)) == "11"
    low = {k: min(z.real for z in rep.eigenvalues[k]) for k in ("1·1", "11")}
    assert low["1·1"] == pytest.approx(np.linalg.eigvals(A[one_one]).real.min(), abs=1e-12)
    assert low["11"] == pytest.approx(np.linalg.eigvals(A[eleven]).real.min(), abs=1e-12)
    assert abs(low["1·1"] - low["11"]) > 0.1  # two different matrices (probe 5: -0.38 and 0.15)
    assert "exact per window" in rep.lines()[0]


def test_the_mamba_mechanism_reads_the_window_g_g(mamba_k2):
    """Along 1^n the layer of width 2 reads the window (1, 1): the line names `1·1`, says 2 symbols,
    and quotes that window's eigenvalues (every channel group's diagonal, computed here from the
    transitions), not those of (11, 11) (glued, `1111`)."""
    heads = head_transitions(mamba_k2, _tracker(mamba_k2), 0)
    reps = [_head(h, CYCLIC12, AnalysisConfig()) for h in heads]
    line = _mechanism(reps, CYCLIC12, ((1, 1, 1, 1), 1, 0), NAMES)
    assert "reads the one window `1·1` and" in line and "once the last 2 symbols are all `1`" in line
    i = heads[0].windows.index((1, 1))
    diag = np.concatenate([np.diag(h.A[i]) for h in heads])
    assert f"eigenvalues in [{diag.min():.3g}, {diag.max():.3g}]" in line
    j = heads[0].windows.index((11, 11))  # glued, `1111`: what the window was taken for
    other = np.concatenate([np.diag(h.A[j]) for h in heads])
    assert f"[{other.min():.3g}, {other.max():.3g}]" not in line


def _dplr(ev_one_one, ev_eleven):
    """An RWKV-7 head over 12 symbols (windows of 1 and 2): `1·1` and the symbol `11` carry different
    eigenvalues."""
    windows = tuple((s,) for s in range(12)) + tuple(itertools.product(range(12), repeat=2))
    keys = tuple(window_name(t, NAMES) for t in windows)
    eig = {k: (complex(0.5), complex(0.9)) for k in keys}
    eig["1·1"], eig["11"] = tuple(map(complex, ev_one_one)), tuple(map(complex, ev_eleven))
    return HeadAnalysis(0, 0, keys, True, "dplr:1 (test)", (0.0, 0.0), (0.6, 0.99), eig, "", "", "", rwkv7=True,
                        windows=windows)


def test_the_rwkv7_mechanism_reads_the_window_g_g_by_indices():
    """Symbol 1 of parity-like period 12 along 1^n: the window (1, 1), never the symbol 11 (glued `11`)."""
    said = _mechanism([_dplr([-0.3, 0.9], [0.2, 0.5])], CYCLIC12, ((1, 1, 1), 1, 0), NAMES)
    assert "transition for the window `1·1` (diag(w) - (a * kappa) kappa^T) has only real eigenvalues (-0.3, 0.9)" \
        in said
    assert "0.2" not in said


def test_a_table_keyed_by_name_refuses_two_keys_of_one_name(conv_delta_net):
    """Names glued without a separator (``1`` ``1`` and ``11``) would merge two rows of every table:
    the analysis refuses them in one line instead of reporting one matrix under the other's name."""
    import dataclasses

    from bilinear.errors import AnalysisError

    h = head_transitions(conv_delta_net, _tracker(conv_delta_net), 0)[0]
    glued = dataclasses.replace(h, keys=tuple("".join(NAMES[s] for s in t) for t in h.windows))
    with pytest.raises(AnalysisError, match="layer 1 head 0: two transitions are named '10'; the readings are keyed by name"):
        _head(glued, CYCLIC12, AnalysisConfig())
