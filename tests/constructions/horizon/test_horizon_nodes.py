"""Theorem 20 (the node horizon, docs/theory.md Section 7), tested without trusting its code:
an evaluator written for the tests (tests/plain_eval.py, a float64 loop) and a search (every word
to a depth, periodic words of period <= 4, a beam search on the margin) on perturbed ``full``
networks in a random dense basis: no failure at or below the certified length, every word in its
node's set, the length where the first set reaches a boundary, a network where the node bound
certifies strictly more than Theorems 16 / 19, one where aged balls certify more than one
ball per node, and one where a radius per block certifies more than one radius."""

from __future__ import annotations


import numpy as np
import pytest
from plain_eval import first_failure

from bilinear.automata import from_spec
from bilinear.constructions.horizon.horizon import certified_horizon, with_node_horizon
from bilinear.constructions.horizon.horizon_nodes import node_horizon, suffix_length
from bilinear.constructions import prove
from bilinear.constructions import build
from bilinear.constructions.horizon.roundoff import RoundOff
from bilinear.constructions.horizon.snap import construction_snap, drift
from bilinear.constructions import Weights


def _network(spec: str, noise: float, seed: int = 1):
    w = drift(build(spec, "full").to_float(), 0.0, hidden=6, seed=seed)
    A, h, R = w.float_arrays()
    A = A + noise * np.random.default_rng(seed).normal(size=A.shape)
    w, a = Weights("full", A, h, R), from_spec(spec)
    snap = construction_snap(w, a)
    proof = prove(snap.block_weights, a)
    assert proof.status == "proved"
    return w, a, snap, proof


_first_failure = first_failure  # tests/plain_eval.py


def test_suffix_length():
    assert [suffix_length(n, 729) for n in (1, 2, 3, 5, 729, 1000)] == [64, 9, 6, 4, 1, 1]


# (spec, noise, max_keys): an isometric snap (cyclic:3), non-isometric ones (S_4, reset:3)
@pytest.mark.parametrize("spec,noise,keys", [("cyclic:3", 3e-3, 81), ("symmetric:4", 3e-4, 16),
                                             ("reset:3", 3e-4, 81), ("dihedral:3", 3e-3, 64)])
def test_no_word_fails_at_or_below_the_node_horizon(spec, noise, keys):
    w, a, snap, proof = _network(spec, noise)
    h = node_horizon(w, snap, proof, a, RoundOff.of("float64", w.dim), max_steps=300, max_keys=keys)
    assert h.bound == "node" and h.length is not None and h.length >= 8, h
    first = _first_failure(w, a, min(4 * h.length, 600))
    assert first is None or first > h.length, (first, h.length)


def test_the_node_bound_certifies_more_than_theorem_16():
    w, a, snap, proof = _network("dihedral:3", 1e-3)
    old = certified_horizon(w, snap, proof, a, "float64", nodes=False)
    h = node_horizon(w, snap, proof, a, RoundOff.of("float64", w.dim), max_steps=400, max_keys=64)
    kept = with_node_horizon(old, w, snap, proof, a, node=h)  # the dispatcher keeps the longer
    assert (kept.length, kept.bound, kept.arithmetic) == (h.length, "node", "float64")
    assert old.length is not None and h.length is not None and h.length > old.length, (old, h)
    first = _first_failure(w, a, min(3 * h.length, 600))
    assert first is None or first > h.length, (first, h.length)


def _plain_F(w, snap, proof, a):
    """The network's matrices in the snap's basis, scaled as Theorem 20 scales them (float
    midpoints), and the start state there: computed from the theorem's setup."""
    from bilinear.constructions.exact.balls import precision
    from bilinear.constructions.horizon.horizon_global import ingredients

    with precision():
        _, st = ingredients(w, snap, proof, a, RoundOff.of("float64", w.dim))
        d = st.x0.nrows()
        F = [np.array([[float(M[i, j].mid()) for j in range(d)] for i in range(d)]) for M in st.F]
        R = np.array([[float(st.Rb[i, j].mid()) for j in range(d)] for i in range(st.Rb.nrows())])
        x0 = np.array([float(st.x0[j, 0].mid()) for j in range(d)])
    return F, R, x0


def _products(F, s):
    """P_j(s) for j = 0..|s|: the product of the last j matrices of the suffix s (numpy)."""
    out = [np.eye(F[0].shape[0])]
    for j in range(1, len(s) + 1):
        out.append(out[-1] @ F[s[-j]])
    return out


