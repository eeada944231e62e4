"""Certify a trained bilinear network: snap it to exact algebra, prove the snap, bound the horizon.

:func:`certify_network` takes float :class:`~bilinear.constructions.values.weights.Weights` and the
automaton they were trained on and returns a :class:`NetworkCertificate`:

1. **snap** -- exact weights of the same variant close to the trained ones
   (:mod:`bilinear.constructions.horizon.snap`), proved for every word of every length by
   :func:`~bilinear.constructions.proof.prover.prove`; among the first three candidates proved, the one
   with the longest certified horizon is kept;
2. **horizon** -- a length L up to which *every* word is certified correct for the float network
   itself (:func:`~bilinear.constructions.horizon.horizon.certified_horizon`; Theorems 16 and 17 of
   docs/theory.md), a theorem about the network *evaluated in float64* (as ``check`` and the
   search run it: the rounding of every step is charged), and beside it the same bound in real
   arithmetic (the float weights as exact numbers) and in float32 (as torch trains);
3. **failing word** -- the shortest failing word U found by a directed search in float64 and
   then shortened; always ``len(U) > L``.  When the real-arithmetic network is right on U (its
   exact margin is positive), U is reported as a *round-off* failure;
4. **status** -- ``proved`` (the float64 bound holds at every length), ``horizon`` (certified L,
   and no failure found within the test length), ``uncertified`` (the snap is proved but no
   length is certified for the float network, and no failure was found within the test length),
   ``snapped`` (the float network fails within the test length, but its snap is proved),
   ``failed`` (no snap proved).

How to read a certificate: docs/certify.md.

>>> from bilinear.automata.families import from_spec
>>> from bilinear.constructions.handmade.registry import build
>>> from bilinear.constructions.horizon.snap import drift
>>> a = from_spec("cyclic:5")
>>> c = certify_network(drift(build("cyclic:5", "rotation2d"), 0.01, hidden=8), a, search_length=500)
>>> c.status, c.failing_text, c.certified < len(c.failing)
('snapped', '1^63', True)
"""

from __future__ import annotations

from typing import Any

import time
from dataclasses import dataclass, field

from bilinear.argtypes import check_positive_int
from bilinear.constructions.horizon.floatcheck import CheckResult
from bilinear.constructions.values.floatrun import check_compatible
from bilinear.errors import BilinearError, WeightsError

__all__ = ["NetworkCertificate", "certify_network", "TEST_LENGTH", "STATUSES", "ARITHMETIC", "StackCertificate",
           "certify_stack", "stack_horizon"]

#: Default length at which the training protocol tests a network (a run's own ``test_len``
#: replaces it): failing within it means ``snapped``.
TEST_LENGTH = 500
#: The statuses, from best to worst (module docstring).
STATUSES = ("proved", "horizon", "uncertified", "snapped", "failed")
#: The arithmetic of the headline horizon: the one the failing-word search runs in.
ARITHMETIC = "float64"
#: The other arithmetics reported beside it.
ALSO = ("real", "float32")
#: Longest failing word whose exact margin is evaluated in ball arithmetic.
EXACT_WORD_MAX = 4096


