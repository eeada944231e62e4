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
    # a duration is "N s", or "N.N min" from two minutes on (bilinear/progress.py; a loaded machine)
    span = r"(?:\d+ s|\d+\.\d min)"
    assert re.fullmatch(rf"tour: 8 of 8 stages, done in {span}", lines[-1])
    running = [re.fullmatch(rf"tour: (\d) of 8 stages \(\d+%\), {span}(, about {span} left)? \((.+)\)", line)
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


def _tour_options() -> set[str]:
    import argparse

    from bilinear.cli import _register_tour

    sub = argparse.ArgumentParser().add_subparsers()
    _register_tour(sub)
    return {o for action in sub.choices["tour"]._actions for o in action.option_strings}


@pytest.mark.parametrize("argv, message", [
    (["--test-len", "100000000"], "this run needs more than 6e+03 GB (activations: 5.5e+03 GB), over the limit of 8 GB: "
                                  "lower --test-len"),
    (["--check-words", "100000000"], "would need about 1.14e+03 GiB (words x length x 24 bytes + words x hidden x 16); "
                                     "the limit is 1 GiB (bilinear.constructions.horizon.floatcheck.MAX_CHECK_BYTES): "
                                     "lower --check-words or --test-len"),
    (["--steps", "0"], "tour: --steps must be a positive integer, got 0"),
])
def test_tour_errors_name_only_the_tours_options_and_come_first(tmp_path, capsys, argv, message):
    """They named --max-memory-gb, --words and --length (options of train and verify), after the
    classification and the matrix had run."""
    import re

    from bilinear.cli import main

    out = tmp_path / "report"
    assert main(["tour", "--out", str(out), *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1, err
    named = set(re.findall(r"--[a-z][a-z-]*", err))
    assert named and named <= _tour_options(), named - _tour_options()
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_a_sweep_naming_a_missing_automaton_file_fails_before_any_run(tmp_path, capsys, monkeypatch):
    """It failed later, in a worker; now one line naming the file, and nothing is written."""
    from bilinear.learned import sweep as sweep_module

    def no_run(*args):  # pragma: no cover - the point is that no run starts
        raise AssertionError("a run started")

    monkeypatch.setattr(sweep_module, "_run_one", no_run)
    missing = tmp_path / "gone.json"
    toml = tmp_path / "s.toml"
    toml.write_text(f'families = ["parity", "{missing}"]\nmodels = ["diagonal"]\n[train]\nsteps = 2\n')
    out = tmp_path / "out"
    assert main(["sweep", str(toml), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"sweep family '{missing}': cannot read automaton file '{missing}': No such file or directory" in err
    assert err.count("\n") == 1 and not out.exists()
