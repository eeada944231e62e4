"""Hostile weights files (issue 25): the network proved is the file's own, or the output says it
is not; the float check always runs on the file as written."""

from __future__ import annotations

import json

import pytest

from bilinear.cli import main
from bilinear.constructions import Weights
from bilinear.errors import ConformanceError, WeightsError

AUTOMATON = {"format": "bilinear.automaton", "version": 1, "states": 1, "symbols": ["a"], "delta": [[0]],
             "labels": [0], "classes": ["x", "y"]}


def _files(tmp_path, variant="diagonal", readout_x=1e-7):
    """One state labelled x; the file's network: h0 = (0, 1), A = [[1, 1e-6], [0, 1]], so after
    one symbol h = (1e-6, 1) and class y (score 1e-6) beats x (score ``readout_x`` < 1e-6).  The
    off-diagonal 1e-6 is within the float tolerance of the block scale 1: the loader used to set
    it to 0 and prove the identity network instead."""
    aut = tmp_path / "one.json"
    aut.write_text(json.dumps(AUTOMATON))
    weights = {"format": "bilinear.weights", "version": 1, "variant": variant, "exact": False,
               "A": [[[1, 1e-6], [0, 1]]], "h0": [0, 1], "readout": [[0, readout_x], [1, 0]]}
    path = tmp_path / "w.json"
    path.write_text(json.dumps(weights))
    return aut, path


@pytest.mark.parametrize("variant", ["diagonal", "block:1"])
def test_a_file_that_conforms_only_within_the_tolerance_is_refused(tmp_path, capsys, variant):
    aut, path = _files(tmp_path, variant)
    for extra in ([], ["--float"]):
        assert main(["verify", str(aut), "--weights", str(path), "--unsigned", *extra]) == 2
        err = capsys.readouterr().err
        assert "A[0][0, 1] = 1e-06 is not what variant" in err and "--project" in err and err.count("\n") == 1
    with pytest.raises(ConformanceError, match="largest change to make it conform is 1e-06"):
        Weights.load(path, allow_unsigned=True)
    # the constructor still snaps (documented): only a file must be its own network
    assert Weights(variant, [[[1, 1e-6], [0, 1]]], [0, 1], [[0, 1e-7], [1, 0]]).A[0, 0, 1] == 0


