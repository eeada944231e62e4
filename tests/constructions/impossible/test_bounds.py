"""Lower bounds on d (Theorems 13-15 of docs/theory.md) and how matrix / verify report them."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

from bilinear.automata import Automaton, from_spec
from bilinear.cli import main
from bilinear.automata.groups import group_shape
from bilinear.constructions.impossible.bounds import _prime_power_sum, lower_bound, monomial_bound, unit_group
from bilinear.constructions.capability import capability_matrix
from plain_eval import start_distances

THEORY = Path(__file__).resolve().parents[3] / "docs" / "theory.md"


@pytest.mark.parametrize("spec, variant, bound, theorem", [
    ("parity", "full", 1, "Theorem 13"),
    ("parity", "block:2", 2, "Theorem 13"),
    ("parity", "rotation2d", 2, "Theorem 13"),
    ("flipflop:2", "full", 2, "Theorem 13"),  # two states, but w0 merges them
    ("cyclic:7", "full", 2, "Theorem 13"),
    ("dihedral:9", "full", 2, "Theorem 13"),
    ("cyclic:2*cyclic:2", "full", 2, "Theorem 13"),
    ("cyclic:2*cyclic:2", "rotation2d", 4, "Theorem 14"),  # positive determinants: cyclic only
    ("cyclic:2*cyclic:4", "full", 3, "Theorem 14"),
    ("parity*parity*parity", "full", 3, "Theorem 14"),
    ("cyclic:6*cyclic:4", "full", 3, "Theorem 14"),
    ("quaternion", "full", 3, "Theorem 14"),
    ("quaternion", "block:2", 4, "Theorem 14"),
    ("symmetric:4", "full", 3, "Theorem 14"),
    ("alternating:4", "full", 3, "Theorem 14"),
    ("alternating:5", "full", 3, "Theorem 14"),
    ("modarith:3", "full", 3, "Theorem 15"),
    ("modarith:3", "block:2", 4, "Theorem 15"),
    ("modarith:6", "full", 3, "Theorem 15"),
    ("reset:6", "full", 2, "Theorem 13"),
    ("random:states=5,symbols=2,seed=0", "full", 2, "Theorem 13"),
    # householder:K,nonneg: every factor has determinant 1 - beta >= 0 (positive on U)
    ("dihedral:4", "householder:3,nonneg", 3, "Theorem 14"),
    ("dihedral:5", "householder:5,nonneg", 3, "Theorem 14"),
    ("cyclic:2*cyclic:2", "householder:3,nonneg", 3, "Theorem 14"),
    ("dihedral:4", "householder:3", 2, "Theorem 13"),  # beta up to 2: reflections, det < 0 allowed
    ("cyclic:5", "householder:3,nonneg", 2, "Theorem 13"),  # a cyclic U: Theorem 14 allows d = 2
])
def test_lower_bounds(spec, variant, bound, theorem):
    b, thm, reason = lower_bound(spec, variant)
    assert (b, thm) == (bound, theorem) and reason


def test_group_shapes():
    def units(spec):
        return unit_group(from_spec(spec))[1]

    assert group_shape(units("cyclic:6")) == "cyclic"
    assert group_shape(units("cyclic:2*cyclic:3")) == "cyclic"
    assert group_shape(units("dihedral:5")) == "dihedral"
    assert group_shape(units("cyclic:2*cyclic:2")) == "dihedral"  # D_2
    assert group_shape(units("symmetric:3")) == "dihedral"  # S_3 = D_3
    for spec in ("quaternion", "alternating:4", "cyclic:2*cyclic:4", "parity*parity*parity"):
        assert group_shape(units(spec)) == "other"


def test_theorem_13_by_exhaustion_on_two_state_automata():
    # d = 1: h is a scalar, each symbol multiplies it by a non-zero real.  Enumerate every
    # 2-state, 2-symbol automaton with two classes; a d = 1 network (signs of the multipliers,
    # start sign, readout (1, -1)) exists iff the bound says 1.
    for t in range(16):
        table = [[(t >> 0) & 1, (t >> 1) & 1], [(t >> 2) & 1, (t >> 3) & 1]]
        a = Automaton(table)
        from bilinear.automata import minimize

        m = minimize(a)
        computable = False
        for signs in ((1, 1), (1, -1), (-1, 1), (-1, -1)):
            state_sign = {0: 1}
            ok, frontier = True, [0]
            while frontier and ok:
                q = frontier.pop()
                for s in range(2):
                    q2, sg = int(a.delta[s, q]), state_sign[q] * signs[s]
                    if q2 in state_sign:
                        ok &= state_sign[q2] == sg
                    else:
                        state_sign[q2] = sg
                        frontier.append(q2)
            # two reachable states must have different signs (distinct classes)
            ok &= len(set(state_sign.values())) == len(state_sign)
            computable |= ok
        assert (lower_bound(a, "full")[0] == 1) == computable or m.n_states == 1


def test_every_proved_matrix_cell_has_dim_and_a_cited_lower_bound(default_matrix):
    # `bilinear matrix --json` prints default_matrix.to_json() (tests/constructions/test_matrix.py
    # checks the command's JSON against the matrix on smaller tables); settled once per session
    data = json.loads(json.dumps(default_matrix.to_json()))
    theorems = set(re.findall(r"^### (Theorem [A-Z]?\d+)", THEORY.read_text(encoding="utf-8"), re.M))
    proved = [c for row in data["cells"] for c in row if c["status"] == "proved"]
    assert len(proved) >= 40
    for c in proved:
        assert isinstance(c["dim"], int) and isinstance(c["lower_bound"], int)
        assert 1 <= c["lower_bound"] <= c["dim"]
        assert c["lower_bound_theorem"] in theorems and c["lower_bound_reason"]
        assert c["minimal"] == (c["lower_bound"] == c["dim"])
    by = {(c["spec"], c["variant"]): c for row in data["cells"] for c in row}
    assert by[("quaternion", "full")]["lower_bound"] == 3 and by[("quaternion", "full")]["dim"] == 4
    assert by[("symmetric:4", "full")]["minimal"] and by[("modarith:3", "full")]["minimal"]
    assert by[("quaternion", "block:2")]["status"] == "open" and by[("quaternion", "block:2")]["lower_bound"] == 4


def test_matrix_and_verify_texts():
    m = capability_matrix(["quaternion", "cyclic:5"], ["full", "block:2"])
    assert m.cell("quaternion", "full").summary == "proved d=4 (lower bound 3)"
    assert m.cell("cyclic:5", "full").summary == "proved d=2 (minimal)"
    assert m.cell("quaternion", "block:2").summary == "open (d>=4)"


def test_verify_text_says_minimal(capsys):
    assert main(["verify", "symmetric:4", "full"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("symmetric:4 full: proved, d=3 (minimal)")
    assert "Theorem 14" in out
    assert main(["verify", "quaternion", "full"]) == 0
    assert "d=4 (lower bound 3)" in capsys.readouterr().out


def test_bounds_never_exceed_a_proved_construction():
    from bilinear.constructions import prove
    from bilinear.constructions import build

    for spec in ("cyclic:4*cyclic:6", "dihedral:6", "symmetric:3", "reset:4", "modarith:4",
                 "random:states=6,symbols=3,seed=2", "alternating:5"):
        a = from_spec(spec)
        for variant in ("full", "block:2", "rotation2d"):
            try:
                w = build(a, variant)
            except Exception:
                continue
            assert prove(w, a).status == "proved"
            assert lower_bound(a, variant)[0] <= w.dim


def test_unit_group_reports_constants():
    m, units, constant = unit_group(from_spec("modarith:3"))
    assert constant and units.shape == (6, 3)
    m, units, constant = unit_group(from_spec("cyclic:4"))
    assert not constant and units.shape == (4, 4)
    assert np.array_equal(np.sort(units, axis=1), np.tile(np.arange(4), (4, 1)))


def test_theorem_15_needs_exactly_three_permutations():
    """A 3-cycle with a reset: the units are {id, r, r^2}, three of them (a cyclic group, which
    Theorem 14 allows), and a constant map: Theorem 15 excludes d = 2 (|U| = 3 > 2).  Without
    the reset the same rotation is computed with d = 2 (Theorem 13's bound)."""
    rot_reset = Automaton([[1, 2, 0], [0, 0, 0]], labels=[0, 1, 2])
    assert unit_group(rot_reset)[1].shape[0] == 3
    b, thm, reason = lower_bound(rot_reset, "full")
    assert (b, thm) == (3, "Theorem 15") and "3 permutations" in reason
    assert lower_bound(Automaton([[1, 2, 0]], labels=[0, 1, 2]), "full")[:2] == (2, "Theorem 13")


def test_unit_group_without_a_constant_map():
    """A 4-cycle and x -> x mod 2: every product keeps two points apart (an adjacent pair goes to
    an adjacent pair, and x mod 2 keeps one apart), so no word is a constant map."""
    m, units, constant = unit_group(Automaton([[1, 2, 3, 0], [0, 1, 0, 1]], labels=[0, 1, 2, 3]))
    assert m.n_states == 4 and units.shape == (4, 4) and not constant


def test_theorems_14_and_15_need_a_class_per_state():
    """A_4 on four points: with a class per point Theorem 14 excludes d = 2; with the class
    "is it point 3" the theorem's hypothesis fails (four states, two classes) and it is not cited."""
    table = [[1, 2, 0, 3], [0, 2, 3, 1]]
    assert lower_bound(Automaton(table, labels=[0, 1, 2, 3]), "full")[:2] == (3, "Theorem 14")
    assert lower_bound(Automaton(table, labels=[0, 0, 0, 1]), "full")[1] not in ("Theorem 14", "Theorem 15")


def _least_cycle_total(N: int) -> int:
    """The least sum of positive integers whose lcm is a multiple of N, by enumerating the
    partitions of 1, 2, ... (the definition of Theorem F6's count, not its prime-power formula)."""
    from math import lcm

    def partitions(total, largest):
        if total == 0:
            yield ()
            return
        for first in range(min(total, largest), 0, -1):
            for rest in partitions(total - first, first):
                yield (first,) + rest

    for total in range(1, N + 1):
        if any(lcm(*p) % N == 0 for p in partitions(total, total)):
            return total
    raise AssertionError(N)


def test_prime_power_sum_is_the_least_cycle_total():
    assert [_prime_power_sum(N) for N in range(1, 31)] == [_least_cycle_total(N) for N in range(1, 31)]


@pytest.mark.parametrize("spec,variant,bound,theorem", [
    ("modarith:5", "householder:1,nonneg", 3, "Theorem 15"),  # F5 (d >= 2) must not lower it
    ("parity", "householder:1,nonneg", 2, "Theorem F5"),
    ("cyclic:3", "householder:1,nonneg", 2, "Theorem 13"),
    ("reset:3", "monomial", 3, "Theorem F8"),
    ("cyclic:12", "monomial", 5, "Theorem F6"),  # period 12: cycles 3 + 2 (a signed 2-cycle has order 4)
    ("cyclic:9", "monomial", 9, "Theorem F6"),
    ("cyclic:15", "monomial", 8, "Theorem F6"),  # 3 + 5
])
def test_the_2025_families_bounds_take_the_strongest_theorem(spec, variant, bound, theorem):
    assert lower_bound(spec, variant)[:2] == (bound, theorem)


def test_unit_group_of_a_group_has_a_constant_map_only_on_one_state():
    """A permutation of two or more points is never constant: parity's monoid {id, flip} has no
    constant map; on one state every map is constant."""
    assert unit_group(from_spec("parity"))[2] is False
    assert unit_group(from_spec("cyclic:5"))[2] is False
    assert unit_group(Automaton([[0], [0]], labels=[0]))[2] is True


def _words_to_every_transformation(a: Automaton, max_len: int) -> list:
    """One word per transformation of the states reached by words up to ``max_len``, shortest
    first: a word is kept when its action on every state is new, and extended only then (a longer
    word through an action already seen acts as one already kept)."""
    seen, kept, level = set(), [], [()]
    for _ in range(max_len):
        level = [w + (s,) for w in level for s in range(a.n_symbols)]
        fresh = []
        for w in level:
            action = tuple(a.run(list(w), state=q) for q in range(a.n_states))
            if action not in seen:
                seen.add(action)
                fresh.append(w)
        kept += fresh
        level = fresh
    return kept


def _monomial_need_by_words(a: Automaton, max_len: int) -> int:
    """Theorem F6's bound recomputed from words instead of the monoid: for every word w up to
    ``max_len`` (enough to reach every transformation of these small machines; one word per
    transformation) and every state q reachable in the automaton as given (not minimised), the
    labels along q.w^n around their cycle; their minimal period P is the count of distinct
    rotations; the bound is the largest sum of prime powers of P / gcd(P, 2) (1 when there is none)."""
    reach = start_distances(a)
    best = 1
    for w in _words_to_every_transformation(a, max_len):
        for q in reach:
            seen, x = [], q
            while x not in seen:
                seen.append(x)
                x = a.run(list(w), state=x)
            cycle = tuple(int(a.labels[y]) for y in seen[seen.index(x):])
            P = len({cycle[i:] + cycle[:i] for i in range(len(cycle))})
            best = max(best, _prime_power_sum(P // math.gcd(P, 2)))
    return best


#: A start state, a 4-cycle and a 3-cycle: ``a`` resets into the 4-cycle, ``b`` into the 3-cycle, ``c``
#: turns both.  ``c``'s labels have period 4 from the 4-cycle's first state (bound 2), found first,
#: and period 3 from the 3-cycle's (bound 3): no word has period 12, so the bound is 3 only if the
#: search compares each bound with the best bound so far, not with the best period.
BRANCHES = Automaton([[1] * 8, [5] * 8, [0, 2, 3, 4, 1, 6, 7, 5]], labels=list(range(8)), name="branches")


@pytest.mark.parametrize("spec", ["parity", "cyclic:3", "cyclic:4", "cyclic:6", "cyclic:12", "dihedral:4",
                                  "reset:3", "random:states=5,symbols=2,seed=0", "cyclic:2*cyclic:3", "branches"])
def test_monomial_bound_against_words(spec):
    """``monomial_bound`` (over the monoid of the minimal automaton) against the same theorem
    computed from words on the automaton as given; None exactly where that gives 1."""
    a = BRANCHES if spec == "branches" else from_spec(spec)
    want = _monomial_need_by_words(a, 4)
    got = monomial_bound(a)
    assert (got[0] if got is not None else 1) == want


def test_monomial_bound_cites_the_period_it_found():
    """The reason names a state and a label period that give the bound: cyclic:4's labels have
    period 4 (bound 2); parity's period 2 gives no bound (a sign flip is a 1 x 1 monomial)."""
    bound, reason = monomial_bound("cyclic:4")
    assert bound == 2 and "period 4" in reason and "from state 0" in reason
    assert monomial_bound("parity") is None
    assert lower_bound("parity", "monomial")[0] == 1


def test_nonneg_householder_factors_have_non_negative_determinants():
    """The fact the ``nonneg`` rows of Theorem 14 rest on, on random products in d = 2 and 3:
    det(I - beta v v^T / v^T v) = 1 - beta, so a product of factors with beta in [0, 1] has a
    determinant >= 0, where beta in (1, 2] makes it negative."""
    from bilinear.constructions.values.factored import householder_compose

    rng = np.random.default_rng(11)
    for d in (2, 3):
        V = rng.normal(size=(200, 3, d))
        beta = rng.uniform(0, 1, size=(200, 3))
        dets = np.linalg.det(householder_compose(V, beta, exact=False))
        assert (dets >= -1e-12).all() and np.allclose(dets, np.prod(1 - beta, axis=1))
        flipped = householder_compose(V[:, :1], rng.uniform(1.01, 2, size=(200, 1)), exact=False)
        assert (np.linalg.det(flipped) < 0).all()
