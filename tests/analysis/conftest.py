"""The checkpoint fixtures of tests/external_fixtures.py, for the analysis of loaded models."""

from external_fixtures import saved, trained_parity  # noqa: F401
