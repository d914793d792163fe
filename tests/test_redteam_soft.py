"""Red team of the compiled softmax / scan / variance / relu loops (_specialkernel.c).

Findings fixed here: (1) a tensor over an unaligned NumPy buffer (``from_numpy`` of a view at a byte
offset) reached the kernels, which refuse such buffers, so softmax, log_softmax, relu, cumsum,
cumprod, var, std and var_mean raised the kernel's ValueError instead of computing; (2) relu's fast
path ran the kernel inside ``quiet_call``'s shared Context, where ``native.disabled()`` is not seen.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import strided
from strided.kernels import native
from strided.ops._support.front import fallback_of

torch = pytest.importorskip("torch")


def _unaligned(dtype: type) -> np.ndarray:
    """A (2, 5) array at byte offset 1 of its buffer (not aligned), values with a spread."""
    isz = np.dtype(dtype).itemsize
    a = np.ndarray((2, 5), dtype, buffer=bytearray(10 * isz + 1), offset=1)
    a[...] = np.array([[0.5, -1.0, 2.0, 3.5, -0.25], [1.0, 4.0, -2.0, 0.0, 7.0]])
    assert not a.flags.aligned
    return a


_OPS = [
    ("softmax", lambda t: t.softmax(-1)),
    ("log_softmax", lambda t: t.log_softmax(-1)),
    ("relu", lambda t: t.relu()),
    ("cumsum", lambda t: t.cumsum(-1)),
    ("cumprod", lambda t: t.cumprod(-1)),
    ("var", lambda t: t.var(-1)),
    ("std_all", lambda t: t.std()),
    ("var_mean", None),  # (a module function in both: below)
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_unaligned_numpy_buffers_compute_as_torch(dtype: type) -> None:
    a = _unaligned(dtype)
    t = strided.from_numpy(a)
    ref = torch.from_numpy(np.ascontiguousarray(a))
    for name, f in _OPS:
        if name == "var_mean":
            got, want = strided.var_mean(t, -1), torch.var_mean(ref, -1)
        else:
            got, want = f(t), f(ref)
        got = got if isinstance(got, tuple) else (got,)
        want = want if isinstance(want, tuple) else (want,)
        for g, w in zip(got, want):
            assert g.shape == tuple(w.shape), name
            np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-6, atol=1e-7, err_msg=name)


class _Spy:
    """The compiled module, each call's name recorded."""

    def __init__(self, module: Any, calls: list[str]) -> None:
        self._module, self._calls = module, calls

    def __getattr__(self, name: str) -> Any:
        fn = getattr(self._module, name)

        def call(*args: Any) -> Any:
            self._calls.append(name)
            return fn(*args)

        return call


if native.special() is not None:  # (without the built kernel there is nothing to switch off)

    def test_disabled_reaches_every_new_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
        calls: list[str] = []
        monkeypatch.setattr(native, "_special", _Spy(native.special(), calls))
        x = strided.tensor([[-1.0, 2.0, 0.5]], dtype=strided.float32)
        # (softmax and log_softmax through their Python paths: their compiled fronts hold the kernel
        # module they found at import, which the spy does not replace; tests/test_front_kernels.py
        # holds the fronts to the switch)
        softmax, log_softmax = fallback_of(strided.Tensor.softmax), fallback_of(strided.Tensor.log_softmax)
        cumsum, var = fallback_of(strided.Tensor.cumsum), fallback_of(strided.Tensor.var)  # (compiled fronts too)
        runs = [lambda: x.relu(), lambda: strided.nn.functional.relu(x), lambda: softmax(x, -1),
                lambda: log_softmax(x, -1), lambda: cumsum(x, -1),
                # (variance_rows: float32's wide mode; float64 takes PyTorch's own ways, one result
                # its all-reduce sum, var_mean Welford's updates: kernels/torch_variance.py)
                lambda: var(x, -1), lambda: x.double().var(-1), lambda: strided.var_mean(x.double(), -1)]
        for run in runs:
            run()
        assert sorted(set(calls)) == ["relu_fresh", "scan", "softmax_rows", "torch_squared_deviations", "torch_welford_rows",
                                      "variance_rows"]  # (the spy sees them)
        calls.clear()
        with native.disabled():
            for run in runs:
                run()
        assert calls == []

    def test_a_kernel_refusal_past_its_limit_falls_back(monkeypatch: pytest.MonkeyPatch) -> None:
        """The fast paths' limits (_SMALL_SCAN, _VAR_MAX) mirror the kernel's (SCAN_MAX, VAR_MAX);
        were one raised alone, the kernel answers False with nothing written: the NumPy path must
        then run, not the unwritten np.empty be returned."""
        from strided.ops.reductions import scans, sums

        monkeypatch.setattr(scans, "_SMALL_SCAN", 1 << 20)
        monkeypatch.setattr(sums, "_VAR_MAX", 1 << 20)
        x = strided.from_numpy(np.linspace(-3.0, 5.0, 9000).reshape(3, 3000))
        with native.disabled():
            want = [x.cumsum(-1), x.var(), x.std(-1)]
        for got, w in zip([x.cumsum(-1), x.var(), x.std(-1)], want):
            assert got.numpy().tobytes() == w.numpy().tobytes()

    def _fused_runs(a: Any) -> list[Any]:
        """add/sub with alpha= (fresh, in place, a NumPy operand) and addcmul (fresh, in place, transposed)."""
        return [strided.add(a, a, alpha=2.0), a.clone().add_(a, alpha=0.3), a.clone().sub_(a.numpy(), alpha=0.3),
                strided.addcmul(a, a, a, value=0.5), a.clone().addcmul_(a, a),
                strided.addcmul(a.t(), a, a.t(), value=0.5)]

    def test_disabled_reaches_the_fused_multiply_add_under_the_quiet_context(monkeypatch: pytest.MonkeyPatch
                                                                              ) -> None:
        """add/sub with alpha= and addcmul ran fma's kernel inside fpstate.quietly's shared Context,
        where native.disabled() was not seen (now fpstate.quietly_here, in the caller's context)."""
        calls: list[str] = []
        monkeypatch.setattr(native, "_special", _Spy(native.special(), calls))
        for dtype in (strided.float32, strided.float64):
            a = strided.tensor([[0.1, 0.2], [0.3, 0.7]], dtype=dtype)
            calls.clear()
            enabled = _fused_runs(a)
            assert calls  # (the spy sees the kernel when it is on)
            calls.clear()
            with native.disabled():
                off = _fused_runs(a)
            assert calls == []
            for x, y in zip(enabled, off):  # (the NumPy emulation: the same bits)
                assert x.numpy().tobytes() == y.numpy().tobytes()
