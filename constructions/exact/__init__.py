"""Exact arithmetic: cyclotomic fields, the exact domains, ball arithmetic (python-flint's arb).

Module paths here are an implementation detail: import the public names from
:mod:`bilinear.constructions`.
"""
