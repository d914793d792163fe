"""Kernels: the only code that touches element data.

One module per job:

- :mod:`.memory` — NumPy views over storage, THE allocation (:func:`new_storage`),
  THE copy (:func:`copy_to_new`) and its ledger, checked writes, growing a storage;
- :mod:`.fill` — filling a fresh tensor (constants, ``arange``);
- :mod:`.elementwise` — binary/unary/ternary elementwise compute into an output;
- :mod:`.reduce` — sums, means, variances, extrema, arg-extrema, softmax;
- :mod:`.matmul` — matrix products.

Every kernel takes NumPy views over storage (read in place, whatever their strides)
and writes into an output the caller allocated with :func:`new_storage`.
"""

from .memory import (
    CopyRecord,
    check_writable,
    copy_array,
    copy_to_new,
    grow_storage,
    new_storage,
    numpy_view,
    record_copies,
    write,
)

__all__ = [
    "CopyRecord",
    "check_writable",
    "copy_array",
    "copy_to_new",
    "grow_storage",
    "new_storage",
    "numpy_view",
    "record_copies",
    "write",
]
