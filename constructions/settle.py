"""Settling one cell (an automaton, a variant): proved, impossible, counterexample or open.

:func:`settle` is the one procedure behind ``bilinear verify`` and every cell of ``bilinear
matrix``: for a variant with an impossibility theorem it asks the certificate search first
(:func:`~bilinear.constructions.impossible.certificates.certify`); otherwise, or when no certificate exists,
it builds the smallest known construction (:func:`~bilinear.constructions.handmade.registry.build`) — or
takes the given weights — and proves it exactly (:func:`~bilinear.constructions.proof.prover.prove`).
The verdict is a frozen :class:`Cell` with one JSON shape (:meth:`Cell.to_json`) and one text
form (:meth:`Cell.text`).

``proved``
    the weights compute the automaton on every word (``dim``, ``built``, ``margin``);
``impossible``
    a checked certificate that no weights of the variant, of any dimension, compute it;
``counterexample``
    the weights fail on ``word`` (for a registry construction this is a bug);
``open``
    neither: no construction and no certificate, or a proof that gave up at its bound.

Proved and open cells also carry the best known lower bound on the hidden size
(:func:`~bilinear.constructions.impossible.bounds.lower_bound`, Theorems 13-15 of docs/theory.md):
``lower_bound``, the theorem and its reason, and for a proved cell whether its ``dim`` is
``minimal`` (``proved d=3 (minimal)``, ``proved d=4 (lower bound 3)``, ``open (d>=4)``).

The column ``factorized`` has no fixed ``R``: it takes the smallest ``R`` with which any known
construction of the automaton factorises (Theorem 4 of docs/theory.md), then the smallest ``d``
at that ``R``.

>>> settle("dihedral:6", "block:2").summary
'proved d=2 (minimal)'
>>> settle("quaternion", "block:2").summary
'open (d>=4)'
>>> settle("cyclic:3", "diagonal").status
'impossible'
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field, replace
from typing import Any

from bilinear.argtypes import check_positive_int
from bilinear.automata import Automaton, from_spec
from bilinear.automata.words import compress
from bilinear.errors import ConstructionError, ConstructionTooLargeError, SpecError, WeightsError

from .impossible.certificates import Certificate, certifiable_kinds, certify
from .impossible.depth import DepthBound
from .proof.search import BudgetSpent, Clock, OutOfTime, building, deadline
from .values.variants import FACTOR_SOURCES, KINDS, parse_column
from .values.weights import Weights, parse_variant

__all__ = ["Cell", "STATUSES", "EXIT", "settle", "column_variant", "with_float_check", "exit_status"]

#: Every status a cell can have.
STATUSES = ("proved", "impossible", "counterexample", "open")

#: Exit status of ``bilinear verify`` for each status.
EXIT = {"proved": 0, "impossible": 0, "counterexample": 1, "open": 3}


@dataclass(frozen=True)
class Cell:
    """One settled cell.

    ``spec`` names the automaton, ``variant`` is the variant as asked (a matrix column), ``built``
    the canonical variant of the weights that were proved (e.g. ``factorized:6``) and ``dim``
    their hidden size; ``source`` is ``"construction"`` or the weights file; ``margin`` is
    ``(exact text, float)``; ``word``/``expected``/``got`` describe a counterexample (class
    names; ``word`` is run-length compressed, ``word_indices`` the full word); ``words`` two
    words an unfinished proof could not tell apart; ``cause`` why a proof stopped (``"bound"`` or
    ``"time"``); ``float_check`` the float check's JSON when one was run (:func:`with_float_check`);
    ``bound`` the prover's search bound; ``lower_bound`` the least hidden size any weights of the
    variant need (with ``bound_theorem`` and ``bound_reason``; proved and open cells only);
    ``detail`` one sentence on how the status was reached; ``seconds`` the time spent.
    ``layers`` is the depth of the network settled (1 for one :class:`Weights`), ``dims`` each
    layer's hidden size (``dim`` is their sum), ``depth`` the :class:`~bilinear.constructions.impossible.depth.DepthBound`
    of a commuting variant (``min_layers`` and its theorem), ``failed_layer`` the layer of a stack's
    counterexample.  ``time_budget`` is the seconds the proof was given (None: no limit) and
    ``deepened`` whether the bound was doubled within it (:func:`settle` with ``deepen=True``,
    ``bilinear verify`` without ``--bound``), so that ``bound`` is the bound reached.

    ``refusals`` says, for each construction of the family that was not chosen, why (its own
    ConstructionError, weights that do not conform to the variant, a skip, or a larger d): in the
    JSON as ``[{"construction", "reason"}]``, in the text with ``bilinear verify --explain``.
    ``weights`` are the very weights that were proved (built or given; not part of the JSON or of
    equality), so a float check or ``--save`` reuses them instead of building them again.

    One verdict, one JSON shape: ``proof`` is the prover's own verdict JSON
    (:meth:`Proof.to_json <bilinear.constructions.proof.verdicts.Proof.to_json>`, or the
    Counterexample's / Unproved's) whenever a proof ran, nested unchanged under the key
    ``"proof"`` of :meth:`to_json`; the cell's own keys summarise it for the matrix (class
    *names* where the prover gives class indices) and add what the prover does not know
    (certificate, lower bound, float check, timing).

    See Also
    --------
    bilinear.constructions.proof.verdicts.Proof : the prover's verdict alone (no certificate, no
        bound); a Cell holds its JSON under ``"proof"``.
    """

    spec: str
    variant: str
    status: str
    dim: int | None = None
    built: str | None = None
    exact: bool | None = None
    source: str | None = None
    states_explored: int | None = None
    hidden_states: int | None = None
    margin: tuple[str, float] | None = None
    certificate: Certificate | None = None
    word: str | None = None
    word_indices: tuple[int, ...] | None = None
    expected: str | None = None
    got: str | None = None
    words: tuple[str, ...] = ()
    bound: int | None = None
    lower_bound: int | None = None
    bound_theorem: str | None = None
    bound_reason: str = ""
    detail: str = ""
    seconds: float = 0.0
    cause: str | None = None
    float_check: dict | None = None
    factors: int | None = None
    factors_lower_bound: int | None = None
    factors_reason: str = ""
    layers: int | None = None
    dims: tuple[int, ...] | None = None
    depth: DepthBound | None = None
    failed_layer: int | None = None
    time_budget: float | None = None
    deepened: bool = False
    shortest: bool = True  # a counterexample's word is a shortest one (the proof's), or a directed word's
    proof: dict | None = None
    refusals: tuple[tuple[str, str], ...] = ()
    weights: object = field(default=None, repr=False, compare=False)

    @property
    def factors_minimal(self) -> bool | None:
        """True when the proved factor count (K, R) equals its lower bound (None without both)."""
        if self.factors_lower_bound is None or self.factors is None or self.status != "proved":
            return None
        return self.factors_lower_bound == self.factors

    @property
    def minimal(self) -> bool | None:
        """True when the proved ``dim`` equals the lower bound (None without both)."""
        if self.lower_bound is None or self.dim is None or self.status != "proved":
            return None
        return self.lower_bound == self.dim

    def _dim_text(self) -> str:
        """``d=3``, ``d=3 (minimal)``, ``d=4 (lower bound 3)`` or, for a stack, ``2 layers, d=2+4``."""
        if self.layers is not None and self.layers > 1 and self.dims is not None:
            return f"{self.layers} layers, d={'+'.join(str(x) for x in self.dims)}"
        if self.minimal is None:
            return f"d={self.dim}"
        return f"d={self.dim} ({'minimal' if self.minimal else f'lower bound {self.lower_bound}'})"

    @property
    def summary(self) -> str:
        """The short form used in the capability table, e.g. ``proved d=2 (minimal), R=4``."""
        if self.status == "proved":
            extra = ""
            if self.factors is not None:
                assert self.built is not None  # a proved cell names the variant it built
                name = parse_variant(self.built).info.param
                extra = f", {name}={self.factors}"
                if self.factors_lower_bound is not None and self.factors_lower_bound != self.factors:
                    extra += f" ({name}>={self.factors_lower_bound})"
            return f"proved {self._dim_text()}{extra}"
        if self.status == "impossible":
            c = self.certificate
            assert c is not None  # an impossible cell carries its certificate
            w = dict(c.words)
            if c.kind == "commutation":
                return f"impossible: u={w['u']}, (a,b)=({w['a']},{w['b']}), v={w['v']}"
            return f"impossible: u={w['u']}, g={w['g']}, v={w['v']} (labels along g^n: period {c.label_period})"
        if self.status == "counterexample":
            return f"counterexample: {self.detail}"
        if self.layers is not None and self.layers > 1:
            known = self.depth.min_layers if self.depth is not None else None
            return "open" if known is None else f"open (min layers {known})"
        bounds = [] if self.lower_bound is None else [f"d>={self.lower_bound}"]
        if self.factors_lower_bound is not None and self.factors_lower_bound > 1:
            bounds.append(f"{parse_column_param(self.variant)}>={self.factors_lower_bound}")
        return "open" if not bounds else f"open ({', '.join(bounds)})"

    @property
    def float_failed(self) -> bool:
        """True when a float check was run and failed."""
        return self.float_check is not None and not self.float_check.get("passed", True)

    @property
    def next_step(self) -> str | None:
        """For an open cell, what to try next (options of ``bilinear verify``); else None."""
        if self.status != "open":
            return None
        if self.float_check is not None:  # the float check has been run: only the proof's knobs
            return {"time": "give a larger --time-budget SECONDS",
                    "bound": f"raise --bound (now {self.bound}) or give --time-budget SECONDS"}.get(
                self.cause or "", "give your own weights (--weights FILE)")
        if self.cause == "time":
            return "give a larger --time-budget SECONDS, or run the float check (--float) for evidence"
        if self.cause == "bound":
            return (f"raise --bound (now {self.bound}), give --time-budget SECONDS, or run the float "
                    f"check (--float) for evidence")
        return ("give your own weights (--weights FILE), or train a network (bilinear train SPEC MODEL) "
                "and verify its saved weights")

    def to_json(self) -> dict:
        """JSON-ready; every cell has the same keys (``None`` where a key does not apply)."""
        return {
            "spec": self.spec,
            "variant": self.variant,
            "status": self.status,
            "summary": self.summary,
            "dim": self.dim,
            "built": self.built,
            "exact": self.exact,
            "source": self.source,
            "states_explored": self.states_explored,
            "hidden_states": self.hidden_states,
            "margin": None if self.margin is None else {"exact": self.margin[0], "float": self.margin[1]},
            "certificate": None if self.certificate is None else self.certificate.to_dict(),
            "word": self.word,
            "word_indices": None if self.word_indices is None else list(self.word_indices),
            "expected": self.expected,
            "got": self.got,
            "shortest": self.shortest if self.status == "counterexample" else None,
            "words": list(self.words),
            "bound": self.bound,
            "deepened": self.deepened,
            "time_budget": self.time_budget,
            "cause": self.cause,
            "next_step": self.next_step,
            "float_check": self.float_check,
            "lower_bound": self.lower_bound,
            "lower_bound_theorem": self.bound_theorem,
            "lower_bound_reason": self.bound_reason or None,
            "minimal": self.minimal,
            "factors": self.factors,
            "factors_lower_bound": self.factors_lower_bound,
            "factors_reason": self.factors_reason or None,
            "factors_minimal": self.factors_minimal,
            "detail": self.detail,
            "seconds": round(self.seconds, 4),
            "layers": self.layers,
            "dims": None if self.dims is None else list(self.dims),
            "failed_layer": self.failed_layer,
            "proof": self.proof,
            "refusals": [{"construction": c, "reason": r} for c, r in self.refusals],
            **(DepthBound(None, None, None, "").to_json() if self.depth is None else self.depth.to_json()),
        }

    def text(self) -> str:
        """A few readable lines: the verdict (a failed float check first), then its evidence."""
        head = f"{self.spec} {self.variant}: {self.status}"
        if self.status == "proved":
            head += f", {self._dim_text()}"
        elif self.status == "counterexample":
            head += f", d = {self.dim}"
        lines = [head]
        if self.float_failed:
            fc = self.float_check
            assert fc is not None  # float_failed: the check was run
            lines = [f"{self.spec} {self.variant}: FAILS the float check (accuracy {fc['accuracy']:.4f}) "
                     f"on {fc['first_failure']}", f"  exact verdict: {head.split(': ', 1)[1]}"]
        known = f"d >= {self.lower_bound} ({self.bound_theorem}: {self.bound_reason})"
        if self.depth is not None and self.depth.min_layers is not None:
            lines.append(f"  min layers: {self.depth.min_layers} ({self.depth.theorem}: {self.depth.reason})")
        elif self.depth is not None and self.depth.theorem is not None and self.depth.theorem not in (self.detail or ""):
            # (a verdict at a given depth already states the theorem in its detail: said once)
            lines.append(f"  depth: {self.depth.reason}")
        if self.status == "proved":
            if self.lower_bound is not None:
                lines.append(f"  lower bound: {known}")
            if self.factors is not None:
                assert self.built is not None  # a proved cell names the variant it built
                name = parse_variant(self.built).info.param
                line = f"  factors: {name} = {self.factors} ({self.built})"
                if self.factors_lower_bound is not None:
                    line += f"; {name} >= {self.factors_lower_bound} ({self.factors_reason})"
                lines.append(line)
            what = "(state, direction tuple)" if self.layers and self.layers > 1 else "(state, direction)"
            lines.append(f"  reachable {what} pairs: {self.states_explored}")
            if self.margin is not None:
                lines.append(f"  minimum margin: {self.margin[1]:.6g} (exact: {self.margin[0]})")
        elif self.status == "counterexample":
            n = len(self.word_indices or ())
            what = "shortest failing word" if self.shortest else "failing word (a directed word, in exact arithmetic)"
            lines.append(f"  {what}: {self.word or '(empty word)'}" + (f" (length {n})" if n > 1 else ""))
            if not self.shortest:
                lines.append("  found before the proof: a shorter counterexample may exist")
            lines.append(f"  automaton says {self.expected}, weights say {self.got or 'a tie'}"
                         + (f" (layer {self.failed_layer})" if self.layers and self.layers > 1 else ""))
        elif self.status == "impossible":
            assert self.certificate is not None  # an impossible cell carries its certificate
            cert = self.certificate.to_dict()
            lines.append(f"  certificate ({cert['kind']}): {cert['summary']}")
            lines.append(f"  witnesses labelled {cert['labels'][0]} / {cert['labels'][1]} by the automaton")
            lines.append(f"  theorem: {cert['theorem']}")
        else:
            lines.append(f"  {self.detail}")
            if self.time_budget is not None and self.states_explored is not None:
                reached = (f"; bound doubled up to {self.bound} x states" if self.deepened
                           else f"; bound {self.bound} x states")
                lines.append(f"  searched: {self.states_explored} reachable pairs in {self.seconds:.1f} s "
                             f"of a {self.time_budget:g} s time budget{reached}")
            if self.lower_bound is not None:
                lines.append(f"  known: {known}")
            if self.words:
                lines.append(f"  words the weights separate: {self.words[0]} / {self.words[1]}")
            lines.append(f"  next: {self.next_step}")
        if self.float_check is not None:
            fc = self.float_check
            lines.append(
                f"  float check ({fc.get('directed', 0)} directed + {fc['n_words']} random words of length "
                f"{fc['length']}): "
                + (f"no failure up to length {fc['length']} on these words (evidence, not a proof)"
                   if not fc.get("first_failure") else f"accuracy {fc['accuracy']:.4f}")
                + f", worst margin {fc['worst_margin']:.3g}"
                + (f", first failing word {fc['first_failure']}" if fc.get("first_failure") else "")
            )
        return "\n".join(lines)


def parse_column_param(column: str) -> str:
    """The name of the factor count of a column's kind (``K`` for ``householder,nonneg``)."""
    col = parse_column(column)
    return (KINDS[col[0]].param if col is not None else parse_variant(column).info.param) or ""


