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
from dataclasses import replace
from typing import Any

from bilinear.argtypes import check_positive_int
from bilinear.automata import Automaton, from_spec
from bilinear.automata.words import compress
from bilinear.errors import ConstructionError, ConstructionTooLargeError, SpecError, WeightsError

from .impossible.certificates import certifiable_kinds, certify
from .impossible.depth import DepthBound
from .proof.search import BudgetSpent, Clock, OutOfTime, building, deadline
from .values.variants import KINDS, parse_column
from .values.weights import Weights, parse_variant
from .cell import EXIT, PHASES, STATUSES, Cell, exit_status, parse_column_param, with_float_check

__all__ = ["Cell", "STATUSES", "PHASES", "EXIT", "settle", "column_variant", "with_float_check", "exit_status",
           "parse_column_param"]

#: Seconds the phases after the proof (depth bound, lower bound) get each even when the proof
#: spent the budget, so that an over-time cell still says what is cheaply known; a phase that
#: needs more is stopped and named in ``Cell.out_of_time``.
AFTER_PROOF_GRACE = 0.5

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
    from .handmade.registry import candidates, factor_counts

    # only the constructions build tries for this kind (and options): another's count can add no
    # build that succeeds (a build at count n adapts a construction tried for the kind, whose own
    # count, at most n, is among these), and half-turns alone costs seconds; a count known before
    # building (``known_count``: one-hot-householder of a group, half-turns from its sources) is
    # read without building
    tried_for = info.spec(MAX_COUNT + 1, options)
    counts = factor_counts(automaton, kind, tried_for=tried_for)
    if info.count_needed is not None:
        found = [w for _, w in candidates(automaton, tried_for=tried_for)]
        try:
            found.append(build(automaton, "full"))  # products' direct sums too
        except ConstructionError:
            pass
        needed = (info.count_needed(w.A, w.exact, options) for w in found)
        counts += [c for c in needed if c is not None]  # None: those matrices do not fit the kind
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
    from .handmade.registry import build, smallest_factor_rank

    if column_variant(column) is not None:
        return build(automaton, column, refusals=refusals)
    parsed = parse_column(column)
    assert parsed is not None  # not a plain variant: a factor-counting kind without its parameter
    kind, options = parsed
    if not KINDS[kind].factored:
        return _smallest_count(automaton, kind, options, start, refusals)
    R = smallest_factor_rank(automaton)  # known ranks compared before building (no one-hot for S_6)
    if R is None:
        raise ConstructionError(f"no construction of {automaton.name or 'automaton'} to factorise")
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
        left = _left(time_budget, start)
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
    left = _left(time_budget, start)
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


def _proved(cell: Cell, weights, automaton: Automaton, bound: int | None, *, time_budget, progress, deepen: bool,
            directed: bool = False) -> Cell:
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
                   dims=weights.dims if stacked else (weights.dim,),  # layers: settle's and _settle_stack's
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
    cause = getattr(result, "cause", None)
    cell = _spent(cell, "proof") if cause == "time" else cell
    return replace(cell, status="open", words=tuple(compress(w, automaton) for w in result.words), bound=bound,
                   cause=cause,
                   detail=f"construction neither proved nor refuted: {result.reason}")


def _with_bound(cell: Cell, automaton: Automaton, variant: str, time_budget, start: float, progress) -> Cell:
    """``cell`` with the lower bound on d for ``variant`` (proved and open cells only), computed
    within what is left of ``time_budget`` since ``start`` (at least :data:`AFTER_PROOF_GRACE`)."""
    if cell.status not in ("proved", "open"):
        return cell
    from .impossible.bounds import lower_bound

    left = _left(time_budget, start, grace=True)
    try:
        with _within(left), building(Clock(left, progress)):
            lb, theorem, reason = lower_bound(automaton, variant)
    except (BudgetSpent, OutOfTime):
        return _spent(cell, "lower bound")
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
           started: float | None = None, oversize_open: bool = False) -> Cell:
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
    verify`` counts building the automaton).  ``oversize_open`` (the capability matrix) settles a
    cell whose only constructions pass the size limits (ConstructionTooLargeError, which ``bilinear
    verify`` reports as bad input) as ``open`` with that reason.

    Every phase (certificate search, construction, proof, depth bound, lower bound: :data:`PHASES`)
    runs within what is left of ``time_budget``; the depth bound and the lower bound come after
    the verdict, so they never turn a provable cell open, and a phase stopped by the budget is
    named in ``Cell.out_of_time``.
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
    commuting = spec if depth and spec is not None and parse_variant(spec).commuting else None
    if layers is not None and layers > 1:  # the depth bound first: it may exclude the depth asked
        cell = _with_depth(cell, automaton, commuting, time_budget, start, grace=False) if commuting else cell
        cell = _settle_stack(cell, automaton, spec, layers, weights, source, bound, time_budget, progress, start,
                             deepen)
        return _timed(cell, time_budget, start)
    cell = _settle_layer(cell, automaton, variant, spec, weights, source, bound, time_budget, progress, start, deepen,
                         oversize_open)
    cell = replace(cell, layers=1, dims=None if cell.dim is None else (cell.dim,))
    if commuting:  # after the verdict, so the depth bound never turns a provable cell open
        cell = _with_depth(cell, automaton, commuting, time_budget, start, grace=True)
    return _timed(cell, time_budget, start)


