"""The snap's distance line of a certificate: never "0" where the snap differs from the floats."""

from __future__ import annotations

from bilinear.analysis.certify import certify_network
from bilinear.automata import from_spec
from bilinear.constructions.handmade.registry import build


def test_a_float_construction_is_not_at_distance_zero_from_its_exact_snap() -> None:
    """cyclic:3 rotation2d in float64: sin(2 pi/3) is rounded (by about 5e-17), so the snap (the
    exact construction) is not at distance 0; the float64 distance rounds to 0 and the line says
    only that it is below 1e-15."""
    w = build("cyclic:3", "rotation2d").to_float()
    cert = certify_network(w, from_spec("cyclic:3"), search_length=50)
    assert cert.proof is not None and max(cert.snap.distance) < 5e-16
    line = next(x for x in cert.to_text().splitlines() if x.startswith("snap:"))
    assert line.endswith("relative distance per matrix <1e-15, <1e-15, <1e-15"), line
