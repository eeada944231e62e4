"""``certify --from``'s ball search is bounded (docs/certify.md, docs/limits.md): on the tests' own
hand-set parity DeltaNet (beta = 2: reflections, isometries, so no ball ever fits inside an earlier
one and the search never closes) it stops at its step limit or at the time budget, and the report
says "every word of length <= L" with L the levels completed, never more; a level costs the same at
any depth; progress lines come on stderr.  Also: words in the task's symbol names, and the
heading "exact per symbol" decided on the keys, not on the length of their names."""

from __future__ import annotations

import itertools
import time

import numpy as np
import pytest

import bilinear.analysis.certify_balls as cb
from bilinear.analysis.certify_balls import ball_horizon
from bilinear.analysis.certify_external import certify_external
from bilinear.analysis.external import _head, analyze_external
from bilinear.analysis.report import AnalysisConfig
from bilinear.automata import from_spec
from bilinear.cli import main
from bilinear.errors import AnalysisError
from bilinear.learned import load_external
from bilinear.learned.external import head_transitions
from bilinear.learned.external.tracker import ExternalTracker
from bilinear.learned.handset import s3_automaton
from external_fixtures import handset_parity

from .test_certify_external_fast import _model

PARITY = from_spec("parity")
TOKENS, LABELS = (0, 1), (2, 3)


@pytest.fixture(scope="module")
def par2(tmp_path_factory):
    folder, _ = handset_parity(tmp_path_factory.mktemp("par2") / "model")
    return folder, load_external(folder, "fla")


def _steps_through(L: int) -> int:
    """Steps of the first L levels on the hand-set parity layer, counted here: level 1 reads both
    symbols from the start (2 steps, 2 nodes); from then on the nodes are the 4 (state, last
    symbol) pairs, none inside an earlier ball (an isometry), each read with both symbols."""
    return 0 if L == 0 else 2 if L == 1 else 2 + 4 + 8 * (L - 2)


def _right_on(model, words) -> bool:
    got = model.logits(np.asarray(words))[..., list(LABELS)].argmax(-1)
    return bool((got == PARITY.labels_batch(np.asarray(words), trace=True)).all())


def test_the_step_limit_stops_the_search_at_the_levels_completed(par2):
    _, model = par2
    h = ball_horizon(model, PARITY, TOKENS, LABELS, "float64", delta=2.0 ** -30, max_steps=200, max_depth=60)
    L = max(d for d in range(100) if _steps_through(d) <= 200)  # a level is started only if it fits
    assert h == {"length": L, "every": False, "failing": None, "nodes": 2 + 4 * (L - 1),
                 "steps": _steps_through(L), "stopped": "steps"}
    assert L == 26
    # what it says holds for the model (its own float64 forward): every word to 12, random words to L
    assert _right_on(model, list(itertools.product((0, 1), repeat=12)))
    assert _right_on(model, np.random.default_rng(0).integers(0, 2, size=(64, L)))


def test_a_level_costs_the_same_at_any_depth(par2, monkeypatch):
    """The ball-arithmetic test "inside an earlier ball" runs only where the floats allow it (here
    mostly the sibling of the same level, whose ball the other successor of a (state, last symbol)
    pair falls into): a bounded number of times a step at any depth, where the plain scan ran it
    against every ball kept (quadratic in the depth: tens of thousands of times for 101 levels)."""
    _, model = par2
    calls = []
    real = cb._inside
    monkeypatch.setattr(cb, "_inside", lambda big, small: calls.append(1) or real(big, small))
    short = ball_horizon(model, PARITY, TOKENS, LABELS, "float64", delta=2.0 ** -30, max_steps=200)
    few = len(calls)
    long = ball_horizon(model, PARITY, TOKENS, LABELS, "float64", delta=2.0 ** -30, max_steps=800)
    assert short["length"] == 26 and long["stopped"] == "steps" and long["length"] == 101
    assert few <= 2 * short["steps"] and len(calls) - few <= 2 * long["steps"]  # about 1.1 a step at both depths


def test_the_floats_pass_over_no_ball_that_holds_the_new_one():
    """_Kept checks in balls every kept ball whose floats allow it, and only those: a ball that holds
    the new one (even by a margin of 1e-13) is found, a ball that does not is never taken for one."""
    import flint

    def ball(c, r):
        return [cb._Ball(flint.arb_mat([[flint.arb(x) for x in row] for row in c]), flint.arb(r))]

    kept = cb._Kept()
    for shift in np.linspace(0.0, 5.0, 40):
        kept.add(ball([[shift, 0.0], [0.0, 1.0]], 0.5))
    assert kept.n == 40 and len(kept.balls) == 40
    assert kept.holds(ball([[5.0, 0.0], [0.0, 1.0]], 0.5))               # equal to the last one kept
    assert kept.holds(ball([[5.0, 0.0], [0.0, 1.0 + 0.5 - 1e-13]], 0.0))   # on its edge, within 1e-13
    assert not kept.holds(ball([[5.0, 0.0], [0.0, 1.0]], 0.5 + 1e-12))
    assert not kept.holds(ball([[7.0, 0.0], [0.0, 1.0]], 0.1))
    assert not cb._Kept().holds(ball([[0.0, 0.0], [0.0, 0.0]], 0.0))


