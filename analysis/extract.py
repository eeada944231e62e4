"""Extraction: the automaton a network actually implements, read off its hidden states.

Procedure (all float, with renormalisation):

1. Sample ``words`` random words of length ``length`` (uniform symbols, seeded) — longer than
   training — and run the network on them: ``h_t = A[a_t] h_{t-1} / ||A[a_t] h_{t-1}||``.  Only the
   direction of ``h`` matters (the readout has no bias), so hidden states are compared as unit
   vectors.  The batch is advanced one GEMM per symbol per step (rows grouped by token).
2. Cluster the unit hidden states with an explicit radius ``tol`` (leader clustering, online: a
   state joins the nearest centre within ``tol``, otherwise it becomes a new centre).  The
   clustering is *justified* by two rigorous bounds from the triangle inequality: every distance
   inside cluster i is <= 2 r_i (r_i its largest distance to the centre), and every distance between
   clusters i and j is >= |c_i - c_j| - r_i - r_j.  ``within`` = max 2 r_i, ``between`` = min of
   the latter, ``gap = between / within``; the clusters are well separated when ``between >
   within``.
   Alternatively (``method="behaviour"``) two hidden states are one state when the network
   gives them the same label after every word of length <= ``horizon``: a Myhill–Nerode
   signature, justified by the smallest scale-free label margin (``margin``) and by the absence
   of conflicting transitions.  ``method="auto"`` (default) tries geometry first, then
   behaviour; each first from the start, then after a burn-in of ``length // 2`` steps (which
   removes transient states of directions the network contracts away), and keeps the first
   separated result.
3. Build the quotient automaton: states = clusters, start = the cluster of h0, transition (c, a)
   = the majority of observed successors (``conflicts`` counts (c, a) with more than one observed
   successor; a (c, a) never observed is filled by applying A[a] to the centre), label = argmax of
   the readout at the centre (``label_conflicts`` counts clusters whose members disagree).
4. Minimise and compare with the true automaton (both minimised): isomorphic, or the shortest word
   on which they differ (``minimize.distinguishing_word``); and the extracted automaton's monoid
   classification.

Examples
--------
>>> from bilinear.analysis.examples import cyclic_rotation2d
>>> from bilinear.automata import from_spec
>>> ex = extract(cyclic_rotation2d(5), from_spec("cyclic:5"), ExtractConfig(words=200, length=30))
>>> ex.n_clusters, ex.isomorphic, ex.separated
(5, True, True)
>>> broken = cyclic_rotation2d(5, angle_error=0.05)          # every angle slightly wrong
>>> bad = extract(broken, from_spec("cyclic:5"), ExtractConfig(words=200, length=30))
>>> bad.isomorphic, bad.distinguishing_word is not None
(False, True)
"""

from __future__ import annotations

from typing import Any

import time as _time
from dataclasses import asdict, dataclass, replace

import numpy as np

from bilinear.constructions.values.floatrun import check_compatible, float_steps, run_float, unit_rows
from bilinear.constructions.values.span import scale_normalised
from bilinear.errors import AnalysisError, MonoidTooLargeError
from bilinear.metrics import normalized_accuracy

from .clusters import MAX_SIGNATURE_WORDS, _Clusters, _Signatures, _signature_word_count  # noqa: F401 (the old path)
from .clusters import (KEEP_RUN_BYTES, TRUTH_CELLS, VOTE_BLOCK, count_label_conflicts, count_votes, extract_bytes, key_int,
                       label_votes, small_int)
from .matrices import check_positive_int, check_tolerance
from .radius import PLATEAU_REFILLS, RadiusChoice, _refine_by_behaviour, choose_radius, run_radius

__all__ = ["ExtractConfig", "Extraction", "extract", "extract_tracker", "run_network", "preflight", "tracker_preflight",
           "MAX_EXTRACT_BYTES", "extract_bytes", "RadiusChoice", "choose_radius", "RADIUS_SECONDS"]


#: Clustering methods of :func:`extract`.
METHODS = ("auto", "geometry", "behaviour")
#: Default time budget (seconds) of the radius search of one extraction (``radius_seconds``).
RADIUS_SECONDS = 60.0


