"""The capability matrix: which variant can compute which automaton, each cell settled exactly.

Rows are automaton families (spec strings), columns are variants.  A cell is

``proved``
    the construction registry (:func:`bilinear.constructions.build`) built weights of the
    column's variant and :func:`~bilinear.constructions.proof.prover.prove` proved them right on every
    word of every length; the cell shows the hidden size ``d`` (and ``R`` for ``factorized``);
``impossible``
    :func:`~bilinear.constructions.impossible.certificates.certify` found a (checked) certificate that no
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
>>> [c.summary for c in m.row("parity")]
['proved d=1 (minimal)', 'proved d=2 (minimal)', 'impossible: u=ε, g=1, v=ε (labels along g^n: period 2)']
>>> m.cell("dihedral:4", "rotation2d").summary
'impossible: u=ε, (a,b)=(r,s), v=ε'

:meth:`CapabilityMatrix.depth_markdown` is the depth table (``bilinear matrix --layers``): the
smallest depth of a stack of each commuting variant, proved by a cascade (Theorem S2):

>>> print(m.depth_markdown())
| family       | rotation2d | positive |
|--------------|------------|----------|
| `parity`     | 1          | open     |
| `dihedral:4` | 2          | open     |
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

from bilinear.automata import Automaton, from_spec
from bilinear.automata.families import canonical_spec, check_spec, is_automaton_file
from bilinear.errors import SpecError

from .settle import STATUSES, Cell, column_variant, settle
from .values.weights import parse_variant

__all__ = [
    "Cell",
    "CapabilityMatrix",
    "capability_matrix",
    "matrix_cell",
    "parse_rows",
    "DEFAULT_ROWS",
    "DEFAULT_COLUMNS",
    "STATUSES",
    "parse_columns",
]

#: The families the matrix lists by default (the theory's test cases: abelian groups and their
#: products, small non-abelian groups, a solvable semigroup, aperiodic automata, a random machine,
#: and the benchmark tasks of the field).
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
    # the field's benchmark tasks (Chomsky-hierarchy regular tasks, synthseq automata)
    "even_pairs",
    "cycle_navigation:5",
    "modular_arithmetic:3",
    "gridworld:9",
    "permutation_reset:3",
)
#: The variants (columns); ``factorized``, ``householder`` and ``dplr`` let the construction
#: choose the smallest factor count (R, K) and show it.
DEFAULT_COLUMNS = ("full", "factorized", "block:2", "rotation2d", "diagonal", "positive",
                   "householder", "householder,nonneg", "monomial", "monomial,complex", "dplr")


def parse_columns(text: str) -> list[str]:
    """Variant columns from ``--columns``: comma-separated, where a piece that is an option of
    the previous variant's kind (``nonneg``) continues it.

    >>> parse_columns("full,householder,nonneg,householder:2,monomial")
    ['full', 'householder,nonneg', 'householder:2', 'monomial']
    """
    from .values.variants import KINDS

    out: list[str] = []
    for piece in (p.strip() for p in text.split(",")):
        if not piece:
            raise SpecError(f"empty variant in --columns {text!r}")
        head = out[-1].split(",", 1)[0].split(":", 1)[0].strip().lower() if out else None
        if head in KINDS and piece.lower() in KINDS[head].options:
            out[-1] += "," + piece.lower()
        else:
            out.append(piece)
    return out


@dataclass(frozen=True)
class CapabilityMatrix:
    """Families (rows) x variants (columns); ``cells[i][j]`` settles row i, column j."""

    rows: tuple[str, ...]
    columns: tuple[str, ...]
    cells: tuple[tuple[Cell, ...], ...]

    def row(self, family: str) -> tuple[Cell, ...]:
        """The cells of ``family``'s row (any spelling of its spec: ``CYCLIC:03`` finds ``cyclic:3``)."""
        for key in (family, _canonical(family)):
            if key in self.rows:
                return self.cells[self.rows.index(key)]
        raise SpecError(f"family {family!r} is not a row of this matrix")

    def cell(self, family: str, variant: str) -> Cell:
        """The cell of ``family`` and ``variant``, each in any spelling its canonical one takes."""
        for key in (variant, _canonical_column(variant)):
            if key in self.columns:
                return self.row(family)[self.columns.index(key)]
        raise SpecError(f"variant {variant!r} is not a column of this matrix")

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
        body = [[f"`{r}`", *(_escape(c.summary) for c in row)] for r, row in zip(self.rows, self.cells)]
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
            "cells": [[c.to_json() for c in row] for row in self.cells],
        }

    def depth_columns(self) -> tuple[str, ...]:
        """The columns whose variant is commuting (those with a depth theory)."""
        return tuple(c for c in self.columns if (v := column_variant(c)) is not None
                     and parse_variant(v).commuting)

    def depth_markdown(self) -> str:
        """The smallest proved depth per commuting column (docs/theory.md section 8): ``2`` (one
        layer excluded by Theorem 6, two proved), ``3 (S3)`` (fewer layers excluded only under
        Theorem S3's hypotheses; ``(S6)``: Theorem S6's, for diagonal layers), ``none (S3)`` (not solvable: no depth under those hypotheses),
        ``none (S4)`` (two idempotents break the identity of Theorem S4: no depth under its
        hypotheses), ``open`` (no cascade of the variant, or no theorem applies)."""
        columns = self.depth_columns()
        if not columns:
            raise SpecError("the matrix has no commuting column (rotation2d, diagonal, positive): no depth table")
        header = ["family", *columns]
        body = [[f"`{r}`", *(_depth_text(self.cell(r, c)) for c in columns)] for r in self.rows]
        widths = [max(len(line[j]) for line in [header, *body]) for j in range(len(header))]

        def fmt(line):
            return "| " + " | ".join(x.ljust(w) for x, w in zip(line, widths)) + " |"

        rule = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
        return "\n".join([fmt(header), rule, *(fmt(line) for line in body)])