@dataclass(frozen=True)
class NetworkCertificate:
    """The outcome of :func:`certify_network` (see the module docstring).

    See Also
    --------
    bilinear.constructions.impossible.certificates.Certificate : an *impossibility* certificate (a word
        pattern no network of a commuting or real-diagonal variant can get right), found from
        the automaton alone; this class is about one trained network's horizon.

    ``horizon`` is the float64 horizon; ``horizons`` maps every arithmetic to its horizon;
    ``failing`` the shortest failing word found (float64), ``failure_kind`` ``"round-off"``
    (the real-arithmetic network is right on it), ``"drift"`` (it fails in real arithmetic too)
    or ``"undecided"``.
    """

    status: str
    variant: str
    hidden: int
    automaton: str
    snap: Any = None
    proof: Any = None
    horizon: Any = None
    horizons: dict = field(default_factory=dict)
    failing: tuple | None = None
    failing_text: str | None = None
    failure_kind: str | None = None
    search_length: int = 0
    attempts: tuple = ()
    seconds: float = 0.0
    test_length: int = TEST_LENGTH
    write_error: str | None = None

    @property
    def certified(self) -> int | None:
        """The certified length of an ``up to`` float64 horizon, else None (``horizon.every``:
        every length; ``horizon.kind == "none"``: no length)."""
        return None if self.horizon is None else self.horizon.length

    def snapped_weights(self):
        """The exact snapped Weights in the trained network's basis (None without a proved snap).

        Entries small enough for the weights file (:meth:`~bilinear.constructions.horizon.snap.Snap.original`)."""
        return None if self.snap is None else self.snap.original()

    def to_json(self) -> dict:
        h = self.horizon
        return {
            "status": self.status,
            "automaton": self.automaton,
            "variant": self.variant,
            "hidden": self.hidden,
            "snap": None if self.snap is None else self.snap.to_json(),
            "snap_proof": None if self.proof is None else self.proof.to_json(),
            "arithmetic": ARITHMETIC,
            "certified_length": None if h is None else h.length,
            "certified_every_length": h is not None and h.every,
            "horizon": None if h is None else h.to_json(),
            "horizons": {k: v.to_json() for k, v in self.horizons.items()},
            "failing_length": None if self.failing is None else len(self.failing),
            "failing_word": self.failing_text,
            "failing_symbols": None if self.failing is None else list(self.failing),
            "failure_kind": self.failure_kind,
            "search_length": self.search_length,
            "test_length": self.test_length,
            "attempts": [{"rule": r, "result": why} for r, why in self.attempts],
            "seconds": self.seconds,
        }

    def to_text(self) -> str:
        lines = [f"certificate of a {self.variant} network (hidden {self.hidden}) on {self.automaton}: {self.status}"]
        if self.proof is None:
            lines.append("snap: no snapped network was proved")
        else:
            d = ", ".join(_distance_text(x) for x in self.snap.distance)
            lines.append(f"snap: {self.snap.rule}: {len(self.snap.kept_coords)} of {self.hidden} dims kept; "
                         f"relative distance per matrix {d}")
            lines.append(f"snap proved for every length: {self.proof.states_explored} pairs, "
                         f"minimum margin {self.proof.margin_float:.4g}")
        for rule, why in self.attempts:
            lines.append(f"  tried {rule}: {why}")
        h = self.horizon
        where = "float network (float64 evaluation, rounding charged)"
        if h is not None and h.every:
            lines.append(f"{where}: correct for every word of every length (proved: {h.note})")
        elif h is not None and h.kind == "none":
            lines.append(f"{where}: no certified length ({h.note})")
        elif h is not None:
            c = h.constants
            detail = ", ".join(f"{name} {c[key]:.3g}" for name, key in
                               (("eps", "epsilon"), ("margin", "margin"), ("rho", "rho")) if key in c)
            lines.append(f"{where}: correct for {h.text()} (certified, {h.bound} bound"
                         + (f"; {detail}" if detail else "") + ")" + (f"; {h.note}" if h.note else ""))
        others = [f"{k}: {v.text()}" + (f" ({v.note})" if v.kind == "none" and v.note else "")
                  for k, v in self.horizons.items() if k != ARITHMETIC]
        if others:
            lines.append("  the same bound in " + "; ".join(others))
        if h is not None and h.every:  # no word can fail, so the search was not run
            lines.append("float network: no word fails (every length is certified above); no failing-word search run")
        elif self.failing is not None:
            assert self.failure_kind is not None  # set together with the failing word
            kind = {"round-off": "a round-off failure: the network in real arithmetic is right on it",
                    "drift": "it fails in real arithmetic too",
                    "undecided": "whether it fails in real arithmetic was not decided"}[self.failure_kind]
            lines.append(f"float network: fails at length {len(self.failing)} on {self.failing_text} "
                         f"(float64 evaluation; {kind})")
        else:
            lines.append(f"float network: no failing word found up to length {self.search_length} "
                         "(directed search in float64)")
        if self.write_error:
            lines.append(f"nothing written: {self.write_error}")
        return "\n".join(lines) + "\n"


def _is_permutation_automaton(automaton) -> bool:
    return all(len(set(int(x) for x in row)) == automaton.n_states for row in automaton.delta)


