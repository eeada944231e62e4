"""Fixtures shared by the tests of the constructions room."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def default_matrix():
    """The default capability matrix (every row of ``DEFAULT_ROWS`` against every column of
    ``DEFAULT_COLUMNS``), settled once per session: ``bilinear matrix`` with no arguments
    computes exactly this (about 40 s of one core), and the tests of the matrix, of the lower
    bounds and of the depth table read it instead of settling it again."""
    from bilinear.constructions.capability import capability_matrix

    return capability_matrix()
