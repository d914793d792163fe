"""uint16/uint32/uint64 with PyTorch 2.13's (small) support: what works gives torch's values and
dtypes, what torch has no kernel for raises its error class and first line."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided as st
from oracle_helpers import case as in_case
from oracle_helpers import same_error
from strided.ops._support.support import UNSIGNED

WIDE = ["uint16", "uint32", "uint64"]


def pair(dtype: str, values=((1, 2, 3), (4, 5, 6))):
    return torch.tensor(values, dtype=getattr(torch, dtype)), st.tensor(values, dtype=dtype)


def assert_same(s, t):
    assert s.shape == tuple(t.shape) and s.stride() == t.stride()
    assert s.dtype.name == str(t.dtype).removeprefix("torch.")
    np.testing.assert_allclose(s.numpy().astype(np.float64), t.numpy().astype(np.float64), rtol=1e-6)


WORKS = {
    "mul": lambda m, x: x * x, "mul_scalar": lambda m, x: x * 2, "div": lambda m, x: x / x, "eq": lambda m, x: x == x,
    "ne_scalar": lambda m, x: x != 2, "and": lambda m, x: x & x, "or": lambda m, x: x | 1, "xor": lambda m, x: x ^ x,
    "exp": lambda m, x: x.exp(), "sqrt": lambda m, x: x.sqrt(), "sigmoid": lambda m, x: x.sigmoid(),
    "sum": lambda m, x: x.sum(), "sum0": lambda m, x: x.sum(0), "prod": lambda m, x: x.prod(1), "all": lambda m, x: x.all(),
    "any0": lambda m, x: x.any(0), "float_add": lambda m, x: x + 1.5, "float_tensor": lambda m, x: x * m.ones(3),
    "to": lambda m, x: x.to(m.float32), "clone": lambda m, x: x.t().clone(), "index": lambda m, x: x[1, ::2],
    "where": lambda m, x: m.where(x == 2, x, x), "t_contig": lambda m, x: x.t().contiguous(),
    "view_int16": lambda m, x: x.view(m.int16), "outer": lambda m, x: x[0].reshape(3, 1) * x[1],
}


@pytest.mark.parametrize("name", list(WORKS))
def test_supported_ops_like_torch(name):
    for dtype in WIDE:
        with in_case(dtype=dtype):
            _supported_ops_like_torch(dtype, name)


def _supported_ops_like_torch(dtype, name):
    t, s = pair(dtype)
    fn = WORKS[name]
    assert_same(fn(st, s), fn(torch, t))


FAILS = {
    "add": lambda m, x: x + x, "add_scalar": lambda m, x: x + 1, "sub": lambda m, x: x - x,
    "add_0d": lambda m, x: x + m.tensor(1), "iadd": lambda m, x: x.add_(1), "floordiv": lambda m, x: x // x,
    "mod": lambda m, x: x % x, "pow": lambda m, x: x ** 2, "lt": lambda m, x: x < x, "gt": lambda m, x: x > 1,
    "neg": lambda m, x: -x, "abs": lambda m, x: abs(x), "invert": lambda m, x: ~x, "relu": lambda m, x: x.relu(),
    "clamp": lambda m, x: x.clamp(0, 2), "clamp_min": lambda m, x: x.clamp(min=1), "clamp_max": lambda m, x: x.clamp(max=1),
    "clamp_t": lambda m, x: x.clamp(x, x), "maximum": lambda m, x: m.maximum(x, x), "minimum": lambda m, x: m.minimum(x, x),
    "max": lambda m, x: x.max(), "min0": lambda m, x: x.min(0), "argmax": lambda m, x: x.argmax(),
    "argmin0": lambda m, x: x.argmin(0), "mean": lambda m, x: x.mean(), "var": lambda m, x: x.var(),
    "softmax": lambda m, x: x.softmax(1), "log_softmax": lambda m, x: x.log_softmax(0), "matmul": lambda m, x: x @ x.t(),
    "mm": lambda m, x: x.mm(x.t()), "bmm": lambda m, x: x[None].bmm(x.t()[None]), "vecmat": lambda m, x: x[0] @ x.t(),
    "einsum": lambda m, x: m.einsum("ij,kj->ik", x, x), "promote_int": lambda m, x: x * m.ones(3, dtype=m.int64),
    "promote_bool": lambda m, x: x * m.ones(3, dtype=m.bool), "promote_u": lambda m, x: x * x.to(m.uint8),
}


@pytest.mark.parametrize("name", list(FAILS))
def test_unsupported_ops_raise_like_torch(name):
    for dtype in WIDE:
        with in_case(dtype=dtype):
            _unsupported_ops_raise_like_torch(dtype, name)


def _unsupported_ops_raise_like_torch(dtype, name):
    t, s = pair(dtype)
    fn = FAILS[name]
    text = same_error(lambda: fn(torch, t), lambda: fn(st, s))
    assert len(text.splitlines()) >= 2 and "fix:" in text
    assert s.tolist() == t.tolist() == [[1, 2, 3], [4, 5, 6]]  # in-place forms left the target untouched


@pytest.mark.parametrize("dtype", WIDE)
def test_creation_printing_and_conversions_like_torch(dtype):
    td = getattr(torch, dtype)
    for make in (lambda m, d: m.zeros(2, 3, dtype=d), lambda m, d: m.ones(2, dtype=d), lambda m, d: m.full((2,), 5, dtype=d),
                 lambda m, d: m.tensor([[1, 2], [3, 4]], dtype=d), lambda m, d: m.tensor([-1], dtype=d)
                 if dtype != "uint64" else m.tensor([2**64 - 1], dtype=d)):
        s, t = make(st, dtype), make(torch, td)
        assert repr(s) == repr(t).replace("torch.", "strided.")
        assert s.tolist() == t.tolist()
    same_error(lambda: torch.tensor([-1], dtype=torch.uint64), lambda: st.tensor([-1], dtype="uint64"))
    a = np.array([1, 2**15, 3], dtype=dtype)
    s = st.from_numpy(a)
    assert s.dtype.name == dtype and s.tolist() == torch.from_numpy(a).tolist()
    assert st.tensor(a).dtype.name == dtype
    x = st.zeros(3, dtype=dtype)
    x.fill_(7)
    x[0] = 2
    x.copy_(st.tensor([4, 5, 6])) if False else None
    assert x.tolist() == [2, 7, 7]
    assert st.tensor([1.5, 2.5]).to(dtype).tolist() == torch.tensor([1.5, 2.5]).to(td).tolist()


def test_support_table_names_only_real_kernels():
    # every op the table refuses is one strided has; the kernel names are PyTorch's spelling
    assert all(name.replace("_", "").replace(".", "").isalnum() for name in UNSIGNED.values())
    assert {"add", "lt", "neg", "max", "matmul"} <= set(UNSIGNED)


# The C++ type names (typeid, demangled) and ScalarType names PyTorch's kernels print, for every
# dtype: strided reads them from one table (dtypes.CPP_NAME / TORCH_NAME); the unsigned ones were
# once "unsigned short"/"unsigned long" where PyTorch prints "short unsigned int"/"long unsigned int".
DTYPE_NAME_ERRORS = {
    "masked_fill_ mask": lambda m, d: m.zeros(3).masked_fill_(m.zeros(3, dtype=d), 1.0),
    "mm out=": lambda m, d: m.mm(m.ones(2, 2), m.ones(2, 2), out=m.empty(2, 2, dtype=d)),
    "mm operands": lambda m, d: m.mm(m.ones(2, 2), m.ones(2, 2, dtype=d)),
}


@pytest.mark.parametrize("case", DTYPE_NAME_ERRORS)
def test_dtype_names_in_messages_are_torchs(case):
    for dtype in [d.name for d in st.dtypes.ALL_DTYPES if d.name not in ("bool", "float32")]:
        with in_case(dtype=dtype):
            _dtype_names_in_messages_are_torchs(case, dtype)


def _dtype_names_in_messages_are_torchs(case, dtype):
    make = DTYPE_NAME_ERRORS[case]
    same_error(lambda: make(torch, getattr(torch, dtype)), lambda: make(st, getattr(st, dtype)))


@pytest.mark.parametrize("dtype", WIDE + ["uint8"])
def test_random_bounds_name_the_cpp_type(dtype):
    same_error(lambda: torch.zeros(3, dtype=getattr(torch, dtype)).random_(-1, 5),
               lambda: st.zeros(3, dtype=dtype).random_(-1, 5))
