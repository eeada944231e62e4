"""The visited span: one value, computed once by analyze, shared by spectra, commutators, relations."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from bilinear.analysis import AnalysisConfig, analyze, commutators, relation_residuals, spectrum
from bilinear.analysis.examples import cyclic_rotation2d
from bilinear.constructions.values.span import VisitedSpan, visited_basis, visited_span
from bilinear.automata import from_spec
from bilinear.constructions import Weights
from bilinear.errors import AnalysisError


def _contracting() -> Weights:
    """cyclic:5 rotations (angles slightly off: no exact order) plus a decaying third direction."""
    A, h0, R = cyclic_rotation2d(5, angle_error=0.01).float_arrays()
    k = A.shape[0]
    B = np.zeros((k, 3, 3))
    B[:, :2, :2] = A
    B[:, 2, 2] = 0.5
    return Weights("full", B, np.append(h0, 1.0), np.hstack([R, np.zeros((R.shape[0], 1))]))


def test_visited_span_drops_the_contracted_direction():
    w = _contracting()
    span = visited_span(w)
    assert isinstance(span, VisitedSpan) and span.dim == 2 and span.hidden == 3
    V = span.basis
    assert np.allclose(V.T @ V, np.eye(2), atol=1e-12)
    assert np.allclose(V[2], 0.0, atol=1e-9)  # the decaying coordinate is not visited
    A = w.float_arrays()[0]
    assert np.allclose(span.compressed, np.einsum("ia,sij,jb->sab", V, A, V))
    assert (span.burn_in, span.words, span.extra, span.seed, span.rank_tol) == (50, 256, 16, 0, 0.05)
    # without a burn-in the transient direction is still there
    assert visited_span(w, burn_in=0).dim == 3
    assert visited_basis(A, w.float_arrays()[1], burn_in=0).shape == (3, 3)


def test_bad_parameters():
    with pytest.raises(AnalysisError, match="rank_tol"):
        visited_span(_contracting(), rank_tol=0)
    with pytest.raises(AnalysisError, match="words"):
        visited_span(_contracting(), words=0)


def _count_calls(monkeypatch) -> list[int]:
    calls = []

    def counting(*args, **kwargs):
        calls.append(1)
        return visited_span(*args, **kwargs)

    # the modules themselves (bilinear.analysis.spectrum etc. are also names of functions)
    for name in ("report", "spectrum", "commutators", "relations"):
        monkeypatch.setattr(importlib.import_module(f"bilinear.analysis.{name}"), "visited_span", counting)
    return calls


def test_analyze_computes_the_visited_span_once(monkeypatch):
    w, a = _contracting(), from_spec("cyclic:5")
    calls = _count_calls(monkeypatch)
    report = analyze(w, a, AnalysisConfig(run_extraction=False))
    assert len(calls) == 1
    # all three used it: orders, commutators and relations on the 2-dimensional visited span
    assert all(m.visited_dim == 2 for m in report.spectrum.symbols if m.order is None)
    assert any(m.order is None for m in report.spectrum.symbols)
    assert report.commutators.visited_dim == 2 and report.relations.visited_dim == 2


def test_each_analysis_still_works_standalone(monkeypatch):
    w, a = _contracting(), from_spec("cyclic:5")
    span = visited_span(w)
    calls = _count_calls(monkeypatch)
    given = (spectrum(w, a, span=span), commutators(w, a, span=span), relation_residuals(w, a, span=span))
    assert calls == []
    alone = (spectrum(w, a), commutators(w, a), relation_residuals(w, a))
    assert len(calls) == 3
    for g, s in zip(given, alone):
        assert g.to_json() == s.to_json()


def test_exact_weights_need_no_span_for_spectra_and_commutators(monkeypatch):
    calls = _count_calls(monkeypatch)
    spectrum(cyclic_rotation2d(5))
    commutators(cyclic_rotation2d(5))
    assert calls == []