def with_float_check(cell: Cell, result) -> Cell:
    """``cell`` with a float check's result (:class:`~bilinear.constructions.horizon.floatcheck.CheckResult`)
    attached: a failed check heads :meth:`Cell.text` and makes ``bilinear verify`` exit 1."""
    return replace(cell, float_check=result.to_json())


def exit_status(cell: Cell) -> int:
    """Exit status of ``bilinear verify``: :data:`EXIT` of the status; 1 for a failed float
    check of a cell that is not proved."""
    if cell.float_failed and cell.status != "proved":
        return 1
    return EXIT[cell.status]


def column_variant(column: str) -> str | None:
    """Canonical variant spec of a column, or None for a factor-counting kind named without its
    parameter (``factorized``, ``householder``, ``dplr``: left to the builder, see
    :func:`~bilinear.constructions.values.variants.parse_column`); SpecError for a bad variant."""
    if parse_column(column) is not None:
        return None
    return parse_variant(column.strip().lower()).spec


#: Largest factor count (K, R) the bare ``householder`` and ``dplr`` columns try.
MAX_COUNT = 6


def _factor_bound(automaton: Automaton, kind: str, options: tuple[str, ...] = ()) -> tuple[int, str]:
    """``(n, reason)``: the least factor count of ``kind`` (K of ``householder``, R of ``dplr``)
    that no impossibility certificate rules out (counts below it are impossible: the reason
    names their certificates), capped at ``MAX_COUNT + 1``.

    >>> _factor_bound(from_spec("cyclic:3"), "householder")[0], _factor_bound(from_spec("parity"), "householder")[0]
    (2, 1)
    """
    info = KINDS[kind]
    n, reasons = 1, []
    while n <= MAX_COUNT:
        spec = info.spec(n, options)
        cert = certify(automaton, spec) if certifiable_kinds(spec) else None
        if cert is None:
            break
        reasons.append(f"{spec} is impossible ({cert.kind} certificate {cert.describe()})")
        n += 1
    return n, "; ".join(reasons) or f"{info.param} >= 1 by definition"


