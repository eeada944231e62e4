"""A torch module whose output the tracker cannot read: NaN or infinite logits, and a ``readout`` submodule
called more than once per forward.  Each is one AnalysisError from the tracker itself, so every caller (the
float check, the assertions, the extraction, the report) refuses it the same way (docs/your-model.md)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from bilinear.analysis.extract import ExtractConfig, extract_tracker
from bilinear.analysis.report import AnalysisConfig, analyze_tracker
from bilinear.automata import from_spec
from bilinear.constructions import check
from bilinear.constructions.horizon.testing import assert_tracks, assert_tracks_word, first_wrong, tracks
from bilinear.constructions.values.tracker import as_tracker
from bilinear.errors import AnalysisError

PARITY = from_spec("parity")


class Blowup(torch.nn.Module):
    """Parity's logits, right up to position ``at`` (1-based); from there ``value`` (``inf``: the logits
    times +inf, so ``[+inf, -inf]`` or ``[-inf, +inf]``; ``nan``: class 0's logit NaN).  Infinite logits
    once passed ``assert_tracks`` (inf - (-inf) > 0) and failed ``assert_tracks_word`` ("says odd, the
    model says odd"); NaN logits gave the check accuracy 0 with worst margin +inf."""

    def __init__(self, value: float, at: int = 1):
        super().__init__()
        self.value, self.at = value, at

    def forward(self, words):
        sign = torch.cumprod(1.0 - 2.0 * words.double(), dim=1)
        logits = torch.stack([sign, -sign], dim=-1)
        if self.value != self.value:  # NaN
            logits[:, self.at - 1:, 0] = self.value
        else:
            logits[:, self.at - 1:] *= self.value
        return logits


MODULES = [Blowup(float("inf")), Blowup(-float("inf")), Blowup(float("nan")), Blowup(float("inf"), at=3),
           Blowup(float("nan"), at=3)]


def _said(m: Blowup) -> str:
    return rf"\(class 0\) after the token ids .*\(position {m.at} of word 1 of \d+\): logits must be finite"


@pytest.mark.parametrize("module", MODULES, ids=lambda m: f"{m.value}@{m.at}")
def test_the_check_and_both_assertions_refuse_nonfinite_logits_alike(module):
    said = _said(module)
    with pytest.raises(AnalysisError, match=said):
        check(module, PARITY, length=30, words=5)
    with pytest.raises(AnalysisError, match=said):
        assert_tracks(module, PARITY, length=30, words=5)
    with pytest.raises(AnalysisError, match=said):
        assert_tracks_word(module, PARITY, [1, 1, 0, 1])
    with pytest.raises(AnalysisError, match=said):
        first_wrong(module, PARITY, [1, 1, 0, 1])


def test_the_refusal_names_the_word_and_the_logit():
    with pytest.raises(AnalysisError) as info:
        assert_tracks_word(Blowup(float("nan"), at=3), PARITY, [1, 1, 0, 1])
    assert str(info.value) == ("tracker Blowup returned the logit nan (class 0) after the token ids 1^2 0 "
                               "(position 3 of word 1 of 1): logits must be finite numbers (a NaN or infinite "
                               "logit has no argmax or margin)")
    with pytest.raises(AnalysisError, match=r"the logit -inf \(class 0\) after the token ids 1 \(position 1 "):
        assert_tracks_word(Blowup(float("inf")), PARITY, [1, 0])


def test_the_shortest_nonfinite_prefix_is_named_the_lowest_word_among_equals():
    def late(words):  # finite except after 2 symbols of the second word and 4 of the first
        L = np.eye(2)[np.cumsum(words, axis=1) % 2]
        L[1, 1, 1], L[0, 3, 0] = np.inf, np.nan
        return L

    t = as_tracker(late, n_symbols=2, n_classes=2)
    with pytest.raises(AnalysisError, match=r"logit inf \(class 1\) after the token ids 0 1 \(position 2 of word 2 "
                                            r"of 2\)"):
        t.run(np.array([[1, 1, 0, 1, 0], [0, 1, 1, 1, 0]]))


def test_the_hypothesis_property_and_the_analyses_refuse_them_too():
    from hypothesis import settings

    module = Blowup(float("inf"))
    with pytest.raises(AnalysisError, match=_said(module)):
        settings(max_examples=5, database=None)(tracks(module, PARITY, max_length=20))()
    with pytest.raises(AnalysisError, match=_said(module)):
        extract_tracker(module, PARITY, ExtractConfig(words=20, length=10))
    with pytest.raises(AnalysisError, match=_said(module)):
        analyze_tracker(module, PARITY, AnalysisConfig(extract=ExtractConfig(words=20, length=10)))


def test_finite_logits_still_track():
    module = Blowup(1e300)  # large, finite: the margins are finite too
    assert check(module, PARITY, length=30, words=5).passed
    assert_tracks(module, PARITY, length=30, words=5)
    assert_tracks_word(module, PARITY, [1, 1, 0, 1])


class TwoReads(torch.nn.Module):
    """Parity, its ``readout`` called ``calls`` times per forward (e.g. an auxiliary head on the first
    step): the hook once caught every call's input and numpy refused to concatenate them."""

    def __init__(self, calls: int = 2, first: int | None = 1):
        super().__init__()
        self.readout = torch.nn.Identity()
        self.calls, self.first = calls, first

    def forward(self, words):
        sign = torch.cumprod(1.0 - 2.0 * words.double(), dim=1)
        h = torch.stack([sign, -sign], dim=-1)
        for _ in range(self.calls - 1):
            self.readout(h[:, : self.first])
        return self.readout(h) if self.calls else h


@pytest.mark.parametrize("module, calls", [(TwoReads(), 2), (TwoReads(first=None), 2), (TwoReads(3), 3),
                                           (TwoReads(0), 0)])
def test_a_readout_called_other_than_once_per_forward_is_refused(module, calls):
    """Whether or not the calls' inputs happen to have one shape (``first=None``: the same hidden states)."""
    said = rf"submodule 'readout' was called {calls} times in one forward; the hidden state is the input of one call"
    with pytest.raises(AnalysisError, match=said):
        extract_tracker(as_tracker(module, n_symbols=2, n_classes=2), PARITY, ExtractConfig(words=30, length=20))
    with pytest.raises(AnalysisError, match=said):
        as_tracker(module).run(np.array([[1, 0, 1]]), hidden=True)
    assert as_tracker(module).run(np.array([[1, 0, 1]])).logits.argmax(-1).tolist() == [[1, 1, 0]]  # no hook
    assert check(module, PARITY, length=30, words=5).passed


def test_a_readout_called_once_per_chunk_is_read():
    """The module runs in chunks of words (``max_batch``): one call per forward, every chunk's states kept."""
    module = TwoReads(1)
    module.max_batch = lambda time: 2  # type: ignore[assignment]  # a module's own chunk size
    out = as_tracker(module).run(np.array([[1, 0], [0, 0], [1, 1], [0, 1], [1, 0]]), hidden=True)
    assert out.hidden is not None and out.hidden.shape == (5, 2, 2)
    assert out.logits.argmax(-1).tolist() == [[1, 1], [0, 0], [1, 0], [0, 1], [1, 1]]
