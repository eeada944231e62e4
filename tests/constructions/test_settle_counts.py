"""The bare factor-counting columns (``householder``, ``dplr``: K or R left to the builder) and the
texts of stacked cells, in constructions/settle.py: the least count no certificate excludes and its
reason, the counts tried one by one and the refusals they leave, the search past them, and the
messages when nothing is found."""

from __future__ import annotations

import pytest

from bilinear.automata import from_spec
from bilinear.constructions import settle as settle_module
from bilinear.constructions.settle import _build, _factor_bound, _smallest_count, settle
from bilinear.errors import ConstructionError

CERT = "is impossible (symbol-constancy certificate u=ε, g=1, v=ε: labels along g^n = 0 1 2 ... (period 3 from n=0))"


def test_the_factor_bound_names_every_count_it_excludes():
    assert _factor_bound(from_spec("cyclic:3"), "householder", ("nonneg",)) == (
        3, f"householder:1,nonneg {CERT}; householder:2,nonneg {CERT}")
    assert _factor_bound(from_spec("parity"), "householder") == (1, "K >= 1 by definition")
    assert _factor_bound(from_spec("cyclic:3"), "dplr") == (1, "R >= 1 by definition")
    cell = settle("parity", "householder")
    assert (cell.factors_lower_bound, cell.factors_reason) == (1, "K >= 1 by definition")


def test_the_factor_bound_stops_one_past_the_largest_count_tried(monkeypatch):
    """cyclic:3 under nonneg excludes K = 1 and 2; with MAX_COUNT = 2 both are still searched
    (the bound is capped at MAX_COUNT + 1 = 3, not at 2), with MAX_COUNT = 1 only the first."""
    monkeypatch.setattr(settle_module, "MAX_COUNT", 2)
    assert _factor_bound(from_spec("cyclic:3"), "householder", ("nonneg",)) == (
        3, f"householder:1,nonneg {CERT}; householder:2,nonneg {CERT}")
    monkeypatch.setattr(settle_module, "MAX_COUNT", 1)
    assert _factor_bound(from_spec("cyclic:3"), "householder", ("nonneg",)) == (2, f"householder:1,nonneg {CERT}")


def test_the_counts_tried_one_by_one_are_refusals_then_the_chosen_builds_own():
    """cyclic:7 under nonneg: K = 3..6 (from the factor bound to MAX_COUNT) each refused by the
    registry, then K = 14 found past them; the refusals list the four counts, in order, each with
    the registry's reason, then why the chosen build passed over its other constructions."""
    cell = settle("cyclic:7", "householder,nonneg")
    assert (cell.status, cell.factors, cell.factors_lower_bound) == ("proved", 14, 3)
    names = [name for name, _ in cell.refusals]
    assert names[:4] == [f"householder:{k},nonneg" for k in range(3, 7)]
    assert not any(name.startswith("householder:") for name in names[4:])
    assert cell.refusals[0][1].startswith("no construction of cyclic:7 for variant 'householder:3,nonneg'")
    assert "one-hot" in names[4:] and "signed-cycles" in names[4:]
    assert len(names) > 8


def test_the_smallest_count_starts_at_one_by_default():
    parity = from_spec("parity")
    assert _smallest_count(parity, "householder", ()).variant == "householder:1"
    assert _build(parity, "householder").variant == "householder:1"
    assert _smallest_count(parity, "householder", (), start=2).variant == "householder:2"


@pytest.fixture
def no_householder(monkeypatch):
    """The registry refusing every householder build (the others built as usual)."""
    from bilinear.constructions.handmade import registry

    real = registry.build

    def refusing(automaton, variant, **kwargs):
        if str(variant).startswith("householder"):
            raise ConstructionError(f"refused {variant}")
        return real(automaton, variant, **kwargs)

    monkeypatch.setattr(registry, "build", refusing)
    return registry