def _smallest_count(automaton: Automaton, kind: str, options: tuple[str, ...], start: int = 1,
                    refusals: list | None = None) -> Weights:
    """The registry's weights of ``kind`` with the smallest factor count from ``start`` on.
    ``refusals`` receives one entry per count that no construction reached (the registry's
    reason), then the refusals of the build that was chosen."""
    from .handmade.registry import build

    info = KINDS[kind]

    def attempt(n: int) -> Weights:
        mine: list = []
        try:
            w = build(automaton, info.spec(n, options), refusals=mine)
        except ConstructionError as exc:
            if refusals is not None:
                refusals.append((info.spec(n, options), str(exc)))
            raise
        if refusals is not None:
            refusals.extend(mine)
        return w

    for n in range(start, MAX_COUNT + 1):
        try:
            return attempt(n)
        except ConstructionError:
            continue
    # past MAX_COUNT: the count the known constructions need, read off the weights built in this
    # kind (``one-hot-householder``: K <= n) or, where the kind says how, off their matrices
    from .handmade.registry import candidates

    counts = [w.variant_info.param for _, w in candidates(automaton, kind) if w.variant_info.param is not None]
    if info.count_needed is not None:
        found = [w for _, w in candidates(automaton)]
        try:
            found.append(build(automaton, "full"))  # products' direct sums too
        except ConstructionError:
            pass
        counts += [info.count_needed(w.A, w.exact) for w in found]
    for n in sorted(set(c for c in counts if c > MAX_COUNT)):
        try:
            return attempt(max(n, start))
        except ConstructionError:  # that construction is not of this variant's options (nonneg)
            continue
    raise ConstructionError(f"no construction of {automaton.name or 'automaton'} for "
                            f"{info.spec(None, options)} with {start} <= {info.param} <= {MAX_COUNT}")


