"""Figures of an analysis, ready for a paper (matplotlib's Agg canvas; no pyplot, no global
backend change), as PNG (200 dpi), SVG or PDF (``FORMATS``).

* :func:`eigenvalue_figure`: normalised eigenvalues of every A_sigma on the complex plane (on the
  visited span, filled, and on the full space, faint, for float weights), with the unit circle
  and, beneath the symbols, one marker shape per order (:data:`ROOT_MARKERS`) and named in the
  legend below the plot, the roots of unity of every order an element of the task's monoid has
  (:func:`monoid_orders`: ``cyclic:3`` gives order 3);
* :func:`commutator_figure`: heatmaps of the scale-free commutator norms of the symbol pairs on
  the visited span and on the full space, symbol names on both axes, values in the cells, on one
  absolute logarithmic colour scale (:data:`COMMUTATOR_SCALE`);
* :func:`accuracy_figure`: normalised accuracy (0 = chance) against length from 1 to the curve's
  length (default 2000), training range shaded, chance line, the meaning of negative values in
  the caption;
* :func:`automaton_figure` and :func:`write_automaton`: the extracted automaton drawn as a state
  diagram and exported as DOT and GraphML (networkx); the ringed start is the state the
  extraction identifies with the task's start (:func:`extracted_start`), not the state a burn-in
  prefix leads to.

Every title names the task and the model.

>>> import tempfile, pathlib
>>> from bilinear.analysis.examples import dihedral_block2
>>> from bilinear.analysis.commutators import commutators
>>> with tempfile.TemporaryDirectory() as d:
...     p = commutator_figure(commutators(dihedral_block2(3)), pathlib.Path(d) / "c.png", "dihedral:3 / block:2")
...     p.read_bytes()[:4] == b"\\x89PNG"
True
>>> from bilinear.automata import from_spec
>>> monoid_orders(from_spec("cyclic:3")), monoid_orders(from_spec("dihedral:3"))
([3], [2, 3])
"""

from __future__ import annotations

import math
from typing import cast
from pathlib import Path

import numpy as np

from bilinear.automata.monoid import transformation_monoid
from bilinear.errors import AnalysisError

__all__ = ["FORMATS", "ROOT_MARKERS", "COMMUTATOR_SCALE", "eigenvalue_figure", "commutator_figure", "accuracy_figure", "automaton_figure",
           "write_automaton", "write_figures", "monoid_orders", "automaton_graph",
           "extracted_start"]

#: File formats the figures can be written in.
FORMATS = ("png", "svg", "pdf")

#: Marker of the roots of unity of the first, second, ... order drawn (distinct shapes, none of them
#: a symbol's hollow marker).
ROOT_MARKERS = ("+", "x", "1", "2", "3", "4")

#: The commutator colour scale, absolute and logarithmic: norms at or below the first value (exact
#: zeros included) get the bottom colour, sqrt 2 (the largest scale-free Frobenius commutator,
#: Boettcher-Wenzel: ||XY - YX|| <= sqrt 2 ||X|| ||Y||) the top one, whatever the data; so 5e-5
#: sits mid-scale in every figure and only a commutator of order 1 looks saturated.
COMMUTATOR_SCALE = (1e-10, math.sqrt(2.0))


def _figure(size=(5.0, 5.0)):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=size, dpi=100, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _save(fig, path) -> Path:
    path = Path(path)
    fmt = path.suffix.lstrip(".").lower()
    if fmt not in FORMATS:
        raise AnalysisError(f"figure format {fmt!r} of {path.name!r} is not one of {', '.join(FORMATS)}")
    path.parent.mkdir(parents=True, exist_ok=True)
    # PNG at zlib level 3, not Pillow's 6: the same pixels, the eight figures of `bilinear tour`
    # encoded in 0.36 s instead of 0.53 s for 12% more bytes
    fig.savefig(path, format=fmt, dpi=200 if fmt == "png" else None, bbox_inches="tight", pad_inches=0.08,
                **({"pil_kwargs": {"compress_level": 3}} if fmt == "png" else {}))
    return path