@dataclass(frozen=True)
class ExtractConfig:
    """Parameters of :func:`extract` (all validated; bad values raise AnalysisError)."""

    words: int = 2000  # random words sampled
    length: int = 100  # length of every word (longer than training)
    tol: float | None = None  # cluster radius between unit hidden states; None: chosen from the data (the gap)
    seed: int = 0  # seed of the word sampler (numpy default_rng)
    max_states: int = 2000  # give up clustering beyond this many clusters
    burn_in: int | None = None  # steps before clustering starts; None: 0, else length // 2 if needed
    method: str = "auto"  # geometry (tolerance clusters) | behaviour (label signatures) | auto
    horizon: int = 2  # behaviour: signatures over every word of length <= horizon
    monoid_limit: int = 100_000  # largest monoid classified
    # time budget of the radius search (radii tried for a plateau of the minimal automaton): no
    # further radius is tried once the extraction has run this many seconds (the first always
    # runs; the result says it stopped); None: no limit
    radius_seconds: float | None = RADIUS_SECONDS

    def validated(self) -> "ExtractConfig":
        check_positive_int(self.words, "words")
        check_positive_int(self.length, "length")
        if self.tol is not None:
            check_tolerance(self.tol, "tol")
        check_positive_int(self.seed, "seed", minimum=0)
        check_positive_int(self.max_states, "max_states")
        check_positive_int(self.monoid_limit, "monoid_limit")
        if self.radius_seconds is not None and (isinstance(self.radius_seconds, bool) or not isinstance(
                self.radius_seconds, (int, float)) or not 0 < self.radius_seconds < float("inf")):
            raise AnalysisError(f"radius_seconds must be a positive number of seconds or None, got {self.radius_seconds!r}")
        if self.method not in METHODS:
            raise AnalysisError(f"unknown extraction method {self.method!r} (known: {', '.join(METHODS)})")
        check_positive_int(self.horizon, "horizon", minimum=0)
        if self.burn_in is not None:
            check_positive_int(self.burn_in, "burn_in", minimum=0)
            if self.burn_in >= self.length:
                raise AnalysisError(f"burn_in ({self.burn_in}) must be below length ({self.length})")
        return self


@dataclass(frozen=True)
class Extraction:
    """The result of :func:`extract` (see the module docstring for every quantity).

    ``automaton`` is the quotient automaton (clusters), ``minimal`` its minimisation; both None
    when the clustering exceeded ``max_states`` (``status`` says so).  ``accuracy_by_length[t]``
    is the network's normalised accuracy (0 = chance, 1 = perfect) on prefixes of length t + 1.
    """

    status: str
    automaton: Any
    minimal: Any
    n_clusters: int
    within: float
    between: float
    separated: bool
    conflicts: int
    conflict_fraction: float
    unobserved: int
    label_conflicts: int
    isomorphic: bool | None
    distinguishing_word: tuple[int, ...] | None
    distinguishing_text: str | None
    classification: str | None
    accuracy: float
    accuracy_by_length: tuple[float, ...]
    first_error: tuple[int, ...] | None
    config: ExtractConfig
    seconds: float
    burn_in: int = 0
    start_word: tuple[int, ...] = ()
    method: str = "geometry"
    margin: float | None = None
    tracker: bool = False  # extracted from a model's hidden states without transition matrices
    # the cluster radius used and how it was chosen (RadiusChoice; None for the behaviour method)
    radius: "RadiusChoice | None" = None
    # the distinguishing word re-run: "automaton 1, extraction 0, network 1" (None: no word)
    distinguishing_labels: str | None = None

    @property
    def gap(self) -> float | None:
        """``between / within`` (None when undefined: one cluster, zero radius, or overlapping
        clusters)."""
        if self.within <= 0 or not np.isfinite(self.between) or self.between < 0:
            return None
        return self.between / self.within

    @property
    def reading(self) -> str:
        if self.automaton is None:
            tol = self.radius.tol if self.radius is not None else self.config.tol
            if self.method == "behaviour":
                return (
                    f"extraction failed: {self.status} (label signatures over words of length <= "
                    f"{self.config.horizon})"
                )
            if tol is None:  # no hidden states to cluster (a model that gives logits only): no tolerance chosen
                return f"no extraction: {self.status}"
            return (
                f"extraction failed: {self.status} (tolerance {tol:g}); the hidden states "
                "do not form a small set of clusters"
            )
        if self.method == "behaviour":
            sep = (
                f"states = label signatures over words of length <= {self.config.horizon}, "
                f"min scale-free margin {self.margin:.2g}"
                + ("" if self.unobserved == 0 else f", {self.unobserved} unobserved transitions")
            )
        elif self.separated:
            sep = f"clusters separated (within <= {self.within:.2g}, between >= {self.between:.2g})"
        elif np.isfinite(self.between) and self.between < 0:  # a bound below 0 says nothing: overlap
            sep = (f"clusters NOT separated (within <= {self.within:.2g}; the radii of two clusters "
                   f"exceed the distance of their centres)")
        else:
            sep = f"clusters NOT separated (within <= {self.within:.2g}, between >= {self.between:.2g})"
        if self.radius is not None:
            sep += f"; {self.radius.text()}"
        if self.conflicts:
            sep += f"; {self.conflicts} conflicting transitions (majority kept)"
        head = f"{self.n_clusters} clusters -> {self.minimal.n_states} minimal states; {sep}"
        if self.tracker and self.burn_in == 1:
            head = "hidden states from step 1 on: " + head
        elif self.burn_in:
            head = (
                f"after a burn-in of {self.burn_in} steps (compared from the state the first sampled "
                f"word's prefix leads to): " + head
            )
        if self.isomorphic:
            verdict = "isomorphic to the true automaton"
        else:
            where = " after the burn-in prefix" if self.burn_in else ""
            labels = f" ({self.distinguishing_labels})" if self.distinguishing_labels else ""
            verdict = f"differs from the true automaton, first on {self.distinguishing_text!r}{where}{labels}"
        return f"{head}; {verdict}; monoid: {self.classification}"

    def to_json(self) -> dict:
        def auto(a):
            if a is None:
                return None
            return {
                "states": a.n_states,
                "start": a.start,
                "delta": a.delta.tolist(),
                "labels": a.labels.tolist(),
            }

        return {
            "status": self.status,
            "config": asdict(self.config),
            "n_clusters": self.n_clusters,
            "within": self.within,
            # never a negative distance: a negative bound means two clusters overlap
            "between": max(self.between, 0.0) if np.isfinite(self.between) else None,
            "overlapping": bool(np.isfinite(self.between) and self.between < 0),
            "radius": None if self.radius is None else self.radius.to_json(),
            "gap": self.gap,
            "separated": self.separated,
            "conflicts": self.conflicts,
            "conflict_fraction": self.conflict_fraction,
            "unobserved": self.unobserved,
            "label_conflicts": self.label_conflicts,
            "isomorphic": self.isomorphic,
            "distinguishing_word": None if self.distinguishing_word is None else list(self.distinguishing_word),
            "distinguishing_text": self.distinguishing_text,
            "distinguishing_labels": self.distinguishing_labels,
            "classification": self.classification,
            "accuracy": self.accuracy,
            "accuracy_by_length": list(self.accuracy_by_length),
            "first_error": None if self.first_error is None else list(self.first_error),
            "burn_in": self.burn_in,
            "method": self.method,
            "margin": self.margin,
            "tracker": self.tracker,
            "start_word": list(self.start_word),
            "extracted": auto(self.automaton),
            "minimal": auto(self.minimal),
            "seconds": self.seconds,
        }


