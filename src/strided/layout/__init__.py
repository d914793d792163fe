"""The layout algebra: pure functions over (shape, strides, offset), counted in elements.

No NumPy and no data live here. Every movement op is a function ``Layout -> Layout``;
a reshape the strides cannot express returns a :class:`ReshapeRefusal` that says why.
Every decision is also a plan (:mod:`.plans`): ``View(layout)``, ``Copy(...)`` or a refusal.

- :mod:`.refusals`: why an operation cannot be done, as small frozen values (and ``OverlapStatus``)
- :mod:`.plans`: one pure plan per layout operation and flavour (PyTorch's, NumPy's)
- :mod:`.core`: the Layout value and its invariants (``check_layout``), dense strides, contiguity/overlap predicates, dims and sizes
- :mod:`.order`: PyTorch's stride-order inference (``clone``, ``empty_like``, TensorIterator outputs)
- :mod:`.reshape`: reshape as a view, PyTorch's and NumPy's rules side by side
- :mod:`.movement`: permute, transpose, expand, squeeze, select, narrow, diagonal, unfold, ...
- :mod:`.words`: a layout described for people

Everything is re-exported here, so ``from strided import layout as L; L.expand(...)`` works.
"""

from ..refusals import (  # noqa: F401
    AmbiguousInferred,
    BroadcastMismatch,
    CopyRequested,
    DimOutOfRange,
    ExpandNewDimInferred,
    ExpandRefusal,
    ExpandTooFewSizes,
    IndexOutOfRange,
    InternalOverlap,
    InvalidSize,
    MovedimLength,
    MultipleInferred,
    NarrowRefusal,
    NegativeSize,
    NoCopyRefusal,
    NotContiguous,
    NumelMismatch,
    NumelOverflow,
    NumpyAxisRefusal,
    NumpyBroadcastRefusal,
    NumpyReshapeRefusal,
    OverlapStatus,
    PermuteLength,
    Refusal,
    RepeatedDims,
    ReshapeRefusal,
    SameDims,
    Shape,
    TooManyDims,
    UnfoldRefusal,
    ZeroDimRefusal,
    ZeroStep,
)
from . import plans  # noqa: F401
from .core import (  # noqa: F401
    INT64_MAX,
    MAX_DIMS,
    Layout,
    _as_int,
    _contiguous_strides,
    _is_index_scalar,
    broadcast_pair,
    channels_last_strides,
    check_layout,
    check_numel,
    check_strides_fit,
    contiguous_strides,
    dim_in_range,
    fit_int64,
    fortran_strides,
    has_internal_overlap,
    index_of,
    index_span,
    infer_shape,
    infer_size,
    internal_overlap,
    is_channels_last_contiguous,
    is_contiguous,
    is_f_contiguous,
    is_non_overlapping_and_dense,
    nests,
    normalize_layout_args,
    numel_overflow,
    overlap_status,
    overlaps,
    product,
    storage_extent,
    too_many_dims,
    without_repeats,
    wrap_dim,
    wrap_dims,
)
from .movement import (  # noqa: F401
    _RANGES,
    _expand_fix,
    _permute_checked,
    diagonal,
    diagonal_layout,
    expand,
    expand_layout,
    movedim,
    movedim_layout,
    narrow,
    narrow_layout,
    permute,
    permute_layout,
    select,
    select_layout,
    slice_dim,
    slice_layout,
    squeeze,
    squeeze_layout,
    transpose,
    transpose_layout,
    unfold,
    unfold_layout,
    unsqueeze,
    unsqueeze_layout,
)
from .order import (  # noqa: F401
    _keeps_row_major,
    elementwise_output_strides,
    infer_dense_strides,
    numpy_elementwise_output_strides,
    preserve_format_strides,
    reordered_output_strides,
)
from .plans import Copy, View  # noqa: F401
from .reshape import (  # noqa: F401
    numpy_keep_order,
    numpy_view_strides,
    plan_view,
    resolve_view,
    torch_view_strides,
)
from .words import (  # noqa: F401
    layout_origin,
)
