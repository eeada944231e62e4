"""A loaded model as a tracker (``constructions/values/tracker.py``'s protocol): the task's symbols
become token ids (``tokens``), the task's classes are read from the logits of the label tokens
(``labels``: class c -> token id), optionally after a BOS token; the hidden state is every layer's
recurrent state S_t, flattened and side by side.

>>> from bilinear.learned.external.model import _tiny_for_doctest
>>> t = _tiny_for_doctest().as_tracker(tokens="0=1,1=2", labels="0=0,1=1")
>>> out = t.run(np.array([[0, 1, 1]]), hidden=True)
>>> out.logits.shape, out.hidden.shape, t.n_symbols, t.n_classes
((1, 3, 2), (1, 3, 8), 2, 2)
"""

from __future__ import annotations


import numpy as np

from bilinear.constructions.values.tracker import TrackerRun, refuse_nonfinite
from bilinear.errors import AnalysisError
from bilinear.jsonfile import read_json_file

__all__ = ["ExternalTracker", "parse_token_map", "MAX_TOKENIZER_BYTES"]

#: Largest tokenizer.json read for a token map (bytes; docs/limits.md).
MAX_TOKENIZER_BYTES = 64 << 20


def _tokenizer_vocab(path: str) -> dict:
    data = read_json_file(path, AnalysisError, "tokenizer file", MAX_TOKENIZER_BYTES)
    try:
        vocab = dict(data["model"]["vocab"])
        for tok in data.get("added_tokens") or []:
            vocab[tok["content"]] = tok["id"]
    except (ValueError, KeyError, TypeError) as exc:
        raise AnalysisError(f"tokenizer file {path!r} has no readable model.vocab: {exc}"[:300]) from None
    return vocab


def parse_token_map(text, names, vocab: int, what: str = "--tokens") -> tuple[int, ...]:
    """Token ids, one per name in ``names`` (the automaton's symbols or classes), from ``text``:
    ``"a=5,b=7"`` (keys are names or indices), a ``tokenizer.json`` (each name looked up as a
    token), a dict, or None (name i -> token i).  AnalysisError naming the first name not covered,
    an id outside the vocabulary, or two names given one id."""
    names = [str(n) for n in names]
    if text is None:
        pairs = {n: i for i, n in enumerate(names)}
    elif isinstance(text, dict):
        pairs = {str(k): v for k, v in text.items()}
    elif isinstance(text, str) and text.strip().endswith(".json"):
        pairs = _tokenizer_vocab(text.strip())
    elif isinstance(text, str):
        pairs = {}
        for item in filter(None, (s.strip() for s in text.split(","))):
            key, sep, val = item.partition("=")
            if not sep or not val.strip().lstrip("-").isdigit():
                raise AnalysisError(f"{what}: {item!r} is not NAME=TOKEN_ID")
            pairs[key.strip()] = int(val)
    else:
        raise AnalysisError(f"{what} must be NAME=ID,... or a tokenizer.json, got {type(text).__name__}")
    if text is not None and not (isinstance(text, str) and text.strip().endswith(".json")):  # a map given by hand
        known = set(names) | {str(i) for i in range(len(names))}
        stray = next((k for k in pairs if k not in known), None)
        if stray is not None:  # a typo would otherwise be ignored, its symbol then read from another key
            raise AnalysisError(f"{what}: {stray!r} is no name or index of {', '.join(names)}")
    out: list[int] = []
    for i, n in enumerate(names):
        tid = pairs.get(n, pairs.get(str(i)))
        if tid is None:
            raise AnalysisError(f"{what} does not cover {n!r} (needs every one of {', '.join(names)})")
        if isinstance(tid, bool) or not isinstance(tid, int) or not 0 <= tid < vocab:
            raise AnalysisError(f"{what}: token id {tid!r} for {n!r} is outside the vocabulary 0..{vocab - 1}")
        if tid in out:  # two symbols the model cannot tell apart, or two classes read from one logit
            raise AnalysisError(f"{what}: {names[out.index(tid)]!r} and {n!r} are both token id {tid}; "
                                f"each needs its own")
        out.append(tid)
    return tuple(out)


