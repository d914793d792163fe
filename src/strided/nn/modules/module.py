"""``nn.Module``: the base class of layers, as PyTorch 2.13's ``torch.nn.Module``.

A module holds its parameters (:class:`~strided.nn.Parameter`), its buffers (tensors saved in
the state dict unless registered ``persistent=False``) and its child modules in three ordered
dicts, filled by attribute assignment (``self.weight = nn.Parameter(...)``,
``self.fc = nn.Linear(...)``) or by ``register_parameter`` / ``register_buffer`` /
``add_module``. Everything else follows: the ``named_*`` walks, ``state_dict`` /
``load_state_dict`` (PyTorch's strict checks and error texts), ``train`` / ``eval``,
``zero_grad``, ``to(dtype)``, ``apply``, forward hooks and PyTorch's ``repr`` layout.

Threads: a module is an ordinary Python object with no shared state besides its own fields (and
the process-wide hook-handle counter, an ``itertools.count``); mutate one module from one thread
at a time, as in PyTorch.

>>> import strided.nn as nn
>>> class Net(nn.Module):
...     def __init__(self):
...         super().__init__()
...         self.fc = nn.Linear(3, 2)
...         self.register_buffer("steps", strided.zeros(()))
...     def forward(self, x):
...         return self.fc(x).relu()
>>> net = Net()
>>> list(net.state_dict())
['steps', 'fc.weight', 'fc.bias']
>>> net(strided.ones(4, 3)).shape
(4, 2)
"""

from __future__ import annotations

import itertools
from collections import OrderedDict, namedtuple
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from ...device import parse_device
from ...dtypes import DType, to_dtype
from ...errors import (
    StridedAttributeError,
    StridedKeyError,
    StridedRuntimeError,
    StridedTypeError,
    StridedValueError,
)
from ...tensor import Tensor
from .._grad import no_grad
from .parameter import Parameter, rebind, typename

__all__ = ["Module", "RemovableHandle"]

_HOOK_IDS = itertools.count()


class RemovableHandle:
    """What ``register_forward_hook`` / ``register_forward_pre_hook`` return: ``remove()`` (or
    leaving a ``with`` block) unregisters the hook."""

    def __init__(self, *dicts: dict) -> None:
        self.id = next(_HOOK_IDS)
        self._dicts = dicts

    def remove(self) -> None:
        for d in self._dicts:
            if isinstance(d, set):
                d.discard(self.id)
            else:
                d.pop(self.id, None)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.remove()


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """``load_state_dict``'s result (PyTorch's ``_IncompatibleKeys``)."""

    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _addindent(s: str, spaces: int) -> str:
    lines = s.split("\n")
    if len(lines) == 1:
        return s
    return "\n".join([lines[0], *[" " * spaces + line for line in lines[1:]]])


def _size(shape: tuple[int, ...]) -> str:
    # Note: the state-dict texts keep PyTorch's spelling of a shape (its torch.Size), so that
    # they read, and search, as PyTorch's; strided's shapes are tuples.
    return f"torch.Size({list(shape)})"


def _check_name(kind: str, name: Any, module: Module, own: dict) -> None:
    if not isinstance(name, str):
        raise StridedTypeError(f"{kind} name should be a string. Got {typename(name)}")
    if "." in name:
        raise StridedKeyError(f"{kind} name can't contain \".\"" if kind != "module"
                              else f"module name can't contain \".\", got: {name}")
    if name == "":
        raise StridedKeyError(f"{kind} name can't be empty string \"\"")
    if hasattr(module, name) and name not in own:
        raise StridedKeyError(f"attribute '{name}' already exists")


