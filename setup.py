"""The one compiled part of strided: ``strided.kernels._copykernel``, a cache-blocked strided copy in plain C.

Everything else is in pyproject.toml. The extension is ``optional``: ``pip install -e .`` on a
machine without a C compiler (or without Python's headers) prints setuptools' warning and
installs strided without it, and the copies then take the pure-NumPy path
(:mod:`strided.kernels.native` decides, at the first large copy).
"""

from setuptools import Extension, setup

setup(ext_modules=[Extension(
    "strided.kernels._copykernel",
    ["src/strided/kernels/_copykernel.c"],
    optional=True,
    # -O3 for the tile loops; no -march: the build may be copied to another x86-64 machine, and
    # the SSE2 transposes it uses are in every one.
    extra_compile_args=["-O3", "-std=c99", "-Wall"],
)])