def _candidates(weights, automaton, failures: list, proved: list):
    """For monomial weights the factor snap and the gauge snap first; then block snaps, then the construction snap
    (dense and monomial variants, or when no block snap was proved) and (dense only) the state-map snap, unless a block snap of a
    permutation automaton is already proved (the state-map snap then adds nothing: its
    matrices are not isometries, and no invariant tube holds for permutations)."""
    from bilinear.constructions.horizon.gauge import gauge_snap
    from bilinear.constructions.horizon.snap import construction_snap, factor_snap, snap_candidates, state_map_snap

    monomial = "perm" in weights.variant_info.info.factor_names
    if monomial:  # PD-SSM: its own factors, rounded, then in a fixed gauge
        try:
            yield factor_snap(weights, automaton)
        except WeightsError as exc:
            failures.append(("the factors snapped", str(exc)))
        try:
            yield gauge_snap(weights, automaton)
        except WeightsError as exc:
            failures.append(("the factors in a fixed gauge", str(exc)))
    try:
        yield from snap_candidates(weights, automaton, failures)
    except WeightsError as exc:
        failures.append(("the block snap", str(exc)))
    if weights.variant_info.info.dense or monomial or not proved:  # the construction read in the network's basis
        try:
            yield construction_snap(weights, automaton)
        except WeightsError as exc:
            failures.append(("the construction read in the network's basis", str(exc)))
    if weights.variant_info.info.dense and not (proved and _is_permutation_automaton(automaton)):
        try:
            yield state_map_snap(weights, automaton)
        except WeightsError as exc:
            failures.append(("the exact map between the states' representatives", str(exc)))


def _best_proved(weights, automaton, bound: int, tries: int = 3):
    """``(snap, proof, horizons, attempts)``: among the first ``tries`` proved snap candidates,
    the one with the longest certified float64 horizon by Theorems 16, 17 and 19 (ties: the smallest
    distance; where the best is a snap that is not an isometry, Theorem 19's loose bound, below the
    node horizon's range, the longer of each candidate's bound and its node horizon);
    its horizons in every arithmetic then also try the node horizon (Theorem 20).  A
    proved candidate whose ceiling (:func:`~bilinear.constructions.horizon.horizon.horizon_ceiling`,
    no balls) is below the longest horizon so far cannot win: it counts as tried, and its horizon
    is not computed."""
    from bilinear.constructions.horizon.horizon import (NODE_BELOW, cannot_represent, certified_horizon,
                                                        horizon_ceiling, node_horizon_widest, with_node_horizon)
    from bilinear.constructions.proof.prover import prove

    failures: list = []
    tried: list[tuple[Any, str]] = []
    proved: list = []
    n_proved = 0
    for snap in _candidates(weights, automaton, failures, proved):
        # once one snap is proved, an alternative gets a smaller search budget
        result = prove(snap.block_weights, automaton, bound=min(bound, 8) if proved else bound)
        if result.status == "proved":
            n_proved += 1
            best = max((x[2].order_key() for x in proved), default=None)
            if best is None or not horizon_ceiling(weights, snap) < best:
                h = certified_horizon(weights, snap, result, automaton, ARITHMETIC, nodes=False)
                proved.append((snap, result, h))
                if h.every:
                    break
            if n_proved == tries:
                break
            continue
        why = (f"counterexample {result.text}" if result.status == "counterexample"
               else "the reachable set outgrew the bound")
        tried.append((snap.rule, why))
    attempts = tuple(failures) + tuple(tried)
    if not proved:
        return None, None, {}, attempts
    snap, proof, h = max(proved, key=lambda x: (x[2].order_key(), -sum(x[0].distance)))
    node = None
    if len(proved) > 1 and h.order_key() < NODE_BELOW and not snap.isometric:  # Theorem 19 led: the node horizon decides
        nodes = [node_horizon_widest(weights, s, p, automaton, x.order_key()) for s, p, x in proved]
        best = max(range(len(proved)), key=lambda i: (max(proved[i][2].order_key(), nodes[i].order_key()),
                                                      -sum(proved[i][0].distance)))
        (snap, proof, h), node = proved[best], nodes[best]
    horizons = {ARITHMETIC: h}
    for arithmetic in ALSO:
        horizons[arithmetic] = certified_horizon(weights, snap, proof, automaton, arithmetic, nodes=False)
    shortest = min((x.order_key() for x in horizons.values() if not cannot_represent(x)), default=NODE_BELOW)
    if shortest < NODE_BELOW:  # the node horizon, run once for all three
        if node is None or node.kind == "none":
            node = node_horizon_widest(weights, snap, proof, automaton, shortest)
        horizons = {a: with_node_horizon(x, weights, snap, proof, automaton, node) for a, x in horizons.items()}
    return snap, proof, horizons, attempts