class Module:
    """The base class of every layer; subclasses set their parts in ``__init__`` (after
    ``super().__init__()``) and compute in ``forward``; calling the module runs the hooks and
    ``forward``.

    >>> m = nn.Module()
    >>> m.w = nn.Parameter(strided.ones(2))
    >>> [name for name, _ in m.named_parameters()], m.training
    (['w'], True)
    """

    training: bool
    _parameters: dict[str, Tensor | None]
    _buffers: dict[str, Tensor | None]
    _modules: dict[str, Module | None]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if kwargs:
            raise StridedTypeError(f"{type(self).__name__}.__init__() got an unexpected keyword argument "
                                   f"'{next(iter(kwargs))}'")
        if args:
            raise StridedTypeError(f"{type(self).__name__}.__init__() takes 1 positional argument but "
                                   f"{len(args) + 1} were given")
        put = object.__setattr__
        put(self, "training", True)
        put(self, "_parameters", {})
        put(self, "_buffers", {})
        put(self, "_non_persistent_buffers_set", set())
        put(self, "_forward_pre_hooks", OrderedDict())
        put(self, "_forward_pre_hooks_with_kwargs", set())
        put(self, "_forward_hooks", OrderedDict())
        put(self, "_forward_hooks_with_kwargs", set())
        put(self, "_modules", {})

    forward: Callable[..., Any]

    def _forward_unimplemented(self, *input: Any) -> Any:
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    forward = _forward_unimplemented

    # ------------------------------------------------------------ registering parts

    def register_parameter(self, name: str, param: Tensor | None) -> None:
        """Add ``param`` (a :class:`Parameter`, or None) under ``name``."""
        if "_parameters" not in self.__dict__:
            raise StridedAttributeError("cannot assign parameter before Module.__init__() call")
        _check_name("parameter", name, self, self._parameters)
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise StridedTypeError(f"cannot assign '{typename(param)}' object to parameter '{name}' "
                                   "(torch.nn.Parameter or None required)")
        if param.grad_fn is not None:
            raise StridedValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be created explicitly. "
                f"To express '{name}' as a function of another Tensor, compute the value in the forward() method.")
        self._parameters[name] = param

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Add the tensor ``tensor`` (or None) as a buffer; ``persistent=False`` keeps it out of
        the state dict."""
        if "_buffers" not in self.__dict__:
            raise StridedAttributeError("cannot assign buffer before Module.__init__() call")
        _check_name("buffer", name, self, self._buffers)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise StridedTypeError(f"cannot assign '{typename(tensor)}' object to buffer '{name}' "
                                   "(torch Tensor or None required)")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name: str, module: Module | None) -> None:
        """Add the child ``module`` (or None) under ``name``."""
        if not isinstance(module, Module) and module is not None:
            raise StridedTypeError(f"{typename(module)} is not a Module subclass")
        _check_name("module", name, self, self._modules)
        self._modules[name] = module

    register_module = add_module

    def __setattr__(self, name: str, value: Any) -> None:
        d = self.__dict__
        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise StridedAttributeError("cannot assign parameters before Module.__init__() call")
            self._forget(name, keep="_parameters")
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise StridedTypeError(f"cannot assign '{typename(value)}' as parameter '{name}' "
                                       "(torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
        elif isinstance(value, Module):
            if d.get("_modules") is None:
                raise StridedAttributeError("cannot assign module before Module.__init__() call")
            self._forget(name, keep="_modules")
            self._modules[name] = value
        elif d.get("_modules") is not None and name in self._modules:
            if value is not None:
                raise StridedTypeError(f"cannot assign '{typename(value)}' as child module '{name}' "
                                       "(torch.nn.Module or None expected)")
            self._modules[name] = value
        elif d.get("_buffers") is not None and name in self._buffers:
            if value is not None and not isinstance(value, Tensor):
                raise StridedTypeError(f"cannot assign '{typename(value)}' as buffer '{name}' "
                                       "(torch.nn.Buffer, torch.Tensor or None expected)")
            self._buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def _forget(self, name: str, keep: str) -> None:
        """Drop ``name`` from the places other than ``keep`` (a part changes kind on reassignment)."""
        self.__dict__.pop(name, None)
        for where in ("_parameters", "_buffers", "_modules"):
            if where != keep:
                self.__dict__[where].pop(name, None)
        self._non_persistent_buffers_set.discard(name)

    def __getattr__(self, name: str) -> Any:
        d = self.__dict__
        for where in ("_parameters", "_buffers", "_modules"):
            own = d.get(where)
            if own is not None and name in own:
                return own[name]
        raise StridedAttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            object.__delattr__(self, name)

    def __dir__(self) -> list[str]:
        return sorted({*super().__dir__(), *self._parameters, *self._buffers, *self._modules})

    # ------------------------------------------------------------ walking the tree

    def named_modules(self, memo: set | None = None, prefix: str = "", remove_duplicate: bool = True
                      ) -> Iterator[tuple[str, Module]]:
        """This module and every module below it, depth first, with their dotted names."""
        if memo is None:
            memo = set()
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            yield from module.named_modules(memo, prefix + ("." if prefix else "") + name, remove_duplicate)

    def modules(self) -> Iterator[Module]:
        for _, module in self.named_modules():
            yield module

    def named_children(self) -> Iterator[tuple[str, Module]]:
        seen: set = set()
        for name, module in self._modules.items():
            if module is not None and module not in seen:
                seen.add(module)
                yield name, module

    def children(self) -> Iterator[Module]:
        for _, module in self.named_children():
            yield module

    def _named_members(self, where: str, prefix: str, recurse: bool, remove_duplicate: bool
                       ) -> Iterator[tuple[str, Tensor]]:
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        seen: set[int] = set()  # (by identity: a tensor's == is elementwise)
        for module_prefix, module in modules:
            for name, value in module.__dict__[where].items():
                if value is None or id(value) in seen:
                    continue
                if remove_duplicate:
                    seen.add(id(value))
                yield module_prefix + ("." if module_prefix else "") + name, value

    def named_parameters(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
                         ) -> Iterator[tuple[str, Tensor]]:
        """``(dotted name, parameter)`` of this module's parameters and (``recurse``) its
        descendants', each shared parameter once."""
        return self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
                      ) -> Iterator[tuple[str, Tensor]]:
        return self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def get_submodule(self, target: str) -> Module:
        """The module at the dotted path ``target`` ("" is this module)."""
        module = self
        for item in target.split(".") if target else ():
            if not hasattr(module, item):
                raise StridedAttributeError(f"{module._get_name()} has no attribute `{item}`")
            module = getattr(module, item)
            if not isinstance(module, Module):
                raise StridedAttributeError("`" + item + "` is not an nn.Module")
        return module

    # ------------------------------------------------------------ modes and gradients

    def train(self, mode: bool = True) -> Module:
        """Set training mode (``mode``) on this module and its descendants; returns ``self``."""
        if not isinstance(mode, bool):
            raise StridedValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self) -> Module:
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget the parameters' gradients (``set_to_none``), or write zeros into them."""
        for p in self.parameters():
            g = p.grad
            if g is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                if g.grad_fn is not None:
                    g.detach_()
                else:
                    g.requires_grad_(False)
                g.zero_()

    # ------------------------------------------------------------ conversions

    def _apply(self, fn: Callable[[Tensor], Tensor]) -> Module:
        for module in self.children():
            module._apply(fn)
        with no_grad():
            for param in self._parameters.values():
                if param is None:
                    continue
                new = fn(param)
                if new is not param:
                    rebind(param, new)  # (PyTorch: param.data = new; the Parameter object stays)
            for key, buf in self._buffers.items():
                if buf is not None:
                    self._buffers[key] = fn(buf)
        return self

    def apply(self, fn: Callable[[Module], Any]) -> Module:
        """Call ``fn`` on every descendant (children first), then on this module; returns ``self``."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def to(self, *args: Any, **kwargs: Any) -> Module:
        """``to(dtype)``, ``to(device)``, ``to(device, dtype)``, ``to(tensor)``: the floating and
        complex parameters and buffers converted to ``dtype`` (in place: the Parameter objects
        stay); integer buffers keep theirs. Only the CPU exists."""
        device, dtype = _parse_to(*args, **kwargs)
        if device is not None:
            parse_device(device)
        if dtype is None:
            return self
        if not (dtype.is_floating_point or dtype.is_complex):
            raise StridedTypeError("nn.Module.to only accepts floating point or complex dtypes, but got desired "
                                   f"dtype={dtype}")
        return self._apply(lambda t: t.to(dtype) if t.is_floating_point() or t.is_complex() else t)

    def _cast_floats(self, dtype: DType) -> Module:
        return self._apply(lambda t: t.to(dtype) if t.is_floating_point() else t)

    def float(self) -> Module:
        from ...dtypes import float32

        return self._cast_floats(float32)

    def double(self) -> Module:
        from ...dtypes import float64

        return self._cast_floats(float64)

    def half(self) -> Module:
        from ...dtypes import float16

        return self._cast_floats(float16)

    def bfloat16(self) -> Module:
        from ...dtypes import bfloat16

        return self._cast_floats(bfloat16)

    def cpu(self) -> Module:
        return self

    # ------------------------------------------------------------ state dict

    def state_dict(self, *, destination: dict | None = None, prefix: str = "", keep_vars: bool = False) -> dict:
        """The parameters and persistent buffers by dotted name (an OrderedDict), detached unless
        ``keep_vars``: tensors sharing the module's memory."""
        if destination is None:
            destination = OrderedDict()
        for name, p in self._parameters.items():
            if p is not None:
                destination[prefix + name] = p if keep_vars else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = b if keep_vars else b.detach()
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        return destination

    def _load_from_state_dict(self, state_dict: Mapping, prefix: str, missing: list, unexpected: list,
                              errors: list, assign: bool) -> None:
        local = {k: v for k, v in itertools.chain(
            self._parameters.items(),
            ((k, v) for k, v in self._buffers.items() if k not in self._non_persistent_buffers_set))
            if v is not None}
        for name, param in local.items():
            key = prefix + name
            if key not in state_dict:
                missing.append(key)
                continue
            value = state_dict[key]
            if not isinstance(value, Tensor):
                errors.append(f'While copying the parameter named "{key}", expected torch.Tensor or Tensor-like '
                              f"object from checkpoint but received {type(value)}")
                continue
            if param.ndim == 0 and value.ndim == 1:  # (PyTorch's compatibility with old checkpoints)
                value = value[0]
            if value.shape != param.shape:
                errors.append(f"size mismatch for {key}: copying a param with shape {_size(value.shape)} from "
                              f"checkpoint, the shape in current model is {_size(param.shape)}.")
                continue
            try:
                with no_grad():
                    if assign:
                        self._assign(name, param, value)
                    else:
                        param.copy_(value)
            except Exception as ex:
                errors.append(f'While copying the parameter named "{key}", whose dimensions in the model are '
                              f"{_size(param.shape)} and whose dimensions in the checkpoint are {_size(value.shape)}, "
                              f"an exception occurred : {ex.args}.")
        for key in state_dict:
            if key.startswith(prefix):
                head = key[len(prefix):].split(".", 1)
                if (head[0] not in self._modules) if len(head) > 1 else (head[0] not in local):
                    unexpected.append(key)

    def _assign(self, name: str, param: Tensor, value: Tensor) -> None:
        if isinstance(param, Parameter):
            if isinstance(value, Parameter):
                value.requires_grad_(param.requires_grad)
            else:
                value = Parameter(value, requires_grad=param.requires_grad)
        setattr(self, name, value)

    def load_state_dict(self, state_dict: Mapping[str, Any], strict: bool = True, assign: bool = False
                        ) -> _IncompatibleKeys:
        """Copy ``state_dict``'s tensors into this module's parameters and buffers (converted to
        their dtypes; ``assign``: take the tensors themselves instead). ``strict``: every key must
        match. PyTorch's RuntimeError lists the missing keys, the unexpected ones and the size
        mismatches; as in PyTorch, the tensors whose keys and shapes did match are copied before it
        is raised. Returns ``(missing_keys, unexpected_keys)``.

        >>> lin = nn.Linear(2, 1)
        >>> lin.load_state_dict({"weight": strided.ones(1, 2), "bias": strided.zeros(1)})
        <All keys matched successfully>
        >>> lin.load_state_dict({"weight": strided.ones(1, 2)}, strict=False)
        _IncompatibleKeys(missing_keys=['bias'], unexpected_keys=[])
        """
        if not isinstance(state_dict, Mapping):
            raise StridedTypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing: list[str] = []
        unexpected: list[str] = []
        errors: list[str] = []
        state_dict = OrderedDict(state_dict)

        def load(module: Module, local: Mapping, prefix: str) -> None:
            module._load_from_state_dict(local, prefix, missing, unexpected, errors, assign)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    load(child, {k: v for k, v in local.items() if k.startswith(child_prefix)}, child_prefix)

        load(self, state_dict, "")
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in unexpected)))
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in missing)))
        if errors:
            raise StridedRuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                self.__class__.__name__, "\n\t".join(errors)))
        return _IncompatibleKeys(missing, unexpected)

    # ------------------------------------------------------------ hooks and calling

    def register_forward_pre_hook(self, hook: Callable[..., Any], *, prepend: bool = False,
                                  with_kwargs: bool = False) -> RemovableHandle:
        """``hook(module, args)`` (``with_kwargs``: ``hook(module, args, kwargs)``) before each
        forward; a value it returns replaces the arguments."""
        return _add_hook(self._forward_pre_hooks, self._forward_pre_hooks_with_kwargs, hook, prepend, with_kwargs)

    def register_forward_hook(self, hook: Callable[..., Any], *, prepend: bool = False,
                              with_kwargs: bool = False) -> RemovableHandle:
        """``hook(module, args, output)`` (``with_kwargs``: ``hook(module, args, kwargs, output)``)
        after each forward; a value it returns replaces the output."""
        return _add_hook(self._forward_hooks, self._forward_hooks_with_kwargs, hook, prepend, with_kwargs)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        # (the hook dicts are tested first: a module without hooks, the common case in a training
        # loop, skips building the snapshot lists; a hook added inside forward still runs after)
        pre = self._forward_pre_hooks
        for hook_id, hook in list(pre.items()) if pre else ():
            if hook_id in self._forward_pre_hooks_with_kwargs:
                changed = hook(self, args, kwargs)
                if changed is not None:
                    if not (isinstance(changed, tuple) and len(changed) == 2):
                        raise StridedRuntimeError("forward pre-hook must return None or a tuple of (new_args, "
                                                  f"new_kwargs), but got {changed}.")
                    args, kwargs = changed
            else:
                changed = hook(self, args)
                if changed is not None:
                    args = changed if isinstance(changed, tuple) else (changed,)
        result = self.forward(*args, **kwargs)
        post = self._forward_hooks
        if not post:
            return result
        for hook_id, hook in list(post.items()):
            if hook_id in self._forward_hooks_with_kwargs:
                changed = hook(self, args, kwargs, result)
            else:
                changed = hook(self, args, result)
            if changed is not None:
                result = changed
        return result

    # ------------------------------------------------------------ repr

    def _get_name(self) -> str:
        return self.__class__.__name__

    def extra_repr(self) -> str:
        """The text inside this module's ``repr`` parentheses (before its children); "" here."""
        return ""

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({key}): " + _addindent(repr(module), 2) for key, module in self._modules.items()]
        lines = extra_lines + child_lines
        main = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main += extra_lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"


def _add_hook(hooks: OrderedDict, with_kwargs_ids: set, hook: Callable[..., Any], prepend: bool,
              with_kwargs: bool) -> RemovableHandle:
    """Register ``hook`` in ``hooks`` (first when ``prepend``); its handle removes it from both."""
    handle = RemovableHandle(hooks, with_kwargs_ids)
    hooks[handle.id] = hook
    if with_kwargs:
        with_kwargs_ids.add(handle.id)
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


def _parse_to(*args: Any, **kwargs: Any) -> tuple[Any, DType | None]:
    """The device and dtype of ``Module.to``'s arguments (PyTorch's ``_parse_to``)."""
    device, dtype = kwargs.pop("device", None), kwargs.pop("dtype", None)
    kwargs.pop("non_blocking", None)
    kwargs.pop("memory_format", None)
    if kwargs:
        raise StridedTypeError(f"to() received an invalid combination of arguments: {sorted(kwargs)}")
    for a in args:
        if isinstance(a, Tensor):
            dtype = a.dtype
        elif isinstance(a, DType):
            dtype = a
        elif isinstance(a, bool) or a is None:
            continue  # (non_blocking, copy)
        else:
            device = a
    return device, (None if dtype is None else to_dtype(dtype))
