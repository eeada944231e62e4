"""Graphs of a monoid: its right Cayley graph, the relations the closure found, and the
strongly connected components used for D-classes (:mod:`bilinear.automata.green`).

>>> from bilinear.automata import from_spec, transformation_monoid
>>> transformation_monoid(from_spec("cyclic:3")).cayley_graph().number_of_edges()
9
"""

from __future__ import annotations

import numpy as np

from .monoidbase import MonoidBase

__all__ = ["CayleyGraphs", "strong_components"]


class CayleyGraphs(MonoidBase):
    """Mixin of :class:`~bilinear.automata.monoid.Monoid`: relations and the Cayley graph."""

    def relations(self) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
        """Relations ``(u, v)`` (``u != v`` act the same) found by the closure: for every element
        ``e`` and symbol ``a`` whose word ``word(e) + a`` is not itself an element's word, the
        pair ``(word(e) + a, word(e·a))``.  Together they present the monoid.

        >>> from bilinear.automata import from_spec, transformation_monoid
        >>> transformation_monoid(from_spec("parity")).relations()
        [((0,), ()), ((1, 0), (1,)), ((1, 1), ())]
        """
        out = []
        words = self.words
        right = self.right.tolist()
        parent, via = self.parent, self.via
        for e in range(self.size):
            for a in range(self.n_symbols):
                child = right[e][a]
                if child != 0 and parent[child] == e and via[child] == a:
                    continue
                out.append((words[e] + (a,), words[child]))
        return out

    def cayley_graph(self):
        """The right Cayley graph as a networkx ``MultiDiGraph``: nodes are element indices
        (attribute ``word``), one edge ``i -> i·a`` per symbol with key ``a`` and attribute
        ``symbol`` (the name).

        >>> from bilinear.automata import from_spec, transformation_monoid
        >>> g = transformation_monoid(from_spec("cyclic:3")).cayley_graph()
        >>> g.number_of_nodes(), g.number_of_edges(), g.nodes[1]["word"]
        (3, 9, '1')
        """
        import networkx as nx

        graph = nx.MultiDiGraph(name=self.name)
        for i, w in enumerate(self.words):
            graph.add_node(i, word=self.format_word(w))
        right = self.right.tolist()
        graph.add_edges_from(
            (i, right[i][a], a, {"symbol": self.symbols[a]})
            for i in range(self.size)
            for a in range(self.n_symbols)
        )
        return graph


def strong_components(indptr: np.ndarray, indices: np.ndarray) -> list[int]:
    """Tarjan's algorithm, iterative, on a graph in CSR form (``indices[indptr[v]:indptr[v+1]]``
    are the successors of ``v``); returns the component of each node."""
    n = len(indptr) - 1
    starts = indptr.tolist()
    succ = indices.tolist()
    index = [-1] * n
    low = [0] * n
    on_stack = [False] * n
    comp = [-1] * n
    stack: list[int] = []
    counter = 0
    n_comp = 0
    for root in range(n):
        if index[root] != -1:
            continue
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack[root] = True
        work = [[root, starts[root]]]
        while work:
            frame = work[-1]
            v, pos = frame
            end = starts[v + 1]
            advanced = False
            while pos < end:
                w = succ[pos]
                pos += 1
                if index[w] == -1:
                    frame[1] = pos
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack[w] = True
                    work.append([w, starts[w]])
                    advanced = True
                    break
                if on_stack[w] and index[w] < low[v]:
                    low[v] = index[w]
            if advanced:
                continue
            work.pop()
            if work:
                u = work[-1][0]
                if low[v] < low[u]:
                    low[u] = low[v]
            if low[v] == index[v]:
                while True:
                    w = stack.pop()
                    on_stack[w] = False
                    comp[w] = n_comp
                    if w == v:
                        break
                n_comp += 1
    return comp
