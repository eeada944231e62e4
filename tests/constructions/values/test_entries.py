"""The exact entries of weights (constructions/values/entries.py): ``as_exact`` gives, entry by
entry, what ``_normalise_exact`` gives (ints; Fractions in lowest terms, an int when integral;
rational field elements as their Fractions), whichever way an entry takes through it."""

from __future__ import annotations

from fractions import Fraction

import flint
import numpy as np
import pytest

from bilinear.constructions.exact.field import CyclotomicField, cos2pi
from bilinear.constructions.values.entries import _normalise_exact, as_exact
from bilinear.errors import WeightsError


def test_every_kind_of_exact_entry_comes_out_as_one_entry_at_a_time_would():
    """Python and numpy ints, Fractions (integral or not, with numpy integer parts), FLINT
    rationals and integers, rational and irrational real field elements, a huge int: the same
    values and the same types as ``_normalise_exact`` of each."""
    real = cos2pi(1, 5)  # cos(2 pi / 5): real, not rational
    half = CyclotomicField(6).cos(1, 6)  # cos(pi / 3) = 1/2: rational (a Fraction, or a field element)
    two = cos2pi(1, 7) * 0 + 2  # a field element equal to 2
    entries = [3, -7, np.int64(4), Fraction(6, 3), Fraction(-3, 4), Fraction(np.int64(3), 4),
               Fraction(np.int64(8), np.int64(4)), flint.fmpq(5, 10), flint.fmpz(9), 10**40, Fraction(10**40, 3),
               half, two, real]
    got = as_exact(np.array(entries, dtype=object), "A")
    for x, y in zip(entries, got):
        want = _normalise_exact(x, "")
        assert y == want and type(y) is type(want), (x, y, want)
        if isinstance(want, Fraction):
            assert type(y.numerator) is int and type(y.denominator) is int and y.denominator > 1
    assert [type(y) for y in got[:6]] == [int, int, int, int, Fraction, Fraction]


@pytest.mark.parametrize("bad, why", [(True, "boolean"), (0.5, "not an exact real number"), ("1/2", "not an exact")])
def test_a_bad_entry_is_named_after_a_good_fraction(bad, why):
    """The fast paths pass ints and Fractions through; the next entry is still checked and named."""
    with pytest.raises(WeightsError, match=rf"A\[0\]\[0, 2\] = .*{why}"):
        as_exact(np.array([[[Fraction(1, 2), 3, bad]]], dtype=object), "A")
