"""Training a stack says which accuracy is which (issue 45, item 6): the progress line's batch
accuracy is the softmax mixture trained, the result line's the hard cascade."""

from __future__ import annotations

from bilinear.cli import main


def test_stack_training_names_its_two_accuracies(capsys) -> None:
    assert main(["train", "parity", "diagonal", "--layers", "2", "--steps", "20", "--test-len", "20",
                 "--test-words", "10", "--hidden", "2", "--stack-mixing", "soft"]) == 0
    out = capsys.readouterr().out
    assert "train accuracy" in out and "(the hard cascade; the progress line's soft_mix_acc" in out


def test_straight_through_stack_training_has_one_accuracy(capsys) -> None:
    """The default (straight-through) trains the hard cascade: the batch accuracy is the
    cascade's, and the result line needs no note (one saying "soft mixture" would be false)."""
    assert main(["train", "parity", "diagonal", "--layers", "2", "--steps", "20", "--test-len", "20",
                 "--test-words", "10", "--hidden", "2"]) == 0
    out = capsys.readouterr().out
    assert "train accuracy" in out and "soft_mix_acc" not in out and "hard cascade" not in out


def test_one_layer_training_keeps_its_plain_line(capsys) -> None:
    assert main(["train", "parity", "diagonal", "--steps", "20", "--test-len", "20", "--test-words", "10",
                 "--hidden", "2"]) == 0
    assert "hard cascade" not in capsys.readouterr().out


def test_train_returns_the_trained_model() -> None:
    """``train(TrainConfig(...))`` from Python gives the model (it gave only the result dict)."""
    import json

    from bilinear.learned import TrainConfig, train
    from bilinear.constructions.values.weights import Weights

    result = train(TrainConfig(spec="parity", model="diagonal", hidden=2, steps=20, test_len=20, test_words=10))
    assert isinstance(result.model.to_weights(), Weights) and result.model.to_weights().variant == "diagonal"
    assert json.loads(json.dumps(result)) == dict(result)  # still the JSON result, no model key