def monoid_orders(automaton, limit: int = 5000) -> list[int]:
    """The periods > 1 of the elements of the automaton's transformation monoid (the orders of its
    group elements, and the periods of its other elements), sorted; from the symbols alone when
    the monoid has more than ``limit`` elements."""
    from bilinear.errors import MonoidTooLargeError

    try:
        elements = transformation_monoid(automaton, limit=limit).elements
    except MonoidTooLargeError:
        elements = automaton.delta
    orders = set()
    for f in np.asarray(elements, dtype=np.int64):
        seen = {}
        g, k = np.arange(f.shape[0]), 0
        while g.tobytes() not in seen:
            seen[g.tobytes()] = k
            g, k = f[g], k + 1
        period = k - seen[g.tobytes()]
        if period > 1:
            orders.add(period)
    return sorted(orders)


def eigenvalue_figure(spectrum, path, title: str = "", orders=None) -> Path:
    """Normalised eigenvalues of every symbol's matrix, the unit circle, and the roots of unity of
    ``orders`` (default: the orders the eigenvalues are nearest to) beneath them, one marker shape
    per order (:data:`ROOT_MARKERS`); the legend below the plot."""
    return _save(_eigenvalue_canvas(spectrum, title, orders), path)


def _eigenvalue_canvas(spectrum, title: str = "", orders=None):
    """The figure of :func:`eigenvalue_figure` (not saved)."""
    fig = _figure((5.6, 6.4))
    ax = fig.add_subplot(1, 1, 1)
    t = np.linspace(0, 2 * math.pi, 400)
    ax.plot(np.cos(t), np.sin(t), color="0.6", lw=1, label="unit circle", zorder=1)
    if orders is None:
        orders = sorted({r.order for m in spectrum.symbols for r in m.roots if r.order > 1 and r.distance < 0.2})
    markers = "o^sDv<>ph*"
    visited = any(m.visited is not None for m in spectrum.symbols)
    shown = spectrum.symbols[:10]
    for i, m in enumerate(shown):
        z = np.array(m.normalised, dtype=complex)
        mk = markers[i % len(markers)]
        # symbols share eigenvalues (+1 and -1 of a diagonal network): the markers are hollow, each
        # symbol's smaller than the one before and drawn above it, so that A_1's -1 is not hidden
        # under A_2's marker (nor a root of unity under either)
        size = 28 * 2.2 ** min(len(shown) - 1 - i, 4)  # areas x2.2: diameters apart by ~1.5x
        face = "none"
        if visited and m.visited is not None:
            ax.scatter(z.real, z.imag, s=size * 0.4, marker=mk, facecolors=face, edgecolors=f"C{i}", alpha=0.3,
                       zorder=2 + i / 20)
            zv = np.array(m.visited.normalised, dtype=complex)
            ax.scatter(zv.real, zv.imag, s=size, marker=mk, facecolors=face, edgecolors=f"C{i}", linewidths=1.6,
                       alpha=0.9, zorder=3 + i / 20,
                       label=f"{m.name} (large: visited span; small, faint: full space)" if i == 0 else m.name)
        else:
            ax.scatter(z.real, z.imag, s=size, marker=mk, facecolors=face, edgecolors=f"C{i}", linewidths=1.6,
                       alpha=0.9, zorder=3 + i / 20, label=m.name)
    orders = list(orders)
    for j, k in enumerate(orders[:len(ROOT_MARKERS)]):
        z = np.exp(2j * math.pi * np.arange(k) / k)
        # one marker shape per order (order 2's +-1 are also roots of order 4 and 6: the shapes
        # drawn over each other stay apart), beneath the symbols
        ax.scatter(z.real, z.imag, marker=ROOT_MARKERS[j], s=90 + 25 * j, color=f"{0.15 + 0.1 * j:.2f}",
                   lw=1.2, zorder=1.5, label=f"roots of unity of order {k}")
    if len(orders) > len(ROOT_MARKERS):
        ax.scatter([], [], marker="", label=f"(orders {', '.join(map(str, orders[len(ROOT_MARKERS):]))} not drawn)")
    ax.set_aspect("equal")
    ax.set_xlim(-1.3, 1.3)
    ax.set_ylim(-1.3, 1.3)
    ax.axhline(0, color="0.85", lw=0.5, zorder=0)
    ax.axvline(0, color="0.85", lw=0.5, zorder=0)
    ax.set_xlabel("Re(eigenvalue / spectral radius)")
    ax.set_ylabel("Im(eigenvalue / spectral radius)")
    fig.suptitle(f"Normalised eigenvalues: {title}" if title else "Normalised eigenvalues", fontsize=10)
    # every marker at one legend size: the plot's sizes differ by symbol (the first symbol's ring
    # is the largest), and at plot size the first handle drew a ring as wide as three rows
    from matplotlib.collections import PathCollection
    from matplotlib.legend_handler import HandlerPathCollection

    fig.legend(*ax.get_legend_handles_labels(), fontsize=7, loc="outside lower center", ncol=2,
               handler_map={PathCollection: HandlerPathCollection(sizes=[LEGEND_MARKER_SIZE])})
    return fig


