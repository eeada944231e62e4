"""The no-grad grouped loop (bilinear.learned.grouped_loop) compiled by TorchScript and run by
Python: the same results bit for bit, on every path of the loop (dense and block, states and
logits, the additive term, renormalisation at every step or deferred, the deferred blocks'
fallback, float32 and float64), over several calls (TorchScript's executor profiles the first
calls and optimises the later ones, so a difference could appear only from the third call on).
tests/learned/test_scan_bits.py checks the compiled loop against a plain loop written there."""

from __future__ import annotations

import contextlib
import os
import warnings

import pytest
import torch

from bilinear.learned import grouped_loop
from bilinear.learned.scan import Block, Dense, sequential_scan

HIDDEN, SYMBOLS, BATCH, TIME = 16, 4, 24, 40  # 40 steps: blocks of 16, 16 and 8


def _transitions(kind: str, dtype, scale_first: float = 1.0, zero_second: bool = False, seed: int = 3):
    gen = torch.Generator().manual_seed(seed)
    if kind == "dense":
        param = torch.randn(SYMBOLS, HIDDEN, HIDDEN, generator=gen, dtype=torch.float64) / HIDDEN**0.5
    else:
        param = torch.randn(SYMBOLS, HIDDEN // 4, 4, 4, generator=gen, dtype=torch.float64) / 2
    param[0] *= scale_first
    if zero_second:
        param[1] = 0.0
    param = param.to(dtype)
    return Dense(param) if kind == "dense" else Block(param)


def _words(call: int):
    gen = torch.Generator().manual_seed(100 + call)
    tokens = torch.randint(0, SYMBOLS, (BATCH, TIME), generator=gen)
    tokens[:, 2] = 1  # a step with one symbol only
    return tokens


CASES = [
    # kind, dtype, readout, normalize, additive, scale of symbol 0, symbol 1 zero
    ("dense", torch.float32, True, True, False, 1.0, False),
    ("dense", torch.float32, False, True, False, 1.0, False),
    ("dense", torch.float64, True, True, False, 1.0, False),
    ("dense", torch.float32, True, False, False, 1.0, False),  # no renormalisation at all
    ("dense", torch.float32, True, True, True, 1.0, False),  # additive: renormalised at every step
    ("dense", torch.float32, False, False, True, 1.0, False),
    ("dense", torch.float32, True, True, False, 1e4, False),  # blocks leave the band: the fallback
    ("dense", torch.float32, False, True, False, 1.0, True),  # states that vanish
    ("block", torch.float32, True, True, False, 1.0, False),
    ("block", torch.float64, False, True, False, 1.0, False),
    ("block", torch.float32, True, True, True, 1.0, False),
    ("block", torch.float32, True, True, False, 1e4, False),
]


def _run(case, call: int):
    kind, dtype, readout, normalize, additive, scale, zero = case
    trans = _transitions(kind, dtype, scale, zero)
    gen = torch.Generator().manual_seed(7)
    h0 = torch.randn(HIDDEN, generator=gen, dtype=dtype)
    R = torch.randn(3, HIDDEN, generator=gen, dtype=dtype) if readout else None
    add = torch.randn(SYMBOLS, HIDDEN, generator=gen, dtype=dtype) if additive else None
    with torch.no_grad():
        return sequential_scan(trans, _words(call), h0, normalize=normalize, add=add, readout=R)


@pytest.mark.skipif(os.environ.get(grouped_loop.ENVIRONMENT, "1").strip() == "0",
                    reason="the environment asks for the Python loop")
def test_the_loop_is_compiled_by_torchscript_here():
    assert grouped_loop.backend() == "torchscript"
    assert grouped_loop.loop() is not grouped_loop.grouped_no_grad
    assert isinstance(grouped_loop.loop(), torch.jit.ScriptFunction)


@pytest.mark.parametrize("case", CASES, ids=[
    "-".join(str(x) for x in (c[0], str(c[1])[6:], "logits" if c[2] else "states", "norm" if c[3] else "raw",
                              "add" if c[4] else "linear", c[5], "zero" if c[6] else "")) for c in CASES])
def test_compiled_and_python_loops_give_the_same_bits(case):
    for call in range(4):  # TorchScript profiles calls 1-2 and runs an optimised graph after
        compiled = _run(case, call)
        with grouped_loop.by_python():
            plain = _run(case, call)
        assert compiled.dtype == plain.dtype == case[1]
        assert torch.equal(compiled, plain), f"call {call}: largest difference {float((compiled - plain).abs().max())}"
    assert torch.isfinite(compiled).all() and compiled.abs().sum() > 0  # not a degenerate case


def test_the_additive_loop_matches_a_float64_loop():
    """With the additive term the no-grad loop renormalises at every step (no deferral): its
    states and logits against a float64 loop ``h <- (A h + c) / |A h + c|`` written here."""
    trans = _transitions("dense", torch.float32)
    gen = torch.Generator().manual_seed(11)
    h0, R = torch.randn(HIDDEN, generator=gen), torch.randn(3, HIDDEN, generator=gen)
    add = torch.randn(SYMBOLS, HIDDEN, generator=gen)
    tokens = _words(0)
    with torch.no_grad():
        states = sequential_scan(trans, tokens, h0, normalize=True, add=add)
        logits = sequential_scan(trans, tokens, h0, normalize=True, add=add, readout=R)
    h, exact_states = h0.double().expand(BATCH, HIDDEN), []
    for t in range(TIME):
        h = torch.einsum("bij,bj->bi", trans.A.double()[tokens[:, t]], h) + add.double()[tokens[:, t]]
        h = h / torch.linalg.vector_norm(h, dim=-1, keepdim=True)
        exact_states.append(h)
    exact = torch.stack(exact_states, 1)
    exact_logits = exact @ R.double().T
    assert float((states.double() - exact).abs().max()) < 1e-5
    assert float((logits.double() - exact_logits).abs().max()) < 1e-5 * float(exact_logits.abs().max())
    # the additive term matters here: without it the states differ
    with torch.no_grad():
        linear = sequential_scan(trans, tokens, h0, normalize=True)
    assert float((linear - states).abs().max()) > 0.1


def test_the_environment_variable_runs_the_loop_by_python(monkeypatch):
    monkeypatch.setattr(grouped_loop, "_COMPILED", [])
    monkeypatch.setenv(grouped_loop.ENVIRONMENT, "0")
    assert grouped_loop.backend() == f"python ({grouped_loop.ENVIRONMENT}=0)"
    assert grouped_loop.loop() is grouped_loop.grouped_no_grad


def test_a_refusal_by_torchscript_falls_back_to_the_same_loop_by_python(monkeypatch):
    expected = _run(CASES[0], 0)

    def refuse(fn):
        raise OSError("could not get source code")

    monkeypatch.setattr(grouped_loop, "_COMPILED", [])
    monkeypatch.delenv(grouped_loop.ENVIRONMENT, raising=False)
    monkeypatch.setattr(torch.jit, "script", refuse)
    assert grouped_loop.backend() == "python (TorchScript refused it: OSError)"
    assert grouped_loop.loop() is grouped_loop.grouped_no_grad
    assert torch.equal(_run(CASES[0], 0), expected)


def test_by_python_nests_and_ends():
    compiled = grouped_loop.loop()
    with grouped_loop.by_python():
        with grouped_loop.by_python():
            assert grouped_loop.loop() is grouped_loop.grouped_no_grad
        assert grouped_loop.backend() == "python (by_python)"
    assert grouped_loop.loop() is compiled


@pytest.mark.parametrize("length", [1, 16, 17, 33, 47])
@pytest.mark.parametrize("readout", [True, False])
def test_every_block_boundary_against_a_float64_loop(length, readout):
    """Lengths where the last block has one step (17, 33), none past a full block (16), or one
    step in all: each block starts from the state the one before carried."""
    gen = torch.Generator().manual_seed(length)
    Q, _ = torch.linalg.qr(torch.randn(SYMBOLS, HIDDEN, HIDDEN, generator=gen, dtype=torch.float64))
    A = Q * torch.linspace(0.5, 2.0, SYMBOLS, dtype=torch.float64).view(-1, 1, 1)
    tokens = torch.randint(0, SYMBOLS, (BATCH, length), generator=gen)
    h0, R = torch.randn(HIDDEN, generator=gen, dtype=torch.float64), torch.randn(3, HIDDEN, generator=gen, dtype=torch.float64)
    h, states = h0.expand(BATCH, HIDDEN), []
    for t in range(length):
        h = torch.einsum("bij,bj->bi", A[tokens[:, t]], h)
        states.append(h := h / torch.linalg.vector_norm(h, dim=-1, keepdim=True))
    exact = torch.stack(states, 1)
    if readout:
        exact = exact @ R.T
    with torch.no_grad():
        out = sequential_scan(Dense(A.float()), tokens, h0.float(), normalize=True, readout=R.float() if readout else None)
    assert out.shape == exact.shape
    assert float((out.double() - exact).abs().max()) < 1e-5 * max(1.0, float(exact.abs().max()))


def test_complex_rows_are_renormalised_as_their_real_pairs():
    """Complex dense transitions (no variant makes them; a user's ``Dense`` may): each state is
    divided by the Euclidean norm of its real and imaginary parts."""
    gen = torch.Generator().manual_seed(2)
    A = torch.randn(SYMBOLS, HIDDEN, HIDDEN, generator=gen, dtype=torch.complex128) / HIDDEN**0.5
    h0 = torch.randn(HIDDEN, generator=gen, dtype=torch.complex128)
    tokens = _words(1)
    h, states = h0.expand(BATCH, HIDDEN), []
    for t in range(TIME):
        h = torch.einsum("bij,bj->bi", A[tokens[:, t]], h)
        states.append(h := h / torch.sqrt((h.real ** 2 + h.imag ** 2).sum(-1, keepdim=True)))
    exact = torch.stack(states, 1)
    for by_python in (False, True):
        with torch.no_grad(), grouped_loop.by_python() if by_python else contextlib.nullcontext():
            out = sequential_scan(Dense(A), tokens, h0, normalize=True)
        assert out.dtype == torch.complex128
        assert float((out - exact).abs().max()) < 1e-10


def test_compiling_shows_no_deprecation_warning(monkeypatch):
    """``torch.jit.script`` warns that it is deprecated (torch 2.10 and later); the compile
    silences it, so that a user's evaluation prints nothing."""
    monkeypatch.setattr(grouped_loop, "_COMPILED", [])
    monkeypatch.delenv(grouped_loop.ENVIRONMENT, raising=False)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        grouped_loop.loop()
    assert [str(w.message) for w in seen] == []


def test_the_loops_clamp_is_the_scans_tiny():
    """The loop writes the scan's tiny as a literal (TorchScript compiles no float globals): the
    two must stay equal, so that every path clamps a vanished state's norm alike."""
    import inspect

    from bilinear.learned import autograd_scans

    assert autograd_scans._TINY == 1e-30 and "clamp_min_(1e-30)" in inspect.getsource(grouped_loop._unit_rows)


@pytest.mark.skipif(os.environ.get(grouped_loop.ENVIRONMENT, "1").strip() == "0",
                    reason="the environment asks for the Python loop")
def test_the_benchmark_times_both_runs_of_the_loop():
    """``bench_train.py --eval-loop`` at a tiny size: the Python run really runs by Python and
    the other by TorchScript (the comparison is not one loop against itself); the logits agree."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_train.py"
    spec = importlib.util.spec_from_file_location("bench_train_for_loop_test", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert grouped_loop.backend() == "torchscript"  # compiled before the spy below replaces the function
    seen = []
    original = grouped_loop.grouped_no_grad

    def spy(*args):
        seen.append("python")
        return original(*args)

    import unittest.mock

    with unittest.mock.patch.object(grouped_loop, "grouped_no_grad", spy):
        r = bench.bench_eval_loop(8, 3, 20, reps=1, rounds=1)
    assert r["equal"] is True and r["python"] > 0 and r["torchscript"] > 0 and r["sgemm"] > 0
    # the Python run: the equality check, best_time's warm-up and one timed repetition
    assert len(seen) == 3
