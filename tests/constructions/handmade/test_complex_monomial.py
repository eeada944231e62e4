"""``monomial,complex`` (PD-SSM with complex D, in real form; Theorem F11 of docs/theory.md).

The claims are checked against computations written here: the factors are run as Python complex
numbers (``z'[perm[j]] += (a + i b) z[j]``), not through the real matrices the code composes;
every word up to a length must get the automaton's label as the readout's strict argmax; the exact
prover runs on top.  The lower bounds are checked against a brute-force search for two words
``u a b v`` and ``u b a v`` with different labels (one complex coordinate makes every matrix a
complex scalar, and scalars commute, so such a pair excludes d = 2).
"""

from __future__ import annotations

import itertools
import json
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bilinear.automata import from_spec
from bilinear.automata import minimize
from bilinear.constructions import lower_bound
from bilinear.constructions.handmade.complex_monomial import complex_dihedral, complexify
from bilinear.constructions.values.factored import derive_complex_monomial, monomial_compose, project_monomial
from bilinear.constructions import Proof, prove
from bilinear.constructions import build
from bilinear.constructions import parse_variant
from bilinear.constructions import Weights
from bilinear.errors import ConformanceError, ConstructionError

CV = "monomial,complex"


def complex_logits(w, word) -> list[float]:
    """The network on ``word`` from its factors alone, in Python complex arithmetic."""
    perm, D = w.factors
    m = w.dim // 2
    z = [complex(float(w.h0[2 * j]), float(w.h0[2 * j + 1])) for j in range(m)]
    for s in word:
        out = [0j] * m
        for j in range(m):
            out[int(perm[s, j])] += complex(float(D[s, 2 * j]), float(D[s, 2 * j + 1])) * z[j]
        size = max(abs(x) for x in out)
        z = [x / size for x in out] if size else out
    R = [[float(x) for x in row] for row in w.readout]
    return [sum(r[2 * j] * z[j].real + r[2 * j + 1] * z[j].imag for j in range(m)) for r in R]


def check_every_word(w, spec: str, length: int) -> int:
    a = from_spec(spec)
    checked = 0
    for n in range(length + 1):
        for word in itertools.product(range(a.n_symbols), repeat=n):
            scores = complex_logits(w, word)
            label = a.label(list(word))
            others = [x for c, x in enumerate(scores) if c != label]
            assert scores[label] > max(others) + 1e-9, (spec, word, scores)
            checked += 1
    return checked


def commutation_witness(spec: str, depth: int = 3):
    """``(u, a, b, v)`` with label(u a b v) != label(u b a v), by brute force over short words."""
    a = from_spec(spec)
    S = range(a.n_symbols)
    for n in range(depth + 1):
        for u in itertools.product(S, repeat=n):
            for k in range(depth + 1 - n):
                for v in itertools.product(S, repeat=k):
                    for x, y in itertools.combinations(S, 2):
                        if a.label([*u, x, y, *v]) != a.label([*u, y, x, *v]):
                            return u, x, y, v
    return None


