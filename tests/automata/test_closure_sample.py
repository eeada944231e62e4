"""The closure keyed by sampled states (automata with more than 128 states) against the closure
keyed by whole rows, and its fallback when two elements agree on every sampled state."""

from __future__ import annotations

import numpy as np
import pytest

from bilinear.automata import Automaton, from_spec
from bilinear.automata import closure, sampled


@pytest.mark.parametrize("spec", ["cyclic:200", "dihedral:90", "flipflop:150", "modarith:13*cyclic:11"])
def test_sampled_closure_equals_the_whole_row_closure(spec):
    a = from_spec(spec)
    assert a.n_states > 2 * sampled._SAMPLE_COLUMNS
    got = closure.close(a)
    want = closure._closure(from_spec(spec), closure.DEFAULT_LIMIT, exact=True)
    for name in got._fields:
        assert np.array_equal(getattr(got, name), getattr(want, name)), name


def test_two_elements_alike_on_every_sampled_state_are_still_two():
    n = 200
    j = next(q for q in range(n) if q not in set(sampled._sample(n).tolist()))
    move = list(range(n))
    move[j] = (j + 1) % n  # differs from the identity at one state, outside the sample
    a = Automaton([move], labels=[q % 2 for q in range(n)])
    m = closure.close(a)
    assert m.elements.shape[0] == 2 and m.right.tolist() == [[1], [1]]


def test_a_symbol_alike_on_the_sample_but_a_different_element_is_found():
    """p sends every state to a sampled state s; q does too, except an unsampled state j, which it
    sends to another unsampled state.  They agree on every sampled state, so the sampled closure
    finds q as p: the edge (identity, q) leads to p's element, whose parent is the identity (by p,
    not by q).  Every other edge is right (p and q agree on p's image), so only the check of that
    edge -- a non-tree edge out of the tree parent of its target -- finds q != p, and the closure
    is redone on whole rows: {identity, p, q}."""
    n = 200
    sample = set(sampled._sample(n).tolist())
    s = min(sample)
    j, j2 = [x for x in range(n) if x not in sample][:2]
    p = [s] * n
    q = list(p)
    q[j] = j2
    m = closure.close(Automaton([p, q], labels=[0] * n))
    assert {tuple(r) for r in m.elements.tolist()} == {tuple(range(n)), tuple(p), tuple(q)}
    assert m.right.tolist() == [[1, 2], [1, 1], [1, 1]]


def _composed_by_hand(gens: np.ndarray, parent: np.ndarray, via: np.ndarray) -> list[list[int]]:
    """Each element's row from its parent's, one state at a time (the reference)."""
    rows = [list(range(gens.shape[1]))]
    for i in range(1, parent.shape[0]):
        rows.append([int(gens[via[i], x]) for x in rows[int(parent[i])]])
    return rows


@pytest.mark.parametrize("spec,narrow", [("symmetric:6", True),   # 720 states, uint16: 2 x 720 - 1 fits
                                         ("dihedral:90", False),  # 180 states, uint8: 2 x 180 - 1 does not
                                         ("cyclic:200", False)])  # one symbol: no offsets
def test_materialise_composes_every_element_from_its_parent(spec, narrow):
    """The whole rows against the composition by hand, where the symbols' offsets are added in the
    rows' own type (every index fits it) and where they are added to the widened index."""
    a = from_spec(spec)
    gens = a.delta.astype(closure._dtype_for(a.n_states))
    assert (a.n_symbols > 1 and a.n_symbols * a.n_states - 1 <= np.iinfo(gens.dtype).max) == narrow
    m = closure.close(a)
    for rows in (3, 38):  # blocks of a few rows and of the default's size
        got = sampled._materialise(gens, m.parent, m.via, sampled._Buffers(rows, a.n_states, gens.dtype))
        # array_equal, not list equality: pytest's report of two unequal 720 x 720 lists takes minutes
        assert np.array_equal(got, np.array(_composed_by_hand(gens, m.parent, m.via)))
        assert np.array_equal(got, m.elements)


@pytest.mark.parametrize("spec", ["symmetric:6", "dihedral:90", "cyclic:200"])
def test_a_group_is_closed_on_its_first_sample(spec, monkeypatch):
    """A permutation group's elements are told apart by the first, narrow sample (a Cayley
    automaton's by the image of one state): the closure runs once, with no fallback to the next
    sample or to whole rows (a fallback would give the same monoid, slower)."""
    calls = []
    inner = closure._closure

    def counted(automaton, *args, **kwargs):
        if automaton is a:  # (a smaller automaton's closure may bound the group's order first)
            calls.append(kwargs.get("sample"))
        return inner(automaton, *args, **kwargs)

    a = from_spec(spec)
    monkeypatch.setattr(closure, "_closure", counted)
    closure.close(a)
    assert len(calls) == 1 and calls[0] is not None and len(calls[0]) < sampled._SAMPLE_COLUMNS
