"""``strided.special``: the part of PyTorch 2.13's ``torch.special`` namespace strided has, under
torch.special's names. Only names live here: the ops are declared in their family modules,
:mod:`strided.ops.elementwise.special_fns` (``polygamma``, and ``i1``, ``i0e``, ``i1e`` under
PyTorch's native names ``special_i1`` ...) and :mod:`strided.ops.elementwise.unary_more`
(``digamma``, ``i0``). Loaded on first use of ``strided.special``.

>>> round(strided.special.i1e(strided.tensor([1.0], dtype=strided.float64)).item(), 10)
0.2079104153
"""

from __future__ import annotations

from .ops.elementwise.special_fns import polygamma
from .ops.elementwise.special_fns import special_i0e as i0e
from .ops.elementwise.special_fns import special_i1 as i1
from .ops.elementwise.special_fns import special_i1e as i1e
from .ops.elementwise.unary_more import digamma, i0

psi = digamma  # (torch.special.psi: digamma's other name)

__all__ = ["digamma", "i0", "i0e", "i1", "i1e", "polygamma", "psi"]
