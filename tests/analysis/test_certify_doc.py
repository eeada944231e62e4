"""docs/certify.md's two trained examples, re-run: every number the docs quote from them is checked.

The doc trains two networks with the commands it quotes (seed 0, the defaults, one torch thread:
conftest.py) and certifies them.  Here the quoted training commands run in a temporary folder,
the sentences that quote their results are rebuilt from the runs' JSON and must appear in the doc,
every ``$ bilinear ...`` line of the doc's console blocks runs there and must print exactly the
lines the doc shows under it, and the prose that re-quotes those lines (margins, lengths, the
failing words) is checked against them.  docs/training.md quotes the rotation2d run too, and
docs/analysis.md and getting-started.md the full one (it is the tour's network); those sentences
are checked here as well.  The Python examples of docs/certify.md are doctests
(tests/test_docs.py).
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import re
import shlex
from pathlib import Path

import pytest
from plain_eval import no_node_horizon

from bilinear.cli import main

#: every test here reads the networks the doc's own commands train (docs/certify.md)
pytestmark = pytest.mark.docs_numbers

DOCS = Path(__file__).resolve().parents[2] / "docs"
CERTIFY = (DOCS / "certify.md").read_text(encoding="utf-8")
TRAINING = (DOCS / "training.md").read_text(encoding="utf-8")


def _flat(text: str) -> str:
    """Whitespace runs as one space (the prose wraps lines anywhere)."""
    return " ".join(text.split())


def console_blocks(markdown: str) -> list[list[tuple[str, list[str]]]]:
    """The fenced blocks whose first line is ``$ ...``: each a list of (command, printed lines)."""
    blocks = []
    for body in re.findall(r"^```[a-z]*\n(.*?)^```", markdown, flags=re.S | re.M):
        lines = body.rstrip("\n").split("\n")
        if not lines[0].startswith("$ "):
            continue
        steps: list[tuple[str, list[str]]] = []
        for line in lines:
            if line.startswith("$ "):
                steps.append((line[2:], []))
            else:
                steps[-1][1].append(line)
        blocks.append(steps)
    return blocks


def _run(command: str) -> tuple[int, str]:
    argv = shlex.split(command)
    assert argv[0] == "bilinear", command
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv[1:])
    return status, out.getvalue()


TRAIN_COMMANDS = re.findall(r"`(bilinear train [^`]*--out (\w+))`", CERTIFY)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Train the doc's networks by its own commands, then run every console line of the doc."""
    folder = tmp_path_factory.mktemp("certify-doc")
    results, printed = {}, {}
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(folder)
        for command, out in TRAIN_COMMANDS:
            status, text = _run(command + " --json --quiet")
            assert status == 0, command
            results[out] = json.loads(text)
        for block in console_blocks(CERTIFY):
            for command, _ in block:
                printed[command] = _run(command)
    return folder, results, printed


def test_the_doc_trains_the_two_networks_it_certifies():
    assert [out for _, out in TRAIN_COMMANDS] == ["rot16", "full16"]
    commands = [c for block in console_blocks(CERTIFY) for c, _ in block]
    assert commands == ["bilinear certify rot16 --write rot16.snap.json",
                        "bilinear certify full16 --write full16.snap.json",
                        "bilinear verify cyclic:5 full --weights full16.snap.json"]


def test_the_training_results_the_doc_quotes(runs):
    _, results, _ = runs
    rot, full = results["rot16"], results["full16"]
    assert rot["stopped_early"] and rot["test_length"] == 500
    sentence = (f"`{TRAIN_COMMANDS[0][0]}` stopped early after {rot['steps']} steps with training accuracy "
                f"{rot['train_accuracy']} and normalised accuracy {rot['accuracy_at_length']:.2f} at length "
                f"{rot['test_length']} (the mean over positions 1..{rot['test_length']} was "
                f"{rot['accuracy_mean_over_positions']:.2f})")
    assert _flat(sentence) in _flat(CERTIFY)
    sentence = (f"`{TRAIN_COMMANDS[1][0]}` reached normalised accuracy {full['accuracy_at_length']:.2f} at length "
                f"{full['test_length']} on random words")
    assert _flat(sentence) in _flat(CERTIFY)