def _ray_meets(x, c, reach, blocks) -> bool:
    """Whether some lambda > 0 puts lambda x within reach[b] of c in every block b: in block b
    the lambdas are an interval around the foot of c_b on the line of x_b (half-width
    sqrt(reach^2 - (distance of c_b to that line)^2) / |x_b|), intersected here."""
    lo, hi = 0.0, np.inf
    for b, rho in zip(blocks, reach):
        xb, cb = x[list(b)], c[list(b)]
        rho = rho * (1 + 1e-9) + 1e-12
        n2 = float(xb @ xb)
        if n2 == 0:
            if np.linalg.norm(cb) > rho:
                return False
            continue
        foot = float(xb @ cb) / n2
        off = float(np.linalg.norm(cb - foot * xb))
        if off > rho:
            return False
        half = np.sqrt(rho * rho - off * off) / np.sqrt(n2)
        lo, hi = max(lo, foot - half), min(hi, foot + half)
    return hi >= max(lo, 0.0)


def _block_reach(P, r, groups, norms=None) -> list:
    """Per block b', sum_j sum_b ||P_j[b', b]|| r_(j,b): how far block b' of a point of the set
    (radii r by age and block, P_j computed here) is from the centre's.  ``norms`` (from
    :func:`_block_norms` of the same P): the block norms computed once for a suffix."""
    ages = range(min(len(r), len(P)))
    if norms is None:
        norms = _block_norms(P, groups)
    return [sum(norms[j][i2][bi] * r[j, bi] for j in ages for bi in range(len(groups)))
            for i2 in range(len(groups))]


def _block_norms(P, groups) -> list:
    """``norms[j][b'][b] = ||P_j[b', b]||`` (2-norms, numpy)."""
    return [[[np.linalg.norm(M[np.ix_(b2, b)], 2) for b in groups] for b2 in groups] for M in P]


@pytest.mark.parametrize("spec,noise", [("cyclic:3", 3e-3), ("reset:3", 3e-4)])
@pytest.mark.parametrize("ages,clusters,blocks", [(0, 1, False), (1, 1, False), (None, 1, False), (None, 4, False),
                                                  (0, 1, True), (None, 1, True)])
def test_every_word_lies_in_its_node_set(spec, noise, ages, clusters, blocks):
    """Every word to depth 6, its state computed here by a plain float64 loop in the snap's basis:
    for one of its node's sets, some point of its ray is within sum_j ||P_j(s)|| r_j of the set's
    centre (a point of the set is, P_j computed here); with a radius per block, within
    sum_j sum_b ||P_j(s)[b', b]|| r_(j,b) in every block b' (the block b' of a point of the set is)."""
    from bilinear.constructions.horizon.horizon_nodes import node_sets

    w, a, snap, proof = _network(spec, noise)
    F, _, x0 = _plain_F(w, snap, proof, a)
    sets = node_sets(w, snap, proof, a, RoundOff.of("float64", w.dim), max_keys=16, ages=ages, clusters=clusters,
                     blocks=blocks)
    k = sets.k
    assert k >= 2
    assert sets.nb == (len(snap.blocks) if blocks else 1) and (sets.nb > 1) == blocks
    parts = [list(b) for b in sets.blocks]
    level = [((), x0)]
    worst, split = 0.0, False
    by_suffix: dict = {}  # suffix -> (P_j, ||P_j||, block norms): computed once, read by every word ending in it
    for t in range(1, 7):
        sets.step()
        index: dict = {}
        for i, (q, s) in enumerate(zip(sets.q, sets.sid)):
            index.setdefault((int(q), sets.suffixes[int(s)]), []).append(i)
        split = split or max(len(v) for v in index.values()) > 1
        assert max(len(v) for v in index.values()) <= clusters
        level = [(u + (s,), F[s] @ x) for u, x in level for s in range(len(F))]
        for u, x in level:
            q = int(a.start)
            for s in u:
                q = int(a.delta[s, q])
            if u[-k:] not in by_suffix:
                P = _products(F, u[-k:])
                by_suffix[u[-k:]] = (P, [np.linalg.norm(M, 2) for M in P], _block_norms(P, parts) if blocks else None)
            P, P_norms, P_blocks = by_suffix[u[-k:]]
            xh = x / np.linalg.norm(x)
            fits = []
            for i in index[(q, u[-k:])]:
                c, r = sets.c[i], sets.r[i]  # r: (ages + 1, blocks)
                assert not r[len(P):].any()  # no ball older than the suffix
                ages_here = range(min(len(r), len(P)))
                reach = sum(P_norms[j] * np.linalg.norm(r[j]) for j in ages_here)
                along = max(float(c @ xh), 0.0)
                dist = float(np.linalg.norm(c - along * xh))
                ok = dist <= reach * (1 + 1e-9) + 1e-12
                if blocks:  # the stronger condition, block by block
                    ok = ok and _ray_meets(xh, c, _block_reach(P, r, parts, P_blocks), parts)
                fits.append((dist / max(reach, 1e-300), ok))
            assert any(ok for _, ok in fits), (t, u, fits)
            worst = max(worst, min(f for f, ok in fits if ok))
    assert worst > 0.05  # not vacuous: some word lies away from its set's centre
    assert split == (clusters > 1)  # the clustered sets do split a node


