"""The compiled parts of strided, plain C: ``strided.kernels._copykernel``, a cache-blocked strided
copy, ``strided.kernels._specialkernel``, the special functions (erf, lgamma, ...) in one pass, and
``strided.kernels._randkernel``, NumPy's bounded-integer draw without its per-call overhead, and
``strided.kernels._rowkernel``, NumPy's pairwise float sum (the same bits) vectorised, and
``strided.kernels._halfkernel``, float16 add/sub/mul/div through float32 (NumPy's bits) in one pass, and
``strided.kernels._sleefkernel``, PyTorch's float32 sigmoid, silu and gelu loops (SLEEF's expf and the C
library's, as PyTorch splits them), and
``strided.kernels._sumkernel``, PyTorch's CPU float sum order (SumKernel.cpp's cascade), bit for bit, and
``strided.kernels._matkernel``, the small float matrix products in one call (NumPy's own BLAS call), and
``strided.kernels._randdist``, the samplers' draws through NumPy's own distribution functions (linked
against NumPy's libnpyrandom.a; built only where NumPy is importable at build time), and
``strided.diagnose._watchrec``, ``watch_torch``'s per-tensor reads of each op (CPython API only).

Everything else is in pyproject.toml. The extension is ``optional``: ``pip install -e .`` on a
machine without a C compiler (or without Python's headers) prints setuptools' warning and
installs strided without them, and the copies and special functions then take the pure-NumPy
path (:mod:`strided.kernels.native` decides, at first use).
"""

import os

from setuptools import Extension, setup


def _randdist() -> list[Extension]:
    """``strided.kernels._randdist``, the in-place samplers' draws through NumPy's own distribution
    functions: linked against NumPy's ``libnpyrandom.a`` (the object code numpy.random runs), so
    built only where NumPy (with that library) is importable at build time; without it the samplers
    take their NumPy calls (:mod:`strided.kernels.native` decides, at first use)."""
    try:
        import numpy as np
    except ImportError:
        return []
    lib = os.path.join(os.path.dirname(np.__file__), "random", "lib")
    if not os.path.exists(os.path.join(lib, "libnpyrandom.a")):
        return []
    return [Extension(
        "strided.kernels._randdist",
        ["src/strided/kernels/_randdist.c"],
        optional=True,
        depends=["src/strided/kernels/_rand_target.h"],
        include_dirs=[np.get_include()],
        # (the NumPy whose distribution code is linked in: strided.kernels.native takes the module
        # only under the same NumPy version at run time, so its draws are that NumPy's own)
        define_macros=[("STRIDED_NUMPY_VERSION", f'"{np.__version__}"')],
        library_dirs=[lib],
        libraries=["npyrandom", "m"],
        # one IEEE operation per ufunc step, as NumPy's loops: no contraction, no -ffast-math
        extra_compile_args=["-O2", "-std=gnu99", "-Wall", "-fno-fast-math", "-ffp-contract=off"],
    )]


def _numpy_headers() -> dict:
    """The include directory and macro that let ``_specialkernel`` read NumPy's ufunc objects
    (``_ufunc_chain.h``); nothing where NumPy is not importable at build time (the entries that
    need them are then not built and their Python paths run)."""
    try:
        import numpy as np
    except ImportError:
        return {}
    return {"include_dirs": [np.get_include()], "define_macros": [("STRIDED_NUMPY_HEADERS", "1")]}


