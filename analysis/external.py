"""``bilinear analyze --from fla|hf DIR --task SPEC``: a model from elsewhere against a task.

Per layer and head: the variant identified on the extracted matrices (:mod:`bilinear.learned.
external.transitions`), the spectra of the reflections against roots of unity, the commutators and
the relation residuals (the toolkit's own :func:`~bilinear.analysis.spectrum.spectrum`,
:func:`~bilinear.analysis.commutators.commutators`, :func:`~bilinear.analysis.relations.relation_residuals`
on the head's ``householder:K`` Weights, the positive gate divided out; an RWKV-7 head's ``dplr:1``
Weights, nothing divided out, its keys the windows of its token shift).  Then, run by the model's
own float64 forward: accuracy by length, the directed failing-word search (:func:`failing_word`),
and the extraction.  The verdict comes from the measured behaviour only; when the model fails, the
mechanism line names what the spectra say about the failing symbol (a reflection with beta != 2 has
eigenvalue 1 - beta, not -1).
"""

from __future__ import annotations

import dataclasses
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np


from .report import AnalysisConfig, Report, analyze_tracker

__all__ = ["HeadAnalysis", "ExternalReport", "analyze_external", "failing_word", "MAX_POWER", "MAX_HEAD_FIGURES"]

#: Longest single-symbol power u g^n tried by the directed failing-word search.
MAX_POWER = 64
#: Heads whose eigenvalue and commutator figures :meth:`ExternalReport.write` draws (the first ones;
#: report.md says how many of how many).  A Mamba of 1,536 channels has 192 channel groups.
MAX_HEAD_FIGURES = 32


@dataclass(frozen=True)
class HeadAnalysis:
    """One head: its transitions, identified variant, and the toolkit's readings."""

    layer: int
    head: int
    keys: tuple
    exact: bool
    identified: str
    beta: tuple[float, float] | None   # None for Mamba / Mamba-2 (no reflections)
    gate: tuple[float, float]
    eigenvalues: dict            # key -> eigenvalues of the reflections (gate divided out), sorted
    spectrum: str
    commutators: str
    relations: str
    spread: float | None = None
    betas: dict = field(default_factory=dict)  # key -> effective betas of its reflections, in the toolkit's order
    spectrum_value: Any = field(default=None, compare=False, repr=False)  # the Spectrum, for the figure
    commutators_value: Any = field(default=None, compare=False, repr=False)  # the Commutators, for the figure
    name: str = ""               # "head h", or "channels a-b" for a group of Mamba channels
    rwkv7: bool = False          # an RWKV-7 head (diag(w) minus a rank-one term), whatever its identification
    windows: tuple = ()          # per key its symbol indices, oldest first ((s,) for a symbol); () if not known

    @property
    def per_symbol(self) -> bool:
        """Keys are the task's symbols (not windows): decided on the windows themselves (every one a
        single symbol), never on the length of a name (``t1`` is one symbol)."""
        if self.windows:
            return all(len(t) == 1 for t in self.windows)
        return len(self.spectrum_value.symbols) == len(self.keys) if self.spectrum_value is not None else True

    def key_of(self, window: tuple) -> str | None:
        """The name of the key whose window is ``window`` (symbol indices), or None; matched on the
        tuples, never on the names (``1·1`` and the symbol ``11`` are different keys)."""
        if window in self.windows:
            return self.keys[self.windows.index(window)]
        return None

    @property
    def label(self) -> str:
        return self.name or f"head {self.head}"

    @property
    def stem(self) -> str:
        """The figures' file name stem: ``layer1_head0``, ``layer1_channels0-7``."""
        return f"layer{self.layer + 1}_" + self.label.replace("channels ", "channels").replace("channel ", "channel").replace(
            "head ", "head")

    def power_key(self, g: int, name: str) -> str | None:
        """The key of the window ``g^n`` settles on: ``(g,) * w`` for the widest window w (a
        symbol's own key without a window), matched on the windows' tuples of symbol indices
        (:meth:`key_of`), never on names (glued, ``1`` twice and the symbol ``11`` read the same);
        None when the head has none.  A head built without its windows is matched by name only
        where its keys are one symbol each."""
        if self.windows:
            return self.key_of((g,) * max(len(t) for t in self.windows))
        return name if name in self.keys and not self.dplr else None

    @property
    def dplr(self) -> bool:
        """An RWKV-7 head: diagonal plus rank one, no reflections and no scalar gate to divide out."""
        return self.rwkv7

    def to_json(self) -> dict:
        return {"layer": self.layer + 1, "head": self.head, "name": self.label, "keys": list(self.keys),
                "exact": self.exact, "variant": self.identified, "beta": None if self.beta is None else list(self.beta),
                "gate": list(self.gate),
                "eigenvalues": {k: [[float(z.real), float(z.imag)] for z in v] for k, v in self.eigenvalues.items()},
                "spectrum": self.spectrum, "commutators": self.commutators, "relations": self.relations,
                "spread": self.spread, "betas": {k: list(v) for k, v in self.betas.items()},
                "windows": [list(t) for t in self.windows]}

    def lines(self) -> list[str]:
        how = "exact per symbol" if self.exact and self.per_symbol else (
            "exact per window" if self.exact else f"sampled on visited positions (spread {self.spread:.2g})")
        out = [f"### Layer {self.layer + 1}, {self.label} ({how})", "", f"- variant: {self.identified}"]
        what = ("the transition (the decay exp(Delta A))" if self.beta is None else
                "the transition (decay included)" if self.dplr else "the reflections")
        for k, ev in list(self.eigenvalues.items())[:12]:
            out.append(f"- `{k}`: eigenvalues of {what} " + ", ".join(_z(z) for z in ev))
        if len(self.eigenvalues) > 12:
            out.append(f"- ... {len(self.eigenvalues) - 12} more keys in report.json")
        for what, text in (("spectra", self.spectrum), ("commutators", self.commutators), ("relations", self.relations)):
            rows = str(text).splitlines() or [""]
            # a reading of several lines (one per symbol) is a nested list, not lines outside the item
            out += [f"- {what}: {rows[0]}"] if len(rows) == 1 else [f"- {what}:"] + [f"  - {r}" for r in rows]
        return out


