"""Tensor: one Storage plus one Layout.

View methods ask :mod:`strided.layout` for a new layout and share the storage;
they cost O(ndim) and copy nothing. Copy methods ask :mod:`strided.kernels`,
whose :func:`~strided.kernels.copy_to_new` is the single place memory is
materialized. Methods follow PyTorch's semantics; differences are marked with
``# Note:``.
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

import numpy as np

from . import dispatch as _dispatch
from . import layout as L
from .args import (
    check_not_0d,
    check_piece_count,
    chunk_count,
    dims_arg,
    int_arg,
    memory_format_error,
    missing,
    no_dims,
    parse_sizes,
    split_sizes,
    split_step,
    type_name,
    unflatten_sizes,
)
from .dispatch import OPEN, copy_of, reinterpreted, storage_root, view_of
from .dtypes import TORCH_NAME, DType, to_dtype
from .errors import StridedNotImplementedError, StridedRuntimeError, StridedTypeError, join_lines
from .formatting import format_tensor
from .grad_mode import INSIDE, refuse_numpy, use_tensor_class
from .gradients import (
    BACKWARD,
    backward,
    grad_zeros,
    record,
    records,
    restrided,
    scatter_into_view,
    scatter_pieces,
    seal,
    sum_to,
)
from .indexing import AdvancedIndex, index_layout
from .kernels import copy_array, numpy_view
from .layout import Layout
from .layout import plans as P
from .layout.dtype_view import view_dtype_layout
from .layout.formats import is_channels_last_3d_contiguous
from .layout.plans import Copy, View
from .memory_format import (
    MemoryFormat,
    channels_last,
    channels_last_3d,
    contiguous_format,
    is_dense_format,
    preserve_format,
)
from .messages import (
    array_copy_error,
    bool_error,
    contains_error,
    copy_why,
    error,
    format_spec_error,
    index_error,
    is_contiguous_format_error,
    item_error,
    iter_0d_error,
    len_0d_error,
    mt_error,
    not_a_tensor,
    not_built_directly,
    t_error,
    transpose_deprecated,
    unbind_0d_error,
    view_refused,
)
from .pickled import checked_state, deep_copied, pickled_state, restore_leaf
from .storage import Storage

_new = object.__new__
_is_contiguous = L.is_contiguous

# The view ops' memo: (op, shape, strides, offset, *plain-int args) -> the result Layout of a View
# plan. Layouts are immutable values, so a hit is the plan's answer; only calls whose arguments
# are all plain ints are looked up and remembered (True == 1 and 1.0 == 1 as keys, but not as
# dims), only Views are remembered (copies and refusals cost their own price anyway), and the
# memo is cleared when full, so it stays bounded. A hit costs about 0.1 µs where planning costs
# 0.5-1.5 µs (measured: bench/bench_views.py).
_VIEWS: dict[tuple, Layout] = {}
_VIEWS_LIMIT = 4096

# Advanced indexing (``t[key]`` with index tensors, lists, arrays, masks: a copy) and its write are
# carried out by strided.ops.advanced_indexing, which puts its "getitem" and "setitem" here when
# strided is imported (this layer imports no op); basic indexing never looks here.
ADVANCED_INDEXING: dict[str, Callable[..., Any]] = {}


def tensor_arg(value: Any, op: str, name: str = "input", pos: int = 1) -> Tensor:
    """``value`` if it is a strided Tensor; else PyTorch's TypeError, and how to make one."""
    if not isinstance(value, Tensor):
        raise not_a_tensor(value, type_name(value), op, name, pos)
    return value


def narrow_tensor_start(start: Tensor) -> Any:
    """A tensor ``start`` of ``narrow``: its value when 0-d and integral (bool not), else PyTorch's error."""
    if start._dtype.kind == "b" and not start._layout.shape:
        return start  # int_arg's error for a bool: a bool is no size
    if start._layout.shape or start._dtype.kind not in "iu":
        raise StridedRuntimeError(
            "start must be an 0-dim integral Tensor.\n"
            f"  start is a {start._dtype.name} tensor of shape {start._layout.shape}\n"
            "  fix: pass an int, or a 0-d integer tensor (e.g. t[0] of an int64 tensor)"
        )
    return int(start.item())



# ---------------------------------------------------------------- backward rules of the views
# Each view method below registers its gradient rule right after itself (strided.gradients has
# the contract). Three kinds, cheapest first:
# - a view back: the gradient of a permute is the gradient permuted back, of a view/reshape the
#   gradient reshaped (a view whenever its layout allows), of a squeeze/unsqueeze the gradient
#   with the size-1 dims put back. Nothing is copied.
# - a sum: the gradient of an expand is summed over the stretched dims (each input element was
#   read once per stretched position).
# - a scatter into the viewed layout (select, slicing, narrow, diagonal, unfold, as_strided): a
#   zero tensor in the input's shape, the same view taken of it and the incoming gradient added
#   there; where the view reads an element several times (overlapping unfold windows) the
#   additions accumulate, as PyTorch defines it.


def _reshaped_back(name: str | Callable[..., str]) -> Callable[..., Any]:
    """The rule of view, reshape, flatten, unflatten, squeeze, unsqueeze: the gradient reshaped
    back to the input's shape (a view of it whenever its strides allow). ``name``: the node's
    name, or a function of ``(out, x, args, kwargs)`` giving it."""

    def rule(out: Tensor, x: Tensor, *args: Any, **kwargs: Any) -> Any:
        if out is x:
            return None
        shape = x._layout.shape
        node = name(out, x, args, kwargs) if callable(name) else name
        return node, (x,), lambda g: (g.reshape(shape),), ()

    return rule


def _scattered_back(name: str | Callable[[tuple], str], method: str) -> Callable[..., Any]:
    """The rule of select, narrow, diagonal, unfold and a basic index: the gradient scattered
    into the same view (``method`` with the forward's arguments) of a zero tensor of the input's
    shape. ``name``: the node's name, or a function of the arguments giving it."""

    def rule(out: Tensor, x: Tensor, *args: Any, **kwargs: Any) -> Any:
        if out is x:
            return None
        if out._storage is not x._storage:  # an advanced index: a copy, PyTorch's IndexBackward0
            advanced = BACKWARD.get("index")
            if advanced is not None:
                return advanced[0](out, x, *args, **kwargs)
            raise StridedNotImplementedError(join_lines(
                "advanced indexing is not differentiable yet in strided's autograd",
                f"the index made a copy (shape {out._layout.shape}) of a tensor that requires grad",
                "fix: use basic indexing (ints, slices, None, ...), or gather/index_select on a "
                "detached tensor"))
        shape = x._layout.shape
        node = name(args) if callable(name) else name

        def grads(g: Tensor) -> tuple:
            return (scatter_into_view(shape, g, lambda z: getattr(z, method)(*args, **kwargs), f"{node}Backward0"),)

        return node, (x,), grads, ()

    return rule


def _pieces_back(name: str) -> Callable[..., Any]:
    """split, chunk, unbind: one node with an output per piece; the gradient of the input is a
    zero tensor with each piece's gradient added at the piece's place, a narrow (split, chunk)
    or a select (unbind) along the dim (pieces with no gradient contribute nothing)."""

    def rule(out: tuple, x: Tensor, *args: Any, **kwargs: Any) -> Any:
        shape = x._layout.shape
        unbind = name == "UnbindBackward0"
        dim = kwargs.get("dim", args[1] if not unbind and len(args) > 1 else args[0] if unbind and args else 0)
        d = dim % len(shape)
        starts = []
        at = 0
        for piece in out:
            starts.append(at)
            at += 1 if unbind else piece._layout.shape[d]

        def grads(*pieces: Any) -> tuple:
            like = next(g for g in pieces if g is not None)
            if any(g is not None and g._ag is not None for g in pieces):  # create_graph: differentiable
                return (_placed_pieces(shape, d, starts, pieces, unbind),)
            z = grad_zeros(shape, like._dtype)
            for start, piece_grad in zip(starts, pieces):
                if piece_grad is None:
                    continue
                place = z.select(d, start) if unbind else z.narrow(d, start, piece_grad._layout.shape[d])
                place._np()[...] += piece_grad._np()
            return (z,)

        sizes = kwargs.get("split_size_or_sections", args[0] if args else None)
        node = "SplitWithSizesBackward0" if name == "SplitBackward0" and isinstance(sizes, (list, tuple)) else name
        return node, (x,), grads, (), "multi"

    return rule


