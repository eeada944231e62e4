"""Adam on CPU without ``torch.optim``: torch's own single-tensor update, step for step.

``torch.optim.Adam`` imports ``torch._dynamo`` when it is built (``Optimizer.add_param_group`` is
wrapped by ``torch._disable_dynamo``) and at every step (``_use_grad_for_differentiable``): about
a second of CPU time per process on the development machines (0.9-1.4 s, measured with
``python -X importtime``), more than a short training run spends on its Adam updates, and nothing
in training compiles.  :class:`Adam` is the update torch applies to CPU tensors with the default
options (``torch.optim.adam._single_tensor_adam``, not capturable, not differentiable, no weight
decay, no amsgrad: torch chooses the single-tensor path for CPU parameters, its ``foreach`` and
``fused`` kernels being for accelerators), the same tensor operations in the same order, so the
same bits; its ``state_dict`` has torch's layout, so a checkpoint written by either loads into
the other.  :func:`make_adam` gives it for CPU parameters and ``torch.optim.Adam`` for every
other device, where torch would choose another kernel.

Kingma and Ba, *Adam: a method for stochastic optimization*, ICLR 2015 (Algorithm 1, with the
bias corrections folded into the step size as torch does).

>>> import torch
>>> w = torch.nn.Parameter(torch.tensor([1.0, -2.0]))
>>> opt = Adam([w], lr=0.1)
>>> (w * w).sum().backward()
>>> opt.step()
>>> [round(float(x), 6) for x in w.detach()]  # each coordinate moves by lr against its gradient's sign
[0.9, -1.9]
"""

from __future__ import annotations

import copy
from collections import defaultdict

import torch

__all__ = ["Adam", "make_adam"]

#: The options of the update (torch's defaults for ``lr``, ``betas`` and ``eps``; the rest are the
#: only values this update implements), in the order of torch's ``param_groups`` entries.
_DEFAULTS = {"lr": 1e-3, "betas": (0.9, 0.999), "eps": 1e-8, "weight_decay": 0, "amsgrad": False,
             "maximize": False, "foreach": None, "capturable": False, "differentiable": False, "fused": None,
             "decoupled_weight_decay": False}


class Adam:
    """Adam over CPU parameters, bit for bit ``torch.optim.Adam(params, lr, betas, eps)`` with its
    other options at their defaults (module docstring); ``param_groups``, ``state``,
    ``zero_grad``, ``step``, ``state_dict`` and ``load_state_dict`` as torch's.

    See Also: :func:`make_adam`, which falls back to ``torch.optim.Adam`` off the CPU.
    """

    def __init__(self, params, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8):
        params = list(params)
        if not params:
            raise ValueError("optimizer got an empty parameter list")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        for i, beta in enumerate(betas):
            if not 0.0 <= beta < 1.0:
                raise ValueError(f"Invalid beta parameter at index {i}: {beta}")
        if any(p.device.type != "cpu" for p in params):
            raise ValueError("Adam here updates CPU parameters only: use make_adam")
        group = {"params": params, **_DEFAULTS, "lr": lr, "betas": (float(betas[0]), float(betas[1])), "eps": eps}
        self.param_groups: list[dict] = [group]
        self.state: defaultdict = defaultdict(dict)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Drop (or zero) every parameter's gradient, as torch's ``Optimizer.zero_grad``."""
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                    continue
                if p.grad.grad_fn is not None:
                    p.grad.detach_()
                else:
                    p.grad.requires_grad_(False)
                p.grad.zero_()

    @torch.no_grad()
    def step(self) -> None:
        """One Adam update of every parameter that has a gradient (torch's single-tensor path)."""
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            lr, eps = group["lr"], group["eps"]
            for param in group["params"]:
                if param.grad is None:
                    continue
                if param.grad.is_sparse:
                    raise RuntimeError("Adam does not support sparse gradients")
                state = self.state[param]
                if not state:
                    state["step"] = torch.tensor(0.0, dtype=_scalar_dtype())
                    state["exp_avg"] = torch.zeros_like(param, memory_format=torch.preserve_format)
                    state["exp_avg_sq"] = torch.zeros_like(param, memory_format=torch.preserve_format)
                grad, exp_avg, exp_avg_sq, step_t = param.grad, state["exp_avg"], state["exp_avg_sq"], state["step"]
                step_t += 1
                if torch.is_complex(param):
                    grad, exp_avg, exp_avg_sq = (torch.view_as_real(x) for x in (grad, exp_avg, exp_avg_sq))
                    param = torch.view_as_real(param)
                exp_avg.lerp_(grad, 1 - beta1)
                exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
                step = step_t.item()
                bias_correction1 = 1 - beta1 ** step
                bias_correction2 = 1 - beta2 ** step
                step_size = lr / bias_correction1
                bias_correction2_sqrt = bias_correction2 ** 0.5
                denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
                param.addcdiv_(exp_avg, denom, value=-step_size)

    def state_dict(self) -> dict:
        """``{"state": {index: buffers}, "param_groups": [options with "params": indices]}``, the
        layout of torch's ``Optimizer.state_dict`` (the buffers themselves, not copies)."""
        index: dict[int, int] = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for p in group["params"]:
                index.setdefault(id(p), len(index))
            packed["params"] = [index[id(p)] for p in group["params"]]
            groups.append(packed)
        state = {index[id(p)]: v for p, v in self.state.items()}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict) -> None:
        """Load a state written by :meth:`state_dict` or by ``torch.optim.Adam``: the options of
        each group, and each parameter's buffers (moments cast to the parameter's dtype, as
        torch does; the step count kept as stored).  ValueError when the groups or their sizes
        differ."""
        saved = copy.deepcopy(state_dict["param_groups"])
        if len(saved) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(self.param_groups, saved)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of optimizer's group")
        by_index = {i: p for g, s in zip(self.param_groups, saved) for i, p in zip(s["params"], g["params"])}
        self.state = defaultdict(dict)
        for key, buffers in state_dict["state"].items():
            if key not in by_index:
                continue
            p = by_index[key]
            self.state[p] = {name: (value if name == "step" or not isinstance(value, torch.Tensor) else
                                    value.to(dtype=p.dtype, device=p.device) if p.is_floating_point() else
                                    value.to(device=p.device))
                             for name, value in buffers.items()}
        self.param_groups = [{**{k: v for k, v in s.items() if k != "params"}, "params": g["params"]}
                             for g, s in zip(self.param_groups, saved)]


def _scalar_dtype() -> torch.dtype:
    """The dtype of the step count (torch's ``_get_scalar_dtype``: float64 under a float64 default)."""
    return torch.float64 if torch.get_default_dtype() == torch.float64 else torch.float32


def make_adam(params, lr: float, device: torch.device | str = "cpu"):
    """:class:`Adam` for parameters on the CPU; ``torch.optim.Adam`` elsewhere (its ``foreach`` or
    ``fused`` kernels on an accelerator are other arithmetic, kept as they were)."""
    if torch.device(device).type == "cpu":
        return Adam(params, lr=lr)
    return torch.optim.Adam(params, lr=lr)
