"""The float check's inputs and its result (constructions/horizon/floatcheck.py): the words it
draws, the size it refuses, the directed words of a certificate, models that are not Weights
(a callable, a torch module with Weights inside, a stack), and what the result records."""

from __future__ import annotations

import numpy as np
import pytest

from bilinear.automata import from_spec
from bilinear.constructions import Weights, build, cascade, check
from bilinear.constructions.horizon import floatcheck
from bilinear.constructions.horizon.floatcheck import check_bytes, check_size, directed_words
from bilinear.constructions.values.tracker import as_tracker
from bilinear.errors import MismatchError, WeightsError

PARITY = from_spec("parity")


def _parity_logits(words: np.ndarray, margin: float = 1.0, wrong_at: int | None = None) -> np.ndarray:
    """Logits (batch, time, 2) of parity: the right class ahead by ``margin`` (a tie at 0), the
    wrong one ahead at step ``wrong_at``."""
    parity = np.cumsum(words, axis=1) % 2
    logits = np.zeros(words.shape + (2,))
    np.put_along_axis(logits, parity[..., None], margin, axis=2)
    if wrong_at is not None:
        logits[:, wrong_at] = logits[:, wrong_at, ::-1]
    return logits


def test_the_size_limit_is_checked_at_its_boundary(monkeypatch):
    """The estimate is words x length x 24 bytes + words x hidden x 16 (and a tracker's logits);
    exactly MAX_CHECK_BYTES passes and a byte more is refused, with the hidden size counted only
    where there is one."""
    assert check_bytes(1000, 500, 16) == 12_000_000 + 256_000 and check_bytes(3, 7, 0) == 504
    L = (2**30 - 16) // 24  # one word of L symbols and one hidden unit: exactly 2^30 bytes
    assert check_bytes(1, L, 1) == floatcheck.MAX_CHECK_BYTES
    check_size(1, L, 1)
    with pytest.raises(WeightsError, match=r"1 words of length 44,739,242 \(hidden size 4\) would need about 1 GiB"):
        check_size(1, L, 4)
    check_size(2, 22_369_621)  # 2^30 - 16 bytes without a hidden unit; with one it would be 2^30 + 16
    with pytest.raises(WeightsError, match="MAX_CHECK_BYTES"):
        check_size(2, 22_369_621, 1)
    # a batch of words given is sized the same way: (2 words, 50 symbols) and 16 units need 2,912 bytes
    monkeypatch.setattr(floatcheck, "MAX_CHECK_BYTES", 2912)
    w = Weights("full", np.tile(np.eye(16), (2, 1, 1)), np.ones(16), np.ones((2, 16)))
    assert check(w, PARITY, word_batch=np.zeros((2, 50), dtype=np.int64)).n_words == 2
    with pytest.raises(WeightsError, match="2 words of length 51"):
        check(w, PARITY, word_batch=np.zeros((2, 51), dtype=np.int64))
    # a model judged on its logits, without a hidden size: words x length x (24 + 16 x 2 classes) and
    # one forward pass of the 200 symbols' 2 logits (x 16): 11,200 + 6,400 = 17,600 bytes
    monkeypatch.setattr(floatcheck, "MAX_CHECK_BYTES", 17_600)
    assert check(_parity_logits, PARITY, words=10, length=20, directed=False).passed
    with pytest.raises(WeightsError, match=r"10 words of length 21 \(2 logits a symbol\)"):
        check(_parity_logits, PARITY, words=10, length=21, directed=False)


@pytest.mark.parametrize("shape", [(0, 5), (5, 0), (5,)])
def test_a_batch_of_words_must_have_words_and_symbols(shape):
    with pytest.raises(WeightsError, match=r"word_batch must have shape \(batch, time\) with both > 0"):
        check(build("parity", "diagonal"), PARITY, word_batch=np.zeros(shape, dtype=np.int64))
    one = check(build("parity", "diagonal"), PARITY, word_batch=[[1]])  # one word of one symbol is fine
    assert (one.n_words, one.length, one.passed) == (1, 1, True)


def test_the_defaults_and_what_the_result_records():
    r = check(build("parity", "diagonal"), PARITY)
    assert (r.n_words, r.length, r.seed, r.directed) == (1000, 500, 0, len(directed_words(PARITY, 500)))
    assert 0 <= r.seconds < 60
    r = check(build("parity", "diagonal"), PARITY, words=7, length=9, seed=3, directed=False)
    assert (r.n_words, r.length, r.seed, r.directed) == (7, 9, 3, 0)


def test_random_words_draw_every_symbol():
    """Symbol 0 of this network is wrong (it flips, as symbol 1 does): random words find it."""
    A = np.array([[[-1.0]], [[-1.0]]])
    wrong = Weights("diagonal", A, np.array([1.0]), np.array([[1.0], [-1.0]]))
    r = check(wrong, PARITY, words=20, length=10, directed=False)
    assert not r.passed and 0 in r.first_failure and r.first_failure[-1] == 0


