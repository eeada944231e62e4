"""Figures of an analysis (PNG, matplotlib's Agg canvas; no pyplot, no global backend change).

* :func:`eigenvalue_figure`: normalised eigenvalues of every A_sigma on the complex plane, with
  the unit circle and the k-th roots of unity for every order k the eigenvalues are nearest to;
* :func:`commutator_figure`: heatmap of the scale-free commutator norms of the symbol pairs;
* :func:`accuracy_figure`: the network's normalised accuracy (0 = chance) against prefix length.

>>> import tempfile, pathlib
>>> from bilinear.analysis.examples import dihedral_block2
>>> from bilinear.analysis.commutators import commutators
>>> with tempfile.TemporaryDirectory() as d:
...     p = commutator_figure(commutators(dihedral_block2(3)), pathlib.Path(d) / "c.png")
...     p.read_bytes()[:4] == b"\\x89PNG"
True
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

__all__ = ["eigenvalue_figure", "commutator_figure", "accuracy_figure", "write_figures"]


def _figure(size=(5.0, 5.0)):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=size, dpi=100, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _save(fig, path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, format="png")
    return path


def eigenvalue_figure(spectrum, path, title: str = "") -> Path:
    """Normalised eigenvalues of every symbol's matrix, unit circle, relevant roots of unity."""
    fig = _figure()
    ax = fig.add_subplot(1, 1, 1)
    t = np.linspace(0, 2 * math.pi, 400)
    ax.plot(np.cos(t), np.sin(t), color="0.6", lw=1, label="unit circle")
    orders = sorted({r.order for m in spectrum.symbols for r in m.roots if r.order > 1 and r.distance < 0.2})
    for k in orders[:6]:
        z = np.exp(2j * math.pi * np.arange(k) / k)
        ax.scatter(z.real, z.imag, marker="x", s=40, color="0.3", lw=1, zorder=2)
    markers = "o^sDv<>ph*"
    for i, m in enumerate(spectrum.symbols[:10]):
        z = np.array(m.normalised, dtype=complex)
        ax.scatter(z.real, z.imag, s=36, marker=markers[i % len(markers)], alpha=0.75, label=m.name, zorder=3)
    ax.set_aspect("equal")
    ax.set_xlim(-1.25, 1.25)
    ax.set_ylim(-1.25, 1.25)
    ax.axhline(0, color="0.85", lw=0.5)
    ax.axvline(0, color="0.85", lw=0.5)
    ax.set_xlabel("Re (eigenvalue / spectral radius)")
    ax.set_ylabel("Im")
    roots = ", ".join(map(str, orders[:6])) or "none"
    ax.set_title(title or f"normalised eigenvalues (x: roots of unity of order {roots})", fontsize=9)
    ax.legend(fontsize=7, loc="lower left")
    return _save(fig, path)


def commutator_figure(commutators, path, title: str = "") -> Path:
    """Heatmap of ``||[A_a, A_b]|| / (||A_a|| ||A_b||)`` over symbol pairs."""
    n = len(commutators.symbols)
    fig = _figure((max(3.5, 0.45 * n + 2.0), max(3.0, 0.45 * n + 1.5)))
    ax = fig.add_subplot(1, 1, 1)
    data = np.array(commutators.norms, dtype=float)
    im = ax.imshow(data, cmap="viridis", vmin=0.0, vmax=max(float(data.max()), 1e-12))
    fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
    if n <= 30:
        ax.set_xticks(range(n))
        ax.set_yticks(range(n))
        ax.set_xticklabels(commutators.symbols, fontsize=7, rotation=90)
        ax.set_yticklabels(commutators.symbols, fontsize=7)
    ax.set_title(title or f"scale-free commutator norms: {commutators.verdict}", fontsize=9)
    return _save(fig, path)


def accuracy_figure(extraction, path, title: str = "") -> Path:
    """The network's normalised accuracy at every prefix length of the sampled words."""
    fig = _figure((5.5, 3.5))
    ax = fig.add_subplot(1, 1, 1)
    acc = np.array(extraction.accuracy_by_length, dtype=float)
    ax.plot(np.arange(1, acc.size + 1), acc, lw=1.2)
    ax.axhline(0.0, color="0.6", lw=0.8, ls="--", label="chance")
    ax.set_ylim(min(-0.1, float(acc.min()) - 0.05), 1.05)
    ax.set_xlabel("prefix length")
    ax.set_ylabel("normalised accuracy")
    ax.legend(fontsize=7)
    ax.set_title(title or f"accuracy against length ({extraction.config.words} random words)", fontsize=9)
    return _save(fig, path)


def write_figures(report, out_dir) -> list[Path]:
    """The three figures of a :class:`~bilinear.analysis.report.Report` into ``out_dir``."""
    out = Path(out_dir)
    paths = []
    if report.spectrum is not None:  # None for a model without transition matrices
        paths += [eigenvalue_figure(report.spectrum, out / "eigenvalues.png"),
                  commutator_figure(report.commutators, out / "commutators.png")]
    if report.extraction is not None:
        paths.append(accuracy_figure(report.extraction, out / "accuracy.png"))
    return paths
