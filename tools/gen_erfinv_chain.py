"""Prints GILES_W_SHORT for src/strided/kernels/_specialkernel.c: the degree-DEG economized form of
Giles' degree-22 polynomial GILES_W (the float32 erfinv's central branch, in t = w - 3.125 over
|t| <= 3.125), which the certified fused path (erfinv8_fused) evaluates instead of GILES_W.

GILES_W is expanded in Chebyshev polynomials of u = t / 3.125 (exactly, mpmath at 60 digits), the
terms above degree DEG are dropped (their sum bounds the change: printed, ~5e-13 for DEG 17; GILES_W
is >= sqrt(pi)/2 there, so < 2^-40 relative), and the rest is turned back into powers of t and
rounded once to double. The kernel certifies each float32 result against a bound above that change
(2^-38 relative: see erfinv8_fused_end), so these coefficients decide speed, never bits.

Run: ``.venv/bin/python tools/gen_erfinv_chain.py``.
"""

from __future__ import annotations

import mpmath

mpmath.mp.dps = 60
DEG = 17
HALF_WIDTH = mpmath.mpf("3.125")
GILES_W = [  # (the kernel's, highest power first)
    "-3.6444120640178196996e-21", "-1.685059138182016589e-19", "1.2858480715256400167e-18", "1.115787767802518096e-17",
    "-1.333171662854620906e-16", "2.0972767875968561637e-17", "6.6376381343583238325e-15", "-4.0545662729752068639e-14",
    "-8.1519341976054721522e-14", "2.6335093153082322977e-12", "-1.2975133253453532498e-11", "-5.4154120542946279317e-11",
    "1.051212273321532285e-09", "-4.1126339803469836976e-09", "-2.9070369957882005086e-08", "4.2347877827932403518e-07",
    "-1.3654692000834678645e-06", "-1.3882523362786468719e-05", "0.0001867342080340571352", "-0.00074070253416626697512",
    "-0.0060336708714301490533", "0.24015818242558961693", "1.6536545626831027356"]


def main() -> None:
    # the doubles the kernel holds, exactly, lowest power first, in u = t / 3.125
    mono_t = [mpmath.mpf(float(c)) for c in reversed(GILES_W)]
    mono_u = [c * HALF_WIDTH**k for k, c in enumerate(mono_t)]
    # powers of u as Chebyshev sums: u^k = sum_j a[k][j] T_j(u)
    n = len(mono_u)
    cheb_coef = [mpmath.mpf(0)] * n
    powers = [[mpmath.mpf(1)] + [mpmath.mpf(0)] * (n - 1)]  # u^0 = T_0
    for _k in range(1, n):
        prev, nxt = powers[-1], [mpmath.mpf(0)] * n
        for j, c in enumerate(prev):  # u T_j = (T_{j+1} + T_{|j-1|}) / 2, u T_0 = T_1
            if c == 0:
                continue
            if j == 0:
                nxt[1] += c
            else:
                nxt[j + 1] += c / 2
                nxt[j - 1] += c / 2
        powers.append(nxt)
    for k, c in enumerate(mono_u):
        for j in range(n):
            cheb_coef[j] += c * powers[k][j]
    dropped = sum(abs(c) for c in cheb_coef[DEG + 1:])
    # back to powers of u (T_j as polynomials), then of t
    t_polys = [[mpmath.mpf(1)], [mpmath.mpf(0), mpmath.mpf(1)]]
    for _j in range(2, DEG + 1):
        a, b = t_polys[-1], t_polys[-2]
        p = [mpmath.mpf(0)] + [2 * c for c in a]
        for i, c in enumerate(b):
            p[i] -= c
        t_polys.append(p)
    short_u = [mpmath.mpf(0)] * (DEG + 1)
    for j in range(DEG + 1):
        for i, c in enumerate(t_polys[j]):
            short_u[i] += cheb_coef[j] * c
    short_t = [c / HALF_WIDTH**k for k, c in enumerate(short_u)]
    print(f"/* dropped Chebyshev terms: sum {mpmath.nstr(dropped, 3)} */")
    coefs = [repr(float(c)) for c in reversed(short_t)]
    lines = [", ".join(coefs[i:i + 4]) for i in range(0, len(coefs), 4)]
    print(f"static const double GILES_W_SHORT[{DEG + 1}] = {{\n    " + ",\n    ".join(lines) + "};")


if __name__ == "__main__":
    main()
