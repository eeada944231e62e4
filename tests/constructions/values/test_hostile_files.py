"""Hostile weights files (issue 25): the network proved is the file's own, or the output says it
is not; the float check always runs on the file as written."""

from __future__ import annotations

import json

import pytest

from bilinear.cli import main
from bilinear.constructions import Weights
from bilinear.errors import ConformanceError

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
