"""Complex test values built from hypothesis' float pairs (shared by the torch bit-equality tests
of complex sgn and abs)."""

from __future__ import annotations

import numpy as np

PAIR_DTYPES = [(np.complex64, np.float32), (np.complex128, np.float64)]


def scaled_pairs(dtfl, pairs, exp):
    """A complex array of ``dtfl``'s (complex, float) dtypes from (re, im) float pairs, both parts
    scaled by 2**exp (exp // 3 for complex64), each part exact (-0.0 kept); and the float dtype."""
    dt, fl = dtfl
    scale = fl(2.0) ** (exp if fl == np.float64 else exp // 3)
    with np.errstate(all="ignore"):
        re = np.array([p[0] for p in pairs], fl) * scale
        im = np.array([p[1] for p in pairs], fl) * scale
    z = np.empty(len(pairs), dt)
    z.real, z.imag = re, im
    return z, fl
