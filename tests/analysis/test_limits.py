"""Analysis sizes (words x length, behaviour horizon, max order) are refused before any work."""

from __future__ import annotations

import time

import pytest

from bilinear.analysis import ExtractConfig, extract
from bilinear.analysis import AnalysisConfig, analyze
from bilinear.analysis import spectrum
from bilinear.automata import from_spec
from bilinear.constructions import build
from bilinear.errors import AnalysisError


def _weights():
    return build("cyclic:3", "rotation2d"), from_spec("cyclic:3")


@pytest.mark.parametrize("config, message", [
    (ExtractConfig(words=10**8, length=100), r"would need about .* GiB.*MAX_EXTRACT_BYTES"),
    (ExtractConfig(words=100, length=10**8), r"would need about .* GiB.*MAX_EXTRACT_BYTES"),
    (ExtractConfig(method="behaviour", horizon=30), r"horizon 30 gives [\d,]+ words per signature"),
    (ExtractConfig(method="behaviour", horizon=10**6), r"horizon 1000000 gives too many words"),
])
def test_extraction_limits_are_checked_first(config, message) -> None:
    w, a = _weights()
    for run in (lambda: extract(w, a, config), lambda: analyze(w, a, AnalysisConfig(extract=config))):
        start = time.process_time()
        with pytest.raises(AnalysisError, match=message):
            run()
        assert time.process_time() - start < 1.0


def test_max_order_has_a_limit() -> None:
    w, a = _weights()
    with pytest.raises(AnalysisError, match=r"max_order 100,000,000 exceeds the limit 10,000"):
        spectrum(w, a, max_order=100_000_000)
    with pytest.raises(AnalysisError, match="MAX_ORDER"):
        analyze(w, a, AnalysisConfig(max_order=100_000_000))
