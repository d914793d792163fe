"""Named tuples returned by ``strided.linalg``, like ``torch.return_types``' (``v, i = ...`` unpacks
them; ``.eigenvalues``, ``.U``, ``.solution`` read them).

The classes are made on the first read of any of them (PEP 562:
:func:`strided.lazy_names.classes_on_first_use`; nine named tuple classes were ~0.6 ms of
``import strided``): each is the class a module-level definition would make, the same one
whenever asked.
"""

from __future__ import annotations

from typing import NamedTuple

from ...lazy_names import classes_on_first_use
from ...tensor import Tensor


def _define() -> tuple[type, ...]:
    """The classes, made on the first read of any of them (see the module doc)."""

    class linalg_slogdet(NamedTuple):  # noqa: N801 - named like torch.return_types.linalg_slogdet
        """``linalg.slogdet``: the sign of the determinant and the log of its absolute value."""

        sign: Tensor
        logabsdet: Tensor

    class slogdet(NamedTuple):  # noqa: N801 - named like torch.return_types.slogdet
        """``strided.slogdet`` / ``Tensor.slogdet``: as :class:`linalg_slogdet`."""

        sign: Tensor
        logabsdet: Tensor

    class linalg_svd(NamedTuple):  # noqa: N801 - named like torch.return_types.linalg_svd
        """``linalg.svd``: A = U diag(S) Vh, S descending."""

        U: Tensor
        S: Tensor
        Vh: Tensor

    class linalg_qr(NamedTuple):  # noqa: N801 - named like torch.return_types.linalg_qr
        """``linalg.qr``: A = Q R, Q orthonormal columns, R upper triangular."""

        Q: Tensor
        R: Tensor

    class linalg_eigh(NamedTuple):  # noqa: N801 - named like torch.return_types.linalg_eigh
        """``linalg.eigh``: ascending eigenvalues and the orthonormal eigenvectors (columns)."""

        eigenvalues: Tensor
        eigenvectors: Tensor

    class linalg_lstsq(NamedTuple):  # noqa: N801 - named like torch.return_types.linalg_lstsq
        """``linalg.lstsq``: the least-squares solution and what the driver also computes (empty otherwise)."""

        solution: Tensor
        residuals: Tensor
        rank: Tensor
        singular_values: Tensor

    class linalg_cholesky_ex(NamedTuple):  # noqa: N801 - named like torch.return_types.linalg_cholesky_ex
        """``linalg.cholesky_ex``: the factor and LAPACK's info (0: factored; k > 0: minor k is not positive-definite)."""

        L: Tensor  # noqa: N815 - PyTorch's field name
        info: Tensor

    class linalg_solve_ex(NamedTuple):  # noqa: N801 - named like torch.return_types.linalg_solve_ex
        """``linalg.solve_ex``: the solution and LAPACK's info (0: solved; k > 0: U[k-1, k-1] is zero)."""

        result: Tensor
        info: Tensor

    class linalg_inv_ex(NamedTuple):  # noqa: N801 - named like torch.return_types.linalg_inv_ex
        """``linalg.inv_ex``: the inverse and LAPACK's info (0: inverted; k > 0: U[k-1, k-1] is zero)."""

        inverse: Tensor
        info: Tensor

    return (linalg_slogdet, slogdet, linalg_svd, linalg_qr, linalg_eigh, linalg_lstsq, linalg_cholesky_ex, linalg_solve_ex, linalg_inv_ex)


__getattr__, __dir__ = classes_on_first_use(globals(), (
    'linalg_slogdet', 'slogdet', 'linalg_svd', 'linalg_qr', 'linalg_eigh', 'linalg_lstsq', 'linalg_cholesky_ex', 'linalg_solve_ex', 'linalg_inv_ex'), _define)