def _timed(cell: Cell, time_budget, start: float) -> Cell:
    """``cell`` with its seconds, and the budget when a proof ran or a phase ran out of it."""
    given = cell.time_budget is not None or bool(cell.out_of_time)
    return replace(cell, seconds=time.perf_counter() - start, time_budget=time_budget if given else None)


def _left(time_budget, start: float, grace: bool = False) -> float | None:
    """Seconds of ``time_budget`` left since ``start`` (None: no budget); at least
    :data:`AFTER_PROOF_GRACE` with ``grace``."""
    if time_budget is None:
        return None
    left = time_budget - (time.perf_counter() - start)
    return max(left, AFTER_PROOF_GRACE if grace else 1e-3)


def _within(seconds: float | None):
    """The deadline of a phase: SIGALRM in the main thread, none elsewhere (the phases that tick a
    :class:`Clock` still stop there)."""
    return deadline(seconds if threading.current_thread() is threading.main_thread() else None)


def _spent(cell: Cell, phase: str) -> Cell:
    """``cell`` noting that ``phase`` ran out of the time budget."""
    return replace(cell, out_of_time=cell.out_of_time + (phase,))


def _with_depth(cell: Cell, automaton: Automaton, spec: str, time_budget, start: float, grace: bool) -> Cell:
    """``cell`` with :func:`~bilinear.constructions.impossible.depth.min_layers` computed within what
    is left of ``time_budget`` (a proved one-layer cell gives an abelian group's depth 1)."""
    from .impossible.depth import min_layers

    proved = cell.status == "proved" and cell.layers == 1
    left = _left(time_budget, start, grace)
    try:
        with _within(left), building(Clock(left)):
            info = min_layers(automaton, spec, one_layer_proved=proved)
    except (BudgetSpent, OutOfTime):
        return _spent(replace(cell, depth=DepthBound(None, None, None, (
            f"not computed within the time budget of {time_budget:g} s"))), "depth bound")
    return replace(cell, depth=info)


def _settle_stack(cell: Cell, automaton: Automaton, spec: str | None, layers: int, weights, source, bound,
                  time_budget, progress, start: float, deepen: bool) -> Cell:
    """A stack of ``layers >= 2``: prove the given one, or exclude the depth (Theorem S3), or build
    the cascade (Theorem S2) and prove it; the construction and the proof each within what is
    left of ``time_budget`` since ``start``."""
    from .handmade.cascade import build_stack

    cell = replace(cell, layers=layers)
    if weights is not None:
        bad = [w.variant for w in weights.layers if w.variant != spec]
        if spec is not None and bad:
            raise WeightsError(f"weights {source or ''!s} have a layer of variant {bad[0]!r}, not {spec!r}")
        return _proved(replace(cell, source=source or "weights"), weights, automaton, bound,
                       time_budget=_left(time_budget, start), progress=progress, deepen=deepen)
    if spec is None:
        return replace(cell, detail="a stack needs a variant with its parameter (factorized:R)")
    info = cell.depth
    if info is not None and info.excludes(layers) == "open":
        k = info.derived_length
        if info.theorem == "Theorem S4":
            return replace(cell, detail=f"{info.witness}: by Theorem S4 no stack of {layers} commuting "
                                        f"layers computes it when {_hypotheses('S4')}; stacks outside those "
                                        "hypotheses are not covered")
        if info.frattini_length is not None and layers < info.frattini_length:
            return replace(cell, detail=(
                f"its shortest series with factors of exponent 2 (the Frattini series) has length "
                f"{info.frattini_length} > {layers}: by Theorem S6 no stack of {layers} diagonal layers computes it "
                f"when {_hypotheses()}; stacks outside those hypotheses are not covered"))
        why = (f"the derived length is {k} > {layers}" if k is not None else "the group is not solvable")
        return replace(cell, detail=f"{why}: by Theorem S3 no stack of {layers} commuting layers computes it when "
                                    f"{_hypotheses()}; stacks outside those hypotheses are not covered")
    left = _left(time_budget, start)
    try:  # the deadline also stops the steps that do not tick the clock
        with _within(left), building(Clock(left, progress)):
            stack, how = build_stack(automaton, spec, layers)
    except ConstructionError as exc:
        return replace(cell, detail=str(exc))
    except (BudgetSpent, OutOfTime) as out:
        return _not_built(cell, time_budget, out)
    cell = _proved(replace(cell, source="construction"), stack, automaton, bound,
                   time_budget=_left(time_budget, start), progress=progress, deepen=deepen)
    if not how.startswith("the cascade") and cell.status == "proved":
        cell = replace(cell, detail=how if not cell.detail else f"{cell.detail}; {how}")
    return cell