def _validate(weights, automaton) -> None:
    from bilinear.constructions.values.weights import Weights

    if not isinstance(weights, Weights):
        raise WeightsError(f"certify needs a Weights value, got {type(weights).__name__}")
    if weights.exact:
        raise WeightsError("these weights are exact: prove them with `bilinear verify` instead of certifying")
    check_compatible(weights, automaton)  # the one compatibility check (MismatchError)


def exact_margin_sign(weights, automaton, word) -> int | None:
    """The sign of the smallest margin of the *real-arithmetic* network after ``word`` (its
    float weights as exact numbers, run in ball arithmetic, rescaled by powers of two): +1, -1
    or 0 (a tie), None when the balls do not decide it or the word is longer than
    :data:`EXACT_WORD_MAX`."""
    import math

    import flint

    from bilinear.constructions.exact.balls import arb_matrix, precision

    if len(word) > EXACT_WORD_MAX:
        return None
    A, h0, R = weights.float_arrays()
    q = int(automaton.start)
    with precision(256):
        F = [arb_matrix(A[a]) for a in range(A.shape[0])]
        x = arb_matrix([[v] for v in h0])
        for a in word:
            x = F[a] * x
            q = int(automaton.delta[a, q])
            n = max(abs(float(x[j, 0].mid())) for j in range(x.nrows()))
            if n > 0 and math.isfinite(n):
                x = x * flint.arb(2.0 ** -round(math.log2(n)))  # exact: a power of two
        lab = int(automaton.labels[q])
        scores = arb_matrix(R) * x
        diffs = [scores[lab, 0] - scores[c, 0] for c in range(R.shape[0]) if c != lab]
    if all(d > 0 for d in diffs):
        return 1
    if any(d < 0 for d in diffs):
        return -1
    if all(d > 0 or d.is_zero() for d in diffs):
        return 0
    return None


def _distance_text(x: float) -> str:
    """A snap's relative distance as the report prints it.  It is computed in float64 from the snap
    rounded to floats, so a value under 5e-16 (0 included) only says the true distance is below
    about 1e-15: the exact snap of a float construction differs from its floats by up to 2^-53 per
    entry (sin(2 pi/3)), which float64 shows as 0.

    >>> _distance_text(0.0), _distance_text(2e-16), _distance_text(0.0123)
    ('<1e-15', '<1e-15', '0.0123')
    """
    return "<1e-15" if x < 5e-16 else f"{x:.3g}"


