import numpy as np
import subprocess
import sys

from bilinear.analysis import commutators
from bilinear.analysis.examples import cyclic_rotation2d, dihedral_block2
from bilinear.analysis import ExtractConfig, extract
from bilinear.analysis.figures import (
    accuracy_figure,
    commutator_figure,
    eigenvalue_figure,
    monoid_orders,
    write_automaton,
)
from bilinear.analysis import spectrum
from bilinear.automata import from_spec

PNG = b"\x89PNG\r\n\x1a\n"


def _png_size(path):
    data = path.read_bytes()
    assert data[:8] == PNG
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def test_eigenvalue_figure(tmp_path):
    p = eigenvalue_figure(spectrum(dihedral_block2(5)), tmp_path / "sub" / "e.png")
    assert p.parent.name == "sub"
    w, h = _png_size(p)
    assert w >= 900 and h >= 900  # 200 dpi, large enough for a paper


def test_commutator_figure_scales_with_symbols(tmp_path):
    small = _png_size(commutator_figure(commutators(dihedral_block2(3)), tmp_path / "c2.png"))
    big = _png_size(commutator_figure(commutators(cyclic_rotation2d(12), word_length=1), tmp_path / "c12.png"))
    assert big[0] > small[0]


def test_accuracy_figure(tmp_path):
    ex = extract(cyclic_rotation2d(5, angle_error=0.02), from_spec("cyclic:5"), ExtractConfig(words=50, length=60, method="geometry"))
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # e.g. a singular x range
        assert _png_size(accuracy_figure(ex, tmp_path / "a.png"))[0] >= 1000
    svg = accuracy_figure(ex, tmp_path / "a.svg", "cyclic:5 / rotation2d").read_text()
    assert "cyclic:5 / rotation2d" in svg


