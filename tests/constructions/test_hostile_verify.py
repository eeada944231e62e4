"""Hostile ``verify`` (issue 46: N8, N21): a network whose state grows past a float's range is
open, not an OverflowError; a factor count no construction can carry names its limit."""

from __future__ import annotations

import json

import pytest

from bilinear.cli import main


def _file(tmp_path, variant, exact, A, h0, readout):
    path = tmp_path / "grow.json"
    path.write_text(json.dumps({"format": "bilinear.weights", "version": 1, "variant": variant, "exact": exact,
                                "A": A, "h0": h0, "readout": readout}))
    return path


@pytest.mark.parametrize("variant, exact, A", [
    ("diagonal", True, [[["3", "0"], ["0", "1"]], [["-1", "0"], ["0", "1"]]]),
    ("diagonal", False, [[[1e6, 0.0], [0.0, 1.0]], [[-1.0, 0.0], [0.0, 1.0]]]),
    ("dplr:1", False, [[[3.0, 1.0], [0.0, 1.0]], [[-1.0, 0.0], [0.0, 1.0]]]),
])
def test_a_growing_state_is_open_not_an_overflow(tmp_path, capsys, variant, exact, A):
    """N8: exact diag(3, 1) reaches 3^646 > 10^308 within the proof's bound; float diag(1e6, 1)
    sooner: an OverflowError traceback from the prover's float conversion.  The network is right
    on every word (the sign of h_1 is the parity), but its directions never close: open."""
    one = "1" if exact else 1.0
    path = _file(tmp_path, variant, exact, A, [one, one], [[one, 0 if not exact else "0"],
                                                          ["-1" if exact else -1.0, "0" if exact else 0.0]])
    assert main(["verify", "parity", "--weights", str(path), "--unsigned", "--bound", "1000", "--json"]) == 3
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "open", out
    assert "more than 1000 x 2 reachable (state, direction) pairs" in json.dumps(out), out


def test_scaled_enclosures_keep_the_direction_and_the_sign():
    """The float enclosure of a huge vector is that of h / 2^e: same direction, every entry
    within its radius of the exact quotient."""
    from fractions import Fraction

    import flint

    from bilinear.constructions.exact.domains import IntegerDomain, RationalDomain

    h = [3**700, -(3**699), 1]
    mid, rad = IntegerDomain().floats(h)
    e = max(abs(x).bit_length() for x in h) - 1
    for x, m, r in zip(h, mid, rad):
        assert abs(Fraction(x, 2**e) - Fraction(m)) <= Fraction(r)
    assert mid[0] > 0 > mid[1] and abs(mid[0] / mid[1] + 3) < 1e-12
    q = [flint.fmpq(1, 5**600), flint.fmpq(-2, 5**600)]  # tiny: scaled up
    mid, rad = RationalDomain().floats(q)
    assert abs(mid[1] / mid[0] + 2) < 1e-12 and 0.25 < abs(mid[1]) < 4


def test_a_factor_count_past_every_construction_names_the_limit(capsys):
    """N21: ``verify parity householder:1000`` said "no construction" without the limit ``train``
    names (K over 64 x hidden)."""
    assert main(["verify", "parity", "householder:1000"]) == 3
    out = capsys.readouterr().out
    assert "K = 1,000 is over 64 x hidden = 128 for every construction built (d <= 2): use K <= 128" in out
    assert main(["verify", "parity", "householder:128"]) == 0  # at the limit: proved
    assert "proved" in capsys.readouterr().out


def test_the_float_checks_directed_words_are_counted_before_the_proof(capsys, monkeypatch):
    """`verify cyclic:1000 rotation2d --float --length 1000000 --words 1`: the check holds the 1,000
    directed words too (22 GiB); the command refused only after the proof, which now never starts."""
    from bilinear.constructions import settle as settle_module

    def no_proof(*args, **kwargs):  # pragma: no cover - the point is that it is never called
        raise AssertionError("the proof ran before the size check")

    monkeypatch.setattr(settle_module, "settle", no_proof)
    assert main(["verify", "cyclic:1000", "rotation2d", "--float", "--length", "1000000", "--words", "1"]) == 2
    err = capsys.readouterr().err
    assert "the float check of 1,000 directed + 1 random words of length 1,000,000 would need about 22.4 GiB" in err
    assert err.count("\n") == 1, err