def test_training_md_quotes_the_same_rotation2d_run(runs):
    """training.md's `bilinear train cyclic:5 rotation2d --json` (the defaults) is certify.md's rot16
    run: hidden 16 is the default."""
    from bilinear.learned import TrainConfig

    _, results, _ = runs
    rot = results["rot16"]
    assert TrainConfig(spec="cyclic:5", model="rotation2d").hidden == 16
    sentence = (f"stops at **{rot['steps']} steps**, with accuracy at length {rot['test_length']} (last position) "
                f"of **{rot['accuracy_at_length']:.2f}** ({rot['accuracy_mean_over_positions']:.2f} averaged over "
                f"positions)")
    assert _flat(sentence) in _flat(TRAINING)
    sentence = (f"reads {rot['accuracy_mean_over_positions']:.2f} averaged over positions and "
                f"{rot['accuracy_at_length']:.2f} at length 500")
    assert _flat(sentence) in _flat(TRAINING)


#: Two parts of a printed certificate that hang on the last bits of the trained weights: which of
#: several equally short failing words the beam search keeps (its ties are broken by margins that
#: differ in the 7th digit between CPUs, and between allocations on one CPU), and the digits of the
#: snap's exact margin (the snap rounds the float weights).  The console comparison masks them; each
#: is then checked for what it says: the doc's word has the printed length and fails on this run's
#: network, and the doc's exact margin is the printed decimal one.
_FAILING_WORD = re.compile(r"(fails at length (\d+) on )(.+?)( \((?:float|real))")
_EXACT = re.compile(r"\(exact: \((.+) in Q\(z_(\d+)\)\)\)")


def _masked(line: str) -> str:
    return _EXACT.sub(lambda m: f"(exact: (... in Q(z_{m.group(2)})))", _FAILING_WORD.sub(r"\1WORD\4", line))


def _doc_word_fails(folder, run: str, length: int, text: str) -> bool:
    """The doc's failing word has ``length`` symbols and the float64 network of ``run`` first fails
    on it at its last symbol (evaluated by the evaluator written for the tests, not by the search)."""
    import numpy as np
    from plain_eval import float64_margins

    from bilinear.automata.words import expand
    from bilinear.learned import load_run

    _, net, automaton, _ = load_run(folder / run)
    word = expand(text, automaton)
    A, h0, R = net.to_weights().float_arrays()
    margins = float64_margins(A, h0, R, automaton, np.array([word]))[0]
    return len(word) == length and bool(margins[-1] <= 0) and bool((margins[:-1] > 0).all())


def _exact_value(expression: str, order: int) -> float:
    """The real value of an element of Q(z_order) written as the prover prints it (z = e^(2 pi i/order))."""
    import sympy

    z = sympy.Symbol("z")
    value = sympy.sympify(expression.replace("^", "**"), locals={"z": z}).subs(z, sympy.exp(2 * sympy.pi * sympy.I / order))
    return float(sympy.re(sympy.N(value, 30)))


@pytest.mark.parametrize("index", range(3))
def test_every_console_line_prints_what_the_doc_shows(runs, index):
    """Line for line, with the failing word and the exact margin masked (:data:`_FAILING_WORD`);
    the doc's masked parts are checked against this run: its failing word fails here at the length
    printed, and its exact margin is the decimal margin printed beside it."""
    folder, _, printed = runs
    command, shown = [step for block in console_blocks(CERTIFY) for step in block][index]
    status, text = printed[command]
    assert status == 0, command
    lines = text.rstrip("\n").split("\n")
    assert [_masked(x) for x in lines] == [_masked(x) for x in shown]
    for line in shown:
        if match := _FAILING_WORD.search(line):
            run = command.split()[2]
            assert _doc_word_fails(folder, run, int(match.group(2)), match.group(3)), (run, match.group(3))
        if match := _EXACT.search(line):
            decimal = re.search(r"minimum margin: ([\d.]+)", line).group(1)
            exact = _exact_value(match.group(1), int(match.group(2)))
            assert f"{exact:.{len(decimal.split('.')[1])}f}" == decimal, (exact, decimal)


