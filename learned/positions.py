"""The longest word a Transformer baseline with learned positions reads.

A constant of its own, importing nothing: the model registry (``bilinear.learned.registry``, which
parses specs without torch) and the torch baselines (``bilinear.learned.baselines``) both read it.
"""

__all__ = ["MAX_POSITIONS"]

#: Learned positions of the ``CausalTransformer`` baseline (GPT-2's context length): the longest
#: word it reads; sinusoidal positions have no limit.
MAX_POSITIONS = 1024