def certify_network(weights, automaton, search_length: int | None = None, test_length: int = TEST_LENGTH,
                    random_words: int = 256, seed: int = 0, bound: int = 64,
                    shorten_seconds: float = 5.0) -> NetworkCertificate:
    """Snap, prove, bound, search and shorten (module docstring).

    ``search_length`` (default: four times the certified length, at least 2000, at most 20000)
    is the length of the words of the directed search; ``test_length`` the length at which the
    network is judged (a run's own test length).  WeightsError for exact weights or weights that
    do not fit the automaton.

    See Also
    --------
    bilinear.constructions.impossible.certificates.certify : an impossibility certificate from the
        automaton alone, ruling out every network of a variant; this function judges one
        trained network.
    """
    from bilinear.constructions.horizon.failsearch import compress_word, search_failure, shorten_failure

    _validate(weights, automaton)
    for name, value in (("search_length", search_length), ("test_length", test_length)):
        if value is not None:
            check_positive_int(value, name, error=WeightsError, maximum=10**6)
    start = time.perf_counter()
    snap, proof, horizons, attempts = _best_proved(weights, automaton, bound)
    horizon = horizons.get(ARITHMETIC)
    L = None if horizon is None else horizon.length
    if search_length is None:
        search_length = 20000 if L is None else min(20000, max(2000, 4 * L))
    floor = max(L or 0, 0)  # no float64 word of length <= L fails (Theorems 16-20): the search skips them
    failing = None
    if horizon is None or not horizon.every:  # every length certified: no word can fail
        failing = search_failure(weights, automaton, search_length, snap, random_words, seed, floor=floor)
    kind = None
    if failing is not None:
        failing = shorten_failure(weights, automaton, failing, seconds=shorten_seconds, floor=floor)
        if horizon is not None and horizon.covers(len(failing)):
            raise BilinearError(  # Theorem 16 / 17 with rounding charged: this cannot happen
                f"internal error: {horizon.text()} certified in float64, yet a word of length "
                f"{len(failing)} fails in float64; please report it")
        real = horizons.get("real")
        if real is not None and real.covers(len(failing)):
            kind = "round-off"
        else:
            sign = exact_margin_sign(weights, automaton, failing)
            kind = "undecided" if sign is None else {1: "round-off", -1: "drift", 0: "drift"}.get(sign, "undecided")
    if proof is None:
        status = "failed"
    elif horizon.every:
        status = "proved"
    elif failing is not None and len(failing) <= test_length:
        status = "snapped"
    elif horizon.kind == "none":
        status = "uncertified"
    else:
        status = "horizon"
    return NetworkCertificate(
        status=status, variant=weights.variant, hidden=weights.dim, automaton=automaton.name or "automaton",
        snap=snap, proof=proof, horizon=horizon, horizons=horizons, failing=failing,
        failing_text=None if failing is None else compress_word(automaton, failing), failure_kind=kind,
        search_length=search_length, attempts=attempts, seconds=time.perf_counter() - start,
        test_length=test_length,
    )


