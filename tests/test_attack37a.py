"""Hostile tests of session 37's first merged changes (merge37): the in-place activation fronts
(F.elu_ / F.leaky_relu_), and watch_torch's compiled per-op recorder (``_watchrec.record``).

Each test asserts what PyTorch (or the Python recorder) does; the recorder's are run in a
subprocess where they count references and objects over thousands of ops."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
from typing import Any

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import strided as st
import strided.nn.functional as F
from strided.diagnose import watch_torch as wt
from strided.diagnose.watch_torch import watch_torch
from strided.kernels.torch_loops import torch_vector_bytes

SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")


# ---------------------------------------------------------------- in-place activations


@pytest.mark.parametrize("name", ["elu_", "leaky_relu_", "celu_", "selu_", "rrelu_", "hardtanh_"])
def test_inplace_activation_of_a_non_tensor_once_an_inference_tensor_exists(name: str) -> None:
    # (bug: once any inference tensor was alive, the in-place rows' inference check read
    # ``input._storage`` of a list: AttributeError instead of PyTorch's TypeError)
    with st.inference_mode():
        keep = st.tensor([1.0, -2.0])
    with pytest.raises(TypeError) as got:
        getattr(F, name)([1.0, -2.0])
    with pytest.raises(TypeError) as want:
        getattr(TF, name)([1.0, -2.0])
    assert "argument 'input' (position 1) must be Tensor, not list" in str(got.value)
    assert "argument 'input' (position 1) must be Tensor, not list" in str(want.value)
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor"):
        getattr(F, name)(keep)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("view", ["t", "step", "row", "scalar", "empty"])
def test_elu_leaky_relu_inplace_on_views_bits_and_versions(dtype: Any, view: str) -> None:
    rng = np.random.default_rng(1)
    b = rng.standard_normal((4, 6)).astype(dtype)
    b[0, :3] = [-0.0, np.nan, 1e-45]
    pick = {"t": lambda m: m.t(), "step": lambda m: m[:, ::2], "row": lambda m: m[1], "scalar": lambda m: m[0, 0],
            "empty": lambda m: m[:0]}[view]
    for fs, ft, args in ((F.elu_, TF.elu_, ()), (F.elu_, TF.elu_, (0.5,)), (F.leaky_relu_, TF.leaky_relu_, (0.2,)),
                         (F.leaky_relu_, TF.leaky_relu_, ())):
        xs, xt = st.tensor(b.copy()), torch.tensor(b.copy())
        vs, vt = pick(xs), pick(xt)
        assert fs(vs, *args) is vs
        ft(vt, *args)
        assert xs.numpy().tobytes() == xt.numpy().tobytes()
        assert (vs._version, xs._version) == (vt._version, xt._version)


_NEG_NAN = {np.float32: 0xFFC00000, np.float64: 0xFFF8000000000000}


def _bits(a: np.ndarray) -> list[int]:
    return a.view(np.uint32 if a.dtype == np.float32 else np.uint64).tolist()


_NAN_PARAMETER_REASON = ("a NaN slope / alpha on x = -NaN: PyTorch keeps x's NaN (its product's first operand on x86; "
                         "elu: x itself), strided gives the parameter's +NaN at some lengths (its compiled loops' "
                         "operand order and lanes); main too, not from merge37. The NaN's sign only")
# (leaky_relu's 12 float32s: inside one AVX-512 step (16 lanes) but below an AVX2 PyTorch's step of
# 16 in its scalar loop, where strided agrees: it passes on an AVX2 CPU, so the xfail is AVX-512's)
_AVX512_ONLY = pytest.mark.xfail(torch_vector_bytes() == 64, strict=True,
                                 reason=_NAN_PARAMETER_REASON + " (AVX-512 PyTorch only: its vector loop's 12 lanes)")
_EVERYWHERE = pytest.mark.xfail(strict=True, reason=_NAN_PARAMETER_REASON)


@pytest.mark.parametrize(("name", "dtype", "n"), [
    pytest.param("leaky_relu", np.float32, 12, marks=_AVX512_ONLY),
    pytest.param("leaky_relu_", np.float32, 12, marks=_AVX512_ONLY),
    pytest.param("elu", np.float64, 12, marks=_EVERYWHERE), pytest.param("elu_", np.float64, 12, marks=_EVERYWHERE),
    pytest.param("elu", np.float32, 17, marks=_EVERYWHERE), pytest.param("elu_", np.float32, 17, marks=_EVERYWHERE)])
def test_nan_parameter_keeps_the_inputs_nan_sign(name: str, dtype: Any, n: int) -> None:
    b = np.full(n, -1.0, dtype)
    b.view(np.uint32 if dtype == np.float32 else np.uint64)[1] = _NEG_NAN[dtype]
    got = getattr(F, name)(st.tensor(b.copy()), float("nan")).numpy()
    want = getattr(TF, name)(torch.tensor(b.copy()), float("nan")).numpy()
    assert _bits(got) == _bits(want)


# ---------------------------------------------------------------- the compiled recorder

needs_record = pytest.mark.skipif(wt._native_record() is None, reason="the _watchrec extension is not built")

_LEAK_CHILD = textwrap.dedent("""
    import gc, sys, threading
    import torch
    from strided.diagnose import watch_torch as wt
    from strided.diagnose.watch_torch import watch_torch
    torch.set_num_threads(1)
    wt._NATIVE_RECORD[0] = sys.argv[1] == "1"
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))
    x = torch.randn(5, 8)

    def program():
        y = model(x)
        a, b = y.split(3)                                                  # a tuple out
        z = torch.cat([a, b, torch.unbind(y)[0][None]])                    # a list in
        torch._foreach_add_([a.detach().clone(), b.detach().clone()], 1.0)  # None out
        v, i = y.max(1)
        t = torch.empty(3)
        del t                                                              # deleted inside the block
        for bad in (lambda: torch.ones(2) + torch.ones(3), lambda: torch.ones(2, 3) @ torch.ones(2, 3)):
            try:
                bad()                                                      # raises inside the watched op
            except RuntimeError:
                pass
        y.sum().item()                                                     # a number out
        return z

    def block(k):
        with watch_torch() as w:
            program()
            if k % 5 == 0:
                with watch_torch():                                        # nested
                    program()
        assert len(w.steps) > 0

    def counts():
        gc.collect()
        return (sys.getrefcount(x), sys.getrefcount(model[0].weight), sys.getrefcount(model), sys.getrefcount(wt),
                sys.getrefcount(torch.ops.aten.add.Tensor), sys.getrefcount(torch.ops.aten.cat.default),
                sys.getrefcount(torch.Tensor), len(gc.get_objects()))

    for k in range(5):
        block(k)
    before = counts()
    for k in range(int(sys.argv[2])):
        block(k)
    errors = []

    def worker():
        try:
            for k in range(20):
                block(k)
        except Exception as e:  # noqa: BLE001
            errors.append(repr(e))

    threads = [threading.Thread(target=worker) for _ in range(3)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    after = counts()
    print(repr((before, after, errors)))
""")


@needs_record
def test_compiled_recorder_leaves_references_and_objects_flat() -> None:
    env = dict(os.environ, PYTHONPATH=SRC)
    got = {}
    for native in ("1", "0"):
        out = subprocess.run([sys.executable, "-c", _LEAK_CHILD, native, "300"], env=env, capture_output=True,
                             text=True, timeout=600)
        assert out.returncode == 0, out.stderr[-2000:]
        got[native] = eval(out.stdout.strip().splitlines()[-1])
    for native, (before, after, errors) in got.items():
        assert errors == [], native
        assert before[:-1] == after[:-1], (native, before, after)  # every counted reference back to its baseline
        assert after[-1] <= before[-1] + 200, (native, before[-1], after[-1])  # no objects pile up


def _record_program(w_nested: bool) -> Any:
    model = torch.nn.Sequential(torch.nn.Linear(4, 6), torch.nn.Tanh(), torch.nn.Linear(6, 2))
    x = torch.randn(3, 4)

    def program() -> None:
        y = model(x)
        torch._foreach_mul_([y.detach().clone(), x.clone()], 2.0)
        try:
            torch.ones(2) + torch.ones(3)
        except RuntimeError:
            pass
        t = torch.empty(2, 3).t()
        del t
        if w_nested:
            with watch_torch():
                (y * 2).sum().backward()
        else:
            (y * 2).sum().backward()
        model.zero_grad(set_to_none=True)

    return program


@needs_record
@pytest.mark.parametrize("nested", [False, True])
def test_compiled_recorder_same_records_with_errors_none_outputs_and_nested_watches(
        nested: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    from test_wtc36 import assert_same, both

    fast, slow, _ = both(_record_program(nested), monkeypatch)
    assert_same(fast, slow)


@needs_record
def test_compiled_recorder_threads_each_with_its_own_watch_record_what_one_thread_does() -> None:
    def steps() -> list:
        m = torch.nn.Linear(4, 4)
        x = torch.randn(2, 4)
        with watch_torch() as w:
            m(x).sum().backward()
        return [(s.name, s.kind, s.bytes_copied, s.bytes_allocated) for s in w.steps]

    alone = steps()
    got: list = []

    def worker() -> None:
        for _ in range(10):
            got.append(steps())

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert len(got) == 40 and all(g == alone for g in got)


def _many_tensors_program() -> None:
    parts = [torch.full((2,), float(i)) for i in range(70)]  # (more tensors than the C side's 64: handed back)
    whole = torch.cat(parts)
    pieces = whole.split(2)  # (70 outputs)
    torch.stack(pieces[:63])  # (63 in + 1 out: the C side's last slot)
    torch.stack(pieces[:64])  # (64 in + 1 out: one past it)


@needs_record
def test_compiled_recorder_same_records_past_its_tensor_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    from test_wtc36 import assert_same, both

    fast, slow, declined = both(_many_tensors_program, monkeypatch)
    assert_same(fast, slow)
    assert declined >= 3  # (cat, split and the second stack went to the Python recorder)