def _build(automaton: Automaton, column: str, start: int = 1, refusals: list | None = None) -> Weights:
    """Weights from the registry; ``factorized`` takes the smallest R any known construction of
    the automaton factorises with (Theorem 4 of docs/theory.md), then the smallest d at that R.
    ``refusals`` receives why each construction was not chosen (:func:`~.registry.build`)."""
    from .handmade.registry import build, candidates, factorized_rank

    if column_variant(column) is not None:
        return build(automaton, column, refusals=refusals)
    parsed = parse_column(column)
    assert parsed is not None  # not a plain variant: a factor-counting kind without its parameter
    kind, options = parsed
    if not KINDS[kind].factored:
        return _smallest_count(automaton, kind, options, start, refusals)
    found = [w for _, w in candidates(automaton)]
    for variant in FACTOR_SOURCES:  # also products' direct sums
        try:
            found.append(build(automaton, variant))
        except ConstructionError:
            continue
    if not found:
        raise ConstructionError(f"no construction of {automaton.name or 'automaton'} to factorise")
    R = min(factorized_rank(w) for w in found)
    return build(automaton, f"factorized:{R}", refusals=refusals)


#: Largest bound the deepening of :func:`settle` doubles to (pairs: this times the automaton's
#: states), so that a fast search cannot outgrow memory before its time budget runs out.
MAX_DEEPENED_BOUND = 1 << 16


