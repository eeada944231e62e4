"""Tests of bilinear.automata.families: the registry, spec strings and the generic builders."""

from __future__ import annotations

import pytest
from hypothesis import given

from bilinear.automata import FAMILIES, Automaton, from_permutations, from_spec, from_transformations, parse_spec, product
from bilinear.automata.strategies import FAMILY_STRATEGIES, family_specs
from bilinear.errors import AutomatonError, SpecError


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_every_family_builds_its_examples(name: str) -> None:
    fam = FAMILIES[name]
    assert fam.examples and fam.summary
    for spec in fam.examples:
        a = from_spec(spec)
        assert a.name == spec or a.name.startswith(name)
        assert a.n_states >= 1 and a.n_symbols >= 1


def test_every_family_has_a_strategy() -> None:
    assert set(FAMILY_STRATEGIES) == set(FAMILIES)


@given(family_specs(products=True))
def test_generated_specs_build_and_round_trip(spec: str) -> None:
    a = from_spec(spec)
    assert a.n_states >= 1
    # the name is a spec that builds the same automaton
    assert from_spec(a.name) == a


@pytest.mark.parametrize(
    "spec, states, symbols",
    [
        ("parity", 2, 2),
        ("cyclic:5", 5, 5),
        ("dihedral:6", 12, 2),
        ("symmetric:4", 24, 2),
        ("symmetric:3,alphabet=all", 6, 6),
        ("alternating:4", 12, 2),
        ("alternating:4,alphabet=all", 12, 12),
        ("quaternion", 8, 2),
        ("random:states=7,symbols=3,seed=2", 7, 3),
        ("modarith:4", 4, 8),
        ("flipflop:3", 3, 4),
        ("reset:5", 5, 6),
        ("cyclic:2*cyclic:3", 6, 6),
        ("parity*parity*parity", 8, 8),
    ],
)
def test_family_shapes(spec: str, states: int, symbols: int) -> None:
    a = from_spec(spec)
    assert (a.n_states, a.n_symbols) == (states, symbols)


def test_family_semantics() -> None:
    c = from_spec("cyclic:7")
    assert c.label([3, 5, 6]) == (3 + 5 + 6) % 7
    p = from_spec("parity")
    assert p.classes[p.label("1101")] == "odd"
    m = from_spec("modarith:7")
    assert m.label("+3 *2 +4") == ((3 * 2) + 4) % 7
    f = from_spec("flipflop:3")
    assert f.label("w2 r r w1 r") == 1 and f.label("r") == 0
    q = from_spec("quaternion")
    assert q.classes[q.label("ij")] == "k" and q.classes[q.label("ii")] == "-1"
    r1 = from_spec("random:states=6,symbols=2,seed=3")
    assert r1 == from_spec("random:states=6,symbols=2,seed=3")
    assert r1 != from_spec("random:states=6,symbols=2,seed=4")


@pytest.mark.parametrize(
    "spec, fragment",
    [
        ("cyclic:0", "modulus M=0 must be >= 1"),
        ("modarith:-3", "modulus M=-3 must be >= 1"),
        ("dihedral:0", "N=0 must be >= 1"),
        ("bogus", "unknown family 'bogus'"),
        ("cyclic", "missing parameter M"),
        ("cyclic:", "nothing after ':'"),
        ("cyclic:3,4", "unexpected positional argument '4'"),
        ("cyclic:three", "must be an integer, got 'three'"),
        ("cyclic:3,M=4", "given twice"),
        ("random:states=3", "missing parameter symbols"),
        ("random:states=3,symbols=2,foo=1", "unknown parameter 'foo'"),
        ("cyclic:3**parity", "empty factor"),
        ("", "empty spec"),
        ("symmetric:3,alphabet=some", "alphabet must be"),
        ("symmetric:9", "exceeds the limit 8"),
        ("parity:3", "unexpected positional argument"),
    ],
)
def test_bad_specs(spec: str, fragment: str) -> None:
    with pytest.raises(SpecError) as info:
        from_spec(spec)
    assert fragment in str(info.value)


