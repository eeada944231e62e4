"""``bilinear verify --from fla|hf CONFIG.json --task SPEC``: can a model of this configuration
track this task, as far as one layer's recurrence decides?

The config is mapped to the variant of each head's homogeneous transition
(:mod:`bilinear.constructions.values.external`: ``allow_neg_eigval``, ``num_householder``, the
kind), and that variant's cell of the capability matrix is settled (:func:`~bilinear.constructions.
settle.settle`: a proved construction, an impossibility certificate with its theorem, or open).
Then the scope, in words:

* the cell is about one layer's *linear* recurrence ``h_t = A_t h_{t-1}`` with a linear readout; a
  positive gate ``exp(g)`` does not change it (labels are read up to a positive scale);
* the model's recurrence is affine, ``S_t = A_t S_{t-1} + b_t``; the eigenvalue theorems (7, 8, F1,
  F2) transfer to the lifted recurrence on ``[h; 1]`` (docs/theory.md, the lifted affine recurrence:
  the lift adds only the eigenvalue 1), so an impossibility resting on them holds for the affine
  layer too; the commutation theorem (Theorem 6) does not transfer (lifted diagonal matrices need
  not commute);
* MLPs, further layers and the model's nonlinear head are outside the statement; so is whether
  training finds a construction that exists;
* fla's RWKV-7 is a *subset* of ``dplr:1`` (decays in (0.545, 1), ``a`` in (0, 1), a unit ``kappa``):
  its transitions have real eigenvalues in (-0.455, 1) (docs/theory.md, Theorem F15), so an
  impossibility of ``dplr:1`` holds for it, a construction need not, and the single-symbol period
  certificate (Theorems 7 and A2 for the one matrix of the window ``g g``) is searched besides
  (:func:`rwkv7_line`).

>>> out = verify_config({"model_type": "delta_net", "hidden_size": 8, "num_heads": 2, "vocab_size": 4,
...                      "num_hidden_layers": 1, "allow_neg_eigval": False, "use_short_conv": False}, "fla", "parity")
>>> out["variant"], out["cell"]["status"], out["transfers"]
('householder:1,nonneg', 'impossible', True)
"""

from __future__ import annotations

from .values.external import ExternalConfig, external_config, read_external_config

__all__ = ["verify_config", "config_text", "TRANSFERRING_KINDS", "rwkv7_line", "RWKV7_THEOREM"]

#: Certificate kinds whose theorem is about eigenvalues and transfers to the lifted affine recurrence
#: (docs/theory.md, the lifted affine recurrence); "commutation" (Theorem 6) does not.
TRANSFERRING_KINDS = ("period", "constancy", "symbol-period", "symbol-constancy")


#: The theorem of an RWKV-7 layer's single-symbol certificate.
RWKV7_THEOREM = ("fla's RWKV-7 transitions diag(w) - (a * kappa) kappa^T with w in (0, 1), a in (0, 1) and |kappa| = 1 "
                 "have only real eigenvalues (Theorem F15 of docs/theory.md); along u g^n v (g one symbol) the token "
                 "shift's window is g g from the second g on, one matrix, and the lift to [S; 1] adds the eigenvalue 1 "
                 "(Theorem A2), so the predicted labels of layer 1 with any linear readout are eventually periodic "
                 "with period dividing 2 (Theorem 7 for that one matrix); the automaton's labels along u g^n v are not")


def rwkv7_line(spec, cell) -> tuple[str, dict | None]:
    """The scope line of an RWKV-7 config: what the ``dplr:1`` cell says about fla's subset of it, and
    the single-symbol period certificate (JSON) when the task has one."""
    import dataclasses

    from .impossible.certificates import _as_automaton, _symbol_periodic

    a = _as_automaton(spec)
    cert = _symbol_periodic(a, "dplr:1", "symbol-period")
    if cert is not None:
        cert = dataclasses.replace(cert, theorem=RWKV7_THEOREM)
        return (f"rwkv7: impossible for fla's RWKV-7 layer (a subset of dplr:1 with real eigenvalues in (-0.455, 1), "
                f"Theorem F15): {cert.describe()}; {RWKV7_THEOREM}.", cert.to_dict())
    if cell.status == "impossible":
        return "rwkv7: impossible for dplr:1, so for fla's RWKV-7 layer too (a subset of dplr:1, Theorem F15).", None
    return ("rwkv7: fla's RWKV-7 layer is a subset of dplr:1 (decays in (0.545, 1), a in (0, 1), a unit kappa: real "
            "eigenvalues in (-0.455, 1), Theorem F15); the cell above is for dplr:1 without these bounds and does not "
            "carry over; no single-symbol period certificate exists for this task, so whether an RWKV-7 layer "
            "tracks it is not settled here.", None)