setup(ext_modules=[Extension(
    "strided.kernels._copykernel",
    ["src/strided/kernels/_copykernel.c"],
    depends=["src/strided/kernels/_front.h", "src/strided/kernels/_fresh_fill.h", "src/strided/kernels/_borrow_memo.h", "src/strided/kernels/_any_nan.h", "src/strided/kernels/_interleave.h", "src/strided/kernels/_masked_run.h",
             "src/strided/kernels/_nonzero_rows.h", "src/strided/kernels/_row_copy.h", "src/strided/kernels/_pair_join.h",
             "src/strided/kernels/_unravel.h", "src/strided/kernels/_put_scatter.h"],
    optional=True,
    # -O3 for the tile loops; no -march: the build may be copied to another x86-64 machine, and
    # the SSE2 transposes it uses are in every one (and no FMA to contract apply2d's ops into);
    # -fno-wrapv undoes the -fwrapv of Python's own CFLAGS, under which GCC compiled the tile loops
    # slower once copy_nd grew its folded and rows planes (measured: (1024, 2048, 4).permute(2, 0,
    # 1) into existing memory 1.7x a memcpy with it, 1.0x without; nothing here relies on signed
    # wrap-around)
    extra_compile_args=["-O3", "-std=c99", "-Wall", "-ffp-contract=off", "-fno-wrapv"],
    libraries=["m"],  # (apply2d's scalar edges: sqrt)
), Extension(
    "strided.kernels._specialkernel",
    ["src/strided/kernels/_specialkernel.c"],
    optional=True,
    # IEEE arithmetic as NumPy's: no contraction into fused multiply-adds, no -ffast-math (which
    # would reassociate and call vector exp/log), no -march (no FMA instructions to contract into);
    # -O3 runs i1's blocked series two lanes at a time (SSE2: the same roundings per lane). Where
    # PyTorch's own kernels fuse (its Bessel functions), the C code says so with explicit fmas.
    depends=["src/strided/kernels/_torch_special.h", "src/strided/kernels/_fp_tests.h", "src/strided/kernels/_prod_rows_z.h", "src/strided/kernels/_ufunc_chain.h", "src/strided/kernels/_glibc_expf.h", "src/strided/kernels/_glibc_sinf.h",
             "src/strided/kernels/_logspace_f32.h", "src/strided/kernels/_i0_f32.h", "src/strided/kernels/_digamma_f32.h",
             "src/strided/kernels/_torch_bmm_loop.h", "src/strided/kernels/_norm2_rows4.h",
             "src/strided/kernels/_erf_float32_table.h", "src/strided/kernels/_erfc_poly.h",
             "src/strided/kernels/_scalar_inplace.h", "src/strided/kernels/_lcse_wide.h",
             "src/strided/kernels/_complex_lerp.h",
             "src/strided/kernels/_sleef_expf.h", "src/strided/kernels/_sleef_exp.h", "src/strided/kernels/_sleef_log.h",
             "src/strided/kernels/_fma_f64.h"],
    extra_compile_args=["-O3", "-std=c99", "-Wall", "-ffp-contract=off", "-fno-fast-math"],
    libraries=["m"],
    # (NumPy's headers, where the build has NumPy: _ufunc_chain.h calls NumPy's own ufunc loops)
    **_numpy_headers(),
), Extension(
    "strided.kernels._randkernel",
    ["src/strided/kernels/_randkernel.c"],
    optional=True,
    depends=["src/strided/kernels/_rand_target.h", "src/strided/kernels/_ziggurat_tables.h"],
    # NumPy's bounded-integer draw and its ziggurat normal; __uint128_t needs GCC or clang, which
    # every platform this builds on has (without it the build skips the module: NumPy's own call);
    # the ziggurat's float arithmetic as NumPy's: no contraction, no -ffast-math
    extra_compile_args=["-O3", "-std=gnu99", "-Wall", "-ffp-contract=off", "-fno-fast-math"],
    libraries=["m"],
), Extension(
    "strided.kernels._rowkernel",
    ["src/strided/kernels/_rowkernel.c"],
    optional=True,
    # NumPy's pairwise float sum with its eight accumulators as one vector: gnu99 for GCC's vector
    # extension and target_clones (an AVX2 clone picked at load time on x86-64); no -ffast-math,
    # so nothing reassociates and the bits are NumPy's
    # (-ffp-contract=off: variance_one's squares must not fuse into their sums on FMA targets)
    extra_compile_args=["-O3", "-std=gnu99", "-Wall", "-Wno-psabi", "-fno-fast-math", "-ffp-contract=off"],
    depends=["src/strided/kernels/_variance_one.h", "src/strided/kernels/_extreme_rows_z.h",
             "src/strided/kernels/_extreme_rows_at.h", "src/strided/kernels/_pool_windows.h",
             "src/strided/kernels/_ln_torch.h"],
), Extension(
    "strided.kernels._halfkernel",
    ["src/strided/kernels/_halfkernel.c"],
    optional=True,
    depends=["src/strided/kernels/_bf16_bits.h"],
    # float16 arithmetic through float32, NumPy's conversions as vector code: an AVX2+FMA copy
    # picked at import; no contraction or -ffast-math (the float steps are the conversions' bits);
    # -fno-trapping-math lets GCC vectorise the selects (it changes no value, only what may raise
    # a floating-point flag, which no caller reads here); -fno-math-errno lets it inline and
    # vectorise sqrtf / fmaf (both correctly rounded either way: only errno, which no caller reads)
    extra_compile_args=["-O3", "-std=gnu99", "-Wall", "-Wno-psabi", "-fno-fast-math", "-ffp-contract=off",
                        "-fno-trapping-math", "-fno-math-errno"],
    libraries=["m"],  # (fmaf where the CPU has no FMA)
), Extension(
    "strided.kernels._sleefkernel",
    ["src/strided/kernels/_sleefkernel.c"],
    optional=True,
    depends=["src/strided/kernels/_glibc_expf.h", "src/strided/kernels/_sleef_expf.h", "src/strided/kernels/_sleef_exp.h",
             "src/strided/kernels/_sleef_pow.h", "src/strided/kernels/_sleef_pow8.h",
             "src/strided/kernels/_sleef_expm1.h", "src/strided/kernels/_sleef_log.h",
             "src/strided/kernels/_sleef_log1p.h", "src/strided/kernels/_sleef_tanh.h", "src/strided/kernels/_sleef_hyper.h",
             "src/strided/kernels/_bf16_bits.h"],
    # SLEEF's expf with its fused steps written out (fmaf, _mm512_fmadd_ps): nothing else may fuse
    # (-ffp-contract=off) or reassociate (no -ffast-math); the AVX-512 form has its own target
    # attribute and runs only where the CPU has AVX512F (no -march)
    extra_compile_args=["-O2", "-std=gnu99", "-Wall", "-fno-fast-math", "-ffp-contract=off"],
    libraries=["m"],  # (expf, and fmaf in the plain form)
), Extension(
    "strided.kernels._sumkernel",
    ["src/strided/kernels/_sumkernel.c"],
    optional=True,
    # PyTorch's sum order (SumKernel.cpp) with GCC's vector extension: gnu99, an AVX2 copy picked at
    # import; no -ffast-math or contraction: every add is PyTorch's one IEEE add, in its order
    extra_compile_args=["-O3", "-std=gnu99", "-Wall", "-Wno-psabi", "-fno-fast-math", "-ffp-contract=off"],
    depends=["src/strided/kernels/_walk_products.h"],
    libraries=["m"],  # (_walk_products.h's fused complex products: fma, fmaf)
), Extension(
    "strided.kernels._matkernel",
    ["src/strided/kernels/_matkernel.c"],
    optional=True,
    depends=["src/strided/kernels/_torch_bmm_loop.h", "src/strided/kernels/_lapack_calls.h", "src/strided/kernels/_vml_calls.h"],
    # the checks and the BLAS call NumPy's matmul makes, through the addresses of NumPy's own
    # OpenBLAS routines (handed over at run time: nothing to link); scale_add's IEEE multiplies
    # and adds as NumPy's ufuncs round them: no contraction into fused multiply-adds, no -ffast-math
    # (-O3: scale_add's specialised loops vectorise, a 16 x 16 x 4 result 2.7 -> ~0.3 us)
    extra_compile_args=["-O3", "-std=c99", "-Wall", "-ffp-contract=off", "-fno-fast-math"],
)] + _randdist() + [Extension(
    "strided.diagnose._watchrec",
    ["src/strided/diagnose/_watchrec.c"],
    optional=True,
    # watch_torch's per-tensor reads (CPython API only, nothing built against torch); its Python
    # loop is the fallback
    extra_compile_args=["-O2", "-std=c99", "-Wall"],
)])