def _deepened_prove(weights, automaton: Automaton, bound: int, time_budget: float | None,
                    progress, since: float | None = None) -> tuple[Any, int]:
    """Prove with ``bound``, doubling it while the proof stops at its bound and the time budget
    (seconds, None: one try) has time left; ``(result, bound reached)``.

    The closure is breadth-first, so a larger bound only explores further: a counterexample found
    at a larger bound is still the shortest, and a proof is a proof at any bound."""
    from .proof.stackprover import prove_network

    start = time.perf_counter()
    while True:
        left = None if time_budget is None else max(time_budget - (time.perf_counter() - start), 1e-3)
        result = prove_network(weights, automaton, bound=bound, time_budget=left,
                               progress=_deepening_progress(progress, bound, start))
        if (result.status != "open" or getattr(result, "cause", "bound") != "bound" or time_budget is None
                or bound >= MAX_DEEPENED_BOUND or time.perf_counter() - start >= time_budget):
            if result.status == "open" and getattr(result, "cause", None) == "time":
                total = time.perf_counter() - (start if since is None else since)  # all of it, not the last try's
                result = replace(result, reason=(
                    f"time budget ran out after {total:.2f} s (the last search, with bound {bound} x states, "
                    f"held {result.states_explored} (state, direction) pairs) and the closure was not reached; "
                    "this is neither a proof nor a refutation"))
            return result, bound
        bound = min(2 * bound, MAX_DEEPENED_BOUND)


def _deepening_progress(progress, bound: int, start: float):
    """Progress lines that name the bound of each deepened search (each starts again from the
    empty word, so its pair count restarts) and the seconds since the first search began."""
    if progress is not True:
        return progress
    import sys

    def report(pairs: int, directions: int, seconds: float) -> None:
        print(f"prove (bound {bound} x states; each bound searches from the start): {pairs} (state, direction) "
              f"pairs, {directions} directions, {time.perf_counter() - start:.1f} s in all", file=sys.stderr)
    return report


def _directed_first(cell: Cell, weights, automaton: Automaton, time_budget) -> tuple[Cell, float | None]:
    """Given exact weights, the directed words run in exact arithmetic before the proof
    (:func:`~bilinear.constructions.horizon.exactwords.exact_failure`, at most a quarter of the
    budget): a wrong label there is a counterexample the breadth-first proof may not reach in
    time.  Returns the cell (a counterexample, or unchanged) and the budget left."""
    from .horizon.exactwords import EXACT_WORDS_SECONDS, exact_failure

    start = time.perf_counter()
    seconds = EXACT_WORDS_SECONDS if time_budget is None else min(EXACT_WORDS_SECONDS, time_budget / 4)
    found = exact_failure(weights, automaton, DIRECTED_LENGTH, seconds)
    left = None if time_budget is None else max(time_budget - (time.perf_counter() - start), 1e-3)
    if found is None:
        return cell, left
    word = found.word
    expected = automaton.classes[automaton.label(word)]
    got = None if found.got is None else automaton.classes[found.got]
    short = compress(word, automaton)
    return replace(cell, status="counterexample", dim=weights.dim, built=weights.variant, exact=True,
                   weights=weights, word=short, word_indices=word, expected=expected, got=got,
                   shortest=False, time_budget=time_budget,
                   detail=(f"word {short}: automaton says {expected}, weights {got or 'a tie'} (a directed "
                           f"word of length {DIRECTED_LENGTH}, run in exact arithmetic before the proof; "
                           "a shorter counterexample may exist)")), left