def _not_built(cell: Cell, time_budget: float, out: BudgetSpent | OutOfTime) -> Cell:
    """``cell`` open because its construction ran out of ``time_budget``: stopped by the alarm
    (:class:`BudgetSpent`) or by the construction's clock (:class:`OutOfTime`, which says how far
    it got)."""
    how = ""
    if isinstance(out, OutOfTime):
        seconds, done, total, unit = out.args
        how = f" ({done} of {total} {unit} after {seconds:.1f} s)"
    return replace(_spent(cell, "construction"), detail=(
        f"construction not built within the time budget of {time_budget:g} s{how}; raise --time-budget"))


def _hypotheses(theorem: str = "S3") -> str:
    from .impossible.depth import S3_HYPOTHESES, S4_HYPOTHESES

    return S4_HYPOTHESES if theorem == "S4" else S3_HYPOTHESES


def _settle_layer(cell: Cell, automaton: Automaton, variant: str, spec: str | None, weights, source, bound,
                  time_budget, progress, start: float, deepen: bool, oversize_open: bool) -> Cell:
    """One layer: the capability matrix's cell (its seconds are settle's, :func:`_timed`)."""
    if weights is not None:
        if weights.variant != spec:
            raise WeightsError(f"weights {source or ''!s} have variant {weights.variant!r}, not {spec!r}")
        cell = _proved(replace(cell, source=source or "weights"), weights, automaton, bound,
                       time_budget=_left(time_budget, start), progress=progress, deepen=deepen, directed=True)
        return _with_bound(cell, automaton, weights.variant, time_budget, start, progress)
    certifiable = spec is not None and bool(certifiable_kinds(spec))
    cost = automaton.n_states * automaton.n_symbols**2  # the commutation search: states x symbol pairs
    searched = certifiable and cost <= CERTIFY_WORK_LIMIT
    try:  # the search is near-linear in the states, but a budget stops it (SIGALRM: main thread only)
        with _within(_left(time_budget, start)):
            cert = certify(automaton, spec) if searched else None
    except BudgetSpent:
        return replace(_spent(cell, "certificate search"), detail=(
            f"certificate search not finished within the time budget of {time_budget:g} s; raise --time-budget"))
    if cert is not None:
        return replace(cell, status="impossible", certificate=cert, detail=f"{cert.kind} certificate: {cert.describe()}")
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
    # nothing built: a bare column (``householder,nonneg``) is bounded as its kind with the least
    # count not excluded: the kind's own theorems (F5, and Theorem 14's determinants under nonneg) apply
    bounded = spec if count is None else KINDS[count[0]].spec(first, count[1])
    refusals: list[tuple[str, str]] = []
    try:  # the deadline also stops the steps that do not tick the clock (minimising a large table)
        left = _left(time_budget, start)
        with _within(left), building(Clock(left, progress)):
            built = _build(automaton, variant, first, refusals)
    except (BudgetSpent, OutOfTime) as out:
        return _not_built(cell, time_budget, out)
    except ConstructionTooLargeError as exc:
        if not oversize_open:
            raise  # verify: a size refused before allocating is bad input, not an open cell
        return _with_bound(replace(cell, detail=f"no construction within the size limits ({exc})",
                                   refusals=tuple(refusals)), automaton, bounded or "full", time_budget, start, progress)
    except ConstructionError as exc:
        why = "no certificate exists" if searched else "no impossibility theorem for this variant"
        if certifiable and not searched:
            why = (f"certificate search skipped: states x symbols^2 = {cost:,} passes "
                   f"CERTIFY_WORK_LIMIT = {CERTIFY_WORK_LIMIT:,}")
        return _with_bound(replace(cell, detail=f"no construction ({exc}); {why}", refusals=tuple(refusals)),
                           automaton, bounded or "full", time_budget, start, progress)
    cell = _proved(replace(cell, source="construction", refusals=tuple(refusals)), built, automaton, bound,
                   time_budget=_left(time_budget, start), progress=progress, deepen=deepen)
    return _with_bound(cell, automaton, built.variant, time_budget, start, progress)
