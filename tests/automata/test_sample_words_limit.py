"""``sample_words`` checks its size before drawing (probe 2, defect 3): ``n=10**6, max_len=10**5``
was numpy's MemoryError (745 GiB) and ``n=3000, max_len=100000`` (about 12 GB) was simply
allocated.  The limit is ``bilinear data``'s and a words file's, ``MAX_POSITIONS``."""

from __future__ import annotations

import numpy as np
import pytest

from bilinear.automata import from_spec, sample_words
from bilinear.automata import data, wordfile
from bilinear.cli import main
from bilinear.errors import DataError


@pytest.mark.parametrize("n, max_len, message", [
    (10**12, 10**6, "1,000,000,000,000 words of up to 1,000,000 symbols are 1,000,000,000,000,000,000 positions "
                    "(about 4.2e+10 GB at the peak)"),
    (10**6, 10**5, "1,000,000 words of up to 100,000 symbols are 100,000,000,000 positions (about 4.2e+03 GB"),
    (3000, 100_000, "3,000 words of up to 100,000 symbols are 300,000,000 positions (about 12.6 GB at the peak)"),
])
def test_sample_words_refuses_past_the_data_commands_limit_before_drawing(n, max_len, message):
    rng = np.random.default_rng(0)
    state = rng.bit_generator.state
    with pytest.raises(DataError) as refused:
        sample_words(from_spec("parity"), n=n, min_len=1, max_len=max_len, seed=rng)
    assert message in str(refused.value)
    assert str(refused.value).endswith("over the limit of 200,000,000 (bilinear.automata.data.MAX_POSITIONS)")
    assert rng.bit_generator.state == state  # nothing drawn


def test_the_limit_is_the_words_files_and_its_edge_is_allowed(monkeypatch):
    assert data.MAX_POSITIONS is wordfile.MAX_POSITIONS  # one number, defined in data, read back by wordfile
    monkeypatch.setattr(data, "MAX_POSITIONS", 100)
    assert sample_words(from_spec("parity"), 10, 1, 10).words.shape == (10, 10)
    with pytest.raises(DataError, match="11 words of up to 10 symbols are 110 positions"):
        sample_words(from_spec("parity"), 11, 1, 10)


def test_a_caller_may_give_its_own_limit():
    with pytest.raises(DataError, match=r"over the limit of 50$"):
        sample_words(from_spec("parity"), 10, 1, 10, max_positions=50)
    assert len(sample_words(from_spec("parity"), 10, 1, 10, max_positions=100)) == 10
    with pytest.raises(DataError, match="max_positions must be >= 0, got -1"):
        sample_words(from_spec("parity"), 10, 1, 10, max_positions=-1)


def test_the_data_command_refuses_the_same_size(tmp_path, capsys):
    out = tmp_path / "w.csv"
    assert main(["data", "parity", "--lengths", "1", "100000", "--count", "3000", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "--count 3,000 words of up to 100,000 symbols are 300,000,000 positions (about 12.6 GB at the peak), " \
           "over the limit of 200,000,000 (bilinear.automata.data.MAX_POSITIONS)" in err and err.count("\n") == 1
    assert not out.exists()


def test_a_training_run_draws_its_word_sets_within_its_own_memory_limit(monkeypatch):
    """A run's test, validation and pool words are bounded by its memory limit (checked with the
    config, learned/limits.py), not by ``sample_words``' default: a run admitted at 16 GB whose
    test set has 3·10^8 positions must not be refused after training by a smaller limit."""
    import importlib

    from bilinear.learned import TrainConfig

    train_module = importlib.import_module("bilinear.learned.train")  # the module (the package exports train())

    config = TrainConfig(spec="parity", model="full", hidden=2, steps=1, test_len=20, test_words=4, max_memory_gb=16)
    assert train_module._positions(config) == 16 * 10**9 // 24 > 3 * 10**8 > data.MAX_POSITIONS
    assert train_module._positions(TrainConfig(spec="parity", model="full", max_memory_gb=1)) == data.MAX_POSITIONS
    seen = []
    real = train_module.sample_words

    def spy(*args, **kwargs):
        seen.append(kwargs.get("max_positions"))
        return real(*args, **kwargs)

    monkeypatch.setattr(train_module, "sample_words", spy)
    train_module.validation_set(from_spec("parity"), config)
    train_module.evaluate(train_module.make_model(config, from_spec("parity")), from_spec("parity"), 4, 20, 0,
                          max_positions=train_module._positions(config))
    assert len(seen) >= 2 and set(seen) == {train_module._positions(config)}  # every set drawn under the run's limit