#: Length of the directed words exact weights are run on before their proof (the float check's).
DIRECTED_LENGTH = 500


def _proved(cell: Cell, weights, automaton: Automaton, bound: int | None, *, time_budget=None, progress=None,
            deepen: bool = False, directed: bool = False) -> Cell:
    """``cell`` completed by the exact proof of ``weights`` (a :class:`Weights` or a
    :class:`~bilinear.constructions.values.stack.Stack`); ``deepen``: from ``bound``, doubled within
    ``time_budget`` while the proof stops at its bound; ``directed``: exact weights first run on
    the directed words in exact arithmetic (:func:`_directed_first`)."""
    from .proof.prover import DEFAULT_BOUND
    from .values.stack import Stack
    from .proof.stackprover import prove_network

    bound = DEFAULT_BOUND if bound is None else bound
    since = time.perf_counter()
    if directed and isinstance(weights, Weights) and weights.exact:
        cell, time_budget = _directed_first(cell, weights, automaton, time_budget)
        if cell.status == "counterexample":
            return cell
    if deepen:
        result, bound = _deepened_prove(weights, automaton, bound, time_budget, progress, since)
    else:
        result = prove_network(weights, automaton, bound=bound, time_budget=time_budget, progress=progress)
    stacked = isinstance(weights, Stack)
    info = None if stacked else weights.variant_info
    proof = result.to_json()
    cell = replace(cell, dim=weights.dim, built=weights.variant, exact=weights.exact, proof=proof, weights=weights,
                   states_explored=result.states_explored, time_budget=time_budget,
                   deepened=deepen and time_budget is not None, bound=bound,
                   layers=weights.depth if stacked else 1,
                   dims=weights.dims if stacked else (weights.dim,),
                   factors=info.param if info is not None and info.info.counts_factors else None)
    what = "(state, direction tuple)" if stacked else ""
    if result.status == "proved":
        margin = None if result.margin is None else (proof["margin"]["exact"], result.margin_float)
        return replace(cell, status="proved", hidden_states=result.hidden_states, margin=margin,
                       detail=f"exact proof over {result.states_explored} reachable {what or ''}pairs".replace(
                           "tuple)pairs", "tuple) pairs"))
    if result.status == "counterexample":
        expected = automaton.classes[result.expected]
        got = None if result.got is None else automaton.classes[result.got]
        short = compress(result.word, automaton)
        layer = getattr(result, "layer", None)
        where = ""
        if stacked and layer is not None and layer < weights.depth:
            where = f" (layer {layer}'s class is tied)"
        return replace(cell, status="counterexample", word=short, word_indices=tuple(result.word),
                       expected=expected, got=got, failed_layer=layer if stacked else None,
                       detail=f"word {short}: automaton says {expected}, weights {got or 'a tie'}{where}")
    return replace(cell, status="open", words=tuple(compress(w, automaton) for w in result.words), bound=bound,
                   cause=getattr(result, "cause", None),
                   detail=f"construction neither proved nor refuted: {result.reason}")


def _with_bound(cell: Cell, automaton: Automaton, variant: str) -> Cell:
    """``cell`` with the lower bound on d for ``variant`` (proved and open cells only)."""
    if cell.status not in ("proved", "open"):
        return cell
    from .impossible.bounds import lower_bound

    lb, theorem, reason = lower_bound(automaton, variant)
    return replace(cell, lower_bound=lb, bound_theorem=theorem, bound_reason=reason)


def _automaton(spec_or_automaton) -> tuple[Automaton, str]:
    if isinstance(spec_or_automaton, str):
        a = from_spec(spec_or_automaton)
        return a, a.name or spec_or_automaton
    if not isinstance(spec_or_automaton, Automaton):
        raise SpecError(f"a cell needs a spec string or an Automaton, got {type(spec_or_automaton).__name__}")
    return spec_or_automaton, spec_or_automaton.name or "automaton"


#: Largest certificate search settle() runs, in states x symbols^2 (the commutation search looks
#: at every pair of symbols at every reachable state); past it the cell is settled by building
#: a construction, or left open saying the search was skipped.
CERTIFY_WORK_LIMIT = 200_000_000


