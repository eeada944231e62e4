"""Hostile automata (issue 25): one long cycle is not quadratic anywhere."""

from __future__ import annotations

import json

import numpy as np

from bilinear.automata import Automaton
from bilinear.automata.closure import _direct
from bilinear.automata.minimize import _hopcroft_blocks, _moore_blocks, minimize


def _cycle(n: int, marked: int = 1) -> Automaton:
    """One symbol stepping round n states; the first ``marked`` states labelled 1."""
    return Automaton([[(i + 1) % n for i in range(n)]], labels=[1 if i < marked else 0 for i in range(n)])


def test_hopcroft_finds_the_coarsest_congruence_moore_finds():
    rng = np.random.default_rng(25)
    for _ in range(200):
        n, k, c = int(rng.integers(1, 30)), int(rng.integers(1, 4)), int(rng.integers(1, 4))
        delta, labels = rng.integers(0, n, (k, n)), rng.integers(0, c, n)
        moore, converged = _moore_blocks(delta, labels)
        hopcroft = _hopcroft_blocks(delta, np.unique(labels, return_inverse=True)[1].astype(np.int64))
        assert converged
        pairs = set(zip(moore.tolist(), hopcroft.tolist()))  # the same partition: a bijection of blocks
        assert len(pairs) == moore.max() + 1 == hopcroft.max() + 1


def test_a_long_cycle_minimises_in_near_linear_time():
    """Moore's rounds: one per state on this cycle (a 10,000-state one took 215 s)."""
    big = minimize(_cycle(30_000))
    assert big.n_states == 30_000 and big.delta[0, -1] == 0 and big.labels[0] == 1
    assert minimize(_cycle(30_000, marked=0)).n_states == 1
    periodic = Automaton([[(i + 1) % 12_000 for i in range(12_000)]], labels=[int(i % 3 == 0) for i in range(12_000)])
    assert minimize(periodic).n_states == 3


def test_describe_of_a_200000_state_cycle_is_refused_quickly(capped_cli, tmp_path):
    """It ran 278 s (quadratic minimisation and orbit search), now one line under a 6 GB cap."""
    n = 200_000
    path = tmp_path / "cycle.json"
    path.write_text(json.dumps({"format": "bilinear.automaton", "version": 1, "states": n, "symbols": ["a"],
                                "delta": [[(i + 1) % n for i in range(n)]], "labels": [int(i == 0) for i in range(n)]}))
    proc = capped_cli("describe", path, timeout=120)
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert "it is a group with an orbit of 200000 states" in proc.stderr and proc.stderr.count("\n") == 1


def test_the_direct_table_is_decided_without_n_to_the_n():
    assert _direct(8) and not _direct(9) and not _direct(10**7)


def _file(tmp_path, **changes):
    data = {"format": "bilinear.automaton", "version": 1, "states": 2, "symbols": ["a", "b"],
            "delta": [[1, 0], [0, 1]], "labels": [0, 1]}
    data.update(changes)
    path = tmp_path / "aut.json"
    path.write_text(json.dumps(data))
    return path


def test_huge_floats_and_non_words_are_our_errors(tmp_path, capsys):
    """1e300 in delta or labels was an OverflowError, run(None) / run(5) a TypeError, the float
    of an exact 10**400 an OverflowError."""
    import pytest

    from bilinear.cli import main
    from bilinear.constructions import Weights
    from bilinear.errors import AutomatonError, WeightsError

    for key, value, message in (("delta", [[1e300, 0], [0, 1]], "transition table[0, 0] = 1e+300 is out of range"),
                                ("labels", [1e300, 1], "labels[0] = 1e+300 is out of range")):
        assert main(["describe", str(_file(tmp_path, **{key: value}))]) == 2
        assert message in capsys.readouterr().err
    with pytest.raises(AutomatonError, match="out of range"):
        Automaton([[1e300]])
    toggle = Automaton([[1, 0]])
    for word in (None, 5):
        with pytest.raises(AutomatonError, match="a word must be a string"):
            toggle.run(word)
    assert toggle.run([0, 0, 0]) == 1 and Automaton([[1.0, 0.0]]).delta.tolist() == [[1, 0]]
    with pytest.raises(WeightsError, match=r"A\[0\]\[0, 0\] = 1000.* is too large for a float"):
        Weights("full", [[[10**400]]], [1], [[1]]).to_float()


