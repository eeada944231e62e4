"""The tour end to end (small budgets), and its bad input."""

from __future__ import annotations

import json
import re

import pytest

from bilinear.cli import main
from bilinear.errors import ConfigError
from bilinear.progress import INTERVAL_ENV
from bilinear.tour import TOUR_FAMILIES, TourConfig, run_tour


@pytest.fixture(scope="module")
def tour(tmp_path_factory):
    import contextlib
    import io

    out = tmp_path_factory.mktemp("tour") / "report"
    err = io.StringIO()  # not a terminal: progress lines, no bar
    with pytest.MonkeyPatch.context() as mp, contextlib.redirect_stderr(err):
        mp.setenv(INTERVAL_ENV, "0.5")
        data = run_tour(TourConfig(out=str(out), steps=400, test_len=100, check_words=20))
    data["stderr"] = err.getvalue()
    return out, data


def test_tour_off_a_terminal_prints_progress_lines(tour):
    """Stderr redirected (not a terminal): one plain line every interval (0.5 s here), naming the
    stage being run, and a closing line; no bar's carriage returns."""
    _, data = tour
    lines = data["stderr"].splitlines()
    assert "\r" not in data["stderr"] and len(lines) >= 3
    assert all(line.startswith("tour: ") for line in lines), lines
    assert re.fullmatch(r"tour: 8 of 8 stages, done in \d+ s", lines[-1])
    running = [re.fullmatch(r"tour: (\d) of 8 stages \(\d+%\), \d+ s(, about \d+ s left)? \((.+)\)", line)
               for line in lines[:-1]]
    assert all(running), lines
    counts = [int(m.group(1)) for m in running if m]
    assert counts == sorted(counts)  # the count only grows
    phases = {m.group(3) for m in running if m}
    assert phases <= {"classify the monoids", "capability matrix", "train cyclic:5 full",
                      "check cyclic:5 full @100", "analyse cyclic:5 full", "train cyclic:3 diagonal",
                      "check cyclic:3 diagonal @100", "analyse cyclic:3 diagonal"}
    assert any(p.startswith("train ") for p in phases)  # training (the longest stage) is reported


def test_tour_writes_a_complete_report(tour):
    out, data = tour
    text = (out / "report.md").read_text()
    for spec in TOUR_FAMILIES:
        assert f"`{spec}`" in text
    assert "non-solvable group of order 60" in text  # A_5, computed by the closure
    assert "solvable monoid of size 25" in text  # modarith:5
    assert "proved d=2" in text and "impossible" in text  # matrix cells
    assert "Certificate: u=ε, g=1, v=ε" in text  # cyclic:3 with diagonal
    figures = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.png"))
    assert len(figures) >= 4
    for fig in figures:
        assert f"]({fig})" in text  # every figure is linked from the report
        assert (out / fig).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not list(out.parent.glob("*.partial-*"))  # the staging folder is gone


def test_tour_trains_one_success_and_one_theory_failure(tour):
    out, _ = tour
    record = json.loads((out / "tour.json").read_text())
    by_model = {(r["spec"], r["model"]): r for r in record["trained"]}
    good = by_model[("cyclic:5", "full")]
    bad = by_model[("cyclic:3", "diagonal")]
    assert good["result"]["accuracy_at_length"] >= 0.99
    assert good["check"]["first_failure"] is None
    assert bad["result"]["accuracy_at_length"] < 0.5
    assert bad["check"]["first_failure"] is not None
    assert bad["certificate_failing_word"]  # the certificate's words catch the trained network
    assert record["matrix"]


def test_tour_config_rejects_bad_values():
    with pytest.raises(ConfigError, match="steps"):
        TourConfig(steps=-1)
    with pytest.raises(ConfigError, match="seed"):
        TourConfig(seed=-3)


def test_tour_cli_refuses_a_file_as_output(tmp_path, capsys):
    target = tmp_path / "not-a-folder"
    target.write_text("keep me")
    assert main(["tour", "--out", str(target), "--quiet", "--steps", "10"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "not a folder" in err[0]
    assert target.read_text() == "keep me"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["not-a-folder"]


def test_tour_prints_a_short_summary_and_writes_the_full_report(tour):
    out, data = tour
    summary = data["text"].splitlines()
    assert len(summary) < 30 and max(len(line) for line in summary[:20]) < 100  # the matrix, short
    assert any(line.startswith("cyclic:5 ") and "d=2" in line for line in summary)
    lines = [line for line in summary if line.startswith("- ")]
    assert len(lines) == 2
    assert lines[0].startswith("- cyclic:5 full: implements Z_5") and "certificate (" in lines[0]
    assert lines[1].startswith("- cyclic:3 diagonal: ") and "no diagonal network can implement Z_3" in lines[1]
    text = (out / "report.md").read_text()
    assert "Certificate of the trained network: certificate (" in text
    for literal in ("None", "False", "True"):
        assert literal not in text
    record = json.loads((out / "tour.json").read_text())
    assert all(r["certificate_line"].startswith("certificate (") for r in record["trained"])
