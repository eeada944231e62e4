"""The gauge snap: a trained ``monomial`` network snapped to units after a diagonal change of basis.

A ``monomial`` (PD-SSM) matrix sends coordinate ``j`` to coordinate ``perm[a, j]`` times the entry
``z[a, j]`` (a real number, or a complex one for ``monomial,complex``).  A diagonal change of basis
``G = diag(g)`` keeps every matrix monomial with the same pattern and moves the entries to
``g[perm[a, j]]^-1 z[a, j] g[j]``: phases and moduli flow between the entries of a path, and only the
products around the cycles of the graph whose edges are ``j -> perm[a, j]`` are unchanged.  A trained
network's entries are therefore not near roots of unity one by one (its gauge is arbitrary), while
its cycle products can be; this snap fixes the gauge first (docs/theory.md, Theorem 22):

1. **the coordinates that persist** -- the coordinates, as points mapped by the symbols' ``perm``
   rows, form a transformation semigroup; its images of minimal rank ``r`` are permuted by every
   symbol, and their union ``M`` is invariant (:func:`persistent_coordinates`).  The state after a
   word of minimal rank lives on ``M`` whatever the start; the other coordinates are kept by the
   float network only along words that never reach rank ``r``, and are dropped (zero) in the snap;
2. **moduli** -- per symbol a scale ``c[a] > 0`` and per kept coordinate a modulus ``|g[j]|`` by least
   squares on ``log c[a] + log|z[a, j]| + log|g[j]| - log|g[perm[a, j]]| = 0`` over the edges in ``M``;
3. **phases** -- a spanning forest of the edges in ``M`` gets gauged phase 0 (real: sign +1); every
   other edge closes one cycle, whose gauge-free product is snapped to a root of unity (real: its
   sign, exactly); then the phases are spread by least squares over every edge;
4. **the snap** -- in the basis ``P = G`` (dyadic, 2x2 blocks ``[[x, -y], [y, x]]`` for complex
   coordinates) every kept entry is its exact root of unity, every dropped column zero; start state
   and readout are ``P^-1 h0`` and ``R P`` on the kept coordinates, dyadic.  It is a network of the
   trained variant (``perm`` kept) and ``P S P^-1`` is one too: the written snap conforms.

The horizon theorems take any invertible basis (Theorems 16, 19 and 20), so the float network is
measured against the snap in the basis ``P``, where its distance is the gauged entries' distance to
their roots.  WeightsError where no gauge helps (a gauged modulus outside [1/2, 2], a cycle whose
product is not near a root of unity), naming the entry or the cycle.

>>> from bilinear.automata.families import from_spec
>>> from bilinear.constructions.handmade.registry import build
>>> from bilinear.constructions.proof.prover import prove
>>> a = from_spec("cyclic:3")
>>> w = regauged(build("cyclic:3", "monomial,complex").to_float(), seed=1)
>>> s = gauge_snap(w, a)
>>> prove(s.block_weights, a).status, s.isometric, max(s.distance) < 1e-6
('proved', True, True)
"""

from __future__ import annotations

import math

import numpy as np

from bilinear.errors import WeightsError

from ..exact.field import cos2pi, sin2pi
from ..values.factored import monomial_compose
from ..values.floatrun import rescaled
from ..values.weights import Weights
from .snap import FACTOR_SNAP_MAX_FIELD, FACTOR_SNAP_MAX_ORDER, Snap, _dyadic, _rational_vector, monomial_entries, snap_angle

__all__ = ["gauge_snap", "persistent_coordinates", "regauged", "GAUGE_MODULUS", "MAX_IMAGES"]

#: A gauged entry's modulus (at its symbol's scale) must lie in [1 / GAUGE_MODULUS, GAUGE_MODULUS].
GAUGE_MODULUS = 2.0
#: Largest number of minimal images enumerated by :func:`persistent_coordinates`.
MAX_IMAGES = 4096


def _apply(perm: np.ndarray, word, points):
    for a in word:
        points = [int(perm[a, j]) for j in points]
    return points


