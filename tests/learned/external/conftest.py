"""The checkpoint fixtures (tests/external_fixtures.py)."""

from external_fixtures import saved, trained_parity  # noqa: F401