def _z(z: complex) -> str:
    return f"{z.real:.4g}" if abs(z.imag) < 1e-9 else f"{z.real:.3g}{z.imag:+.3g}i"


@dataclass(frozen=True)
class ExternalReport:
    """The whole analysis: the model's config, per-head analyses, the tracker report (accuracy by
    length, extraction), the failing word and the verdict."""

    title: str
    config_line: str
    variant: str
    heads: tuple[HeadAnalysis, ...]
    tracker: Report
    failing: tuple | None        # (word as symbol names, position, expected label, model's label) or None
    verdict: str
    mechanism: str | None
    seconds: dict = field(default_factory=dict)
    heads_note: str | None = None  # a note above the per-head analyses (Mamba: what a channel group is)

    def to_json(self) -> dict:
        return {"format": "bilinear.analysis.external", "version": 1, "title": self.title,
                "model": self.config_line, "variant": self.variant, "verdict": self.verdict,
                "mechanism": self.mechanism,
                "failing_word": None if self.failing is None else {
                    "word": list(self.failing[0]), "expected": self.failing[1], "model": self.failing[2]},
                "heads": [h.to_json() for h in self.heads], "heads_note": self.heads_note, "tracker": self.tracker.to_json(),
                "seconds": self.seconds}

    def to_markdown(self) -> str:
        out = [f"# Analysis: {self.title}", "", f"- model: {self.config_line}",
               f"- variant of each head's recurrence (from the config): `{self.variant}`", "", "## Verdict", "",
               self.verdict]
        if self.mechanism:
            out += ["", self.mechanism]
        if self.failing is not None:
            w, exp, got = self.failing
            out += ["", f"Failing word (shortest found): `{' '.join(w)}` (length {len(w)}): the task's label is "
                        f"{exp}, the model's {got}."]
        out += ["", "## Heads", ""] + ([self.heads_note, ""] if self.heads_note else [])
        if len(self.heads) > MAX_HEAD_FIGURES:
            out += [f"Figures (with --out): the first {MAX_HEAD_FIGURES} of the {len(self.heads)} heads "
                    "(bilinear.analysis.external.MAX_HEAD_FIGURES).", ""]
        for h in self.heads:
            out += h.lines() + [""]
        body = self.tracker.to_markdown().split("\n## Summary", 1)
        # the tracker's own sections (summary, accuracy by length, extraction) inside this one; its
        # header (whose model line says "no transition matrices") is left out
        rest = ("## Summary" + body[1]) if len(body) == 2 else body[0]
        out += ["## Behaviour (the model's own float64 forward)", ""] + [
            "#" + line if line.startswith("## ") else line for line in rest.split("\n")]
        return "\n".join(out).rstrip("\n") + "\n"

    def write(self, out_dir, figures: bool = True, fmt: str = "png") -> list[Path]:
        """``report.md``, ``report.json`` and, with ``figures``, one eigenvalue figure per head
        (``layer1_head0_eigenvalues.png``) and the accuracy-by-length figure."""
        out = Path(out_dir)
        paths = [out / "report.md", out / "report.json"]
        if figures:
            from .figures import commutator_figure, eigenvalue_figure, write_figures

            for h in self.heads[:MAX_HEAD_FIGURES]:
                what = ("positive diagonal, scaled by its largest entry" if h.beta is None else
                        "decay included" if h.dplr else "gate divided out")
                if not h.per_symbol:
                    what += "; full windows"
                if h.spectrum_value is not None:
                    paths.append(eigenvalue_figure(h.spectrum_value, out / f"{h.stem}_eigenvalues.{fmt}",
                                                   f"layer {h.layer + 1}, {h.label} ({what})"))
                if h.commutators_value is not None:
                    paths.append(commutator_figure(h.commutators_value, out / f"{h.stem}_commutators.{fmt}",
                                                   f"layer {h.layer + 1}, {h.label} ({what})"))
            paths += write_figures(self.tracker, out, fmt)
        paths[0].write_text(self.to_markdown(), encoding="utf-8")
        paths[1].write_text(json.dumps(self.to_json(), indent=2, allow_nan=False, default=str), encoding="utf-8")
        return paths


