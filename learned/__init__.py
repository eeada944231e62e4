"""bilinear.learned: trained bilinear RNNs and baselines under the paper's protocol.

Modules: :mod:`~bilinear.learned.scan` (one scan for every variant), :mod:`~bilinear.learned.models`
(the variants), :mod:`~bilinear.learned.baselines`, :mod:`~bilinear.learned.registry` (model
names), :mod:`~bilinear.learned.config`, :mod:`~bilinear.learned.train`,
:mod:`~bilinear.learned.runs` (run directories, resume), :mod:`~bilinear.learned.sweep`,
:mod:`~bilinear.learned.reproduce` and the command line in :mod:`~bilinear.learned.cli`.
"""
