"""The exact prover: the reachable (state, direction) search, its clock and verdicts, stacks.

Module paths here are an implementation detail: import the public names from
:mod:`bilinear.constructions`.
"""
