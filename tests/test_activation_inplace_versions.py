"""``_version`` after the in-place activations (F.leaky_relu_, F.elu_, F.hardtanh_, F.relu_ and the
``inplace=True`` forms) against PyTorch's: every write counts once, on the tensor, its views and
detach() (not ``.data``, not a clone), fast path or general, grad mode on or off; and the count
made in C (``grad_mode.count_write``, the fast path's) where bump would only add one, bump's where
it must remember the user's line (a storage a live node saved) or make the storage's record."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import strided
from strided.grad_mode import count_write, last_write

_BASES = ["rows", "transposed", "empty", "scalar", "rows64"]
_VIEWS = ["slice", "t", "detach", "data", "clone", "step", "row"]
_WRITES = ["leaky_relu_", "leaky_relu_slope", "elu_", "elu_alpha", "hardtanh_", "relu_", "silu", "leaky_inplace",
           "elu_inplace", "neg_"]


def _base(lib, kind: str):
    values = np.array([[-2.0, 0.5, -0.25, 3.0], [1.0, -1.0, 0.0, 2.5], [-3.0, 0.75, 4.0, -0.5]])
    if kind == "rows":
        return lib.tensor(values.astype(np.float32))
    if kind == "rows64":
        return lib.tensor(values)
    if kind == "transposed":
        return lib.tensor(values.T.copy().astype(np.float32)).t()
    if kind == "empty":
        return lib.ones(0, 3)
    return lib.tensor(-1.5)


def _view(t, kind: str):
    """A view (or alias, or copy) of ``t``; None where the kind does not apply to its shape."""
    nd = t.dim()
    if kind == "slice":
        return t[1:] if nd else None
    if kind == "t":
        return t.t() if nd <= 2 else None
    if kind == "detach":
        return t.detach()
    if kind == "data":
        return t.data
    if kind == "clone":
        return t.clone()
    if kind == "row":
        return t[0] if nd and t.shape[0] else None
    return t[..., ::2] if nd else None


def _write(lib, t, kind: str) -> None:
    F = lib.nn.functional
    if kind == "leaky_relu_":
        F.leaky_relu_(t)
    elif kind == "leaky_relu_slope":
        F.leaky_relu_(t, 0.2)
    elif kind == "elu_":
        F.elu_(t)
    elif kind == "elu_alpha":
        F.elu_(t, 0.5)
    elif kind == "hardtanh_":
        F.hardtanh_(t)
    elif kind == "relu_":
        F.relu_(t)
    elif kind == "silu":
        F.silu(t, inplace=True)
    elif kind == "leaky_inplace":
        F.leaky_relu(t, 0.1, inplace=True)
    elif kind == "elu_inplace":
        F.elu(t, inplace=True)
    else:
        t.neg_()  # (negatives again, for the next activation's other branch)


def _run(lib, base: str, steps: list, no_grad: bool) -> tuple:
    """The versions of every tensor made so far after each step, and the base's values at the end."""
    pool = [_base(lib, base)]
    seen = []
    for is_view, which, kind in steps:
        t = pool[which % len(pool)]
        if is_view:
            v = _view(t, _VIEWS[kind % len(_VIEWS)])
            if v is not None:
                pool.append(v)
        elif no_grad:
            with lib.no_grad():
                _write(lib, t, _WRITES[kind % len(_WRITES)])
        else:
            _write(lib, t, _WRITES[kind % len(_WRITES)])
        seen.append([p._version for p in pool])
    return seen, pool[0].tolist()


_STEP = st.tuples(st.booleans(), st.integers(0, 20), st.integers(0, 20))


@settings(max_examples=200, deadline=None)
@given(base=st.sampled_from(_BASES), steps=st.lists(_STEP, max_size=14), no_grad=st.booleans())
def test_versions_after_inplace_activations_match_torch(base: str, steps: list, no_grad: bool) -> None:
    ours, values = _run(strided, base, steps, no_grad)
    theirs, expected = _run(torch, base, steps, no_grad)
    assert ours == theirs
    # (values to float32's accuracy: elu's float32 expm1 is NumPy's, an ulp from torch's)
    assert np.allclose(values, expected, rtol=1e-6, atol=1e-7, equal_nan=True)


@pytest.mark.parametrize("name", ["leaky_relu_", "elu_"])
def test_repeated_fast_writes_count_each_as_torch(name: str) -> None:
    """The fast path's C count: the first write makes the record (bump), the next ones add one each."""
    def run(lib) -> list:
        x = lib.rand(16, 16) + 0.1  # (all positive: elu's nothing-to-write answer still counts)
        out = []
        for _ in range(5):
            getattr(lib.nn.functional, name)(x)
            out.append(x._version)
        v = x[2:]
        getattr(lib.nn.functional, name)(v)
        d = x.data
        getattr(lib.nn.functional, name)(d)  # (.data's own counter: x's stays)
        return out + [x._version, v._version, d._version]

    assert run(strided) == run(torch)


@pytest.mark.parametrize("name", ["leaky_relu_", "elu_"])
def test_a_write_to_a_saved_storage_names_the_users_line(name: str) -> None:
    """Where a live node saved the storage, the count is bump's, which remembers the user's line."""
    w = strided.ones(4, requires_grad=True)
    x = strided.tensor([0.5, 1.0, 2.0, 3.0])
    x.add_(0.0)  # (a record exists: the C count's case, but for the watcher)
    y = w * x  # (saves x)
    getattr(strided.nn.functional, name)(x); at = sys._getframe().f_lineno  # noqa: E702
    assert x._version == 2
    assert last_write(x) == (name, f"{__file__}:{at}")
    with pytest.raises(RuntimeError, match="modified by an inplace operation") as info:
        y.sum().backward()
    assert f"the last write: {name} at {__file__}:{at}" in str(info.value)


_FRESH = textwrap.dedent("""
    import strided
    from strided.grad_mode import COUNTERS, count_write
    assert count_write is not None
    x = strided.rand(3, 4) + 0.1
    first = count_write(COUNTERS, x)  # (no record yet: bump makes it)
    x.add_(1.0)
    counted = count_write(COUNTERS, x)
    v = x._version
    class Sub(strided.Tensor):
        pass
    s = x.as_subclass(Sub)
    sub = count_write(COUNTERS, s)  # (a subclass: bump's own look-ups)
    d = x.data  # (a counter of its own exists: bump's look-up)
    own = count_write(COUNTERS, x)
    print(first, counted, v, sub, own, x._version, d._version)
""")


@pytest.mark.skipif(count_write is None, reason="the copy kernel is not built (or STRIDED_NATIVE=0): bump counts")
def test_count_write_counts_only_where_bump_would_only_add_one() -> None:
    done = subprocess.run([sys.executable, "-c", _FRESH], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "True", "2", "False", "False", "2", "0"]
