"""The layout algebra: pure functions over (shape, strides, offset), counted in elements.

No NumPy and no data live here. Every movement op is a function ``Layout -> Layout``;
a reshape the strides cannot express returns a :class:`ReshapeRefusal` that says why.

- :mod:`.core`: the Layout value and its invariants (``check_layout``), dense strides, contiguity/overlap predicates, dims and sizes
- :mod:`.order`: PyTorch's stride-order inference (``clone``, ``empty_like``, TensorIterator outputs)
- :mod:`.reshape`: reshape as a view, PyTorch's and NumPy's rules side by side
- :mod:`.movement`: permute, transpose, expand, squeeze, select, narrow, diagonal, unfold, ...
- :mod:`.words`: a layout described for people

Everything is re-exported here, so ``from strided import layout as L; L.expand(...)`` works.
"""

from .core import (  # noqa: F401
    INT64_MAX,
    MAX_DIMS,
    BroadcastMismatch,
    Layout,
    Shape,
    _as_int,
    _contiguous_strides,
    _is_index_scalar,
    broadcast_pair,
    channels_last_strides,
    check_layout,
    check_numel,
    contiguous_strides,
    fit_int64,
    fortran_strides,
    has_internal_overlap,
    index_of,
    index_span,
    infer_size,
    is_channels_last_contiguous,
    is_contiguous,
    is_f_contiguous,
    is_non_overlapping_and_dense,
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
    expand,
    movedim,
    narrow,
    permute,
    select,
    slice_dim,
    squeeze,
    transpose,
    unfold,
    unsqueeze,
)
from .order import (  # noqa: F401
    _keeps_row_major,
    elementwise_output_strides,
    infer_dense_strides,
    preserve_format_strides,
)
from .reshape import (  # noqa: F401
    ReshapeRefusal,
    numpy_keep_order,
    numpy_view_strides,
    plan_view,
    torch_view_strides,
)
from .words import (  # noqa: F401
    layout_origin,
)
