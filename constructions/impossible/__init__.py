"""Impossibility certificates and lower bounds on the dimension, the rank and the depth.

Module paths here are an implementation detail: import the public names from
:mod:`bilinear.constructions`.
"""