def _access_words(automaton) -> list[tuple[int, ...]]:
    """Shortest word to each reachable state, breadth-first."""
    delta = np.asarray(automaton.delta)
    seen: dict[int, tuple[int, ...]] = {int(automaton.start): ()}
    frontier = [int(automaton.start)]
    while frontier:
        nxt = []
        for q in frontier:
            for s in range(automaton.n_symbols):
                r = int(delta[s, q])
                if r not in seen:
                    seen[r] = seen[q] + (s,)
                    nxt.append(r)
        frontier = nxt
    return sorted(seen.values(), key=lambda w: (len(w), w))


def _first_error(tracker, automaton, words: np.ndarray):
    """(word prefix, expected, got) of the shortest wrong prefix among ``words`` (same length), or None."""
    got = tracker.run(words).logits.argmax(-1)
    truth = automaton.labels_batch(words, trace=True)
    wrong = got != truth
    if not wrong.any():
        return None
    t = wrong.argmax(1)
    rows = np.flatnonzero(wrong.any(1))
    b = rows[np.argmin(t[rows])]
    return tuple(int(x) for x in words[b, :t[b] + 1]), int(truth[b, t[b]]), int(got[b, t[b]])


def failing_word(tracker, automaton, max_power: int = MAX_POWER, random_words: int = 256, length: int = 64,
                 seed: int = 0):
    """The shortest wrong prefix found, ``(word, expected label, model's label)``, or None: first
    ``u g^n`` for every access word u (the shortest word reaching each state) and symbol g, n <=
    ``max_power`` (where the real-eigenvalue theorems bite: docs/theory.md, Theorems 7 and 8), then
    ``random_words`` random words of ``length``; every prefix is read, all run by the tracker."""
    best = None
    for u in _access_words(automaton):
        words = np.array([list(u) + [g] * max_power for g in range(automaton.n_symbols)], dtype=np.int64)
        found = _first_error(tracker, automaton, words)
        if found is not None and (best is None or len(found[0]) < len(best[0])):
            best = found
    if random_words:
        words = np.random.default_rng(seed).integers(0, automaton.n_symbols, size=(random_words, length))
        found = _first_error(tracker, automaton, words)
        if found is not None and (best is None or len(found[0]) < len(best[0])):
            best = found
    return best