#: Area (points^2) of every marker in the eigenvalue figure's legend (the plot's sizes vary).
LEGEND_MARKER_SIZE = 30.0


def _heatmap(ax, data, names, norm, subtitle):
    # a log scale has no colour for 0: a norm at or below the scale's floor gets the floor's colour
    im = ax.imshow(np.maximum(data, norm.vmin), cmap="viridis", norm=norm)
    n = len(names)
    if n <= 30:
        ax.set_xticks(range(n), labels=names, fontsize=9)
        ax.set_yticks(range(n), labels=names, fontsize=9)
    if n <= 8:
        for a in range(n):
            for b in range(n):
                shade = float(np.clip(norm(max(float(data[a, b]), norm.vmin)), 0.0, 1.0))  # white on dark
                ax.text(b, a, f"{data[a, b]:.2g}", ha="center", va="center", fontsize=7,
                        color="white" if shade < 0.6 else "black")
    ax.set_xlabel("symbol b")
    ax.set_ylabel("symbol a")
    ax.set_title(subtitle, fontsize=9)
    return im


def _commutator_canvas(commutators, title: str = ""):
    """The figure of :func:`commutator_figure` (not saved): both panels share the absolute
    :data:`COMMUTATOR_SCALE`, the verdict's tolerances marked on the colour bar."""
    from matplotlib.colors import LogNorm

    n = len(commutators.symbols)
    panels = [("full space" + (f" (dim {commutators.hidden})" if commutators.hidden else ""), commutators.norms)]
    if commutators.visited_norms is not None:
        panels.insert(0, (f"visited span (dim {commutators.visited_dim})", commutators.visited_norms))
    side = max(2.6, 0.42 * n + 1.6)
    fig = _figure((side * len(panels) + 1.6, side + 0.9))
    data = [np.array(d, dtype=float) for _, d in panels]
    lo, hi = COMMUTATOR_SCALE
    norm = LogNorm(vmin=lo, vmax=hi)
    axes = [fig.add_subplot(1, len(panels), i + 1) for i in range(len(panels))]
    for ax, (label, _), d in zip(axes, panels, data):
        im = _heatmap(ax, d, commutators.symbols, norm, label)
    cb = fig.colorbar(im, ax=axes, fraction=0.05, pad=0.03, extend="min")
    marks = [("dashed", commutators.tol, "full space")]
    if commutators.visited_norms is not None:
        marks.append(("dotted", commutators.span_tol, "visited span"))
    drawn = [(style, value, where) for style, value, where in marks if lo < value < hi]
    for style, value, _ in drawn:
        cb.ax.axhline(value, color="white", lw=1.4, ls=style)
    tolerances = "; ".join(f"{style} on the bar: tolerance {value:g} ({where})" for style, value, where in drawn)
    cb.set_label("||[A_a, A_b]|| / (||A_a|| ||A_b||)", fontsize=8)
    fig.supxlabel(f"colours on a fixed log scale: {lo:g} and below (0 too) to {hi:.3g}, the largest possible"
                  + (f";\n{tolerances}" if tolerances else ""), fontsize=7)
    verdict = commutators.headline_verdict + (" on the visited span" if commutators.visited_verdict else "")
    fig.suptitle(f"Commutators: {title} ({verdict})" if title else f"Commutators ({verdict})", fontsize=10)
    return fig


