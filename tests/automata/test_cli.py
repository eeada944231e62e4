"""Tests of the automata command line: ``bilinear families`` and ``bilinear describe``."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from bilinear.automata import FAMILIES
from bilinear.cli import main


def run_json(capsys, *argv: str) -> dict:
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize(
    "spec, size, group, commutative, solvable",
    [
        ("symmetric:5", 120, True, False, False),
        ("dihedral:8", 16, True, False, True),
        ("quaternion", 8, True, False, True),
        ("alternating:5", 60, True, False, False),
        ("modarith:5", 25, False, False, True),
        ("cyclic:2*cyclic:3", 6, True, True, True),
    ],
)
def test_describe_json_matches_the_issue(capsys, spec, size, group, commutative, solvable) -> None:
    facts = run_json(capsys, "describe", spec, "--json")
    assert facts["monoid_size"] == size
    assert facts["group"] is group and facts["commutative"] is commutative and facts["solvable"] is solvable
    for key in ("spec", "name", "states", "symbols", "symbol_names", "classes", "aperiodic", "classification"):
        assert key in facts
    assert facts["symbols"] == len(facts["symbol_names"])


def test_describe_text(capsys) -> None:
    assert main(["describe", "dihedral:5"]) == 0
    out = capsys.readouterr().out
    assert "10 elements: non-abelian solvable group of order 10" in out
    assert "symbols       2: r, s" in out


def test_describe_monoid_subgroups(capsys) -> None:
    facts = run_json(capsys, "describe", "modarith:5", "--json")
    assert facts["maximal_subgroup_orders"] == [20, 1] and facts["d_classes"] == 2
    assert facts["classification"] == "solvable monoid of size 25"
    facts = run_json(capsys, "describe", "flipflop:2", "--json")
    assert facts["aperiodic"] is True and facts["classification"] == "aperiodic monoid of size 3"


def test_families_lists_every_registered_family(capsys) -> None:
    assert main(["families"]) == 0
    out = capsys.readouterr().out
    for fam in FAMILIES.values():
        assert fam.usage in out and fam.summary in out
    table = run_json(capsys, "families", "--json")
    assert sorted(f["name"] for f in table) == sorted(FAMILIES)


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["describe", "foo:3"], "unknown family 'foo'"),
        (["describe", "cyclic:0"], "modulus M=0 must be >= 1"),
        (["describe", "cyclic:-2"], "modulus M=-2 must be >= 1"),
        (["describe", "cyclic:x"], "must be an integer"),
        (["describe", "cyclic:"], "nothing after ':'"),
        (["describe", "cyclic:3*"], "empty factor"),
        (["describe", "symmetric:6", "--limit", "100"], "more than 100 elements (limit=100)"),
        (["describe", "  "], "spec"),
    ],
)
def test_bad_input_is_one_line_on_stderr_and_exit_2(capsys, argv, fragment) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert fragment in err
    assert err.count("\n") == 1 and err.startswith("bilinear: error:")


@pytest.mark.parametrize("limit", ["zero", "0", "-3"])
def test_argparse_errors_exit_2(capsys, limit: str) -> None:
    with pytest.raises(SystemExit) as info:
        main(["describe", "parity", "--limit", limit])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "expected a positive integer" in err and err.count("\n") == 1


@pytest.mark.slow
def test_subprocess_describe_and_error() -> None:
    ok = subprocess.run(
        [sys.executable, "-m", "bilinear.cli", "describe", "quaternion", "--json"],
        capture_output=True, text=True, timeout=120,
    )
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["monoid_size"] == 8
    bad = subprocess.run(
        [sys.executable, "-m", "bilinear.cli", "describe", "dihedral:zero"],
        capture_output=True, text=True, timeout=120,
    )
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.strip().count("\n") == 0 and "must be an integer" in bad.stderr


def test_describe_skips_subgroups_past_the_listing_limit(capsys, monkeypatch) -> None:
    import bilinear.automata.describe as describe

    monkeypatch.setattr(describe, "SUBGROUP_LIST_LIMIT", 10)
    facts = run_json(capsys, "describe", "modarith:5", "--json")
    assert facts["monoid_size"] == 25 and facts["maximal_subgroup_orders"] is None and facts["d_classes"] is None
    assert main(["describe", "modarith:5"]) == 0
    assert "D-classes" not in capsys.readouterr().out
