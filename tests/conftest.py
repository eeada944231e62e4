"""Shared test configuration: Hypothesis profiles and one torch thread.

Profiles: ``dev`` (default, randomised) and ``ci`` (derandomised, used when ``CI`` is set).
Select one explicitly with ``HYPOTHESIS_PROFILE=dev|ci``.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "dev", max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "ci",
    max_examples=30,
    deadline=None,
    derandomize=True,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))

try:  # the machines are shared: one thread keeps the suite fair and predictable
    import torch

    torch.set_num_threads(1)
except ImportError:  # pragma: no cover
    pass