def run_network(weights, words: np.ndarray) -> np.ndarray:
    """Predicted classes after every step, (batch, time), with renormalisation (float):
    :func:`bilinear.constructions.values.floatrun.run_float`'s labels.

    >>> from bilinear.analysis.examples import cyclic_rotation2d
    >>> run_network(cyclic_rotation2d(5), np.array([[1, 1, 3]])).tolist()
    [[1, 2, 0]]
    """
    return run_float(weights, words).labels


#: Largest memory an extraction may hold, in bytes (:func:`~bilinear.analysis.clusters.extract_bytes`,
#: for a tracker :func:`tracker_preflight`'s), checked before any word is drawn (``--words`` x ``--length``).
MAX_EXTRACT_BYTES = 1024**3


def preflight(config: ExtractConfig, n_symbols: int, hidden: int | None,
              chunk: tuple[int, int] | None = None, *, classes: int | None = None, states: int | None = None) -> None:
    """AnalysisError when ``config`` would pass a size limit of the extraction for ``n_symbols``
    symbols and ``hidden`` units (:data:`MAX_EXTRACT_BYTES`, and :data:`MAX_SIGNATURE_WORDS`
    words of length <= horizon for the behaviour method), before any work; ``chunk``: a
    tracker's (:func:`tracker_preflight`); ``classes`` and ``states``: the automaton's (None:
    not known, as :func:`~bilinear.analysis.clusters.extract_bytes` counts them)."""
    config.validated()
    need = None
    if chunk is None:
        need = extract_bytes(config.words, config.length, hidden or 0, classes, n_symbols, method=config.method,
                             horizon=config.horizon, max_states=config.max_states, states=states)
    _check_extract_size(config.words, config.length, hidden, chunk, need)
    if config.method == "behaviour":
        _signature_word_count(n_symbols, config.horizon)


def _check_extract_size(words: int, length: int, hidden: int | None, chunk: tuple[int, int] | None = None,
                        need: int | None = None) -> None:
    """AnalysisError with the estimate ``need`` past :data:`MAX_EXTRACT_BYTES`; for a tracker
    (``chunk`` = (words per call, logits a symbol)): ``words x (length + 1) x 32 + words x hidden
    x 16`` and one call's hidden states and logits, held twice: ``chunk words x length x (hidden
    + classes) x 16``.  ``hidden`` None: not known (not counted)."""
    h = hidden or 0
    if need is None:
        need = words * (length + 1) * 32 + words * h * 16 + (0 if chunk is None else chunk[0] * length * (h + chunk[1]) * 16)
    if need > MAX_EXTRACT_BYTES:
        size = "hidden size not counted" if hidden is None else f"hidden size {hidden}"
        per_call = "" if chunk is None else f", {chunk[1]} logits a symbol, {chunk[0]:,} words a model call"
        raise AnalysisError(
            f"extracting from {words:,} words of length {length:,} ({size}{per_call}) would need "
            f"about {need / 1024**3:.3g} GiB; the limit is {MAX_EXTRACT_BYTES / 1024**3:g} GiB "
            f"(bilinear.analysis.extract.MAX_EXTRACT_BYTES): lower --words or --length"
        )