def _head(h, automaton, config: AnalysisConfig) -> HeadAnalysis:
    """The toolkit's readings of one head's reflections (the gate divided out)."""
    from .commutators import commutators
    from .relations import relation_residuals
    from .spectrum import spectrum

    from bilinear.learned.external.rwkv7_transitions import DplrIdentified

    from bilinear.errors import AnalysisError, BilinearError

    ident = h.identified
    w = h.homogeneous(automaton.n_classes)
    keys = tuple(str(k) for k in h.keys)
    windows = tuple(tuple(int(s) for s in t) for t in h.windows) if getattr(h, "windows", None) is not None else \
        tuple((i,) for i in range(len(keys))) if keys == tuple(automaton.symbols) else ()
    if len(set(keys)) != len(keys):  # the tables below are keyed by name: two keys of one name would lose one
        dup = next(k for k in keys if keys.count(k) > 1)
        raise AnalysisError(f"layer {h.layer + 1} {h.name}: two transitions are named {dup!r}; the readings are "
                            "keyed by name")
    per_symbol = windows == tuple((s,) for s in range(automaton.n_symbols)) and len(keys) == automaton.n_symbols
    auto = automaton if per_symbol else None
    span = _full_span(w)  # the model's states are affine and its readout nonlinear: judge the whole key space
    sp = spectrum(w, auto, max_order=config.max_order, word_length=1, tol=config.tol, span=span)
    co = commutators(w, auto, word_length=1, tol=config.tol, span=span)
    if per_symbol:
        from bilinear.automata.monoid import transformation_monoid

        try:
            pairs = transformation_monoid(automaton, limit=config.extract.monoid_limit).relations()
            rel = relation_residuals(w, automaton, pairs=pairs, tol=config.span_tol,
                                     max_relations=config.max_relations, span=span).reading
        except (BilinearError, np.linalg.LinAlgError) as exc:  # a monoid over its limit, a size refused, an SVD
            # that does not converge on the model's matrices: say so (anything else is a bug)
            rel = f"not computed ({exc})"[:200]
    else:
        rel = "not computed: the transitions are indexed by windows, not by the task's symbols"
    A = w.to_float().A
    eig = {k: tuple(sorted(np.linalg.eigvals(A[i]), key=lambda z: (z.real, z.imag))) for i, k in enumerate(keys)}
    spread = None if h.spread is None else float(np.max(h.spread))
    betas = {} if h.beta is None else {k: tuple(float(b) for b in h.beta[i]) for i, k in enumerate(keys)}
    if not per_symbol:  # the readings name the windows, not their indices
        sp = dataclasses.replace(sp, symbols=tuple(dataclasses.replace(m, name=keys[i]) for i, m in enumerate(sp.symbols)))
        co = dataclasses.replace(co, symbols=keys)
    sp_fig, co_fig = (sp, co) if per_symbol else _full_windows(sp, co, automaton.n_symbols, windows)
    return HeadAnalysis(h.layer, h.head, keys, h.exact, ident.text(), ident.beta, ident.gate, eig, sp.reading,
                        co.reading, rel, spread, betas, sp_fig, co_fig, h.name, rwkv7=isinstance(ident, DplrIdentified),
                        windows=windows)


def _full_windows(sp, co, n: int, windows: tuple = ()):
    """The spectrum and commutators restricted to the full windows (the longest ones: the transitions
    a word takes once w symbols are in view), for the figures; the readings keep every key."""
    if windows:
        w = max(len(t) for t in windows)
        keep = [i for i, t in enumerate(windows) if len(t) == w]
    else:  # keys n + n^2 + ... + n^w, the full windows last
        total, full = len(co.symbols), n
        while total > full and total - full >= n * full:
            total, full = total - full, full * n
        keep = list(range(len(co.symbols) - full, len(co.symbols)))

    def sub(m):
        return None if m is None else tuple(tuple(m[a][b] for b in keep) for a in keep)

    co = dataclasses.replace(co, symbols=tuple(co.symbols[i] for i in keep), norms=sub(co.norms),
                             exactly_zero=sub(co.exactly_zero), visited_norms=sub(co.visited_norms))
    return dataclasses.replace(sp, symbols=tuple(sp.symbols[i] for i in keep)), co


def _full_span(w):
    """The whole key space as the "visited span": a generic start state of the homogeneous part alone
    would decay onto the fixed space of the reflections, which is not where the affine model's states live."""
    from bilinear.constructions.values.span import VisitedSpan

    A = w.to_float().A
    d = A.shape[1]
    return VisitedSpan(basis=np.eye(d), compressed=A.copy(), burn_in=0, words=0, extra=0, seed=0, rank_tol=0.0)