def test_the_masks_hide_only_the_word_and_the_exact_digits():
    """A different length, a different decimal margin or other text still fails the comparison."""
    line = "float network: fails at length 30 on 2 0^7 1^2 0^20 (float64 evaluation; it fails in real arithmetic too)"
    assert _masked(line) == _masked(line.replace("2 0^7 1^2 0^20", "0^2 1 2 0^5 1 0^20"))
    assert _masked(line) != _masked(line.replace("length 30", "length 31"))
    assert _masked(line) != _masked(line.replace("real", "float32"))
    margin = "  minimum margin: 1.91548 (exact: (1/2 + z in Q(z_20)))"
    assert _masked(margin) == _masked(margin.replace("1/2 + z", "3/4 - z^3"))
    assert _masked(margin) != _masked(margin.replace("1.91548", "1.91549"))
    assert _masked(margin) != _masked(margin.replace("z_20", "z_12"))
    assert round(_exact_value("1/2 + z^5 - z^15", 20), 12) == 0.5  # z^5 = i, z^15 = -i
    assert round(_exact_value("z + z^19", 20), 9) == round(2 * math.cos(math.pi / 10), 9)


def _certificate(printed, run: str) -> dict:
    """The figures of one printed certificate, read off its lines."""
    text = printed[f"bilinear certify {run} --write {run}.snap.json"][1]
    figures = {
        "kept": re.search(r"(\d+) of (\d+) dims kept", text).group(1),
        "pairs": re.search(r"(\d+) pairs, minimum margin", text).group(1),
        "margin": float(re.search(r"minimum margin ([\d.]+)", text).group(1)),
        "certified": re.search(r"correct for every word up to length (\d+)", text).group(1),
        "failing": re.search(r"fails at length (\d+) on (.+?) \(", text).groups(),
        "bound": re.search(r"\(certified, (\S+) bound", text).group(1),
        "suffix": re.search(r"\(suffix (\d+), balls of ages 0..(\d+)(?:, up to (\d+) sets per node)?"
                            r"(?:, a radius per block of the snap's (\d+) blocks)?\)", text).groups(),
    }
    return figures


def test_the_prose_reads_the_printed_certificates(runs):
    _, _, printed = runs
    doc = _flat(CERTIFY)
    rot = _certificate(printed, "rot16")
    assert _flat(f"The snap is proved: {rot['pairs']} reachable (state, direction) pairs, every margin at "
                 f"least {rot['margin']:.1f}") in doc
    shown = "\n".join(dict(step for block in console_blocks(CERTIFY) for step in block)["bilinear certify rot16 --write rot16.snap.json"])
    doc_word = _FAILING_WORD.search(shown)
    assert doc_word.group(2) == rot["failing"][0]  # its word is checked to fail here by the console test
    assert f"The float network fails on `{doc_word.group(3)}`" in doc
    assert rot["bound"] == "node"
    assert _flat(f"The certified length ({rot['certified']}, the node bound of Theorem 20: up to {rot['suffix'][2]} "
                 f"sets of states per automaton state and last {rot['suffix'][0]} symbols") in doc

    full = _certificate(printed, "full16")
    assert f"({full['kept']} of 16 dims)" in doc
    assert full["bound"] == "node"
    assert _flat(f"horizon ({full['certified']} against {full['failing'][0]}) is the node bound's") in doc
    assert _flat(f"pay a norm only once every {int(full['suffix'][1]) + 1} steps (balls of ages 0..{full['suffix'][1]})") in doc
    assert _flat(f"with a radius per block of the snap's basis ({full['suffix'][3]} blocks") in doc
    assert f"a shorter word of {full['failing'][0]} symbols" in _flat(doc)
    assert int(full["failing"][0]) < 140 and "finds `(4 1)^70` (140)" in doc  # the directed phases' word
    assert int(rot["failing"][0]) < 31 and "find `2 0^39` (40)" in doc and "one more symbol `1 0^29 3` (31)" in doc