def test_the_time_budget_stops_the_search_at_the_levels_completed(par2):
    _, model = par2
    started = time.monotonic()
    h = ball_horizon(model, PARITY, TOKENS, LABELS, "float64", delta=2.0 ** -30, stop_at=started + 0.3)
    assert time.monotonic() - started < 0.6 and h["stopped"] == "time" and not h["every"]
    L = h["length"]
    assert _steps_through(L) <= h["steps"] < _steps_through(L + 1)  # the level under way is dropped
    cert = certify_external(model, PARITY, TOKENS, LABELS, diff=False, time_budget=0.5)
    assert cert.seconds < 1.0
    line = next(x for x in cert.to_text().splitlines() if x.startswith("horizon (float64)"))
    L = cert.horizons["float64"]["length"]
    assert line.startswith(f"horizon (float64): every word of length <= {L} is labelled right")
    assert line.endswith(f"stopped by the time budget during length {L + 1})")
    with pytest.raises(AnalysisError, match="time_budget"):
        certify_external(model, PARITY, TOKENS, LABELS, time_budget=0)
    with pytest.raises(AnalysisError, match="max_steps"):
        certify_external(model, PARITY, TOKENS, LABELS, max_steps=0)


def test_certify_from_says_which_limit_stopped_it(par2, monkeypatch, capsys):
    """The default steps limit, shrunk: the line says the levels completed and the limit; progress
    lines on stderr name the format, the level and the steps."""
    _, model = par2
    monkeypatch.setenv("BILINEAR_PROGRESS_INTERVAL", "0.05")
    cert = certify_external(model, PARITY, TOKENS, LABELS, diff=False, max_steps=200, time_budget=5.0)
    text = cert.to_text()
    assert ("horizon (float64): every word of length <= 26 is labelled right by the model run in float64 (every "
            "word run in balls, Theorem A8; stopped: length 27 would take the search past its limit of 200 steps)") \
        in text
    assert cert.status == "failed" and cert.horizons["float64"]["steps"] == _steps_through(26)
    err = capsys.readouterr().err
    assert "certify --from: ball search: " in err and "float64, widening 2^-30: level " in err


def test_the_command_keeps_its_time_budget_and_prints_the_levels_completed(par2, capsys):
    """``--time-budget`` (whose timer the ball search reads): the certificate is printed, exit 0,
    with the levels completed; without the bound the search ran 10^6 levels and printed nothing."""
    folder, _ = par2
    started = time.monotonic()
    rc = main(["certify", "--from", "fla", folder, "--task", "parity", "--tokens", "0=0,1=1",
               "--labels", "even=2,odd=3", "--dtype", "float64", "--time-budget", "1.2"])
    assert rc == 0 and time.monotonic() - started < 1.5
    out = capsys.readouterr().out
    assert "horizon (float64): every word of length <= " in out and "stopped by the time budget during length" in out
    assert "status: failed" in out


def test_certify_words_are_written_in_the_task_symbol_names():
    """The S3 fixture's bfloat16 diff is the word t2 t2 (symbol indices 1 1), as analyze writes words."""
    cert = certify_external(_model(), s3_automaton(), (0, 1, 2), None, dtypes=("float64", "bfloat16"))
    assert cert.diffs["bfloat16"][0] == (1, 1)
    assert "diff float64 vs bfloat16: labels differ first on the word t2 t2" in cert.to_text()
    assert cert.to_json()["diffs"]["bfloat16"] == [1, 1]  # JSON keeps the indices


def test_exact_per_symbol_is_decided_on_the_keys():
    """The S3 fixture (no convolution) has the keys t1, t2, c: one symbol each, whatever the names'
    lengths; a layer fed by windows is "exact per window"."""
    model, automaton = _model(), s3_automaton()
    tracker = ExternalTracker.make(model, "t1=0,t2=1,c=2", None, None, symbols=list(automaton.symbols),
                                   classes=[str(c) for c in automaton.classes])
    h = _head(head_transitions(model, tracker, 0)[0], automaton, AnalysisConfig())
    assert h.keys == ("t1", "t2", "c") and h.per_symbol
    assert h.lines()[0] == "### Layer 1, head 0 (exact per symbol)"
    assert h.relations.startswith("all 13 defining relations hold")


def test_the_markdown_has_no_empty_section_and_no_line_outside_its_item():
    """The behaviour's own sections sit under "## Behaviour" (one level down), and a reading of
    several lines is a nested list under its item."""
    rep = analyze_external(_model(), s3_automaton(), "t1=0,t2=1,c=2", None,
                           config=AnalysisConfig(curve_length=20, run_extraction=False), search_words=8)
    md = rep.to_markdown().splitlines()
    i = md.index("## Behaviour (the model's own float64 forward)")
    assert md[i + 1] == "" and md[i + 2] == "### Summary"
    assert "### Accuracy by length" in md[i:] and not any(x.startswith("## ") for x in md[i + 1:])
    heads = md[md.index("## Heads"):i]
    assert "- spectra:" in heads and "  - A_c acts as a rotation of order 3 on a 2-dimensional subspace" in heads
    assert all(x == "" or x.startswith(("- ", "  - ", "### ", "## ")) for x in heads), heads


def test_the_level_limit_line(trained_parity):
    """Fixture (c) (trained betas, two heads): the nodes double every level, so the level limit
    stops the search; the line says which length would have passed it."""
    folder, _ = trained_parity
    cert = certify_external(load_external(folder, "fla"), PARITY, "0=0,1=1", "even=2,odd=3", diff=False,
                            max_nodes=64)
    h = cert.horizons["float64"]
    L = h["length"]
    assert h["stopped"] == "nodes" and h["failing"] is None and 2 ** (L - 1) <= 64 < 2 ** L
    assert (f"horizon (float64): every word of length <= {L} is labelled right by the model run in float64 (every "
            f"word run in balls, Theorem A8; stopped: length {L + 1} would start from more than 64 balls, the limit "
            "of one level)") in cert.to_text()