def test_no_construction_at_any_count_is_an_open_cell_naming_the_counts(no_householder, monkeypatch):
    """Every build of the kind refused (the registry patched): the bare column is open, saying
    which counts were tried; the factorized column likewise when no construction factorises."""
    with pytest.raises(ConstructionError, match=r"^no construction of cyclic:3 for householder with 2 <= K <= 6$"):
        _smallest_count(from_spec("cyclic:3"), "householder", (), start=2)
    cell = settle("cyclic:3", "householder")
    assert cell.status == "open"
    assert cell.detail.startswith("no construction (no construction of cyclic:3 for householder with 2 <= K <= 6)")
    monkeypatch.setattr(no_householder, "smallest_factor_rank", lambda a: None)
    with pytest.raises(ConstructionError, match=r"^no construction of cyclic:3 to factorise$"):
        _build(from_spec("cyclic:3"), "factorized")


def test_a_repeated_layer_says_so_after_its_proof():
    """flipflop:2 has no cascade: the full construction is repeated, and the proved cell says how
    after the proof; a cascade's cell does not."""
    cell = settle("flipflop:2", "full", layers=2)
    assert cell.summary == "proved 2 layers, d=2+2"
    assert cell.detail == ("exact proof over 2 reachable (state, direction tuple) pairs; the one-layer full "
                           "construction (d=2) in each of the 2 layers, each ignoring the class below: no cascade "
                           "of this automaton is built, depth adds nothing here")
    assert settle("symmetric:3", "full", layers=2).detail == "exact proof over 6 reachable (state, direction tuple) pairs"


def test_each_depth_theorem_states_its_own_hypotheses():
    """Theorem S4 (idempotents) allows singular matrices, Theorem S3 (derived length) does not."""
    s4 = settle("flipflop:2", "rotation2d", layers=2)
    assert s4.status == "open" and "by Theorem S4" in s4.detail
    assert "every layer's matrices commute (singular ones allowed)" in s4.detail and "invertible" not in s4.detail
    s3 = settle("symmetric:4", "rotation2d", layers=2)
    assert s3.detail.startswith("the derived length is 3 > 2: by Theorem S3")
    assert "every layer's matrices commute and are invertible" in s3.detail


def test_a_bare_column_with_nothing_built_is_bounded_as_its_least_count(no_householder):
    """symmetric:3 ``householder,nonneg``: K = 1, 2 excluded by certificates, nothing built (the
    registry patched): the lower bound on d is that of ``householder:3,nonneg`` (3), not of
    ``full`` (2)."""
    from bilinear.constructions.impossible.bounds import lower_bound

    cell = settle("symmetric:3", "householder,nonneg")
    assert (lower_bound("symmetric:3", "householder:3,nonneg")[0], lower_bound("symmetric:3", "full")[0]) == (3, 2)
    assert (cell.status, cell.factors_lower_bound, cell.lower_bound) == ("open", 3, 3)
    assert cell.detail.endswith("; no impossibility theorem for this variant")


def test_a_counted_variant_carries_its_factor_bound_and_a_factored_one_none():
    assert settle("cyclic:3", "householder:3").factors_lower_bound == 2
    assert settle("cyclic:3", "factorized:6").factors_lower_bound is None


def test_the_certificate_search_runs_up_to_its_work_limit_and_says_when_it_was_skipped(monkeypatch):
    """cyclic:3 diagonal: impossible by its certificate when states x symbols^2 is at most
    CERTIFY_WORK_LIMIT; one below, the search is skipped and the open cell says so."""
    a = from_spec("cyclic:3")
    cost = a.n_states * a.n_symbols**2
    monkeypatch.setattr(settle_module, "CERTIFY_WORK_LIMIT", cost)
    assert settle("cyclic:3", "diagonal").status == "impossible"
    monkeypatch.setattr(settle_module, "CERTIFY_WORK_LIMIT", cost - 1)
    cell = settle("cyclic:3", "diagonal")
    assert cell.status == "open"
    assert cell.detail.endswith(f"; certificate search skipped: states x symbols^2 = {cost:,} passes "
                                f"CERTIFY_WORK_LIMIT = {cost - 1:,}")


def test_an_open_cell_says_whether_a_certificate_was_searched():
    """No construction: with a certificate kind searched in vain, "no certificate exists"; with
    none for the variant, "no impossibility theorem"."""
    searched = settle("gridworld:4", "householder:1")
    assert searched.status == "open" and searched.detail.endswith("; no certificate exists")
    unsearched = settle("quaternion", "block:2")
    assert unsearched.status == "open"
    assert unsearched.detail.endswith("; no impossibility theorem for this variant")