def _merging_word(perm: np.ndarray, image: list[int]):
    """A shortest word that maps two points of ``image`` to one (breadth first over pairs), or None."""
    start = [(x, y) for i, x in enumerate(image) for y in image[i + 1:]]
    parent: dict = {p: None for p in start}
    order = list(start)
    for x, y in order:  # grows while it is read
        for a in range(perm.shape[0]):
            u, v = int(perm[a, x]), int(perm[a, y])
            if u == v:
                word = [a]
                node = (x, y)
                while parent[node] is not None:
                    node, b = parent[node]
                    word.append(b)
                return word[::-1]
            key = (min(u, v), max(u, v))
            if key not in parent:
                parent[key] = ((x, y), a)
                order.append(key)
    return None


def persistent_coordinates(perm, limit: int = MAX_IMAGES) -> tuple[int, tuple[int, ...]]:
    """``(r, M)``: the minimal rank ``r`` of the coordinate maps' semigroup and the union ``M`` of
    its images of rank ``r`` (sorted).  A word maps ``M`` into ``M``, injectively from each minimal
    image onto another (docs/theory.md, Theorem 22).  WeightsError beyond ``limit`` minimal images.

    >>> persistent_coordinates(np.array([[1, 0, 0], [0, 2, 1]]))
    (2, (0, 1, 2))
    >>> persistent_coordinates(np.array([[1, 1, 1], [0, 0, 0]]))  # coordinate 2 is never reached again
    (1, (0, 1))
    """
    perm = np.asarray(perm, dtype=np.int64)
    image = list(range(perm.shape[1]))
    while (word := _merging_word(perm, image)) is not None:  # a pair merged: the rank drops
        image = sorted(set(_apply(perm, word, image)))
    seen = {tuple(image)}
    order = [tuple(image)]
    for img in order:  # the orbit of one minimal image: every minimal image is in it
        for a in range(perm.shape[0]):
            nxt = tuple(sorted({int(perm[a, j]) for j in img}))
            if nxt not in seen:
                if len(seen) >= limit:
                    raise WeightsError(f"the coordinate maps have more than {limit} images of minimal rank")
                seen.add(nxt)
                order.append(nxt)
    return len(image), tuple(sorted(set().union(*seen)))


def _moduli(z: np.ndarray, edges, M) -> tuple[np.ndarray, dict[int, float]]:
    """Least-squares ``log c`` per symbol and ``log |g|`` per kept coordinate (module docstring, 2)."""
    k = z.shape[0]
    col = {j: k + i for i, j in enumerate(M)}
    rows = np.zeros((len(edges), k + len(M)))
    rhs = np.zeros(len(edges))
    for e, (a, j, i) in enumerate(edges):
        rows[e, a] += 1.0
        rows[e, col[j]] += 1.0
        rows[e, col[i]] -= 1.0
        rhs[e] = -math.log(abs(z[a, j]))
    x = np.linalg.lstsq(rows, rhs, rcond=None)[0]
    logg = x[k:] - x[k:].mean()  # one overall scale (the least-norm solution leaves it free)
    return x[:k] + 0.0, {j: float(logg[i]) for i, j in enumerate(M)}


def _root(phi: float, real: bool) -> tuple[int, int] | None:
    """``(k, q)``: the root of unity exp(2 pi i k / q) a cycle's phase ``phi`` snaps to (the
    smallest order within :func:`~bilinear.constructions.horizon.snap.snap_angle`), or None."""
    if real:  # a real cycle product has an exact sign
        return (0, 1) if math.cos(phi) > 0 else (1, 2)
    for q in range(1, FACTOR_SNAP_MAX_ORDER + 1):
        k = round(phi * q / (2 * math.pi))
        if abs(phi - 2 * math.pi * k / q) <= snap_angle(q):
            return k % q, q
    return None


def _wrap(x: float) -> float:
    return (x + math.pi) % (2 * math.pi) - math.pi