@dataclass(frozen=True)
class StackCertificate:
    """What ``bilinear certify`` says about a float stack of layers (docs/theory.md section 8).

    1. **snap** -- every layer snapped to exact weights of its variant
       (:func:`~bilinear.constructions.horizon.stacksnap.snap_stack`: transition entries to cos(2 pi j / n) within
       a tolerance, start state and readout to dyadic rationals), and the snapped stack proved for
       every word of every length by :func:`~bilinear.constructions.proof.stackprover.prove_stack`
       (Theorem S1);
    2. **horizon** -- Theorem S5, layer by layer: the snapped layer ``l`` run on every word of its
       alphabet (input symbol, class of layer ``l - 1``) is an automaton ``M_l``
       (:func:`~bilinear.constructions.horizon.horizon_stack.layer_automaton`), the float layer is certified
       against it by the one-layer theorems (as :func:`certify_network` does, float64 evaluation,
       rounding charged) up to ``N_l``, and every input word of length at most ``min_l N_l`` is
       certified right for the float stack (``horizon``; ``layer_horizons`` per layer);
    3. **float check** -- directed and random words of ``test_length``, float64; a failing word is
       always longer than the certified length;
    4. **status** -- in :data:`STATUSES`' words: ``proved`` (every layer certified at every length),
       ``horizon`` (a length certified, no failing word in the check), ``uncertified`` (the snap is
       proved, no length certified, no failing word), ``snapped`` (the snap is proved, the float
       stack fails on a word of the check), ``failed`` (no snap was proved: ``reason`` says whether
       a layer had no snap or the snapped stack was refuted).
    """

    status: str
    layers: int
    variant: str
    dims: tuple[int, ...]
    automaton: str
    check: CheckResult
    reason: str
    snap: Any = None  # the StackSnap, or None
    proof: Any = None  # prove_stack's verdict on the snap, or None
    write_error: str | None = None  # why --write wrote nothing
    horizon: Any = None  # the stack's Horizon (Theorem S5, float64), or None when no snap was proved
    layer_horizons: tuple = ()  # per layer: (states of M_l or None, its Horizon)

    @property
    def certified(self) -> int | None:
        """The certified length (None: every length, or none; see ``horizon``)."""
        return None if self.horizon is None else self.horizon.length

    def snapped_weights(self):
        """The proved exact snapped stack (``--write`` saves it), or None."""
        if self.snap is None or self.proof is None or self.proof.status != "proved":
            return None
        return self.snap.stack

    def to_json(self) -> dict:
        h = self.horizon
        return {"status": self.status, "layers": self.layers, "variant": self.variant, "dims": list(self.dims),
                "automaton": self.automaton, "reason": self.reason,
                "snap": None if self.snap is None else self.snap.describe(),
                "proof": None if self.proof is None else self.proof.to_json(),
                "horizon": None if h is None else h.to_json(),
                "certified_length": None if h is None else h.length,
                "every_length": bool(h is not None and h.every),
                "layer_horizons": [{"layer": i + 1, "states": states, **lh.to_json()}
                                   for i, (states, lh) in enumerate(self.layer_horizons)],
                "float_check": self.check.to_json()}

    def to_text(self) -> str:
        fc = self.check
        lines = [f"{self.automaton}: stack of {self.layers} {self.variant} layers (hidden {'+'.join(map(str, self.dims))})",
                 f"  status: {self.status}: {self.reason}"]
        if self.snap is not None:
            lines.append("  snap: " + "; ".join(
                (f"layer {d['layer']}: entries cos(2 pi j / n), conductor {d['conductor']}"
                 + (" (each matrix divided by its spectral norm)" if d["normalised"] else "")
                 + f", largest move {d['max_distance']:.2g}") if d["conductor"] is not None else
                (f"layer {d['layer']}: snapped against its own automaton ({d['rule']}), "
                 f"relative distance {d['max_distance']:.2g}") for d in self.snap.describe()))
        if self.proof is not None:
            lines.append(f"  proof of the snap: {self.proof.status}")
        if self.horizon is not None:
            lines.append(f"  horizon (Theorem S5, float64 evaluation, rounding charged): {self.horizon.text()}"
                         + ("" if self.horizon.certified else f" ({self.horizon.note})"))
            for i, (states, lh) in enumerate(self.layer_horizons):
                about = f"M_{i + 1} of {states} states" if states is not None else "no automaton"
                bound = f", {lh.bound} bound" if lh.bound else ""
                lines.append(f"    layer {i + 1} ({about}): {lh.text()}{bound}" + ("" if lh.certified else f": {lh.note}"))
        else:
            lines.append("  horizon: not certified (no proved snap)")
        lines.append(f"  float check ({fc.directed} directed + {fc.n_words} random words of length {fc.length}, "
                     f"float64): " + (f"no failure up to length {fc.length} on these words" if fc.first_failure is None
                                      else f"accuracy {fc.accuracy:.4f}") + f", worst margin {fc.worst_margin:.3g}"
                     + (f", first failing word {fc.first_failure_text}" if fc.first_failure is not None else ""))
        return "\n".join(lines) + "\n"


def stack_horizon(stack, snapped, bound: int = 64):
    """``(horizon, layer_horizons)`` of Theorem S5 (docs/theory.md section 8) for the float ``stack``
    against its proved exact ``snapped`` stack: per layer, the automaton ``M_l`` of the snapped layer
    over every word of its alphabet and the float layer's certified float64 horizon against it
    (:func:`_best_proved`, as for one layer); the stack's horizon is the shortest of them (every
    length when every layer holds at every length; none when a layer has no certified length)."""
    from bilinear.constructions.horizon.horizon_base import Horizon
    from bilinear.constructions.horizon.horizon_stack import layer_automaton

    per: list = []
    for i, (f, e) in enumerate(zip(stack.layers, snapped.layers)):
        m, why = layer_automaton(e)
        if m is None:
            per.append((None, Horizon.none(ARITHMETIC, f"the snapped layer {i + 1}: {why}")))
            continue
        _, _, horizons, attempts = _best_proved(f, m, bound)
        h = horizons.get(ARITHMETIC)
        if h is None:
            tried = "; ".join(f"{rule}: {why}" for rule, why in attempts[:2]) or "no candidate"
            h = Horizon.none(ARITHMETIC, f"no snap of the float layer {i + 1} is proved against M_{i + 1} ({tried})")
        per.append((m.n_states, h))
    if all(h.every for _, h in per):
        return Horizon.every_length(ARITHMETIC, "S5", "every layer holds at every length"), tuple(per)
    uncertified = [i for i, (_, h) in enumerate(per) if not h.certified]
    if uncertified:
        return Horizon.none(ARITHMETIC, f"layer {uncertified[0] + 1} has no certified length", "S5"), tuple(per)
    short = min((h for _, h in per if not h.every), key=lambda h: h.count)
    which = next(i for i, (_, h) in enumerate(per) if h is short)
    return Horizon.up_to(short.count, ARITHMETIC, "S5", f"the shortest layer horizon, layer {which + 1}'s"), tuple(per)


