"""The full analysis of a network: spectra, commutators, relation residuals, extraction.

:func:`analyze` takes a :class:`~bilinear.constructions.values.weights.Weights` and the
:class:`~bilinear.automata.automaton.Automaton` it should implement, and returns a frozen
:class:`Report` with ``.to_json()`` (a JSON-serialisable dict), ``.to_markdown()`` (the text
report) and ``.write(out_dir)`` (``report.md``, ``report.json`` and the PNG figures, each file
written atomically after everything has been computed).

>>> from bilinear.analysis.examples import cyclic_rotation2d
>>> from bilinear.automata import from_spec
>>> r = analyze(cyclic_rotation2d(5), from_spec("cyclic:5"), AnalysisConfig(extract=ExtractConfig(words=100, length=20)))
>>> print(r.summary)
implements Z_5 exactly (proved for every word: 5 reachable (state, direction) pairs), as transitions of order 1, 5 (exact weights)
A_0 acts as the identity (up to a positive scale)
A_1 acts as a rotation of order 5 on a 2-dimensional subspace
A_2 acts as a rotation of order 5 on a 2-dimensional subspace
A_3 acts as a rotation of order 5 on a 2-dimensional subspace
A_4 acts as a rotation of order 5 on a 2-dimensional subspace
all transition matrices commute (exactly); largest scale-free norm 0
all 21 defining relations hold (exactly)
accuracy by length: normalised accuracy, worst over the lengths 1: 1.00, 2-10: 1.00, 11-100: 1.00, 101-500: 1.00, 501-1000: 1.00, 1001-2000: 1.00 (200 random words; no error seen)
extraction: 5 clusters -> 5 minimal states; clusters separated (within <= 0, between >= 1.2); radius ... at the distance gap ... -> 1.2; isomorphic to the true automaton; monoid: ...
>>> r.to_json()["extraction"]["isomorphic"]
True
"""

from __future__ import annotations

import json
import math
from typing import Any
from dataclasses import asdict, dataclass, field
from pathlib import Path

from bilinear.automata.automaton import Automaton
from bilinear.automata.monoid import transformation_monoid
from bilinear.constructions.values.floatrun import check_compatible
from bilinear.constructions.values.span import visited_span
from bilinear.errors import AnalysisError, MonoidTooLargeError
from bilinear.fileio import atomic_write_text

from .commutators import Commutators, commutators
from .extract import ExtractConfig, Extraction, extract, preflight
from .implements import implements_line
from .layers import LAYER_BURN_IN, LAYER_EXTRA, LAYER_WORDS, layer_spectra
from .lengths import DIRECTED_TOKENS, LengthCurve, accuracy_by_length, check_curve_size, directed_plan, directed_run
from .lstar import LStarConfig
from .matrices import check_positive_int, check_tolerance
from .relations import RelationReport, relation_residuals
from .spectrum import Spectrum, check_max_order, spectrum

__all__ = ["AnalysisConfig", "Report", "analyze", "analyze_tracker", "ExtractConfig", "num", "certificate_line", "curve_reading"]

#: The caption of every accuracy-by-length curve (report and figure).
CURVE_CAPTION = (
    "Normalised accuracy (acc - 1/C) / (1 - 1/C) for C classes: 1 is perfect, 0 is chance (dashed "
    "line). A value below 0 is worse than guessing: the network consistently predicts a wrong class "
    "there, as a rotation whose phase has drifted by a whole step does."
)


def curve_caption(curve) -> str:
    """:data:`CURVE_CAPTION`, and the training band's sentence only when the curve has one.

    >>> from bilinear.analysis.lengths import LengthCurve
    >>> curve_caption(LengthCurve((1.0,), 10, 0, 2, None, (2, 10))).endswith("training lengths (2-10).")
    True
    >>> curve_caption(LengthCurve((1.0,), 10, 0, 2, None)) == CURVE_CAPTION
    True
    """
    train = getattr(curve, "train_range", None)
    if train is None:
        return CURVE_CAPTION
    return f"{CURVE_CAPTION} The shaded band is the training lengths ({train[0]}-{train[1]})."