def _first_uncertified(sets, F, R, limit):
    """The first length at which a node's set (margins computed here in floats: the centre's
    margin minus sum_j sum_b ||(R_l - R_c) P_j(s)[:, b]|| r_(j,b), b over the set's blocks)
    reaches a decision boundary."""
    labels = np.asarray(sets.automaton.labels)
    parts = [list(b) for b in sets.blocks]
    reach: dict = {}  # (suffix id, label, class) -> ||(R_l - R_c) P_j(s)[:, b]|| by age and block, computed once
    while sets.t <= limit:
        for q, s, c, r in zip(sets.q, sets.sid, sets.c, sets.r):
            lab = int(labels[q])
            P = None
            for o in range(len(R)):
                if o == lab:
                    continue
                dv = R[lab] - R[o]
                if (int(s), lab, o) not in reach:
                    P = _products(F, sets.suffixes[int(s)]) if P is None else P
                    reach[int(s), lab, o] = [[np.linalg.norm(dv @ M[:, b]) for b in parts] for M in P]
                norms = reach[int(s), lab, o]
                m = dv @ c - sum(norms[j][bi] * r[j, bi]
                                 for j in range(min(len(r), len(norms))) for bi in range(len(parts)))
                if m <= 0:
                    return sets.t
        sets.step()
    return None


def test_the_length_is_where_a_set_first_crosses_a_decision_boundary():
    """The sets (checked above to contain every word) of the constructions that run here (aged
    balls, one ball, aged balls with a radius per block), their margins computed here: the
    certified length is the last length before one of them reaches a boundary, for the
    construction that reaches it latest."""
    from bilinear.constructions.horizon.horizon_nodes import CLUSTER_BELOW, node_sets

    w, a, snap, proof = _network("cyclic:3", 3e-3)
    ro = RoundOff.of("float64", w.dim)
    h = node_horizon(w, snap, proof, a, ro, max_steps=300, max_keys=81)
    F, R, _ = _plain_F(w, snap, proof, a)
    firsts = [_first_uncertified(node_sets(w, snap, proof, a, ro, max_keys=81, ages=ages, blocks=blocks), F, R, 300)
              for ages, blocks in ((None, False), (0, False), (None, True))]
    assert None not in firsts and max(firsts) - 1 >= CLUSTER_BELOW  # the split sets are not run
    assert firsts[2] > firsts[0]  # here the radius per block is what certifies longest
    assert h.length == max(firsts) - 1, (h.length, firsts)


def test_the_split_sets_run_where_the_others_stop_early():
    """reset:3 (suffixes within CLUSTER_KEYS keys): aged balls and one ball per node stop below
    CLUSTER_BELOW, so the split sets run too and certify longest; the length is the longest of
    the three, each stepped here (margins computed here)."""
    from bilinear.constructions.horizon.horizon_nodes import CLUSTER_BELOW, CLUSTER_KEYS, CLUSTERS, node_sets

    w, a, snap, proof = _network("reset:3", 3e-4)
    ro = RoundOff.of("float64", w.dim)
    h = node_horizon(w, snap, proof, a, ro, max_steps=300, max_keys=CLUSTER_KEYS)
    F, R, _ = _plain_F(w, snap, proof, a)
    firsts = [_first_uncertified(node_sets(w, snap, proof, a, ro, max_keys=CLUSTER_KEYS, ages=ages, clusters=m),
                                 F, R, 300) for ages, m in ((None, 1), (0, 1), (None, CLUSTERS))]
    assert None not in firsts and max(firsts[:2]) - 1 < CLUSTER_BELOW and firsts[2] > max(firsts[:2])
    assert h.length == max(firsts) - 1, (h.length, firsts)