def test_the_written_snaps_are_proved_and_right_at_any_length(runs):
    """"the written file reproves with `bilinear verify --weights rot16.snap.json cyclic:5 rotation2d`
    and scores 1.00 at any length" (the full16 file's verify is a console line above)."""
    from bilinear.automata import from_spec
    from bilinear.constructions import check
    from bilinear.constructions import Weights

    folder, _, _ = runs
    command = "bilinear verify --weights rot16.snap.json cyclic:5 rotation2d"
    assert f"`{command}`" in CERTIFY
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(folder)
        status, text = _run(command)
    assert status == 0 and text.startswith("cyclic:5 rotation2d: proved")
    snap = Weights.load(folder / "rot16.snap.json")
    assert check(snap, from_spec("cyclic:5"), length=2000, words=32).accuracy == 1.0


def test_full16_is_the_tours_network_and_analysis_md_quotes_its_verdicts(runs):
    """docs/analysis.md quotes the visited-span verdicts of the tour's `cyclic:5 full` network, "the
    same weights as docs/certify.md's full16, and as `bilinear train cyclic:5 full`", and
    getting-started.md its accuracy at length 500.  Same weights: the configurations differ only
    in the step budget, which only bounds the loop (no curriculum), and full16's validation streak
    reaches the patience at its last step, so a larger budget stops there too."""
    from bilinear.analysis import AnalysisConfig, analyze
    from bilinear.analysis.targets import load_target
    from bilinear.learned import TrainConfig
    from bilinear.tour import TOUR_MODELS, TourConfig

    folder, results, _ = runs
    config = json.loads((folder / "full16" / "config.json").read_text())
    tour = TourConfig()
    assert ("cyclic:5", "full") in [(s, m) for s, m, _ in TOUR_MODELS] and tour.seed == 0
    default = TrainConfig(spec="cyclic:5", model="full", seed=tour.seed, test_len=tour.test_len).to_dict()
    assert {k: v for k, v in config.items() if k != "steps"} == {k: v for k, v in default.items() if k != "steps"}
    assert config["curriculum_max_len"] is None
    metrics = [json.loads(line) for line in (folder / "full16" / "metrics.jsonl").read_text().splitlines()]
    assert metrics[-1]["step"] == config["steps"] and metrics[-1]["streak"] >= config["patience"]
    assert config["steps"] < min(tour.steps, default["steps"])

    # docs/training.md's `bilinear train cyclic:5 full --steps 3000` is this run, stopped early at its last step
    full = results["full16"]
    line = (f"$ bilinear train cyclic:5 full --steps 3000 cyclic:5 / full (hidden 16, {full['params']} params): "
            f"{full['steps']} steps (early stop), train accuracy {full['train_accuracy']:.4f}, normalised accuracy "
            f"at length 500 (last position): {full['accuracy_at_length']:.4f} (averaged over positions 1-500: "
            f"{full['accuracy_mean_over_positions']:.4f})")
    assert line in _flat(TRAINING)

    guide = _flat((DOCS / "getting-started.md").read_text(encoding="utf-8"))
    assert f"it reaches normalised accuracy {results['full16']['accuracy_at_length']:.1f} at length 500" in guide

    weights, automaton, _, _ = load_target(run_dir=str(folder / "full16"))
    report = analyze(weights, automaton, AnalysisConfig(run_certify=False, curve_length=0))
    lines = report.summary.splitlines()
    analysis = _flat((DOCS / "analysis.md").read_text(encoding="utf-8"))
    commute = next(line for line in lines if line.startswith("the transition matrices"))
    relations = next(line for line in lines if "defining relations" in line)
    identity = next(line for line in lines if line.startswith("A_0 "))
    assert f'"{commute}"' in analysis
    assert f'"{relations}"' in analysis
    assert f'"{identity.split(";")[0]}; ..."' in analysis


