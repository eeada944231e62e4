"""The capability matrix: cell statuses, consistency between constructions and certificates,
the command line, and the table in docs/theory.md staying equal to the command's output."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bilinear.automata import from_spec
from bilinear.cli import main
from bilinear.constructions import certify
from bilinear.constructions.capability import (
    DEFAULT_COLUMNS,
    DEFAULT_ROWS,
    STATUSES,
    CapabilityMatrix,
    capability_matrix,
    matrix_cell,
    parse_rows,
)
from bilinear.constructions import prove
from bilinear.constructions import build
from bilinear.errors import ConstructionError, SpecError

ROOT = Path(__file__).resolve().parents[2]
THEORY = ROOT / "docs" / "theory.md"


@pytest.fixture(scope="module")
def matrix(default_matrix) -> CapabilityMatrix:
    """The default matrix, settled once per session (tests/constructions/conftest.py)."""
    return default_matrix


# ------------------------------------------------------------------------------------------
# the cells the theory settles
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "family, variant, status, dim",
    [
        ("parity", "diagonal", "proved", 1),
        ("parity", "positive", "impossible", None),
        ("cyclic:3", "rotation2d", "proved", 2),
        ("cyclic:3", "diagonal", "impossible", None),
        ("cyclic:5", "rotation2d", "proved", 2),
        ("cyclic:2*cyclic:2", "diagonal", "proved", 2),
        ("cyclic:2*cyclic:3", "diagonal", "impossible", None),
        ("dihedral:4", "block:2", "proved", 2),
        ("dihedral:5", "block:2", "proved", 2),
        ("dihedral:4", "rotation2d", "impossible", None),
        ("quaternion", "full", "proved", 4),
        ("symmetric:4", "full", "proved", 3),
        ("alternating:4", "full", "proved", 3),
        ("flipflop:2", "positive", "impossible", None),
        ("random:states=5,symbols=2,seed=0", "full", "proved", 4),
    ],
)
def test_known_cells(matrix: CapabilityMatrix, family: str, variant: str, status: str, dim) -> None:
    cell = matrix.cell(family, variant)
    assert cell.status == status
    assert cell.dim == dim
    assert cell.spec == family and cell.variant == variant


def test_every_cell_is_settled_consistently(matrix: CapabilityMatrix) -> None:
    assert matrix.rows == DEFAULT_ROWS and matrix.columns == DEFAULT_COLUMNS
    counts = matrix.counts()
    assert counts["counterexample"] == 0  # a counterexample would be a bug in the registry
    assert sum(counts.values()) == len(DEFAULT_ROWS) * len(DEFAULT_COLUMNS)
    for family, row in zip(matrix.rows, matrix.cells):
        a = from_spec(family)
        for cell in row:
            assert cell.status in STATUSES
            if cell.status == "impossible":
                # the certificate holds, and the registry claims no construction there
                assert cell.certificate.verify(a)
                assert cell.certificate.variant == cell.variant
                with pytest.raises(ConstructionError):
                    build(a, cell.variant)
            elif cell.status == "proved":
                assert cell.dim >= 1 and cell.built is not None
                assert certify(a, cell.built) is None  # no theorem contradicts the proof
            else:
                assert cell.certificate is None


def test_factorized_column_shows_the_rank(matrix: CapabilityMatrix) -> None:
    cell = matrix.cell("parity", "factorized")
    assert cell.status == "proved" and cell.built == "factorized:1" and cell.summary == "proved d=1 (minimal), R=1"
    cell = matrix.cell("dihedral:5", "factorized")
    R = int(cell.built.split(":")[1])
    assert cell.summary == f"proved d=2 (minimal), R={R}"
    # the weights behind the cell are right for every word
    w = build("dihedral:5", cell.built)
    assert w.variant == cell.built and prove(w, from_spec("dihedral:5")).status == "proved"


def test_cell_texts(matrix: CapabilityMatrix) -> None:
    assert matrix.cell("dihedral:4", "rotation2d").summary == "impossible: u=ε, (a,b)=(r,s), v=ε"
    assert matrix.cell("cyclic:3", "diagonal").summary == "impossible: u=ε, g=1, v=ε (labels along g^n: period 3)"
    assert matrix.cell("dihedral:5", "block:2").summary == "proved d=2 (minimal)"
    open_cells = [c for row in matrix.cells for c in row if c.status == "open"]
    assert all(c.summary.startswith("open") and c.detail for c in open_cells)


def test_single_cell_and_automaton_rows() -> None:
    a = from_spec("cyclic:3")
    cell = matrix_cell(a, "diagonal")
    assert cell.status == "impossible" and cell.spec == "cyclic:3"
    assert cell.certificate.kind == "period"
    assert matrix_cell("parity", "positive").certificate.kind == "constancy"
    with pytest.raises(SpecError, match="spec string or an Automaton"):
        matrix_cell(3, "full")


def test_to_json_round_trips(matrix: CapabilityMatrix) -> None:
    data = json.loads(json.dumps(matrix.to_json()))
    assert data["rows"] == list(DEFAULT_ROWS) and data["columns"] == list(DEFAULT_COLUMNS)
    cell = data["cells"][DEFAULT_ROWS.index("dihedral:4")][DEFAULT_COLUMNS.index("rotation2d")]
    assert cell["status"] == "impossible"
    assert cell["certificate"]["words"] == {"u": "ε", "a": "r", "b": "s", "v": "ε"}
    assert cell["certificate"]["theorem"].startswith("commuting transition matrices")
    assert data["counts"] == matrix.counts()


def test_lookup_errors(matrix: CapabilityMatrix) -> None:
    with pytest.raises(SpecError, match="'cyclic:9' is not a row"):
        matrix.row("cyclic:9")
    with pytest.raises(SpecError, match="'block:3' is not a column"):
        matrix.cell("parity", "block:3")


def test_bad_specs_fail_before_computing() -> None:
    with pytest.raises(SpecError, match="unknown family 'nope'"):
        capability_matrix(["parity", "nope"], ["full"])
    with pytest.raises(SpecError, match="unknown variant 'diag'"):
        capability_matrix(["parity"], ["full", "diag"])
    with pytest.raises(SpecError, match="at least one family"):
        capability_matrix([], ["full"])


def test_parse_rows() -> None:
    assert parse_rows(["parity,cyclic:3"]) == ["parity", "cyclic:3"]
    assert parse_rows(["random:states=4,symbols=2,seed=3;dihedral:3", "quaternion"]) == [
        "random:states=4,symbols=2,seed=3",
        "dihedral:3",
        "quaternion",
    ]
    with pytest.raises(SpecError, match="empty family"):
        parse_rows(["parity,,cyclic:3"])


# ------------------------------------------------------------------------------------------
# command line
# ------------------------------------------------------------------------------------------
def test_command_markdown(capsys) -> None:
    assert main(["matrix", "--markdown", "--rows", "parity,dihedral:4", "--columns", "full,rotation2d"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert [x.strip() for x in out[0].split("|")[1:-1]] == ["family", "full", "rotation2d"]
    assert len({len(line) for line in out}) == 1  # padded: every line as wide as the header
    assert "impossible: u=ε, (a,b)=(r,s), v=ε" in out[3]
    assert "proved d=1" in out[2]


def test_command_json(capsys) -> None:
    assert main(["matrix", "--json", "--rows", "cyclic:3", "--columns", "diagonal,block:2"]) == 0
    data = json.loads(capsys.readouterr().out)
    cells = data["cells"][0]
    assert [c["status"] for c in cells] == ["impossible", "proved"]
    assert cells[0]["certificate"]["indices"]["g"] == [1]
    assert cells[1]["dim"] == 2


def test_command_default_output_has_a_summary(capsys) -> None:
    assert main(["matrix", "--rows", "parity", "--columns", "positive"]) == 0
    out = capsys.readouterr().out
    assert "1 families x 1 variants: 0 proved, 1 impossible, 0 counterexample, 0 open" in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["matrix", "--rows", "cyclc:3"], "unknown family 'cyclc'"),
        (["matrix", "--columns", "full,bogus"], "unknown variant 'bogus'"),
        (["matrix", "--columns", "full,"], "empty variant"),
    ],
)
def test_command_bad_input(capsys, argv, message) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and err.startswith("bilinear: error:")


@pytest.mark.slow
def test_command_in_a_subprocess() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "bilinear.cli", "matrix", "--json", "--rows", "parity", "--columns", "diagonal,positive"],
        capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert [c["summary"] for c in data["cells"][0]] == [
        "proved d=1 (minimal)",
        "impossible: u=ε, g=1, v=ε (labels along g^n: period 2)",
    ]


# ------------------------------------------------------------------------------------------
# docs/theory.md carries the generated table
# ------------------------------------------------------------------------------------------
def test_theory_doc_table_equals_the_command_output(matrix: CapabilityMatrix) -> None:
    text = THEORY.read_text(encoding="utf-8")
    found = re.search(r"<!-- capability-matrix:begin -->\n(.*?)\n<!-- capability-matrix:end -->", text, re.S)
    assert found, "docs/theory.md lost its capability-matrix markers"
    assert found.group(1).strip() == matrix.to_markdown(), (
        "docs/theory.md is out of date: paste the output of `bilinear matrix --markdown`"
    )


# -- one settle for verify and matrix --------------------------------------------------------
_VOLATILE = ("seconds",)


@pytest.mark.parametrize(
    "spec, variant, status",
    [
        ("dihedral:5", "block:2", "proved"),
        ("cyclic:3", "rotation2d", "proved"),
        ("cyclic:3", "diagonal", "impossible"),
        ("dihedral:4", "rotation2d", "impossible"),
        ("modarith:3", "block:2", "open"),
    ],
)
def test_verify_and_matrix_give_the_same_cell(capsys, spec, variant, status) -> None:
    from bilinear.constructions.settle import settle

    assert main(["verify", spec, variant, "--json"]) == (3 if status == "open" else 0)
    verified = json.loads(capsys.readouterr().out)
    assert main(["matrix", "--json", "--rows", spec, "--columns", variant]) == 0
    cell = json.loads(capsys.readouterr().out)["cells"][0][0]
    direct = settle(spec, variant).to_json()
    for key in _VOLATILE:
        verified.pop(key), cell.pop(key), direct.pop(key)
    # verify's proof runs in a time budget (default 10 s) and deepens its bound; matrix's does not
    if verified["source"] == "construction":
        assert verified.pop("time_budget") == 10 and verified.pop("deepened")
        assert cell.pop("time_budget") is direct.pop("time_budget") is None
        assert not cell.pop("deepened") and not direct.pop("deepened")
    assert verified == cell == direct
    assert verified["status"] == status
    if status == "proved":
        assert verified["margin"]["float"] > 0 and verified["source"] == "construction"
    if status == "impossible":
        assert verified["certificate"]["words"] and verified["dim"] is None
    if status == "open":
        assert "no construction" in verified["detail"] and verified["dim"] is None


def test_settle_text_and_weights_path(tmp_path) -> None:
    from bilinear.constructions.settle import settle

    cell = settle("parity", "diagonal")
    assert cell.text().splitlines()[0] == "parity diagonal: proved, d=1 (minimal)"
    path = tmp_path / "w.json"
    build("parity", "diagonal").save(path)
    from bilinear.constructions import Weights

    given = settle("parity", "diagonal", weights=Weights.load(path), source=str(path))
    assert given.status == "proved" and given.source == str(path) and given.dim == 1
    with pytest.raises(Exception, match="variant 'diagonal', not 'full'"):
        settle("parity", "full", weights=Weights.load(path), source=str(path))


def test_a_cell_nests_the_provers_verdict_json_unchanged():
    """One verdict, one shape: Cell.to_json()["proof"] is the prover's own JSON, and the cell's
    summary keys agree with it."""
    from bilinear.automata import from_spec
    from bilinear.constructions import prove
    from bilinear.constructions import build
    from bilinear.constructions.settle import settle

    a = from_spec("dihedral:3")
    cell = settle(a, "block:2").to_json()
    proof = prove(build(a, "block:2"), a).to_json()
    assert cell["proof"] == proof and proof["status"] == "proved"
    for key in ("status", "dim", "states_explored", "hidden_states", "margin"):
        assert cell[key] == proof[key], key
    assert settle("cyclic:3", "diagonal").to_json()["proof"] is None  # a certificate: no proof ran


def test_monomial_and_dplr_are_proved_wherever_full_is(matrix: CapabilityMatrix) -> None:
    """Every automaton is monomial at d = n (column one-hot), and dplr takes the R its
    constructions need, so neither column is open where full is proved."""
    for family in matrix.rows:
        if matrix.cell(family, "full").status == "proved":
            assert matrix.cell(family, "monomial").status == "proved", family
            dplr = matrix.cell(family, "dplr")
            assert dplr.status == "proved" and dplr.factors >= 1, family


def test_householder_columns_show_their_factor_bounds(matrix: CapabilityMatrix) -> None:
    assert matrix.cell("cyclic:3", "householder").summary == "proved d=2 (minimal), K=2"
    assert matrix.cell("parity", "householder,nonneg").summary == "proved d=2 (minimal), K=3"
    assert matrix.cell("cyclic:3", "householder,nonneg").summary == "proved d=2 (minimal), K=3"  # Theorem F10
    # Theorem F10 (order 5, entries in Q(sqrt 5)): a symbol adding 2 takes the generator twice
    assert matrix.cell("cyclic:5", "householder,nonneg").summary == "proved d=2 (minimal), K=6 (K>=3)"
    assert matrix.cell("cycle_navigation:5", "householder,nonneg").summary == "proved d=2 (minimal), K=3"
    assert matrix.cell("cyclic:2*cyclic:3", "householder,nonneg").summary == "proved d=2 (minimal), K=9 (K>=3)"
    assert matrix.cell("symmetric:4", "householder").to_json()["factors_minimal"] is True


def test_householder_is_never_open_and_nonneg_bounds_use_their_own_theorems(matrix: CapabilityMatrix) -> None:
    """Theorem F9 (one-hot-householder) leaves no open ``householder`` cell among the default rows,
    and Theorem F13 (half-turns) none in ``householder,nonneg``; its bounds are its own kind's:
    non-negative determinants make Theorem 14 ask for a cyclic unit group, so D_4, D_5 and Z_2^2
    need d >= 3 there (``householder`` itself, with reflections, keeps d >= 2), which Theorems F12
    and F13 attain."""
    for family in matrix.rows:
        assert matrix.cell(family, "householder").status in ("proved", "impossible"), family
        assert matrix.cell(family, "householder,nonneg").status in ("proved", "impossible"), family
    for family in ("dihedral:4", "dihedral:5", "cyclic:2*cyclic:2"):
        cell = matrix.cell(family, "householder,nonneg").to_json()
        assert cell["lower_bound"] == 3, family
        assert cell["lower_bound_theorem"] == "Theorem 14" and "not cyclic" in cell["lower_bound_reason"]
        assert cell["status"] == "proved" and cell["dim"] == 3 and cell["minimal"] is True, family
    klein = matrix.cell("cyclic:2*cyclic:2", "householder,nonneg")
    assert klein.summary == "proved d=3 (minimal), K=7 (K>=3)"
    # Theorem F13: two half-turns (seven factors each) per rotation; Q_8 in d = 4, four half-turns
    assert matrix.cell("dihedral:4", "householder,nonneg").summary == "proved d=3 (minimal), K=14 (K>=3)"
    assert matrix.cell("symmetric:4", "householder,nonneg").summary == "proved d=3 (minimal), K=14 (K>=3)"
    assert matrix.cell("quaternion", "householder,nonneg").summary == "proved d=4 (lower bound 3), K=32 (K>=3)"
    # ... and the one-hot construction's reflections as half-turns, with one more coordinate
    assert matrix.cell("gridworld:9", "householder,nonneg").summary == "proved d=9 (lower bound 2), K=105 (K>=1)"
    assert matrix.cell("modarith:3", "householder,nonneg").summary == "proved d=4 (lower bound 3), K=16 (K>=3)"
    assert matrix.cell("gridworld:9", "householder").summary == "proved d=9 (lower bound 2), K=9 (K>=1)"
    assert matrix.cell("even_pairs", "householder,nonneg").to_json()["lower_bound_theorem"] == "Theorem 13"