def test_aged_balls_certify_more_than_one_ball_on_a_non_normal_network():
    """On a network whose matrices have norm well above 1 in the snap's basis (a perturbed `full`
    Z_3 in a random dense basis), the aged balls (only (k+1)-fold products' norms) certify
    several times longer than one ball per node (every step's norm), and the search finds no
    failure within the longer."""
    from bilinear.constructions.horizon.horizon_nodes import node_sets

    w, a, snap, proof = _network("cyclic:3", 3e-3)
    ro = RoundOff.of("float64", w.dim)
    F, R, _ = _plain_F(w, snap, proof, a)
    assert max(np.linalg.norm(M, 2) for M in F) > 1.2  # non-normal in that basis
    aged = _first_uncertified(node_sets(w, snap, proof, a, ro, max_keys=8), F, R, 600)
    one = _first_uncertified(node_sets(w, snap, proof, a, ro, max_keys=8, ages=0), F, R, 600)
    assert aged is not None and one is not None and aged > 5 * one, (aged, one)
    first = _first_failure(w, a, min(3 * aged, 600))
    assert first is None or first >= aged, (first, aged)


def test_split_sets_certify_more_where_the_images_at_a_node_lie_apart():
    """reset:3 (a perturbed `full` network in a random dense basis): the images at a node come from
    states the resets sent far apart; 16 sets per node certify longer than one, and the search
    finds no failure within the longer."""
    from bilinear.constructions.horizon.horizon_nodes import node_sets

    w, a, snap, proof = _network("reset:3", 3e-4)
    ro = RoundOff.of("float64", w.dim)
    F, R, _ = _plain_F(w, snap, proof, a)
    one = _first_uncertified(node_sets(w, snap, proof, a, ro, max_keys=9), F, R, 600)
    split = _first_uncertified(node_sets(w, snap, proof, a, ro, max_keys=9, clusters=16), F, R, 600)
    assert one is not None and split is not None and split > one, (split, one)
    first = _first_failure(w, a, min(4 * split, 600))
    assert first is None or first >= split, (first, split)


def test_float32_rounding_is_charged_in_the_sets():
    """Rounding is charged in every step's radius (Theorem 18's model): on this network float32's
    larger unit costs one step against exact real arithmetic (186 -> 185), while an uncharged
    radius would certify 186 in float32 too."""
    w, a, snap, proof = _network("dihedral:3", 1e-3)
    real = node_horizon(w, snap, proof, a, RoundOff.of("real", w.dim), max_keys=64)
    single = node_horizon(w, snap, proof, a, RoundOff.of("float32", w.dim), max_keys=64)
    assert single.length < real.length


def test_certify_s_one_node_run_charges_float32(monkeypatch):
    """`certify` runs Theorem 20 once and reports it for real, float64 and float32: that run must
    charge float32's rounding, the largest (docs/theory.md, Theorem 20, "Use").  On this network
    float32's rounding costs steps: the one run certifies what float32 does, less than real."""
    from bilinear.constructions.horizon import horizon
    monkeypatch.setattr(horizon, "MAX_KEYS", 64)
    w, a, snap, proof = _network("dihedral:3", 1e-3)
    widest = horizon.node_horizon_widest(w, snap, proof, a)
    single = node_horizon(w, snap, proof, a, RoundOff.of("float32", w.dim), max_steps=horizon.NODE_BELOW, max_keys=64)
    real = node_horizon(w, snap, proof, a, RoundOff.of("real", w.dim), max_steps=horizon.NODE_BELOW, max_keys=64)
    assert widest.length == single.length < real.length, (widest, single, real)