class ExternalTracker:
    """The tracker of an :class:`~bilinear.learned.external.model.ExternalModel` (module docstring)."""

    has_hidden = True
    weights = None
    #: words per forward pass of the accuracy curve (the forward loops over time in Python)
    chunk_words = 256

    def __init__(self, model, tokens: tuple[int, ...], labels: tuple[int, ...], bos: int | None = None,
                 symbol_names=None):
        self.model = model
        self.symbol_names = tuple(str(s) for s in (symbol_names or range(len(tokens))))
        self.tokens = np.asarray(tokens, dtype=np.int64)
        self.labels = np.asarray(labels, dtype=np.int64)
        self.bos = bos
        self.n_symbols = len(tokens)
        self.n_classes = len(labels)
        self.name = f"{model.config.kind} ({model.config.layers} layer{'s' if model.config.layers > 1 else ''})"

    @classmethod
    def make(cls, model, tokens=None, labels=None, bos: int | None = None, symbols=None, classes=None):
        """From maps in any form :func:`parse_token_map` reads; ``symbols``/``classes`` name the
        task's (default: as many as the maps give, or 2)."""
        V = model.config.vocab
        if symbols is None:
            symbols = _names(tokens)
        if classes is None:
            classes = _names(labels)
        if bos is not None and not 0 <= bos < V:
            raise AnalysisError(f"--bos token id {bos} is outside the vocabulary 0..{V - 1}")
        return cls(model, parse_token_map(tokens, symbols, V), parse_token_map(labels, classes, V, "--labels"), bos,
                   symbol_names=symbols)

    @property
    def note(self) -> str:
        return (f"{self.name}: per-head transitions are read per layer by analyze --from (its Heads section); the "
                "whole model (MLPs, norms, the input-dependent readout) has no single set of transition matrices")

    def token_ids(self, words: np.ndarray) -> np.ndarray:
        """The words (batch, time) of symbol indices as token ids, with the BOS column first when set."""
        w = self.tokens[np.asarray(words, dtype=np.int64)]
        if self.bos is not None:
            w = np.concatenate([np.full((w.shape[0], 1), self.bos, dtype=np.int64), w], axis=1)
        return w

    def run(self, words, hidden: bool = False) -> TrackerRun:
        w = np.asarray(words)
        if w.ndim != 2 or (w.size and (w.min() < 0 or w.max() >= self.n_symbols)):
            raise AnalysisError(f"words must be (batch, time) symbol indices in 0..{self.n_symbols - 1}")
        if w.shape[1] == 0:
            return TrackerRun(np.zeros(w.shape + (self.n_classes,)), np.zeros(w.shape + (1,)) if hidden else None)
        ids = self.token_ids(w)
        skip = 0 if self.bos is None else 1
        if not hidden:
            return self._finite(TrackerRun(self.model.logits(ids)[:, skip:, :][..., self.labels], None), w)
        logits, states = self.model.logits_and_states(ids)
        H = np.concatenate([S.reshape(*S.shape[:2], -1).numpy() for S in states], axis=2)[:, skip:]
        return self._finite(TrackerRun(logits[:, skip:, :][..., self.labels], H), w)

    def _finite(self, out: TrackerRun, words: np.ndarray) -> TrackerRun:
        """``out``, or the tracker's refusal of a NaN or infinite label logit (finite weights can
        still give one: a norm with ``norm_eps = 0`` on a zero state), naming the word."""
        L = np.asarray(out.logits, dtype=float)
        if not np.isfinite(L).all():
            refuse_nonfinite(L, words, self.name, self.symbol_names)
        return out


def _names(m) -> list[str]:
    if isinstance(m, str) and not m.strip().endswith(".json"):
        return [s.partition("=")[0].strip() for s in m.split(",") if s.strip()]
    if isinstance(m, dict):
        return [str(k) for k in m]
    return ["0", "1"]