def _placed_pieces(shape: tuple, d: int, starts: list, pieces: tuple, unbind: bool) -> Tensor:
    """The pieces' gradients each scattered to its place along ``d`` (a select for unbind, a
    narrow otherwise) and summed, differentiably (create_graph)."""
    if unbind:
        placed = [(g, lambda z, s=s: z.select(d, s)) for s, g in zip(starts, pieces) if g is not None]
        return scatter_pieces(shape, placed, "UnbindBackwardBackward0")
    placed = [(g, lambda z, s=s, n=g._layout.shape[d]: z.narrow(d, s, n)) for s, g in zip(starts, pieces) if g is not None]
    return scatter_pieces(shape, placed, "SplitBackwardBackward0")


def _permuted_back(out: Tensor, x: Tensor, p: Sequence[int]) -> Any:
    """The gradient of a permutation ``p`` (the output's dim i is the input's dim p[i])."""
    inverse = tuple(int(i) for i in np.argsort(p))
    return "PermuteBackward0", (x,), lambda g: (g.permute(inverse),), ()

class Tensor:
    """An N-dimensional view of a flat :class:`~strided.storage.Storage`.

    Build tensors with :func:`strided.tensor`, :func:`strided.from_numpy`,
    :func:`strided.zeros` and friends, not with this class directly.

    >>> x = strided.arange(6).view(2, 3)
    >>> y = x.t()  # a view: a new layout over the same storage
    >>> y.shape, y.stride(), strided.shares_memory(x, y)
    ((3, 2), (1, 3), True)

    This class holds construction, accessors, views and copies. The methods below are
    installed from above when ``strided`` is imported (each module sets its own with setattr),
    so this module imports nothing higher (``tests/test_layers.py`` checks this list):

    - :mod:`strided.writes`: ``copy_``, ``fill_``, ``zero_``, ``__setitem__``, ``resize_``.
    - :mod:`strided.describe`: ``describe``.
    - :mod:`strided.ops.elementwise`: the arithmetic, comparison and bitwise operators with
      their reflected and in-place forms (``__add__``, ``__radd__``, ``__iadd__``, ``__eq__``, ...)
      and named forms (``add``, ``add_``, ``sub``, ``mul``, ``div``, ``pow``, ``eq``, ``lt``,
      ``maximum``, ``minimum``, ``bitwise_and``, ``hypot``, ``atan2``, ``fmod``, ``logical_and``, ...).
    - :mod:`strided.ops.unary`: ``abs``, ``neg``, ``exp``, ``log``, ``sqrt``, ``sin``, ``cos``,
      ``tanh``, ``sigmoid``, ``relu``, ``clamp``, ``clip``, ``bitwise_not``, ``where``, their
      in-place forms (``exp_``, ...) and ``__neg__``, ``__abs__``, ``__invert__``.
    - :mod:`strided.ops.reductions`: ``sum``, ``prod``, ``mean``, ``var``, ``std``, ``all``, ``any``.
    - :mod:`strided.ops.extrema`: ``max``, ``min``, ``argmax``, ``argmin``.
    - :mod:`strided.ops.softmax`: ``softmax``, ``log_softmax``.
    - :mod:`strided.ops.unary_more`: ``isnan``, ``isinf``, ``isfinite``, ``signbit``, ``floor``,
      ``round``, ``trunc``, ``frac``, ``sign``, ``erf``, ``erfinv``, ``tan``, ``asin``, ``logical_not``,
      ``nan_to_num``, ... and their in-place forms (``floor_``, ``round_``, ...).
    - :mod:`strided.ops.binary_more`: ``lerp``, ``lerp_``, ``isclose``, ``allclose``, ``equal``, ``addcmul``,
      ``addcmul_``, ``addcdiv``, ``addcdiv_``.
    - :mod:`strided.ops.nan_reductions`: ``amax``, ``amin``, ``aminmax``, ``nansum``, ``nanmean``,
      ``logsumexp``, ``count_nonzero``, ``norm``.
    - :mod:`strided.ops.advanced_indexing`: ``index_put_``, ``index_put``.
    - :mod:`strided.ops.gather_scatter`: ``gather``, ``take``, ``take_along_dim``, ``scatter``, ``scatter_``,
      ``scatter_add``, ``scatter_add_``, ``scatter_reduce``, ``scatter_reduce_``.
    - :mod:`strided.ops.index_ops`: ``index_select``, ``index_fill``, ``index_fill_``, ``index_add``,
      ``index_add_``, ``index_copy``, ``index_copy_``.
    - :mod:`strided.ops.masked`: ``masked_fill``, ``masked_fill_``, ``masked_select``, ``masked_scatter``,
      ``masked_scatter_``, ``nonzero``, ``argwhere``.
    - :mod:`strided.ops.complex_ops`: ``real``, ``imag`` (properties, settable), ``H``, ``mH``, ``conj``,
      ``conj_physical``, ``conj_physical_``, ``resolve_conj``, ``is_conj``, ``adjoint``, ``angle``, ``is_complex``.
    - :mod:`strided.ops.conversions`: ``float``, ``double``, ``half``, ``bfloat16``, ``long``, ``int``,
      ``short``, ``char``, ``byte``, ``bool``, ``type``, ``to``, ``detach``, ``detach_``, ``cpu``,
      ``device``, ``is_cpu``.
    - :mod:`strided.ops.inplace_views`: ``t_``, ``transpose_``, ``swapdims_``, ``swapaxes_``, ``swapdims``,
      ``swapaxes``, ``squeeze_``, ``unsqueeze_``, ``as_strided_``, ``resize_as_``, ``set_``, ``is_set_to``.
    - :mod:`strided.ops.copies`: ``narrow_copy``.
    - :mod:`strided.ops.joining`: ``tensor_split``, ``hsplit``, ``vsplit``, ``dsplit``.
    - :mod:`strided.ops.reorder`: ``flip``, ``fliplr``, ``flipud``, ``roll``, ``rot90``, ``repeat``, ``tile``,
      ``repeat_interleave``.
    - :mod:`strided.ops.triangles`: ``tril``, ``triu``, ``tril_``, ``triu_``, ``diag``, ``diagflat``, ``diag_embed``.
    - :mod:`strided.ops.sorting`: ``sort``, ``argsort``, ``msort``, ``topk``, ``kthvalue``.
    - :mod:`strided.ops.scans`: ``cumsum``, ``cumprod``, ``cumsum_``, ``cumprod_``, ``cummax``, ``cummin``, ``diff``.
    - :mod:`strided.ops.sets`: ``unique``, ``unique_consecutive``.
    - :mod:`strided.ops.random`: ``uniform_``, ``normal_``, ``random_``, ``bernoulli_``, ``exponential_``,
      ``geometric_``, ``log_normal_``, ``cauchy_``, ``bernoulli``, ``multinomial``.
    - :mod:`strided.interop.dlpack`: ``__dlpack__``, ``__dlpack_device__``.
    - :mod:`strided.interop.numpy_protocols`: ``__array_ufunc__``, ``__array_function__``.
    - :mod:`strided.interop.array_interface`: ``__array_interface__``.
    - :mod:`strided.ops.shifts`: ``bitwise_left_shift``, ``bitwise_right_shift``, ``bitwise_left_shift_``,
      ``bitwise_right_shift_``, ``__lshift__``, ``__rshift__``, ``__rlshift__``, ``__rrshift__``,
      ``positive``, ``__pos__``.
    - :mod:`strided.array_api`: ``__array_namespace__``, ``to_device``.
    - :mod:`strided.ops.matmul`: ``matmul``, ``__matmul__``, ``__rmatmul__``, ``mm``, ``bmm``,
      ``dot``, ``outer``.
    - :mod:`strided.autograd.tensor_api`: ``requires_grad``, ``requires_grad_``, ``grad``, ``grad_fn``,
      ``retain_grad``, ``retains_grad``, ``register_hook``, ``backward``, ``data``, ``_version``,
      ``is_leaf``.
    """

    # _ag: None, or the autograd record of this tensor (strided.autograd.graph.Meta: requires_grad,
    # grad, grad_fn, hooks). None for every tensor outside autograd, so an op checks one slot.
    __slots__ = ("_storage", "_layout", "_dtype", "_base", "_ag", "__weakref__")

    # ops.elementwise installs __eq__ (elementwise, giving a bool tensor); tensors stay hashable
    # by identity, as in PyTorch. strided.interop.numpy_protocols replaces __array_ufunc__ (and adds
    # __array_function__) at import; until then NumPy defers to our reflected operators (ndarray + tensor).
    __hash__ = object.__hash__
    __array_ufunc__ = None

    _storage: Storage
    _layout: Layout
    _dtype: DType
    _base: Tensor | None
    _ag: Any

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise not_built_directly()

    def __getstate__(self) -> dict[str, Any]:
        """The fields pickle keeps (every pickle protocol, as PyTorch's tensors): no history, a
        tensor that requires grad comes back a leaf that does (:func:`strided.pickled.pickled_state`)."""
        return pickled_state(self)

    def __setstate__(self, state: Any) -> None:
        """Unpickling: the fields are set only once they fit each other (the layout within the
        storage, the storage's dtype the tensor's; :func:`strided.pickled.checked_state`)."""
        for name, value in checked_state(state, Tensor).items():
            object.__setattr__(self, name, value)
        restore_leaf(self)

    def __deepcopy__(self, memo: dict) -> Tensor:
        """A deep copy: a leaf's ``requires_grad`` and ``grad`` come along; a result with a
        history is refused, as PyTorch (:func:`strided.pickled.deep_copied`)."""
        return deep_copied(self, memo)

    # ------------------------------------------------------------ construction helpers

    def _view(self, layout: Layout) -> Tensor:
        """A new tensor over the same storage; its base is the root of this view chain."""
        t = _new(Tensor)
        t._storage = self._storage
        t._layout = layout
        t._dtype = self._dtype
        base = self._base
        t._base = self if base is None else base
        t._ag = None
        if OPEN: view_of(self, t)  # noqa: E701 - one cheap check when nobody listens (strided.dispatch.listen)
        return t

    def _np(self) -> np.ndarray:
        """Zero-copy NumPy view of this tensor (kernels' input)."""
        return numpy_view(self._storage, self._layout)

    def _copy(self, strides: tuple[int, ...], reason: str, dtype: DType | None = None) -> Tensor:
        """Materialize into new storage with dense ``strides`` (through the one copy kernel)."""
        return copy_of(self, strides, reason, dtype)

    # ------------------------------------------------------------ looking inside

    @property
    def shape(self) -> tuple[int, ...]:
        """The size of each dim.

        >>> strided.zeros(2, 3).shape
        (2, 3)
        """
        return self._layout.shape

    def size(self, dim: int | None = None) -> Any:
        """The shape, or the size of one dim.

        >>> x = strided.zeros(2, 3)
        >>> x.size(), x.size(-1)
        ((2, 3), 3)
        """
        if dim is None:
            return self._layout.shape
        return self._layout.shape[self._dim_to_read(dim, "size")]

    @property
    def ndim(self) -> int:
        """The number of dims.

        >>> strided.zeros(2, 3).ndim, strided.tensor(1.0).ndim
        (2, 0)
        """
        return len(self._layout.shape)

    def dim(self) -> int:
        """The number of dims (``ndim``).

        >>> strided.zeros(2, 3, 4).dim()
        3
        """
        return len(self._layout.shape)

    ndimension = dim

    @property
    def dtype(self) -> DType:
        """The element type: a :class:`~strided.dtypes.DType` (``strided.float32``, ...).

        >>> strided.zeros(2).dtype, strided.arange(2).dtype
        (strided.float32, strided.int64)
        """
        return self._dtype

    def numel(self) -> int:
        """The number of elements.

        >>> strided.zeros(2, 3).numel()
        6
        """
        return L.product(self._layout.shape)

    nelement = numel

    def element_size(self) -> int:
        """Bytes per element.

        >>> strided.zeros(2, dtype=strided.float64).element_size()
        8
        """
        return self._dtype.itemsize

    @property
    def itemsize(self) -> int:
        """Bytes per element (``element_size()``).

        >>> strided.zeros(2, dtype=strided.int16).itemsize
        2
        """
        return self._dtype.itemsize

    @property
    def nbytes(self) -> int:
        """Bytes of the elements this tensor addresses (not of its storage), as in PyTorch.

        >>> strided.zeros(4, 4)[:, :2].nbytes
        32
        """
        return self.numel() * self._dtype.itemsize

    def stride(self, dim: int | None = None) -> Any:
        """Strides in elements, or the stride of one dim.

        >>> strided.zeros(2, 3).stride(), strided.zeros(2, 3).t().stride(0)
        ((3, 1), 1)
        """
        if dim is None:
            return self._layout.strides
        return self._layout.strides[self._dim_to_read(dim, "stride")]

    def _dim_to_read(self, dim: Any, op: str) -> int:
        """``dim`` wrapped for reading one size or stride: a 0-d tensor has none (PyTorch's IndexError)."""
        shape = self._layout.shape
        d = L.wrap_dim(dim, len(shape))
        if not shape:
            raise no_dims(dim, op)
        return d

    def storage_offset(self) -> int:
        """Where element 0 sits in the storage, in elements.

        >>> strided.arange(10)[3:].storage_offset()
        3
        """
        return self._layout.offset

    @property
    def layout(self) -> Layout:
        """The (shape, strides, offset) value of this tensor.

        >>> strided.zeros(2, 3).t().layout
        Layout(shape=(3, 2), strides=(1, 3), offset=0)
        """
        return self._layout

    def data_ptr(self) -> int:
        """Address of the first element (storage address + offset * itemsize); 0 when empty, as PyTorch.

        >>> x = strided.zeros(4, dtype=strided.float64)
        >>> x[1:].data_ptr() - x.data_ptr()
        8
        """
        if 0 in self._layout.shape:
            return 0
        return self._storage.data_ptr() + self._layout.offset * self._dtype.itemsize

    def untyped_storage(self) -> Storage:
        """The Storage shared by this tensor and all its views, those in another dtype included
        (``view(dtype)``, ``real``, ``imag``: the storage that owns the bytes), as in PyTorch.

        >>> x = strided.zeros(4)
        >>> x[1:].untyped_storage() is x.untyped_storage()
        True
        """
        storage = self._storage
        return storage_root(storage) if _dispatch._ALIASED else storage

    def is_contiguous(self, memory_format: MemoryFormat = contiguous_format) -> bool:
        """PyTorch's rules: size-1 dims are ignored; empty tensors are contiguous.

        >>> x = strided.zeros(2, 3)
        >>> x.is_contiguous(), x.t().is_contiguous(), x[:, :1].is_contiguous()
        (True, False, False)
        """
        lay = self._layout
        if memory_format is channels_last:
            return L.is_channels_last_contiguous(lay.shape, lay.strides)
        if memory_format is channels_last_3d:
            return is_channels_last_3d_contiguous(lay.shape, lay.strides)
        if memory_format is contiguous_format or memory_format is preserve_format:
            # Note: PyTorch answers preserve_format with the plain (row-major) contiguity
            return L.is_contiguous(lay.shape, lay.strides)
        raise is_contiguous_format_error(memory_format, isinstance(memory_format, MemoryFormat))

    @property
    def base(self) -> Tensor | None:
        """The root tensor this view was made from; None when this tensor owns its storage.

        >>> x = strided.zeros(4)
        >>> x[1:].base is x, x.base is None
        (True, True)
        """
        return self._base

    _base_ = base

    def is_view(self) -> bool:
        """Whether this tensor shares another tensor's storage (``base`` is not None).

        >>> x = strided.zeros(4)
        >>> x.is_view(), x[1:].is_view()
        (False, True)
        """
        return self._base is not None

    def is_floating_point(self) -> bool:
        """Whether the dtype is a floating-point one.

        >>> strided.zeros(1).is_floating_point(), strided.arange(1).is_floating_point()
        (True, False)
        """
        return self._dtype.is_floating_point

    def __repr__(self) -> str:
        return format_tensor(self._storage.array, self._layout, self._dtype)

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        """``format(t, spec)``: a 0-d tensor formats its value (``f"{loss:.4f}"``), as PyTorch does.

        Other tensors take only the empty spec (their repr); a spec raises TypeError, as
        ``object.__format__`` does in PyTorch.
        """
        if not self._layout.shape:
            return format(self.item(), spec)
        if spec:
            raise format_spec_error(spec, self._layout.shape)
        return repr(self)

    def __contains__(self, element: Any) -> bool:
        """``element in t``: whether some element equals ``element`` (a number, or a tensor that
        broadcasts against ``t``), computed as PyTorch does: ``(t == element).any()``."""
        if isinstance(element, (Tensor, numbers.Number)):
            found = self.__eq__(element)
            if found is not NotImplemented:
                return bool(found.any())
        # Note: PyTorch lets Decimal and Fraction numbers through to ==; strided's == takes
        # neither of them, so they get this error too (complex numbers compare, as in PyTorch).
        raise contains_error(element, self._dtype.name, self._layout.shape)

    def __len__(self) -> int:
        if not self._layout.shape:
            raise len_0d_error()
        return self._layout.shape[0]

    def __iter__(self) -> Iterator[Tensor]:
        if not self._layout.shape:
            raise iter_0d_error()
        return iter(self.unbind(0))

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        """NumPy 2's array protocol: this tensor's memory as an ndarray, copied only when asked or needed.

        ``copy=None``: a zero-copy view, or a converted copy when ``dtype`` is another element
        type. ``copy=True``: always a new array. ``copy=False``: the view, or ValueError when
        ``dtype`` needs a conversion (NumPy 2's contract). NumPy itself reads
        ``__array_interface__`` first (:mod:`strided.interop`), so this serves direct callers.
        """
        # Note: PyTorch's __array__ takes no copy=, so NumPy refuses np.asarray(torch_t, copy=False)
        # even when no copy is needed; strided follows NumPy's contract, as ndarray does.
        refuse_numpy(self, "np.asarray(t) (Tensor.__array__)")
        converts = dtype is not None and np.dtype(dtype) != self._dtype.numpy
        if converts and copy is False:
            raise array_copy_error(self._dtype.name, str(np.dtype(dtype)))
        arr = self._np()
        if converts:
            return copy_array(arr, f"__array__: NumPy asked for dtype {np.dtype(dtype)}", dtype)
        if copy:
            return copy_array(arr, "__array__(copy=True): NumPy asked for a copy")
        self._storage.mark_exported("np.asarray(t) (Tensor.__array__)")
        return arr

    # ------------------------------------------------------------ views
    #
    # Each method parses its arguments, asks layout.plans what will happen and carries the plan
    # out (_carry): a View shares the storage, a Copy goes through the one copy path with the
    # plan's why in the ledger, a refusal is raised as messages renders it. Plain-int calls first
    # look their result layout up in _VIEWS (see there); only a miss plans.

    def _carry(self, plan: Any, key: tuple | None = None, op: str = "") -> Tensor:
        """Carry out ``plan``: a View (remembered under ``key``), a Copy (``op`` labels it in the
        ledger's reason, with the plan's why), or the refusal raised with the peers' text.

        A bare Layout counts as a View: the movement deciders (``layout.permute_layout``, ...)
        are the plans' own View-or-refusal core, and the view methods take them directly to
        skip the wrapping (``layout.plans`` wraps the same results as values for readers).
        """
        cls = plan.__class__
        if cls is Layout or cls is View:
            layout = plan if cls is Layout else plan[0]
            if key is not None:
                if len(_VIEWS) >= _VIEWS_LIMIT:
                    _VIEWS.clear()
                _VIEWS[key] = layout
            return self._view(layout)
        if plan.__class__ is Copy:
            # the ledger's sentence: the op and the plan's why, rendered only when a ledger
            # listens, e.g. "reshape(12): dims 0 and 1 cannot merge: stride[0] == ..."
            return self._materialize(plan, lambda: f"{op}: {copy_why(plan.why)}")
        if plan.__class__ is L.ReshapeRefusal:
            raise view_refused(plan, L.layout_origin(self._layout), self._dtype.itemsize)
        raise error(plan)

    @records("view")
    def view(self, *shape: Any, dtype: Any = None) -> Tensor:
        """The same elements as ``shape`` without copying; refuses when the strides cannot express it.

        ``view(dtype)`` reads the same bytes as another dtype (PyTorch's rules: see
        :func:`strided.layout.dtype_view.view_dtype_layout`).

        >>> x = strided.arange(12).view(3, 4)
        >>> x.shape, x.stride(), x.view(2, 6).stride()
        ((3, 4), (4, 1), (6, 1))
        """
        if self._ag is not None and not INSIDE.get():  # its own recording entry (autograd's slow path)
            return record("view", Tensor.view, (self, *shape), {"dtype": dtype} if dtype is not None else {})
        if not shape or dtype is not None:
            if dtype is not None:
                return _view_dtype(self, shape, dtype)
            raise missing("view", "size")
        lay = self._layout
        given = shape  # (parse_sizes unwraps it once: view(((4, 6),)) is refused, as PyTorch does)
        if len(shape) == 1 and shape[0].__class__ is tuple:
            shape = shape[0]
        key = ("view", lay.shape, lay.strides, lay.offset, shape)
        for n in shape:
            if n.__class__ is not int:
                key = None
                break
        else:
            found = _VIEWS.get(key)
            if found is not None:
                return self._view(found)
        if given[0].__class__ is DType:  # view(dtype): off the memo's path (a dtype is no size)
            return _view_dtype(self, given, None)
        return self._carry(P.view(lay, parse_sizes(given, "view")), key)

    def view_as(self, other: Tensor) -> Tensor:
        """A view with ``other``'s shape: ``view(other.shape)``.

        >>> strided.arange(6).view_as(strided.zeros(2, 3)).shape
        (2, 3)
        """
        return self.view(tensor_arg(other, "view_as", "other").shape)

    backward("view", "view_as")(_reshaped_back("ViewBackward0"))

    @records("reshape")
    def reshape(self, *shape: Any) -> Tensor:
        """A view when PyTorch's computeStride allows it, otherwise a contiguous copy.

        >>> x = strided.arange(6).view(2, 3)
        >>> strided.shares_memory(x.reshape(3, 2), x), strided.shares_memory(x.t().reshape(6), x)
        (True, False)
        """
        if self._ag is not None and not INSIDE.get():  # its own recording entry (autograd's slow path)
            return record("reshape", Tensor.reshape, (self, *shape), {})
        if not shape:
            raise missing("reshape", "shape")
        lay = self._layout
        given = shape
        if len(shape) == 1 and shape[0].__class__ is tuple:
            shape = shape[0]
        key = ("view", lay.shape, lay.strides, lay.offset, shape)  # a reshape's view is view's
        for n in shape:
            if n.__class__ is not int:
                key = None
                break
        else:
            found = _VIEWS.get(key)
            if found is not None:
                return self._view(found)
        sizes = parse_sizes(given, "reshape")
        plan = P.reshape(lay, sizes, itemsize=self._dtype.itemsize)
        op = f"reshape({', '.join(map(str, plan.layout.shape))})" if plan.__class__ is Copy else ""
        return self._carry(plan, key, op)

    def reshape_as(self, other: Tensor) -> Tensor:
        """``reshape(other.shape)``: a view when the strides allow it, else a copy.

        >>> strided.arange(6).reshape_as(strided.zeros(3, 2)).shape
        (3, 2)
        """
        return self.reshape(tensor_arg(other, "reshape_as", "other").shape)

    @staticmethod
    def _reshape_node(out: Tensor, x: Tensor, args: tuple, kwargs: dict) -> str:
        # a reshape PyTorch does as a copy shows as UnsafeViewBackward0 (over a CloneBackward0 in
        # PyTorch: # Note: strided records the copy and the view as one node)
        return "ViewBackward0" if out._storage is x._storage else "UnsafeViewBackward0"

    backward("reshape", "reshape_as", "flatten")(_reshaped_back(_reshape_node))

    @records("flatten")
    def flatten(self, start_dim: int = 0, end_dim: int = -1) -> Tensor:
        """Merge dims ``start_dim..end_dim``; returns ``self`` when there is nothing to merge.

        >>> strided.zeros(2, 3, 4).flatten(1).shape
        (2, 12)
        """
        if self._ag is not None and not INSIDE.get():  # its own recording entry (autograd's slow path)
            return record("flatten", Tensor.flatten, (self, start_dim, end_dim), {})
        lay = self._layout
        key = None
        if start_dim.__class__ is int and end_dim.__class__ is int:
            key = ("flatten", lay.shape, lay.strides, lay.offset, start_dim, end_dim)
            found = _VIEWS.get(key)
            if found is not None:
                return self._view(found)
        plan = P.flatten(lay, start_dim, end_dim, itemsize=self._dtype.itemsize)
        if plan.__class__ is View and plan[0] is lay:
            return self  # nothing merges (as PyTorch: the tensor itself, not a view)
        return self._carry(plan, key, f"flatten({start_dim}, {end_dim})")

    @records("unflatten")
    def unflatten(self, dim: int, sizes: Sequence[int]) -> Tensor:
        """Split one dim into ``sizes`` (one -1 may be inferred); always a view.

        >>> strided.zeros(2, 12).unflatten(1, (3, -1)).shape
        (2, 3, 4)
        """
        if self._ag is not None and not INSIDE.get():  # its own recording entry (autograd's slow path)
            return record("unflatten", Tensor.unflatten, (self, dim, sizes), {})
        lay = self._layout
        key = None
        if dim.__class__ is int and sizes.__class__ is tuple:
            key = ("unflatten", lay.shape, lay.strides, lay.offset, dim, sizes)
            for n in sizes:
                if n.__class__ is not int:
                    key = None
                    break
            else:
                found = _VIEWS.get(key)
                if found is not None:
                    return self._view(found)
        # PyTorch reads and checks the sizes before the dim
        return self._carry(P.unflatten(lay, dim, unflatten_sizes(sizes, dim, lay.shape)), key)

    backward("unflatten")(_reshaped_back("ViewBackward0"))

    @records("permute")
    def permute(self, *dims: Any) -> Tensor:
        """The dims reordered: a view whose shape and strides are this one's in ``dims`` order.

        >>> strided.zeros(2, 3, 4).permute(2, 0, 1).stride()
        (1, 12, 4)
        """
        if self._ag is not None and not INSIDE.get():  # its own recording entry (autograd's slow path)
            return record("permute", Tensor.permute, (self, *dims), {})
        lay = self._layout
        key = ("permute", lay.shape, lay.strides, lay.offset, dims)
        for d in dims:
            if d.__class__ is not int:
                key = None
                break
        else:
            found = _VIEWS.get(key)
            if found is not None:
                return self._view(found)
        if not dims:
            raise missing("permute", "dims")
        return self._carry(L.permute_layout(lay, dims_arg(dims)), key)

    @staticmethod
    @backward("permute")
    def _permute_backward(out: Tensor, x: Tensor, *args: Any) -> Any:
        dims = args[0] if len(args) == 1 and isinstance(args[0], (tuple, list)) else args
        n = len(x._layout.shape)
        return _permuted_back(out, x, [d % n if n else 0 for d in dims])

    @records("transpose")
    def transpose(self, dim0: int, dim1: int) -> Tensor:
        """Dims ``dim0`` and ``dim1`` swapped: a view.

        >>> strided.zeros(2, 3, 4).transpose(0, 2).shape
        (4, 3, 2)
        """
        if self._ag is not None and not INSIDE.get():  # its own recording entry (autograd's slow path)
            return record("transpose", Tensor.transpose, (self, dim0, dim1), {})
        lay = self._layout
        key = None
        if dim0.__class__ is int and dim1.__class__ is int:
            key = ("transpose", lay.shape, lay.strides, lay.offset, dim0, dim1)
            found = _VIEWS.get(key)
            if found is not None:
                return self._view(found)
        return self._carry(L.transpose_layout(lay, dim0, dim1), key)

    swapaxes = transpose
    swapdims = transpose

    @staticmethod
    @backward("transpose", "swapaxes", "swapdims")
    def _transpose_backward(out: Tensor, x: Tensor, dim0: int, dim1: int) -> Any:
        return "TransposeBackward0", (x,), lambda g: (g.transpose(dim0, dim1),), ()

    @records("t")
    def t(self) -> Tensor:
        """The transpose of a tensor of at most 2 dims: a view.

        >>> strided.arange(6).view(2, 3).t().stride()
        (1, 3)
        """
        if self._ag is not None and not INSIDE.get():  # its own recording entry (autograd's slow path)
            return record("t", Tensor.t, (self,), {})
        ndim = len(self._layout.shape)
        if ndim > 2:
            raise t_error(ndim)
        return self.transpose(0, 1) if ndim == 2 else self._view(self._layout)

    @staticmethod
    @backward("t")
    def _t_backward(out: Tensor, x: Tensor) -> Any:
        return "TBackward0", (x,), lambda g: (g.t(),), ()

    @property
    def T(self) -> Tensor:
        """All dims reversed; for ndim other than 2 PyTorch deprecates it, and we warn as it does.

        >>> strided.zeros(2, 3).T.shape
        (3, 2)
        """
        lay = self._layout
        if len(lay.shape) != 2:
            warnings.warn(transpose_deprecated(lay.shape, "T"), UserWarning, stacklevel=2)
        return self._view(P.reverse(lay)[0])

    @staticmethod
    @backward("T", operands="property")
    def _T_backward(out: Tensor, x: Tensor) -> Any:  # all dims reversed
        n = len(x._layout.shape)
        return _permuted_back(out, x, range(n - 1, -1, -1))

    @property
    def mT(self) -> Tensor:
        """The last two dims swapped.

        >>> strided.zeros(5, 2, 3).mT.shape
        (5, 3, 2)
        """
        shape = self._layout.shape
        if not shape:  # PyTorch 2.13: the identity (the tensor itself), with a deprecation warning
            warnings.warn(transpose_deprecated(shape, "mT"), UserWarning, stacklevel=2)
            return self
        if len(shape) < 2:
            raise mt_error(shape)
        return self.transpose(-2, -1)

    @staticmethod
    @backward("mT", operands="property")
    def _mT_backward(out: Tensor, x: Tensor) -> Any:
        if out is x:
            return None
        return "TransposeBackward0", (x,), lambda g: (g.transpose(-2, -1),), ()

    def movedim(self, source: Any, destination: Any) -> Tensor:
        """Dim(s) ``source`` moved to ``destination``, the others kept in order: a view.

        >>> strided.zeros(2, 3, 4).movedim(0, -1).shape
        (3, 4, 2)
        """
        if isinstance(source, (tuple, list)) != isinstance(destination, (tuple, list)):
            # PyTorch's two overloads take (int, int) or (tuple, tuple), never one of each
            raise StridedTypeError(
                f"movedim() received an invalid combination of arguments - got ({type_name(source)}, "
                f"{type_name(destination)}), but expected one of:\n"
                " * (tuple of ints source, tuple of ints destination)\n"
                " * (int source, int destination)\n"
                "  give both as ints or both as tuples: movedim((0,), (1,)) or movedim(0, 1)"
            )
        src = tuple(source) if isinstance(source, (tuple, list)) else (source,)
        dst = tuple(destination) if isinstance(destination, (tuple, list)) else (destination,)
        return self._carry(L.movedim_layout(self._layout, src, dst))

    moveaxis = movedim

    @staticmethod
    @backward("movedim", "moveaxis")
    def _movedim_backward(out: Tensor, x: Tensor, source: Any, destination: Any) -> Any:
        n = len(x._layout.shape)
        src = [s % n for s in (source if isinstance(source, (tuple, list)) else (source,))]
        dst = [d % n for d in (destination if isinstance(destination, (tuple, list)) else (destination,))]
        order: list[Any] = [None] * n
        for s, d in zip(src, dst):
            order[d] = s
        rest = iter(i for i in range(n) if i not in src)
        return _permuted_back(out, x, [o if o is not None else next(rest) for o in order])

    @records("expand")
    def expand(self, *sizes: Any) -> Tensor:
        """Stretch size-1 dims (stride 0) and add leading dims; -1 keeps a size.

        >>> y = strided.arange(3).expand(2, 3)
        >>> y.stride(), y.tolist()
        ((0, 1), [[0, 1, 2], [0, 1, 2]])
        """
        if self._ag is not None and not INSIDE.get():  # its own recording entry (autograd's slow path)
            return record("expand", Tensor.expand, (self, *sizes), {})
        if not sizes:
            raise missing("expand", "size")
        lay = self._layout
        given = sizes
        if len(sizes) == 1 and sizes[0].__class__ is tuple:
            sizes = sizes[0]
        key = ("expand", lay.shape, lay.strides, lay.offset, sizes)
        for n in sizes:
            if n.__class__ is not int:
                key = None
                break
        else:
            found = _VIEWS.get(key)
            if found is not None:
                return self._view(found)
        return self._carry(L.expand_layout(lay, parse_sizes(given, "expand")), key)

    def expand_as(self, other: Tensor) -> Tensor:
        """``expand(other.shape)``: size-1 dims stretched with stride 0, a view.

        >>> strided.zeros(3, 1).expand_as(strided.zeros(3, 4)).stride()
        (1, 0)
        """
        return self.expand(tensor_arg(other, "expand_as", "other").shape)

    @records("broadcast_to")
    def broadcast_to(self, *shape: Any) -> Tensor:
        """``expand(shape)``, as ``torch.broadcast_to``: a view.

        >>> strided.arange(3).broadcast_to((2, 3)).stride()
        (0, 1)
        """
        if self._ag is not None and not INSIDE.get():  # its own recording entry (autograd's slow path)
            return record("broadcast_to", Tensor.broadcast_to, (self, *shape), {})
        if not shape:
            raise missing("broadcast_to", "size")
        return self.expand(*shape)

    @staticmethod
    @backward("expand", "expand_as", "broadcast_to")
    def _expand_backward(out: Tensor, x: Tensor, *args: Any, **kwargs: Any) -> Any:
        shape = x._layout.shape
        return "ExpandBackward0", (x,), lambda g: (sum_to(g, shape),), ()

    @records("unsqueeze")
    def unsqueeze(self, dim: int) -> Tensor:
        """A size-1 dim inserted at ``dim``: a view.

        >>> strided.zeros(2, 3).unsqueeze(1).shape
        (2, 1, 3)
        """
        if self._ag is not None and not INSIDE.get():  # its own recording entry (autograd's slow path)
            return record("unsqueeze", Tensor.unsqueeze, (self, dim), {})
        lay = self._layout
        key = None
        if dim.__class__ is int:
            key = ("unsqueeze", lay.shape, lay.strides, lay.offset, dim)
            found = _VIEWS.get(key)
            if found is not None:
                return self._view(found)
        return self._carry(L.unsqueeze_layout(lay, dim), key)

    backward("unsqueeze")(_reshaped_back("UnsqueezeBackward0"))

    @records("squeeze")
    def squeeze(self, dim: int | Sequence[int] | None = None) -> Tensor:
        """Size-1 dims removed (all of them, or those named by ``dim``): a view.

        >>> x = strided.zeros(2, 1, 3, 1)
        >>> x.squeeze().shape, x.squeeze(1).shape
        ((2, 3), (2, 3, 1))
        """
        if self._ag is not None and not INSIDE.get():  # its own recording entry (autograd's slow path)
            return record("squeeze", Tensor.squeeze, (self, dim), {})
        lay = self._layout
        key = None
        if dim is None or dim.__class__ is int:
            key = ("squeeze", lay.shape, lay.strides, lay.offset, dim)
            found = _VIEWS.get(key)
            if found is not None:
                return self._view(found)
        dims = dim if dim is None else tuple(dim) if isinstance(dim, (tuple, list)) else (dim,)
        return self._carry(L.squeeze_layout(lay, dims), key)

    @staticmethod
    def _squeeze_node(out: Tensor, x: Tensor, args: tuple, kwargs: dict) -> str:
        dim = args[0] if args else kwargs.get("dim")
        if dim is None:
            return "SqueezeBackward0"
        return "SqueezeBackward2" if isinstance(dim, (tuple, list)) else "SqueezeBackward1"

    backward("squeeze")(_reshaped_back(_squeeze_node))

    @records("narrow")
    def narrow(self, dim: int, start: int, length: int) -> Tensor:
        """``length`` elements of ``dim`` from ``start``: a view.

        >>> strided.arange(10).narrow(0, 2, 3).tolist()
        [2, 3, 4]
        """
        if self._ag is not None and not INSIDE.get():  # its own recording entry (autograd's slow path)
            return record("narrow", Tensor.narrow, (self, dim, start, length), {})
        lay = self._layout
        key = None
        if dim.__class__ is int and start.__class__ is int and length.__class__ is int:
            key = ("narrow", lay.shape, lay.strides, lay.offset, dim, start, length)
            found = _VIEWS.get(key)
            if found is not None:
                return self._view(found)
        if isinstance(start, Tensor):  # narrow's Tensor overload: 0-d integral only (PyTorch)
            start = narrow_tensor_start(start)
        start = int_arg(start, "narrow", "start", 2, size=True)
        length = int_arg(length, "narrow", "length", 3, size=True)
        return self._carry(L.narrow_layout(lay, dim, start, length), key)

    backward("narrow")(_scattered_back("SliceBackward0", "narrow"))

    @records("select")
    def select(self, dim: int, index: int) -> Tensor:
        """Element ``index`` of ``dim``, that dim removed: a view (``t[:, i]`` for dim 1).

        >>> strided.arange(6).view(2, 3).select(1, 2).tolist()
        [2, 5]
        """
        if self._ag is not None and not INSIDE.get():  # its own recording entry (autograd's slow path)
            return record("select", Tensor.select, (self, dim, index), {})
        lay = self._layout
        key = None
        if dim.__class__ is int and index.__class__ is int:
            key = ("select", lay.shape, lay.strides, lay.offset, dim, index)
            found = _VIEWS.get(key)
            if found is not None:
                return self._view(found)
        else:
            index = int_arg(index, "select", "index", 2, size=True)
        return self._carry(L.select_layout(lay, dim, index), key)

    backward("select")(_scattered_back("SelectBackward0", "select"))

    def split(self, split_size: int | Sequence[int], dim: int = 0) -> tuple[Tensor, ...]:
        """Pieces of ``split_size`` along ``dim`` (the last may be smaller), or of the given sizes.

        >>> [p.tolist() for p in strided.arange(5).split(2)]
        [[0, 1], [2, 3], [4]]
        """
        shape = self._layout.shape
        check_not_0d(shape, "split")
        step = split_step(split_size, dim, shape)  # PyTorch checks split_size before the dim
        d = L.wrap_dim(dim, len(shape))
        return self._pieces(d, split_sizes(split_size, step, d, shape))

    def _pieces(self, d: int, sizes: Sequence[int]) -> tuple[Tensor, ...]:
        """Consecutive narrow views of ``sizes`` along dim ``d``."""
        out = []
        start = 0
        for s in sizes:
            out.append(self._carry(L.narrow_layout(self._layout, d, start, s)))
            start += s
        return tuple(out)

    def chunk(self, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
        """At most ``chunks`` pieces of equal size (the last may be smaller).

        >>> [p.shape for p in strided.zeros(5, 2).chunk(2)]
        [(3, 2), (2, 2)]
        """
        shape = self._layout.shape
        chunks = chunk_count(chunks, dim, shape)
        d = L.wrap_dim(dim, len(shape))
        size = shape[d]
        step = (size + chunks - 1) // chunks
        if step == 0 and size == 0:
            check_piece_count(chunks, "chunk", shape, d)
            return self._pieces(d, (0,) * chunks)
        return self.split(step, d)

    def unbind(self, dim: int = 0) -> tuple[Tensor, ...]:
        """The slices along ``dim``, that dim removed: views.

        >>> [r.tolist() for r in strided.arange(4).view(2, 2).unbind()]
        [[0, 1], [2, 3]]
        """
        shape = self._layout.shape
        if not shape:
            raise unbind_0d_error()
        d = L.wrap_dim(dim, len(shape))
        check_piece_count(shape[d], "unbind", shape, d)
        return tuple(self._carry(L.select_layout(self._layout, d, i)) for i in range(shape[d]))

    backward("split", "chunk")(_pieces_back("SplitBackward0"))
    backward("unbind")(_pieces_back("UnbindBackward0"))

    @records("diagonal")
    def diagonal(self, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
        """The diagonal of dims ``dim1`` and ``dim2`` (shifted by ``offset``) as the last dim: a view.

        >>> x = strided.arange(9).view(3, 3)
        >>> x.diagonal().tolist(), x.diagonal(1).tolist()
        ([0, 4, 8], [1, 5])
        """
        if self._ag is not None and not INSIDE.get():  # its own recording entry (autograd's slow path)
            return record("diagonal", Tensor.diagonal, (self, offset, dim1, dim2), {})
        lay = self._layout
        key = None
        if offset.__class__ is int and dim1.__class__ is int and dim2.__class__ is int:
            key = ("diagonal", lay.shape, lay.strides, lay.offset, offset, dim1, dim2)
            found = _VIEWS.get(key)
            if found is not None:
                return self._view(found)
        offset = int_arg(offset, "diagonal", "offset", 1)
        return self._carry(L.diagonal_layout(lay, offset, dim1, dim2), key)

    backward("diagonal")(_scattered_back("DiagonalBackward0", "diagonal"))

    def unfold(self, dimension: int, size: int, step: int) -> Tensor:
        """Windows of ``size`` elements every ``step`` along ``dimension``, as a new last dim: a view.

        >>> w = strided.arange(5).unfold(0, 3, 1)
        >>> w.tolist(), w.stride()
        ([[0, 1, 2], [1, 2, 3], [2, 3, 4]], (1, 1))
        """
        size = int_arg(size, "unfold", "size", 2)
        step = int_arg(step, "unfold", "step", 3)
        return self._carry(L.unfold_layout(self._layout, dimension, size, step))

    backward("unfold")(_scattered_back("UnfoldBackward0", "unfold"))

    def as_strided(self, size: Sequence[int], stride: Sequence[int], storage_offset: int | None = None) -> Tensor:
        """Any layout over this storage, checked against every Layout invariant and the storage's bounds.

        >>> strided.arange(6).as_strided((2, 2), (1, 2), 1).tolist()
        [[1, 3], [2, 4]]
        """
        offset = self._layout.offset if storage_offset is None else storage_offset
        shape, strides, offset = L.normalize_layout_args(size, stride, offset)
        plan = P.as_strided(shape, strides, offset, storage_size=self._storage.size(),
                            itemsize=self._dtype.itemsize)
        return self._carry(plan)

    @staticmethod
    @backward("as_strided")
    def _as_strided_backward(out: Tensor, x: Tensor, *args: Any, **kwargs: Any) -> Any:
        """PyTorch's as_strided_backward: a zero buffer over the storage's elements, the incoming
        gradient added at the view's positions (overlapping ones accumulate), then read back
        through the input's layout; where the input itself reads an element several times, each
        reading gets the element's gradient divided by their count."""
        xl, ol = x._layout, out._layout
        n = x._storage.array.shape[0]
        return "AsStridedBackward0", (x,), lambda g: (restrided(g, ol, xl, xl, n),), ()

    @records("__getitem__")
    def __getitem__(self, key: Any) -> Tensor:
        # basic indexing always plans a View (plans.index); its layout is index_layout's. An
        # advanced key (index_layout meets a tensor, list, array or bool) is a copy, made by
        # strided.ops.advanced_indexing: the try costs the basic path nothing.
        if self._ag is not None and not INSIDE.get():  # its own recording entry (autograd's slow path)
            return record("__getitem__", Tensor.__getitem__, (self, key), {})
        try:
            return self._view(index_layout(self._layout, key))
        except AdvancedIndex:
            return ADVANCED_INDEXING["getitem"](self, key)

    @staticmethod
    def _index_node(args: tuple) -> str:
        """PyTorch's node for a basic index: the last step it records (``x[1, 1:3]`` is a
        select, then a slice: SliceBackward0).

        # Note: PyTorch records one node per step of a compound index; strided records one node
        # (the whole key is one view), named after PyTorch's last step.
        """
        steps = args[0] if isinstance(args[0], tuple) else (args[0],)
        last: Any = Ellipsis
        for k in steps:
            if k is not Ellipsis:
                last = k
        if last is Ellipsis:
            return "AliasBackward0"
        if isinstance(last, slice):
            return "SliceBackward0"
        if last is None or last is True or last is False:
            return "UnsqueezeBackward0"
        return "SelectBackward0"

    backward("__getitem__")(_scattered_back(_index_node, "__getitem__"))

    # ------------------------------------------------------------ copies

    def _materialize(self, plan: Copy, reason: Any, dtype: DType | None = None) -> Tensor:
        """Carry out a Copy plan through the one copy kernel: read ``plan.read``, write it densely
        with ``plan.strides`` and return the result laid out as ``plan.layout`` (listeners get
        ``reason`` and the plan's ``why``)."""
        return copy_of(self, plan.strides, reason, dtype, read=plan.read, layout=plan.layout, why=plan.why)

    def contiguous(self, memory_format: MemoryFormat = contiguous_format) -> Tensor:
        """``self`` if already contiguous in ``memory_format``; otherwise a dense copy.

        >>> x = strided.zeros(2, 3)
        >>> x.contiguous() is x, x.t().contiguous().stride()
        (True, (2, 1))
        """
        lay = self._layout
        if memory_format is contiguous_format or memory_format is preserve_format:
            if _is_contiguous(lay.shape, lay.strides):
                # the plan's first answer (a View of the layout itself), asked cheaply; PyTorch
                # returns a contiguous tensor itself for preserve_format too, and refuses only
                # the non-contiguous ones (below)
                return self
        if not is_dense_format(memory_format):
            raise memory_format_error(memory_format, "contiguous")
        plan = P.contiguous(lay, memory_format.name, itemsize=self._dtype.itemsize)
        if plan.__class__ is Copy:
            return self._materialize(plan, "contiguous()" if memory_format is contiguous_format
                                     else f"contiguous({memory_format.name})")
        if plan.__class__ is View:
            return self
        raise error(plan)

    def clone(self, memory_format: MemoryFormat = preserve_format) -> Tensor:
        """A copy in new storage; ``preserve_format`` keeps dense strides, as PyTorch does.

        >>> x = strided.zeros(2, 3).t()
        >>> y = x.clone()
        >>> y.stride(), strided.shares_memory(x, y)
        ((1, 3), False)
        """
        if memory_format is not preserve_format and not is_dense_format(memory_format):
            raise memory_format_error(memory_format, "clone")
        plan = P.clone(self._layout, memory_format.name, itemsize=self._dtype.itemsize)
        if plan.__class__ is not Copy:
            raise error(plan)
        return self._materialize(plan, "clone()")

    @staticmethod
    @backward("contiguous", "clone")
    def _clone_backward(out: Tensor, x: Tensor, *args: Any, **kwargs: Any) -> Any:
        if out is x:
            return None  # contiguous() of a contiguous tensor: the tensor itself, no node
        return "CloneBackward0", (x,), lambda g: (g,), ()

    def _format_strides(self, memory_format: MemoryFormat) -> tuple[int, ...]:
        """Dense strides of this shape in ``memory_format`` (``empty_like``'s rule)."""
        if memory_format is not preserve_format and not is_dense_format(memory_format):
            raise memory_format_error(memory_format, "clone")
        plan = P.clone(self._layout, memory_format.name, itemsize=self._dtype.itemsize)
        if plan.__class__ is not Copy:
            raise error(plan)
        return plan.strides

    def to(self, dtype: Any, copy: bool = False) -> Tensor:
        """This tensor in ``dtype`` (or in ``other``'s dtype, for ``to(other)``): ``self`` when
        already so (unless ``copy=True``), else a copy.

        >>> x = strided.zeros(2)
        >>> x.to(strided.float32) is x, x.to(strided.int64).dtype
        (True, strided.int64)
        """
        target = dtype._dtype if isinstance(dtype, Tensor) else to_dtype(dtype)
        if target is self._dtype and not copy:
            return self
        return self._materialize(P.to(self._layout, itemsize=target.itemsize), f"to({target.name})", target)

    def ravel(self) -> Tensor:
        """PyTorch's ravel: ``contiguous().view(-1)``.

        >>> strided.arange(6).view(2, 3).t().ravel().tolist()
        [0, 3, 1, 4, 2, 5]
        """
        return self.contiguous().view(-1)

    def numpy(self) -> np.ndarray:
        """A zero-copy, writable NumPy array over the same memory.

        From now on the storage cannot be reallocated (``resize_`` beyond it is refused), as in
        PyTorch: the array would silently keep the old buffer.

        >>> x = strided.zeros(3)
        >>> a = x.numpy()
        >>> a[0] = 5.0
        >>> x[0].item()
        5.0
        """
        refuse_numpy(self, "t.numpy()")
        self._storage.mark_exported("t.numpy()")
        return self._np()

    def tolist(self) -> Any:
        """The elements as nested Python lists (a Python number for a 0-d tensor).

        >>> strided.arange(4).view(2, 2).tolist(), strided.tensor(2.5).tolist()
        ([[0, 1], [2, 3]], 2.5)
        """
        return self._np().tolist()

    def item(self) -> Any:
        """The one element as a Python number.

        >>> strided.tensor([[7]]).item()
        7
        """
        n = self.numel()
        if n != 1:
            raise item_error(self._layout.shape)
        return self._np().reshape(()).item()

    def __bool__(self) -> bool:
        n = self.numel()
        if n != 1:
            raise bool_error(self._layout.shape)
        return bool(self.item())

    def __float__(self) -> float:
        return float(_real_item(self.item(), "double"))

    def __int__(self) -> int:
        return int(_real_item(self.item(), "int64_t"))

    def __complex__(self) -> complex:
        return complex(self.item())

    def __index__(self) -> int:
        if self._dtype.kind in "fc" or self.numel() != 1:
            raise index_error(self._dtype.name, self._layout.shape)
        return int(self.item())


def _real_item(value: Any, c_name: str) -> Any:
    """A complex element converted to a real Python number as PyTorch converts it: only with a
    zero imaginary part."""
    if value.__class__ is complex:
        if value.imag:
            raise StridedRuntimeError(join_lines(
                f"value cannot be converted to type {c_name} without overflow",
                f"the element is {value!r}; a real number cannot hold its imaginary part",
                "fix: take a part first: float(t.real) or abs(t.item())"))
        return value.real
    return value


def _view_dtype(self: Tensor, shape: tuple, dtype: Any) -> Tensor:
    """``self.view(dtype)``: the same bytes as ``dtype``, through the one reinterpreting primitive."""
    if dtype is None:
        if len(shape) != 1:
            raise StridedTypeError(f"view() takes one dtype or sizes, got {len(shape)} arguments")
        dtype = shape[0]
    elif shape:
        raise StridedTypeError("view() got a dtype and sizes; pass one: view(dtype) or view(*sizes)")
    new = to_dtype(dtype)
    lay = self._layout
    plan = view_dtype_layout(lay, self._dtype.itemsize, new.itemsize, TORCH_NAME[self._dtype.name],
                             TORCH_NAME[new.name])
    if plan.__class__ is not Layout:
        fix = {"dim": f"fix: x.view(1).view(strided.{new.name}) gives it a last dim first",
               "size": f"fix: narrow the last dim to a multiple of {new.itemsize // self._dtype.itemsize} elements",
               "offset": f"fix: x.clone().view(strided.{new.name}) reads a fresh copy's bytes (offset 0)",
               }.get(plan.check, f"fix: x.contiguous().view(strided.{new.name}) reads a contiguous copy's bytes")
        raise StridedRuntimeError(join_lines(
            plan.first,
            f"x: shape {lay.shape}, strides {lay.strides}, offset {lay.offset} ({self._dtype.name}, "
            f"{self._dtype.itemsize} bytes each), read as {new.name} ({new.itemsize} bytes): {plan.why}",
            fix))
    return reinterpreted(self, new, plan)


F = TypeVar("F", bound=Callable)


def installs_as(*names: str) -> Callable[[F], F]:
    """Decorator: install the function as ``Tensor.<name>`` for each name, for the modules above
    this one that give Tensor its methods (``writes``, ``ops``: ``@installs_as("add", "__add__")``)."""

    def install(fn: F) -> F:
        for name in names:
            setattr(Tensor, name, fn)
        return fn

    return install


use_tensor_class(Tensor)  # (the recording entries' first test: ``x.__class__ is Tensor``)


seal(globals())  # the view methods registered their rules in the class body: they become entries here
