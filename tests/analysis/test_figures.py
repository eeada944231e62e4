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
