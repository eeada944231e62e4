"""Green's relations of a transformation monoid: idempotents, ranks, group H-classes and
D-classes (= J-classes, the monoid being finite).

* an element ``x`` lies in the maximal subgroup (group H-class) of an idempotent ``e`` exactly
  when ``x`` has the image and the kernel of ``e``;
* D-classes are the strongly connected components of the two-sided Cayley graph; idempotents in
  one D-class have isomorphic maximal subgroups, so one per D-class suffices.

>>> from bilinear.automata import from_spec, transformation_monoid
>>> m = transformation_monoid(from_spec("flipflop:2"))
>>> m.idempotents.tolist(), len(m.d_classes())
([0, 1, 2], 2)
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from bilinear.errors import AutomatonError

from .graphs import strong_components
from .monoidbase import MonoidBase

__all__ = ["GreenRelations"]


class GreenRelations(MonoidBase):
    """Mixin of :class:`~bilinear.automata.monoid.Monoid`: Green's relations."""

    @cached_property
    def idempotents(self) -> np.ndarray:
        """Indices of the idempotents ``e·e = e`` (the identity first)."""
        if self.is_group:  # a group has one idempotent
            out = np.zeros(1, dtype=np.int64)
            out.setflags(write=False)
            return out
        rows = self.elements.astype(np.int64)
        squared = np.take_along_axis(rows, rows, axis=1)
        out = np.flatnonzero((squared == rows).all(axis=1))
        out.setflags(write=False)
        return out

    @cached_property
    def ranks(self) -> np.ndarray:
        """``(size,)`` image size of each element."""
        rows = np.sort(self.elements, axis=1)
        out = 1 + (rows[:, 1:] != rows[:, :-1]).sum(axis=1) if self.n_states > 1 else np.ones(self.size, np.int64)
        out = np.asarray(out, dtype=np.int64)
        out.setflags(write=False)
        return out

    @cached_property
    def _h_signature(self) -> np.ndarray:
        """``(size,)`` class index of (image, kernel): equal for x, y iff they are H-related in
        the full transformation monoid (for a group H-class of ours: iff they lie in it)."""
        rows = self.elements
        m, n = rows.shape
        image = np.zeros((m, n), dtype=rows.dtype)
        image[np.arange(m)[:, None], rows] = 1
        order = np.argsort(rows, axis=1, kind="stable")
        sorted_rows = np.take_along_axis(rows, order, axis=1)
        starts = np.ones((m, n), dtype=bool)
        starts[:, 1:] = sorted_rows[:, 1:] != sorted_rows[:, :-1]
        run_start = np.maximum.accumulate(np.where(starts, np.arange(n, dtype=np.int64), 0), axis=1)
        first = np.take_along_axis(order, run_start, axis=1)  # first point of each kernel block
        kernel = np.empty_like(rows)
        np.put_along_axis(kernel, order, first, axis=1)
        sig = np.ascontiguousarray(np.concatenate([image, kernel.astype(rows.dtype)], axis=1))
        key = sig.view(np.dtype((np.void, sig.dtype.itemsize * 2 * n))).reshape(-1)
        _, inverse = np.unique(key, return_inverse=True)
        return inverse.reshape(-1)

    def h_class(self, e: int) -> np.ndarray:
        """Indices of the group H-class (maximal subgroup) of the idempotent ``e``."""
        e = int(e)
        if e not in set(self.idempotents.tolist()):
            raise AutomatonError(f"element {e} is not an idempotent")
        return np.flatnonzero(self._h_signature == self._h_signature[e])

    @cached_property
    def d_class_index(self) -> np.ndarray:
        """``(size,)`` D-class (= J-class) of each element: strongly connected components of the
        two-sided Cayley graph, numbered in order of their first element.

        Multiplying by a unit (a permutation generator) on either side is invertible, so the
        orbits of the group of units (``x -> g x h``) lie inside D-classes; they are merged first
        (vectorised label propagation), and Tarjan's algorithm runs on the much smaller quotient.
        """
        size = self.size
        units = [a for a in range(self.n_symbols) if len(set(self.generators[a].tolist())) == self.n_states]
        label = np.arange(size, dtype=np.int64)
        if units:
            neighbours = np.concatenate([self.right[:, units], self.left[:, units]], axis=1)  # (size, 2*units)
            while True:
                new = np.minimum(label, label[neighbours].min(axis=1))
                new = new[new]  # pointer jumping
                if np.array_equal(new, label):
                    break
                label = new
        roots, orbit = np.unique(label, return_inverse=True)
        orbit = orbit.reshape(-1)
        n_orbits = roots.size
        adjacency = np.concatenate([self.right, self.left], axis=1)  # (size, 2*symbols)
        src = np.repeat(orbit, adjacency.shape[1])
        dst = orbit[adjacency.reshape(-1)]
        keep = src != dst
        pairs = np.unique(src[keep] * n_orbits + dst[keep])
        src, dst = pairs // n_orbits, pairs % n_orbits
        indptr = np.concatenate([[0], np.cumsum(np.bincount(src, minlength=n_orbits))])
        comp = np.asarray(strong_components(indptr, dst), dtype=np.int64)[orbit]
        _, first, inverse = np.unique(comp, return_index=True, return_inverse=True)
        renumber = np.argsort(np.argsort(first))
        out = renumber[inverse.reshape(-1)]
        out.setflags(write=False)
        return out

    def d_classes(self) -> list[np.ndarray]:
        """The D-classes as arrays of element indices, in order of their first element."""
        index = self.d_class_index
        order = np.argsort(index, kind="stable")
        bounds = np.cumsum(np.bincount(index))[:-1]
        return list(np.split(order, bounds))

    def regular_d_classes(self) -> list[int]:
        """One idempotent per D-class that has one (the first, i.e. with the shortest word)."""
        if self.is_group:
            return [0]
        d = self.d_class_index[self.idempotents]
        _, first = np.unique(d, return_index=True)
        return sorted(int(self.idempotents[i]) for i in first)
