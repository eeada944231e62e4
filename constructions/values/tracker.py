"""Trackers: any model that reads a word and predicts a label after every symbol.

A *tracker* maps a batch of token ids ``words`` (batch, time) to per-position logits
(batch, time, classes) and, when it can, hidden states (batch, time, hidden).  The float check
(:func:`bilinear.constructions.horizon.floatcheck.check`), the accuracy-by-length curve and the automaton
extraction (:func:`bilinear.analysis.extract.extract`) accept any tracker; only the spectra,
commutators and relations need transition matrices (a :class:`~bilinear.constructions.values.weights.Weights`).

:func:`as_tracker` turns what you have into a tracker:

* a ``Weights`` value: the float run (unit hidden states; the logits are the scores);
* one of our bilinear models (``to_weights()`` returns a ``Weights`` value): its ``Weights``, as
  above (a module whose ``to_weights`` returns anything else, or fails, is run as a torch module);
* a :class:`~bilinear.constructions.values.stack.Stack` (or a trained stack, whose ``to_weights()`` is
  one): the float run of its layers; the logits are the last layer's scores and the hidden state
  is every layer's unit hidden state side by side.  It has no single set of transition matrices,
  so ``weights`` is None and the analyses that need them are not run;
* any torch module ``module(words) -> logits`` (our LSTM, RNN, Transformer and Mamba-style
  baselines, or your own): the hidden states are the input of the submodule named ``hidden``
  (default ``"readout"`` when the module has one), captured by a forward hook;
* a plain callable ``f(words) -> logits`` or ``-> (logits, hidden)`` on numpy arrays;
* a loaded fla/transformers checkpoint (:func:`bilinear.learned.load_external`): its own float64
  forward, symbol i as token i and class c read from token c's logit (its ``as_tracker`` takes
  other token maps and a BOS token).

>>> import numpy as np
>>> from bilinear.constructions.handmade.registry import build
>>> t = as_tracker(build("cyclic:5", "rotation2d"))
>>> out = t.run(np.array([[1, 1, 3]]), hidden=True)
>>> out.logits.argmax(-1).tolist(), out.hidden.shape, t.weights is not None
([[1, 2, 0]], (1, 3, 2), True)
>>> parity = as_tracker(lambda w: np.eye(2)[np.cumsum(w, axis=1) % 2], n_symbols=2, n_classes=2)
>>> parity.run(np.array([[1, 0, 1]])).logits.argmax(-1).tolist(), parity.has_hidden
([[1, 1, 0]], False)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Protocol, cast, runtime_checkable

import numpy as np

from bilinear.errors import AnalysisError, BilinearError

__all__ = ["Tracker", "TrackerRun", "WeightsTracker", "StackTracker", "ModuleTracker", "FunctionTracker", "as_tracker",
           "need_automaton"]

#: Token ids per forward pass of a torch module (batch * time), unless the module says less.
CHUNK_TOKENS = 1 << 18


@dataclass(frozen=True)
class TrackerRun:
    """``logits`` (batch, time, classes) and ``hidden`` (batch, time, hidden) or None."""

    logits: np.ndarray
    hidden: np.ndarray | None = None


@runtime_checkable
class Tracker(Protocol):
    """The protocol: ``run(words, hidden=False) -> TrackerRun``; ``n_symbols``/``n_classes``
    (None when unknown), ``has_hidden``, ``weights`` (a Weights value or None) and ``name``."""

    n_symbols: int | None
    n_classes: int | None
    has_hidden: bool
    weights: Any
    name: str

    def run(self, words: np.ndarray, hidden: bool = False) -> TrackerRun: ...


def need_automaton(automaton) -> None:
    """MismatchError unless ``automaton`` is an Automaton (the one message of every room)."""
    from bilinear.automata.automaton import Automaton
    from bilinear.errors import MismatchError

    if not isinstance(automaton, Automaton):
        raise MismatchError(f"expected an Automaton to compare the model with, got {type(automaton).__name__}")


def _words(words, n_symbols: int | None) -> np.ndarray:
    w = np.asarray(words)
    if w.ndim != 2 or not (w.size == 0 or np.issubdtype(w.dtype, np.integer)):
        raise AnalysisError(f"words must be a (batch, time) array of token ids, got shape {w.shape} ({w.dtype})")
    if w.size and (w.min() < 0 or (n_symbols is not None and w.max() >= n_symbols)):
        bad = int(w.min()) if w.min() < 0 else int(w.max())
        raise AnalysisError(f"words use token id {bad}, outside 0..{(n_symbols or 1) - 1}")
    return w.astype(np.int64, copy=False)


def _failed(name: str, words: np.ndarray, exc: Exception) -> AnalysisError:
    """The error for a model's own failure (a function's or a module's) on ``words``, in one line."""
    return AnalysisError(f"tracker {name} failed on words of shape {words.shape}: {type(exc).__name__}: {exc}"[:300])


