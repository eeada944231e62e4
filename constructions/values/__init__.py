"""The values and their file formats: Weights, variants and conformance, factored forms, stacks, float runs, trackers.

Module paths here are an implementation detail: import the public names from
:mod:`bilinear.constructions`.
"""