def num(x) -> str:
    """A value for the report's text: ``-`` for None, ``yes``/``no`` for booleans, integers as
    they are, floats to 3 significant digits (never ``-0``, never a Python literal).

    >>> num(None), num(False), num(-0.026527999999999996), num(12), num(-0.0), num("run a")
    ('-', 'no', '-0.0265', '12', '0', 'run a')
    """
    import math

    if x is None:
        return "-"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, int):
        return str(x)
    if isinstance(x, float):
        if not math.isfinite(x):
            return "infinite" if x > 0 else ("-infinite" if x < 0 else "undefined")
        text = f"{x:.3g}"
        return "0" if text in ("-0", "0") else text
    return str(x)


def curve_reading(curve: LengthCurve) -> str:
    """One line: the *worst* normalised accuracy in each range of lengths between the reading
    lengths (every length counted, so a failure between two readings is not hidden), and the
    first error."""
    text = ", ".join(r.text() for r in curve.ranges())
    first = ("no error seen" if curve.first_failure is None
             else f"first error at length {curve.first_failure}")
    return f"normalised accuracy, worst over the lengths {text} ({curve.words} random words; {first})"


def certificate_line(cert) -> str:
    """One line from a :class:`~bilinear.analysis.certify.NetworkCertificate`: certified horizon,
    failing word, snap status."""
    h = cert.horizon
    if h is not None and h.every:
        horizon = "correct for every word of every length (proved, float64 evaluation)"
    elif h is not None and h.kind == "up to":
        horizon = f"every word up to length {h.length} certified correct (float64 evaluation)"
    else:
        horizon = "no length certified"
    fail = (f"fails at length {len(cert.failing)} on {cert.failing_text}" if cert.failing is not None
            else "no word fails (no search run)" if h is not None and h.every
            else f"no failing word found up to length {cert.search_length}")
    snap = ("snap proved" + (f" (minimum margin {cert.proof.margin_float:.3g})"
                             if hasattr(cert.proof, "margin_float") else "")
            if cert.proof is not None else "no snap proved")
    return f"certificate ({cert.status}): {horizon}; {fail}; {snap}"

#: Longest accuracy-by-length curve of a model without transition matrices (a Transformer's
#: attention is quadratic in the length; a stack's layers are float runs, linear in it, and are
#: not capped): a larger ``curve_length`` is refused, but for the default (2000), which is cut to
#: this length and the report says so (docs/limits.md).
TRACKER_CURVE_LENGTH = 1000

#: Version of the JSON layout written by :meth:`Report.to_json`.
REPORT_FORMAT = "bilinear.analysis"
REPORT_VERSION = 1


@dataclass(frozen=True)
class AnalysisConfig:
    """What :func:`analyze` computes (validated; bad values raise AnalysisError)."""

    tol: float = 1e-3  # scale-free tolerance of float algebra (orders, commutators, relations)
    max_order: int = 12  # largest order / index + period searched, and root-of-unity order
    word_length: int = 2  # spectra and commutators also of words of length 2..word_length
    max_relations: int = 500  # defining relations checked (the rest counted)
    span_tol: float = 0.05  # tolerance of the verdicts on the visited span (orders, commutators, relations)
    extract: ExtractConfig = field(default_factory=ExtractConfig)  # extraction parameters
    run_extraction: bool = True  # False: skip the (sampling) extraction
    curve_length: int = 2000  # accuracy by length from 1 to this length (0: no curve)
    curve_words: int = 200  # random words of the accuracy-by-length curve
    run_certify: bool = True  # float bilinear weights: one certify_network line
    lstar: LStarConfig | None = None  # AALpy's L* compared with the extraction (extra aalpy); None: not run

    def validated(self) -> "AnalysisConfig":
        check_tolerance(self.tol, "tol")
        check_tolerance(self.span_tol, "span_tol")
        check_positive_int(self.curve_length, "curve_length", minimum=0)
        check_positive_int(self.curve_words, "curve_words")
        check_max_order(self.max_order)
        check_positive_int(self.word_length, "word_length")
        check_positive_int(self.max_relations, "max_relations", minimum=0)
        if not isinstance(self.extract, ExtractConfig):
            raise AnalysisError(f"extract must be an ExtractConfig, got {type(self.extract).__name__}")
        self.extract.validated()
        if self.lstar is not None:
            if not isinstance(self.lstar, LStarConfig):
                raise AnalysisError(f"lstar must be an LStarConfig or None, got {type(self.lstar).__name__}")
            if not self.run_extraction:
                raise AnalysisError("lstar compares L* with the extraction: it needs run_extraction")
            self.lstar.validated()
        return self


