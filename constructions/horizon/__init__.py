"""The certification of float networks: snapping, float checks, failing words, horizons, rounding.

Module paths here are an implementation detail: import the public names from
:mod:`bilinear.constructions`.
"""