def commutator_figure(commutators, path, title: str = "") -> Path:
    """Heatmaps of ``||[A_a, A_b]|| / (||A_a|| ||A_b||)`` over symbol pairs: on the visited span
    (float weights) beside the full space, on one absolute logarithmic colour scale
    (:data:`COMMUTATOR_SCALE`: the colour of a norm is the same in every figure), the tolerances
    of the verdicts marked on the colour bar."""
    return _save(_commutator_canvas(commutators, title), path)


def accuracy_figure(curve, path, title: str = "") -> Path:
    """Normalised accuracy against length (a :class:`~bilinear.analysis.lengths.LengthCurve`, or
    an extraction's ``accuracy_by_length``), training range shaded, chance line, caption; the
    legend right of the plot, clear of the curve."""
    return _save(_accuracy_canvas(curve, title), path)


def _accuracy_canvas(curve, title: str = ""):
    """The figure of :func:`accuracy_figure` (not saved)."""
    by_length = getattr(curve, "accuracy_by_length", None)  # an Extraction (its .accuracy is one number)
    acc = np.array(by_length if by_length is not None else curve.accuracy, dtype=float)
    train = getattr(curve, "train_range", None)
    fig = _figure((7.8, 4.0))
    ax = fig.add_subplot(1, 1, 1)
    x = np.arange(1, acc.size + 1)
    if train is not None:
        ax.axvspan(train[0], train[1], color="C2", alpha=0.2, label=f"training lengths {train[0]}-{train[1]}")
    ax.plot(x, acc, lw=1.2, color="C0", label="network")
    ranges = curve.ranges() if hasattr(curve, "ranges") else []
    for i, r in enumerate(ranges):  # the worst length of every range: a failure between two
        ax.hlines(r.worst, max(r.start - 0.5, 1), r.stop, color="C3", lw=1.6,  # readings shows
                  label="worst in each range" if i == 0 else None)
        ax.plot([r.worst_length], [r.worst], "v", color="C3", ms=4)
    ax.axhline(0.0, color="0.4", lw=0.9, ls="--", label="chance")
    ax.set_xscale("log")
    ax.set_xlim(1, acc.size)
    ax.set_ylim(min(-0.1, float(acc.min()) - 0.05), 1.05)
    ax.set_xlabel("length of the input prefix")
    ax.set_ylabel("normalised accuracy")
    # outside the axes, right of them: a curve can pass through any corner of the plot
    fig.legend(*ax.get_legend_handles_labels(), fontsize=7, loc="outside right upper")
    words = getattr(curve, "words", None)
    head = f"Accuracy by length: {title}" if title else "Accuracy by length"
    ax.set_title(head + (f" ({words} random words)" if words else ""), fontsize=10)
    fig.text(0.01, -0.01, "0 = chance, 1 = perfect; below 0 = worse than chance (a consistent wrong "
             "class,\nas after a phase drift of a whole step)", fontsize=7, va="top")
    return fig