def tracker_preflight(tracker, config: ExtractConfig, n_symbols: int, n_classes: int) -> None:
    """:func:`preflight` for a tracker (:func:`extract_tracker`): the estimate adds one call's
    hidden states and logits (:data:`TRACKER_CHUNK` words at a time).  Checked first without the
    hidden size, before the model is run at all; then with the hidden size: a stack's layers'
    sizes summed, or for any other tracker with hidden states the width it returns for one word
    of one symbol (not counted when that run fails: the extraction meets the failure itself)."""
    if not isinstance(config, ExtractConfig):
        raise AnalysisError(f"config must be an ExtractConfig, got {type(config).__name__}")
    chunk = (min(int(config.validated().words), TRACKER_CHUNK), n_classes)
    preflight(config, n_symbols, None, chunk)
    hidden = _tracker_hidden(tracker)
    if hidden:
        _check_extract_size(config.words, config.length, hidden, chunk)


def _tracker_hidden(tracker) -> int:
    """The width of ``tracker``'s hidden states (0 without them or when one word does not show it)."""
    from bilinear.constructions.values.tracker import StackTracker

    if not getattr(tracker, "has_hidden", False):
        return 0
    if isinstance(tracker, StackTracker):
        return sum(int(layer.dim) for layer in tracker.stack.layers)
    try:
        H = tracker.run(np.zeros((1, 1), dtype=np.int64), hidden=True).hidden
    except Exception:  # noqa: BLE001 - the model's own failure is the extraction's to report
        return 0
    return int(H.shape[2]) if H is not None and np.ndim(H) == 3 else 0