def _scope(c: ExternalConfig, cell, transfers: bool | None) -> list[str]:
    mamba = c.kind in ("mamba", "mamba2")  # the decay is the transition itself; no MLP
    lines = [f"scope: the cell is about one layer's linear recurrence h_t = A_t h_(t-1) in {c.variant} with a linear "
             "readout" + (", times the positive gate exp(g), which does not change it (labels are read up to a "
                          "positive scale)" if c.forget_gate and not mamba else "") + "."]
    if cell.status == "impossible":
        if transfers:
            lines.append("transfer: the certificate's theorem is about eigenvalues, so it holds for the affine layer "
                         "S_t = A_t S_(t-1) + b_t too, lifted to [h; 1] (docs/theory.md, the lifted affine recurrence: "
                         "the lift adds only the eigenvalue 1).")
        else:
            lines.append("transfer: the certificate rests on commutation (Theorem 6), which does not transfer to the "
                         "affine layer (lifted diagonal matrices need not commute): the affine layer may do more.")
    elif cell.status == "proved":
        lines.append("transfer: a construction of this variant tracks the task with a linear readout; the affine term, "
                     "the model's head and training are not part of the proof.")
    if c.kind == "rwkv7":
        lines.append("window: the token shift feeds the transition the current and the previous token, so the "
                     "model's transitions are functions of windows of 2 tokens; along a power g^n it is one matrix "
                     "from the second g on.")
    elif c.window > 1 and cell.status == "impossible":
        inputs = "B, C and x (and Mamba's Delta)" if mamba else "q, k, v"
        lines.append(f"window: this config has a short convolution of width {c.window}: {inputs} at a step read the "
                     f"last {c.window} tokens, so the transition is a function of a window; along a power g^n it is "
                     f"one matrix from step {c.window} on, which is all the single-symbol certificates use.")
    elif c.window > 1:
        lines.append(f"window: this config has a short convolution of width {c.window}, so the model's transitions "
                     "are functions of the last tokens, not of one token as in the cell above.")
    mlp = ("the gated norm", "the gated norms") if mamba else ("the MLP", "the MLPs")
    if c.kind == "rwkv7":
        mlp = ("the group norm, the bonus term, the gate and the channel mix",) * 2
    lines.append(f"outside the statement: {mlp[1]}, the other {c.layers - 1} layer(s) and the model's nonlinear head."
                 if c.layers > 1 else f"outside the statement: {mlp[0]} and the model's nonlinear head.")
    return lines


def verify_config(config, source: str, spec, time_budget: float | None = 10.0) -> dict:
    """The verdict for a config (a dict, a ``config.json`` path or a folder) and a task (family spec,
    automaton file or Automaton): ``{"variant", "config", "cell" (Cell.to_json), "transfers",
    "scope" (lines), "mechanism"}`` (see the module docstring); ``_cell`` holds the Cell itself."""
    from .settle import settle

    c = external_config(config, source) if isinstance(config, dict) else read_external_config(config, source)
    cell = settle(spec, c.variant, time_budget=time_budget, deepen=True)
    kind = cell.certificate.kind if cell.certificate is not None else None
    transfers = None if kind is None else kind in TRANSFERRING_KINDS
    scope = _scope(c, cell, transfers)
    rwkv7 = None
    if c.kind == "rwkv7":
        line, cert = rwkv7_line(spec, cell)
        scope.insert(len(scope) - 2, line)  # after the cell's transfer line, before the window and the outside
        rwkv7 = {"status": "impossible" if cert is not None or cell.status == "impossible" else "open",
                 "certificate": cert}
    return {"variant": c.variant, "config": {"kind": c.kind, "source": c.source, "layers": c.layers,
                                             "heads": c.heads, "householders": c.householders,
                                             "allow_neg_eigval": c.neg_eigval, "gate": c.forget_gate,
                                             "window": c.window, "mechanism": c.mechanism},
            "cell": cell.to_json(), "transfers": transfers, "scope": scope, "rwkv7": rwkv7, "_cell": cell}


def config_text(out: dict) -> str:
    """The text of :func:`verify_config`'s result: the mapping line, the cell, the scope lines."""
    cfg = out["config"]
    head = (f"{cfg['kind']} ({cfg['source']}): {cfg['mechanism']} -> variant {out['variant']} "
            f"(per head, {cfg['heads']} head(s) per layer)")
    return "\n".join([head, out["_cell"].text()] + [f"  {line}" for line in out["scope"]])