def automaton_graph(automaton, start: int | None = -1):
    """The automaton as a networkx ``DiGraph``: one node per state (attributes ``label``, the
    class name, and ``start``: the state ``start``, by default the automaton's own, None for
    none), one edge per (state, successor) with ``symbols``, the symbols that take it,
    comma-separated."""
    import networkx as nx

    start = automaton.start if start == -1 else start
    g = nx.DiGraph(name=automaton.name or "automaton")
    classes = list(automaton.classes)
    for q in range(automaton.n_states):
        g.add_node(int(q), label=str(classes[int(automaton.labels[q])]), start=bool(start is not None and q == start))
    for q in range(automaton.n_states):
        for a, sym in enumerate(automaton.symbols):
            p = int(automaton.delta[a, q])
            old = g.edges[q, p]["symbols"] + ", " if g.has_edge(q, p) else ""
            g.add_edge(int(q), p, symbols=old + str(sym))
    return g


def _dot(g) -> str:
    def quote(s) -> str:
        return '"' + str(s).replace("\\", "\\\\").replace('"', '\\"') + '"'

    start = next((q for q, d in g.nodes(data=True) if d["start"]), None)
    lines = [f"digraph {quote(g.graph.get('name', 'automaton'))} {{", "  rankdir=LR;",
             '  __start [shape=point];' if start is not None else "  // no state stands for the task's start"]
    for q, d in g.nodes(data=True):
        shape = "doublecircle" if d["start"] else "circle"
        label = quote(f"{q}: {d['label']}")
        lines.append(f"  {q} [label={label}, shape={shape}];")
    if start is not None:
        lines.append(f"  __start -> {start};")
    for q, p, d in g.edges(data=True):
        lines.append(f"  {q} -> {p} [label={quote(d['symbols'])}];")
    return "\n".join(lines) + "\n}\n"


def write_automaton(automaton, out_dir, stem: str = "automaton", start: int | None = -1) -> list[Path]:
    """``stem.dot`` (Graphviz) and ``stem.graphml`` (networkx) of ``automaton`` in ``out_dir``,
    the state ``start`` marked as the start (see :func:`automaton_graph`)."""
    import networkx as nx

    from bilinear.fileio import atomic_write_text

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    g = automaton_graph(automaton, start)
    graphml = "\n".join(nx.generate_graphml(g)) + "\n"
    return [atomic_write_text(out / f"{stem}.dot", _dot(g)), atomic_write_text(out / f"{stem}.graphml", graphml)]


#: Bend of the arrows (matplotlib's ``arc3`` radius: the control point's offset over the chord).
_BEND = 0.18
#: Where along an arrow its label may sit (fractions of the way from its source), best first.
_LABEL_AT = (0.5, 0.4, 0.6, 0.3, 0.7, 0.22, 0.78)


def _label_spot(a, b, r: float, nodes, placed) -> np.ndarray:
    """The point of the arrow ``a -> b`` (the quadratic Bezier of ``arc3``) for its label: the
    first of :data:`_LABEL_AT` clear of every node (1.5 radii) and of the labels already placed,
    else the one farthest from them (so a label never sits inside another node when a clear
    spot exists: "3 -> 1" must not read as "2 -> 3")."""
    d = b - a
    control = (a + b) / 2 + _BEND * np.array([d[1], -d[0]])
    best, best_gap = None, -np.inf
    for t in _LABEL_AT:
        p = (1 - t) ** 2 * a + 2 * t * (1 - t) * control + t ** 2 * b
        node_gap = min(np.linalg.norm(p - q) for q in nodes) / (1.5 * r)
        label_gap = min((np.linalg.norm(p - q) for q in placed), default=np.inf) / (1.2 * r)
        gap = min(node_gap, label_gap)
        if gap >= 1:
            return p
        if gap > best_gap:
            best, best_gap = p, gap
    assert best is not None  # _LABEL_AT is not empty and every gap exceeds -inf
    return best


