"""Theorem S6 (docs/theory.md section 8): ``diagonal`` cascades along the Frattini series, the
counter with a carry (Z_4 in two layers, Z_2^k in k), and the depth verdicts that go with them."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from bilinear.automata import from_spec
from bilinear.cli import main
from bilinear.constructions.handmade.cascade import cascade, frattini_length
from bilinear.constructions.impossible.depth import min_layers
from bilinear.constructions.proof.stackprover import prove_stack
from bilinear.errors import ConstructionError


def _exponent(automaton) -> int:
    """The exponent of the group the symbols generate, by a closure written for the test: every
    element's order, the least common multiple."""
    n = automaton.n_states
    gens = [tuple(int(x) for x in row) for row in automaton.delta]
    identity = tuple(range(n))
    seen, frontier = {identity}, [identity]
    while frontier:
        g = frontier.pop()
        for s in gens:
            h = tuple(s[i] for i in g)
            if h not in seen:
                seen.add(h)
                frontier.append(h)
    orders = []
    for g in seen:
        k, h = 1, g
        while h != identity:
            h, k = tuple(g[i] for i in h), k + 1
        orders.append(k)
    return math.lcm(*orders)


@pytest.mark.parametrize("spec", ["parity", "cyclic:4", "cyclic:8", "cyclic:16", "cyclic:2*cyclic:4"])
def test_the_frattini_length_of_an_abelian_2_group_is_the_log_of_its_exponent(spec):
    """A series with factors of exponent 2 has 2^L >= the exponent, and an abelian 2-group meets it."""
    a = from_spec(spec)
    assert 2 ** frattini_length(a) == _exponent(a)


@pytest.mark.parametrize("spec, depth, dims", [("cyclic:4", 2, (1, 2)), ("cyclic:8", 3, (1, 2, 3)),
                                               ("dihedral:8", 3, (2, 3, 4))])
def test_diagonal_cascades_along_the_frattini_series_are_proved(spec, depth, dims):
    a = from_spec(spec)
    s = cascade(a, "diagonal")
    assert (s.depth, s.dims, s.variant) == (depth, dims, "diagonal")
    assert all(np.all(np.abs(np.asarray(w.A, dtype=float)) == np.eye(w.dim)[None]) for w in s.layers)  # signs
    assert prove_stack(s, a).status == "proved"
    with pytest.raises(ConstructionError, match=f"length of the Frattini series is {depth}"):
        cascade(a, "diagonal", layers=depth - 1)
    assert cascade(a, "rotation2d").depth == (1 if spec.startswith("cyclic") else 2)  # rotations: the derived series


def test_the_derived_series_is_kept_where_its_factors_have_exponent_2():
    q8 = from_spec("quaternion")
    assert cascade(q8, "diagonal").dims == (2, 3)
    assert frattini_length(from_spec("cyclic:3")) is None
    with pytest.raises(ConstructionError, match="character of order > 2"):
        cascade(from_spec("cyclic:6"), "diagonal")  # not a 2-group: no series with factors of exponent 2


def test_min_layers_of_diagonal_layers():
    b = min_layers("cyclic:4", "diagonal")
    assert (b.min_layers, b.derived_length, b.unconditional) == (2, 1, True)
    assert b.excludes(1) == "impossible" and b.excludes(2) is None and "Theorem 7" in b.reason
    b = min_layers("cyclic:8", "diagonal")
    assert (b.min_layers, b.unconditional, b.excludes(2), b.excludes(3)) == (3, False, "open", None)
    assert min_layers("cyclic:8", "rotation2d").min_layers == 1  # one rotation: the derived length
    d4 = min_layers("dihedral:4", "diagonal")  # its derived series serves: Theorem 6, not 7, and no S6
    assert d4.min_layers == 2 and d4.theorem == "Theorem 6 and Theorem S2" and d4.frattini_length is None
    assert min_layers("cyclic:3", "diagonal").min_layers is None


def test_verify_the_counter_with_a_carry(capsys):
    assert main(["verify", "cyclic:4", "diagonal", "--layers", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "proved" and out["layers"] == 2 and out["dims"] == [1, 2]
    main(["verify", "cyclic:4", "diagonal", "--layers", "1", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "impossible" and out["min_layers"] == 2
    assert main(["verify", "cyclic:8", "diagonal", "--layers", "3", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "proved"
    main(["verify", "cyclic:8", "diagonal", "--layers", "2"])
    text = capsys.readouterr().out
    assert "cyclic:8 diagonal: open" in text and "by Theorem S6 no stack of 2 diagonal layers" in text
    main(["verify", "cyclic:8", "rotation2d", "--layers", "2"])  # rotations: no Frattini series
    text = capsys.readouterr().out
    assert "cyclic:8 rotation2d: proved" in text and "S6" not in text