def settle(spec_or_automaton, variant: str, *, weights=None, source: str | None = None,
           bound: int | None = None, name: str | None = None, time_budget: float | None = None,
           progress=None, layers: int | None = None, depth: bool = True, deepen: bool = False,
           started: float | None = None) -> Cell:
    """Settle one cell (see the module docstring); ``weights`` (a :class:`Weights` or a
    :class:`~bilinear.constructions.values.stack.Stack`) are proved instead of a construction
    (``source`` names them, every layer's variant must be ``variant``); ``name`` overrides the
    automaton's name in the verdict.

    ``layers``: the depth to settle (default: one layer, or the given stack's depth).  One layer
    is the cell of the capability matrix; more layers build the cascade of Theorem S2 (or prove the
    given stack), after Theorems 6 and S3 had their say.  With ``depth`` (default) a commuting
    variant's cell also carries :func:`~bilinear.constructions.impossible.depth.min_layers`.

    ``deepen`` (with a ``time_budget``) doubles the proof's bound, from ``bound`` (default
    :data:`~bilinear.constructions.proof.prover.DEFAULT_BOUND`), while the proof stops at its bound and
    time is left: then ``open`` means nothing was decided in the budget.  ``started`` (a
    ``time.perf_counter()`` reading) is when the budget began, if before this call (``bilinear
    verify`` counts building the automaton).
    """
    from .values.stack import MAX_LAYERS, Stack

    start = time.perf_counter() if started is None else started
    automaton, label = _automaton(spec_or_automaton)
    mixed = isinstance(weights, Stack) and "+" in variant  # layers of several variants: proved as given
    if mixed and variant != weights.variant:
        raise WeightsError(f"weights {source or ''!s} have the layer variants {weights.variant!r}, not {variant!r}")
    spec = None if mixed else column_variant(variant)
    if layers is not None:
        layers = check_positive_int(layers, "layers", error=SpecError, maximum=MAX_LAYERS)
    if isinstance(weights, Stack):
        if layers is not None and layers != weights.depth:
            raise WeightsError(f"weights {source or ''!s} have {weights.depth} layers, not {layers}")
        layers = weights.depth
        if weights.depth == 1:
            weights = weights.layers[0]
    cell = Cell(name or label, variant, "open")
    bound_info = None
    if depth and spec is not None and parse_variant(spec).commuting:
        from .impossible.depth import min_layers

        bound_info = min_layers(automaton, spec)
    if layers is not None and layers > 1:
        cell = _settle_stack(replace(cell, depth=bound_info), automaton, spec, layers, weights, source, bound,
                             time_budget, progress, deepen)
        return replace(cell, seconds=time.perf_counter() - start,
                       time_budget=time_budget if cell.time_budget is not None else None)
    cell = _settle_layer(cell, automaton, variant, spec, weights, source, bound, time_budget, progress, start, deepen)
    return replace(cell, layers=1, dims=None if cell.dim is None else (cell.dim,), depth=bound_info,
                   seconds=time.perf_counter() - start,
                   time_budget=time_budget if cell.time_budget is not None else None)


def _settle_stack(cell: Cell, automaton: Automaton, spec: str | None, layers: int, weights, source, bound,
                  time_budget, progress, deepen: bool = False) -> Cell:
    """A stack of ``layers >= 2``: prove the given one, or exclude the depth (Theorem S3), or build
    the cascade (Theorem S2) and prove it."""
    from .handmade.cascade import build_stack

    cell = replace(cell, layers=layers)
    if weights is not None:
        bad = [w.variant for w in weights.layers if w.variant != spec]
        if spec is not None and bad:
            raise WeightsError(f"weights {source or ''!s} have a layer of variant {bad[0]!r}, not {spec!r}")
        return _proved(replace(cell, source=source or "weights"), weights, automaton, bound,
                       time_budget=time_budget, progress=progress, deepen=deepen)
    if spec is None:
        return replace(cell, detail="a stack needs a variant with its parameter (factorized:R)")
    info = cell.depth
    if info is not None and info.excludes(layers) == "open":
        k = info.derived_length
        if info.theorem == "Theorem S4":
            return replace(cell, detail=f"{info.witness}: by Theorem S4 no stack of {layers} commuting "
                                        f"layers computes it when {_hypotheses('S4')}; stacks outside those "
                                        "hypotheses are not covered")
        why = (f"the derived length is {k} > {layers}" if k is not None else "the group is not solvable")
        return replace(cell, detail=f"{why}: by Theorem S3 no stack of {layers} commuting layers computes it when "
                                    f"{_hypotheses()}; stacks outside those hypotheses are not covered")
    try:
        with building(Clock(time_budget, progress)):
            stack, how = build_stack(automaton, spec, layers)
    except ConstructionError as exc:
        return replace(cell, detail=str(exc))
    cell = _proved(replace(cell, source="construction"), stack, automaton, bound,
                   time_budget=time_budget, progress=progress, deepen=deepen)
    if not how.startswith("the cascade") and cell.status == "proved":
        cell = replace(cell, detail=how if not cell.detail else f"{cell.detail}; {how}")
    return cell


