"""The cluster radius of an extraction (analysis/extract.py): at a clear gap of the sorted
pairwise distances between hidden states (:func:`choose_radius`), or, where there is none, at the
middle of the longest plateau of radii whose minimal automata agree (:func:`_refine_by_behaviour`).
"""

from __future__ import annotations

import time as _time
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from bilinear.constructions.values.floatrun import float_steps, unit_rows

__all__ = ["RadiusChoice", "choose_radius", "run_radius", "sample_rows", "CLEAR_GAP", "PLATEAU_RADII", "PLATEAU_LENGTH"]


#: A gap in the sorted distances between hidden states is *clear* when the distance above it is at
#: least this many times the one below it.
CLEAR_GAP = 4.0
#: Distances below this are taken as this (float noise of one state reached along two paths).
DISTANCE_FLOOR = 1e-9
#: A gap counts only when the distance above it is at least this fraction of the largest distance:
#: below that, gaps are between float copies of one state (a saturated unit, a repeated state).
RELATIVE_SEPARATION = 1e-2
#: Most states the radius is chosen from (pairwise distances: this squared over two).
RADIUS_SAMPLE = 600


@dataclass(frozen=True)
class RadiusChoice:
    """How the cluster radius was chosen: ``tol`` the radius; ``source`` ``"given"`` (the
    config's), ``"gap"`` (at a clear gap of the sorted pairwise distances: ``below`` the largest
    distance under it, ``above`` the smallest over it, ``ratio = above / below``) or
    ``"ambiguous"`` (no gap of ratio :data:`CLEAR_GAP`: the clustering is not determined by the
    data, and the extraction's status says so)."""

    tol: float
    source: str
    below: float | None = None
    above: float | None = None
    ratio: float | None = None
    spread: float | None = None  # the 95th percentile of the pairwise distances
    plateau: tuple = ()  # ((radius, minimal states), ...) tried by behaviour, largest radius first
    stopped: float | None = None  # the radius search's time budget (s), when it stopped the search

    def text(self) -> str:
        return self._text() + self._stopped_text()

    def _stopped_text(self) -> str:
        if self.stopped is None:
            return ""
        return (f" (the radius search stopped at its time budget of {self.stopped:g} s after "
                f"{len(self.plateau)} of {PLATEAU_RADII} radii)")

    def _text(self) -> str:
        if self.source == "given":
            return f"cluster radius {self.tol:.3g} (given)"
        if self.source in ("plateau", "ambiguous") and self.plateau:
            counts = ", ".join(f"{r:.2g}: {n if n is not None else 'too many'}" for r, n in self.plateau)
            if self.source == "plateau":
                return (f"no gap in the distances between hidden states; radius {self.tol:.2g} from the "
                        f"behaviour: minimal states by radius {counts}")
            return (f"AMBIGUOUS: no gap in the distances between hidden states and no radius range over which "
                    f"the minimal automaton keeps its size (minimal states by radius {counts}); radius "
                    f"{self.tol:.2g} is a guess")
        if self.source == "gap":
            return f"radius {self.tol:.2g} at the distance gap {self.below:.2g} -> {self.above:.2g}"
        return (f"AMBIGUOUS: no clear gap in the distances between hidden states (the largest, "
                f"{self.below:.2g} -> {self.above:.2g}, has ratio {self.ratio:.2g} < {CLEAR_GAP:g}); "
                f"radius {self.tol:.2g} is a guess")

    def to_json(self) -> dict:
        return {"tol": self.tol, "source": self.source, "below": self.below, "above": self.above,
                "ratio": self.ratio, "spread": self.spread,
                "plateau": [{"radius": r, "minimal_states": n} for r, n in self.plateau],
                "search_stopped_at_budget": self.stopped}


