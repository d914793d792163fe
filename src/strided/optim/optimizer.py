"""The optimizer base: parameter groups, per-parameter state, ``zero_grad`` and state dicts.

:class:`Optimizer` mirrors ``torch.optim.Optimizer`` (PyTorch 2.13): ``param_groups`` is a list
of dicts (``"params"`` plus one value per hyper-parameter, the constructor's defaults filled in),
``state`` maps each parameter tensor to its dict of buffers, ``state_dict()`` packs both with the
parameters replaced by their int positions (``{"state": {0: {...}}, "param_groups": [{...,
"params": [0, 1]}]}``), and ``load_state_dict`` zips those positions back onto this optimizer's
parameters without further checks, as PyTorch does. Subclasses implement ``step``; every update
runs under :func:`strided.no_grad` and writes the parameters in place (their storage, strides
and version counters are the ones the caller holds).

Thread behaviour: an optimizer is plain per-object state, like PyTorch's; two threads stepping
one optimizer at once race as they would in PyTorch. Nothing here is global.

>>> import strided
>>> from strided import optim
>>> w = strided.tensor([1.0, 2.0], requires_grad=True)
>>> opt = optim.SGD([w], lr=0.5)
>>> (w * w).sum().backward()
>>> opt.step()
>>> w.tolist()
[0.0, 0.0]
>>> opt.zero_grad(); w.grad is None
True
"""

from __future__ import annotations

import copy
import warnings
from collections import defaultdict
from collections.abc import Callable, Iterable
from itertools import chain
from typing import Any

from ..autograd import enable_grad, no_grad
from ..errors import StridedTypeError, StridedValueError, join_lines
from ..tensor import Tensor

__all__ = ["Optimizer", "required"]

Params = Iterable[Any]  # (tensors, (name, tensor) pairs, or param-group dicts)


class _RequiredParameter:
    """The default of a hyper-parameter every group must give (PyTorch's ``optim.optimizer.required``)."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()

# The keyword arguments PyTorch's constructors take for its other implementations; strided runs
# the single-tensor one (``foreach=False``) and keeps the keys so that state dicts have PyTorch's
# structure, but refuses a request for another implementation instead of silently ignoring it.
_OTHER_IMPLEMENTATIONS = ("foreach", "fused", "capturable", "differentiable")


def check_single_tensor(name: str, **flags: Any) -> None:
    """Refuse ``foreach=True`` / ``fused=True`` / ``capturable=True`` / ``differentiable=True``:
    strided implements PyTorch's single-tensor update only (its numbers are what the tests prove)."""
    for key, value in flags.items():
        if value:
            raise StridedValueError(join_lines(
                f"{name}: {key}={value!r} is not supported by strided",
                f"strided implements PyTorch's single-tensor update (foreach=False) only, on the CPU; "
                f"its results equal torch.optim.{name}(..., foreach=False) step for step",
                f"fix: leave {key} at its default"))


def typename(obj: Any) -> str:
    """``torch.typename``'s spelling for the error texts: ``strided.Tensor`` or the qualified class name."""
    if isinstance(obj, Tensor):
        return "strided.Tensor"
    module = type(obj).__module__
    return type(obj).__qualname__ if module in (None, "builtins") else f"{module}.{type(obj).__qualname__}"


