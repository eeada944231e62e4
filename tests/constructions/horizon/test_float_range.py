"""Certified horizons hold inside the float range (issue 45, item 2): the float run rescales h0 and
the readout exactly by powers of two, Theorem 18's rounding charges underflow, and no float32 length
is printed for a network float32 cannot represent."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from bilinear.analysis.certify import certify_network
from bilinear.automata.families import from_spec
from bilinear.constructions.handmade.registry import build
from bilinear.constructions.horizon.roundoff import RoundOff
from bilinear.constructions.values.floatrun import float_steps, run_float
from bilinear.constructions.values.weights import Weights

CYCLIC5 = from_spec("cyclic:5")


def _scaled(h0_exponent: int = 0, readout_exponent: int = 0) -> Weights:
    """The toolkit's own exact cyclic:5 rotation2d construction, as floats, with h0 and the readout
    multiplied by powers of two (exact, and no prediction of the real network changes)."""
    f = build("cyclic:5", "rotation2d").to_float()
    return Weights("rotation2d", f.A, np.ldexp(f.h0, h0_exponent), np.ldexp(f.readout, readout_exponent))


@pytest.mark.parametrize("h0_exponent, readout_exponent", [(-1070, 0), (0, -1073), (-1070, -1073)])
def test_float_run_is_scale_invariant_down_to_subnormals(h0_exponent, readout_exponent) -> None:
    w, plain = _scaled(h0_exponent, readout_exponent), _scaled()
    powers = np.repeat(np.arange(5)[:, None], 300, axis=1)  # s^300: the drift of one rotation adds up
    words = np.concatenate([powers, np.random.default_rng(0).integers(0, 5, size=(64, 300))])
    got = run_float(w, words).labels
    assert np.array_equal(got, run_float(plain, words).labels)
    assert np.array_equal(got, CYCLIC5.labels_batch(words, trace=True))


def test_first_step_error_is_within_the_charged_rounding() -> None:
    """One step from a subnormal h0 (2^-1067 (1, 3)): the float result against the exact direction
    of A h0 (Fractions), within Theorem 18's step charge times ||A||_F ||h||, h = h0 / ||h0||."""
    A = np.array([[[0.6, -0.8], [0.8, 0.6]]])
    h0 = np.ldexp(np.array([1.0, 3.0]), -1067)
    w = Weights("rotation2d", A, h0, [[1.0, 0.0]])
    (H,) = [h for h in float_steps(A, h0, np.array([[0]]))]
    exact = [sum(Fraction(A[0, i, j]) * Fraction(h0[j]) * 2**1067 for j in range(2)) for i in range(2)]
    norm = float(sum(x * x for x in exact)) ** 0.5
    error = np.linalg.norm(H[0] - np.array([float(x) / norm for x in exact]))
    charge = float(RoundOff.for_network("float64", w).step.mid()) * np.linalg.norm(A[0])
    assert error <= 4 * charge  # (the direction's own float rounding adds at most a few units)


def test_roundoff_charges_underflow() -> None:
    w = _scaled()
    plain, charged = RoundOff.of("float64", 2), RoundOff.for_network("float64", w)
    assert plain.underflow == 0 and charged.unrepresentable == ""
    # 2 (d + 2) 2^-1075 / min ||A_a||_F: the smallest Frobenius norm of a rotation is sqrt(2)
    assert float(charged.underflow.mid()) == pytest.approx(8 * 2.0**-1075 / 2**0.5, rel=0.2)
    # 2 (d + 1) 2^-1075 / max ||R_c||: unit rows
    assert float(charged.readout_underflow.mid()) == pytest.approx(6 * 2.0**-1075, rel=0.2)
    assert (charged.step - plain.step).mid() >= 0 and (charged.readout - plain.readout).mid() >= 0


@pytest.mark.parametrize("h0_exponent, readout_exponent, item", [(-1070, 0, "h0"), (0, -1073, "readout")])
def test_no_float32_length_for_a_network_float32_cannot_represent(h0_exponent, readout_exponent, item) -> None:
    cert = certify_network(_scaled(h0_exponent, readout_exponent), CYCLIC5, search_length=600, shorten_seconds=0.5)
    f32 = cert.horizons["float32"]
    assert f32.kind == "none" and "float32" in f32.note and item in f32.note
    assert "float32: no length (float32 cannot represent" in cert.to_text()
    # the float64 claim is true: the float64 run is right far beyond the search
    assert cert.failing is None


@pytest.mark.parametrize("name", ["float64", "float32", "bfloat16", "float16"])
def test_the_format_table_is_torch_finfo(name) -> None:
    """FORMATS (the one table of rounding constants) against torch's own description of each format."""
    import torch

    from bilinear.analysis.external_head import Rounding
    from bilinear.constructions.horizon.roundoff import ARITHMETICS, FORMATS

    f, info = FORMATS[name], torch.finfo(getattr(torch, name))
    assert 2 * f.u == Fraction(info.eps) and f.tiny == Fraction(info.tiny) and f.largest == info.max
    assert f.subnormal == Fraction(info.tiny) * Fraction(info.eps)  # 2^(emin - p + 1)
    assert f.eta == f.subnormal / 2 and f.exponent_range == (info.tiny, info.max)
    r = Rounding.of(name)
    assert (r.u, r.eta) == (float(f.u), float(f.eta))
    if name in ARITHMETICS:
        assert ARITHMETICS[name] == f.u


@pytest.mark.parametrize("h0_exponent", [-1070, -600, 900])
def test_state_map_snap_rescales_h0_by_a_power_of_two_first(h0_exponent) -> None:
    """The state-map snap's start representative is h0 made a unit vector; h0 times 2^e (exact; the
    network is unchanged) must give the very snap of h0 itself, not a zero or overflowed column."""
    from bilinear.constructions.handmade.onehot import onehot
    from bilinear.constructions.horizon.snap import state_map_snap

    a = from_spec("flipflop:2")
    A, h0, R = onehot(a).to_float().float_arrays()
    A = A + 1e-3 * np.random.default_rng(0).normal(size=A.shape)
    plain = state_map_snap(Weights("full", A, h0, R), a).block_weights
    tiny = state_map_snap(Weights("full", A, np.ldexp(h0, h0_exponent), R), a).block_weights
    assert tiny.A.tolist() == plain.A.tolist() and tiny.h0.tolist() == plain.h0.tolist()
