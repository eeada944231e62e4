"""Analysis of a trained cyclic:5 full network (small budget, via the learned room's train API)."""

import json

import pytest

from bilinear.analysis import AnalysisConfig, ExtractConfig, analyze
from bilinear.analysis.cli import load_target
from bilinear.cli import main
from bilinear.errors import AnalysisError
from bilinear.learned import TrainConfig
from bilinear.learned.runs import RunDir
from bilinear.learned import train

# every field that shapes the trained weights is pinned, so that changes of the defaults elsewhere
# do not change what this test analyses
CONFIG = TrainConfig(
    spec="cyclic:5", model="full", hidden=8, steps=600, lr=1e-2, test_len=100, test_words=50, seed=0,
    batch=64, train_min_len=2, train_max_len=10, eval_every=50, patience=4, normalize_train=True,
    init="orthogonal", grad_clip=1.0,
)


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    path = tmp_path_factory.mktemp("runs") / "cyclic5-full"
    result = train(CONFIG, RunDir(path, CONFIG))
    assert result["accuracy_at_length"] == 1.0  # the run generalises to length 100
    return path


def test_trained_cyclic5_report(run_dir):
    weights, automaton, title, source = load_target(run_dir=run_dir)
    assert weights.variant == "full" and not weights.exact and weights.dim == 8
    assert source["accuracy_at_length"] == 1.0
    report = analyze(weights, automaton, AnalysisConfig(span_tol=0.2, extract=ExtractConfig(words=300, length=100)))
    rel = report.relations
    assert rel.total == len(rel.relations) > 0
    # 'holds' is exactly 'residual on the visited span <= tol', relation by relation
    assert all(r.holds == (r.residual_visited <= 0.2) for r in rel.relations)
    assert rel.max_residual == max(r.residual_visited for r in rel.relations)
    # a network that is right at length 100 satisfies Z_5's relations on the states it visits
    assert rel.all_hold
    ex = report.extraction
    assert ex.isomorphic is True and ex.minimal.n_states == 5
    assert ex.classification == "abelian group of order 5"
    assert ex.accuracy == 1.0
    # the learned symbol matrices are near rotations of order 5 on their unit-modulus part
    for m in report.spectrum.symbols[1:]:
        unit = [r for r, z in zip(m.roots, m.normalised) if abs(abs(z) - 1) < 1e-2]
        assert unit and all(r.order == 5 and r.distance < 0.05 for r in unit)
        # and on the span of the states it visits at length, each acts nearly with order 5
        assert m.visited_order == 5 and m.visited_residual < 0.1
    assert report.spectrum.symbols[0].visited_order == 1
    # not commuting on the whole space, but nearly so where the states live
    assert report.commutators.verdict == "do not commute"  # the full-space verdict
    assert report.commutators.visited_verdict == "commute"  # within span_tol = 0.2 where the states live
    assert report.commutators.visited_max_norm < 0.1 < report.commutators.max_norm


def test_strict_tolerance_reports_failing_relations(run_dir):
    weights, automaton, _, _ = load_target(run_dir=run_dir)
    report = analyze(weights, automaton, AnalysisConfig(span_tol=1e-9, run_extraction=False))
    assert not report.relations.all_hold
    assert "do not" in report.relations.reading


