"""Lenient input (issue 25, defect 19): other scripts' digits, empty grid entries, a learning
rate that float32 rounds to zero."""

from __future__ import annotations

import pytest

from bilinear.cli import main


@pytest.mark.parametrize("argv, message", [
    (["describe", "cyclic:\u0663"], "parameter M of 'cyclic' must be an integer"),
    (["verify", "parity", "block:\u0662"], "parameter B of variant 'block' must be a positive integer"),
    (["verify", "parity", "diagonal", "--float", "--length", "\u0663"], "expected a positive integer (ASCII digits)"),
    (["verify", "parity", "diagonal", "--time-budget", "\u0663"], "not a number"),
    (["train", "parity", "diagonal", "--lr-grid", "1e-3,,1e-4", "--steps", "2"],
     "--lr-grid must be comma-separated numbers, got '1e-3,,1e-4'"),
    (["train", "parity", "diagonal", "--lr", "1e-320", "--steps", "2"],
     "is under 1.17549e-38 (float32's smallest normal number)"),
])
def test_lenient_input_is_refused(capsys, argv, message):
    try:
        code = main(argv)
    except SystemExit as exit_:  # argparse's usage errors
        code = exit_.code
    assert code == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1, err


def test_ascii_input_still_works():
    from bilinear.automata import from_spec
    from bilinear.automata.words import compress  # noqa: F401  (the token pattern compiles)

    assert from_spec("cyclic:+3").n_states == 3


def _spellings(spec: str) -> list[str]:
    """Other ways of writing ``spec``: upper case, leading zeros, a plus sign, spaces."""
    import re

    zeros = re.sub(r"(?<=[:=,])(\d)", r"0\1", spec)
    plus = re.sub(r"(?<=[:=,])(\d)", r"+\1", spec)
    return [spec.upper(), zeros, plus, " " + spec.replace(":", " : ").replace(",", " , ") + " "]


def test_every_spelling_of_a_spec_has_one_canonical_form_which_is_the_automatons_name():
    """``cyclic:3``, ``cyclic:03`` and ``CYCLIC:3`` ran as three separate identical runs."""
    from bilinear.automata import from_spec
    from bilinear.automata.families import FAMILIES, canonical_spec

    specs = [ex for f in FAMILIES.values() for ex in f.examples]
    specs += ["cycle_navigation", "gridworld", "modular_arithmetic", "symmetric:4,alphabet=all",
              "alternating:4,alphabet=generators", "random:symbols=3,states=4,perm=1,seed=2",
              "random:states=4,symbols=2,perm=0", "cyclic:2*parity*dihedral:3"]
    for spec in specs:
        canon = canonical_spec(spec)
        automaton = from_spec(spec)
        assert canon == automaton.name, spec
        assert canonical_spec(canon) == canon  # a fixed point
        for other in _spellings(spec):
            assert canonical_spec(other) == canon, (spec, other)
            assert from_spec(other) == automaton and from_spec(other).name == canon
    assert canonical_spec("random:states=4,symbols=2,perm=1") == "random:states=4,symbols=2,seed=0,perm=1"
    assert canonical_spec("cyclic:4") != canonical_spec("cyclic:3")


def test_runs_sweeps_matrices_and_reports_use_the_canonical_spec(capsys):
    import json

    from bilinear.constructions.capability import capability_matrix
    from bilinear.errors import ConfigError, SpecError
    from bilinear.learned import TrainConfig
    from bilinear.learned.sweep import Sweep, run_dir_name

    config = TrainConfig(spec="CYCLIC:03", model="diagonal")
    assert config.spec == "cyclic:3" and run_dir_name(config) == "cyclic-3__diagonal__lr0.01__s0"
    assert TrainConfig.from_dict(config.to_dict()) == TrainConfig(spec="cyclic:3", model="diagonal")
    sweep = Sweep(families=["Cyclic:+3", "parity"], models=["diagonal"])
    assert sweep.families == ("cyclic:3", "parity") and [c.spec for c in sweep.configs()] == ["cyclic:3", "parity"]
    with pytest.raises(ConfigError, match="lists 'cyclic:3' and 'CYCLIC:03': both are 'cyclic:3'"):
        Sweep(families=["cyclic:3", "CYCLIC:03"], models=["diagonal"])
    m = capability_matrix(["CYCLIC:03", "parity"], ["diagonal"])
    assert m.rows == ("cyclic:3", "parity") and m.row("cyclic:03") == m.row("cyclic:3")
    with pytest.raises(SpecError, match="--rows lists 'cyclic:3' and 'cyclic:03': both are 'cyclic:3'"):
        capability_matrix(["cyclic:3", "cyclic:03"], ["diagonal"])
    # columns likewise: canonical, one variant one column (three identical columns were printed)
    m = capability_matrix(["parity"], [" FULL ", "Householder:1 ,NONNEG", "Householder"])
    assert m.columns == ("full", "householder:1,nonneg", "householder")
    with pytest.raises(SpecError, match="--columns lists 'full' and 'FULL': both are 'full'"):
        capability_matrix(["parity"], ["full", "FULL"])
    assert main(["describe", "CYCLIC:03", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["spec"] == "cyclic:3"
    assert main(["verify", "CYCLIC:03", "rotation2d"]) == 0
    assert capsys.readouterr().out.startswith("cyclic:3 rotation2d: proved")
    # the variant too, printed and written canonical (' Householder:2 , NONNEG ' was printed as given)
    assert main(["verify", " DIHEDRAL:03 ", " Householder:2 , NONNEG "]) == 0
    assert capsys.readouterr().out.startswith("dihedral:3 householder:2,nonneg: impossible")
    assert main(["verify", "parity", " FULL ", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["variant"] == "full"