def test_analysis_and_figures_never_load_pyplot(tmp_path):
    # a fresh interpreter: importing the analysis and drawing every figure must not import pyplot
    # (pyplot holds global figure state and picks a GUI backend)
    code = (
        "import sys\n"
        "import bilinear.analysis\n"
        "assert 'matplotlib.pyplot' not in sys.modules, 'import bilinear.analysis loaded pyplot'\n"
        "from bilinear.analysis.examples import cyclic_rotation2d\n"
        "from bilinear.analysis.figures import eigenvalue_figure, automaton_figure\n"
        "from bilinear.automata import from_spec\n"
        f"automaton_figure(from_spec('dihedral:3'), {str(tmp_path / 'a.png')!r})\n"
        "from bilinear.analysis.spectrum import spectrum\n"
        f"eigenvalue_figure(spectrum(cyclic_rotation2d(3)), {str(tmp_path / 'e.png')!r})\n"
        "assert 'matplotlib.pyplot' not in sys.modules, 'drawing a figure loaded pyplot'\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
    assert _png_size(tmp_path / "e.png")[0] >= 900


def test_roots_of_unity_are_the_orders_of_the_task_monoid():
    assert monoid_orders(from_spec("cyclic:3")) == [3]  # cyclic:3 diagonal draws order-3 roots, not 2
    assert monoid_orders(from_spec("dihedral:4")) == [2, 4]
    assert monoid_orders(from_spec("parity")) == [2]


def test_figures_in_every_format_name_task_and_model(tmp_path):
    from bilinear.analysis import AnalysisConfig, analyze

    r = analyze(cyclic_rotation2d(3).to_float(), from_spec("cyclic:3"),
                AnalysisConfig(extract=ExtractConfig(words=100, length=20), curve_length=50, run_certify=False),
                title="cyclic:3 / rotation2d", train_range=(2, 10))
    for fmt, magic in (("png", PNG), ("svg", b"<?xml"), ("pdf", b"%PDF")):
        paths = r.write(tmp_path / fmt, fmt=fmt)
        names = sorted(p.name for p in paths)
        assert names == sorted(["report.json", "report.md", f"eigenvalues.{fmt}", f"commutators.{fmt}",
                                f"accuracy.{fmt}", f"automaton.{fmt}", "automaton.dot", "automaton.graphml"])
        for p in paths:
            if p.suffix == f".{fmt}":
                assert p.read_bytes()[: len(magic)] == magic
    svg = (tmp_path / "svg" / "eigenvalues.svg").read_text()
    assert "cyclic:3 / rotation2d" in svg and "roots of unity of order 3" in svg
    assert "symbol a" in (tmp_path / "svg" / "commutators.svg").read_text()
    assert "training lengths 2-10" in (tmp_path / "svg" / "accuracy.svg").read_text()


def test_automaton_exports_dot_and_graphml(tmp_path):
    import networkx as nx

    dot, graphml = write_automaton(from_spec("dihedral:3"), tmp_path)
    text = dot.read_text()
    assert text.startswith('digraph "dihedral:3"') and "__start -> 0;" in text
    assert text.count(" -> ") == 1 + 12  # the start arrow and 6 states x 2 symbols, none parallel
    g = nx.read_graphml(graphml)
    assert g.number_of_nodes() == 6 and g.number_of_edges() == 12
    assert {d["symbols"] for _, _, d in g.edges(data=True)} == {"r", "s"}


def test_edge_labels_sit_on_their_arrows_clear_of_every_node():
    from bilinear.analysis.figures import _BEND, _label_spot

    for n in (3, 4, 5, 8, 12):
        angle = np.pi / 2 - 2 * np.pi * np.arange(n) / n
        nodes = [np.array([np.cos(t), np.sin(t)]) for t in angle]
        r = min(0.16, 1.6 / n)
        for i in range(n):
            for j in range(n):
                if i == j:
                    continue
                a, b = nodes[i], nodes[j]
                spot = _label_spot(a, b, r, nodes, [])
                assert min(np.linalg.norm(spot - q) for q in nodes) >= 1.5 * r, (n, i, j)
                # on the quadratic Bezier of the arrow (arc3 with the same bend)
                d = b - a
                control = (a + b) / 2 + _BEND * np.array([d[1], -d[0]])
                ts = np.linspace(0, 1, 2001)[:, None]
                curve = (1 - ts) ** 2 * a + 2 * ts * (1 - ts) * control + ts ** 2 * b
                assert np.min(np.linalg.norm(curve - spot, axis=1)) < 1e-3


def test_labels_avoid_each_other_when_they_can():
    from bilinear.analysis.figures import _label_spot

    nodes = [np.array([0.0, 1.0]), np.array([0.0, -1.0])]
    first = _label_spot(nodes[0], nodes[1], 0.1, nodes, [])
    second = _label_spot(nodes[0], nodes[1], 0.1, nodes, [first])
    assert np.linalg.norm(first - second) >= 1.2 * 0.1


# ---- issue 45, item 4: what the figures show agrees with the numbers ---------------------------

def _near_commuting():
    """cyclic:3 one-hot with one matrix perturbed: commutators of about 4e-5 (and exact zeros)."""
    from bilinear.analysis.examples import one_hot
    from bilinear.constructions.values.weights import Weights

    A, h0, R = one_hot(from_spec("cyclic:3"), exact=False).float_arrays()
    A = A.copy()
    A[1] += 5e-5 * np.random.default_rng(0).standard_normal(A[1].shape)
    return commutators(Weights("full", A, h0, R), from_spec("cyclic:3"))


def test_commutator_colours_are_on_one_absolute_scale():
    import math

    from bilinear.analysis.figures import COMMUTATOR_SCALE, _commutator_canvas

    small, large = _near_commuting(), commutators(dihedral_block2(3))
    assert 1e-5 < small.max_norm < 1e-4 and large.max_norm > 0.5
    for co in (small, large):
        fig = _commutator_canvas(co)
        images = [im for ax in fig.axes for im in ax.images]
        assert images and all((im.norm.vmin, im.norm.vmax) == COMMUTATOR_SCALE for im in images)  # not the data's
    assert COMMUTATOR_SCALE[1] == math.sqrt(2)  # Boettcher-Wenzel: the largest scale-free commutator
    im = _commutator_canvas(small).axes[0].images[0]
    # the 4e-5 cell's place on the scale, computed by hand on the log scale: mid-scale, not saturated
    place = (math.log10(small.max_norm) + 10) / (math.log10(math.sqrt(2)) + 10)
    assert abs(float(im.norm(small.max_norm)) - place) < 1e-12 and 0.4 < place < 0.65
    top = np.array(im.cmap(1.0))
    assert np.abs(np.array(im.cmap(im.norm(small.max_norm))) - top).max() > 0.3
    # an exact zero gets the bottom colour (a log scale has none for 0: it must not be left blank)
    shown = np.asarray(im.get_array())
    assert shown.min() == COMMUTATOR_SCALE[0] and not np.ma.is_masked(shown)


def test_roots_of_unity_of_different_orders_have_different_markers():
    from bilinear.analysis.examples import one_hot
    from bilinear.analysis.figures import _eigenvalue_canvas

    s4 = from_spec("symmetric:4")
    fig = _eigenvalue_canvas(spectrum(one_hot(s4, exact=False), s4), "S_4", monoid_orders(s4))
    roots = {c.get_label(): c for c in fig.axes[0].collections if c.get_label().startswith("roots of unity")}
    assert sorted(roots) == [f"roots of unity of order {k}" for k in (2, 3, 4)]
    shapes = [tuple(map(tuple, np.round(c.get_paths()[0].vertices, 6))) for c in roots.values()]
    assert len(set(shapes)) == 3  # three orders, three marker shapes (not one shape in three sizes)
    for k, c in zip((2, 3, 4), roots.values()):
        assert len(c.get_offsets()) == k


def test_legends_sit_clear_of_the_data():
    from bilinear.analysis.figures import _accuracy_canvas, _eigenvalue_canvas

    ex = extract(cyclic_rotation2d(5, angle_error=0.05), from_spec("cyclic:5"),
                 ExtractConfig(words=30, length=40, method="geometry"))
    for fig in (_accuracy_canvas(ex, "drifting"), _eigenvalue_canvas(spectrum(dihedral_block2(4)), "D_4", [2, 4])):
        fig.canvas.draw()
        ax = fig.axes[0]
        assert ax.get_legend() is None and len(fig.legends) == 1
        legend, plot = fig.legends[0].get_window_extent(), ax.get_window_extent()
        assert not legend.overlaps(plot), (legend, plot)


def test_legend_markers_fit_their_rows():
    """Six symbols: the plot draws the first symbol's ring largest (areas x2.2 apart, so shared
    eigenvalues stay visible), but in the legend every marker is one row high; at plot size the
    first handle was a ring three rows wide over the rows below it."""
    from bilinear.analysis.figures import _eigenvalue_canvas
    from bilinear.constructions import build

    fig = _eigenvalue_canvas(spectrum(build("cyclic:6", "rotation2d")), "Z_6")
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    legend = fig.legends[0]
    rows = sorted({round(t.get_window_extent(renderer).y0, 3) for t in legend.get_texts()})
    pitch = min(b - a for a, b in zip(rows, rows[1:]))  # the height of one legend row, in pixels
    sizes = [float(np.max(h.get_sizes())) for h in legend.legend_handles if hasattr(h, "get_sizes")]
    assert len(sizes) == 6 + 3  # six symbols, roots of orders 2, 3, 6
    widest = max(sizes) ** 0.5 * fig.dpi / 72  # a marker's diameter: sqrt(area in points^2), in pixels
    assert widest < pitch, (widest, pitch)
    assert not legend.get_window_extent(renderer).overlaps(fig.axes[0].get_window_extent(renderer))


def _ring(fig):
    """The states drawn with the red start ring."""
    from matplotlib.colors import to_rgba

    red = to_rgba("C3")
    return [int(p.get_gid().split("-")[1]) for p in fig.axes[0].patches
            if (p.get_gid() or "").startswith("state-") and p.get_edgecolor() == red]


def test_the_ringed_start_is_the_tasks_start_after_a_burn_in(tmp_path):
    from bilinear.analysis.figures import _automaton_canvas, extracted_start

    d3 = from_spec("dihedral:3")
    ex = extract(dihedral_block2(3).to_float(), d3, ExtractConfig(words=50, length=20, burn_in=5))
    m = ex.minimal
    assert ex.isomorphic and m.labels[m.start] != d3.labels[d3.start]  # the burn-in state is not the start
    q, meaning = extracted_start(ex, d3)
    assert m.classes[m.labels[q]] == "e" and "burn-in" in meaning
    # the state q is the start: every word read from it gives the task's labels from its start
    words = np.random.default_rng(1).integers(0, 2, size=(40, 12))
    for w in words:
        assert m.labels[m.run(w, state=q)] == d3.labels[d3.run(w)]
    assert _ring(_automaton_canvas(m, "", q, meaning)) == [q]
    dot, _ = write_automaton(m, tmp_path, start=q)
    assert f"__start -> {q};" in dot.read_text()
    # no burn-in: the start is h0's own cluster, the minimal automaton's start
    ex0 = extract(dihedral_block2(3).to_float(), d3, ExtractConfig(words=50, length=20, burn_in=0))
    assert extracted_start(ex0, d3) == (ex0.minimal.start, "red ring = start (the cluster of h0)")


def test_no_start_is_ringed_when_the_tasks_start_is_transient(tmp_path):
    from bilinear.analysis.examples import one_hot
    from bilinear.analysis.figures import _automaton_canvas, extracted_start
    from bilinear.automata import Automaton

    # state 0 is left by the first symbol and never entered again
    a = Automaton([[1, 2, 1], [2, 1, 2]], start=0, labels=[0, 1, 0], name="transient")
    ex = extract(one_hot(a, exact=False), a, ExtractConfig(words=50, length=12, burn_in=3))
    assert ex.isomorphic
    q, meaning = extracted_start(ex, a)
    assert q is None and "not reachable" in meaning
    assert _ring(_automaton_canvas(ex.minimal, "", q, meaning)) == []
    dot, _ = write_automaton(ex.minimal, tmp_path, start=q)
    assert "__start" not in dot.read_text()


def test_no_start_is_ringed_when_the_extraction_is_not_the_task():
    from bilinear.analysis.figures import extracted_start

    c5 = from_spec("cyclic:5")
    ex = extract(cyclic_rotation2d(5, angle_error=0.2), c5, ExtractConfig(words=30, length=20, burn_in=4))
    assert ex.isomorphic is False and ex.start_word
    assert extracted_start(ex, c5) == (None, "no start ringed: extracted after a burn-in and not isomorphic to the "
                                             "task, so no state stands for its start")