def _phases(z: np.ndarray, edges, M, real: bool):
    """``(theta, roots)``: gauge phases per kept coordinate and the root ``(k, q)`` per edge
    (module docstring, 3).  WeightsError naming a cycle whose product is not near a root."""
    adj: dict[int, list] = {j: [] for j in M}
    for e, (_, j, i) in enumerate(edges):
        adj[j].append((e, i, 1.0))
        adj[i].append((e, j, -1.0))
    theta: dict[int, float] = {}
    tree: set[int] = set()
    for root in M:  # a breadth-first spanning forest: its edges get phase 0
        if root in theta:
            continue
        theta[root] = 0.0
        queue = [root]
        for u in queue:
            for e, other, sign in adj[u]:
                if other not in theta:
                    a, j, _ = edges[e]
                    theta[other] = theta[u] + sign * float(np.angle(z[a, j]))
                    tree.add(e)
                    queue.append(other)
    roots, target = {}, {}
    for e, (a, j, i) in enumerate(edges):
        phi = _wrap(float(np.angle(z[a, j])) + theta[j] - theta[i])
        r = (0, 1) if e in tree else _root(phi, real)
        if r is None:
            raise WeightsError(f"the cycle closed by entry {j} of symbol {a} has gauge-free phase {phi:.4f} rad, "
                               f"not within min(0.05, pi / (2 q^2)) of a root of unity of order q <= "
                               f"{FACTOR_SNAP_MAX_ORDER}: no gauge brings the entries near units")
        roots[e], target[e] = r, 2 * math.pi * r[0] / r[1]
    if not real:  # spread the phase errors over every edge (least squares; real signs are exact)
        col = {j: i for i, j in enumerate(M)}
        rows = np.zeros((len(edges), len(M)))
        res = np.zeros(len(edges))
        for e, (a, j, i) in enumerate(edges):
            rows[e, col[j]] += 1.0
            rows[e, col[i]] -= 1.0
            res[e] = _wrap(float(np.angle(z[a, j])) + theta[j] - theta[i] - target[e])
        delta = np.linalg.lstsq(rows, -res, rcond=None)[0]
        theta = {j: theta[j] + float(delta[col[j]]) for j in M}
    return theta, roots


def _basis(d: int, M, logg, theta, complex_: bool) -> np.ndarray:
    """The dyadic gauge P (object array of Fractions): identity off the kept coordinates."""
    P = np.zeros((d, d), dtype=object)
    P[...] = 0
    for j in range(d):
        P[j, j] = 1
    for j in M:
        g = math.exp(logg[j]) * complex(math.cos(theta[j]), math.sin(theta[j]))
        if complex_:
            x, y = _dyadic(g.real), _dyadic(g.imag)
            P[2 * j, 2 * j], P[2 * j, 2 * j + 1], P[2 * j + 1, 2 * j], P[2 * j + 1, 2 * j + 1] = x, -y, y, x
        else:
            P[j, j] = _dyadic(g.real)
    return P