def test_what_theorem_16_alone_certifies_and_the_norms_the_prose_quotes(runs):
    """"Theorem 16 alone ... certifies only the lengths run exhaustively (4)" (rot16), "Theorem 16
    alone certifies 7" (full16): certify with the node horizon switched off.  "their norms in the
    snap's basis reach 2.3 where their products stay below 1.5": the matrices of the full16
    snap's basis, scaled as the theorems scale them, their 2-norms and those of every product of
    5 of them (the node bound's ages 0..4), computed here with numpy."""
    import itertools

    import numpy as np

    from bilinear.analysis.certify import certify_network
    from bilinear.constructions.horizon import horizon
    from bilinear.constructions.exact.balls import precision
    from bilinear.constructions.horizon.horizon_global import ingredients
    from bilinear.constructions.horizon.roundoff import RoundOff
    from bilinear.learned import load_run

    folder, _, _ = runs
    doc = _flat(CERTIFY)
    alone, weights = {}, {}
    from bilinear.constructions.horizon import failsearch
    # one certify per run, with both the node horizon and the beam search switched off: Theorem 16
    # alone, and the directed phases alone ("finds `(4 1)^70` (140)", "`1 0^29 3` (31)": the
    # one-more-symbol words of `2 0^39` (40)); the powers alone below
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(horizon, "node_horizon_widest", no_node_horizon)
        mp.setattr(failsearch, "beam_failure", lambda *args, **kwargs: None)
        for run in ("rot16", "full16"):
            _, net, automaton, _ = load_run(folder / run)
            weights[run] = net.to_weights()
            alone[run] = certify_network(weights[run], automaton)
    directed = {run: alone[run].failing_text for run in ("rot16", "full16")}
    assert directed == {"rot16": "1 0^29 3", "full16": "(4 1)^70"}
    with pytest.MonkeyPatch.context() as mp:  # without the one-more-symbol words: the powers' `2 0^39`
        mp.setattr(failsearch, "exit_failure", lambda *args, **kwargs: None)
        rot = alone["rot16"]
        _, _, automaton, _ = load_run(folder / "rot16")
        word = failsearch.search_failure(weights["rot16"], automaton, rot.search_length, rot.snap, floor=rot.certified,
                                         beam=False)
        assert failsearch.shorten_failure(weights["rot16"], automaton, word, floor=rot.certified) == (2,) + (0,) * 39
    assert alone["rot16"].horizon.bound == "global" and alone["rot16"].certified == 4
    assert "certifies only the lengths run exhaustively (4)" in doc
    assert alone["full16"].certified == 7 and "Theorem 16 alone certifies 7:" in doc
    cert = alone["full16"]
    with precision():
        _, st = ingredients(weights["full16"], cert.snap, cert.proof, automaton, RoundOff.of("real", 16))
        F = [np.array([[float(M[i, j].mid()) for j in range(16)] for i in range(16)]) for M in st.F]
    one = max(np.linalg.norm(M, 2) for M in F)
    five = max(np.linalg.norm(np.linalg.multi_dot([F[a] for a in w]), 2) for w in itertools.product(range(5), repeat=5))
    assert round(one, 1) == 2.3 and 1.0 < five < 1.5, (one, five)
    assert "basis reach 2.3 where their products stay below 1.5" in doc