def test_a_radius_per_block_certifies_more_where_the_images_spread_in_some_blocks():
    """reset:3 (a perturbed `full` network; the snap's basis has five blocks): a radius per block
    of the snap's basis at every age certifies half as long again as one radius per age (the
    images at a node spread in the blocks the resets write, not in all), and the search finds no
    failure within the longer."""
    from bilinear.constructions.horizon.horizon_nodes import node_sets

    w, a, snap, proof = _network("reset:3", 3e-4)
    assert len(snap.blocks) == 5
    ro = RoundOff.of("float64", w.dim)
    F, R, _ = _plain_F(w, snap, proof, a)
    one = _first_uncertified(node_sets(w, snap, proof, a, ro, max_keys=16), F, R, 600)
    per_block = _first_uncertified(node_sets(w, snap, proof, a, ro, max_keys=16, blocks=True), F, R, 600)
    assert one is not None and per_block is not None and per_block >= 1.4 * one, (per_block, one)
    first = _first_failure(w, a, min(4 * per_block, 600))
    assert first is None or first >= per_block, (first, per_block)


def test_blocks_must_partition_the_coordinates():
    from bilinear.constructions.horizon.horizon_nodes import NodeSets
    from bilinear.constructions.exact.balls import precision
    from bilinear.constructions.horizon.horizon_global import ingredients

    w, a, snap, proof = _network("cyclic:3", 3e-3)
    with precision():
        _, st = ingredients(w, snap, proof, a, RoundOff.of("float64", w.dim))
        for bad in (((0, 1), (2, 3)), ((0, 1, 2), (2, 3, 4, 5)), ((0, 1, 2, 3, 4, 5), ())):
            with pytest.raises(ValueError, match="partition"):
                NodeSets(st, a, 2, blocks=bad)


def test_float32_rounding_is_charged_in_every_block():
    """With a radius per block, the step's rounding (a vector of norm at most delta ||x||) enters
    every block's ball: on this network float32's rounding costs steps against real arithmetic in
    the per-block sets too (rounding charged to one block only would certify as long as real)."""
    from bilinear.constructions.horizon.horizon_nodes import _run, node_sets

    w, a, snap, proof = _network("dihedral:3", 1e-3)
    lengths = {}
    for arithmetic in ("real", "float32"):
        sets = node_sets(w, snap, proof, a, RoundOff.of(arithmetic, w.dim), max_keys=64, blocks=True)
        assert sets.nb == len(snap.blocks) > 1
        lengths[arithmetic] = _run(sets, arithmetic, 600, 4_000_000).length
    assert lengths["float32"] < lengths["real"], lengths


@pytest.mark.parametrize("blocks", [False, True])
def test_every_perturbed_trajectory_lies_in_its_node_set(blocks):
    """Theorem 20's sets contain every trajectory whose steps are perturbed by at most delta ||x||
    (Theorem 18's model of a rounded step).  A large step round-off (1e-4, readout and start
    exact) and perturbations of exactly that size, along a fixed direction of each block in turn:
    every perturbed state of every word to depth 4 (computed here) meets its node's set, block by
    block (a radius per block charges the rounding to every block's ball)."""
    import flint

    from bilinear.constructions.horizon.horizon_nodes import node_sets

    w, a, snap, proof = _network("cyclic:3", 3e-3)
    F, _, x0 = _plain_F(w, snap, proof, a)
    big = RoundOff("custom", flint.arb(1e-4), flint.arb(0), flint.arb(0))
    parts = [list(b) for b in snap.blocks]
    for target in parts:
        sets = node_sets(w, snap, proof, a, big, max_keys=16, blocks=blocks)
        assert sets.delta > 1e-5
        u = np.zeros(len(x0))
        u[target[-1]] = 1.0  # the perturbation's direction: inside one block
        groups = [list(b) for b in sets.blocks]
        level = [((), x0)]
        for t in range(1, 5):
            sets.step()
            index = {(int(q), sets.suffixes[int(s)]): i for i, (q, s) in enumerate(zip(sets.q, sets.sid))}
            level = [(v + (s,), F[s] @ x + sets.delta * np.linalg.norm(x) * u) for v, x in level for s in range(len(F))]
            for v, x in level:
                q = int(a.start)
                for s in v:
                    q = int(a.delta[s, q])
                i = index[(q, v[-sets.k:])]
                c, r = sets.c[i], sets.r[i]
                P = _products(F, v[-sets.k:])
                assert _ray_meets(x / np.linalg.norm(x), c, _block_reach(P, r, groups), groups), (target, t, v)