def _draw_edge(ax, a, b, text: str, r: float, nodes=(), placed=None) -> None:
    """An arrow from ``a`` to ``b`` (node centres, radius ``r``) bent to the left, or a loop;
    its label clear of the ``nodes`` and of the labels ``placed`` so far (appended to)."""
    from matplotlib.patches import Circle, FancyArrowPatch

    if np.allclose(a, b):  # a loop: a small circle outside the node, away from the centre
        out = a / (np.linalg.norm(a) or 1.0) if np.linalg.norm(a) else np.array([0.0, 1.0])
        c = a + out * 1.6 * r
        ax.add_patch(Circle(c, 0.75 * r, fill=False, lw=1.0, zorder=1))
        ax.text(*(c + out * 1.05 * r), text, fontsize=7, ha="center", va="center", zorder=4,
                bbox=dict(boxstyle="round,pad=0.1", fc="white", ec="none"))
        return
    d = (b - a) / np.linalg.norm(b - a)
    arrow = FancyArrowPatch(a + d * r, b - d * r, arrowstyle="-|>", mutation_scale=11, lw=1.0, color="black",
                            connectionstyle=f"arc3,rad={_BEND}", zorder=2)
    ax.add_patch(arrow)
    placed = [] if placed is None else placed
    spot = _label_spot(a + d * r, b - d * r, r, list(nodes) or [a, b], placed)  # on the arrow as drawn
    placed.append(spot)
    ax.text(*spot, text, fontsize=7, ha="center", va="center", zorder=4,
            bbox=dict(boxstyle="round,pad=0.1", fc="white", ec="none"))


def extracted_start(extraction, automaton) -> tuple[int | None, str]:
    """``(state, meaning)``: the state of ``extraction.minimal`` that stands for the start of the
    task ``automaton``, and what the figure's ring means.

    Without a burn-in the minimal automaton's start is the cluster of ``h0``: the network's own
    start.  After a burn-in the minimal automaton starts where the first sampled word's prefix
    leads (``extraction.start_word``); when the extraction is isomorphic to the task restarted
    there, the start is the state reached by the shortest word that takes the task from there back
    to its start state.  None when there is no such state (the extraction is not isomorphic, or
    the task's start is not reachable again: a transient start of an aperiodic automaton); the
    meaning then says so.

    >>> from bilinear.automata import from_spec
    >>> from bilinear.analysis.examples import dihedral_block2
    >>> from bilinear.analysis.extract import ExtractConfig, extract
    >>> d3 = from_spec("dihedral:3")
    >>> ex = extract(dihedral_block2(3).to_float(), d3, ExtractConfig(words=50, length=20, burn_in=5))
    >>> d3.format_word(ex.start_word), ex.minimal.classes[ex.minimal.labels[ex.minimal.start]]
    ('sssrr', 'r s')
    >>> q, meaning = extracted_start(ex, d3)
    >>> ex.minimal.classes[ex.minimal.labels[q]], meaning
    ('e', "red ring = the task's start (reached after the burn-in prefix by rs)")
    """
    from bilinear.automata.automaton import Automaton
    from bilinear.automata.minimize import access_words

    minimal = extraction.minimal
    if not extraction.start_word:
        return int(minimal.start), "red ring = start (the cluster of h0)"
    if not extraction.isomorphic:
        return None, ("no start ringed: extracted after a burn-in and not isomorphic to the task, so no "
                      "state stands for its start")
    after = automaton.run(extraction.start_word)
    restarted = Automaton(automaton.delta, start=after, labels=automaton.labels, symbols=automaton.symbols,
                          classes=automaton.classes)
    reach = access_words(restarted)
    if int(automaton.start) not in reach.position:
        return None, "no start ringed: the task's start is not reachable after the burn-in prefix"
    back = reach.word(int(automaton.start))
    how = automaton.format_word(back) if back else "the empty word"
    return minimal.run(back), f"red ring = the task's start (reached after the burn-in prefix by {how})"


