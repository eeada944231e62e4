"""The capability matrix: which variant can compute which automaton, each cell settled exactly.

Rows are automaton families (spec strings), columns are variants.  A cell is

``proved``
    the construction registry (:func:`bilinear.constructions.build`) built weights of the
    column's variant and :func:`~bilinear.constructions.prove.prove` proved them right on every
    word of every length; the cell shows the hidden size ``d`` (and ``R`` for ``factorized``);
``impossible``
    :func:`~bilinear.constructions.certificates.certify` found a (checked) certificate that no
    weights of the variant, of any dimension, can compute the automaton; the cell shows its words;
``counterexample``
    a construction was built but the proof found a failing word: a bug in the registry, reported
    with the word (it should never appear);
``open``
    neither a construction nor a certificate: the toolkit does not know, and says so.

The column ``factorized`` has no fixed ``R``: it takes the smallest ``R`` with which any known
construction of the automaton factorises (Theorem 4 of docs/theory.md), then the smallest ``d``
at that ``R``, and the cell shows both.

>>> m = capability_matrix(["parity", "dihedral:4"], ["full", "rotation2d", "positive"])
>>> [c.text for c in m.row("parity")]
['proved d=1 (minimal)', 'proved d=2 (minimal)', 'impossible: u=ε, g=1, v=ε (labels along g^n: period 2)']
>>> m.cell("dihedral:4", "rotation2d").text
'impossible: u=ε, (a,b)=(r,s), v=ε'
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from typing import Iterable, Sequence

from bilinear.automata import Automaton, from_spec
from bilinear.errors import ConstructionError, SpecError

from .certificates import Certificate, certifiable_kinds, certify
from .weights import parse_variant

__all__ = [
    "Cell",
    "CapabilityMatrix",
    "capability_matrix",
    "matrix_cell",
    "parse_rows",
    "DEFAULT_ROWS",
    "DEFAULT_COLUMNS",
    "STATUSES",
    "register",
]

#: The families the matrix lists by default (the theory's test cases: abelian groups and their
#: products, small non-abelian groups, a solvable semigroup, aperiodic automata, a random machine).
DEFAULT_ROWS = (
    "parity",
    "cyclic:3",
    "cyclic:5",
    "cyclic:2*cyclic:3",
    "cyclic:2*cyclic:2",
    "dihedral:4",
    "dihedral:5",
    "quaternion",
    "symmetric:4",
    "alternating:4",
    "modarith:3",
    "flipflop:2",
    "reset:3",
    "random:states=5,symbols=2,seed=0",
)
#: The variants (columns); ``factorized`` lets the construction choose R.
DEFAULT_COLUMNS = ("full", "factorized", "block:2", "rotation2d", "diagonal", "positive")
#: Every status a cell can have.
STATUSES = ("proved", "impossible", "counterexample", "open")


@dataclass(frozen=True)
class Cell:
    """One settled cell of the matrix.

    ``variant`` is the column as given; ``built`` the canonical variant of the weights that were
    proved (e.g. ``factorized:6``), ``dim`` their hidden size; ``certificate`` the impossibility
    certificate; ``detail`` a sentence on how the status was reached; ``seconds`` the time spent.
    """

    family: str
    variant: str
    status: str
    dim: int | None = None
    built: str | None = None
    certificate: Certificate | None = None
    detail: str = ""
    seconds: float = 0.0
    lower_bound: int | None = None  # every weights of the variant need d >= lower_bound
    bound_theorem: str | None = None  # the theorem of docs/theory.md that proves it
    bound_reason: str = ""

    @property
    def text(self) -> str:
        """The short form used in the Markdown table."""
        if self.status == "proved":
            extra = ""
            if self.built and self.built.startswith("factorized:"):
                extra = f", R={self.built.split(':', 1)[1]}"
            if self.lower_bound is not None:
                known = "minimal" if self.lower_bound == self.dim else f"lower bound {self.lower_bound}"
                return f"proved d={self.dim} ({known}){extra}"
            return f"proved d={self.dim}{extra}"
        if self.status == "impossible":
            c = self.certificate
            w = dict(c.words)
            if c.kind == "commutation":
                return f"impossible: u={w['u']}, (a,b)=({w['a']},{w['b']}), v={w['v']}"
            return f"impossible: u={w['u']}, g={w['g']}, v={w['v']} (labels along g^n: period {c.label_period})"
        if self.status == "counterexample":
            return f"counterexample: {self.detail}"
        return "open" if self.lower_bound is None else f"open (d>={self.lower_bound})"

    def to_dict(self) -> dict:
        """JSON-ready: ``family``, ``variant``, ``status``, ``dim``, ``built``, ``text``, ``detail``,
        ``certificate`` (its :meth:`~Certificate.to_dict` or ``None``), ``seconds``."""
        return {
            "family": self.family,
            "variant": self.variant,
            "status": self.status,
            "dim": self.dim,
            "built": self.built,
            "text": self.text,
            "detail": self.detail,
            "certificate": None if self.certificate is None else self.certificate.to_dict(),
            "lower_bound": self.lower_bound,
            "lower_bound_theorem": self.bound_theorem,
            "lower_bound_reason": self.bound_reason or None,
            "minimal": None if self.lower_bound is None or self.dim is None else self.lower_bound == self.dim,
            "seconds": round(self.seconds, 4),
        }


@dataclass(frozen=True)
class CapabilityMatrix:
    """Families (rows) x variants (columns); ``cells[i][j]`` settles row i, column j."""

    rows: tuple[str, ...]
    columns: tuple[str, ...]
    cells: tuple[tuple[Cell, ...], ...]

    def row(self, family: str) -> tuple[Cell, ...]:
        try:
            return self.cells[self.rows.index(family)]
        except ValueError:
            raise SpecError(f"family {family!r} is not a row of this matrix") from None

    def cell(self, family: str, variant: str) -> Cell:
        try:
            j = self.columns.index(variant)
        except ValueError:
            raise SpecError(f"variant {variant!r} is not a column of this matrix") from None
        return self.row(family)[j]

    def counts(self) -> dict[str, int]:
        """How many cells have each status."""
        out = {s: 0 for s in STATUSES}
        for row in self.cells:
            for c in row:
                out[c.status] += 1
        return out

    def to_markdown(self) -> str:
        """A padded Markdown table (deterministic: no timings), one line per family."""
        header = ["family", *self.columns]
        body = [[f"`{r}`", *(_escape(c.text) for c in row)] for r, row in zip(self.rows, self.cells)]
        widths = [max(len(line[j]) for line in [header, *body]) for j in range(len(header))]

        def fmt(line):
            return "| " + " | ".join(x.ljust(w) for x, w in zip(line, widths)) + " |"

        rule = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
        return "\n".join([fmt(header), rule, *(fmt(line) for line in body)])

    def to_json(self) -> dict:
        return {
            "rows": list(self.rows),
            "columns": list(self.columns),
            "counts": self.counts(),
            "cells": [[c.to_dict() for c in row] for row in self.cells],
        }


def _escape(text: str) -> str:
    """Escape the characters Markdown would read as table or emphasis syntax."""
    for ch in ("\\", "|", "*", "_", "`"):
        text = text.replace(ch, "\\" + ch)
    return text


# ------------------------------------------------------------------------------------------
# settling one cell
# ------------------------------------------------------------------------------------------
def _column_variant(column: str) -> str | None:
    """Canonical variant spec of a column, or None for ``factorized`` (R left to the builder)."""
    text = column.strip().lower()
    if text == "factorized":
        return None
    return parse_variant(text).spec


def _build(automaton: Automaton, column: str):
    """Weights from the registry for a column; ``factorized`` takes the smallest R any known
    construction of the automaton factorises with (Theorem 4), then the smallest d at that R."""
    from .registry import build, candidates, factorized_rank

    if column.strip().lower() != "factorized":
        return build(automaton, column)
    found = [w for _, w in candidates(automaton)]
    for variant in ("full", "diagonal", "rotation2d", "block:2"):  # also products' direct sums
        try:
            found.append(build(automaton, variant))
        except ConstructionError:
            continue
    if not found:
        raise ConstructionError(f"no construction of {automaton.name or 'automaton'} to factorise")
    R = min(factorized_rank(w) for w in found)
    return build(automaton, f"factorized:{R}")


def matrix_cell(family: str | Automaton, column: str) -> Cell:
    """Settle one cell: a certificate first (commuting variants), else build and prove.

    ``family`` is a spec string or an :class:`~bilinear.automata.Automaton`.

    >>> matrix_cell("cyclic:3", "diagonal").status
    'impossible'
    >>> c = matrix_cell("cyclic:3", "rotation2d")
    >>> c.status, c.dim
    ('proved', 2)
    """
    if isinstance(family, str):
        return _settle(from_spec(family), family, column)
    if not isinstance(family, Automaton):
        raise SpecError(f"a matrix row must be a spec string or an Automaton, got {type(family).__name__}")
    return _settle(family, family.name or "automaton", column)


def _settle(automaton: Automaton, name: str, column: str) -> Cell:
    start = time.perf_counter()
    spec = _column_variant(column)
    certifiable = spec is not None and bool(certifiable_kinds(spec))
    if certifiable:
        cert = certify(automaton, spec)
        if cert is not None:
            return Cell(
                name, column, "impossible", certificate=cert,
                detail=f"{cert.kind} certificate: {cert.describe()}",
                seconds=time.perf_counter() - start,
            )
    from .bounds import lower_bound
    from .prove import prove

    try:
        weights = _build(automaton, column)
    except ConstructionError as exc:
        why = "no certificate exists" if certifiable else "no impossibility theorem for this variant"
        lb, thm, reason = lower_bound(automaton, spec or "full")
        return Cell(name, column, "open", detail=f"no construction ({exc}); {why}; d >= {lb} ({thm}: {reason})",
                    seconds=time.perf_counter() - start, lower_bound=lb, bound_theorem=thm, bound_reason=reason)
    result = prove(weights, automaton)
    elapsed = time.perf_counter() - start
    if result.status == "proved":
        lb, thm, reason = lower_bound(automaton, weights.variant)
        return Cell(name, column, "proved", dim=weights.dim, built=weights.variant,
                    detail=f"exact proof over {result.states_explored} reachable pairs",
                    seconds=time.perf_counter() - start, lower_bound=lb, bound_theorem=thm, bound_reason=reason)
    if result.status == "counterexample":
        return Cell(name, column, "counterexample", dim=weights.dim, built=weights.variant,
                    detail=f"word {result.text!r}: automaton says {result.expected}, weights {result.got}",
                    seconds=elapsed)
    return Cell(name, column, "open", dim=weights.dim, built=weights.variant,
                detail=f"construction neither proved nor refuted: {result.reason}", seconds=elapsed)


def capability_matrix(
    families: Iterable[str] = DEFAULT_ROWS, variants: Iterable[str] = DEFAULT_COLUMNS
) -> CapabilityMatrix:
    """Settle every cell of families x variants (see the module docstring for the statuses).

    Raises SpecError for a malformed family or variant spec (before computing anything).
    """
    rows = tuple(families)
    columns = tuple(variants)
    if not rows or not columns:
        raise SpecError("the capability matrix needs at least one family and one variant")
    automata = [from_spec(r) for r in rows]  # validate every spec first
    for c in columns:
        _column_variant(c)
    cells = tuple(tuple(_settle(a, r, c) for c in columns) for r, a in zip(rows, automata))
    return CapabilityMatrix(rows, columns, cells)


# ------------------------------------------------------------------------------------------
# command line
# ------------------------------------------------------------------------------------------
def parse_rows(values: Sequence[str]) -> list[str]:
    """Family specs from ``--rows`` values: comma-separated, where a piece ``key=value`` (no
    ``:``) continues the previous spec, so ``random:states=5,symbols=2,parity`` is two specs.
    ``;`` also separates.

    >>> parse_rows(["parity,random:states=5,symbols=2,seed=0,cyclic:3", "symmetric:4,alphabet=all"])
    ['parity', 'random:states=5,symbols=2,seed=0', 'cyclic:3', 'symmetric:4,alphabet=all']
    """
    out: list[str] = []
    for value in values:
        for chunk in value.split(";"):
            for piece in chunk.split(","):
                piece = piece.strip()
                if not piece:
                    raise SpecError(f"empty family in --rows {value!r}")
                if "=" in piece and ":" not in piece and out:
                    out[-1] += "," + piece
                else:
                    out.append(piece)
    return out


def _run(args: argparse.Namespace) -> int:
    rows = parse_rows(args.rows) if args.rows else list(DEFAULT_ROWS)
    columns = [c.strip() for c in args.columns.split(",")] if args.columns else list(DEFAULT_COLUMNS)
    if any(not c for c in columns):
        raise SpecError(f"empty variant in --columns {args.columns!r}")
    start = time.perf_counter()
    m = capability_matrix(rows, columns)
    if args.json:
        json.dump(m.to_json(), sys.stdout, indent=2, ensure_ascii=False)
        print()
    elif args.markdown:
        print(m.to_markdown())
    else:
        print(m.to_markdown())
        counts = ", ".join(f"{n} {s}" for s, n in m.counts().items())
        print(f"\n{len(rows)} families x {len(columns)} variants: {counts} "
              f"({time.perf_counter() - start:.1f} s)")
    return 1 if m.counts()["counterexample"] else 0


def register(sub) -> None:
    """Add ``bilinear matrix`` to the sub-command parser ``sub``."""
    p = sub.add_parser(
        "matrix",
        help="families x variants: proved (with d), impossible (certificate) or open",
        description=(
            "Settle every cell of the capability matrix exactly: build and prove a construction, "
            "or find an impossibility certificate, or report the cell as open. Exit status 1 if a "
            "construction fails its proof (a bug), 0 otherwise."
        ),
    )
    out = p.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="every cell as JSON (with certificates)")
    out.add_argument("--markdown", action="store_true", help="only the Markdown table (as in docs/theory.md)")
    p.add_argument(
        "--rows", action="append", metavar="SPEC,...",
        help="family specs (comma-separated; may repeat); default: the built-in list",
    )
    p.add_argument("--columns", metavar="VARIANT,...", help="variants (comma-separated); default: all six")
    p.set_defaults(handler=_run)