def test_shared_products_give_the_same_sets():
    """node_horizon's constructions share one table of ball products (``shared``): stepped with
    it, after a construction that filled it, the sets are bit for bit those of a NodeSets with a
    table of its own, one radius and a radius per block alike."""
    from bilinear.constructions.exact.balls import precision
    from bilinear.constructions.horizon.horizon_global import ingredients
    from bilinear.constructions.horizon.horizon_nodes import NodeSets

    w, a, snap, proof = _network("cyclic:3", 3e-3)
    with precision():
        _, st = ingredients(w, snap, proof, a, RoundOff.of("float64", w.dim))
        shared: dict = {"keep_reentry": True}  # the re-entry products F_a P_k(s) kept too, as node_horizon may
        runs = {}
        for label, blocks, table in (("filler", None, shared), ("one", None, shared), ("blocks", snap.blocks, shared),
                                     ("one alone", None, None), ("blocks alone", snap.blocks, None)):
            sets = NodeSets(st, a, 2, 2, 1, blocks, table)
            margins = []
            for _ in range(6):
                margins.append(sets.margins())
                sets.step()
            runs[label] = (np.concatenate(margins), sets.r, sets.c)
        assert shared["rows"] and shared["products"]
        assert any(len(key) == 3 for key in shared["products"])  # suffix length 2: the kept (k+1)-fold products
    for label in ("one", "blocks"):
        for x, y in zip(runs[label], runs[label + " alone"]):
            assert np.array_equal(x, y), label


def _farthest_point_labels(c, keys, m):
    """The split the clustered sets use, written for the test: per key (rows in their order), the
    first row is seed 0, then m - 1 times the first row farthest from its nearest seed (none once
    every row is at distance 0), each row labelled with its nearest seed (the earliest on a tie)."""
    labels = np.zeros(len(c), dtype=np.int64)
    for key in np.unique(keys):
        rows = np.flatnonzero(keys == key)
        x = c[rows]
        dmin = np.linalg.norm(x - x[0], axis=1)
        near = np.zeros(len(rows), dtype=np.int64)
        for j in range(1, m):
            if dmin.max() == 0:
                break
            d = np.linalg.norm(x - x[int(np.argmax(dmin))], axis=1)
            near[d < dmin] = j
            dmin = np.minimum(d, dmin)
        labels[rows] = near
    return labels


def test_the_clusters_are_the_farthest_point_split():
    """_cluster_labels skips the rows the triangle inequality keeps with their seed: the labels
    are those of measuring every row (random rows; repeated rows and near-copies; rows on a grid,
    full of exact ties)."""
    from bilinear.constructions.horizon.horizon_nodes import _cluster_labels

    rng = np.random.default_rng(0)
    grid = rng.integers(0, 3, size=(300, 4)).astype(float)
    copies = np.repeat(rng.normal(size=(30, 6)), 6, axis=0) + 1e-13 * rng.normal(size=(180, 6))
    walk = np.cumsum(rng.normal(size=(400, 5)) * 1e-3, axis=0)
    for c, m in ((rng.normal(size=(400, 8)), 32), (grid, 16), (copies, 16), (walk, 64)):
        keys = rng.integers(0, 4, len(c))
        assert np.array_equal(_cluster_labels(c, keys, m), _farthest_point_labels(c, keys, m))


def test_the_triangle_inequality_skips_no_row_a_hair_nearer_to_the_new_seed():
    """Rows on a line where a new seed lands just under a row's distance from its nearest seed,
    on the other side of it: the seeds' distance is then a hair under twice the row's, so the
    bound that skips rows must keep its margin above 2 (1 + 1e-8) for the row to be measured and
    move.  First at the first seed's distances (row 1 at 1 from seed 0, seed 1 at 2 - 5e-9 from
    both), then at distances taken from a later seed (row 1 at 1 from seed 1 = 11, seed 2 at
    9 + 5e-9)."""
    from bilinear.constructions.horizon.horizon_nodes import _cluster_labels

    first = np.array([[0.0], [1.0], [2.0 - 5e-9]])
    assert _cluster_labels(first, np.zeros(3, dtype=np.int64), 2).tolist() == [0, 1, 1]
    later = np.array([[0.0], [10.0], [11.0], [9.0 + 5e-9]])
    assert _cluster_labels(later, np.zeros(4, dtype=np.int64), 3).tolist() == [0, 2, 1, 2]
    for c, m in ((first, 2), (later, 3)):
        assert np.array_equal(_cluster_labels(c, np.zeros(len(c), dtype=np.int64), m),
                              _farthest_point_labels(c, np.zeros(len(c), dtype=np.int64), m))
    assert _cluster_labels(np.zeros((0, 3)), np.zeros(0, dtype=np.int64), 4).shape == (0,)
