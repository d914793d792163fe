"""NumPy's C functions without the ``__array_function__`` dispatch in front of them.

``np.dot``, ``np.count_nonzero`` and most of NumPy's functions are dispatchers: each call first
runs a Python function that names the arguments to search for ``__array_function__`` overrides
(``np.count_nonzero`` is a Python function around its C function too), then the C function. On a
small tensor that layer is a large part of an op: ``np.dot`` of two 12-element vectors 0.56 µs
against its C function's 0.34; ``np.count_nonzero`` of 12 elements 0.22 µs against 0.08.

The kernels' fast paths call these on arrays strided made (plain ``ndarray``\\s, never an override),
so the dispatch decides nothing there; each name here is the C function that dispatch would
call, the same result bit for bit (the public function where this NumPy has no such attribute).

>>> import numpy as np
>>> int(count_nonzero(np.array([0.0, -0.0, 1.0, np.nan]))), float(dot(np.ones(3), np.ones(3)))
(2, 3.0)
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["count_nonzero", "dot"]


def _undispatched(fn: Any) -> Any:
    return getattr(fn, "_implementation", fn)


dot = _undispatched(np.dot)
"""``np.dot`` (arrays only: no ``__array_function__`` override is looked for)."""

try:  # the C function np.count_nonzero calls for a whole array (axis=None)
    from numpy._core.multiarray import count_nonzero  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - other NumPy versions
    count_nonzero = np.count_nonzero