def _depth_text(cell: Cell) -> str:
    d = cell.depth
    if d is None:
        return "open"
    if d.min_layers is not None:
        return str(d.min_layers) if d.unconditional else f"{d.min_layers} ({'S6' if 'S6' in (d.theorem or '') else 'S3'})"
    if d.derived_length is None and d.theorem is not None:
        return "none (S4)" if d.theorem == "Theorem S4" else "none (S3)"
    return "open"


def _escape(text: str) -> str:
    """Escape the characters Markdown would read as table or emphasis syntax."""
    for ch in ("\\", "|", "*", "_", "`"):
        text = text.replace(ch, "\\" + ch)
    return text


def matrix_cell(family: str | Automaton, column: str) -> Cell:
    """Settle one cell (:func:`~bilinear.constructions.settle.settle`).

    >>> matrix_cell("cyclic:3", "diagonal").status
    'impossible'
    >>> c = matrix_cell("cyclic:3", "rotation2d")
    >>> c.status, c.dim
    ('proved', 2)
    """
    return settle(family, column, name=family if isinstance(family, str) else None)


def capability_matrix(
    families: Iterable[str] = DEFAULT_ROWS, variants: Iterable[str] = DEFAULT_COLUMNS, *,
    time_budget: float | None = None, progress: bool = False,
) -> CapabilityMatrix:
    """Settle every cell of families x variants (see the module docstring for the statuses).

    Raises SpecError for a malformed family or variant spec, and the size errors of
    :func:`~bilinear.automata.families.check_spec`, before computing anything.  ``time_budget``
    (seconds) is each cell's (:func:`~bilinear.constructions.settle.settle`: a cell past it is
    ``open`` and says so, as is a cell whose constructions all pass the size limits);
    ``progress=True`` reports on stderr, through
    :class:`~bilinear.progress.Progress` (cells done, the cell being settled) and the prover's own
    lines for a long proof.
    """
    from bilinear.progress import Progress

    given = tuple(families)
    named = tuple(variants)
    if not given or not named:
        raise SpecError("the capability matrix needs at least one family and one variant")
    for r in given:  # every family spec checked (sizes from the spec) before any automaton is built
        if isinstance(r, str) and not is_automaton_file(r):
            check_spec(r)
    rows = tuple(_canonical(r) for r in given)  # one automaton, one row (docs/formats.md)
    for i, r in enumerate(rows):
        if r in rows[:i]:
            raise SpecError(f"--rows lists {given[rows.index(r)]!r} and {given[i]!r}: both are {r!r}")
    # each column in its canonical spelling (a bare factor-counting kind: its pieces stripped and
    # lowered), and one variant one column, as one automaton is one row
    columns = tuple(_canonical_column(c) for c in named)
    for i, c in enumerate(columns):
        if c in columns[:i]:
            raise SpecError(f"--columns lists {named[columns.index(c)]!r} and {named[i]!r}: both are {c!r}")
    with Progress("matrix", total=len(rows) * len(columns), unit="cells", quiet=not progress) as bar:
        bar.phase("building the automata")
        automata = [from_spec(r) for r in rows]
        cells = []
        for r, a in zip(rows, automata):
            row = []
            for c in columns:
                bar.phase(f"{r} {c}")
                row.append(settle(a, c, name=r, time_budget=time_budget, progress=True if progress else None,
                                  oversize_open=True))  # a construction past the size limits: an open cell
                bar.update(1)
            cells.append(tuple(row))
    return CapabilityMatrix(rows, columns, tuple(cells))


def _canonical(family):
    """A family spec's canonical form (files and non-strings as given)."""
    if not isinstance(family, str) or is_automaton_file(family):
        return family
    return canonical_spec(family)


def _canonical_column(column: str) -> str:
    """A column's canonical spelling: the variant's spec, or for a bare factor-counting kind
    (``householder``, ``factorized``, ``dplr``, with options) its pieces stripped and lowered.
    SpecError for a bad variant."""
    return column_variant(column) or ",".join(p.strip().lower() for p in column.split(","))


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