def _symbol_period(automaton, g: int) -> int:
    """The period of n -> the state map of g^n (its eventual cycle length), from the table."""
    delta = np.asarray(automaton.delta)
    seen, f, n = {}, tuple(range(automaton.n_states)), 0
    while f not in seen:
        seen[f] = n
        f = tuple(int(delta[g, q]) for q in f)
        n += 1
    return n - seen[f]


def _mechanism(heads, automaton, failing, sym_names) -> str | None:
    """What the first layer's spectra say about the symbols whose powers the task cycles."""
    if failing is None:
        return None
    lines = []
    word = failing[0]
    suspects = [g for g in dict.fromkeys(word) if _symbol_period(automaton, g) > 1]
    for g in suspects:
        p = _symbol_period(automaton, g)
        name = sym_names[g]
        diagonal = [h for h in heads if h.layer == 0 and h.beta is None]
        if diagonal:
            lines += _positive_power(g, name, p, diagonal)
        for h in heads:
            if h.layer != 0 or h.beta is None:
                continue
            key = h.power_key(g, name)  # a convolution or RWKV-7's token shift: g^n settles on the window g...g
            if key is None or key not in h.eigenvalues:
                continue
            ev = np.array(h.eigenvalues[key])
            far = [z for z in ev if abs(abs(z) - 1) > 1e-3 or abs(z - 1) > 1e-3]
            if p == 2 and all(abs(z.imag) < 1e-9 for z in ev):
                neg = min(ev, key=lambda z: z.real).real
                if abs(neg + 1) > 1e-3:
                    lines.append(_period_two(name, key, h, ev, neg) if not h.dplr else
                                 _period_two_dplr(name, key, h, ev, neg))
            elif p > 2 and all(abs(z.imag) < 1e-9 for z in ev):
                what = (f"transition for the window `{key}` (diag(w) - (a * kappa) kappa^T) has" if h.dplr
                        else "reflections for it have" if key == name else f"reflections for the window `{key}` have")
                lines.append(f"symbol `{name}` has period {p} in the task, but layer 1 head {h.head}'s {what} "
                             f"only real eigenvalues ({', '.join(_z(z) for z in ev)}): along single-symbol "
                             "powers their labels are eventually 2-periodic (docs/theory.md, Theorem 7"
                             + (", real by Theorem F15)." if h.dplr else ")."))
            elif far and h.dplr:
                lines.append(f"layer 1 head {h.head}'s decays w in [{h.gate[0]:.3g}, {h.gate[1]:.3g}] shrink the state "
                             f"at every step (its eigenvalues for `{key}`: {', '.join(_z(z) for z in ev)}), so the "
                             "additive term dominates after a few steps.")
            elif far and h.gate[0] < 1 - 1e-6:
                lines.append(f"layer 1 head {h.head}'s gate exp(g) in [{h.gate[0]:.3g}, {h.gate[1]:.3g}] shrinks "
                             f"the state at every step, so the additive term dominates after a few steps.")
    if not lines:
        return ("mechanism: not identified from the first layer's spectra (the failure may come from the additive "
                "term, the gates, the MLPs or further layers).")
    return "mechanism: " + " ".join(dict.fromkeys(lines))


def _positive_power(g: int, name: str, p: int, heads) -> list[str]:
    """Mamba / Mamba-2: along g^n the first layer reads one window, g...g, from step w on; its
    transition is positive diagonal, so the lifted recurrence has only positive eigenvalues."""
    key = heads[0].power_key(g, name)
    if key is None:
        return []
    windows = heads[0].windows
    width = len(windows[heads[0].keys.index(key)]) if windows else 1
    ev = np.concatenate([np.array(h.eigenvalues[key]) for h in heads])
    if not (np.abs(ev.imag) < 1e-12).all() or ev.real.min() <= 0:
        return []
    lo, hi = float(ev.real.min()), float(ev.real.max())
    fate = (f"in [{lo:.3g}, {hi:.3g}], inside (0, 1), so once the last {width} symbols are all "
            f"`{name}` the state contracts to the fixed point of S -> A S + b and cannot cycle" if hi < 1 else f"in [{lo:.3g}, {hi:.3g}], all positive")
    where = "every head" if heads[0].name.startswith("head") else "every channel"
    return [f"symbol `{name}` has period {p} in the task, but along `{name}`^n layer 1 reads the one window "
            f"`{key}` and its transition there is positive diagonal in {where}: eigenvalues {fate}; a "
            "recurrence whose transitions have only positive eigenvalues has eventually constant labels along a "
            "symbol's powers with a linear readout (docs/theory.md, Theorem 8, and the lift, Theorem A1, adds only "
            "the eigenvalue 1); the gated norm, further layers and the model's head are outside that statement."]


