"""Reverse-mode automatic differentiation for strided, with PyTorch's semantics and names.

>>> import strided, strided.autograd
>>> x = strided.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
>>> y = (x.t() * x).sum()
>>> y.grad_fn
<SumBackward0 object at ...>
>>> y.backward(); x.grad
tensor([[2., 6.],
        [4., 8.]])

The parts: :mod:`.graph` (nodes, tensor records, version counters), :mod:`.engine` (the
backward pass, :func:`backward`, :func:`grad`), :mod:`.function` (how an op records its node;
the rules sit beside their forwards: :mod:`strided.gradients`), :mod:`.inplace` (in-place ops:
CopySlices, version counters, the leaf errors), :mod:`.mode`
(``no_grad``, ``enable_grad``), :mod:`.gradcheck`, :mod:`.show` (``graph_text``), :mod:`.graph_picture` (``graph_svg``, the same graph pictured), :mod:`.tensor_api` (the Tensor surface).
The two pictures of the graph (:mod:`.show`, :mod:`.graph_picture`) load on first use.
"""

from __future__ import annotations

import typing as _typing

from ..grad_mode import set_recorder as _set_recorder
from . import function as _function
from . import inplace as _inplace
from . import tensor_api as _tensor_api
from .engine import backward, grad
from .gradcheck import gradcheck, gradgradcheck
from .graph import AccumulateGrad, Node
from .mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)

_tensor_api.install()
# the ops' entries (made as each op module is defined: strided.gradients.seal) hand tracked
# results and in-place writes to these two
_set_recorder(_function.attach, _inplace._run_inplace, _function.attach_fresh)

__all__ = [
    "AccumulateGrad", "Node", "backward", "enable_grad", "grad", "gradcheck", "gradgradcheck", "graph_svg", "graph_text", "inference_mode", "is_grad_enabled",
    "is_inference_mode_enabled", "no_grad",
    "set_grad_enabled",
]

if _typing.TYPE_CHECKING:  # (the lazy names below, for type checkers and linters)
    from . import graph_picture as graph_picture
    from . import show as show
    from .graph_picture import graph_svg
    from .show import graph_text
del _typing

# Loaded on first use (PEP 562), as the package's own lazy names (issue 23): the graph's text and
# picture, which no op and no backward pass needs. name -> (module, attribute; None: the module)
_LAZY = {
    "graph_text": ("strided.autograd.show", "graph_text"),
    "graph_svg": ("strided.autograd.graph_picture", "graph_svg"),
    "show": ("strided.autograd.show", None),
    "graph_picture": ("strided.autograd.graph_picture", None),
}


def __getattr__(name: str) -> object:
    """``strided.autograd.<name>`` for the names of ``_LAZY``: imported on first use, then kept in
    the package's namespace (a plain lookup from then on)."""
    from ..lazy_names import lazy_attribute

    return lazy_attribute(__name__, _LAZY, globals(), name)


def __dir__() -> list[str]:
    """The package's names, the lazy ones included: ``dir(strided.autograd)`` as the eager import
    gave it (all loaded, and without this mechanism's own three names)."""
    return sorted({*globals(), *_LAZY} - {"_LAZY", "__getattr__", "__dir__"})
