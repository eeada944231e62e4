"""The full analysis of a network: spectra, commutators, relation residuals, extraction.

:func:`analyze` takes a :class:`~bilinear.constructions.weights.Weights` and the
:class:`~bilinear.automata.automaton.Automaton` it should implement, and returns a frozen
:class:`Report` with ``.to_json()`` (a JSON-serialisable dict), ``.to_markdown()`` (the text
report) and ``.write(out_dir)`` (``report.md``, ``report.json`` and the PNG figures, each file
written atomically after everything has been computed).

>>> from bilinear.analysis.examples import cyclic_rotation2d
>>> from bilinear.automata import from_spec
>>> r = analyze(cyclic_rotation2d(5), from_spec("cyclic:5"), AnalysisConfig(extract=ExtractConfig(words=100, length=20)))
>>> print(r.summary)
A_0 acts as the identity (up to a positive scale)
A_1 acts as a rotation of order 5 on a 2-dimensional subspace
A_2 acts as a rotation of order 5 on a 2-dimensional subspace
A_3 acts as a rotation of order 5 on a 2-dimensional subspace
A_4 acts as a rotation of order 5 on a 2-dimensional subspace
all transition matrices commute (exactly); max scale-free norm 0
all 21 defining relations hold (exactly)
extraction: 5 clusters -> 5 minimal states; clusters separated (within <= 0, between >= 1.2); isomorphic to the true automaton; monoid: ...
>>> r.to_json()["extraction"]["isomorphic"]
True
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from bilinear.constructions.floatrun import check_compatible
from bilinear.errors import AnalysisError, MonoidTooLargeError
from bilinear.fileio import atomic_write_text

from .commutators import Commutators, commutators
from .extract import ExtractConfig, Extraction, extract, preflight
from .matrices import check_positive_int, check_tolerance
from .relations import RelationReport, relation_residuals
from .span import visited_span
from .spectrum import Spectrum, check_max_order, spectrum

__all__ = ["AnalysisConfig", "Report", "analyze", "ExtractConfig"]

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
    extract: ExtractConfig = field(default_factory=ExtractConfig)  # extraction parameters
    run_extraction: bool = True  # False: skip the (sampling) extraction

    def validated(self) -> "AnalysisConfig":
        check_tolerance(self.tol, "tol")
        check_max_order(self.max_order)
        check_positive_int(self.word_length, "word_length")
        check_positive_int(self.max_relations, "max_relations", minimum=0)
        if not isinstance(self.extract, ExtractConfig):
            raise AnalysisError(f"extract must be an ExtractConfig, got {type(self.extract).__name__}")
        self.extract.validated()
        return self


@dataclass(frozen=True)
class Report:
    """Everything :func:`analyze` found; ``relations`` is None when the monoid was too large,
    ``extraction`` None when ``run_extraction`` was off."""

    title: str
    automaton: object
    variant: str
    exact: bool
    hidden: int
    spectrum: Spectrum
    commutators: Commutators
    relations: RelationReport | None
    relations_note: str | None
    extraction: Extraction | None
    config: AnalysisConfig
    source: dict = field(default_factory=dict)

    @property
    def summary(self) -> str:
        """A few lines: one per symbol, then commutators, relations, extraction."""
        lines = [self.spectrum.reading, self.commutators.reading]
        lines.append(self.relations.reading if self.relations is not None else f"relations: {self.relations_note}")
        if self.extraction is not None:
            lines.append("extraction: " + self.extraction.reading)
        return "\n".join(lines)

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
            "weights": {"variant": self.variant, "exact": self.exact, "hidden": self.hidden},
            "config": asdict(self.config),
            "summary": self.summary.splitlines(),
            "spectrum": self.spectrum.to_json(),
            "commutators": self.commutators.to_json(),
            "relations": None if self.relations is None else self.relations.to_json(),
            "relations_note": self.relations_note,
            "extraction": None if self.extraction is None else self.extraction.to_json(),
        })

    def to_markdown(self, figures: list[str] | None = None) -> str:
        out = self._md_header() + self._md_spectra() + self._md_commutators() + self._md_relations()
        if self.extraction is not None:
            out += self._md_extraction()
        if figures:
            out += ["", "## Figures", ""] + [f"![{Path(f).stem}]({Path(f).name})" for f in figures]
        return "\n".join(out) + "\n"

    def _md_header(self) -> list[str]:
        a = self.automaton
        out = [f"# Analysis: {self.title}", ""]
        out.append(
            f"- automaton `{a.name or 'unnamed'}`: {a.n_states} states, {a.n_symbols} symbols, "
            f"{a.n_classes} classes"
        )
        out.append(
            f"- weights: variant `{self.variant}`, hidden {self.hidden}, "
            f"{'exact' if self.exact else 'float'} entries"
        )
        for k, v in self.source.items():
            out.append(f"- {k}: {v}")
        return out + ["", "## Summary", ""] + [f"- {line}" for line in self.summary.splitlines()]

    def _md_spectra(self) -> list[str]:
        sp = self.spectrum
        out = ["", "## Spectra", ""]
        out.append(
            f"Eigenvalues divided by the spectral radius (hidden states are up to a positive scale; "
            f"|det|^(1/d) would be 0 for singular matrices). Orders up to scale: smallest i + p <= "
            f"{sp.max_order} with A^(i+p) = c·A^i, c > 0 (order p when i = 0); "
            + ("decided exactly." if sp.exact else f"float, tolerance {sp.tol:g}.")
        )
        out += ["", "| matrix | order | index, period | exact | nearest roots (order: distance) | reading |", "|---|---|---|---|---|---|"]
        for m in list(sp.symbols) + list(sp.words[:16]) + list(sp.blocks[:16]):
            ip = "-" if m.index is None else f"{m.index}, {m.period}"
            roots = ", ".join(f"{r.order}: {r.distance:.1e}" for r in m.roots[:6])
            if len(m.roots) > 6:
                roots += ", ..."
            order = str(m.order) if m.order is not None else "-"
            if m.order is None and m.visited_order is not None:
                order = f"≈{m.visited_order} ({m.visited_residual:.2g})"
            out.append(f"| {m.name} | {order} | {ip} | {m.exact} | {roots} | {m.reading} |")
        return out

    def _md_commutators(self) -> list[str]:
        co = self.commutators
        out = ["", "## Commutators", "", co.reading, ""]
        n = len(co.symbols)
        if n <= 12:
            out.append("| | " + " | ".join(co.symbols) + " |")
            out.append("|---" * (n + 1) + "|")
            for i, s in enumerate(co.symbols):
                out.append(f"| **{s}** | " + " | ".join(f"{x:.2g}" for x in co.norms[i]) + " |")
        return out

    def _md_relations(self) -> list[str]:
        rel = self.relations
        out = ["", "## Relations", ""]
        if rel is None:
            return out + [self.relations_note or "not computed"]
        out.append(
            rel.reading
            + f". Residual: min over c >= 0 of ||A(u) - c A(v)|| / ||A(u)||; reachable subspace of "
            f"dimension {rel.reachable_dim} of {rel.hidden}."
        )
        out += ["", "| relation | residual | on reachable subspace | exactly | holds |", "|---|---|---|---|---|"]
        shown = sorted(rel.relations, key=lambda r: (r.holds, -r.residual_reachable))[:30]
        for r in shown:
            out.append(f"| `{r.text}` | {r.residual:.2e} | {r.residual_reachable:.2e} | {r.exactly} | {r.holds} |")
        if len(rel.relations) > 30:
            out.append(f"| ... {len(rel.relations) - 30} more | | | | |")
        return out

    def _md_extraction(self) -> list[str]:
        ex = self.extraction
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
                f"- {c.words} random words of length {c.length} (seed {c.seed}){burn}; cluster radius {c.tol:g}"
            )
            out.append(
                f"- within-cluster distances <= {ex.within:.3g}; between-cluster distances >= "
                f"{ex.between:.3g}; gap {('%.3g' % ex.gap) if ex.gap is not None else 'undefined'}"
            )
        out.append(
            f"- transition conflicts {ex.conflicts} (fraction of votes against the majority "
            f"{ex.conflict_fraction:.3g}); unobserved transitions filled {ex.unobserved}; label conflicts "
            f"{ex.label_conflicts}"
        )
        acc = ex.accuracy_by_length
        marks = sorted({1, 10, 100, 500, len(acc)} & set(range(1, len(acc) + 1)))
        out.append(
            f"- network normalised accuracy {ex.accuracy:.4f}; at length "
            + ", ".join(f"{t}: {acc[t - 1]:.3f}" for t in marks)
        )
        if ex.first_error is not None:
            out.append(f"- first network error among the samples: `{self.automaton.format_word(ex.first_error)}`")
        if ex.distinguishing_word is not None:
            out.append(f"- shortest word on which the extracted automaton differs: `{ex.distinguishing_text}`")
        return out

    def write(self, out_dir, figures: bool = True) -> list[Path]:
        """Write ``report.json``, ``report.md`` and (by default) the figures into ``out_dir``."""
        from .figures import write_figures

        out = Path(out_dir)
        if out.exists() and not out.is_dir():
            raise AnalysisError(f"output path {str(out)!r} exists and is not a directory")
        out.mkdir(parents=True, exist_ok=True)
        payload = json.dumps(self.to_json(), indent=2, allow_nan=False, default=_json_default)
        paths = write_figures(self, out) if figures else []
        text = self.to_markdown([p.name for p in paths])
        written = [atomic_write_text(out / "report.json", payload + "\n"), atomic_write_text(out / "report.md", text)]
        return written + paths


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


def analyze(weights, automaton, config: AnalysisConfig | None = None, title: str | None = None, source: dict | None = None) -> Report:
    """Analyse ``weights`` against ``automaton`` (see the module docstring).

    Raises AnalysisError when symbol or class counts differ or the config is invalid.
    """
    config = AnalysisConfig() if config is None else config
    if not isinstance(config, AnalysisConfig):
        raise AnalysisError(f"config must be an AnalysisConfig, got {type(config).__name__}")
    config.validated()
    check_compatible(weights, automaton)
    if config.run_extraction:
        preflight(config.extract, weights.n_symbols, weights.dim)  # its size limits, before any work
    span = visited_span(weights)  # shared by the spectra, the commutators and the relations
    sp = spectrum(weights, automaton, max_order=config.max_order, word_length=config.word_length, tol=config.tol, span=span)
    co = commutators(weights, automaton, word_length=config.word_length, tol=config.tol, span=span)
    rel, note = None, None
    try:
        pairs = automaton.monoid(limit=config.extract.monoid_limit).relations()
    except MonoidTooLargeError as exc:
        note = f"cannot list the relations of {automaton.name or 'the automaton'}: {exc}"
    else:
        rel = relation_residuals(weights, automaton, pairs=pairs, tol=config.tol,
                                 max_relations=config.max_relations, span=span)
    ex = extract(weights, automaton, config.extract) if config.run_extraction else None
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
    )