def certify_stack(stack, automaton, test_length: int = TEST_LENGTH, words: int = 256, seed: int = 0,
                  tol: float | None = None) -> StackCertificate:
    """The certificate of a float :class:`~bilinear.constructions.values.stack.Stack` (see
    :class:`StackCertificate`); ``tol`` the snapping tolerance (default
    :data:`~bilinear.constructions.horizon.stacksnap.STACK_SNAP_TOL`).  WeightsError for exact stacks (prove them
    with ``bilinear verify --weights``) or a stack that does not fit the automaton.

    >>> from bilinear.automata.families import from_spec
    >>> from bilinear.constructions.handmade.cascade import cascade
    >>> from bilinear.constructions.horizon.snap import drift_layers
    >>> a = from_spec("dihedral:3")
    >>> c = certify_stack(drift_layers(cascade(a, "rotation2d"), 1e-6), a, test_length=50, words=16)
    >>> c.status, c.proof.status, c.horizon.text(), c.check.passed
    ('horizon', 'proved', 'every word up to length 2221441', True)
    >>> certify_stack(drift_layers(cascade(a, "rotation2d"), 0.1), a, test_length=50, words=16).status
    'failed'
    """
    from bilinear.constructions.horizon.floatcheck import check
    from bilinear.constructions.horizon.stacksnap import STACK_SNAP_TOL, snap_stack
    from bilinear.constructions.values.stack import Stack
    from bilinear.constructions.proof.stackprover import prove_stack

    if not isinstance(stack, Stack):
        raise WeightsError(f"certify_stack needs a Stack, got {type(stack).__name__}")
    if stack.exact:
        raise WeightsError("this stack is exact: prove it with `bilinear verify SPEC --weights FILE` instead")
    result = check(stack, automaton, length=test_length, words=words, seed=seed)
    failed = result.first_failure is not None
    why: list[str] = []
    snap = snap_stack(stack, STACK_SNAP_TOL if tol is None else tol, failures=why)
    proof = None if snap is None else prove_stack(snap.stack, automaton)
    float_part = (f"the float stack fails on the word {result.first_failure_text} of the float check" if failed else
                  "the float check found no failing word, which is evidence, not a certificate")
    horizon, per = None, ()
    if proof is not None and proof.status == "proved":
        horizon, per = stack_horizon(stack, snap.stack)
        if failed and horizon.covers(len(result.first_failure)):
            raise BilinearError(  # Theorem S5 with rounding charged: this cannot happen
                f"internal error: {horizon.text()} certified for the stack in float64, yet a word of length "
                f"{len(result.first_failure)} fails in float64; please report it")
        status = ("snapped" if failed else "proved" if horizon.every else "horizon" if horizon.certified
                  else "uncertified")
        certified = (f"the float stack is certified for {horizon.text()} (Theorem S5, layer by layer)"
                     if horizon.certified else f"no length is certified for the float stack ({horizon.note})")
        reason = (f"every layer snapped to exact weights and the snapped stack is proved for every word of every "
                  f"length (Theorem S1); {certified}; {float_part}")
    else:
        status = "failed"
        if snap is None or proof is None:
            what = f"no exact snap: {why[0] if why else 'a layer has no snap'}"
        else:
            word = f" on the word {proof.text}" if getattr(proof, "text", None) is not None else ""
            layer = f" (layer {proof.layer})" if getattr(proof, "layer", None) else ""
            what = f"the snapped stack is not proved: {proof.status}{word}{layer}"
        reason = f"{what}; {float_part}"
    return StackCertificate(status, stack.depth, stack.variant, stack.dims, automaton.name or "automaton", result,
                            reason, snap, proof, horizon=horizon, layer_horizons=per)
