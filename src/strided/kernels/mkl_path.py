"""Which of Intel MKL's code paths PyTorch's CPU wheel takes on the running machine.

PyTorch's float32/float64 BLAS calls (``addmv``'s gemv among them) go to the MKL bundled in its
wheel, and MKL picks a kernel per CPU vendor and instruction set when it loads. The kernels sum
in different orders and from different starts, so what they give differs where IEEE arithmetic
leaves freedom: the signs of zero results (measured against torch 2.13 with
``tests/test_addmv_zero_signs.py``'s sweeps). strided models the path it expects PyTorch to take
on this machine:

- ``"generic"``: any non-Intel CPU (MKL's vendor-neutral code; measured on an AMD EPYC with
  AVX-512), and an Intel CPU without SSE4.2;
- ``"sse42"`` / ``"avx2"`` / ``"avx512"``: an Intel CPU's best of those instruction sets (AVX-512:
  F, BW, VL, DQ and CD all present; AVX2 with FMA);
- ``"cbwr_sse42"`` / ``"cbwr_compat"``: the conditional-numerical-reproducibility branches that
  ``MKL_CBWR=SSE4_2`` / ``MKL_CBWR=COMPATIBLE`` select (their sums are blocked differently).

MKL's own environment variables are honoured as MKL reads them (once, at load):
``MKL_CBWR`` (``AUTO``, ``COMPATIBLE``, ``SSE4_2``, ``AVX``, ``AVX2``, ``AVX512``..., an optional
``,STRICT`` suffix) picks a branch outright; else ``MKL_ENABLE_INSTRUCTIONS`` (``SSE4_2``, ``AVX``
(MKL treats it as SSE4.2), ``AVX2``, ``AVX512``...) caps the instruction set an Intel CPU's path
may use. Unknown values are ignored, as MKL ignores them. The answer is computed once, lazily,
from ``/proc/cpuinfo`` (``"generic"`` where it cannot be read: not Linux), so set the variables
before the first addmv, as PyTorch's must be set before ``import torch``.
"""

from __future__ import annotations

import functools
import os

# (instruction-set paths in increasing order: MKL_ENABLE_INSTRUCTIONS caps the CPU's to one of them)
_ISA_ORDER = ("sse42", "avx2", "avx512")
_AVX512_FLAGS = frozenset(("avx512f", "avx512bw", "avx512vl", "avx512dq", "avx512cd"))


@functools.cache
def cpuinfo() -> tuple[str, frozenset[str]]:
    """The first processor's ``vendor_id`` and ``flags`` from ``/proc/cpuinfo`` (empty when
    unreadable: not Linux), read once; the one reader of that file (PyTorch's vector width,
    :func:`strided.kernels.torch_loops.torch_vector_bytes`, asks it too)."""
    vendor, flags = "", frozenset()
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            for line in f:
                key, _, value = line.partition(":")
                key = key.strip()
                if key == "vendor_id" and not vendor:
                    vendor = value.strip()
                elif key == "flags" and not flags:
                    flags = frozenset(value.split())
                if vendor and flags:
                    break
    except OSError:
        pass
    return vendor, flags


def _cpu_isa(flags: frozenset[str]) -> str | None:
    """The best MKL instruction-set path these CPU flags allow, or None below SSE4.2."""
    if _AVX512_FLAGS <= flags:
        return "avx512"
    if {"avx2", "fma"} <= flags:
        return "avx2"
    return "sse42" if "sse4_2" in flags else None


def _requested_isa(value: str) -> str | None:
    """``MKL_ENABLE_INSTRUCTIONS``'s value as one of the paths (None: unset or unknown)."""
    v = value.strip().upper()
    if v.startswith("AVX512") or v.startswith("AVX10"):
        return "avx512"
    return {"AVX2": "avx2", "AVX": "sse42", "SSE4_2": "sse42"}.get(v)


def _cbwr_branch(value: str, isa: str | None) -> str | None:
    """``MKL_CBWR``'s branch as one of the paths (None: unset, ``AUTO`` or unknown, the CPU decides)."""
    v = value.split(",")[0].strip().upper()
    if v == "COMPATIBLE":
        return "cbwr_compat"
    if v in ("SSE4_2", "AVX"):  # (MKL runs the AVX branch as SSE4.2: AVX-only support is deprecated)
        return "cbwr_sse42"
    if v == "AVX2":
        return "avx2"
    if v.startswith("AVX512"):
        return "avx512" if isa == "avx512" else None
    return None


def path_for(vendor: str, flags: frozenset[str], enable: str = "", cbwr: str = "") -> str:
    """The MKL path for a CPU's ``vendor``/``flags`` and the two variables' values (pure; see the module)."""
    isa = _cpu_isa(flags)
    if vendor != "GenuineIntel":
        return "generic"
    branch = _cbwr_branch(cbwr, isa) if cbwr else None
    if branch is not None:
        return branch
    if isa is None:
        return "generic"
    cap = _requested_isa(enable) if enable else None
    if cap is not None and _ISA_ORDER.index(cap) < _ISA_ORDER.index(isa):
        return cap
    return isa


@functools.cache
def mkl_path() -> str:
    """The MKL path PyTorch takes on this machine (computed once: see the module docstring)."""
    vendor, flags = cpuinfo()
    return path_for(vendor, flags, os.environ.get("MKL_ENABLE_INSTRUCTIONS", ""), os.environ.get("MKL_CBWR", ""))