def _numbers(x, what: str, name: str) -> np.ndarray:
    """``x`` as a float array; AnalysisError naming the tracker when it is not an array of real
    numbers (complex numbers are refused, not cast: a cast drops the imaginary part)."""
    if callable(getattr(x, "detach", None)):  # a torch tensor: one that requires grad, or lives on a GPU
        x = x.detach().cpu()
    try:
        a = np.asarray(x)
        if not np.iscomplexobj(a):
            return a.astype(float, copy=False)
    except (TypeError, ValueError) as exc:  # ragged lists, strings, objects numpy cannot read as numbers
        raise AnalysisError(f"tracker {name} returned {what} that are not an array of numbers "
                            f"({type(exc).__name__}: {exc})"[:300]) from None
    raise AnalysisError(f"tracker {name} returned complex {what} ({a.dtype}): they must be real numbers")


def _checked(run: TrackerRun, words: np.ndarray, name: str, n_classes: int | None) -> TrackerRun:
    """AnalysisError unless the logits (and hidden states) have the shapes the protocol promises."""
    L = _numbers(run.logits, "logits", name)
    if L.ndim != 3 or L.shape[:2] != words.shape:
        raise AnalysisError(f"tracker {name} returned logits of shape {L.shape} for words of shape "
                            f"{words.shape}; expected (batch, time, classes)")
    if n_classes is not None and L.shape[2] != n_classes:
        raise AnalysisError(f"tracker {name} returned {L.shape[2]} classes, expected {n_classes}")
    if not np.isfinite(L).all():
        refuse_nonfinite(L, words, name)
    H = run.hidden
    if H is not None:
        H = _numbers(H, "hidden states", name)
        if H.ndim != 3 or H.shape[:2] != words.shape:
            raise AnalysisError(f"tracker {name} returned hidden states of shape {H.shape}; expected "
                                f"(batch, time, hidden) for words of shape {words.shape}")
    return TrackerRun(L, H)


def refuse_nonfinite(L: np.ndarray, words: np.ndarray, name: str, symbols=None) -> None:
    """AnalysisError naming the shortest prefix (the lowest word among equals) after which a logit
    of ``L`` is NaN or infinite: such a logit has no argmax or margin, and reading it either way
    would let one check pass where another fails (every caller gets this one refusal).  The
    prefix is written in ``symbols`` (names) when given, else as the token ids it was fed as."""
    from bilinear.automata.words import compress

    bad = ~np.isfinite(L).all(axis=2)  # (batch, time)
    t = int(np.argmax(bad.any(axis=0)))
    b = int(np.argmax(bad[:, t]))
    c = int(np.argmax(~np.isfinite(L[b, t])))
    prefix = words[b, : t + 1]
    names = list(symbols) if symbols is not None else [str(i) for i in range(int(prefix.max()) + 1)]
    what = "the word" if symbols is not None else "the token ids"
    raise AnalysisError(f"tracker {name} returned the logit {L[b, t, c]} (class {c}) after {what} "
                        f"{compress(prefix, names)} (position {t + 1} of word {b + 1} of {L.shape[0]}): logits must "
                        "be finite numbers (a NaN or infinite logit has no argmax or margin)")


@dataclass(frozen=True)
class WeightsTracker:
    """A bilinear network's float run (``constructions/values/floatrun.py``) as a tracker."""

    weights: Any
    name: str = "weights"
    has_hidden: bool = True

    @property
    def n_symbols(self) -> int:
        return self.weights.n_symbols

    @property
    def n_classes(self) -> int:
        return self.weights.n_classes

    def run(self, words, hidden: bool = False) -> TrackerRun:
        from bilinear.constructions.values.floatrun import run_float

        r = run_float(self.weights, _words(words, self.n_symbols), scores=True, hidden=hidden)
        return TrackerRun(r.scores, r.hidden)