def _hypotheses(theorem: str = "S3") -> str:
    from .impossible.depth import S3_HYPOTHESES, S4_HYPOTHESES

    return S4_HYPOTHESES if theorem == "S4" else S3_HYPOTHESES


def _settle_layer(cell: Cell, automaton: Automaton, variant: str, spec: str | None, weights, source, bound,
                  time_budget, progress, start: float, deepen: bool = False) -> Cell:
    """One layer: the capability matrix's cell."""
    if weights is not None:
        if weights.variant != spec:
            raise WeightsError(f"weights {source or ''!s} have variant {weights.variant!r}, not {spec!r}")
        left = None if time_budget is None else max(time_budget - (time.perf_counter() - start), 1e-3)
        cell = _proved(replace(cell, source=source or "weights"), weights, automaton, bound,
                       time_budget=left, progress=progress, deepen=deepen, directed=True)
        return replace(_with_bound(cell, automaton, weights.variant), seconds=time.perf_counter() - start)
    certifiable = spec is not None and bool(certifiable_kinds(spec))
    cost = automaton.n_states * automaton.n_symbols**2  # the commutation search: states x symbol pairs
    searched = certifiable and cost <= CERTIFY_WORK_LIMIT
    try:  # the search is near-linear in the states, but a budget stops it (SIGALRM: main thread only)
        left = None if time_budget is None else max(time_budget - (time.perf_counter() - start), 1e-3)
        with deadline(left if threading.current_thread() is threading.main_thread() else None):
            cert = certify(automaton, spec) if searched else None
    except BudgetSpent:
        return replace(cell, seconds=time.perf_counter() - start, detail=(
            f"certificate search not finished within the time budget of {time_budget:g} s; raise --time-budget"))
    if cert is not None:
        return replace(cell, status="impossible", certificate=cert,
                       detail=f"{cert.kind} certificate: {cert.describe()}", seconds=time.perf_counter() - start)
    count = parse_column(variant) if spec is None else None
    first = 1
    if count is not None and not KINDS[count[0]].factored:
        first, why = _factor_bound(automaton, *count)
        cell = replace(cell, factors_lower_bound=first, factors_reason=why)
    elif spec is not None and parse_variant(spec).info.counts_factors and not parse_variant(spec).info.factored:
        v = parse_variant(spec)
        low, why = _factor_bound(automaton, v.kind, v.options)
        assert v.param is not None  # parse_variant requires the parameter of a factor-counting kind
        cell = replace(cell, factors_lower_bound=min(low, v.param), factors_reason=why)
    refusals: list[tuple[str, str]] = []
    try:  # the deadline also stops the steps that do not tick the clock (minimising a large table)
        left = None if time_budget is None else max(time_budget - (time.perf_counter() - start), 1e-3)
        with deadline(left if threading.current_thread() is threading.main_thread() else None), \
                building(Clock(time_budget, progress)):
            built = _build(automaton, variant, first, refusals)
    except BudgetSpent:
        return replace(cell, seconds=time.perf_counter() - start, detail=(
            f"construction not built within the time budget of {time_budget:g} s; raise --time-budget"))
    except ConstructionTooLargeError:
        raise  # a size refused before allocating is bad input, not an open cell
    except ConstructionError as exc:
        why = "no certificate exists" if searched else "no impossibility theorem for this variant"
        if certifiable and not searched:
            why = (f"certificate search skipped: states x symbols^2 = {cost:,} passes "
                   f"CERTIFY_WORK_LIMIT = {CERTIFY_WORK_LIMIT:,}")
        # a bare column (``householder,nonneg``) is bounded as its kind with the least count not
        # excluded: the kind's own theorems (F5, and Theorem 14's determinants under nonneg) apply
        bounded = spec if spec is not None or count is None else KINDS[count[0]].spec(first, count[1])
        cell = _with_bound(replace(cell, detail=f"no construction ({exc}); {why}", refusals=tuple(refusals)),
                           automaton, bounded or "full")
        return replace(cell, seconds=time.perf_counter() - start)
    except OutOfTime as out:
        seconds, done, total, unit = out.args
        return replace(cell, seconds=time.perf_counter() - start,
                       detail=f"construction not built within the time budget of {time_budget:g} s "
                              f"({done} of {total} {unit} after {seconds:.1f} s); raise --time-budget")
    if time_budget is not None:
        time_budget = max(time_budget - (time.perf_counter() - start), 1e-3)
    cell = _proved(replace(cell, source="construction", refusals=tuple(refusals)), built, automaton, bound,
                   time_budget=time_budget, progress=progress, deepen=deepen)
    return replace(_with_bound(cell, automaton, built.variant), seconds=time.perf_counter() - start)
