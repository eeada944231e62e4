"""The verdict of one cell (an automaton, a variant) as a frozen value: :class:`Cell`.

:func:`~bilinear.constructions.settle.settle` computes it; ``bilinear verify`` and every cell of
``bilinear matrix`` print it, with one JSON shape (:meth:`Cell.to_json`) and one text form
(:meth:`Cell.text`).  The statuses and the exit status of ``bilinear verify`` are defined here.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace


from .impossible.certificates import Certificate
from .impossible.depth import DepthBound
from .values.variants import KINDS, parse_column
from .values.weights import parse_variant

__all__ = ["Cell", "STATUSES", "PHASES", "EXIT", "with_float_check", "exit_status", "parse_column_param"]

#: Every status a cell can have.
STATUSES = ("proved", "impossible", "counterexample", "open")

#: The phases of :func:`settle`, in order, each inside the time budget (``Cell.out_of_time``).
PHASES = ("certificate search", "construction", "proof", "depth bound", "lower bound")

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

    ``out_of_time`` names the phases the time budget stopped, in order (:data:`PHASES`): an
    over-time certificate search or construction leaves the cell open, an over-time proof is
    open with ``cause`` ``"time"``, and an over-time depth bound or lower bound is only missing
    from a cell whose verdict stands.

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
    out_of_time: tuple[str, ...] = ()
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

    def time_budget_text(self) -> str:
        """``10 s`` (the budget given), or ``none`` without one."""
        return "none" if self.time_budget is None else f"{self.time_budget:g} s"

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
            "out_of_time": list(self.out_of_time),
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
        if self.out_of_time:
            lines.append(f"  time budget ({self.time_budget_text()}) ran out in: {', '.join(self.out_of_time)}")
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


def parse_column_param(column: str) -> str:
    """The name of the factor count of a column's kind (``K`` for ``householder,nonneg``)."""
    col = parse_column(column)
    return (KINDS[col[0]].param if col is not None else parse_variant(column).info.param) or ""
