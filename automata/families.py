"""Automaton families: one registry, reachable from spec strings.

A spec is ``name[:args]`` where ``args`` is a comma-separated list of positional values followed
by ``key=value`` pairs, e.g. ``cyclic:5``, ``symmetric:4,alphabet=all``,
``random:states=6,symbols=3,seed=1,perm=1``.  ``A*B`` is the direct product (product alphabet:
each symbol acts on every factor at once), e.g. ``cyclic:2*cyclic:3``.

Group families are *Cayley automata* (the word problem): the states are the group elements, the
start state is the identity, reading ``g`` right-multiplies, and the label of a state is the
element itself.  ``cyclic:M`` labels by the sum mod M, ``parity`` by the number of ``1`` mod 2.

>>> from_spec("dihedral:4").n_states
8
>>> from_spec("cyclic:2*cyclic:3").symbols[:3]
('(0,0)', '(0,1)', '(0,2)')
>>> sorted(FAMILIES)[:4]
['alternating', 'cycle_navigation', 'cyclic', 'dihedral']
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

from bilinear.errors import SpecError

from .automaton import Automaton
from .builders import (MAX_FACTORS, MAX_GROUP_ORDER, MAX_PRODUCT_ENTRIES, MAX_TABLE_ENTRIES, _check_factor_count,
                       _check_product_size, _check_table_size, _short, _symmetric_generators, cayley_automaton,
                       cycle_notation, from_permutations, from_transformations, product)
from .tasks import _cycle_navigation, _even_pairs, _gridworld, _modular_arithmetic, _permutation_reset
from .spec import PRODUCT, Spec

__all__ = [
    "Family",
    "Param",
    "FAMILIES",
    "from_spec",
    "check_spec",
    "canonical_spec",
    "spec_shape",
    "MAX_PRODUCT_ENTRIES",
    "MAX_TABLE_ENTRIES",
    "MAX_FACTORS",
    "parse_spec",
    "split_product",
    "from_permutations",
    "from_transformations",
    "cayley_automaton",
    "product",
    "MAX_GROUP_ORDER",
    "MAX_PARAM_DIGITS",
    "resolve",
    "is_automaton_file",
    "parse_cycles",
]

#: Most digits of an integer parameter in a spec (checked before converting it).
MAX_PARAM_DIGITS = 18


def spec_shape(family: str, params: dict) -> tuple[int, int]:
    """``(states, symbols)`` of the automaton a parsed spec names, without building it.

    >>> spec_shape("modarith", {"M": 7}), spec_shape("symmetric", {"N": 4, "alphabet": "all"})
    ((7, 14), (24, 24))
    """
    p = params
    if family in ("symmetric", "alternating"):
        order = math.factorial(p["N"]) // (1 if family == "symmetric" else 2)
        if p.get("alphabet") == "all":
            return order, order
        return order, 1 if p["N"] == (2 if family == "symmetric" else 3) else 2
    shapes = {
        "parity": lambda: (2, 2), "quaternion": lambda: (8, 2),
        "cyclic": lambda: (p["M"], p["M"]), "dihedral": lambda: (2 * p["N"], 2),
        "random": lambda: (p["states"], p["symbols"]), "modarith": lambda: (p["M"], 2 * p["M"]),
        "flipflop": lambda: (p["N"], p["N"] + 1), "reset": lambda: (p["N"], p["N"] + 1),
        "even_pairs": lambda: (5, 2), "cycle_navigation": lambda: (p["N"], 3),
        "gridworld": lambda: (p["N"], 2),
        "modular_arithmetic": lambda: ({1: 3, 2: 11}.get(p["M"], 2 * p["M"] ** 2 + 2 * p["M"] + 1), p["M"] + 3),
        "permutation_reset": lambda: (math.factorial(p["N"]), math.factorial(p["N"]) + (2 if p["N"] > 2 else 1)),
    }
    return shapes[family]()


# --------------------------------------------------------------------------------------------
# Families
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Param:
    """One parameter of a family: integer with bounds, optional default."""

    name: str
    help: str
    minimum: int = 1
    maximum: int | None = None
    default: int | None = None  # None: required
    shown_at_default: bool = True  # False: left out of the canonical spec at its default (perm=0)

    def check(self, family: str, value: int) -> int:
        if value < self.minimum:
            what = "modulus" if self.name == "M" else "parameter"
            raise SpecError(
                f"{family}: {what} {self.name}={value} must be >= {self.minimum}"
            )
        if self.maximum is not None and value > self.maximum:
            raise SpecError(f"{family}: parameter {self.name}={value} exceeds the limit {self.maximum}")
        return value


@dataclass(frozen=True)
class Family:
    """A family of automata: a builder, its parameters, and one line of meaning."""

    name: str
    summary: str
    params: tuple[Param, ...]
    build: Callable[..., Automaton] = field(repr=False)
    examples: tuple[str, ...] = ()

    @property
    def usage(self) -> str:
        """How to write a spec of this family, e.g. ``cyclic:M`` or
        ``random:states=INT,symbols=INT[,seed=0][,perm=0]`` (optional parts in brackets)."""
        required, optional = [], []
        for p in self.params:
            if p.name == "alphabet":
                optional.append("alphabet=all")
            elif p.default is not None:
                optional.append(f"{p.name}={p.default}")
            else:
                required.append(p.name if p.name.isupper() else f"{p.name}=INT")
        text = self.name + (":" + ",".join(required) if required else "")
        marks = [",", ","] if required else [":", ","]  # the first optional part opens the arguments
        return text + "".join(f"[{marks[min(i, 1)]}{o}]" for i, o in enumerate(optional))


def _dihedral(N: int) -> Automaton:
    # element r^k s^j as (k, j); (k1,j1)(k2,j2) = (k1 + (-1)^j1 k2, j1 + j2)
    elements = [(k, j) for j in (0, 1) for k in range(N)]
    index = {e: i for i, e in enumerate(elements)}

    def mul(x, y):
        (k1, j1), (k2, j2) = x, y
        return ((k1 + (k2 if j1 == 0 else -k2)) % N, (j1 + j2) % 2)

    gens = [(1 % N, 0), (0, 1)]
    delta = [[index[mul(e, g)] for e in elements] for g in gens]

    def nm(e):
        k, j = e
        r = "e" if k == 0 and j == 0 else ("" if k == 0 else ("r" if k == 1 else f"r^{k}"))
        if j:
            r = (r + " s").strip()
        return r

    return Automaton(delta, symbols=("r", "s"), classes=[nm(e) for e in elements], name=f"dihedral:{N}")


def _cyclic(M: int) -> Automaton:
    # row a is (a + q) mod M: a window of 0..M-1 written twice (no M^2 modulo operations)
    delta = np.lib.stride_tricks.sliding_window_view(np.tile(np.arange(M), 2), M)[:M]
    return Automaton(delta, symbols=[str(a) for a in range(M)], name=f"cyclic:{M}")


def _parity() -> Automaton:
    return Automaton([[0, 1], [1, 0]], symbols=("0", "1"), classes=("even", "odd"), name="parity")


def _alternating_generators(N: int) -> list[tuple[int, ...]]:
    three = tuple([1, 2, 0] + list(range(3, N)))
    if N == 3:
        return [three]
    if N % 2:
        long = tuple(list(range(1, N)) + [0])  # (0 1 ... N-1), even for odd N
    else:
        long = tuple([0] + list(range(2, N)) + [1])  # (1 2 ... N-1), even for even N
    return [three, long]


def _group_family(kind: str, N: int, alphabet: str) -> Automaton:
    gens = _symmetric_generators(N) if kind == "symmetric" else _alternating_generators(N)
    spec = f"{kind}:{N}" + (",alphabet=all" if alphabet == "all" else "")
    if alphabet == "generators":
        names = [cycle_notation(g) for g in gens]
        return from_permutations(gens, symbols=names, name=spec)
    base = from_permutations(gens)
    # every element as a symbol: the Cayley automaton of the group w.r.t. all its elements
    elements = [parse_cycles(c, N) for c in base.classes]
    return from_permutations(elements, symbols=list(base.classes), name=spec)


def parse_cycles(text: str, N: int) -> tuple[int, ...]:
    """The permutation of ``0..N-1`` (array form) written in cycle notation, ``e`` the identity.

    >>> parse_cycles("(0 1 2)", 4)
    (1, 2, 0, 3)
    """
    perm = list(range(N))
    if text == "e":
        return tuple(perm)
    for cyc in re.findall(r"\(([^)]*)\)", text):
        pts = [int(x) for x in cyc.split()]
        for a, b in zip(pts, pts[1:] + pts[:1]):
            perm[a] = b
    return tuple(perm)


def _quaternion() -> Automaton:
    # elements as (sign, unit) with unit in 1,i,j,k; multiplication table of the unit quaternions
    units = ["1", "i", "j", "k"]
    table = {  # unit product: (sign, unit)
        ("1", "1"): (1, "1"), ("1", "i"): (1, "i"), ("1", "j"): (1, "j"), ("1", "k"): (1, "k"),
        ("i", "1"): (1, "i"), ("i", "i"): (-1, "1"), ("i", "j"): (1, "k"), ("i", "k"): (-1, "j"),
        ("j", "1"): (1, "j"), ("j", "i"): (-1, "k"), ("j", "j"): (-1, "1"), ("j", "k"): (1, "i"),
        ("k", "1"): (1, "k"), ("k", "i"): (1, "j"), ("k", "j"): (-1, "i"), ("k", "k"): (-1, "1"),
    }
    elements = [(s, u) for s in (1, -1) for u in units]
    index = {e: i for i, e in enumerate(elements)}

    def mul(x, y):
        sign, unit = table[(x[1], y[1])]
        return (x[0] * y[0] * sign, unit)

    gens = [(1, "i"), (1, "j")]
    delta = [[index[mul(e, g)] for e in elements] for g in gens]
    names = [("" if s > 0 else "-") + u for s, u in elements]
    return Automaton(delta, symbols=("i", "j"), classes=names, name="quaternion")


def _random(states: int, symbols: int, seed: int, perm: int) -> Automaton:
    rng = np.random.default_rng(seed)
    if perm:
        delta = np.stack([rng.permutation(states) for _ in range(symbols)])
    else:
        delta = rng.integers(0, states, size=(symbols, states))
    spec = f"random:states={states},symbols={symbols},seed={seed}" + (",perm=1" if perm else "")
    return Automaton(delta, symbols=[str(a) for a in range(symbols)], name=spec)


def _modarith(M: int) -> Automaton:
    x = np.arange(M)
    rows = [(x + b) % M for b in range(M)] + [(x * a) % M for a in range(M)]
    names = [f"+{b}" for b in range(M)] + [f"*{a}" for a in range(M)]
    return Automaton(np.stack(rows), symbols=names, name=f"modarith:{M}")


def _flipflop(N: int) -> Automaton:
    # a write is a reset to the written value and a read changes nothing (the identity): the same
    # transition table, start and labels as reset:N, kept as its own family for the names
    x = np.arange(N)
    rows = [np.full(N, v) for v in range(N)] + [x]
    return Automaton(np.stack(rows), symbols=[f"w{v}" for v in range(N)] + ["r"], name=f"flipflop:{N}")


def _reset(N: int) -> Automaton:
    x = np.arange(N)
    rows = [np.full(N, v) for v in range(N)] + [x]
    return Automaton(np.stack(rows), symbols=[f"reset{v}" for v in range(N)] + ["id"], name=f"reset:{N}")


_ALPHABET = Param("alphabet", "generators (default) or all: every element is a symbol", default=0,
                  shown_at_default=False)

FAMILIES: dict[str, Family] = {
    f.name: f
    for f in [
        Family("parity", "Z_2: the number of 1s mod 2 (symbols 0, 1; the Chomsky benchmark's parity check)", (), _parity, ("parity",)),
        Family(
            "cyclic",
            "Z_M: the sum of the symbols 0..M-1 mod M",
            (Param("M", "modulus", 1, 10_000),),
            _cyclic,
            ("cyclic:3", "cyclic:5"),
        ),
        Family(
            "dihedral",
            "D_N, the symmetries of an N-gon: rotation r and reflection s; label = group element",
            (Param("N", "number of rotations", 1, MAX_GROUP_ORDER // 2),),
            _dihedral,
            ("dihedral:4", "dihedral:5"),
        ),
        Family(
            "symmetric",
            "S_N: a transposition and an N-cycle as symbols (alphabet=all: every permutation); label = permutation",
            (Param("N", "number of points", 2, 8), _ALPHABET),
            lambda N, alphabet="generators": _group_family("symmetric", N, alphabet),
            ("symmetric:3", "symmetric:4"),
        ),
        Family(
            "alternating",
            "A_N: even permutations from two generators (alphabet=all: every element); label = permutation",
            (Param("N", "number of points", 3, 8), _ALPHABET),
            lambda N, alphabet="generators": _group_family("alternating", N, alphabet),
            ("alternating:4", "alternating:5"),
        ),
        Family("quaternion", "Q_8, the quaternion group, generated by i and j; label = element", (), _quaternion, ("quaternion",)),
        Family(
            "random",
            "a seeded random state machine (perm=1: every symbol a permutation); label = state",
            (
                Param("states", "number of states", 1, 100_000),
                Param("symbols", "number of symbols", 1, 1_000),
                Param("seed", "random seed", 0, None, 0),
                Param("perm", "1: permutations only", 0, 1, 0, shown_at_default=False),
            ),
            _random,
            ("random:states=5,symbols=2,seed=0", "random:states=4,symbols=2,seed=1,perm=1"),
        ),
        Family(
            "modarith",
            "the affine monoid x -> a*x + b mod M (symbols +b and *a): a solvable semigroup",
            (Param("M", "modulus", 1, 1_000),),
            _modarith,
            ("modarith:3", "modarith:5"),
        ),
        Family(
            "flipflop",
            "an N-valued flip-flop: write symbols w0..w(N-1) store a value, r reads it (aperiodic; "
            "the automaton of reset:N with its symbols renamed)",
            (Param("N", "number of values", 1, 10_000),),
            _flipflop,
            ("flipflop:2",),
        ),
        Family(
            "reset",
            "N states with a reset to each state and an identity symbol (aperiodic)",
            (Param("N", "number of states", 1, 10_000),),
            _reset,
            ("reset:3",),
        ),
        Family(
            "even_pairs",
            "Chomsky even pairs: whether the number of 01 and 10 pairs in a binary word is even (even) or odd",
            (),
            _even_pairs,
            ("even_pairs",),
        ),
        Family(
            "cycle_navigation",
            "Chomsky cycle navigation: the position on a circle of N points after steps -1, 0, +1",
            (Param("N", "number of points on the circle", 1, 10_000, 5),),
            _cycle_navigation,
            ("cycle_navigation:5",),
        ),
        Family(
            "modular_arithmetic",
            "Chomsky modular arithmetic without brackets: the value mod M of n op n ... n with + - *"
            " (* first); error for a malformed word",
            (Param("M", "modulus", 1, 30, 5),),
            _modular_arithmetic,
            ("modular_arithmetic:5",),
        ),
        Family(
            "gridworld",
            "synthseq gridworld: the cell of N in a row after moves left (0) and right (1), stopped at the walls",
            (Param("N", "number of cells", 1, 10_000, 9),),
            _gridworld,
            ("gridworld:9",),
        ),
        Family(
            "permutation_reset",
            "synthseq permutation reset: a permutation of N points, reset by one symbol per permutation"
            " or moved by (0 1) and (0 ... N-1)",
            (Param("N", "number of points", 2, 6),),
            _permutation_reset,
            ("permutation_reset:3",),
        ),
    ]
}

_ALPHABET_VALUES = {"generators": "generators", "gens": "generators", "all": "all"}


def split_product(spec: str) -> list[str]:
    """The factor specs of a product spec (a one-element list for a plain spec)."""
    if not isinstance(spec, str):
        raise SpecError(f"a spec must be a string, got {type(spec).__name__}")
    if not spec.strip():
        raise SpecError("empty spec: name a family, e.g. cyclic:3 (see `bilinear families`)")
    _check_factor_count(spec.count("*") + 1)  # before splitting: 20,000 factors took 21.6 s
    parts = [p.strip() for p in spec.split("*")]
    if any(not p for p in parts):
        raise SpecError(f"malformed product spec {spec!r}: empty factor")
    return parts


def parse_spec(spec: str) -> tuple[Family, dict]:
    """Parse one (non-product) family spec into its family and keyword arguments.

    >>> fam, kw = parse_spec("random:states=4,symbols=2,seed=7")
    >>> fam.name, kw
    ('random', {'states': 4, 'symbols': 2, 'seed': 7, 'perm': 0})
    """
    if not isinstance(spec, str) or not spec.strip():
        raise SpecError(f"empty or non-string spec {spec!r}")
    text = spec.strip()
    name, _, argtext = text.partition(":")
    name = name.strip().lower()
    if name not in FAMILIES:
        raise SpecError(f"unknown family {name!r} in spec {spec!r} (known: {', '.join(sorted(FAMILIES))})")
    family = FAMILIES[name]
    if _ and not argtext.strip():
        raise SpecError(f"malformed spec {spec!r}: nothing after ':'")
    by_name = {p.name.lower(): p for p in family.params}
    values: dict[str, object] = {}
    positional = [p for p in family.params]
    pos_index = 0
    if argtext.strip():
        for raw in argtext.split(","):
            item = raw.strip()
            if not item:
                raise SpecError(f"malformed spec {spec!r}: empty argument")
            if "=" in item:
                key, _, val = item.partition("=")
                key = key.strip().lower()
                if key not in by_name:
                    raise SpecError(
                        f"unknown parameter {key!r} for family {name!r} in spec {spec!r} "
                        f"(parameters: {', '.join(p.name for p in family.params) or 'none'})"
                    )
                param = by_name[key]
                if param.name in values:
                    raise SpecError(f"parameter {param.name!r} given twice in spec {spec!r}")
            else:
                if pos_index >= len(positional) or not positional[pos_index].name.isupper():
                    raise SpecError(f"unexpected positional argument {item!r} in spec {spec!r}")
                param, val = positional[pos_index], item
                pos_index += 1
            val = val.strip()
            if param is _ALPHABET:
                if val.lower() not in _ALPHABET_VALUES:
                    raise SpecError(f"alphabet must be 'generators' or 'all', got {val!r} in spec {spec!r}")
                values[param.name] = _ALPHABET_VALUES[val.lower()]
                continue
            if not re.fullmatch(r"[+-]?[0-9]+", val):  # ASCII digits only: not cyclic:٣
                raise SpecError(f"parameter {param.name} of {name!r} must be an integer, got {_short(val)!r} "
                                f"in spec {_short(spec)!r}")
            if len(val.lstrip("+-")) > MAX_PARAM_DIGITS:
                raise SpecError(f"parameter {param.name} of {name!r} has {len(val.lstrip('+-'))} digits "
                                f"(the limit is {MAX_PARAM_DIGITS})")
            values[param.name] = param.check(name, int(val))
    for p in family.params:
        if p.name not in values:
            if p is _ALPHABET:
                continue
            if p.default is None:
                raise SpecError(f"spec {spec!r} is missing parameter {p.name} ({p.help})")
            values[p.name] = p.default
    if "alphabet" in values and values["alphabet"] == "all":
        limit = 6 if name == "symmetric" else 7
        if int(values["N"]) > limit:  # type: ignore[call-overload]
            raise SpecError(f"{name}:N,alphabet=all is limited to N <= {limit}")
    return family, values


def is_automaton_file(text) -> bool:
    """Whether a SPEC argument names an automaton file rather than a family spec: it ends in
    ``.json``, contains a path separator, or names an existing file while its first word is no
    family (so ``parity`` stays the family even beside a file called ``parity``).

    >>> is_automaton_file("my.json"), is_automaton_file("cyclic:5"), is_automaton_file("./x")
    (True, False, True)
    """
    if not isinstance(text, (str, os.PathLike)):
        return False
    text = os.fspath(text).strip()
    if not text:
        return False
    if text.lower().endswith(".json") or os.sep in text or (os.altsep and os.altsep in text):
        return True
    family = re.split(r"[:*]", text, maxsplit=1)[0].strip().lower()
    return family not in FAMILIES and os.path.isfile(text)


def resolve(spec_or_path) -> Automaton:
    """The automaton a SPEC argument names: a family spec (:func:`from_spec`) or an automaton
    file (:func:`~bilinear.automata.fileformat.read`, docs/formats.md; see :func:`is_automaton_file`).  Every command
    that takes a SPEC goes through here (``from_spec`` too), so a file works wherever a spec does.

    >>> resolve("cyclic:3").n_states
    3
    """
    if is_automaton_file(spec_or_path):
        from .fileformat import read

        return read(os.fspath(spec_or_path).strip())
    return _from_family_spec(spec_or_path)
def check_spec(spec: str) -> tuple[int, int]:
    """Validate a spec (products with ``*``) without building anything: SpecError for a bad
    spec, AutomatonError for a product past :data:`MAX_PRODUCT_ENTRIES`; returns the
    ``(states, symbols)`` the automaton would have.  Cheap where :func:`from_spec` of
    ``cyclic:7000`` fills a 4.9·10^7-entry table; a table past :data:`MAX_TABLE_ENTRIES`
    (``cyclic:10000``) is refused here.

    >>> check_spec("cyclic:7000"), check_spec("parity*dihedral:3")
    ((7000, 7000), (12, 4))
    """
    parts = split_product(spec)
    shapes = [spec_shape(family.name, kwargs) for family, kwargs in map(parse_spec, parts)]
    _check_shapes(parts, shapes)
    return math.prod(a for a, _ in shapes), math.prod(b for _, b in shapes)


def _check_shapes(parts: Sequence[str], shapes: Sequence[tuple[int, int]]) -> None:
    """Each factor's table against :data:`MAX_TABLE_ENTRIES`, a product's against
    :data:`MAX_PRODUCT_ENTRIES`: from the specs, before anything is built."""
    for part, (states, symbols) in zip(parts, shapes):
        _check_table_size(part, states, symbols)
    if len(shapes) > 1:
        _check_product_size([a for a, _ in shapes], [b for _, b in shapes], [p.strip() for p in parts])


def canonical_spec(spec) -> str:
    """The one way of writing the automaton a spec names (docs/formats.md, "Canonical specs"):
    parsed, then printed with the family's name in lower case, positional parameters (``M``,
    ``N``) by value and the others as ``key=value`` in the family's order, every integer in plain
    decimal, defaults written out except the switches ``alphabet=generators`` and ``perm=0``;
    factors of a product each canonical, joined by ``*``.  It is the name ``from_spec`` gives the
    automaton, decided without building it; run folders, a sweep's grid and reports use it, so
    ``cyclic:3``, ``cyclic:03`` and ``CYCLIC:3`` are one automaton everywhere.  An automaton file
    is its path (stripped).  A bad spec raises what :func:`parse_spec` raises.

    >>> canonical_spec("CYCLIC:03"), canonical_spec(" cycle_navigation "), canonical_spec("parity * Cyclic:+3")
    ('cyclic:3', 'cycle_navigation:5', 'parity*cyclic:3')
    >>> canonical_spec("random:symbols=2,states=5,perm=0"), canonical_spec("symmetric:4,alphabet=gens")
    ('random:states=5,symbols=2,seed=0', 'symmetric:4')
    """
    if is_automaton_file(spec):
        return os.fspath(spec).strip()
    return "*".join(_canonical_factor(*parse_spec(part)) for part in split_product(spec))


def _canonical_factor(family: Family, values: dict) -> str:
    positional, keywords = [], []
    for p in family.params:
        if p.name not in values:
            continue  # alphabet left out: the generators
        value = values[p.name]
        if not p.shown_at_default and value in (p.default, "generators"):
            continue
        if p.name.isupper():
            positional.append(str(value))
        else:
            keywords.append(f"{p.name}={value}")
    args = positional + keywords
    return family.name + (":" + ",".join(args) if args else "")


def from_spec(spec: str) -> Automaton:
    """Build the automaton a spec string names (products with ``*``); a string naming an
    automaton file loads it (see :func:`resolve`).

    >>> a = from_spec("symmetric:4")
    >>> a.n_states, a.symbols
    (24, ('(0 1)', '(0 1 2 3)'))
    """
    return resolve(spec)


def _from_family_spec(spec: str) -> Automaton:
    """The automaton of a family spec (products with ``*``), carrying its parsed spec."""
    parts = split_product(spec)
    parsed = [parse_spec(part) for part in parts]
    # every table's size from the specs, before building any
    _check_shapes(parts, [spec_shape(family.name, kwargs) for family, kwargs in parsed])
    built, specs = [], []
    for part, (family, kwargs) in zip(parts, parsed):
        automaton = family.build(**kwargs)
        built.append(automaton)
        specs.append(Spec(family.name, tuple(sorted(kwargs.items())), (), automaton.name or part.strip()))
    if len(built) == 1:
        return built[0].with_spec(specs[0])
    name = "*".join(a.name for a in built)
    return product(*built, name=name).with_spec(Spec(PRODUCT, (), tuple(specs), name))
