"""``strided.linalg``: PyTorch 2.13's ``torch.linalg`` namespace, NumPy's ``linalg`` doing the work.

Only names live here: each op is declared in its family module (under PyTorch's native name,
``linalg_inv``, where torch's bare name would mean another function) and re-exported under
torch.linalg's: :mod:`strided.ops.linalg.norms` (``vector_norm``, ``matrix_norm``, ``norm``),
:mod:`strided.ops.linalg.inverses` (``inv``, ``inv_ex``, ``solve``, ``solve_ex``, ``det``, ``slogdet``,
``pinv``, ``matrix_rank``, ``lstsq``, ``matrix_power``), :mod:`strided.ops.linalg.factorizations`
(``svd``, ``svdvals``, ``qr``, ``eigh``, ``eigvalsh``, ``cholesky``, ``cholesky_ex``) and
:mod:`strided.ops.linalg.products` (``cross``, ``vecdot``). A LAPACK failure on the values (a
singular matrix to invert) raises :class:`LinAlgError`, a RuntimeError, as torch's does.

>>> strided.linalg.det(strided.tensor([[2.0, 1.0], [1.0, 2.0]])).item()
3.0
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .errors import LinAlgError
from .ops.linalg.factorizations import linalg_cholesky as cholesky
from .ops.linalg.factorizations import linalg_cholesky_ex as cholesky_ex
from .ops.linalg.factorizations import linalg_eigh as eigh
from .ops.linalg.factorizations import linalg_eigvalsh as eigvalsh
from .ops.linalg.factorizations import linalg_qr as qr
from .ops.linalg.factorizations import linalg_svd as svd
from .ops.linalg.factorizations import linalg_svdvals as svdvals
from .ops.linalg.inverses import linalg_det as det
from .ops.linalg.inverses import linalg_inv as inv
from .ops.linalg.inverses import linalg_lstsq as lstsq
from .ops.linalg.inverses import linalg_pinv as pinv
from .ops.linalg.inverses import linalg_slogdet as slogdet
from .ops.linalg.inverses import linalg_solve as solve
from .ops.linalg.inverses import linalg_solve_ex as solve_ex
from .ops.linalg.norms import matrix_norm, vector_norm
from .ops.linalg.products import linalg_cross as cross

__all__ = ["LinAlgError", "cholesky", "cholesky_ex", "cross", "det", "eigh", "eigvalsh", "inv", "lstsq", "matrix_norm", "pinv", "qr",
           "slogdet", "solve", "solve_ex", "svd", "svdvals", "vector_norm"]  # (and the _LATE names, below)

# The ops without a backward rule get their reporting entries when ``import strided`` finishes
# (:func:`strided.gradients.finish` puts them in their family modules); these names read them
# there when first asked for, so ``strided.linalg.vecdot`` is the entry, not the bare forward.
_LATE = {"inv_ex": ("strided.ops.linalg.inverses", "linalg_inv_ex"),
         "matrix_rank": ("strided.ops.linalg.inverses", "linalg_matrix_rank"),
         "matrix_power": ("strided.ops.linalg.inverses", "matrix_power"),
         "vecdot": ("strided.ops.linalg.products", "linalg_vecdot"),
         "norm": ("strided.ops.linalg.norms", "linalg_norm")}


__all__ += sorted(_LATE)

if TYPE_CHECKING:  # (what type checkers and editors see for the names read late)
    from .ops.linalg.inverses import linalg_inv_ex as inv_ex  # noqa: F401
    from .ops.linalg.inverses import linalg_matrix_rank as matrix_rank  # noqa: F401
    from .ops.linalg.inverses import matrix_power  # noqa: F401
    from .ops.linalg.norms import linalg_norm as norm  # noqa: F401
    from .ops.linalg.products import linalg_vecdot as vecdot  # noqa: F401


def __getattr__(name: str) -> Any:
    where = _LATE.get(name)
    if where is None:
        raise AttributeError(f"module 'strided.linalg' has no attribute {name!r}")
    import sys

    return getattr(sys.modules[where[0]], where[1])


def __dir__() -> list[str]:
    return sorted({*globals(), *_LATE})
