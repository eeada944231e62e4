"""The hand constructions and their registry: one module per construction family.

Module paths here are an implementation detail: import the public names from
:mod:`bilinear.constructions`.
"""
