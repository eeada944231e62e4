"""Analysis is scale-invariant: one matrix scaled by 1e-300, 1e-30 or 1e30 (finite, predictions
unchanged) gets the verdicts of the unscaled weights (it used to read "A_0 is idempotent", "all
relations hold" and a scale-free margin of 4.7e-60)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from bilinear.analysis import AnalysisConfig, ExtractConfig, analyze
from bilinear.automata import from_spec
from bilinear.constructions import check
from bilinear.constructions import build
from bilinear.constructions import Weights

#: Raw (not up-to-scale) numbers: they follow the scale by design.
RAW = (".eigenvalues", ".scale", "seconds")
#: The certificate's numbers rest on rational approximations of the (rescaled) float weights:
#: equal up to 1% (its status and failing word must be equal); its text line repeats them.
APPROXIMATE = (".certificate.", "certificate_line")


def _approximately(x, y) -> bool:
    if isinstance(x, (int, float)) and isinstance(y, (int, float)) and not isinstance(x, bool):
        return bool(np.isclose(x, y, rtol=1e-2, atol=1e-6))
    return isinstance(x, str) and isinstance(y, str)  # exact rationals and the text line


def _trained_like():
    A, h0, R = build("cyclic:3", "full").to_float().float_arrays()
    A = A + 1e-4 * np.random.default_rng(0).standard_normal(A.shape)  # not exact: float verdicts
    return A, h0, R


def _report(A, h0, R) -> dict:
    cfg = AnalysisConfig(extract=ExtractConfig(words=200, length=30, method="behaviour"))
    return json.loads(json.dumps(analyze(Weights("full", A, h0, R), from_spec("cyclic:3"), cfg).to_json(), default=str))


def _differences(x, y, path="") -> list[str]:
    if any(key in path for key in RAW):
        return []
    if isinstance(x, str) and x.startswith("certificate (") and isinstance(y, str):
        return [] if x.split(":")[0] == y.split(":")[0] else [f"{path}: {x!r} != {y!r}"]  # its status
    if any(key in path for key in APPROXIMATE) and not path.endswith((".status", "failing_word")):
        if not isinstance(x, (dict, list)):
            return [] if x == y or _approximately(x, y) else [f"{path}: {x!r} != {y!r}"]
    if isinstance(x, dict):
        return [d for k in x for d in _differences(x[k], (y or {}).get(k), f"{path}.{k}")]
    if isinstance(x, list):
        if not isinstance(y, list) or len(x) != len(y):
            return [f"{path}: {x!r} != {y!r}"]
        return [d for i, (u, v) in enumerate(zip(x, y)) for d in _differences(u, v, f"{path}[{i}]")]
    if isinstance(x, float) and isinstance(y, float):
        return [] if np.isclose(x, y, rtol=1e-3, atol=1e-6) else [f"{path}: {x} != {y}"]
    return [] if x == y else [f"{path}: {x!r} != {y!r}"]


@pytest.mark.parametrize("factor", [1e-300, 1e-30, 1e30])
def test_analysis_verdicts_do_not_depend_on_a_matrix_scale(factor: float) -> None:
    A, h0, R = _trained_like()
    reference = _report(A, h0, R)
    scaled = A.copy()
    scaled[0] *= factor
    report = _report(scaled, h0, R)
    differences = _differences(reference, report)
    if factor < 2.0**-126:
        # float32 is the arithmetic torch runs the weights in, rounded and not rescaled
        # (docs/theory.md, Theorem 18): A_0 * 1e-300 rounds to zero there, so that one line differs
        # and says why; every other line (float64, real, the verdicts) is scale-invariant
        f32 = report["certificate"]["horizons"]["float32"]
        assert f32["length"] is None and "float32 cannot represent this network: A[0" in f32["note"]
        differences = [d for d in differences if not d.startswith(".certificate.horizons.float32.")]
    assert differences == []


def test_float_check_margin_does_not_depend_on_a_matrix_scale() -> None:
    A, h0, R = _trained_like()
    a = from_spec("cyclic:3")
    reference = check(Weights("full", A, h0, R), a, length=50, words=20).worst_margin
    scaled = A.copy()
    scaled[0] *= 1e-300
    assert check(Weights("full", scaled, h0, R), a, length=50, words=20).worst_margin == pytest.approx(reference, rel=1e-6)
