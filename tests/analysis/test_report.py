import json

import numpy as np
import pytest

from bilinear.analysis.examples import cyclic_rotation2d, dihedral_block2
from bilinear.analysis import ExtractConfig
from bilinear.analysis import AnalysisConfig, analyze
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
    assert names == ["accuracy.png", "automaton.dot", "automaton.graphml", "automaton.png", "commutators.png",
                     "eigenvalues.png", "report.json", "report.md"]
    assert (tmp_path / "out" / "eigenvalues.png").read_bytes()[:4] == b"\x89PNG"
    assert json.loads((tmp_path / "out" / "report.json").read_text())["weights"]["hidden"] == 2
    text = (tmp_path / "out" / "report.md").read_text()
    assert "![eigenvalues of cyclic:3 / rotation2d](eigenvalues.png)" in text
    assert "[automaton.graphml](automaton.graphml)" in text
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


def _trained_like_cyclic5(tmp_path):
    """``build("cyclic:5", "full")`` (a 2x2 rotation per symbol), every angle 0.0003 rad off,
    embedded in hidden 16 beside a contracting complement (a random orthogonal 14x14 matrix times
    0.5 per symbol, so the complements do not commute), in a random orthonormal basis, plus small
    noise: like the trained network of issue 13 (right at length 500, not commuting on the full
    space, commuting where its states live)."""
    from bilinear.constructions import build
    from bilinear.constructions import Weights

    rng = np.random.default_rng(0)
    A2, h2, R2 = build("cyclic:5", "full").float_arrays()
    Q = np.linalg.qr(rng.standard_normal((16, 16)))[0]
    A = np.zeros((5, 16, 16))
    for s in range(5):
        t = 0.0003 * s
        A[s, :2, :2] = A2[s] @ np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
        A[s, 2:, 2:] = 0.5 * np.linalg.qr(rng.standard_normal((14, 14)))[0]
    h0 = np.concatenate([h2, 0.1 * rng.standard_normal(14)])
    R = np.concatenate([R2, 0.01 * rng.standard_normal((5, 14))], axis=1)
    A = np.einsum("ij,sjk,lk->sil", Q, A, Q) + 1e-4 * rng.standard_normal((5, 16, 16))
    path = tmp_path / "w.json"
    Weights("full", A, Q @ h0, R @ Q.T).save(path)
    return path


def test_analyze_reports_verdicts_on_the_visited_span(tmp_path, capsys):
    import json

    from bilinear.cli import main

    path = _trained_like_cyclic5(tmp_path)
    assert main(["analyze", "--weights", str(path), "cyclic:5", "--json", "--words", "300",
                 "--out", str(tmp_path / "out"), "--no-figures"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["accuracy_by_length"]["accuracy"][499] == 1.0  # right at length 500
    co = data["commutators"]
    assert co["visited_dim"] == 2 and co["visited_max_norm"] < 0.05
    assert co["visited_verdict"] == "commute" and co["verdict"] == "do not commute"  # full space beside it
    headline = "\n".join(data["summary"])
    assert "commute on the 2-dimensional visited span" in headline and "full 16-dimensional space" in headline
    relations = next(line for line in data["summary"] if "defining relations" in line)
    assert data["relations"]["all_hold"] and relations.startswith("all 21 defining relations hold within")
    identity = data["spectrum"]["symbols"][0]
    assert identity["visited_order"] == 1 and identity["visited_holds"] and identity["order"] is None
    assert data["summary"][1].startswith("A_0 on the 2-dimensional visited span acts as the identity")
    assert data["implements"].startswith("implements Z_5 as transitions of order 1, 5 on a 2-dimensional")
    assert data["certificate"]["status"] in ("proved", "horizon", "snapped")
    assert data["certificate_line"].startswith("certificate (")
    text = (tmp_path / "out" / "report.md").read_text()
    for literal in ("None", "False", "True", "0000000"):
        assert literal not in text, literal


def test_failure_is_explained_by_the_quotient_and_the_certificate():
    from bilinear.analysis.implements import implements_line
    from bilinear.automata import Automaton

    d3 = from_spec("dihedral:3")
    # an extracted automaton that tracks only the sign of the permutation (s flips, r keeps)
    z2 = Automaton(np.array([[0, 1], [1, 0]]), start=0, labels=[0, 1], symbols=d3.symbols)

    class Ex:  # the parts of an Extraction the line reads
        isomorphic, minimal, status, distinguishing_text = False, z2, "ok", "s"

    line = implements_line(d3, "rotation2d", None, Ex(), None)
    assert line.startswith("tracks only the Z_2 quotient of D_3")
    assert "no rotation2d network can implement D_3 (Theorem 6: every rotation2d network labels" in line
    assert line.endswith("alike; D_3 does not)")


def test_a_rotation2d_network_on_d3_tracks_only_its_z2_quotient():
    from bilinear.constructions import Weights

    # r acts as the identity and s as a half turn: the network counts the s's mod 2, nothing more
    R = np.zeros((6, 2))
    R[0], R[3] = [1.0, 0.0], [-1.0, 0.0]  # classes e and s
    w = Weights("rotation2d", np.array([np.eye(2), -np.eye(2)]), np.array([1.0, 0.0]), R)
    r = analyze(w, from_spec("dihedral:3"), AnalysisConfig(extract=ExtractConfig(words=200, length=30),
                                                           curve_length=100))
    assert r.implements == ("tracks only the Z_2 quotient of D_3 (2 states); the network itself first errs on r "
                            "(automaton r, network e); mechanism: symbol r has no eigenvalue near a primitive root of unity "
                            "of order 3; no rotation2d network can implement D_3 (Theorem 6: every "
                            "rotation2d network labels r·s and s·r alike; D_3 does not)")
    assert r.summary.splitlines()[0] == r.implements
    assert r.certify_line.startswith("certificate (failed)")