@dataclass(frozen=True)
class FunctionTracker:
    """A callable ``f(words) -> logits`` or ``-> (logits, hidden)`` on numpy arrays."""

    fn: Callable
    n_symbols: int | None = None
    n_classes: int | None = None
    name: str = "function"
    has_hidden: bool = False
    weights: Any = None

    def run(self, words, hidden: bool = False) -> TrackerRun:
        w = _words(words, self.n_symbols)
        try:
            out = self.fn(w)
        except BilinearError:
            raise
        except Exception as exc:  # the function's own failure, named as a module's is
            raise _failed(self.name, w, exc) from None
        if isinstance(out, tuple) and len(out) != 2:
            raise AnalysisError(f"tracker {self.name} returned a tuple of {len(out)} items; expected the logits "
                                "or (logits, hidden states)")
        logits, H = out if isinstance(out, tuple) else (out, None)
        return _checked(TrackerRun(logits, H if hidden else None), w, self.name, self.n_classes)


def _module_logits(out, name: str) -> np.ndarray:
    """A module's output as float64 logits; AnalysisError for anything but a real tensor (a tuple,
    a transformers output object, complex logits)."""
    import torch

    if not isinstance(out, torch.Tensor):
        hint = (" (it has .logits, as a transformers model's output has: wrap the model in a module whose forward "
                "returns model(ids).logits)") if hasattr(out, "logits") else ""
        raise AnalysisError(f"tracker {name} returned a {type(out).__name__}, not a tensor of logits "
                            f"(batch, time, classes){hint}")
    if out.is_complex():
        raise AnalysisError(f"tracker {name} returned complex logits ({out.dtype}): they must be real numbers")
    return out.double().cpu().numpy()