def gauge_snap(weights: Weights, automaton=None) -> Snap:
    """The gauge snap of float ``monomial`` / ``monomial,complex`` weights (module docstring):
    a :class:`~bilinear.constructions.horizon.snap.Snap` whose ``block_weights`` is the exact snapped
    network in the gauge basis ``basis`` (the trained variant), ``scale`` the least-squares scale per
    symbol and ``distance`` the relative distance per matrix in the trained basis.  ``isometric``
    when every symbol permutes the kept coordinates.  The automaton is not used (the snap is read off
    the weights; the prover judges it).  WeightsError where no gauge brings the entries near units.
    """
    perm, z = monomial_entries(weights, "the gauge snap")
    v = weights.variant_info
    real = not v.complex
    k, n = z.shape
    r, M = persistent_coordinates(perm)
    edges = [(a, j, int(perm[a, j])) for a in range(k) for j in M]
    for a, j, _ in edges:
        if z[a, j] == 0:
            raise WeightsError(f"entry {j} of D for symbol {a} is zero on a coordinate that persists")
    logc, logg = _moduli(z, edges, M)
    for a, j, i in edges:
        m = math.exp(logc[a] + logg[j] - logg[i]) * abs(z[a, j])
        if not 1 / GAUGE_MODULUS <= m <= GAUGE_MODULUS:
            raise WeightsError(f"entry {j} of D for symbol {a} has gauged modulus {m:.3g} at its symbol's scale: "
                               "no diagonal gauge brings the persistent entries near units")
    theta, roots = _phases(z, edges, M, real)
    L = math.lcm(*(q for _, q in roots.values()))
    if L > FACTOR_SNAP_MAX_FIELD:
        raise WeightsError(f"the snapped entries need roots of unity of order {L}, more than {FACTOR_SNAP_MAX_FIELD}")
    De = np.zeros((k, 2 * n if v.complex else n), dtype=object)
    De[...] = 0
    for e, (a, j, _) in enumerate(edges):
        kk, q = roots[e]
        if v.complex:
            De[a, 2 * j], De[a, 2 * j + 1] = cos2pi(kk * (L // q), L), sin2pi(kk * (L // q), L)
        else:
            De[a, j] = 1 if kk == 0 else -1
    d = weights.dim
    Pq = _basis(d, M, logg, theta, v.complex)
    Pf = Pq.astype(float)
    K = [2 * j + t for j in M for t in (0, 1)] if v.complex else list(M)
    A, h0, R = weights.float_arrays()
    h0, R = rescaled(h0), rescaled(R)  # exact powers of two: no subnormal start or readout is read
    h0b = _rational_vector(np.linalg.solve(Pf, h0), K)
    if all(x == 0 for x in h0b):
        raise WeightsError("the start state has no component on the coordinates that persist")
    RP = R @ Pf
    Rb = np.array([_rational_vector(row, K, float(np.abs(RP[:, K]).max())) for row in RP], dtype=object)
    block = Weights(v.spec, monomial_compose(perm, De, True, complex_=v.complex), h0b, Rb, factors=(perm, De))
    Sf = Pf @ block.float_arrays()[0] @ np.linalg.inv(Pf)
    if not all(-700.0 < x < 700.0 for x in logc):
        raise WeightsError("a symbol's scale is outside the float range (its entries are near 0 or overflow)")
    c = tuple(float(math.exp(x)) for x in logc)
    dist = tuple(float(np.linalg.norm(c[a] * A[a] - Sf[a]) / max(np.linalg.norm(c[a] * A[a]), 1e-300))
                 for a in range(k))
    isometric = all(len({int(perm[a, j]) for j in M}) == len(M) for a in range(k))
    units = f"roots of unity of order dividing {L}" if v.complex else "+1 or -1"
    blocks = (tuple(K),) + tuple((j,) for j in range(d) if j not in set(K))
    return Snap(block, blocks, (0,), (), c, dist, Pq, v.spec,
                f"the factors in a fixed gauge (the {len(M)} coordinates that persist, rank {r}; entries to {units})",
                isometric=isometric)


def regauged(weights: Weights, seed: int = 0, spread: float = 1.0) -> Weights:
    """``monomial`` weights conjugated by a seeded random diagonal gauge ``G``: moduli
    ``exp(spread * N(0, 1))`` (and uniform phases for complex coordinates, random signs for real
    ones), as floats with their factors, start state ``G^-1 h0`` and readout ``R G``.  The network's
    scores are unchanged (``G^-1 A G`` on ``G^-1 h0``), its entries are far from units one by one."""
    w = weights.to_float()
    perm, z = monomial_entries(w, "the gauge snap")
    rng = np.random.default_rng(seed)
    n = z.shape[1]
    g = np.exp(spread * rng.normal(size=n))
    g = g * (np.exp(2j * math.pi * rng.uniform(size=n)) if w.variant_info.complex else rng.choice((-1.0, 1.0), n))
    zg = z * g[None, :] / g[perm]
    _, h0, R = w.float_arrays()
    if w.variant_info.complex:
        D = np.stack([zg.real, zg.imag], axis=2).reshape(z.shape[0], 2 * n)
        hz = (h0[0::2] + 1j * h0[1::2]) / g
        h = np.stack([hz.real, hz.imag], axis=1).reshape(-1)
        Rz = (R[:, 0::2] + 1j * R[:, 1::2]) * np.conj(g)[None, :]  # a score is Re(conj(r) h): r -> r conj(g)
        Rn = np.stack([Rz.real, Rz.imag], axis=2).reshape(R.shape[0], -1)
    else:
        D, h, Rn = zg.real, h0 / g, R * g[None, :]
    A = monomial_compose(perm, D, exact=False, complex_=w.variant_info.complex)
    return Weights(w.variant, A, h, Rn, factors=(perm, D))
