import json

import pytest

from bilinear.analysis.examples import cyclic_rotation2d, dihedral_block2
from bilinear.analysis.extract import ExtractConfig
from bilinear.analysis.report import AnalysisConfig, analyze
from bilinear.automata import from_spec
from bilinear.errors import AnalysisError

FAST = AnalysisConfig(extract=ExtractConfig(words=100, length=30))


def test_dihedral_report_contents():
    r = analyze(dihedral_block2(4), from_spec("dihedral:4"), FAST)
    assert r.exact and r.hidden == 2 and r.variant == "block:2"
    assert r.spectrum.symbols[1].reading == "acts as a reflection"
    assert r.commutators.verdict == "do not commute"
    assert r.relations.all_hold and r.relations.total == len(r.relations.relations)
    assert r.extraction.isomorphic
    assert "non-abelian" in r.extraction.classification
    md = r.to_markdown()
    assert md.startswith("# Analysis: dihedral:4 / block:2")
    for heading in ("## Spectra", "## Commutators", "## Relations", "## Extraction"):
        assert heading in md
    data = json.loads(json.dumps(r.to_json(), allow_nan=False))
    assert data["format"] == "bilinear.analysis"
    assert data["commutators"]["verdict"] == "do not commute"
    assert data["extraction"]["minimal"]["states"] == 8


def test_broken_weights_report_says_which_relations_fail():
    r = analyze(cyclic_rotation2d(5, angle_error=0.05), from_spec("cyclic:5"), FAST)
    assert not r.relations.all_hold
    assert r.extraction.isomorphic is False and r.extraction.distinguishing_word is not None
    assert "differs from the true automaton" in r.summary
    assert "has no finite order" in r.spectrum.symbols[1].reading


def test_write_creates_report_and_figures(tmp_path):
    r = analyze(cyclic_rotation2d(3), from_spec("cyclic:3"), FAST)
    paths = r.write(tmp_path / "out")
    names = sorted(p.name for p in paths)
    assert names == ["accuracy.png", "commutators.png", "eigenvalues.png", "report.json", "report.md"]
    assert (tmp_path / "out" / "eigenvalues.png").read_bytes()[:4] == b"\x89PNG"
    assert json.loads((tmp_path / "out" / "report.json").read_text())["weights"]["hidden"] == 2
    assert "![eigenvalues](eigenvalues.png)" in (tmp_path / "out" / "report.md").read_text()
    assert not list((tmp_path / "out").glob("*.tmp"))


def test_write_refuses_a_file_as_directory(tmp_path):
    r = analyze(cyclic_rotation2d(3), from_spec("cyclic:3"), AnalysisConfig(run_extraction=False))
    (tmp_path / "f").write_text("x")
    with pytest.raises(AnalysisError, match="not a directory"):
        r.write(tmp_path / "f")
    assert r.extraction is None and "extraction" not in r.summary


@pytest.mark.parametrize(
    "config, match",
    [
        (AnalysisConfig(tol=0.0), "tol"),
        (AnalysisConfig(tol=-1.0), "tol"),
        (AnalysisConfig(max_order=0), "max_order"),
        (AnalysisConfig(extract=ExtractConfig(tol=0.0)), "tol"),
    ],
)
def test_bad_config(config, match):
    with pytest.raises(AnalysisError, match=match):
        analyze(cyclic_rotation2d(3), from_spec("cyclic:3"), config)


def test_mismatched_symbols():
    with pytest.raises(AnalysisError, match="3 symbol"):
        analyze(cyclic_rotation2d(3), from_spec("dihedral:3"), FAST)
