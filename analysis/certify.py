"""Certify a trained bilinear network: snap it to exact algebra, prove the snap, bound the horizon.

:func:`certify_network` takes float :class:`~bilinear.constructions.weights.Weights` and the
automaton they were trained on and returns a :class:`Certificate`:

1. **snap** -- exact weights of the same variant close to the trained ones
   (:mod:`bilinear.constructions.snap`), proved for every word of every length by
   :func:`~bilinear.constructions.prover.prove`; among the first three candidates proved, the one
   with the longest certified horizon is kept;
2. **horizon** -- a length L up to which *every* word is certified correct for the float network
   itself (:func:`~bilinear.constructions.horizon.perturbation_horizon`; Theorems 16
   and 17 of docs/theory.md), and the shortest failing word U found by a directed search;
3. **status** -- ``proved`` (the bound holds at every length), ``horizon`` (certified L, and the
   network holds at least to the test length), ``snapped`` (the float network fails within the
   test length, but its snap is proved), ``failed`` (no snap proved).

How to read a certificate: docs/certify.md.

>>> from bilinear.automata.families import from_spec
>>> from bilinear.constructions.registry import build
>>> from bilinear.constructions.snap import drift
>>> a = from_spec("cyclic:5")
>>> c = certify_network(drift(build("cyclic:5", "rotation2d"), 0.01, hidden=8), a, search_length=500)
>>> c.status, c.failing_text, c.certified <= len(c.failing)
('snapped', '1^63', True)
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from bilinear.errors import WeightsError

__all__ = ["Certificate", "certify_network", "TEST_LENGTH"]

#: Length at which the training protocol tests a network: failing within it means ``snapped``.
TEST_LENGTH = 500


@dataclass(frozen=True)
class Certificate:
    """The outcome of :func:`certify_network` (see the module docstring)."""

    status: str
    variant: str
    hidden: int
    automaton: str
    snap: object = None
    proof: object = None
    horizon: object = None
    failing: tuple | None = None
    failing_text: str | None = None
    search_length: int = 0
    attempts: tuple = ()
    seconds: float = 0.0
    test_length: int = TEST_LENGTH

    @property
    def certified(self) -> int | None:
        """Every word up to this length is right (None: every length; -1: not even the empty word)."""
        return None if self.horizon is None else self.horizon.length

    def snapped_weights(self):
        """The exact snapped Weights in the trained network's basis (None without a proved snap)."""
        return None if self.snap is None else self.snap.original()

    def to_json(self) -> dict:
        return {
            "status": self.status,
            "automaton": self.automaton,
            "variant": self.variant,
            "hidden": self.hidden,
            "snap": None if self.snap is None else self.snap.to_json(),
            "snap_proof": None if self.proof is None else self.proof.to_json(),
            "certified_length": None if self.horizon is None else self.horizon.length,
            "certified_every_length": self.status == "proved",
            "horizon": None if self.horizon is None else self.horizon.to_json(),
            "failing_length": None if self.failing is None else len(self.failing),
            "failing_word": self.failing_text,
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
            d = ", ".join(f"{x:.3g}" for x in self.snap.distance)
            lines.append(f"snap: {self.snap.rule}: {len(self.snap.kept_coords)} of {self.hidden} dims kept; "
                         f"relative distance per matrix {d}")
            lines.append(f"snap proved for every length: {self.proof.states_explored} pairs, "
                         f"minimum margin {self.proof.margin_float:.4g}")
        for rule, why in self.attempts:
            lines.append(f"  tried {rule}: {why}")
        h = self.horizon
        if h is not None and h.length is None:
            lines.append(f"float network: correct for every word of every length (proved: {h.note})")
        elif h is not None and h.length < 0:
            lines.append(f"float network: no certified length ({h.note})")
        elif h is not None:
            cert = f"every word up to length {h.length}"
            lines.append(f"float network: correct for {cert} (certified, {h.bound} bound; eps {h.epsilon:.3g}, "
                         f"margin {h.margin:.3g}, rho {h.rho:.3g})" + (f"; {h.note}" if h.note else ""))
        if self.failing is not None:
            lines.append(f"float network: fails at length {len(self.failing)} on {self.failing_text}")
        elif self.status != "proved":
            lines.append(f"float network: no failing word found up to length {self.search_length}")
        return "\n".join(lines) + "\n"


def _is_permutation_automaton(automaton) -> bool:
    return all(len(set(int(x) for x in row)) == automaton.n_states for row in automaton.delta)


def _candidates(weights, automaton, failures: list, proved: list):
    """Block snaps, then (``full`` only) the state-map snap, unless a block snap of a
    permutation automaton is already proved (the state-map snap then adds nothing: its
    matrices are not isometries, and no invariant tube holds for permutations)."""
    from bilinear.constructions.snap import snap_candidates, state_map_snap

    try:
        yield from snap_candidates(weights, automaton, failures)
    except WeightsError as exc:
        failures.append(("the block snap", str(exc)))
    if weights.variant_info.info.dense and not (proved and _is_permutation_automaton(automaton)):
        try:
            yield state_map_snap(weights, automaton)
        except WeightsError as exc:
            failures.append(("the exact map between the states' representatives", str(exc)))


def _horizon_of(weights, snap, proof, automaton):
    """The invariant tube where it can hold (no neutral 2x2 rotation plane kept), else the
    perturbation horizon (isometric snaps), else no certified length."""
    from bilinear.constructions.horizon import Horizon, invariant_tube, perturbation_horizon

    planes = snap.isometric and any(len(snap.blocks[i]) == 2 for i in snap.kept)
    radius = None if planes else invariant_tube(weights, snap, proof, automaton)
    if radius is not None:
        h = perturbation_horizon(weights, snap, proof, automaton) if snap.isometric else None
        fields = {} if h is None else {k: getattr(h, k) for k in ("epsilon", "gamma", "beta", "rho", "margin",
                                                                    "lipschitz_kept", "lipschitz_dropped", "start_error")}
        base = dict(epsilon=0.0, gamma=0.0, beta=0.0, rho=0.0, margin=0.0, lipschitz_kept=0.0,
                    lipschitz_dropped=0.0, start_error=0.0)
        base.update(fields)
        return Horizon(None, **base, note=f"invariant tube of radius {radius:.3g} around the snapped states")
    if snap.isometric:
        return perturbation_horizon(weights, snap, proof, automaton)
    return Horizon(-1, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
                   note="the snapped matrices are not isometries and no invariant tube was found")


def _best_proved(weights, automaton, bound: int, tries: int = 3):
    """``(snap, proof, horizon, attempts)``: among the first ``tries`` proved snap candidates,
    the one with the longest certified horizon (ties: the smallest distance)."""
    from bilinear.constructions.prover import prove

    failures: list = []
    attempts, proved = [], []
    for snap in _candidates(weights, automaton, failures, proved):
        # once one snap is proved, an alternative gets a smaller search budget
        result = prove(snap.block_weights, automaton, bound=min(bound, 8) if proved else bound)
        if result.status == "proved":
            h = _horizon_of(weights, snap, result, automaton)
            proved.append((snap, result, h))
            if len(proved) == tries or h.length is None:
                break
            continue
        why = (f"counterexample {result.text}" if result.status == "counterexample"
               else "the reachable set outgrew the bound")
        attempts.append((snap.rule, why))
    attempts = tuple(failures) + tuple(attempts)
    if not proved:
        return None, None, None, attempts
    key = lambda x: (float("inf") if x[2].length is None else x[2].length, -sum(x[0].distance))  # noqa: E731
    snap, proof, horizon = max(proved, key=key)
    return snap, proof, horizon, attempts


def _validate(weights, automaton) -> None:
    from bilinear.constructions.weights import Weights

    if not isinstance(weights, Weights):
        raise WeightsError(f"certify needs a Weights value, got {type(weights).__name__}")
    if weights.exact:
        raise WeightsError("these weights are exact: prove them with `bilinear verify` instead of certifying")
    if weights.n_symbols != automaton.n_symbols or weights.n_classes != automaton.n_classes:
        raise WeightsError(
            f"weights have {weights.n_symbols} symbols and {weights.n_classes} classes, automaton "
            f"{automaton.name} has {automaton.n_symbols} and {automaton.n_classes}"
        )


def certify_network(weights, automaton, search_length: int | None = None, test_length: int = TEST_LENGTH,
                    random_words: int = 256, seed: int = 0, bound: int = 64) -> Certificate:
    """Snap, prove, bound and search (module docstring).

    ``search_length`` (default: four times the certified length, at least 2000, at most 20000)
    is the length of the words of the directed search.  WeightsError for exact weights or weights
    that do not fit the automaton.
    """
    from bilinear.constructions.horizon import compress_word, search_failure

    _validate(weights, automaton)
    if search_length is not None and (isinstance(search_length, bool) or not isinstance(search_length, int)
                                      or not 1 <= search_length <= 10**6):
        raise WeightsError(f"search_length must be an integer in 1..1000000, got {search_length!r}")
    start = time.perf_counter()
    snap, proof, horizon, attempts = _best_proved(weights, automaton, bound)
    L = None if horizon is None else horizon.length
    if search_length is None:
        search_length = 20000 if L is None else min(20000, max(2000, 4 * max(L, 0)))
    failing = None
    if L is None or L < 10**6:
        failing = search_failure(weights, automaton, search_length, snap, random_words, seed)
    if proof is None:
        status = "failed"
    elif horizon.length is None:
        status = "proved"
    elif failing is not None and len(failing) <= test_length:
        status = "snapped"
    else:
        status = "horizon"
    return Certificate(
        status=status, variant=weights.variant, hidden=weights.dim, automaton=automaton.name or "automaton",
        snap=snap, proof=proof, horizon=horizon, failing=failing,
        failing_text=None if failing is None else compress_word(automaton, failing),
        search_length=search_length, attempts=attempts, seconds=time.perf_counter() - start,
        test_length=test_length,
    )