def automaton_figure(automaton, path, title: str = "", start: int | None = -1,
                     start_note: str = "red ring = start") -> Path:
    """The automaton as a state diagram: states on a circle (``q: class``, the state ``start``
    ringed in red: by default the automaton's own start, None for no ring), one arrow per
    (state, successor) labelled with its symbols; ``start_note`` says in the title what the ring
    means (:func:`extracted_start` gives both for an extraction)."""
    return _save(_automaton_canvas(automaton, title, start, start_note), path)


def _automaton_canvas(automaton, title: str, start: int | None, start_note: str):
    """The figure of :func:`automaton_figure` (not saved)."""
    from matplotlib.patches import Circle

    start = automaton.start if start == -1 else start
    g = automaton_graph(automaton)
    n = automaton.n_states
    side = min(9.0, 3.8 + 0.45 * n)
    fig = _figure((side, side))
    ax = fig.add_subplot(1, 1, 1)
    angle = np.pi / 2 - 2 * np.pi * np.arange(n) / max(n, 1)
    pos = {q: (np.array([np.cos(angle[q]), np.sin(angle[q])]) if n > 1 else np.zeros(2)) for q in range(n)}
    r = min(0.16, 1.6 / max(n, 1))  # at most a quarter of the spacing 2 pi / n of the states
    placed: list = []
    nodes = list(pos.values())
    for q, p, d in g.edges(data=True):
        _draw_edge(ax, pos[q], pos[p], d["symbols"], r, nodes, placed)
    for q, d in g.nodes(data=True):
        ringed = start is not None and q == start
        ax.add_patch(Circle(cast("tuple[float, float]", pos[q]), r, fc="white", ec="C3" if ringed else "black",
                            lw=2.5 if ringed else 1.2, zorder=3, gid=f"state-{q}"))
        ax.text(*pos[q], f"{q}: {d['label']}", fontsize=8 if n <= 16 else 6, ha="center", va="center", zorder=5)
    ax.set_xlim(-1.5, 1.5)
    ax.set_ylim(-1.5, 1.5)
    ax.set_aspect("equal")
    ax.set_axis_off()
    head = f"Extracted automaton: {title}" if title else "Extracted automaton"
    ax.set_title(f"{head}\n({n} states; node = state: class; {start_note})", fontsize=10)
    return fig


def write_figures(report, out_dir, fmt: str = "png") -> list[Path]:
    """The figures of a :class:`~bilinear.analysis.report.Report` into ``out_dir`` in ``fmt``,
    and the extracted automaton as DOT and GraphML (these are listed too)."""
    if fmt not in FORMATS:
        raise AnalysisError(f"unknown figure format {fmt!r} (known: {', '.join(FORMATS)})")
    out = Path(out_dir)
    title = report.title
    paths = []
    if report.spectrum is not None:  # None for a model without transition matrices
        paths += [
            eigenvalue_figure(report.spectrum, out / f"eigenvalues.{fmt}", title, monoid_orders(report.automaton)),
            commutator_figure(report.commutators, out / f"commutators.{fmt}", title),
        ]
    for layer in getattr(report, "layers", ()):  # a stack: each layer's eigenvalues
        paths.append(eigenvalue_figure(layer.spectrum, out / f"layer{layer.index}_eigenvalues.{fmt}",
                                       f"{title}, layer {layer.index} (hidden {layer.hidden})",
                                       monoid_orders(report.automaton)))
    if report.curve is not None:
        paths.append(accuracy_figure(report.curve, out / f"accuracy.{fmt}", title))
    elif report.extraction is not None:
        paths.append(accuracy_figure(report.extraction, out / f"accuracy.{fmt}", title))
    ex = report.extraction
    if ex is not None and ex.minimal is not None and ex.minimal.n_states <= 40:
        start, meaning = extracted_start(ex, report.automaton)
        paths.append(automaton_figure(ex.minimal, out / f"automaton.{fmt}", title, start, meaning))
        paths += write_automaton(ex.minimal, out, start=start)
    return paths
