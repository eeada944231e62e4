"""``bilinear tour``: the whole toolkit in one command, on CPU, in a few minutes.

The tour walks the three uses of the toolkit on the same automata and writes what it found to a
Markdown report with figures:

1. **algebra**: the transformation monoid and one-line classification of parity, Z_5, D_5, Q_8,
   A_5 and the affine monoid mod 5;
2. **exact verification**: the capability matrix (families x variants), every cell a proof with
   its dimension, an impossibility certificate with its words, or "open";
3. **learning**: two small models trained under the paper's protocol (lengths 2-10), one the
   theory says can succeed (``cyclic:5`` with ``full``) and one it says must fail (``cyclic:3``
   with ``diagonal``), each checked at length 500 with the float check, the failing one also
   against its impossibility certificate;
4. **inspection**: spectra, commutators, relation residuals and the extracted automaton of both
   trained networks, with figures.

Every step writes into a staging folder that replaces ``--out`` only when the whole tour has
finished, so an interrupted tour leaves no half-written report behind.  A non-empty ``--out`` is
refused before any work unless ``--force`` (replace it).

>>> config = TourConfig(out="tour-report", steps=0)
Traceback (most recent call last):
...
bilinear.errors.ConfigError: tour: --steps must be a positive integer, got 0
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import textwrap
import time
from dataclasses import dataclass, field
from pathlib import Path

from bilinear.argtypes import check_positive_int
from bilinear.errors import ConfigError
from bilinear.fileio import check_output_dir

__all__ = ["TourConfig", "TOUR_FAMILIES", "TOUR_MODELS", "run_tour"]

#: The automata whose algebra the tour describes.
TOUR_FAMILIES = ("parity", "cyclic:5", "dihedral:5", "quaternion", "alternating:5", "modarith:5")

#: The two trained models: (family, model, what the theory says).
TOUR_MODELS = (
    ("cyclic:5", "full", "can succeed: Z_5 has a full construction (a rotation, d = 2)"),
    ("cyclic:3", "diagonal", "must fail: a real diagonal model's labels along g^n are eventually 2-periodic"),
)


@dataclass(frozen=True)
class TourConfig:
    """What the tour does; every field has a default that runs in a few minutes on CPU."""

    out: str = "tour-report"  # the report folder (written as a whole when the tour finishes)
    seed: int = 0  # seeds training, checks and extraction
    steps: int = 2000  # most training steps per model (early stopping usually ends sooner)
    test_len: int = 500  # length of the float check and of the evaluation
    check_words: int = 200  # random words of test_len in each float check
    quiet: bool = False  # print no progress (else: a bar on a terminal, a line on stderr every few s elsewhere)
    format: str = "png"  # file format of the figures: png, svg or pdf
    force: bool = False  # replace a non-empty report folder (otherwise refused before any work)

    def __post_init__(self) -> None:
        for name in ("steps", "test_len", "check_words"):
            value = getattr(self, name)
            check_positive_int(value, f"tour: {_option(name)}", error=ConfigError)
        check_positive_int(self.seed, "tour: --seed", minimum=0, error=ConfigError)
        if self.format not in ("png", "svg", "pdf"):
            raise ConfigError(f"tour: --format must be png, svg or pdf, got {self.format!r}")
        if not str(self.out).strip():
            raise ConfigError("tour: --out must name a folder")


def _option(field_name: str) -> str:
    """The ``bilinear tour`` option of a TourConfig field (``test_len`` -> ``--test-len``)."""
    return "--" + field_name.replace("_", "-")


def _check_sizes(config: "TourConfig") -> None:
    """Every size the tour will ask of training and of the float check, checked before any work,
    each refusal naming the tour's own options (they named ``--max-memory-gb``, ``--words`` and
    ``--length``, which ``tour`` does not have, and came after the first steps had run)."""
    from types import SimpleNamespace

    from bilinear.automata.families import check_spec, from_spec
    from bilinear.automata.loops import directed_loops
    from bilinear.constructions.horizon.floatcheck import check_size
    from bilinear.errors import BilinearError
    from bilinear.learned.config import TrainConfig
    from bilinear.learned.limits import check_limits

    limit_gb = TrainConfig.__dataclass_fields__["max_memory_gb"].default
    for spec, model, _ in TOUR_MODELS:
        states, symbols = check_spec(spec)
        try:  # the memory limit is applied below, with the tour's remedy
            tc = TrainConfig(spec=spec, model=model, steps=config.steps, seed=config.seed,
                             test_len=config.test_len, max_memory_gb=1e300)
            check_limits(tc, SimpleNamespace(n_symbols=symbols, n_classes=states), limit_gb=limit_gb,
                         remedy="lower --test-len")
            check_size(config.check_words, config.test_len, tc.hidden, remedy="lower --check-words or --test-len",
                       directed=len(directed_loops(from_spec(spec))))  # the check's directed words too
        except BilinearError as exc:
            raise ConfigError(f"tour: training and checking {spec} {model}: {exc}") from None


@dataclass
class _Section:
    title: str
    lines: list[str] = field(default_factory=list)


def _classifications(sections, data) -> None:
    from bilinear.automata import from_spec, transformation_monoid

    sec = _Section("1. The automata and their monoids")
    sec.lines += [
        "Each monoid is computed by breadth-first closure, never stored.",
        "",
        "| family | states | symbols | monoid size | classification |",
        "|---|---|---|---|---|",
    ]
    rows = []
    for spec in TOUR_FAMILIES:
        a = from_spec(spec)
        m = transformation_monoid(a)
        rows.append({"spec": spec, "states": a.n_states, "symbols": a.n_symbols,
                     "monoid_size": m.size, "classification": m.classification})
        sec.lines.append(f"| `{spec}` | {a.n_states} | {a.n_symbols} | {m.size} | {m.classification} |")
    data["families"] = rows
    sections.append(sec)


def _matrix(sections, data) -> None:
    from bilinear.constructions.capability import capability_matrix

    t0 = time.perf_counter()
    matrix = capability_matrix()
    seconds = time.perf_counter() - t0
    counts = matrix.counts()
    sec = _Section("2. What each structure can represent: the capability matrix")
    sec.lines += [
        "Each cell is settled exactly: **proved d=N** is a construction of hidden size N proved "
        "correct for every word of every length (breadth-first induction over the reachable "
        "pairs of automaton state and hidden direction, exact arithmetic); **impossible** is a "
        "checked certificate (the words on which every weights of that structure must fail); "
        "**open** is neither. See `docs/theory.md` for the theorems.",
        "",
        matrix.to_markdown().rstrip(),
        "",
        "Counts: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
        + f" (computed in {seconds:.1f} s).",
    ]
    data["matrix"] = matrix.to_json()
    data["matrix_short"] = _short_matrix(matrix)
    sections.append(sec)


def _short_matrix(matrix) -> str:
    """The capability matrix in a few columns: ``d=N`` proved, ``no`` impossible, ``open``."""
    def short(cell) -> str:
        if cell.status == "proved":
            return f"d={cell.dim}"
        return "no" if cell.status == "impossible" else cell.status

    # columns are numbered so that ten variants fit a terminal; the legend names them
    rows = [["family", *(f"v{j}" for j in range(1, len(matrix.columns) + 1))]]
    rows += [[r, *(short(c) for c in row)] for r, row in zip(matrix.rows, matrix.cells)]
    widths = [max(len(row[j]) for row in rows) for j in range(len(rows[0]))]
    table = ["  ".join(x.ljust(w) for x, w in zip(row, widths)).rstrip() for row in rows]
    legend = textwrap.wrap(", ".join(f"v{j} {c}" for j, c in enumerate(matrix.columns, 1)), 96)
    return "\n".join(table + legend)


def _train_and_inspect(config: TourConfig, staging: Path, sections, data, bar) -> None:
    from bilinear.analysis.report import analyze
    from bilinear.constructions.impossible.certificates import certify
    from bilinear.constructions.horizon.floatcheck import check
    from bilinear.learned.config import TrainConfig
    from bilinear.learned.runs import load_run
    from bilinear.learned.train import train_run

    train_sec = _Section("3. Two trained networks, checked at length " + str(config.test_len))
    train_sec.lines += [
        f"Trained on words of length 2-10 (Adam, batch 64, at most {config.steps} steps, early "
        f"stop once training is perfect), then run on {config.check_words} random words of "
        f"length {config.test_len} with the hidden state renormalised at every step.",
        "",
        "| family | model | theory | params | steps | train acc | normalised acc at length "
        + str(config.test_len) + " (last position) | float check | worst margin |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    inspect_sec = _Section("4. What the trained networks learned")
    data["trained"] = []
    for spec, model, theory in TOUR_MODELS:
        name = f"{spec.replace(':', '')}-{model.replace(':', '')}"
        bar.phase(f"train {spec} {model}")
        tc = TrainConfig(spec=spec, model=model, steps=config.steps, seed=config.seed,
                         test_len=config.test_len)
        run_dir = staging / "runs" / name
        result = train_run(tc, run_dir, quiet=True)
        _, net, automaton, _ = load_run(run_dir)
        weights = net.to_weights()
        bar.update(1)

        bar.phase(f"check {spec} {model} @{config.test_len}")
        checked = check(weights, automaton, length=config.test_len, words=config.check_words, seed=config.seed)
        verdict = "passed" if checked.passed else f"fails on `{_short(checked.first_failure_text)}`"
        train_sec.lines.append(
            f"| `{spec}` | `{model}` | {theory.split(':')[0]} | {result['params']} | {result['steps']} | "
            f"{result['train_accuracy']:.3f} | {result['accuracy_at_length']:.3f} | {verdict} | "
            f"{checked.worst_margin:.3g} |"
        )
        record = {"spec": spec, "model": model, "theory": theory, "result": result, "check": checked.to_json()}
        certificate = certify(automaton, model)
        if certificate is not None:
            failing = certificate.failing_word(weights, automaton)
            record["certificate"] = certificate.to_dict()
            record["certificate_failing_word"] = None if failing is None else automaton.format_word(failing)
            train_sec.lines += [
                "",
                f"`{spec}` with `{model}` {theory}. Certificate: {certificate.describe()}",
                "The trained network fails along it on the word "
                + (f"`{_short(automaton.format_word(failing))}`." if failing is not None else "(none found)."),
            ]
        bar.update(1)

        bar.phase(f"analyse {spec} {model}")
        report = analyze(weights, automaton, title=f"{spec} / {model}, trained (seed {config.seed})",
                         source={"run": f"runs/{name}", "seed": config.seed},
                         train_range=(tc.train_min_len, tc.train_max_len))
        written = report.write(staging / f"analysis-{name}", fmt=config.format)
        _record_analysis(record, report, spec, model)
        inspect_sec.lines += _inspect_lines(report, name, spec, model, written)
        data["trained"].append(record)
        bar.update(1)
    sections += [train_sec, inspect_sec]


def _record_analysis(record: dict, report, spec: str, model: str) -> None:
    record["analysis"] = report.summary.splitlines()
    record["implements"] = report.implements
    record["certificate_line"] = report.certify_line
    record["line"] = f"{spec} {model}: {report.implements}" + (
        f"; {report.certify_line}" if report.certify_line else "")


def _inspect_lines(report, name: str, spec: str, model: str, written) -> list[str]:
    lines = [f"### `{spec}` with `{model}`", "", f"**{report.implements}**", ""]
    if report.certify_line:
        lines += [f"Certificate of the trained network: {report.certify_line}", ""]
    lines += [*[f"- {line}" for line in report.summary.splitlines()[1:]], "",
              f"Full report: [analysis-{name}/report.md](analysis-{name}/report.md).", ""]
    for path in written:
        if path.suffix in (".png", ".svg", ".pdf"):
            lines.append(f"![{path.stem} of {spec} {model}](analysis-{name}/{path.name})")
        elif path.suffix in (".dot", ".graphml"):
            lines.append(f"- extracted automaton as {path.suffix[1:].upper()}: "
                         f"[analysis-{name}/{path.name}](analysis-{name}/{path.name})")
    return lines + [""]


def _short(text: str | None, limit: int = 60) -> str:
    if text is None:
        return "-"
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} symbols)"


def run_tour(config: TourConfig) -> dict:
    """Run the tour; write ``report.md``, ``tour.json`` and the figures to ``config.out``.

    Returns the JSON summary.  The report is built in a staging folder beside ``config.out``
    and moved into place only when complete.
    """
    from bilinear.progress import Progress

    _check_sizes(config)  # before any work or any folder
    out = Path(config.out).resolve()
    if out.exists() and not out.is_dir():
        raise ConfigError(f"tour: output path {str(out)!r} exists and is not a folder")
    check_output_dir(out, force=config.force, what="tour report folder")
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=out.name + ".partial-", dir=out.parent))
    t0 = time.perf_counter()
    sections: list[_Section] = []
    data: dict = {"config": {k: getattr(config, k) for k in ("seed", "steps", "test_len", "check_words")}}
    bar = Progress("tour", total=2 + 3 * len(TOUR_MODELS), unit="stages", quiet=config.quiet)
    try:
        bar.phase("classify the monoids")
        _classifications(sections, data)
        bar.update(1)
        bar.phase("capability matrix")
        _matrix(sections, data)
        bar.update(1)
        _train_and_inspect(config, staging, sections, data, bar)
        data["seconds"] = round(time.perf_counter() - t0, 1)
        text = ["# bilinear: the tour", "",
                f"Written by `bilinear tour` in {data['seconds']} s (seed {config.seed}).", ""]
        for sec in sections:
            text += [f"## {sec.title}", "", *sec.lines, ""]
        (staging / "report.md").write_text("\n".join(text), encoding="utf-8")
        (staging / "tour.json").write_text(json.dumps(data, indent=2, default=str) + "\n", encoding="utf-8")
        if out.exists():
            check_output_dir(out, force=config.force, what="tour report folder")  # filled meanwhile?
            shutil.rmtree(out)
        os.replace(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    finally:
        bar.close()
    data["report"] = str(out / "report.md")
    data["full_text"] = "\n".join(text)
    data["text"] = _summary(data)
    return data


def _summary(data: dict) -> str:
    """What the tour prints: the capability matrix in short and one line per trained model."""
    lines = [f"bilinear tour ({data['seconds']} s)", "",
             "capability matrix (d=N: proved with hidden size N; no: impossible, with a certificate):",
             data["matrix_short"], "", "trained models:"]
    lines += [f"- {r['line']}" for r in data["trained"]]
    return "\n".join(lines)