def test_block2_file_within_the_tolerance_is_refused_too(tmp_path, capsys):
    aut, path = _files(tmp_path)
    data = json.loads(path.read_text())
    data.update(variant="block:1")
    path.write_text(json.dumps(data))
    assert main(["verify", str(aut), "--weights", str(path), "--unsigned"]) == 2
    # an off-block entry of block:2 (hidden 4) within the tolerance
    data = {"format": "bilinear.weights", "version": 1, "variant": "block:2", "exact": False,
            "A": [[[1, 0, 1e-6, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]], "h0": [0, 0, 1, 0],
            "readout": [[0, 0, 0, 1e-7], [1, 0, 0, 0]]}
    path.write_text(json.dumps(data))
    assert main(["verify", str(aut), "--weights", str(path), "--unsigned"]) == 2
    assert "A[0][0, 2] = 1e-06" in capsys.readouterr().err


def test_project_says_whose_network_was_proved_and_float_checks_the_file(tmp_path, capsys):
    aut, path = _files(tmp_path)
    assert main(["verify", str(aut), "--weights", str(path), "--unsigned", "--project"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("one diagonal: proved for the projected weights (largest change 1e-06)")
    assert "not the file's own" in out
    # the float check runs on the file as written: it fails after one symbol, exit 1
    assert main(["verify", str(aut), "--weights", str(path), "--unsigned", "--project", "--float",
                 "--words", "10", "--length", "20"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("one diagonal: FAILS the float check (accuracy 0.0000) on a")
    assert "exact verdict: proved for the projected weights" in out
    assert main(["verify", str(aut), "--weights", str(path), "--unsigned", "--project", "--json"]) == 0
    projection = json.loads(capsys.readouterr().out)["projection"]
    assert projection["largest_change"] == pytest.approx(1e-6) and projection["onto"] == "diagonal"


def test_float_check_finds_a_late_failure_of_the_file(tmp_path, capsys):
    """Readout x = 1e-3: the file's network says x until the first coordinate, 1e-6 * n after n
    symbols, passes 1e-3, from length 1000 on; the projection is right at every length."""
    aut, path = _files(tmp_path, readout_x=1e-3)
    assert main(["verify", str(aut), "--weights", str(path), "--unsigned", "--project", "--float",
                 "--words", "4", "--length", "1200", "--json"]) == 1
    fc = json.loads(capsys.readouterr().out)["float_check"]
    assert not fc["passed"] and fc["first_failure"] == "a^1000"


def test_a_saved_file_still_loads_as_itself(tmp_path):
    w = Weights("rotation2d", [[[0.6, -0.8], [0.8, 0.6]]], [1.0, 0.0], [[1.0, 0.0], [0.0, 1.0]])
    w.save(tmp_path / "r.json")
    assert Weights.load(tmp_path / "r.json") == w


def test_a_construction_past_the_size_limit_is_refused_before_allocating(capped_cli):
    """``verify modarith:1000 full``: the one-hot construction (hidden 1000, 2000 symbols) asked
    numpy for 14.9 GiB and died with a traceback; now one line, exit 2, under a 6 GB cap."""
    proc = capped_cli("verify", "modarith:1000", "full", "--time-budget", "5")
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert "2,000,000,000 matrix entries (about 44.7 GiB as exact weights)" in proc.stderr
    assert "MAX_WEIGHT_ENTRIES = 50,000,000" in proc.stderr


def test_a_smaller_construction_is_still_found_beside_a_too_large_one_hot():
    """The limit skips only the construction past it: cyclic:M has its rotation (d = 2)."""
    from bilinear.automata import Automaton
    from bilinear.constructions.values import weights as wmod
    from bilinear.constructions import build
    from bilinear.errors import ConstructionTooLargeError

    old = wmod.MAX_WEIGHT_ENTRIES
    wmod.MAX_WEIGHT_ENTRIES = 50
    try:
        assert build("cyclic:7", "full").dim == 2
        with pytest.raises(ConstructionTooLargeError, match="98 matrix entries"):
            build(Automaton([[1, 2, 3, 4, 5, 6, 0], [0, 0, 0, 0, 0, 0, 1]], labels=list(range(7))), "full")
    finally:
        wmod.MAX_WEIGHT_ENTRIES = old


def test_two_large_conductors_are_refused_before_their_common_field(tmp_path, capped_cli):
    """Conductors 99991 and 99989 meet only in Q(zeta_9998000099): FLINT aborted (exit 134) or a
    10^10-entry list was allocated; now refused at load, and by the arithmetic itself."""
    from bilinear.constructions import CyclotomicField
    from bilinear.errors import FieldError

    def z(m):
        return {"field": f"cyclotomic:{m}", "coeffs": [0, 1]}

    path = tmp_path / "w.json"
    path.write_text(json.dumps({"format": "bilinear.weights", "version": 1, "variant": "full", "exact": True,
                                "A": [[[z(99991), z(99989)], [0, 1]], [[1, 0], [0, 1]]], "h0": [1, 0],
                                "readout": [[1, 0], [0, 1]]}))
    proc = capped_cli("verify", "parity", "full", "--weights", path, "--unsigned")
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert "(conductors 99991 and 99989) meet only in Q(zeta_9998000099)" in proc.stderr
    assert proc.stderr.count("\n") == 1
    a, b = CyclotomicField(99991).element([0, 1]), CyclotomicField(99989).element([0, 1])
    with pytest.raises(FieldError, match="combine only in Q.zeta_9998000099., over the conductor limit"):
        a + b
    with pytest.raises(FieldError, match="must be in 1..100000"):
        a.embed(99991 * 2)
    assert (CyclotomicField(5).element([0, 1]) * CyclotomicField(3).element([0, 1])).field.m == 15


def _cycle_file(tmp_path, n):
    path = tmp_path / f"cycle{n}.json"
    path.write_text(json.dumps({"format": "bilinear.automaton", "version": 1, "states": n, "symbols": ["a"],
                                "delta": [[(i + 1) % n for i in range(n)]], "labels": [int(i == 0) for i in range(n)]}))
    return path


def test_the_certificate_search_on_a_long_cycle_is_near_linear_and_one_line(tmp_path, capsys):
    """``verify cycle50000.json diagonal``: the shortest words were stored whole (quadratic memory,
    5.6 GB then a MemoryError) and each BFS level re-joined every earlier one; the label cycle
    was printed whole.  A 3,000-state cycle shows the certificate, its label line cut."""
    path = _cycle_file(tmp_path, 3000)
    assert main(["verify", str(path), "diagonal"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("cycle3000 diagonal: impossible")
    assert "labels along g^n = 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 [2,968 more] ... " \
           "(period 3000 from n=0)" in out


def test_the_certificate_search_honours_the_time_budget(tmp_path, capped_cli):
    proc = capped_cli("verify", _cycle_file(tmp_path, 50_000), "diagonal", "--time-budget", "1", timeout=120)
    assert proc.returncode == 3, proc.stderr[-2000:]
    assert "certificate search not finished within the time budget of 1 s" in proc.stdout


def test_building_a_construction_honours_the_time_budget(capped_cli):
    """Minimising a large table does not tick the build clock; the budget stops it anyway
    (``random:states=100000,symbols=1000 full --time-budget 5`` reached 5.4 GB, then a traceback)."""
    proc = capped_cli("verify", "random:states=100000,symbols=50", "full", "--time-budget", "0.01", timeout=120)
    assert proc.returncode == 3, proc.stderr[-2000:]
    # the budget also counts building the automaton's table, which may be what it stops
    assert "not built within the time budget of 0.01 s" in proc.stdout


def test_the_shapes_are_compared_before_any_entry_is_decoded(tmp_path, capsys):
    """N6 (issue 46): a 45 MB file with h0 of 3,000,000 entries and A of 1 x 1 x 1 decoded every
    entry for over 120 s, printing nothing (4.5 MB: 19 s), before the shapes were compared
    (``benchmarks/bench_hostile.py`` times that file).  The order is what is tested: the last
    entry of h0 is not a number, and the shapes' refusal comes first."""
    path = tmp_path / "h0.json"
    path.write_text('{"format": "bilinear.weights", "version": 1, "variant": "full", "exact": true, '
                    '"A": [[["1"]]], "h0": [' + ", ".join(['"1/3"'] * 9_999 + ['"x"']) + '], "readout": [["1"], ["-1"]]}')
    assert main(["verify", "parity", "--weights", str(path), "--unsigned"]) == 2
    assert capsys.readouterr().err == (f"bilinear: error: {path}: h0 has shape (10000,), expected (1,) to match A's "
                                       "hidden size\n")
    path.write_text(path.read_text().replace('"A": [[["1"]]], ', '"A": [[["1"]], [[1, 2]]], '))
    with pytest.raises(WeightsError, match="A is ragged"):  # the shapes of every array first
        Weights.load(path, allow_unsigned=True)


@pytest.mark.parametrize("A", [[[0.0, 1.0], [1.0, 0.0]], [[3.0, 1.0], [2.0, 5.0]]])
def test_a_float_dplr_file_that_is_exactly_diag_plus_rank_one_loads_as_written(tmp_path, A):
    """N15 (issue 46): ``[[0, 1], [1, 0]] = I + [-1, 1][1, -1]^T`` and ``[[3, 1], [2, 5]]`` were
    refused as conforming "only within the float tolerance (4.44e-16)": the float factors derived
    from them compose with rounding.  The floats as written are exactly diag + rank one."""
    import numpy as np

    path = tmp_path / "w.json"
    path.write_text(json.dumps({"format": "bilinear.weights", "version": 1, "variant": "dplr:1", "exact": False,
                                "A": [A], "h0": [1.0, 0.0], "readout": [[1.0, 0.0], [0.0, 1.0]]}))
    w = Weights.load(path, allow_unsigned=True)
    assert w.A.tolist() == [A]  # the file's own network
    D, U, W = (np.asarray(f, dtype=np.float64) for f in w.factors)
    assert np.allclose(np.diag(D[0]) + U[0] @ W[0].T, A, atol=1e-12, rtol=0)
    # 3 x 3: I + the all-ones matrix with one entry moved by 1e-9 is diag + rank one only within
    # the tolerance (every 2 x 2 matrix is exactly diag + rank one): still refused
    near = [[2.0, 1.0 + 1e-9, 1.0], [1.0, 2.0, 1.0], [1.0, 1.0, 2.0]]
    path.write_text(json.dumps({"format": "bilinear.weights", "version": 1, "variant": "dplr:1", "exact": False,
                                "A": [near], "h0": [1.0, 0.0, 0.0], "readout": [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]}))
    with pytest.raises(ConformanceError, match="conforms only within the float tolerance"):
        Weights.load(path, allow_unsigned=True)


@pytest.mark.parametrize("tiny", [2.0**-565, 5e-324, 2.0**300])  # 1e-170, subnormal, 2e90
def test_a_householder_vector_of_any_scale_is_its_reflection(tmp_path, tiny):
    """N16 (issue 46): v = 1e-170 or subnormal: numpy RuntimeWarnings (v^T v underflowed to 0),
    then a refusal whose "largest change" was nan.  A reflection does not depend on the scale of
    v: v is scaled by a power of two (exact) before v^T v."""
    import warnings

    path = tmp_path / "w.json"
    path.write_text(json.dumps({
        "format": "bilinear.weights", "version": 1, "variant": "householder:1", "exact": False,
        "A": [[[-1.0, 0.0], [0.0, 1.0]], [[0.0, 1.0], [1.0, 0.0]]], "h0": [1.0, 0.0],
        "readout": [[1.0, 0.0], [-1.0, 0.0]],
        "factors": {"V": [[[tiny, 0.0]], [[tiny, -tiny]]], "beta": [[2.0], [2.0]]}}))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RuntimeWarning
        w = Weights.load(path, allow_unsigned=True)
    assert w.A.tolist() == [[[-1.0, 0.0], [0.0, 1.0]], [[0.0, 1.0], [1.0, 0.0]]]


def test_a_mixed_stack_names_the_layer_of_the_other_kind():
    """N17 (issue 46): "stack layer 1 is float but layer 1 is float"."""
    from bilinear.constructions.values.stack import Stack
    from bilinear.errors import WeightsError

    exact = Weights("diagonal", [[[-1]], [[1]]], [1], [[1], [-1]])
    floats = exact.to_float()
    with pytest.raises(WeightsError, match="^stack layer 2 is exact but layer 1 is float: all layers exact or all "
                                           "float$"):
        Stack((floats, exact))
    with pytest.raises(WeightsError, match="^stack layer 2 is float but layer 1 is exact"):
        Stack((exact, floats))
