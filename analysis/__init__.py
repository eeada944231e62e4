"""bilinear.analysis: what did the network learn?

Everything takes a :class:`~bilinear.constructions.values.weights.Weights` (a hand construction or a
trained network's ``model.to_weights()``) and the automaton it should implement:

* :mod:`.spectrum`: eigenvalues normalised by the spectral radius, nearest roots of unity, orders
  up to scale (exact for exact weights), a one-line reading per symbol;
* :mod:`.commutators`: scale-free commutator norms and a verdict;
* :mod:`.relations`: residuals of the automaton's defining relations, up to a positive scalar;
* :mod:`.extract`: the automaton read off the hidden states, compared with the truth;
* :mod:`bilinear.constructions.values.span`: the span of the hidden states visited at length (:func:`visited_span`), shared by
  the spectra, commutators and relations of float weights;
* :mod:`.figures`, :mod:`.report` (:func:`analyze`), :mod:`.cli` (``bilinear analyze``).

>>> from bilinear.analysis import analyze, AnalysisConfig
>>> from bilinear.analysis.examples import dihedral_block2
>>> from bilinear.automata import from_spec
>>> report = analyze(dihedral_block2(3), from_spec("dihedral:3"), AnalysisConfig(run_extraction=False))
>>> report.commutators.verdict
'do not commute'
"""

from .commutators import Commutators, commutators
from .extract import ExtractConfig, Extraction, extract
from .relations import RelationReport, relation_residuals
from .report import AnalysisConfig, Report, analyze
from bilinear.constructions.values.span import VisitedSpan, visited_span
from .spectrum import Spectrum, spectrum

__all__ = [
    "AnalysisConfig",
    "Commutators",
    "ExtractConfig",
    "Extraction",
    "RelationReport",
    "Report",
    "Spectrum",
    "VisitedSpan",
    "analyze",
    "commutators",
    "extract",
    "relation_residuals",
    "spectrum",
    "visited_span",
]