def test_names_must_be_printable_strings_and_versions_integers(tmp_path, capsys):
    """A lone surrogate crashed ``analyze --out`` after report.json was written; newlines and
    escape codes were printed raw; any JSON value was a name; version true and 1.0 passed."""
    import pytest

    from bilinear.cli import main
    from bilinear.errors import AutomatonError

    bad = [(dict(symbols=["\ud800", "b"]), "symbol name at position 0 '\\ud800' holds the character '\\ud800'"),
           (dict(name="evil\n\x1b[31mred"), "holds the character '\\n'"),
           (dict(classes=["x", "\x1b[2J"]), "class name at position 1"),
           (dict(name=[1, 2]), "'name' must be a string, got list"),
           (dict(version=True), "unsupported version True"),
           (dict(version=1.0), "unsupported version 1.0")]
    for changes, message in bad:
        out = tmp_path / "report"
        assert main(["analyze", "--construction", str(_file(tmp_path, **changes)), "full", "--out", str(out),
                     "--no-figures"]) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1 and "\x1b" not in err, err
        assert err.count(str(tmp_path)) == 1, err  # the file is named once ("path: path: 'name' ..." before)
        assert not out.exists()
    with pytest.raises(AutomatonError, match="must be a string"):
        Automaton([[0]], name=None)
    assert Automaton([[0]], symbols=["ε"], name="ok name (1)").symbols == ("ε",)


def test_describe_decides_from_the_spec_before_building(capped_cli, monkeypatch):
    """``describe cyclic:10000`` took 1.8-2 GB before a refusal the spec alone decides: the table
    limit, and for a group family the closure's limits applied to the group's order."""
    import dataclasses

    import pytest

    import bilinear.automata.families as fam
    from bilinear.automata.describe import check_describe
    from bilinear.errors import AutomatonError, MonoidTooLargeError

    proc = capped_cli("describe", "cyclic:10000", timeout=30)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr[-2000:]
    assert "100,000,000 table entries" in proc.stderr and "MAX_TABLE_ENTRIES" in proc.stderr

    def no_build(**kwargs):  # pragma: no cover - the point is that it is never called
        raise AssertionError("built before the spec's check")

    monkeypatch.setitem(fam.FAMILIES, "cyclic", dataclasses.replace(fam.FAMILIES["cyclic"], build=no_build))
    with pytest.raises(MonoidTooLargeError, match=r"7,000\+ x 7000 x 7000 = 343,000,000,000\+.*a group of order 7,000"):
        check_describe("cyclic:7000")
    with pytest.raises(MonoidTooLargeError, match="more than 100 elements .*a factor is a group of order 120"):
        check_describe("parity*symmetric:5", limit=100)
    with pytest.raises(AutomatonError, match="MAX_TABLE_ENTRIES"):
        check_describe("CYCLIC:10000")
    check_describe("cyclic:1587")  # 1587^3 < WORK_LIMIT: left to the closure, which finishes
    # flipflop:N and reset:N: N constant maps and the identity, known from the spec too (flipflop:7000
    # was built, 2.4 s, before the closure refused it)
    for family in ("flipflop", "reset"):
        monkeypatch.setitem(fam.FAMILIES, family, dataclasses.replace(fam.FAMILIES[family], build=no_build))
    with pytest.raises(MonoidTooLargeError, match=r"7,001\+ x 7001 x 7000 = 343,098,007,000\+.*a monoid of 7,001 elements"):
        check_describe("flipflop:7000")
    with pytest.raises(MonoidTooLargeError, match=r"more than 50 elements .*a factor is a monoid of 61 elements"):
        check_describe("parity*reset:60", limit=50)
    check_describe("reset:1000")  # 1001 x 1001 x 1000 < WORK_LIMIT: left to the closure


def test_describe_honours_its_time_budget_with_progress(capped_cli):
    """A random automaton with a huge monoid: progress lines with the elements found, then exit 3
    and one line when the budget runs out; nothing on stdout."""
    proc = capped_cli("describe", "random:states=50,symbols=3", "--time-budget", "1.5",
                      env={"BILINEAR_PROGRESS_INTERVAL": "0.2"})
    assert proc.returncode == 3, proc.stderr[-2000:]
    lines = proc.stderr.splitlines()
    assert lines[-1] == ("bilinear: describe: not finished within the time budget of 1.5 s (nothing printed); "
                         "raise --time-budget")
    assert any(line.startswith("describe: ") and "elements" in line and "(closing the transformation monoid)" in line
               for line in lines), lines
    assert lines[-2].startswith("describe: stopped after") and proc.stdout == ""
