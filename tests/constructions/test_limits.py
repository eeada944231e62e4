"""Sizes a user can ask for are refused before any allocation, and API misuse is a typed error."""

from __future__ import annotations

import time

import numpy as np
import pytest

from bilinear.automata import from_spec
from bilinear.constructions import check
from bilinear.constructions import prove
from bilinear.constructions import build
from bilinear.constructions import Weights
from bilinear.errors import BilinearError, WeightsError


@pytest.mark.parametrize("length, words", [(1_000_000, 1000), (500, 10**8), (10**9, 10**9)])
def test_float_check_size_is_refused_before_drawing_words(length: int, words: int) -> None:
    w = build("parity", "diagonal")
    start = time.process_time()
    with pytest.raises(WeightsError, match=r"would need about [\d.e+]+ GiB.*MAX_CHECK_BYTES.*--words or --length"):
        check(w, from_spec("parity"), length=length, words=words)
    assert time.process_time() - start < 1.0


def test_float_check_accepts_numpy_integers() -> None:
    w = build("parity", "diagonal")
    result = check(w, from_spec("parity"), length=np.int64(5), words=np.int32(3))
    assert (result.n_words, result.length, result.accuracy) == (3, 5, 1.0)


@pytest.mark.parametrize("call", [
    lambda w: prove(w, None),
    lambda w: check(w, None),
    lambda w: Weights.load(None),
    lambda w: Weights.load_projected(None),
    lambda w: __import__("bilinear.analysis.extract", fromlist=["extract"]).extract(w, None),
])
def test_missing_arguments_are_typed_errors(call) -> None:
    with pytest.raises(BilinearError):
        call(build("parity", "diagonal"))


def test_uint64_entries_stay_positive() -> None:
    """A uint64 entry 2**63 must not wrap to -2**63 (in the weights, messages or proofs)."""
    x = np.uint64(2**63)
    w = Weights("diagonal", np.array([[[x]], [[1]]], dtype=np.uint64), np.array([1], dtype=np.uint64), [[1], [-1]])
    assert w.A[0, 0, 0] == 2**63 and w.float_arrays()[0][0, 0, 0] > 0
    with pytest.raises(WeightsError, match="= 9223372036854775808 is off the diagonal"):
        Weights("diagonal", np.array([[[1, x], [0, 1]]] * 2, dtype=np.uint64), [1, 0], [[1, 0], [0, 1]])
    # the word "0" multiplies h0 by 2**63: positive, so class 0 (even) is right; "1" keeps it positive: wrong
    assert prove(w, from_spec("parity")).word == (1,)


def test_building_a_construction_respects_the_time_budget_and_shows_progress(monkeypatch, capsys) -> None:
    """verify dihedral:25000 block:2 spent minutes silently building the construction."""
    from bilinear.constructions.proof import search
    from bilinear.constructions.settle import settle

    start = time.process_time()
    cell = settle("dihedral:400", "block:2", time_budget=1e-6)
    assert cell.status == "open" and "construction not built within the time budget of 1e-06 s" in cell.detail
    assert time.process_time() - start < 5
    monkeypatch.setattr(search, "PROGRESS_AFTER", 0.0)
    monkeypatch.setattr(search, "PROGRESS_EVERY", 0.0)
    from bilinear.constructions.handmade.dihedral import dihedral_block

    dihedral_block.cache_clear()  # constructions are remembered per automaton: build it afresh
    assert settle("dihedral:5", "block:2", progress=True).status == "proved"
    assert "build: 1 of 10 states" in capsys.readouterr().err


def test_reachable_order_is_the_shortlex_breadth_first_order() -> None:
    """The vectorised breadth-first search gives the order and words of the Python loop it
    replaced (which took minutes on cyclic:10000's 10^8 transitions)."""
    from bilinear.automata.minimize import access_words

    def loop(a):
        index, order, words, i = {a.start: 0}, [a.start], [()], 0
        while i < len(order):
            for s in range(a.n_symbols):
                r = int(a.delta[s, order[i]])
                if r not in index:
                    index[r] = len(order)
                    order.append(r)
                    words.append(words[i] + (s,))
            i += 1
        return tuple(order), tuple(words)

    for spec in ["parity", "dihedral:9", "symmetric:4", "random:states=200,symbols=2,seed=4",
                 "modarith:12", "flipflop:5", "cyclic:3*dihedral:4"]:
        reach = access_words(from_spec(spec))
        assert (tuple(reach.states.tolist()), reach.words) == loop(from_spec(spec)), spec


def test_settle_skips_a_certificate_search_past_its_limit(monkeypatch) -> None:
    from bilinear.constructions import settle as settle_module

    assert settle_module.settle("cyclic:3", "diagonal").status == "impossible"
    monkeypatch.setattr(settle_module, "CERTIFY_WORK_LIMIT", 1)
    cell = settle_module.settle("cyclic:3", "diagonal")
    assert cell.status == "open" and "certificate search skipped: states x symbols^2 = 27" in cell.detail


def test_prover_reads_its_clock_on_every_step_not_only_on_new_pairs() -> None:
    """cyclic:1000 full pairs few states with many symbols: the clock, read only on new pairs
    (every 256th), let it run minutes past its budget without a progress line."""
    a = from_spec("cyclic:12")  # 12 pairs (fewer than the 16 between clock reads), 144 steps
    result = prove(build(a, "full"), a, time_budget=1e-6)
    assert type(result).__name__ == "Unproved" and "time budget" in str(result.reason)


def test_verify_float_size_is_refused_before_the_proof(capsys, monkeypatch) -> None:
    from bilinear.cli import main
    from bilinear.constructions import settle as settle_module

    def no_settle(*args, **kwargs):  # pragma: no cover - the point is that it is never called
        raise AssertionError("the proof ran before the size check")

    monkeypatch.setattr(settle_module, "settle", no_settle)
    assert main(["verify", "cyclic:3", "full", "--float", "--length", "1000000"]) == 2
    err = capsys.readouterr().err
    assert "would need about 22.4 GiB" in err and "MAX_CHECK_BYTES" in err and err.count("\n") == 1


def test_building_many_rotation_matrices_respects_the_time_budget() -> None:
    """verify cyclic:10000 rotation2d --time-budget 20 ran 50 s: the 10,000 exact rotation
    matrices were built before the first budget check."""
    from bilinear.automata import from_spec
    from bilinear.constructions.handmade.rotation import cyclic_rotation
    from bilinear.constructions.proof.search import Clock, OutOfTime, building

    with pytest.raises(OutOfTime) as info, building(Clock(1e-9, None)):
        time.sleep(0.001)  # past the budget before the first matrix
        cyclic_rotation(from_spec("cyclic:50"))
    seconds, done, total, unit = info.value.args
    assert (done, total, unit) == (0, 50, "rotation matrices")