@dataclass(frozen=True)
class Report:
    """Everything :func:`analyze` found; ``relations`` is None when the monoid was too large,
    ``extraction`` None when ``run_extraction`` was off; ``spectrum``, ``commutators`` and
    ``relations`` are None for a tracker without transition matrices (:func:`analyze_tracker`)."""

    title: str
    automaton: Automaton
    variant: str
    exact: bool
    hidden: int | None
    spectrum: Spectrum | None
    commutators: Commutators | None
    relations: RelationReport | None
    relations_note: str | None
    extraction: Extraction | None
    config: AnalysisConfig
    source: dict = field(default_factory=dict)
    curve: LengthCurve | None = None
    certificate: Any = None  # a NetworkCertificate or StackCertificate (analysis/certify.py)
    certificate_note: str | None = None
    implements: str = ""
    lstar: Any = None  # an Agreement (analysis/lstar.py) when AnalysisConfig.lstar was set
    layers: tuple = ()  # a stack's LayerSpectrum per layer (analysis/layers.py); () otherwise
    directed: Any = None  # a tracker's DirectedRun (analysis/lengths.py): the float check's directed words

    @property
    def certify_line(self) -> str | None:
        """One line from :func:`~bilinear.analysis.certify.certify_network` (None when not run)."""
        return certificate_line(self.certificate) if self.certificate is not None else self.certificate_note

    @property
    def summary(self) -> str:
        """A few lines: what the network implements, one per symbol, then commutators, relations,
        accuracy by length, extraction and the certificate."""
        lines = [self.implements] if self.implements else []
        if self.spectrum is None:  # a tracker: no transition matrices (a stack: each layer's own)
            lines.append(f"{self.relations_note}")
            for layer in self.layers:
                lines += layer.lines(len(self.layers))
        else:
            lines += [self.spectrum.reading, self._commutators_line()]
            lines.append(self._relations_line() if self.relations is not None else f"relations: {self.relations_note}")
        if self.curve is not None:
            lines.append("accuracy by length: " + curve_reading(self.curve))
        if self.directed is not None:
            lines.append(self._directed_line())
        if self.extraction is not None:
            lines.append("extraction: " + self.extraction.reading)
        if self.lstar is not None:
            lines.append(self.lstar.text())
        if self.certify_line:
            lines.append(self.certify_line)
        return "\n".join(lines)

    def _directed_line(self) -> str:
        """``directed words: ...``; where the extraction matched the true automaton on the sampled
        words but the model errs on a directed word, the line says that the match stops there."""
        line = "directed words: " + self.directed.reading
        ex = self.extraction
        if self.directed.failure is not None and ex is not None and ex.isomorphic:
            line += ("; its extracted automaton is isomorphic to the true one on the sampled words only: "
                     "the model itself is wrong on this word")
        return line

    @property
    def behaves_right(self) -> bool:
        """The extracted automaton is the true one and the network made no error on the sampled
        words: a verdict on the visited span must then not say it fails."""
        ex = self.extraction
        return ex is not None and ex.isomorphic is True and ex.accuracy == 1.0

    def _commutators_line(self) -> str:
        co = self.commutators
        assert co is not None  # called only for weights with transition matrices
        commutative = _is_commutative(self.automaton)
        if co.visited_verdict == "do not commute" and commutative and self.behaves_right:
            return (f"the transition matrices commute on the {co.visited_dim}-dimensional visited span within "
                    f"{co.visited_max_norm:.2g} (above the tolerance {co.span_tol:g}, below what the readout "
                    f"resolves: the extracted automaton is the true, abelian one); on the full "
                    f"{co.hidden}-dimensional space the largest norm is {co.max_norm:.3g}")
        return co.reading

    def _relations_line(self) -> str:
        rel = self.relations
        assert rel is not None  # called only when the relations were computed
        if rel.all_hold or not self.behaves_right:
            return rel.reading
        return (f"all {len(rel.relations)} defining relations hold within {rel.max_residual:.2g} on the "
                f"{rel.visited_dim}-dimensional visited span (above the tolerance {rel.tol:g}: {rel.n_holding} "
                f"hold within it; below what the readout resolves, as the extracted automaton is the true one); "
                f"on the full {rel.hidden}-dimensional space the largest residual is {rel.max_full_residual:.3g}")

    def to_json(self) -> dict:
        a = self.automaton
        return _clean_json({
            "format": REPORT_FORMAT,
            "version": REPORT_VERSION,
            "title": self.title,
            "source": dict(self.source),
            "automaton": {
                "name": a.name,
                "states": a.n_states,
                "symbols": list(a.symbols),
                "classes": len(a.classes),
            },
            "weights": {"variant": self.variant, "exact": self.exact, "hidden": self.hidden,
                        **({"hidden_per_layer": [layer.hidden for layer in self.layers]} if self.layers else {})},
            "layers": [layer.to_json() for layer in self.layers],
            "config": asdict(self.config),
            "summary": self.summary.splitlines(),
            "spectrum": None if self.spectrum is None else self.spectrum.to_json(),
            "commutators": None if self.commutators is None else self.commutators.to_json(),
            "relations": None if self.relations is None else self.relations.to_json(),
            "relations_note": self.relations_note,
            "extraction": None if self.extraction is None else self.extraction.to_json(),
            "implements": self.implements,
            "accuracy_by_length": None if self.curve is None else self.curve.to_json(),
            "directed_words": None if self.directed is None else self.directed.to_json(),
            "certificate": None if self.certificate is None else self.certificate.to_json(),
            "certificate_line": self.certify_line,
            "lstar": None if self.lstar is None else self.lstar.to_json(),
        })

    def to_markdown(self, figures: list[str] | None = None) -> str:
        out = self._md_header()
        if self.spectrum is not None:
            out += self._md_spectra() + self._md_commutators() + self._md_relations()
        for layer in self.layers:
            out += self._md_spectra(layer.spectrum, f"## Spectra, layer {layer.index} of {len(self.layers)}",
                                    layer.reads)
        if self.curve is not None:
            out += ["", "## Accuracy by length", "", curve_reading(self.curve), "", curve_caption(self.curve)]
        if self.directed is not None:
            out += ["", "## Directed words", "", self._directed_line()]
        if self.extraction is not None:
            out += self._md_extraction()
        if self.lstar is not None:
            out += self._md_lstar()
        if self.certify_line:
            out += ["", "## Certificate", "", self.certify_line]
        if figures:
            out += ["", "## Figures", ""]
            for f in figures:
                name = Path(f).name
                if Path(f).suffix in (".dot", ".graphml"):
                    out.append(f"- extracted automaton as {Path(f).suffix[1:].upper()}: [{name}]({name})")
                else:
                    out += [f"![{Path(f).stem} of {self.title}]({name})", ""]
        return "\n".join(out) + "\n"

    def _md_header(self) -> list[str]:
        a = self.automaton
        out = [f"# Analysis: {self.title}", ""]
        out.append(
            f"- automaton `{a.name or 'unnamed'}`: {a.n_states} states, {a.n_symbols} symbols, "
            f"{a.n_classes} classes"
        )
        if self.layers:
            out.append(f"- model: a stack of {len(self.layers)} layers; "
                       + "; ".join(f"layer {layer.index}: `{layer.variant}`, hidden {layer.hidden}" for layer in self.layers)
                       + f" ({'exact' if all(layer.exact for layer in self.layers) else 'float'} entries)")
        elif self.spectrum is None:
            out.append(f"- model: `{self.variant}` (no transition matrices)")
        else:
            out.append(
                f"- weights: variant `{self.variant}`, hidden {self.hidden}, "
                f"{'exact' if self.exact else 'float'} entries"
            )
        if self.spectrum is not None and not self.exact and self.spectrum.symbols and self.spectrum.symbols[0].visited_dim:
            out.append(
                f"- visited span: {self.spectrum.symbols[0].visited_dim} of {self.hidden} dimensions (the states "
                f"the network visits at length; verdicts below are on it, tolerance {num(self.config.span_tol)}, "
                f"with the full-space figure beside them)"
            )
        for k, v in self.source.items():
            out.append(f"- {k.replace('_', ' ')}: {num(v)}")
        return out + ["", "## Summary", ""] + [f"- {line}" for line in self.summary.splitlines()]

    def _md_spectra(self, sp=None, heading: str = "## Spectra", reads=None) -> list[str]:
        """The spectra table of the weights (or of ``sp``, one layer's, whose symbols the cascade
        read ``reads`` times each on the sampled words)."""
        sp = self.spectrum if sp is None else sp
        assert sp is not None  # called only for weights with transition matrices
        out = ["", heading, ""]
        out.append(
            f"Eigenvalues divided by the spectral radius (hidden states are up to a positive scale; "
            f"|det|^(1/d) would be 0 for singular matrices). Orders up to scale: smallest i + p <= "
            f"{sp.max_order} with A^(i+p) = c·A^i, c > 0 (order p when i = 0); "
            + ("decided exactly." if sp.exact else f"float, tolerance {sp.tol:g}.")
        )
        if reads is not None:
            out += ["", f"Reads: how often the cascade fed each matrix on {LAYER_WORDS} random words of length "
                    f"{LAYER_BURN_IN + LAYER_EXTRA} (the visited span: its states from step {LAYER_BURN_IN} on); "
                    "a matrix never read says nothing about what the stack computes: "
                    + ", ".join(f"{m.name} {n}" for m, n in zip(sp.symbols, reads))]
        out += ["", "| matrix | order on the visited span (residual) | order, full space | index, period | "
                "exact | nearest roots (order: distance) | reading, full space |", "|---|---|---|---|---|---|---|"]
        for m in list(sp.symbols) + list(sp.words[:16]) + list(sp.blocks[:16]):
            ip = "-" if m.index is None else f"{m.index}, {m.period}"
            roots = ", ".join(f"{r.order}: {r.distance:.1e}" for r in m.roots[:6])
            if len(m.roots) > 6:
                roots += ", ..."
            span = "-" if m.visited_order is None else f"{m.visited_order} ({num(m.visited_residual)})"
            if m.visited_order is not None and not m.holds_on_span:
                span = f"≈{span}, above tolerance"
            out.append(f"| {m.name} | {span} | {num(m.order)} | {ip} | {num(m.exact)} | {roots} | {m.reading} |")
        return out

    def _md_commutators(self) -> list[str]:
        co = self.commutators
        assert co is not None  # called only for weights with transition matrices
        out = ["", "## Commutators", "", co.reading, ""]
        n = len(co.symbols)
        tables = [("full space", co.norms)]
        if co.visited_norms is not None:
            tables.insert(0, (f"on the {co.visited_dim}-dimensional visited span", co.visited_norms))
        for label, norms in tables if n <= 12 else ():
            out += [f"Scale-free norms ||[A_a, A_b]|| / (||A_a|| ||A_b||), {label}:", ""]
            out.append("| | " + " | ".join(co.symbols) + " |")
            out.append("|---" * (n + 1) + "|")
            for i, s in enumerate(co.symbols):
                out.append(f"| **{s}** | " + " | ".join(num(x) for x in norms[i]) + " |")
            out.append("")
        return out

    def _md_relations(self) -> list[str]:
        rel = self.relations
        out = ["", "## Relations", ""]
        if rel is None:
            return out + [self.relations_note or "not computed"]
        out.append(
            rel.reading
            + f". Residual: min over c >= 0 of ||A(u) - c A(v)|| / ||A(u)|| (symbols of a word are separated by "
            f"·); the visited span has dimension {rel.visited_dim}, the reachable subspace {rel.reachable_dim}, "
            f"the hidden space {rel.hidden}."
        )
        out += ["", f"| relation | on the visited span (dim {rel.visited_dim}) | reachable subspace (dim "
                f"{rel.reachable_dim}) | full space (dim {rel.hidden}) | exactly | holds |", "|---|---|---|---|---|---|"]
        shown = sorted(rel.relations, key=lambda r: (r.holds, -r.residual_visited))[:30]
        for r in shown:
            out.append(f"| `{r.text}` | {num(r.residual_visited)} | {num(r.residual_reachable)} | {num(r.residual)} | "
                       f"{num(r.exactly)} | {num(r.holds)} |")
        if len(rel.relations) > 30:
            out.append(f"| ... {len(rel.relations) - 30} more | | | | | |")
        return out

    def _md_extraction(self) -> list[str]:
        ex = self.extraction
        assert ex is not None  # called only when extraction ran
        c = ex.config
        out = ["", "## Extraction", "", ex.reading, ""]
        burn = f", burn-in {ex.burn_in} steps" if ex.burn_in else ""
        if ex.method == "behaviour":
            out.append(
                f"- {c.words} random words of length {c.length} (seed {c.seed}){burn}; states = label "
                f"signatures over every word of length <= {c.horizon}"
            )
            out.append(f"- smallest scale-free label margin in any signature: {ex.margin:.3g}")
        elif ex.automaton is not None:
            out.append(
                f"- {c.words} random words of length {c.length} (seed {c.seed}){burn}; "
                + (ex.radius.text() if ex.radius is not None else f"cluster radius {c.tol:g}")
            )
            between = ("two clusters overlap (their radii exceed the distance of their centres)"
                       if ex.between < 0 else f"between-cluster distances >= {ex.between:.3g}")
            out.append(
                f"- within-cluster distances <= {ex.within:.3g}; {between}; "
                f"gap {f'{ex.gap:.3g}' if ex.gap is not None else 'undefined'}"
            )
        if ex.automaton is not None or math.isfinite(ex.conflict_fraction):  # else no vote was counted
            fraction = f"{ex.conflict_fraction:.3g}" if math.isfinite(ex.conflict_fraction) else "undefined: no votes"
            out.append(
                f"- transition conflicts {ex.conflicts} (fraction of votes against the majority "
                f"{fraction}); unobserved transitions filled {ex.unobserved}; label conflicts "
                f"{ex.label_conflicts}"
            )
        acc = ex.accuracy_by_length
        marks = sorted({1, 10, 100, 500, len(acc)} & set(range(1, len(acc) + 1)))
        out.append(
            f"- network normalised accuracy {ex.accuracy:.3f}; at length "
            + ", ".join(f"{t}: {acc[t - 1]:.3f}" for t in marks)
        )
        if ex.first_error is not None:
            out.append(f"- first network error among the samples: `{self.automaton.format_word(ex.first_error)}`")
        if ex.distinguishing_word is not None:
            out.append(f"- shortest word on which the extracted automaton differs: `{ex.distinguishing_text}`"
                       + (f" ({ex.distinguishing_labels})" if ex.distinguishing_labels else ""))
        return out

    def _md_lstar(self) -> list[str]:
        agreement, c = self.lstar, self.config.lstar
        learned = agreement.lstar
        out = ["", "## A second extraction: AALpy's L*", "", agreement.text(), ""]
        rounds = f"{learned.rounds} round" + ("" if learned.rounds == 1 else "s")
        out.append(f"- L* learned {learned.automaton.n_states} states in {rounds}: {learned.queries} queries, "
                   f"{learned.steps} symbols fed to the network")
        if c is not None:
            out.append(f"- equivalence oracle: {c.walks_per_state} random walks of {c.walk_len} symbols per state "
                       f"(seed {c.seed}); a test, not a proof")
        if agreement.distinguishing_word is not None:
            out.append(f"- shortest word on which L* and the extraction differ: `{agreement.distinguishing_text}`")
        return out

    def write(self, out_dir, figures: bool = True, fmt: str = "png") -> list[Path]:
        """Write ``report.json``, ``report.md`` and (by default) the figures, in ``fmt`` (png, svg
        or pdf), and the extracted automaton (DOT, GraphML) into ``out_dir``."""
        from .figures import write_figures

        out = Path(out_dir)
        if out.exists() and not out.is_dir():
            raise AnalysisError(f"output path {str(out)!r} exists and is not a directory")
        payload = json.dumps(self.to_json(), indent=2, allow_nan=False, default=_json_default)  # before the folder
        out.mkdir(parents=True, exist_ok=True)
        paths = write_figures(self, out, fmt) if figures else []
        text = self.to_markdown([p.name for p in paths])
        written = [atomic_write_text(out / "report.json", payload + "\n"), atomic_write_text(out / "report.md", text)]
        return written + paths