def choose_radius(X: np.ndarray, seed: int = 0) -> RadiusChoice:
    """The cluster radius of the hidden states ``X`` (samples, hidden): the largest gap in the
    sorted pairwise distances of (at most :data:`RADIUS_SAMPLE`) states, the radius the geometric
    mean of the distances on either side of it (and below half the upper one, so that no two
    states across the gap share a cluster).  Distances below :data:`DISTANCE_FLOOR` count as it.

    >>> rng = np.random.default_rng(0)
    >>> centres = np.array([[1., 0.], [0., 1.], [-1., 0.]])
    >>> X = centres[rng.integers(0, 3, 300)] + 0.01 * rng.standard_normal((300, 2))
    >>> c = choose_radius(X)
    >>> c.source, 0.02 < c.tol < 0.7, c.ratio > 10
    ('gap', True, True)
    >>> choose_radius(rng.standard_normal((300, 2))).source       # a cloud: no gap
    'ambiguous'
    """
    X = np.asarray(X, dtype=float)
    finite = np.isfinite(X).all(axis=1)
    if not finite.all():  # a copy only when a row must go
        X = X[finite]
    rows = sample_rows(X.shape[0], seed)
    if rows is not None:
        X = X[rows]
    if X.shape[0] < 2:
        return RadiusChoice(0.05, "ambiguous", None, None, None)
    sq = np.einsum("ij,ij->i", X, X)
    D = np.sqrt(np.maximum(sq[:, None] + sq[None, :] - 2.0 * (X @ X.T), 0.0))
    d = np.sort(np.maximum(D[np.triu_indices(X.shape[0], 1)], DISTANCE_FLOOR))
    d = np.unique(d)
    if d.size < 2:  # every state alike (or two values only)
        top = float(d[-1])
        return RadiusChoice(max(top, DISTANCE_FLOOR) * 2.0, "gap", top, float("inf"), float("inf"), top)
    ratios = d[1:] / d[:-1]
    ratios[d[1:] < RELATIVE_SEPARATION * d[-1]] = 0.0  # a gap among tiny distances separates nothing
    i = int(np.argmax(ratios))
    below, above, ratio = float(d[i]), float(d[i + 1]), float(ratios[i])
    tol = min(float(np.sqrt(below * above)), above / 2.0)
    tol = max(tol, below)
    spread = float(d[min(d.size - 1, int(0.95 * d.size))])
    return RadiusChoice(tol, "gap" if ratio >= CLEAR_GAP else "ambiguous", below, above, ratio, spread)


def sample_rows(n: int, seed: int = 0) -> np.ndarray | None:
    """The rows of ``n`` (finite) states that :func:`choose_radius` chooses the radius from, in
    the order it takes them: None (all of them) for at most :data:`RADIUS_SAMPLE` states, else
    :data:`RADIUS_SAMPLE` of them drawn with ``seed``.  A caller that streams its states keeps
    only these rows (``choose_radius(X[sample_rows(len(X), seed)], seed)`` is ``choose_radius(X,
    seed)`` for finite ``X``).

    >>> sample_rows(600) is None, sample_rows(601).shape
    (True, (600,))
    """
    if n <= RADIUS_SAMPLE:
        return None
    return np.random.default_rng(seed).choice(n, RADIUS_SAMPLE, replace=False)


#: Words of an extraction whose states choose its cluster radius (every step from the burn-in on).
RADIUS_WORDS = 200


def run_radius(A: np.ndarray, h0: np.ndarray, words: np.ndarray, B: int, seed: int = 0, steps=float_steps) -> RadiusChoice:
    """:func:`choose_radius` of the unit states of the first :data:`RADIUS_WORDS` of ``words``
    (batch, time) from step ``B`` on (after ``h0`` when B = 0), run by ``steps``
    (:func:`~bilinear.constructions.values.floatrun.float_steps`): of those states only the rows
    :func:`sample_rows` picks are kept (a state that is not finite is left out, as
    :func:`choose_radius` leaves it out: then the run is made again to sample the finite ones)."""
    sample = words[:RADIUS_WORDS]
    n = (B == 0) + sample.shape[0] * (words.shape[1] - max(B, 1) + 1)
    X, finite = _sampled_states(A, h0, sample, B, n, seed, steps)
    if finite < n:
        X, _ = _sampled_states(A, h0, sample, B, finite, seed, steps)
    return choose_radius(X, seed)