def _period_two(name: str, key: str, h: HeadAnalysis, ev, neg: float) -> str:
    """The period-2 symbol's line: with one reflection its eigenvalue is 1 - beta (beta != 2 misses -1);
    with several, the product's eigenvalue nearest -1 is named as such.  ``key``: the window g^n settles
    on (the symbol itself without a convolution)."""
    fate = (f"decays as {abs(neg):.3g}^n" if abs(neg) < 1 else f"grows as {abs(neg):.3g}^n") + " instead of alternating"
    where = "it" if key == name else f"the window `{key}`"
    head = (f"symbol `{name}` has period 2 in the task, but layer 1 head {h.head}'s transition for {where} (gate "
            f"divided out) has eigenvalues {', '.join(_z(z) for z in ev)}")
    betas = h.betas.get(key, ())
    if len(betas) == 1:
        return (f"{head}: a reflection with beta = {betas[0]:.4g} has eigenvalue 1 - beta = {1 - betas[0]:.4g}, "
                f"not -1, so that component {fate}.")
    return (f"{head}: the product of its {len(betas)} reflections (beta = {', '.join(f'{b:.4g}' for b in betas)}) "
            f"has {neg:.4g} as its eigenvalue nearest -1, not -1, so that component {fate}.")


def _period_two_dplr(name: str, key: str, h: HeadAnalysis, ev, neg: float) -> str:
    """The period-2 symbol's line for a diagonal-plus-rank-one (RWKV-7) head: its window's eigenvalue
    nearest -1, measured (no reflection to name)."""
    fate = (f"decays as {abs(neg):.3g}^n" if abs(neg) < 1 else f"grows as {abs(neg):.3g}^n") + " instead of alternating"
    where = f"the window `{key}`" if key != name else f"`{name}`"
    return (f"symbol `{name}` has period 2 in the task, but layer 1 head {h.head}'s transition for {where} "
            f"(diag(w) - (a * kappa) kappa^T) has eigenvalues {', '.join(_z(z) for z in ev)}: the one nearest -1 is "
            f"{neg:.4g}, not -1, so that component {fate}.")


def _with_directed(failing, directed, automaton):
    """The shorter of the failing-word search's ``failing`` and the first failure of the float
    check's directed words (``directed``, the behaviour report's :class:`~bilinear.analysis.lengths.DirectedRun`:
    runs and loops up to the curve's length, which the search's powers up to MAX_POWER and random
    words of 64 symbols may miss), as ``(word, expected, got)``; a tie (no wrong class to name)
    leaves ``failing`` as it is, and :func:`_verdict` says it."""
    f = None if directed is None else directed.failure
    if f is None or f.right is not False or (failing is not None and len(failing[0]) <= len(f.word)):
        return failing
    classes = list(automaton.classes)
    return tuple(f.word), classes.index(f.automaton), classes.index(f.network)