def test_a_certificate_adds_its_witnesses_to_the_directed_words():
    """A network of a variant that cannot hold the automaton (an impossibility certificate) is also
    checked on the certificate's two witnesses, repeated; a stack of several variants (a "+" in
    its variant) on no one certificate's."""
    from bilinear.constructions.impossible.certificates import certify

    a = from_spec("dihedral:3")
    witnesses = certify(a, "diagonal").witnesses
    plain, certified = directed_words(a, 12), directed_words(a, 12, "diagonal")
    assert certified.shape == (plain.shape[0] + len(witnesses), 12)
    assert [r.tolist() for r in certified[plain.shape[0]:]] == [floatcheck._cycled(w, 12) for w in witnesses]
    rng = np.random.default_rng(1)
    diagonal = Weights("diagonal", np.stack([np.diag(rng.normal(size=3)) for _ in range(2)]), np.ones(3),
                       rng.normal(size=(6, 3)))
    assert check(diagonal, a, words=5, length=12).directed == certified.shape[0]
    assert check(diagonal, a, words=5, length=12, witnesses=False).directed == plain.shape[0]


def test_verify_float_on_a_proved_cell_searches_no_certificate(monkeypatch, capsys):
    """``verify SPEC VARIANT --float`` proves the construction, so the variant has no certificate
    (it would rule out every network of the variant): the float check does not search for one
    (5 s on cyclic:1000 rotation2d), and its directed words are the plain ones."""
    import json

    from bilinear.cli import main

    asked = []  # per listing of the directed words, the variant whose certificate it searches (None: none);
    # the float check lists them last (settle may list them before, for its exact pass)
    real = floatcheck._directed_parts
    monkeypatch.setattr(floatcheck, "_directed_parts", lambda a, v=None, *r: asked.append(v) or real(a, v, *r))
    assert main(["verify", "cyclic:5", "rotation2d", "--float", "--words", "4", "--length", "9", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "proved" and asked[-1] is None
    assert out["float_check"]["directed"] == directed_words(from_spec("cyclic:5"), 9).shape[0]
    # a proved stack of rotation2d layers says nothing of one layer's certificate: its witnesses stay
    assert main(["verify", "dihedral:3", "rotation2d", "--layers", "2", "--float", "--words", "4", "--length", "9",
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "proved" and asked[-1] == "rotation2d"
    assert out["float_check"]["directed"] == directed_words(from_spec("dihedral:3"), 9, "rotation2d").shape[0] == \
        directed_words(from_spec("dihedral:3"), 9).shape[0] + 2


def test_a_model_with_weights_inside_is_checked_as_its_weights():
    """A torch module that exports Weights (``to_weights``) is checked as those Weights: with its
    variant's certificate witnesses among the directed words (diagonal matrices cannot hold the
    dihedral group), as the Weights themselves are, where its logits alone have none."""
    import torch

    from bilinear.learned.models import BilinearRNN

    a = from_spec("dihedral:3")
    rng = np.random.default_rng(2)
    w = Weights("diagonal", np.stack([np.diag(rng.normal(size=3)) for _ in range(2)]), np.ones(3), rng.normal(size=(6, 3)))
    module = BilinearRNN.from_weights(w)
    assert module.to_weights().variant == "diagonal"
    mine, its = (check(m, a, words=5, length=12) for m in (module, w))
    logits = check(as_tracker(lambda words: module(torch.as_tensor(words)).detach().numpy()), a, words=5, length=12)
    assert mine.directed == its.directed == directed_words(a, 12, "diagonal").shape[0]
    assert logits.directed == directed_words(a, 12).shape[0] < mine.directed
    assert mine.worst_margin == pytest.approx(its.worst_margin, rel=1e-9) and mine.accuracy == its.accuracy


def test_a_stack_is_judged_on_its_last_layer():
    a = from_spec("dihedral:3")
    stack = cascade(a, "rotation2d")
    last, first = (floatcheck._empty_margin(layer, a) for layer in (stack.layers[-1], stack.layers[0]))
    assert floatcheck._empty_margin(stack, a) == last != first
    r = check(stack, a, words=30, length=40, float_table=False)
    assert r.passed and r.accuracy == 1.0 and r.worst_margin <= last


def test_a_callable_model_is_judged_on_its_logits():
    """Every prefix is judged (the first block too), a tie is a failure, a margin below one is not."""
    r = check(_parity_logits, PARITY, words=6, length=40, directed=False)
    assert r.passed and r.worst_margin == 1.0
    half = check(lambda w: _parity_logits(w, margin=0.5), PARITY, words=6, length=40, directed=False)
    assert half.passed and half.worst_margin == 0.5
    tie = check(lambda w: _parity_logits(w, margin=0.0), PARITY, words=6, length=40, directed=False)
    assert tie.accuracy == 0 and tie.first_failure is not None and len(tie.first_failure) == 1
    first = check(lambda w: _parity_logits(w, wrong_at=0), PARITY, words=6, length=40, directed=False)
    assert first.accuracy == pytest.approx(39 / 40) and len(first.first_failure) == 1


def test_a_callable_model_of_another_alphabet_or_no_automaton():
    three = as_tracker(_parity_logits, n_symbols=3)
    with pytest.raises(MismatchError, match="model reads 3 symbols but automaton parity has 2"):
        check(three, PARITY, words=3, length=4)
    with pytest.raises(MismatchError, match="got NoneType"):
        check(_parity_logits, None, words=3, length=4)


def test_a_callable_model_over_many_blocks():
    """3,000 words of 2 classes: 21 steps a block, so 100 steps take 5 blocks; a model wrong only
    at the last step fails there, on every word."""
    assert floatcheck._block_steps(3000, 2) == 21
    r = check(lambda w: _parity_logits(w, wrong_at=99), PARITY, words=3000, length=100, directed=False)
    assert r.accuracy == pytest.approx(99 / 100) and r.final_accuracy == 0 and len(r.first_failure) == 100