class Optimizer:
    """Base class of the optimizers: holds ``defaults``, ``param_groups`` and ``state``.

    ``params`` is an iterable of leaf tensors, of ``(name, tensor)`` pairs, or of dicts (param
    groups, each with a ``"params"`` entry and its own hyper-parameters overriding ``defaults``).

    >>> import strided
    >>> from strided import optim
    >>> a, b = strided.zeros(2, requires_grad=True), strided.zeros(3, requires_grad=True)
    >>> opt = optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.1}], lr=1.0)
    >>> [g["lr"] for g in opt.param_groups]
    [1.0, 0.1]
    >>> opt.state_dict()["param_groups"][1]["params"]
    [1]
    """

    def __init__(self, params: Any, defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        if isinstance(params, Tensor):
            raise StridedTypeError(
                "params argument given to the optimizer should be an iterable of Tensors or dicts, "
                "but got " + typename(params))
        self.state: defaultdict[Tensor, Any] = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise StridedValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)

    def __getstate__(self) -> dict[str, Any]:
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    # The values a group saved by an older PyTorch may lack, filled in by ``__setstate__`` (and so
    # by ``load_state_dict``), as each PyTorch optimizer's own ``__setstate__`` fills them.
    _GROUP_DEFAULTS: dict[str, Any] = {}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.defaults.setdefault("differentiable", False)
        for group in self.param_groups:
            for key, value in self._GROUP_DEFAULTS.items():
                group.setdefault(key, value)

    def __repr__(self) -> str:
        text = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"

    # ------------------------------------------------------------------ groups

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Append a group (``{"params": [...], <hyper-parameter>: value, ...}``); the values it does
        not give are the constructor's defaults. PyTorch's checks and texts: only leaf tensors, no
        parameter in two groups, every required hyper-parameter given."""
        if not isinstance(param_group, dict):
            raise StridedTypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise StridedTypeError(
                "optimizer parameters need to be organized in ordered collections, but the ordering of "
                "tensors in sets will change between runs. Please use a list instead.")
        else:
            param_group["params"] = list(params)
        tensors, names = [], []
        for param in param_group["params"]:
            if isinstance(param, tuple):
                names.append(param[0])
                tensors.append(param[1])
            else:
                tensors.append(param)
        param_group["params"] = tensors
        if names:
            if len(names) != len(tensors):
                raise StridedValueError(
                    "all optimizer params should be with/without names. Some param names are missing")
            param_group["param_names"] = names
        for param in tensors:
            if not isinstance(param, Tensor):
                raise StridedTypeError(
                    "optimizer can only optimize Tensors, but one of the params is " + typename(param))
            if not (param.is_leaf or param.retains_grad):
                raise StridedValueError(join_lines(
                    "can't optimize a non-leaf Tensor",
                    f"a tensor of shape {tuple(param.shape)} was computed by {type(param.grad_fn).__name__}; "
                    "an optimizer writes its parameters in place, so they must be leaves",
                    "fix: pass the leaf it was computed from, or x.detach().requires_grad_()"))
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise StridedValueError(
                    f"parameter group didn't specify a value of required optimization parameter {name}")
            param_group.setdefault(name, default)
        if len(tensors) != len({id(p) for p in tensors}):
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; in future, this will cause "
                "an error; see github.com/pytorch/pytorch/issues/40967 for more information", stacklevel=3)
        seen: set[int] = set()
        for group in self.param_groups:
            seen.update(id(p) for p in group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise StridedValueError(
                    "all optimizer param groups should be with/without names. "
                    f"cannot add param group {which} to the optimizer")
        if not seen.isdisjoint(id(p) for p in tensors):
            raise StridedValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    # ------------------------------------------------------------------ gradients and steps

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset every parameter's ``.grad``: to ``None`` (the default), or zero it in place
        (detached from any graph first), as PyTorch does."""
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    if p.grad.grad_fn is not None:
                        p.grad.detach_()
                    else:
                        p.grad.requires_grad_(False)
                    p.grad.zero_()

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One update of every parameter that has a gradient; returns ``closure()``'s loss (run with
        gradients enabled first) or None."""
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        with no_grad():
            for group in self.param_groups:
                self._update_group(group)
        return loss

    def _update_group(self, group: dict[str, Any]) -> None:
        """The update of one group, in place (the subclass's formulas)."""
        raise NotImplementedError

    def _params_with_grad(self, group: dict[str, Any]) -> list[Tensor]:
        return [p for p in group["params"] if p.grad is not None]

    # ------------------------------------------------------------------ state dicts

    def state_dict(self) -> dict[str, Any]:
        """``{"state": {position: {key: tensor or number}}, "param_groups": [{..., "params":
        [position, ...]}]}``: PyTorch's structure, the parameters named by their int positions
        over all groups. The state's tensors are this optimizer's own (not copies), as in PyTorch."""
        mapping: dict[int, int] = {}
        start = 0

        def pack(group: dict[str, Any]) -> dict[str, Any]:
            nonlocal start
            packed = {k: v for k, v in group.items() if k != "params"}
            mapping.update({id(p): i for i, p in enumerate(group["params"], start) if id(p) not in mapping})
            packed["params"] = [mapping[id(p)] for p in group["params"]]
            start += len(packed["params"])
            return packed

        param_groups = [pack(g) for g in self.param_groups]
        state = {(mapping[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        return {"state": state, "param_groups": param_groups}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Take the hyper-parameters and state of ``state_dict`` (as :meth:`state_dict` gives):
        the saved positions are zipped onto this optimizer's parameters in order; state tensors
        are cast to a floating parameter's dtype (``step`` keeps its own), PyTorch's rules."""
        groups = self.param_groups
        saved_groups = copy.deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise StridedValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise StridedValueError(
                "loaded state dict contains a parameter group that doesn't match the size of optimizer's group")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))

        def cast(param: Tensor, value: Any, key: Any = None) -> Any:
            if isinstance(value, Tensor):
                if key == "step" or not param.is_floating_point():
                    return value
                return value.to(param.dtype)
            if isinstance(value, dict):
                return {k: cast(param, v, key=k) for k, v in value.items()}
            if isinstance(value, (list, tuple)):
                return type(value)(cast(param, v) for v in value)
            return value

        state: defaultdict[Any, Any] = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                state[id_map[k]] = cast(id_map[k], v)
            else:
                state[k] = v

        def update_group(group: dict[str, Any], new_group: dict[str, Any]) -> dict[str, Any]:
            new_group["params"] = group["params"]
            if "param_names" in group and "param_names" not in new_group:
                new_group["param_names"] = group["param_names"]
            return new_group

        param_groups = [update_group(g, ng) for g, ng in zip(groups, saved_groups)]
        self.__setstate__({"state": state, "param_groups": param_groups})


def is_number(value: Any) -> bool:
    """A real Python/NumPy number (not a bool-typed flag, not a tensor): what a hyper-parameter may be."""
    import numbers

    return isinstance(value, numbers.Real) and not isinstance(value, Tensor)


def check_number(name: str, **values: Any) -> None:
    """Hyper-parameters must be real numbers; a tensor learning rate (PyTorch's capturable path)
    is not supported, and a string would make the range checks fail with a confusing TypeError."""
    for key, value in values.items():
        if not is_number(value):
            raise StridedTypeError(join_lines(
                f"{name}: {key} must be a real number, got {typename(value)}",
                "strided's optimizers take Python numbers for their hyper-parameters "
                "(PyTorch's tensor learning rates serve its capturable path, which strided does not have)",
                f"fix: pass float({key})" if isinstance(value, Tensor) else ""))