def test_non_string_spec() -> None:
    with pytest.raises(SpecError, match="must be a string"):
        from_spec(None)  # type: ignore[arg-type]


def test_parse_spec_defaults() -> None:
    fam, kw = parse_spec("random:states=4,symbols=2")
    assert fam.name == "random" and kw == {"states": 4, "symbols": 2, "seed": 0, "perm": 0}


def test_generic_builders_and_their_errors() -> None:
    a = from_permutations([(1, 2, 0)], symbols=["c"])
    assert a.n_states == 3 and a.run("ccc") == 0
    t = from_transformations([(1, 2, 2)], symbols=["inc"])
    assert t.run("inc inc inc inc") == 2
    with pytest.raises(AutomatonError, match="not a permutation"):
        from_permutations([(0, 0, 1)])
    with pytest.raises(AutomatonError, match="generator 1 has length 3, expected 2"):
        from_transformations([(0, 1), (0, 1, 2)])
    with pytest.raises(AutomatonError, match="maps to 5"):
        from_transformations([(0, 5)])
    with pytest.raises(AutomatonError, match="at least one generator"):
        from_transformations([])
    with pytest.raises(AutomatonError, match="at least two factors"):
        product(from_spec("parity"))


# -- the parsed spec attached by from_spec --------------------------------------------------
def test_from_spec_attaches_the_parsed_spec():
    a = from_spec("Cyclic:6")
    assert a.spec.family == "cyclic" and a.spec.param("M") == 6 and a.spec.text == "cyclic:6"
    p = from_spec("cyclic:3*parity*dihedral:4")
    assert p.spec.is_product and [f.family for f in p.spec.factors] == ["cyclic", "parity", "dihedral"]
    assert p.spec.factors[2].param("N") == 4
    s = from_spec("symmetric:3,alphabet=all").spec
    assert s.param("alphabet") == "all" and s.text == "symmetric:3,alphabet=all"
    with pytest.raises(SpecError, match="no parameter 'N'"):
        a.spec.param("N")


def test_spec_is_not_part_of_equality_or_hash():
    a = from_spec("dihedral:5")
    by_hand = Automaton(a.delta, start=a.start, labels=a.labels, symbols=a.symbols, classes=a.classes)
    assert by_hand.spec is None and a.spec is not None
    assert a == by_hand and hash(a) == hash(by_hand) and len({a, by_hand}) == 1
    again = by_hand.with_spec(a.spec)
    assert again.spec == a.spec and again == a and by_hand.spec is None
    with pytest.raises(AttributeError):
        a.spec = None


def test_spec_shape_matches_every_family() -> None:
    from bilinear.automata.families import FAMILIES, parse_spec, spec_shape

    specs = [ex for f in FAMILIES.values() for ex in f.examples]
    specs += ["symmetric:2", "alternating:3", "symmetric:4,alphabet=all", "alternating:5,alphabet=all"]
    for spec in specs:
        family, kwargs = parse_spec(spec)
        a = from_spec(spec)
        assert spec_shape(family.name, kwargs) == (a.n_states, a.n_symbols), spec


@pytest.mark.parametrize("factors", [6, 50])
def test_a_huge_product_is_refused_from_the_specs_before_building(factors: int, monkeypatch) -> None:
    """cyclic:10000 six times took 6.5 GB and 49 s building the factors before the size check."""
    import dataclasses

    import bilinear.automata.families as fam

    def no_build(M):  # pragma: no cover - the point is that it is never called
        raise AssertionError("a factor was built before the size check")

    monkeypatch.setitem(fam.FAMILIES, "cyclic", dataclasses.replace(fam.FAMILIES["cyclic"], build=no_build))
    with pytest.raises(AutomatonError, match=r"would have [\d,]+ states x [\d,]+ symbols .*MAX_PRODUCT_ENTRIES"):
        from_spec("*".join(["cyclic:7000"] * factors))