def _sampled_states(A, h0, sample, B: int, n: int, seed: int, steps) -> tuple[np.ndarray, int]:
    """The rows :func:`choose_radius` takes of ``n`` finite states (:func:`sample_rows`, in its
    order), gathered a step at a time from the states of :func:`run_radius`, and the number of
    finite states seen."""
    rows = sample_rows(n, seed)
    rows = np.arange(n) if rows is None else rows
    order = np.argsort(rows)
    at = rows[order]
    X = np.empty((rows.size, A.shape[1]))
    seen = 0
    for H in _states(A, h0, sample, B, steps):
        finite = np.isfinite(H).all(axis=1)
        F = H if finite.all() else H[finite]
        lo, hi = np.searchsorted(at, [seen, seen + F.shape[0]])
        X[order[lo:hi]] = F[at[lo:hi] - seen]
        seen += F.shape[0]
    return X, seen


def _states(A, h0, sample, B: int, steps):
    """The states :func:`run_radius` chooses from, a step at a time: h0 (B = 0), then every step
    from ``max(B, 1)`` on."""
    if B == 0:
        yield unit_rows(h0[None, :].astype(float).copy())
    for t, H in enumerate(steps(A, h0, sample), 1):
        if t >= max(B, 1):
            yield H


#: Radii the behaviour refinement tries (from half the 95th-percentile distance down, by sqrt 2),
#: and how many consecutive radii must give one minimal automaton size for it to be trusted.
PLATEAU_RADII = 10
PLATEAU_LENGTH = 3
#: Unobserved transitions a tracker fills by running it, per radius tried (the kept one: all).
PLATEAU_REFILLS = 64


def _refine_by_behaviour(first: Any, run_at, run_full, deadline: float | None = None,
                         budget: float | None = None) -> Any:
    """An extraction (:class:`~bilinear.analysis.extract.Extraction`) whose radius had no clear gap (``first``): try radii from half the spread
    down (``run_at(radius) -> Extraction``) and keep the one in the middle of the longest run of
    consecutive radii whose minimal automata (clusters merged exactly when their labels and
    successors agree) have one size; that run must span :data:`PLATEAU_LENGTH` radii (a factor
    2), else the result stays ``ambiguous``.  Finer radii stop once the clusters overflow or a
    plateau has ended, or (``deadline``, a ``time.perf_counter()`` value: the extraction's radius
    budget of ``budget`` seconds) when the time is spent before the next radius: the result then
    says so (``RadiusChoice.stopped``).  ``run_at`` may skip the monoid's classification; the
    radius kept is run again with ``run_full``.  Progress: one line every few seconds off a
    terminal (:class:`~bilinear.progress.Progress`)."""
    from bilinear.progress import Progress

    choice = first.radius
    assert choice is not None  # called only for an extraction whose radius is ambiguous
    top = 0.25 * (choice.spread or 1.0)
    tried = []
    stopped = None
    with Progress("extract: radius search", total=PLATEAU_RADII, unit="radii") as progress:
        for k in range(PLATEAU_RADII):
            if k and deadline is not None and _time.perf_counter() > deadline:
                stopped = budget
                break
            r = top / 2 ** (k / 2)
            progress.phase(f"radius {r:.3g}")
            ex = run_at(r)
            progress.update(1)
            n = ex.minimal.n_states if ex.minimal is not None else None
            tried.append((r, n, ex))
            if n is None:
                break
            same = [m for _, m, _ in tried[-PLATEAU_LENGTH - 1:-1]]
            if len(same) == PLATEAU_LENGTH and len(set(same)) == 1 and n != same[0]:
                break  # a plateau has ended: finer radii only split it further (and cost the most)
    choice = replace(choice, stopped=stopped)
    runs: list = []
    for item in tried:
        if runs and item[1] is not None and item[1] == runs[-1][-1][1]:
            runs[-1].append(item)
        elif item[1] is not None:
            runs.append([item])
    # the longest run; a one-state run (every state merged: large radii) only when no other exists
    best: list = max(runs, key=lambda run: (run[0][1] > 1, len(run)), default=[])
    plateau = tuple((r, n) for r, n, _ in tried)
    if len(best) >= PLATEAU_LENGTH:
        r = best[len(best) // 2][0]
        ex = run_full(r)
        radius = replace(choice, tol=r, source="plateau", plateau=plateau)
        return replace(ex, radius=radius, status="ok" if ex.status in ("ok", "ambiguous") else ex.status)
    r = (best[len(best) // 2] if best else tried[0])[0]
    ex = run_full(r)
    radius = replace(choice, tol=r, source="ambiguous", plateau=plateau)
    return replace(ex, radius=radius, status="ambiguous" if ex.automaton is not None else ex.status)
