/* PyTorch's i0, i1, i0e, i1e (ATen/native/Math.h: calc_i0, calc_i1, calc_i0e, calc_i1e), included
 * by _specialkernel.c twice: TB(NAME) names this copy's functions, TB_TARGET its target attribute
 * (the FMA instructions inlined, or none: the C library's fma). The coefficient tables (I0A, I0B,
 * TI1A_D, TI1B_D, TI1A_F, TI1B_F, TI0A_F, TI0B_F) are the including file's. */

/* chbevl. GCC unrolls PyTorch's loop and folds the first step's "- 0.0" away, so that step's
 * x * b1 + a[1] is one fma too; every later x * b1 - b2 is one fma, then + a[i]. */
static TB_TARGET double TB(chb_d)(double x, const double *a, int n)
{
    double b0 = __builtin_fma(x, a[0], a[1]), b1 = a[0], b2 = 0.0;
    for (int i = 2; i < n; i++) {
        b2 = b1;
        b1 = b0;
        b0 = __builtin_fma(x, b1, -b2) + a[i];
    }
    return 0.5 * (b0 - b2);
}

static TB_TARGET float TB(chb_f)(float x, const float *a, int n)
{
    float b0 = __builtin_fmaf(x, a[0], a[1]), b1 = a[0], b2 = 0.0f;
    for (int i = 2; i < n; i++) {
        b2 = b1;
        b1 = b0;
        b0 = __builtin_fmaf(x, b1, -b2) + a[i];
    }
    return 0.5f * (b0 - b2);
}

/* which: 0 i0, 1 i1, 2 i0e, 3 i1e; the products and quotients in PyTorch's order */
static TB_TARGET double TB(bessel_d)(double v, int which)
{
    double x = fabs(v), out;
    if (x <= 8.0) {
        double y = x / 2.0 - 2.0;
        if (which == 0) return exp(x) * TB(chb_d)(y, I0A, 30);
        if (which == 2) return TB(chb_d)(y, I0A, 30);
        out = which == 1 ? exp(x) * x * TB(chb_d)(y, TI1A_D, 29) : TB(chb_d)(y, TI1A_D, 29) * x;
    } else {
        double y = 32.0 / x - 2.0;
        if (which == 0) return exp(x) * TB(chb_d)(y, I0B, 25) / sqrt(x);
        if (which == 2) return TB(chb_d)(y, I0B, 25) / sqrt(x);
        out = which == 1 ? exp(x) * TB(chb_d)(y, TI1B_D, 25) / sqrt(x) : TB(chb_d)(y, TI1B_D, 25) / sqrt(x);
    }
    return v < 0.0 ? -out : out;
}

static TB_TARGET float TB(bessel_f)(float v, int which)
{
    float x = fabsf(v), out;
    if (x <= 8.0f) {
        float y = x / 2.0f - 2.0f;
        if (which == 0) return expf(x) * TB(chb_f)(y, TI0A_F, 30);
        if (which == 2) return TB(chb_f)(y, TI0A_F, 30);
        out = which == 1 ? expf(x) * x * TB(chb_f)(y, TI1A_F, 17) : TB(chb_f)(y, TI1A_F, 17) * x;
    } else {
        float y = 32.0f / x - 2.0f;
        if (which == 0) return expf(x) * TB(chb_f)(y, TI0B_F, 25) / sqrtf(x);
        if (which == 2) return TB(chb_f)(y, TI0B_F, 25) / sqrtf(x);
        out = which == 1 ? expf(x) * TB(chb_f)(y, TI1B_F, 7) / sqrtf(x) : TB(chb_f)(y, TI1B_F, 7) / sqrtf(x);
    }
    return v < 0.0f ? -out : out;
}

static TB_TARGET void TB(torch_bessel_d)(const double *in, double *out, Py_ssize_t n, int which)
{
    for (Py_ssize_t i = 0; i < n; i++) out[i] = TB(bessel_d)(in[i], which);
}

static TB_TARGET void TB(torch_bessel_f)(const float *in, float *out, Py_ssize_t n, int which)
{
    for (Py_ssize_t i = 0; i < n; i++) out[i] = TB(bessel_f)(in[i], which);
}