def extract(weights, automaton, config: ExtractConfig = ExtractConfig()) -> Extraction:
    """Extract the automaton implemented by ``weights`` and compare it with ``automaton``.

    With ``config.burn_in = None`` (automatic) the states are clustered from the start; when that
    exceeds ``max_states`` clusters or the clusters are not separated (a trained network's
    transient states, before its contracting directions die out), the extraction is repeated
    with a burn-in of ``length // 2`` steps and that result is returned if it succeeds.

    ``weights`` may also be any model :func:`bilinear.constructions.values.tracker.as_tracker` accepts: one
    without Weights is extracted by :func:`extract_tracker`.

    Raises AnalysisError when symbol or class counts differ or a config value is invalid.
    """
    from bilinear.constructions.values.weights import Weights

    if not isinstance(weights, Weights) and not isinstance(weights, np.ndarray):
        from bilinear.constructions.values.tracker import as_tracker

        tracker = as_tracker(weights)
        if tracker.weights is None:
            return extract_tracker(tracker, automaton, config)
        weights = tracker.weights
    check_compatible(weights, automaton)
    if not isinstance(config, ExtractConfig):
        raise AnalysisError(f"config must be an ExtractConfig, got {type(config).__name__}")
    preflight(config, weights.n_symbols, weights.dim, classes=automaton.n_classes, states=automaton.n_states)
    weights = scale_normalised(weights)  # margins up to scale, without underflow
    started = _time.perf_counter()
    A, h0, R = weights.float_arrays()
    if not np.isfinite(A).all() or not np.isfinite(h0).all() or not np.isfinite(R).all():
        raise AnalysisError("weights contain non-finite entries")
    if float(np.linalg.norm(h0)) == 0.0:
        raise AnalysisError("h0 is zero: the network has no hidden state to follow")
    rng = np.random.default_rng(config.seed)
    words = rng.integers(0, weights.n_symbols, size=(config.words, config.length), dtype=np.int64)
    words = words.astype(small_int(weights.n_symbols - 1))  # the same symbols, in 1 byte up to 128 (extract_bytes)
    truth = _truth(automaton, words)  # (batch, time)
    run = _Run(A, h0, R, words)  # one float run for every pass below (they cluster the same states)
    methods = ["geometry", "behaviour"] if config.method == "auto" else [config.method]
    budget = config.radius_seconds
    until = None if budget is None else started + budget  # the radius search's, over every attempt
    attempts: list[Extraction] = []
    for method in methods:
        cfg = config
        if config.method == "auto" and method == "geometry":
            # a geometric clustering far larger than the automaton explains nothing: give up early
            cfg = replace(config, max_states=min(config.max_states, max(200, 20 * automaton.n_states)))
        burn_ins = [config.burn_in] if config.burn_in is not None else [0, config.length // 2]
        for b in dict.fromkeys(burn_ins):
            if b >= config.length:
                continue
            result = _extract(A, h0, R, automaton, cfg, words, truth, b, started, method, run)
            if result.radius is not None and result.radius.source == "ambiguous":
                result = _refine_by_behaviour(
                    result,
                    lambda r, cfg=cfg, b=b, method=method: _extract(A, h0, R, automaton, replace(cfg, tol=r, monoid_limit=1), words,
                                                     truth, b, started, method, run),
                    lambda r, cfg=cfg, b=b, method=method: _extract(A, h0, R, automaton, replace(cfg, tol=r), words, truth, b,
                                                     started, method, run), until, budget)
            if result.status == "ok" and result.separated:
                return _rerun_word(replace(result, config=config), weights, automaton)
            attempts.append(replace(result, config=config))
    return _rerun_word(_best(attempts), weights, automaton)


def _truth(automaton, words) -> np.ndarray:
    """The automaton's label after every prefix of ``words`` (batch, time), in the smallest
    integer type of its classes, :data:`TRUTH_CELLS` prefixes at a time."""
    N, T = words.shape
    truth = np.empty((N, T), dtype=small_int(automaton.n_classes - 1))
    rows = max(1, TRUTH_CELLS // max(T, 1))
    for lo in range(0, N, rows):
        truth[lo:lo + rows] = automaton.labels_batch(words[lo:lo + rows], trace=True)
    return truth


def _best(attempts: list) -> "Extraction":
    """Nothing separated: the first ``ok`` attempt, else the first that produced an automaton
    (``ambiguous``), else the first attempt."""
    return next((r for r in attempts if r.status == "ok"),
                next((r for r in attempts if r.automaton is not None), attempts[0]))


def _rerun_word(result: Extraction, network, automaton) -> Extraction:
    """``result`` with its distinguishing word re-run through the network itself (after the
    burn-in prefix): the automaton's, the extraction's and the network's label of it."""
    if result.distinguishing_word is None or result.minimal is None:
        return result
    from .lengths import network_label

    word = result.distinguishing_word
    net = network_label(network, automaton, word, prefix=result.start_word)
    got = result.minimal.classes[result.minimal.label(word)]
    return replace(result, distinguishing_labels=f"automaton {net.automaton}, extraction {got}, network "
                                                 f"{net.network if net.network is not None else '-'}")


def _extract(A, h0, R, automaton, config: ExtractConfig, words, truth, burn_in: int, started: float, method: str,
             run: "_Run | None" = None) -> Extraction:
    B = int(burn_in)
    clusters, ids, pred = _observe(A, h0, R, config, words, B, method, run)
    common = dict(
        _accuracies(pred, truth, words, automaton.n_classes),
        config=config,
        burn_in=B,
        start_word=tuple(int(x) for x in words[0, :B]),
        method=method,
    )
    radius = getattr(clusters, "choice", None)
    common["radius"] = radius
    if clusters.overflow:
        return Extraction(
            status=f"more than {config.max_states} clusters",
            automaton=None, minimal=None, n_clusters=clusters.k,
            within=float("nan"), between=float("nan"), separated=False,
            conflicts=0, conflict_fraction=float("nan"), unobserved=0, label_conflicts=0,
            isomorphic=None, distinguishing_word=None, distinguishing_text=None, classification=None,
            seconds=_time.perf_counter() - started, **common,
        )
    S, K = A.shape[0], clusters.k
    delta, conflicts, conflict_fraction = _majority(ids[:, B:], words[:, B:], K, S)
    if method == "geometry":
        labels, unobserved, within, between, margin = _complete_geometry(clusters, delta, A, R)
        separated = bool(K == 1 or between > within)
    else:
        labels, unobserved, within, between, margin = _complete_behaviour(clusters, delta, A)
        separated = bool(margin > 0 and unobserved == 0 and conflicts == 0)
    label_conflicts = count_label_conflicts(ids, pred, max(B, 1), automaton.n_classes, VOTE_BLOCK)
    extracted, minimal, iso, word, classification = _compare(
        automaton, delta.reshape(K, S).T, int(ids[0, B]), labels, common["start_word"], config.monoid_limit
    )
    return Extraction(
        status="ambiguous" if radius is not None and radius.source == "ambiguous" else "ok",
        automaton=extracted,
        minimal=minimal,
        n_clusters=K,
        within=within,
        between=between,
        separated=separated,
        conflicts=conflicts,
        conflict_fraction=conflict_fraction,
        unobserved=unobserved,
        label_conflicts=label_conflicts,
        isomorphic=iso,
        distinguishing_word=word,
        distinguishing_text=None if word is None else automaton.format_word(word),
        classification=classification,
        seconds=_time.perf_counter() - started,
        margin=margin,
        **common,
    )


class _Run:
    """The float run of ``words`` (:func:`~bilinear.constructions.values.floatrun.float_steps`):
    each step's unit states and predicted classes, computed by the first pass that runs it to
    the end and kept for the next ones when they fit in :data:`KEEP_RUN_BYTES` (the same arrays:
    every pass sees the same states).  The predictions (``pred``, (batch, time), the smallest
    integer type of the classes) are kept in any case: one array for every pass."""

    def __init__(self, A, h0, R, words):
        self.A, self.h0, self.RT, self.words = A, h0, R.T, words
        self.keep = words.shape[0] * words.shape[1] * A.shape[1] * 8 <= KEEP_RUN_BYTES
        self.states: list | None = None
        self.pred = np.empty(words.shape, dtype=small_int(R.shape[0] - 1))

    def steps(self):
        """Yield ``(t, H_t, pred_t)`` for t = 0 .. time - 1: the unit states after step t + 1 and
        the class each word predicts there."""
        pred = self.pred
        if self.states is not None:
            for t, H in enumerate(self.states):
                yield t, H, pred[:, t]
            return
        states = []
        for t, H in enumerate(float_steps(self.A, self.h0, self.words)):
            pred[:, t] = np.argmax(H @ self.RT, axis=1)
            if self.keep:
                states.append(H)  # float_steps yields a new array per step
            yield t, H, pred[:, t]
        if self.keep:
            self.states = states


def _observe(A, h0, R, config: ExtractConfig, words, B: int, method: str, run: _Run | None = None):
    """Run the network on ``words`` (batch, time) and cluster every state from step ``B`` on;
    ``run``: the run of these weights and words (:class:`_Run`), shared between passes.

    Returns the clustering, ``ids`` (batch, time + 1) the cluster of every prefix (-1 before the
    burn-in or after an overflow) and ``pred`` (batch, time) the predicted class of every prefix
    (the run's own array, shared between passes).
    """
    N, T = words.shape
    clusters: _Clusters | _Signatures
    if method == "geometry":
        choice = _radius(A, h0, config, words, B)
        clusters = _Clusters(A.shape[1], choice.tol, config.max_states)
        clusters.choice = choice
    else:
        clusters = _Signatures(A, R, config.horizon, config.max_states)
    ids = np.full((N, T + 1), -1, dtype=small_int(config.max_states))
    if B == 0:
        ids[:, 0] = int(clusters.assign(unit_rows(h0[None, :].astype(float).copy()))[0])
    run = run or _Run(A, h0, R, words)
    for t, H, _ in run.steps():
        if t + 1 >= B and not clusters.overflow:
            ids[:, t + 1] = clusters.assign(H)
    return clusters, ids, run.pred


def _radius(A, h0, config: ExtractConfig, words, B: int) -> RadiusChoice:
    """The config's radius, or one chosen from the unit states of the first words from step B on
    (:func:`~bilinear.analysis.radius.run_radius`)."""
    if config.tol is not None:
        return RadiusChoice(float(config.tol), "given")
    return run_radius(A, h0, words, B, config.seed, float_steps)


def _accuracies(pred, truth, words, n_classes: int) -> dict:
    """Normalised accuracy overall and by length, and the first error (shortest, then first word)."""
    correct = pred == truth
    first_error = None
    wrong = np.flatnonzero(~correct.all(axis=0))
    if wrong.size:
        t = int(wrong[0])
        b = int(np.flatnonzero(~correct[:, t])[0])
        first_error = tuple(int(x) for x in words[b, : t + 1])
    return dict(
        accuracy=float(normalized_accuracy(correct.mean(), n_classes)),
        accuracy_by_length=tuple(float(x) for x in normalized_accuracy(correct.mean(axis=0), n_classes)),
        first_error=first_error,
    )


def _majority(ids, words, K: int, S: int):
    """Transitions by majority vote from the clusters ``ids`` (batch, time + 1) of the prefixes of
    ``words`` (batch, time): ``delta`` (K * S,) indexed by ``cluster * S + symbol`` (-1 when never
    observed), the number of conflicting sources and the fraction of votes against the majority:
    one key ``(cluster * S + symbol) * K + successor`` a prefix (int32 while they fit), sorted in
    place, counted by :func:`~bilinear.analysis.clusters.count_votes` a block of whole sources
    (:data:`VOTE_BLOCK` keys and the rest of the last source's) at a time."""
    keys = ids[:, :-1].astype(key_int(K * S * K))
    keys *= S
    keys += words
    keys *= K
    keys += ids[:, 1:]
    keys = keys.reshape(-1)
    keys.sort()
    delta = np.full(K * S, -1, dtype=np.int64)
    conflicts = agree = 0
    lo = 0
    while lo < keys.size:
        hi = min(lo + VOTE_BLOCK, keys.size)
        if hi < keys.size:  # to the end of the last source: a source's votes are never split
            hi = int(np.searchsorted(keys, keys.dtype.type((int(keys[hi - 1]) // K + 1) * K)))  # no int64 copy of int32 keys
        n, c = count_votes(keys[lo:hi], delta, K)
        conflicts, agree, lo = conflicts + n, agree + c, hi
    conflict_fraction = float(1.0 - np.int64(agree) / np.int64(keys.size)) if keys.size else 0.0
    return delta, conflicts, conflict_fraction


def _complete_geometry(clusters: "_Clusters", delta, A, R):
    """Fill unobserved transitions (apply A[s] to the centre, nearest centre); label each cluster
    by the readout at its centre.  Returns (labels, unobserved, within, between, margin=None)."""
    K, S = clusters.k, A.shape[0]
    centres = clusters.centres[:K]
    unobserved = 0
    for code in np.flatnonzero(delta < 0):
        c, s = divmod(int(code), S)
        x = unit_rows((A[s] @ centres[c])[None, :])
        D = clusters._dist(x, centres, clusters.sq[:K])[0]
        delta[code] = int(np.argmin(D))
        unobserved += 1
    labels = np.argmax(centres @ R.T, axis=1)  # (states,)
    within, between = clusters.bounds()
    return labels, unobserved, within, between, None


def _complete_behaviour(clusters: "_Signatures", delta, A):
    """Fill unobserved transitions: apply the network to the state's first member and look up
    the signature; an unknown signature is counted and falls back to a self-loop.  Returns
    (labels, unobserved, within=nan, between=nan, margin)."""
    S = A.shape[0]
    unobserved = 0
    for code in np.flatnonzero(delta < 0):
        c, s = divmod(int(code), S)
        target = clusters.lookup(unit_rows((A[s] @ clusters.representatives[c])[None, :])[0])
        delta[code] = target if target >= 0 else c
        unobserved += int(target < 0)
    labels = np.array([int(sig[0]) for sig in clusters.signatures], dtype=np.int64)
    return labels, unobserved, float("nan"), float("nan"), clusters.margin


def _compare(automaton, delta, start: int, labels, start_word, monoid_limit: int):
    """Build the extracted automaton (``delta`` (symbols, states)), minimise it and compare it
    with ``automaton`` started where ``start_word`` leads (the burn-in prefix).

    Returns (extracted, minimal, isomorphic, distinguishing word or None, classification)."""
    from bilinear.automata.automaton import Automaton
    from bilinear.automata.minimize import distinguishing_word, isomorphism, minimize
    from bilinear.automata.monoid import transformation_monoid

    extracted = Automaton(
        delta, start=start, labels=labels, symbols=automaton.symbols, classes=automaton.classes,
        name=f"extracted({automaton.name})" if automaton.name else "extracted",
    )
    reference = automaton
    if start_word:
        reference = Automaton(
            automaton.delta, start=automaton.run(start_word), labels=automaton.labels,
            symbols=automaton.symbols, classes=automaton.classes, name=automaton.name,
        )
    minimal = minimize(extracted)
    iso = isomorphism(minimal, minimize(reference)) is not None
    word = None if iso else distinguishing_word(extracted, reference)
    try:
        classification = transformation_monoid(minimal, limit=monoid_limit).classification
    except MonoidTooLargeError:
        classification = f"monoid larger than {monoid_limit} elements"
    return extracted, minimal, iso, word, classification


# ------------------------------------------------------------------------------------------
# trackers without transition matrices (LSTM, RNN, Transformer, Mamba-style, your own model)
# ------------------------------------------------------------------------------------------
#: Words per tracker call during the extraction.
TRACKER_CHUNK = 256
#: Most unobserved transitions filled by running the tracker on a representative word.
MAX_REFILLS = 512


def extract_tracker(tracker, automaton, config: ExtractConfig = ExtractConfig()) -> Extraction:
    """:func:`extract` for any tracker (:func:`bilinear.constructions.values.tracker.as_tracker`) that gives
    hidden states: geometric clusters of the hidden states divided by their root-mean-square
    norm (so ``tol`` is relative to the typical state), transitions by majority vote, labels
    by the majority of the tracker's predictions in each cluster.  A tracker predicts only
    after a symbol, so the states are clustered from step 1 (the burn-in is at least 1, and the
    true automaton is compared from the state the first word's first symbol leads to).  An
    unobserved transition (cluster, symbol) is filled by running the tracker on the cluster's
    first word followed by the symbol.  Without hidden states only the accuracies are
    computed (``status`` says so).
    """
    from bilinear.constructions.values.tracker import as_tracker, need_automaton

    need_automaton(automaton)
    tracker = as_tracker(tracker, n_symbols=automaton.n_symbols, n_classes=automaton.n_classes)
    tracker_preflight(tracker, config, automaton.n_symbols, automaton.n_classes)  # its size limits, before any work
    started = _time.perf_counter()
    rng = np.random.default_rng(config.seed)
    words = rng.integers(0, automaton.n_symbols, size=(config.words, config.length), dtype=np.int64)
    truth = _truth(automaton, words)
    burn_ins = [config.burn_in] if config.burn_in is not None else [0, config.length // 2]
    budget = config.radius_seconds
    until = None if budget is None else started + budget  # the radius search's, over every attempt
    attempts: list[Extraction] = []
    for b in dict.fromkeys(max(1, x) for x in burn_ins):
        if b >= config.length and attempts:
            continue
        b = max(1, min(b, config.length - 1))
        result = _extract_tracker(tracker, automaton, config, words, truth, b, started)
        if result.radius is not None and result.radius.source == "ambiguous":
            result = _refine_by_behaviour(
                result,
                lambda r, b=b: _extract_tracker(tracker, automaton, replace(config, tol=r, monoid_limit=1), words,
                                                truth, b, started, refills=PLATEAU_REFILLS),
                lambda r, b=b: replace(_extract_tracker(tracker, automaton, replace(config, tol=r), words, truth, b,
                                                        started), config=config), until, budget)
        if result.status == "ok" and result.separated:
            return _rerun_word(result, tracker, automaton)
        attempts.append(result)
    return _rerun_word(_best(attempts), tracker, automaton)


def _observe_tracker(tracker, config: ExtractConfig, words, B: int):
    """Like :func:`_observe` for a tracker: ``(clusters, ids, pred, firsts, scale)``; ``firsts``
    maps each cluster to the (word, step) where it first appeared."""
    N, T = words.shape
    ids = np.full((N, T + 1), -1, dtype=small_int(config.max_states))
    classes = getattr(tracker, "n_classes", None)
    pred = np.empty((N, T), dtype=small_int(classes - 1) if classes else np.int64)
    clusters, scale, firsts = None, 1.0, {}
    for lo in range(0, N, TRACKER_CHUNK):
        out = tracker.run(words[lo:lo + TRACKER_CHUNK], hidden=tracker.has_hidden)
        pred[lo:lo + TRACKER_CHUNK] = np.argmax(out.logits, axis=2)
        if out.hidden is None:
            continue
        if clusters is None:
            scale = float(np.sqrt(np.mean(np.sum(out.hidden[:, B - 1:] ** 2, axis=2)))) or 1.0
            if config.tol is not None:
                choice = RadiusChoice(float(config.tol), "given")
            else:
                choice = choose_radius(out.hidden[:, B - 1:].reshape(-1, out.hidden.shape[2]) / scale, config.seed)
            clusters = _Clusters(out.hidden.shape[2], choice.tol, config.max_states)
            clusters.choice = choice
        for t in range(max(B, 1), T + 1):
            if clusters.overflow:
                break
            known = clusters.k
            got = clusters.assign(out.hidden[:, t - 1] / scale)
            ids[lo:lo + got.size, t] = got
            for c in range(known, clusters.k):
                firsts[c] = (lo + int(np.flatnonzero(got == c)[0]), t)
    return clusters, ids, pred, firsts, scale


def _refill(tracker, clusters, delta, words, firsts, scale, S: int, limit: int = MAX_REFILLS) -> int:
    """Fill unobserved transitions by running the tracker; the rest become self-loops.
    Returns the number of unobserved transitions."""
    todo = np.flatnonzero(delta < 0)
    K = clusters.k
    for n, code in enumerate(todo):
        c, s = divmod(int(code), S)
        b, t = firsts[c]
        if n >= limit:
            delta[code] = c
            continue
        word = np.concatenate([words[b, :t], [s]])[None, :]
        h = tracker.run(word, hidden=True).hidden[0, -1] / scale
        D = clusters._dist(h[None, :], clusters.centres[:K], clusters.sq[:K])[0]
        delta[code] = int(np.argmin(D))
    return int(todo.size)


def _failed(status, clusters, config, common, started) -> Extraction:
    return Extraction(
        status=status, automaton=None, minimal=None, n_clusters=0 if clusters is None else clusters.k,
        within=float("nan"), between=float("nan"), separated=False,
        conflicts=0, conflict_fraction=float("nan"), unobserved=0, label_conflicts=0,
        isomorphic=None, distinguishing_word=None, distinguishing_text=None, classification=None,
        seconds=_time.perf_counter() - started, **common,
    )


def _extract_tracker(tracker, automaton, config, words, truth, B: int, started: float,
                     refills: int | None = None) -> Extraction:
    clusters, ids, pred, firsts, scale = _observe_tracker(tracker, config, words, B)
    common = dict(_accuracies(pred, truth, words, automaton.n_classes), config=config, burn_in=B,
                  start_word=tuple(int(x) for x in words[0, :B]), method="geometry", tracker=True,
                  radius=None if clusters is None else clusters.choice)
    if clusters is None:
        return _failed("the model gives no hidden states (accuracy only)", None, config, common, started)
    if clusters.overflow:
        return _failed(f"more than {config.max_states} clusters", clusters, config, common, started)
    S, K, C = automaton.n_symbols, clusters.k, automaton.n_classes
    delta, conflicts, conflict_fraction = _majority(ids[:, B:], words[:, B:], K, S)
    unobserved = _refill(tracker, clusters, delta, words, firsts, scale, S, MAX_REFILLS if refills is None else refills)
    votes = label_votes(ids[:, B:], pred[:, B - 1:], K, C)
    labels = np.argmax(votes, axis=1)
    label_conflicts = int(((votes > 0).sum(axis=1) > 1).sum())
    within, between = clusters.bounds()
    extracted, minimal, iso, word, classification = _compare(
        automaton, delta.reshape(K, S).T, int(ids[0, B]), labels, common["start_word"], config.monoid_limit
    )
    ambiguous = clusters.choice is not None and clusters.choice.source == "ambiguous"
    return Extraction(
        status="ambiguous" if ambiguous else "ok", automaton=extracted, minimal=minimal, n_clusters=K,
        within=within, between=between,
        separated=bool(K == 1 or between > within), conflicts=conflicts, conflict_fraction=conflict_fraction,
        unobserved=unobserved, label_conflicts=label_conflicts, isomorphic=iso, distinguishing_word=word,
        distinguishing_text=None if word is None else automaton.format_word(word),
        classification=classification, seconds=_time.perf_counter() - started, **common,
    )
