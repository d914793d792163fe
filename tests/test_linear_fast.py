"""F.linear's 2-D fast path (the matmul's kernel called without the method's entry) against its
general path (the fast path switched off): bit-identical values, layouts, gradients, nodes."""

import numpy as np
import pytest

import strided
import strided.nn.functional as F
from blas_reference import one_torch_thread, route_takes
from strided.nn.functional import layers


def _run(x_np, w_np, b_np, dtype, transpose_x=False, offset=False):
    def make(a, grad):
        t = strided.tensor(a, dtype=dtype)
        if grad:
            t.requires_grad_(True)
        return t

    x = make(x_np, True)
    w = make(w_np, True)
    b = make(b_np, True) if b_np is not None else None
    xi = x.t() if transpose_x else x
    xi = xi[1:] if offset else xi
    out = F.linear(xi, w, b)
    node = out.grad_fn
    names = (type(node).__name__ if node is not None else None,
             tuple(type(f).__name__ if f is not None else None for f, _ in node.next_functions) if node else ())
    if out.numel():
        out.sum().backward()
    grads = tuple(t.grad.numpy().tobytes() if t is not None and t.grad is not None else None for t in (x, w, b))
    return (out.detach().numpy().tobytes(), out.shape, out.stride(), out.storage_offset(), out.dtype,
            out._version, names, grads)


CASES = [((3, 4), (5, 4), True, strided.float32), ((16, 16), (16, 16), True, strided.float64),
         ((3, 4), (5, 4), False, strided.float32), ((3, 4), (5, 4), False, strided.float64),
         ((0, 4), (5, 4), True, strided.float32), ((3, 0), (5, 0), True, strided.float64),
         ((1, 1), (1, 1), True, strided.float32), ((2, 3), (0, 3), True, strided.float64)]


@pytest.mark.parametrize("xs,ws,bias,dtype", CASES)
@pytest.mark.parametrize("layout", ["plain", "transposed", "offset"])
def test_fast_path_bit_identical_to_general(monkeypatch, dtype, xs, ws, bias, layout):
    rng = np.random.default_rng(0)
    if layout == "transposed":
        x_np = rng.standard_normal(xs[::-1])
    elif layout == "offset":
        x_np = rng.standard_normal((xs[0] + 1, xs[1]))
    else:
        x_np = rng.standard_normal(xs)
    if x_np.size:
        x_np.flat[0] = -0.0
    w_np = rng.standard_normal(ws)
    b_np = rng.standard_normal(ws[0]) if bias else None
    kw = dict(transpose_x=layout == "transposed", offset=layout == "offset")
    fast = _run(x_np, w_np, b_np, dtype, **kw)
    monkeypatch.setattr(layers, "_FAST_LINEAR", False)
    slow = _run(x_np, w_np, b_np, dtype, **kw)
    if bias and route_takes(xs[0], xs[1], ws[0], np.dtype(dtype.name)):
        # (the MKL route: the fast path is PyTorch's addmm, the bias filled in and one gemm; the
        # general path's product then add rounds twice, the same bits on an AVX-512 CPU only: MKL's
        # AVX2 kernels start their sums from the bias. Values against torch's; the rest as before)
        torch = pytest.importorskip("torch")
        x_t = torch.from_numpy(x_np).to(getattr(torch, dtype.name))
        x_t = x_t.t() if layout == "transposed" else x_t
        x_t = x_t[1:] if layout == "offset" else x_t
        with one_torch_thread():
            want = torch.nn.functional.linear(x_t, torch.from_numpy(w_np).to(x_t.dtype),
                                              torch.from_numpy(b_np).to(x_t.dtype))
        assert fast[0] == want.numpy().tobytes()
        fast, slow = fast[1:], slow[1:]
    assert fast == slow


def test_matches_torch_and_errors_unchanged():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    x_np, w_np, b_np = (rng.standard_normal(s).astype(np.float32) for s in ((3, 4), (5, 4), (5,)))
    ours = F.linear(strided.tensor(x_np), strided.tensor(w_np), strided.tensor(b_np))
    theirs = torch.nn.functional.linear(torch.tensor(x_np), torch.tensor(w_np), torch.tensor(b_np))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6, atol=1e-6)
    with pytest.raises(RuntimeError) as ours_err:
        F.linear(strided.ones(3, 4), strided.ones(5, 3))
    with pytest.raises(RuntimeError) as torch_err:
        torch.nn.functional.linear(torch.ones(3, 4), torch.ones(5, 3))
    assert str(torch_err.value).splitlines()[0] == str(ours_err.value).splitlines()[0]


def test_watched_call_records_the_same(monkeypatch):
    def records():
        with strided.watch() as w:
            F.linear(strided.ones(3, 4), strided.ones(5, 4), strided.ones(5))
        return [str(s) for s in w.steps]

    fast = records()
    assert fast  # (the watched call was seen)
    monkeypatch.setattr(layers, "_FAST_LINEAR", False)
    assert records() == fast


def test_module_call_without_and_with_hooks():
    lin = strided.nn.Linear(4, 3)
    x = strided.ones(2, 4)
    plain = lin(x)
    seen = []
    h1 = lin.register_forward_pre_hook(lambda m, a: seen.append("pre"))
    h2 = lin.register_forward_hook(lambda m, a, r: r * 2)
    doubled = lin(x)
    assert seen == ["pre"]
    assert doubled.detach().numpy().tobytes() == (plain * 2).detach().numpy().tobytes()
    h1.remove()
    h2.remove()
    assert lin(x).detach().numpy().tobytes() == plain.detach().numpy().tobytes()
    assert seen == ["pre"]