def _verdict(automaton, curve, failing, ex, sym_names, directed=None) -> str:
    """One sentence that agrees with the measured behaviour (``directed``: the behaviour report's
    directed words; a wrong-class failure of theirs shorter than ``failing`` is named in its
    place, by :func:`_with_directed`, which leaves a ``failing`` it has already merged as it is,
    so that only a tie is left to say of them)."""
    failing = _with_directed(failing, directed, automaton)
    task = automaton.name or "the task"
    if failing is not None:
        w = " ".join(sym_names[s] for s in failing[0])
        return (f"does not track {task}: it labels the word `{w}` (length {len(failing[0])}) as "
                f"{automaton.classes[failing[2]]}, the task as {automaton.classes[failing[1]]}.")
    tie = None if directed is None else directed.failure
    if tie is not None:
        w = " ".join(sym_names[s] for s in tie.word)
        return (f"does not track {task}: on the word `{w}` (length {len(tie.word)}) it scores the task's label "
                f"{tie.automaton} no higher than another class (a tie).")
    if curve is not None and curve.first_failure is not None:
        return (f"does not track {task}: the accuracy by length has its first error at length {curve.first_failure}.")
    if ex is not None and ex.isomorphic is False:
        return (f"made no error on the sampled words, but the automaton extracted from its states is not {task}'s "
                f"(see the extraction).")
    n = curve.max_length if curve is not None else MAX_POWER
    return (f"tracks {task} on every word tried (the directed search and random words, accuracy 1 at every length up "
            f"to {n}): measured, not proved; the MLPs, the additive term and the model's head are outside the "
            "toolkit's proofs.")


def analyze_external(model, automaton, tokens=None, labels=None, bos: int | None = None,
                     config: AnalysisConfig | None = None, layers: int | None = 1, title: str | None = None,
                     search_words: int = 256) -> ExternalReport:
    """The analysis of a loaded model (:func:`bilinear.learned.load_external`) against ``automaton``.

    ``tokens``/``labels`` map the task's symbols and classes to token ids (``"a=5,b=7"``, a dict, a
    ``tokenizer.json``; default: index i -> token i); ``bos`` is prepended to every word;
    ``layers``: how many layers' heads are analysed (1: the first, exact; None: all, the deeper ones
    sampled).
    """
    from bilinear.constructions.values.tracker import need_automaton
    from bilinear.learned.external.transitions import CHANNEL_GROUP, head_transitions

    need_automaton(automaton)
    config = AnalysisConfig() if config is None else config
    config.validated()
    from bilinear.learned.external.tracker import ExternalTracker

    tracker = ExternalTracker.make(model, tokens, labels, bos, symbols=list(automaton.symbols),
                                   classes=[str(c) for c in automaton.classes])
    names = list(automaton.symbols)
    seconds = {}
    started = time.perf_counter()
    n_layers = len(model.blocks) if layers is None else min(layers, len(model.blocks))
    note = None
    if model.config.kind == "mamba":
        note = (f"Mamba: each channel's transition is diag(exp(Delta A)) on its {model.config.state_size}-dimensional "
                f"state; a \"head\" below is a group of up to {CHANNEL_GROUP} channels, their diagonals side by side.")
    from bilinear.progress import Progress

    with Progress("analyze --from", unit="heads") as progress:  # lines on stderr past a few seconds
        found = []
        for layer in range(n_layers):
            progress.phase(f"layer {layer + 1} of {n_layers}: its transitions")
            for i, h in enumerate(head_transitions(model, tracker, layer)):
                progress.phase(f"layer {layer + 1} of {n_layers}, head {i + 1}: spectra and commutators of "
                               f"{len(h.keys):,} keys")
                found.append(_head(h, automaton, config))
                progress.update()
        heads = tuple(found)
        seconds["heads"] = time.perf_counter() - started
        started = time.perf_counter()
        progress.phase("the failing-word search")
        failing = failing_word(tracker, automaton, random_words=search_words, seed=config.extract.seed)
        seconds["search"] = time.perf_counter() - started
        started = time.perf_counter()
        progress.phase("the behaviour: extraction and accuracy by length")
        rep = analyze_tracker(tracker, automaton, config, title=title or f"{automaton.name} / {model.config.kind}")
        seconds["behaviour"] = time.perf_counter() - started
    failing = _with_directed(failing, rep.directed, automaton)
    verdict = "The model " + _verdict(automaton, rep.curve, failing, rep.extraction, names, rep.directed)
    failing_named = None if failing is None else (tuple(names[s] for s in failing[0]),
                                                   automaton.classes[failing[1]], automaton.classes[failing[2]])
    c = model.config
    line = (f"{c.kind} from {model.source}: {c.layers} layer(s), {c.heads} head(s) of {c.head_k_dim} x {c.head_v_dim}, "
            f"{c.mechanism}")
    return ExternalReport(title or f"{automaton.name} / {c.kind}", line, c.variant, heads, rep, failing_named,
                          verdict, _mechanism(heads, automaton, failing, names), {k: round(v, 3) for k, v in seconds.items()},
                          note)
