"""learned/adam.py: the CPU Adam is torch.optim.Adam bit for bit, its state interchangeable."""

import copy

import numpy as np
import pytest
import torch

from bilinear.automata import from_spec
from bilinear.automata.data import sample_words
from bilinear.learned.adam import Adam, make_adam
from bilinear.learned.config import TrainConfig
from bilinear.learned.registry import make_model
from bilinear.learned.train import _loss


def _model(model: str = "full", spec: str = "cyclic:3"):
    config = TrainConfig(spec=spec, model=model, hidden=6, steps=10, test_len=20, test_words=8)
    automaton = from_spec(spec)
    torch.manual_seed(3)
    return make_model(config, automaton), automaton


def _batches(automaton, n: int):
    for i in range(n):
        ds = sample_words(automaton, 16, 2, 8, seed=np.random.default_rng((5, i)))
        yield torch.from_numpy(np.array(ds.words)), torch.from_numpy(np.array(ds.labels))


def _step(model, automaton, optimizer, words, labels) -> None:
    loss, _ = _loss(model, automaton, words, labels, torch.device("cpu"))
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()


def _same_state(ours: dict, theirs: dict) -> None:
    """Two optimizer state dicts hold the same groups and equal buffers (dtype and bits)."""
    assert ours["param_groups"] == theirs["param_groups"]
    assert ours["state"].keys() == theirs["state"].keys()
    for k, buffers in theirs["state"].items():
        assert ours["state"][k].keys() == buffers.keys()
        for name, value in buffers.items():
            assert ours["state"][k][name].dtype == value.dtype, name
            assert torch.equal(ours["state"][k][name], value), name


@pytest.mark.parametrize("model_name", ["full", "diagonal"])
def test_the_updates_are_torchs_bit_for_bit(model_name):
    model, automaton = _model(model_name)
    twin = copy.deepcopy(model)
    ours, theirs = Adam(model.parameters(), lr=0.05), torch.optim.Adam(twin.parameters(), lr=0.05)
    for words, labels in _batches(automaton, 6):
        _step(model, automaton, ours, words, labels)
        _step(twin, automaton, theirs, words, labels)
        for (name, p), q in zip(model.named_parameters(), twin.parameters()):
            assert torch.equal(p, q), name  # the same bits, not merely close
    assert any(not torch.equal(p, q) for p, q in zip(model.parameters(), _model(model_name)[0].parameters()))
    _same_state(ours.state_dict(), theirs.state_dict())


def test_a_complex_parameter_and_a_parameter_without_gradient():
    z = torch.nn.Parameter(torch.tensor([1.0 + 2.0j, -0.5j]))
    idle = torch.nn.Parameter(torch.tensor([3.0]))
    z2, idle2 = (torch.nn.Parameter(x.detach().clone()) for x in (z, idle))
    ours, theirs = Adam([z, idle], lr=0.1), torch.optim.Adam([z2, idle2], lr=0.1)
    for k in range(4):
        for p, opt in ((z, ours), (z2, theirs)):
            opt.zero_grad()
            (p * p.conj() * (k + 1)).real.sum().backward()
            opt.step()
        assert torch.equal(z, z2)
    assert torch.equal(idle, idle2) and float(idle.detach()) == 3.0
    _same_state(ours.state_dict(), theirs.state_dict())


def test_a_checkpoint_moves_between_the_two_and_training_goes_on_alike():
    model, automaton = _model()
    batches = list(_batches(automaton, 6))
    theirs = torch.optim.Adam(model.parameters(), lr=0.02)
    for words, labels in batches[:3]:
        _step(model, automaton, theirs, words, labels)
    saved_model = copy.deepcopy(model.state_dict())
    saved = copy.deepcopy(theirs.state_dict())
    ours_model, _ = _model()
    ours_model.load_state_dict(saved_model)
    ours = Adam(ours_model.parameters(), lr=1.0)  # the loaded groups' options replace these
    ours.load_state_dict(saved)
    assert ours.param_groups[0]["lr"] == 0.02
    _same_state(ours.state_dict(), theirs.state_dict())
    back = torch.optim.Adam(model.parameters(), lr=1.0)  # and ours into torch's
    back.load_state_dict(copy.deepcopy(ours.state_dict()))
    for words, labels in batches[3:]:
        _step(model, automaton, back, words, labels)
        _step(ours_model, automaton, ours, words, labels)
    for p, q in zip(model.parameters(), ours_model.parameters()):
        assert torch.equal(p, q)


def test_refusals_and_the_device_choice():
    w = torch.nn.Parameter(torch.zeros(2))
    with pytest.raises(ValueError, match="empty parameter list"):
        Adam([])
    with pytest.raises(ValueError, match="learning rate"):
        Adam([w], lr=-1.0)
    with pytest.raises(ValueError, match="beta parameter at index 1"):
        Adam([w], betas=(0.9, 1.0))
    opt = Adam([w])
    with pytest.raises(ValueError, match="number of parameter groups"):
        opt.load_state_dict({"state": {}, "param_groups": []})
    with pytest.raises(ValueError, match="doesn't match the size"):
        opt.load_state_dict({"state": {}, "param_groups": [{**opt.state_dict()["param_groups"][0], "params": [0, 1]}]})
    assert type(make_adam([w], lr=0.1)) is Adam
    assert type(make_adam([w], lr=0.1, device="meta")) is torch.optim.Adam


def test_zero_grad_keeps_a_zero_tensor_when_asked():
    w = torch.nn.Parameter(torch.ones(3))
    opt = Adam([w])
    (w * 2).sum().backward()
    opt.zero_grad(set_to_none=False)
    assert w.grad is not None and torch.equal(w.grad, torch.zeros(3))
    opt.zero_grad()
    assert w.grad is None