def _is_commutative(automaton) -> bool:
    try:
        return bool(transformation_monoid(automaton).is_commutative)
    except MonoidTooLargeError:
        return False


def _json_default(x):
    import numpy as np

    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (np.floating,)):
        return float(x)
    raise TypeError(f"not JSON serialisable: {type(x).__name__}")




def _clean_json(x):
    """Replace non-finite floats by None so that the JSON is strict."""
    import math

    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, dict):
        return {k: _clean_json(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_clean_json(v) for v in x]
    return x


def _relations(weights, automaton, config: AnalysisConfig, span):
    try:
        pairs = transformation_monoid(automaton, limit=config.extract.monoid_limit).relations()
    except MonoidTooLargeError as exc:
        return None, f"cannot list the relations of {automaton.name or 'the automaton'}: {exc}"
    return relation_residuals(weights, automaton, pairs=pairs, tol=config.span_tol,
                              max_relations=config.max_relations, span=span), None


def _certify(weights, automaton, config: AnalysisConfig):
    """``(certificate, note)``: certify_network on float bilinear weights, else a note or nothing."""
    from bilinear.errors import BilinearError

    if not config.run_certify or weights.exact:
        return None, None
    from .certify import certify_network

    try:
        return certify_network(weights, automaton), None
    except BilinearError as exc:
        return None, f"certificate: not available ({exc})"


def _need_lstar(config: AnalysisConfig) -> None:
    """The ``aalpy`` extra, checked before any work when L* is asked for."""
    if config.lstar is not None:
        from bilinear.extras import require

        require("aalpy.learning_algs", "aalpy", "L* extraction (aalpy)")


def _lstar(model, automaton, config: AnalysisConfig, extraction):
    """L* against the report's own extraction (None when L* was not asked for)."""
    if config.lstar is None or extraction is None:
        return None
    from .lstar import compare_extractions

    return compare_extractions(model, automaton, config.lstar, extraction=extraction)


def analyze(weights, automaton, config: AnalysisConfig | None = None, title: str | None = None,
            source: dict | None = None, train_range: tuple[int, int] | None = None) -> Report:
    """Analyse ``weights`` against ``automaton`` (see the module docstring).

    ``train_range`` (shortest, longest training length) is shaded in the accuracy figure.
    Raises AnalysisError when symbol or class counts differ or the config is invalid.
    """
    config = AnalysisConfig() if config is None else config
    if not isinstance(config, AnalysisConfig):
        raise AnalysisError(f"config must be an AnalysisConfig, got {type(config).__name__}")
    config.validated()
    check_compatible(weights, automaton)
    _need_lstar(config)
    if config.run_extraction:
        preflight(config.extract, weights.n_symbols, weights.dim)  # its size limits, before any work
    if config.curve_length:
        check_curve_size(config.curve_words, config.curve_length, weights.dim)
    span = visited_span(weights)  # shared by the spectra, the commutators and the relations
    sp = spectrum(weights, automaton, max_order=config.max_order, word_length=config.word_length, tol=config.tol,
                  span=span, span_tol=config.span_tol)
    co = commutators(weights, automaton, word_length=config.word_length, tol=config.tol, span=span,
                     span_tol=config.span_tol)
    rel, note = _relations(weights, automaton, config, span)
    ex = extract(weights, automaton, config.extract) if config.run_extraction else None
    agreement = _lstar(weights, automaton, config, ex)
    curve = None
    if config.curve_length:
        curve = accuracy_by_length(weights, automaton, config.curve_length, config.curve_words,
                                   config.extract.seed, train_range)
    cert, cert_note = _certify(weights, automaton, config)
    return Report(
        title=title or f"{automaton.name or 'automaton'} / {weights.variant}",
        automaton=automaton,
        variant=weights.variant,
        exact=weights.exact,
        hidden=weights.dim,
        spectrum=sp,
        commutators=co,
        relations=rel,
        relations_note=note,
        extraction=ex,
        config=config,
        source=dict(source or {}),
        curve=curve,
        certificate=cert,
        certificate_note=cert_note,
        implements=implements_line(automaton, weights.variant, sp, ex, curve, exact=weights.exact, weights=weights,
                                   failing=None if cert is None else cert.failing),
        lstar=agreement,
    )


def analyze_tracker(tracker, automaton, config: AnalysisConfig | None = None, title: str | None = None,
                    source: dict | None = None, train_range: tuple[int, int] | None = None) -> Report:
    """The analysis of a model without transition matrices (an LSTM, RNN, Transformer,
    Mamba-style or your own model, through :func:`bilinear.constructions.values.tracker.as_tracker`):
    accuracy by length and the automaton extracted from its hidden states
    (:func:`bilinear.analysis.extract.extract_tracker`); the spectra, commutators and relations
    are None.  A tracker that has Weights (a bilinear model) gets the full :func:`analyze`.
    """
    from .extract import extract_tracker
    from bilinear.constructions.values.tracker import as_tracker, need_automaton

    need_automaton(automaton)
    config = AnalysisConfig() if config is None else config
    if not isinstance(config, AnalysisConfig):
        raise AnalysisError(f"config must be an AnalysisConfig, got {type(config).__name__}")
    config.validated()
    tracker = as_tracker(tracker, n_symbols=automaton.n_symbols, n_classes=automaton.n_classes)
    if tracker.weights is not None:
        return analyze(tracker.weights, automaton, config, title=title, source=source, train_range=train_range)
    curve_length, capped = _tracker_curve_length(tracker, config)
    directed_tokens = min(DIRECTED_TOKENS, config.curve_words * curve_length)  # no more than the curve's
    if curve_length:
        check_curve_size(config.curve_words, curve_length, automaton.n_classes)  # before the extraction
        plan = directed_plan(automaton, curve_length, directed_tokens)  # the directed words' size too
    _need_lstar(config)
    ex = extract_tracker(tracker, automaton, config.extract) if config.run_extraction else None  # its size checked first, before the model runs
    agreement = _lstar(tracker, automaton, config, ex)
    curve = directed = None
    if curve_length:
        curve = accuracy_by_length(tracker, automaton, curve_length, config.curve_words, seed=config.extract.seed,
                                   train_range=train_range)
        directed = directed_run(tracker, automaton, curve_length, directed_tokens, plan=plan)  # runs random words seldom hold
    layers, note = _stack_layers(tracker, automaton, config)
    said = str(note or getattr(tracker, "note", None)
               or f"{tracker.name} has no transition matrices: no spectra, commutators or relations")
    if capped and curve is not None:
        said += (f"; the accuracy by length stops at length {curve_length}, not the {config.curve_length} asked "
                 f"(capped at {curve_length} for a model without transition matrices)")
    return Report(
        title=title or f"{automaton.name or 'automaton'} / {tracker.name}",
        automaton=automaton,
        variant=tracker.name,
        exact=False,
        hidden=None,
        spectrum=None,
        commutators=None,
        relations=None,
        relations_note=said,
        extraction=ex,
        config=config,
        source=dict(source or {}),
        curve=curve,
        lstar=agreement,
        layers=layers,
        directed=directed,
    )


def _tracker_curve_length(tracker, config: AnalysisConfig) -> tuple[int, bool]:
    """``(length, capped)`` of a tracker's accuracy-by-length curve: ``curve_length``, or the default
    cut to :data:`TRACKER_CURVE_LENGTH` (``capped``; the report says so); AnalysisError for any
    other length past it (a stack's float runs are not capped)."""
    from bilinear.constructions.values.tracker import StackTracker

    asked = config.curve_length
    if asked <= TRACKER_CURVE_LENGTH or isinstance(tracker, StackTracker):
        return asked, False
    if asked == AnalysisConfig.curve_length:  # the default (also --curve-length's): cut, and said
        return TRACKER_CURVE_LENGTH, True
    raise AnalysisError(
        f"curve_length {asked} is past {TRACKER_CURVE_LENGTH}, the longest accuracy-by-length curve of a model "
        f"without transition matrices ({tracker.name}: its forward may cost the square of the length, as a "
        f"Transformer's attention does; bilinear.analysis.report.TRACKER_CURVE_LENGTH): ask for at most "
        f"{TRACKER_CURVE_LENGTH} (--curve-length)")


def _stack_layers(tracker, automaton, config: AnalysisConfig):
    """``(layers, note)``: each layer's spectra for a stack (analysis/layers.py), else ``((), None)``."""
    from bilinear.constructions.values.tracker import StackTracker

    if not isinstance(tracker, StackTracker):
        return (), None
    stack = tracker.stack
    layers = layer_spectra(stack, automaton, config.max_order, config.word_length, config.tol, config.span_tol,
                           seed=config.extract.seed)
    return layers, (f"a stack of {stack.depth} layers ({tracker.name}): each layer's spectra below, on the states "
                    "the layers beneath it lead it to; commutators and relations of one set of transition "
                    "matrices do not apply to a stack")