# ------------------------------------------------------------------------------------------
# constructions: complex arithmetic on every short word, then the exact prover
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("spec, dim, length", [
    ("parity", 2, 8), ("cyclic:5", 2, 5), ("cyclic:2*cyclic:3", 2, 5), ("cyclic:4*cyclic:2", 4, 4),
    ("dihedral:3", 4, 7), ("dihedral:5", 4, 7), ("dihedral:7", 4, 7), ("symmetric:3", 4, 7),
    ("quaternion", 4, 7), ("reset:3", 6, 4), ("flipflop:2", 4, 5), ("modarith:3", 6, 4),
])
def test_constructions_compute_their_automaton(spec, dim, length):
    w = build(spec, CV)
    assert w.variant == CV and w.dim == dim
    perm, D = w.factors
    assert perm.shape == (w.n_symbols, dim // 2) and D.shape == (w.n_symbols, dim)
    assert check_every_word(w, spec, length) > 0
    assert isinstance(prove(w, from_spec(spec)), Proof)  # prove raises on a failing word


def test_dihedral_is_a_swap_and_a_diagonal_rotation():
    w = complex_dihedral(from_spec("dihedral:7"))
    perm, D = w.factors
    assert perm.tolist() == [[0, 1], [1, 0]]  # r keeps the coordinates, s swaps them
    r = [complex(float(D[0, 2 * j]), float(D[0, 2 * j + 1])) for j in range(2)]
    assert abs(r[0] * r[1] - 1) < 1e-12 and abs(r[0] ** 7 - 1) < 1e-12 and abs(r[0] - 1) > 0.1  # w^-1, w of order 7
    with pytest.raises(ConstructionError, match="not a dihedral"):
        complex_dihedral(from_spec("cyclic:4"))
    with pytest.raises(ConstructionError, match="needs n >= 3"):
        complex_dihedral(from_spec("dihedral:2"))


def test_dihedral_recognised_from_the_algebra_up_to_the_limit():
    """Z_2 x D_m with m odd is D_2m: found from the algebra of a product spec up to 2 x MAX_N states."""
    from bilinear.constructions.handmade.complex_monomial import MAX_N

    w = complex_dihedral(from_spec("cyclic:2*dihedral:31"))  # 124 states: D_62
    assert w.dim == 4 and 124 <= 2 * MAX_N
    with pytest.raises(ConstructionError, match=r"only up to 2 x 64 states \(D_64\), and this automaton has 132"):
        complex_dihedral(from_spec("cyclic:2*dihedral:33"))
    with pytest.raises(ConstructionError, match="not a dihedral group"):  # 128 states: searched, and not dihedral
        complex_dihedral(from_spec("cyclic:2*dihedral:32"))


def test_complexify_keeps_the_logits_and_refuses_a_dense_matrix():
    real = build("reset:3", "monomial")
    w = complexify(real)
    assert w.dim == 2 * real.dim
    a = from_spec("reset:3")
    for word in itertools.product(range(a.n_symbols), repeat=3):
        h = np.array([float(x) for x in real.h0])
        for s in word:
            h = np.array(real.A[s], dtype=float) @ h
        expected = np.array(real.readout, dtype=float) @ h
        got = np.array(complex_logits(w, word))
        scale = np.abs(h).max()
        np.testing.assert_allclose(got * scale, expected, rtol=1e-12, atol=1e-12)
    with pytest.raises(ConstructionError, match="column 0 of A\\[0\\] has non-zero entries in rows 0 and 1"):
        complexify(build("dihedral:5", "full"))
    with pytest.raises(ConstructionError, match="takes exact weights"):
        complexify(real.to_float())


# ------------------------------------------------------------------------------------------
# lower bounds (Theorem F11) against the brute-force commutation search
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("spec", ["parity", "cyclic:3", "cyclic:5", "cyclic:2*cyclic:3", "cycle_navigation:5",
                                  "dihedral:4", "dihedral:5", "quaternion", "reset:3",
                                  "flipflop:2", "modarith:3", "even_pairs"])
def test_bound_four_exactly_where_two_words_fail_to_commute(spec):
    bound, theorem, reason = lower_bound(spec, CV)
    witness = commutation_witness(spec)
    assert bound == (4 if witness is not None else 2), (spec, bound, witness)
    assert bound % 2 == 0 and reason
    if witness is None:  # then d = 2 is reached: the bound is met
        assert build(spec, CV).dim == 2


def test_bound_reasons_say_why():
    one = lower_bound("parity", CV)
    assert one[:2] == (2, "Theorem 13") and one[2].endswith("; monomial,complex needs an even d")
    two = lower_bound("cyclic:5", CV)
    assert two[:2] == (2, "Theorem 13") and "even" not in two[2]
    reset = lower_bound("reset:3", CV)
    assert reset[:2] == (4, "Theorem F11") and "rotation2d network" in reset[2] and "commut" in reset[2]
    odd = lower_bound("dihedral:5", CV)
    assert odd[:2] == (4, "Theorem 14") and odd[2].endswith("; monomial,complex needs an even d (Theorem F11)")
    assert lower_bound("dihedral:5", "rotation2d")[0] == 4 and lower_bound("cyclic:2*cyclic:2", "rotation2d")[0] == 4


@pytest.mark.parametrize("spec, bound", [("symmetric:4", 6), ("alternating:4", 6), ("alternating:5", 6),
                                         ("quaternion", 4), ("dihedral:5", 4), ("symmetric:3", 4), ("modarith:3", 4)])
def test_theorem_f14_bound_six_exactly_without_an_abelian_subgroup_of_index_two(spec, bound):
    """Theorem F14: with d = 4 the unit group has an abelian subgroup of index <= 2; S_4, A_4 and
    A_5 have none (their bound is 6, and S_4, A_4 are built with 6: minimal), the others have one
    and d = 4 constructions or d = 4 bounds from Theorems 14, 15 and F11."""
    got = lower_bound(spec, CV)
    assert got[0] == bound
    if bound == 6:
        assert got[1] == "Theorem F14" and "index 1 or 2" in got[2]
        if spec != "alternating:5":
            assert build(spec, CV).dim == 6
    else:
        assert got[1] != "Theorem F14"


def test_klein_four_needs_two_coordinates_although_it_commutes():
    """Z_2 x Z_2 commutes, but in one complex coordinate the only scalars of order 2 up to scale
    are the reals, which give two labels along each element, not four (Theorem 14, positive
    determinant): the bound is 4 and the construction meets it."""
    assert commutation_witness("cyclic:2*cyclic:2") is None
    assert lower_bound("cyclic:2*cyclic:2", CV)[0] == 4
    assert build("cyclic:2*cyclic:2", CV).dim == 4


def test_real_monomial_bounds_do_not_apply():
    """Theorem F6 bounds real monomial d by the label periods (Z_5 needs 5); complex blocks
    rotate, so Z_5 is one coordinate."""
    assert lower_bound("cyclic:5", "monomial")[0] == 5
    assert lower_bound("cyclic:5", CV)[0] == 2 and build("cyclic:5", CV).dim == 2
    v = parse_variant(CV)
    assert v.complex and not v.coordinate_map and v.positive_det and v.spectral == "complex"
    assert parse_variant("monomial").coordinate_map and not parse_variant("monomial").positive_det


# ------------------------------------------------------------------------------------------
# conformance: exact and float, with the errors naming the entry
# ------------------------------------------------------------------------------------------
def _weights(A, **kw):
    d = A.shape[1]
    h0 = np.zeros(d, dtype=object)
    h0[...] = 0
    h0[0] = 1
    R = np.zeros((2, d), dtype=object)
    R[...] = 0
    R[0, 0] = 1
    return Weights(CV, A, h0, R, **kw)


def test_derived_factors_and_the_errors():
    A = monomial_compose(np.array([[1, 0], [0, 0]]), np.array([[3, 4, 0, 1], [1, 0, 2, -1]], dtype=object),
                         complex_=True)
    w = _weights(A)
    assert w.factors[0].tolist() == [[1, 0], [0, 0]]
    assert w.factors[1].tolist() == [[3, 4, 0, 1], [1, 0, 2, -1]]
    bad = A.copy()
    bad[0, 3, 1] = 5  # block (1, 0) becomes [[3, -4], [4, 5]]: not a scaled rotation
    with pytest.raises(ConformanceError, match=r"A\[0\]\[3, 1\] = 5 differs from \(P D\)\[3, 1\] = 3"):
        _weights(bad)
    two = A.copy()
    two[1, 2, 0] = 1  # block column 0 of A[1] gets a second block
    with pytest.raises(ConformanceError, match="block column 0 of A\\[1\\].*block rows 0 and 1"):
        _weights(two)
    corner = A.copy()
    corner[1, 3, 1] = 1  # the second block's only non-zero entry in its second row and column
    with pytest.raises(ConformanceError, match="block column 0 of A\\[1\\].*block rows 0 and 1"):
        _weights(corner)
    with pytest.raises(ConformanceError, match="hidden size 3 is odd"):
        _weights(np.eye(3, dtype=object)[None])
    with pytest.raises(ConformanceError, match=r"expected \(2, 2\) and \(2, 4\)"):
        _weights(A, factors=(np.zeros((2, 4), dtype=np.int64), np.zeros((2, 4), dtype=object)))
    with pytest.raises(ConformanceError, match=r"perm\[0, 1\] = 2 is not an integer in \[0, 2\)"):
        _weights(A, factors=(np.array([[1, 2], [0, 0]]), np.array([[3, 4, 0, 1], [1, 0, 2, -1]], dtype=object)))


def test_float_blocks_are_judged_against_their_own_matrix():
    A = monomial_compose(np.array([[1, 0]]), np.array([[0.3, 0.4, 1.0, 0.5]]), exact=False, complex_=True)
    noisy = A.copy()
    noisy[0, 0, 0] += 1e-7  # in an empty block, 1e-7 of the matrix's scale 1: treated as zero
    w = Weights(CV, noisy, np.array([1.0, 0, 0, 0]), np.eye(2, 4))
    assert w.factors[0].tolist() == [[1, 0]] and w.A[0, 0, 0] == 0.0
    worse = A.copy()
    worse[0, 0, 0] += 1e-3
    with pytest.raises(ConformanceError, match="block column 0 of A\\[0\\]"):
        Weights(CV, worse, np.array([1.0, 0, 0, 0]), np.eye(2, 4))


def test_projection_keeps_the_nearest_scaled_rotation_per_block_column():
    rng = np.random.default_rng(0)
    A = rng.normal(size=(2, 6, 6))
    P, (perm, D) = project_monomial(parse_variant(CV), A, None)
    assert derive_complex_monomial(P, False, CV)[0].tolist() == perm.tolist()
    for s in range(2):
        for j in range(3):
            cands = []
            for p in range(3):
                blk = A[s, 2 * p:2 * p + 2, 2 * j:2 * j + 2]
                a, b = (blk[0, 0] + blk[1, 1]) / 2, (blk[1, 0] - blk[0, 1]) / 2
                rot = np.array([[a, -b], [b, a]])
                # distance of the whole block column to this choice
                col = A[s, :, 2 * j:2 * j + 2].copy()
                col[2 * p:2 * p + 2] -= rot
                cands.append((np.linalg.norm(col), p))
            assert perm[s, j] == min(cands)[1]
            p = min(cands)[1]
            blk = A[s, 2 * p:2 * p + 2, 2 * j:2 * j + 2]
            a, b = (blk[0, 0] + blk[1, 1]) / 2, (blk[1, 0] - blk[0, 1]) / 2
            assert (D[s, 2 * j], D[s, 2 * j + 1]) == pytest.approx((a, b), abs=1e-15)
            np.testing.assert_allclose(P[s, 2 * p:2 * p + 2, 2 * j:2 * j + 2], [[a, -b], [b, a]], atol=1e-15)
    assert P.dtype == np.float64 and D.shape == (2, 6) and perm.shape == (2, 3)
    # with factors given, the projection is their composition, in floats
    given = (np.array([[2, 2, 0], [1, 0, 1]]), np.arange(12, dtype=float).reshape(2, 6))
    Q, (gp, gD) = project_monomial(parse_variant(CV), A, given)
    assert Q.dtype == np.float64 and gp.tolist() == given[0].tolist() and gD.tolist() == given[1].tolist()
    np.testing.assert_array_equal(Q, monomial_compose(given[0], given[1], False, complex_=True))
    assert Q[0, 4, 0] == 0.0 and Q[0, 5, 0] == 1.0 and Q[0, 4, 1] == -1.0  # symbol 0, column 0 -> row block 2, (0, 1)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 3), st.integers(1, 3), st.data())
def test_random_factors_round_trip(m, S, data):
    perm = np.array(data.draw(st.lists(st.lists(st.integers(0, m - 1), min_size=m, max_size=m), min_size=S, max_size=S)))
    D = np.array(data.draw(st.lists(st.lists(st.integers(-3, 3), min_size=2 * m, max_size=2 * m), min_size=S,
                                    max_size=S)), dtype=object)
    A = monomial_compose(perm, D, complex_=True)
    got_perm, got_D = derive_complex_monomial(A, True, CV)
    for s in range(S):
        for j in range(m):
            if D[s, 2 * j] != 0 or D[s, 2 * j + 1] != 0:  # a zero entry has no row to read
                assert got_perm[s, j] == perm[s, j]
                assert (got_D[s, 2 * j], got_D[s, 2 * j + 1]) == (D[s, 2 * j], D[s, 2 * j + 1])
    assert (monomial_compose(got_perm, got_D, complex_=True) == A).all()
    # the real form is the complex matrix: A acts on (Re z, Im z) as z -> sum_j D_j z_j at perm_j
    z = [complex(1 + j, 2 - j) for j in range(m)]
    x = np.array([v for c in z for v in (c.real, c.imag)])
    y = np.array(A[0], dtype=float) @ x
    want = [0j] * m
    for j in range(m):
        want[perm[0, j]] += complex(D[0, 2 * j], D[0, 2 * j + 1]) * z[j]
    np.testing.assert_allclose(y, [v for c in want for v in (c.real, c.imag)])


# ------------------------------------------------------------------------------------------
# the command line
# ------------------------------------------------------------------------------------------
def test_verify_and_matrix_commands():
    out = subprocess.run([sys.executable, "-m", "bilinear.cli", "verify", "dihedral:5", CV, "--json"],
                         capture_output=True, text=True, check=True)
    data = json.loads(out.stdout)
    assert data["status"] == "proved" and data["dim"] == 4 and data["minimal"] is True
    out = subprocess.run([sys.executable, "-m", "bilinear.cli", "verify", "cyclic:5", "monomial,complex,complex", "--json"],
                         capture_output=True, text=True)
    # a repeated option is refused, naming it (issue 46, N20: two spellings of one model must not run twice)
    assert out.returncode == 2 and "repeats the option 'complex'" in out.stderr and "Traceback" not in out.stderr
    out = subprocess.run([sys.executable, "-m", "bilinear.cli", "verify", "cyclic:5", "diagonal,complex"],
                         capture_output=True, text=True)
    assert out.returncode != 0 and "no option 'complex'" in out.stderr and "Traceback" not in out.stderr


def test_minimal_automaton_sizes_bound_the_complexified_cells():
    """A proved cell is at most twice the real monomial one (complexified), and at most 2n."""
    for spec in ("even_pairs", "random:states=5,symbols=2,seed=0"):
        n = minimize(from_spec(spec)).n_states
        assert build(spec, CV).dim <= 2 * min(n, build(spec, "monomial").dim)


def test_weights_file_round_trip_and_a_bad_factor(tmp_path):
    w = build("dihedral:5", CV)
    w.save(tmp_path / "w.json")
    back = Weights.load(tmp_path / "w.json")
    assert back.variant == CV and back.factors[0].tolist() == [[0, 1], [1, 0]] and (back.A == w.A).all()
    f = w.to_float()
    f.save(tmp_path / "f.json")
    assert Weights.load(tmp_path / "f.json").factors[0].dtype.kind == "i"
    data = json.loads((tmp_path / "w.json").read_text())
    data.pop("checksum")
    data["factors"]["perm"] = [[0, 1, 0], [1, 0, 0]]  # one index per real coordinate: the wrong shape
    (tmp_path / "bad.json").write_text(json.dumps(data))
    with pytest.raises(ConformanceError, match=r"perm \(2, 3\) and D \(2, 4\), expected \(2, 2\) and \(2, 4\)"):
        Weights.load(tmp_path / "bad.json", allow_unsigned=True)


# ------------------------------------------------------------------------------------------
# certify: the factor snap (PD-SSM's own factors rounded to exact units)
# ------------------------------------------------------------------------------------------
def _noisy(spec: str, variant: str, noise: float, turn: float = 0.0, seed: int = 0) -> Weights:
    """The float copy of a construction with its D entries perturbed (and each complex entry of a
    non-identity symbol turned by ``turn`` radians), rebuilt from its factors: a trained-like
    PD-SSM that keeps the exact pattern."""
    w = build(spec, variant).to_float()
    perm, D = (np.array(f) for f in w.factors)
    rng = np.random.default_rng(seed)
    D = D.astype(float) + noise * rng.normal(size=D.shape)
    if turn:
        z = D[:, 0::2] + 1j * D[:, 1::2]
        z = z * np.exp(1j * turn)
        D[:, 0::2], D[:, 1::2] = z.real, z.imag
    cx = parse_variant(variant).complex
    return Weights(variant, monomial_compose(perm, D, False, complex_=cx), np.asarray(w.h0, dtype=float),
                   np.asarray(w.readout, dtype=float), factors=(perm, D))


def test_factor_snap_recovers_the_construction_and_certifies_a_horizon():
    from bilinear.analysis.certify import certify_network as certify

    from bilinear.constructions.horizon.snap import factor_snap

    f = _noisy("dihedral:5", CV, 1e-7)
    r = certify(f, from_spec("dihedral:5"), search_length=2000)
    # the factor snap, or the same factors in a fixed gauge on the coordinates that persist (smaller distance)
    assert r.status == "horizon" and r.snap.rule.startswith(("the factors snapped", "the factors in a fixed gauge"))
    assert r.horizon.length is not None and r.horizon.length > 10**6
    snap = factor_snap(f, from_spec("dihedral:5"))
    assert (snap.block_weights.A == build("dihedral:5", CV).A).all()  # the exact construction's matrices
    # the certified horizon against the complex evaluator on random words up to length 300
    rng = np.random.default_rng(1)
    a = from_spec("dihedral:5")
    for word in rng.integers(0, 2, size=(40, 300)):
        scores = complex_logits(f, word.tolist())
        assert int(np.argmax(scores)) == a.label(word.tolist())


def test_factor_snap_of_a_drifting_network_is_proved_and_its_failure_is_real():
    """Each complex entry turned by 0.01 rad: the snap (the exact rotation) is proved, the float
    network fails at some length, and that word fails under the independent complex evaluator."""
    from bilinear.analysis.certify import certify_network as certify

    f = _noisy("cyclic:5", CV, 0.0, turn=0.01)
    a = from_spec("cyclic:5")
    r = certify(f, a, search_length=2000)
    assert r.status == "snapped" and r.snap.rule.startswith("the factors snapped") and r.failing is not None
    word = [int(x) for x in r.failing]
    scores = complex_logits(f, word)
    assert int(np.argmax(scores)) != a.label(word)


def test_factor_snap_rounds_and_refuses_with_the_entry_named():
    from bilinear.constructions.horizon.snap import FACTOR_SNAP_ANGLE, factor_snap

    from bilinear.errors import WeightsError

    # symbol 0 (adds 0) turned by 0.13 rad: the nearest roots of unity of order <= 24 are 1 and
    # exp(2 pi i / 24) (0.26 rad), both 0.13 rad away
    f = _noisy("cyclic:5", CV, 0.0, turn=0.13)
    assert 0.13 - FACTOR_SNAP_ANGLE > 0 and 2 * np.pi / 24 - 0.13 > FACTOR_SNAP_ANGLE
    with pytest.raises(WeightsError, match=r"entry 0 of D for symbol 0 \(relative modulus 1, angle 0.1300 rad\) is not "
                                           r"near a root of unity of order q <= 24 \(within min\(0.05, pi / \(2 q\^2\)\) rad\)"):
        factor_snap(f, None)
    real = _noisy("dihedral:5", "monomial", 1e-6)
    s = factor_snap(real, None)
    assert s.isometric and (s.block_weights.A == build("dihedral:5", "monomial").A).all()
    assert "+1 or -1" in s.rule
    # an entry of relative modulus 0.3 snaps to 0, and the snapped matrix is no longer orthogonal
    perm, D = (np.array(x, dtype=float) for x in real.factors)
    D[0, 1] = 0.3
    small = Weights("monomial", monomial_compose(perm.astype(int), D, False), np.asarray(real.h0, dtype=float),
                    np.asarray(real.readout, dtype=float), factors=(perm.astype(int), D))
    s = factor_snap(small, None)
    assert s.block_weights.factors[1][0, 1] == 0 and not s.isometric


def test_real_monomial_factor_shapes_each_checked():
    w = build("dihedral:5", "monomial")
    perm, D = w.factors
    with pytest.raises(ConformanceError, match=r"factors perm \(2, 4\) and D \(2, 5\), expected \(2, 5\)"):
        Weights("monomial", w.A, w.h0, w.readout, factors=(np.asarray(perm)[:, :4], D))
    with pytest.raises(ConformanceError, match=r"factors perm \(2, 5\) and D \(2, 4\), expected \(2, 5\)"):
        Weights("monomial", w.A, w.h0, w.readout, factors=(perm, np.asarray(D)[:, :4]))


def _one_symbol(angles, moduli=None, variant=CV) -> Weights:
    """A float monomial,complex network with one symbol whose coordinate j is multiplied by
    modulus_j exp(i angle_j), perm the identity."""
    m = len(angles)
    moduli = [1.0] * m if moduli is None else moduli
    D = np.array([[v for t, r in zip(angles, moduli) for v in (r * np.cos(t), r * np.sin(t))]])
    perm = np.arange(m)[None, :]
    h0 = np.zeros(2 * m)
    h0[0] = 1.0
    return Weights(variant, monomial_compose(perm, D, False, complex_=True), h0, np.eye(2, 2 * m), factors=(perm, D))


def test_factor_snap_orders_windows_and_limits():
    from bilinear.constructions.exact.field import cos2pi, sin2pi
    from bilinear.constructions.horizon.snap import FACTOR_SNAP_MAX_FIELD, factor_snap, snap_angle
    from bilinear.errors import WeightsError

    # exact roots of orders 11, 12 and 24 snap to those orders (12 is not taken by 11, 0.048 rad away)
    for q in (11, 12, 24):
        s = factor_snap(_one_symbol([2 * np.pi / q]), None)
        assert (s.block_weights.factors[1][0, 0], s.block_weights.factors[1][0, 1]) == (cos2pi(1, q), sin2pi(1, q))
        assert s.rule.endswith(f"order dividing {q})")
    # a drifting order-5 root keeps the full window at low orders
    s = factor_snap(_one_symbol([2 * np.pi / 5 + 0.04]), None)
    assert s.block_weights.factors[1][0, 0] == cos2pi(1, 5)
    # 0.2063 rad is 0.045 from the order-25 root 2 pi / 25, and farther than the windows of
    # every root of order <= 24: refused
    assert all(abs(0.2063 - 2 * np.pi * k / q) > snap_angle(q) for q in range(1, 25) for k in range(-1, q + 1))
    with pytest.raises(WeightsError, match="entry 0 of D for symbol 0 .*angle 0.2063 rad.* not near a root of unity"):
        factor_snap(_one_symbol([0.2063]), None)
    # one field for every entry: orders 8 and 15 share Q(zeta_120), the limit; 23 and 24 need 552
    s = factor_snap(_one_symbol([2 * np.pi / 8, 2 * np.pi / 15]), None)
    assert s.rule.endswith(f"order dividing {FACTOR_SNAP_MAX_FIELD})")
    got = s.block_weights.factors[1][0]
    assert [got[0], got[1], got[2], got[3]] == [cos2pi(1, 8), sin2pi(1, 8), cos2pi(1, 15), sin2pi(1, 15)]
    assert abs(float(got[2]) - np.cos(2 * np.pi / 15)) < 1e-12  # the same number, written in Q(zeta_120)
    # an exact root of order 25 is past the largest order: 2 pi / 24 is 0.0105 rad away, outside its window
    with pytest.raises(WeightsError, match="angle 0.2513 rad"):
        factor_snap(_one_symbol([2 * np.pi / 25]), None)
    with pytest.raises(WeightsError, match="roots of unity of order 552, more than 120"):
        factor_snap(_one_symbol([2 * np.pi / 23, 2 * np.pi / 24]), None)
    # relative modulus exactly 1/2 is kept (a unit), below it the entry is 0
    s = factor_snap(_one_symbol([0.0, 0.0], [1.0, 0.5]), None)
    assert s.block_weights.factors[1][0].tolist() == [1, 0, 1, 0] and s.isometric
    assert s.rule.endswith("order dividing 1)")  # angle 0 is the root of order 1
    s = factor_snap(_one_symbol([0.0, 0.0], [1.0, 0.49]), None)
    assert s.block_weights.factors[1][0].tolist() == [1, 0, 0, 0] and not s.isometric
    # what it refuses: another variant, exact weights, a zero matrix
    with pytest.raises(WeightsError, match="factor snap is for monomial weights"):
        factor_snap(build("cyclic:5", "householder:2").to_float(), None)
    with pytest.raises(WeightsError, match="exact already"):
        factor_snap(build("cyclic:5", CV), None)
    with pytest.raises(WeightsError, match="symbol 0's matrix is zero"):
        factor_snap(_one_symbol([0.0], [0.0]), None)


def test_factor_snap_of_signed_real_entries():
    """Z_4 as signed cycles (real monomial, d = 2, entries -1): the -1 entries snap to -1."""
    from bilinear.constructions.horizon.snap import factor_snap

    exact = build("cyclic:4", "monomial")
    assert any(x == -1 for x in np.asarray(exact.factors[1]).ravel())
    s = factor_snap(_noisy("cyclic:4", "monomial", 1e-3), None)
    assert (s.block_weights.A == exact.A).all() and s.rule.endswith("D to 0 or +1 or -1)")