class ModuleTracker:
    """A torch module ``module(words (batch, time) long) -> logits (batch, time, classes)``.

    ``hidden`` names the submodule whose *input* is the hidden state (e.g. ``"readout"``); a
    forward hook captures it.  The module runs in eval mode under ``torch.no_grad()``, in chunks
    of words (``module.max_batch(time)`` when the module has one).
    """

    weights = None

    def __init__(self, module, hidden: str | None = None, n_symbols=None, n_classes=None, name=None):
        self.module = module
        self.hidden_name = hidden
        self._hook_target = None
        if hidden is not None:
            modules = dict(module.named_modules())
            if hidden not in modules:
                raise AnalysisError(f"module {type(module).__name__} has no submodule {hidden!r} for the "
                                    f"hidden states (submodules: {', '.join(list(modules)[1:12]) or 'none'})")
            self._hook_target = modules[hidden]
        self.n_symbols = n_symbols if n_symbols is not None else getattr(module, "n_symbols", None)
        self.n_classes = n_classes if n_classes is not None else getattr(module, "n_classes", None)
        self.name = name or type(module).__name__
        self.has_hidden = hidden is not None

    def _chunk(self, time: int) -> int:
        size = max(1, CHUNK_TOKENS // max(time, 1))
        if hasattr(self.module, "max_batch"):
            size = min(size, int(self.module.max_batch(time)))
        return size

    def run(self, words, hidden: bool = False) -> TrackerRun:
        import torch

        w = _words(words, self.n_symbols)
        captured: list = []
        handle = None
        if hidden and self._hook_target is not None:
            handle = self._hook_target.register_forward_pre_hook(
                lambda mod, args: captured.append(args[0].detach().double().cpu().numpy()))
        was_training = self.module.training
        self.module.eval()
        try:
            device = next(iter(self.module.parameters()), torch.empty(0)).device
            with torch.no_grad():  # the chunk is sized without gradients (a model's max_batch may depend on it)
                size = self._chunk(w.shape[1])
                parts = []
                for i in range(0, w.shape[0], size):
                    before = len(captured)
                    parts.append(_module_logits(self.module(torch.as_tensor(w[i:i + size], device=device)), self.name))
                    if handle is not None and len(captured) != before + 1:
                        raise AnalysisError(
                            f"tracker {self.name}: submodule {self.hidden_name!r} was called {len(captured) - before} "
                            "times in one forward; the hidden state is the input of one call (name a submodule "
                            "called once per forward with hidden=..., or hidden=None for no hidden states)")
        except BilinearError:
            raise
        except Exception as exc:
            raise _failed(self.name, w, exc) from None
        finally:
            if handle is not None:
                handle.remove()
            self.module.train(was_training)
        logits = np.concatenate(parts, axis=0) if parts else np.zeros(w.shape + (self.n_classes or 1,))
        H = np.concatenate(captured, axis=0) if captured else None
        return _checked(TrackerRun(logits, H), w, self.name, self.n_classes)


@dataclass(frozen=True)
class StackTracker:
    """A stack of layers (docs/theory.md section 8) as a tracker: one float run per layer, layer
    ``l`` fed by layer ``l - 1``'s argmax (:func:`bilinear.constructions.values.floatrun.run_float`).

    >>> from bilinear.automata import from_spec
    >>> from bilinear.constructions.handmade.cascade import cascade
    >>> t = as_tracker(cascade(from_spec("dihedral:3"), "rotation2d"))
    >>> out = t.run(np.array([[0, 1, 1]]), hidden=True)   # r, r s, r s s = r
    >>> out.logits.argmax(-1).tolist(), out.hidden.shape, t.weights is None
    ([[1, 4, 1]], (1, 3, 6), True)
    """

    stack: Any
    name: str = "stack"
    has_hidden: bool = True
    weights: Any = None

    @property
    def n_symbols(self) -> int:
        return self.stack.n_symbols

    @property
    def n_classes(self) -> int:
        return self.stack.n_classes

    @property
    def note(self) -> str:
        return (f"a stack of {self.stack.depth} layers ({self.name}): the spectra, commutators and relations of "
                "one set of transition matrices do not apply to the stack as a whole (each layer has its own "
                "matrices: bilinear.analysis gives each layer's spectra)")

    def run(self, words, hidden: bool = False) -> TrackerRun:
        from bilinear.constructions.values.floatrun import run_float

        w = _words(words, self.n_symbols)
        inputs, parts = w, []
        for i, layer in enumerate(self.stack.layers):
            r = run_float(layer, inputs, scores=True, hidden=hidden)
            if hidden:
                parts.append(r.hidden)
            if i + 1 < self.stack.depth:
                inputs = w * layer.n_classes + r.labels
        H = np.concatenate(parts, axis=2) if hidden else None
        return _checked(TrackerRun(r.scores, H), w, self.name, self.n_classes)


def _exported(module) -> Any:
    """What ``module.to_weights()`` returns (our bilinear models: their Weights or Stack), or None
    when the module has no such method or it fails: a baseline (or the additive ablation) raises
    a BilinearError, and a module of your own may have a ``to_weights`` of another meaning
    (returning a dict, or raising anything).  The caller uses only a Weights value or a Stack and
    runs the module itself otherwise (docs/your-model.md, route 2: any torch module)."""
    method = getattr(module, "to_weights", None)
    if not callable(method):
        return None
    try:
        return cast(Callable[[], Any], method)()  # torch types attributes as Tensor | Module
    except Exception:  # noqa: BLE001 - any failure of a method of the user's: the module is run as it is
        return None


def as_tracker(model, hidden: str | None = "auto", n_symbols: int | None = None, n_classes: int | None = None,
               name: str | None = None):
    """``model`` as a tracker (see the module docstring).

    ``hidden``: for a torch module, the submodule whose input is the hidden state (``"auto"``:
    ``"readout"`` when there is one, else none); for a callable, True when it returns
    ``(logits, hidden)``.  AnalysisError for anything that is not a
    Weights value, a torch module or a callable.
    """
    from bilinear.constructions.values.weights import Weights

    if isinstance(model, (WeightsTracker, FunctionTracker, ModuleTracker)):
        return model
    from bilinear.constructions.values.stack import Stack

    if isinstance(model, StackTracker):
        return model
    if isinstance(model, Weights):
        return WeightsTracker(model, name=name or f"weights {model.variant}")
    if isinstance(model, Stack):
        return StackTracker(model, name=name or f"stack of {model.depth} {model.variant} layers")
    try:
        import torch
    except ImportError:  # pragma: no cover - torch is a dependency
        torch = None  # type: ignore[assignment]  # the module or None, as this branch says
    if torch is not None and isinstance(model, torch.nn.Module):
        exported = _exported(model)
        if isinstance(exported, Stack):
            return StackTracker(exported, name=name or type(model).__name__)
        if isinstance(exported, Weights):
            return WeightsTracker(exported, name=name or type(model).__name__)
        if hidden == "auto":
            hidden = "readout" if "readout" in dict(model.named_modules()) else None
        return ModuleTracker(model, hidden, n_symbols, n_classes, name)
    if isinstance(model, Tracker):
        return model
    if hasattr(model, "as_tracker") and hasattr(model, "blocks"):  # a loaded fla/transformers checkpoint
        return model.as_tracker(n_symbols=n_symbols, n_classes=n_classes)
    if callable(model):
        return FunctionTracker(model, n_symbols, n_classes, name or str(getattr(model, "__name__", "function")),
                               has_hidden=hidden is True)
    raise AnalysisError(f"cannot track with a {type(model).__name__}: expected Weights, a torch module or a callable")