def test_cli_on_run_dir(run_dir, tmp_path, capsys):
    assert main(["analyze", str(run_dir), "--json", "--words", "200", "--out", str(tmp_path / "o")]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["extraction"]["isomorphic"] is True
    assert data["source"]["run"] == str(run_dir)
    assert (tmp_path / "o" / "report.md").is_file()


def test_unfinished_run_refused(run_dir, tmp_path):
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(run_dir, copy)
    (copy / "result.json").unlink()
    with pytest.raises(AnalysisError, match="not finished"):
        load_target(run_dir=copy)
    shutil.copytree(run_dir, tmp_path / "nomodel")
    (tmp_path / "nomodel" / "model.pt").unlink()
    with pytest.raises(AnalysisError, match="model.pt"):
        load_target(run_dir=tmp_path / "nomodel")


def test_default_verdicts_agree_with_the_measured_accuracy(run_dir):
    # a network right on every sampled word of an abelian task is never said to fail its relations
    # or not to commute, whatever the residuals on its visited span
    weights, automaton, _, _ = load_target(run_dir=run_dir)
    report = analyze(weights, automaton, AnalysisConfig(extract=ExtractConfig(words=300, length=100),
                                                        curve_length=200, run_certify=False))
    assert report.extraction.isomorphic is True and report.extraction.accuracy == 1.0
    lines = report.summary.splitlines()
    commute = next(line for line in lines if "transition matrices" in line)
    relations = next(line for line in lines if "defining relations" in line)
    assert commute.startswith("the transition matrices commute on the") and "do not" not in commute
    assert relations.startswith("all 21 defining relations hold within") and "do not" not in relations
    assert lines[0].startswith("implements Z_5")


def test_run_title_names_the_automaton_and_model_and_the_band_is_drawn(run_dir, tmp_path):
    from bilinear.analysis.report import CURVE_CAPTION

    weights, automaton, title, source = load_target(run_dir=run_dir)
    assert title == f"cyclic:5 / full, hidden 8 (run {run_dir.name})"
    assert source["train_range"] == [2, 10]
    assert main(["analyze", str(run_dir), "--out", str(tmp_path / "an"), "--json"]) == 0
    report = json.loads((tmp_path / "an" / "report.json").read_text())
    assert report["accuracy_by_length"]["train_range"] == [2, 10]
    text = (tmp_path / "an" / "report.md").read_text()
    assert "The shaded band is the training lengths (2-10)." in text
    # a construction has no training lengths: no band, and no sentence about one
    assert main(["analyze", "--construction", "cyclic:5", "rotation2d", "--out", str(tmp_path / "c")]) == 0
    construction = (tmp_path / "c" / "report.md").read_text()
    assert CURVE_CAPTION in construction and "shaded band" not in construction


@pytest.mark.docs_numbers
def test_every_number_of_the_trained_networks_paragraph_of_analysis_md(run_dir):
    """docs/analysis.md, "Trained networks": the paragraph on this very run, with the defaults of
    `bilinear analyze`, rebuilt from the report, and its implements and certificate lines, quoted
    as examples further up; a change of any number fails here."""
    from pathlib import Path

    doc = " ".join((Path(__file__).resolve().parents[2] / "docs" / "analysis.md").read_text().split())
    weights, automaton, _, source = load_target(run_dir=run_dir)
    result = json.loads((run_dir / "result.json").read_text())
    report = analyze(weights, automaton)  # the defaults of `bilinear analyze RUN_DIR`
    sp, co, rel, ex = report.spectrum, report.commutators, report.relations, report.extraction
    # the summary's first and last lines are quoted as examples
    assert f"below `{report.implements}`; or," in doc
    assert f"on the same `d = 8` network `{report.certify_line}` (" in doc
    assert result["stopped_early"] and source["accuracy_at_length"] == 1.0 and CONFIG.test_len == 100
    assert f"(early stop after {result['steps']} steps; normalised test accuracy 1.0 at length 100)" in doc
    # no finite order on the whole space; the smallest eigenvalue modulus of each symbol
    assert all(m.order is None for m in sp.symbols)
    smallest = [min(abs(z) for z in m.normalised) for m in sp.symbols]
    assert f"the smallest eigenvalue modulus of each is {min(smallest):.2g}–{max(smallest):.2g} of its" in doc
    unit = [r.distance for m in sp.symbols[1:] for r, z in zip(m.roots, m.normalised) if abs(abs(z) - 1) < 1e-2]
    assert unit and max(unit) < 0.01 and "within 0.01 of primitive 5th roots of unity" in doc
    assert [m.visited_order for m in sp.symbols] == [1, 5, 5, 5, 5] and sp.symbols[0].visited_dim == 4
    assert "on the 4-dimensional visited span `A_1 ... A_4` have order 5 and `A_0` order 1" in doc
    assert co.verdict == "do not commute" and co.visited_verdict == "commute"
    assert (f"do not commute on the whole space (norm {co.max_norm:.3g}) but do on the visited span "
            f"({co.visited_max_norm:.3g})") in doc
    assert rel.total == 21 and not rel.all_hold and rel.max_residual > 0.05
    assert f"the 21 defining relations of Z_5 hold there within {rel.max_residual:.2g}." in doc
    assert ex.method == "behaviour" and ex.minimal.n_states == 5 and ex.isomorphic and ex.accuracy == 1.0
    assert f"yields 5 states, margin {ex.margin:.2g}, isomorphic to Z_5" in doc
    line = next(line for line in report.summary.splitlines() if "defining relations" in line)
    assert line.startswith(f"all 21 defining relations hold within {rel.max_residual:.2g} on the 4-dimensional")
    assert f"{rel.n_holding} hold within it" in line
    assert (f"the relations hold within {rel.max_residual:.2g} on the visited span and that {rel.n_holding} hold "
            "within the tolerance") in doc
