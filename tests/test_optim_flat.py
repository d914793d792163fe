"""The flat fast paths of an optimizer's ops (issue 23): ``optim.Adam``'s one-kernel update
(:mod:`strided.kernels.adam_step`), ``lerp``/``lerp_``, out-of-place ``addcmul``/``addcdiv`` and
``add_(..., alpha=)``. Each must give the bits of the general path it bypasses (the same ops on
a transposed layout, or the optimizer's op-by-op update) and of PyTorch, count the same versions,
and fall through to the general path where its preconditions fail."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided
import strided.optim.adam as adam_module
from strided import optim

DTYPES = ("float32", "float64")


def _data(rng: np.random.Generator, dt: str, shape: tuple[int, ...] = (6, 5)) -> np.ndarray:
    return rng.standard_normal(shape).astype(dt)


def _transposed(a: np.ndarray) -> strided.Tensor:
    """The same values on a column-major layout: the general path."""
    return strided.tensor(np.ascontiguousarray(a.T)).t() if a.ndim == 2 else strided.tensor(a)


@pytest.mark.parametrize("dt", DTYPES)
def test_lerp_fast_path_equals_general_path_and_torch(dt: str) -> None:
    strided.ones(1, requires_grad=True).sum().backward()  # (versions are counted once autograd is used)
    rng = np.random.default_rng(0)
    for w in (0.1, -0.3, 0.7, 1.5):
        a, b = _data(rng, dt), _data(rng, dt)
        fast = strided.lerp(strided.tensor(a), strided.tensor(b), w)
        general = strided.lerp(_transposed(a), _transposed(b), w)
        expected = torch.lerp(torch.tensor(a), torch.tensor(b), w).numpy()
        x = strided.tensor(a)
        before = x._version
        assert x.lerp_(strided.tensor(b), w) is x
        assert x._version == before + 1
        assert fast.stride() == (5, 1) and fast.dtype == getattr(strided, dt)
        np.testing.assert_array_equal(fast.numpy(), general.numpy())
        np.testing.assert_array_equal(x.numpy(), expected)
        np.testing.assert_array_equal(fast.numpy(), expected)


@pytest.mark.parametrize("name", ["addcmul", "addcdiv"])
@pytest.mark.parametrize("dt", DTYPES)
def test_addc_out_of_place_fast_path_equals_general_path_and_torch(name: str, dt: str) -> None:
    rng = np.random.default_rng(1)
    for value in (1, 0.5, -1e-3, 3):
        a, b, c = _data(rng, dt), _data(rng, dt), _data(rng, dt) + 3
        fast = getattr(strided, name)(*(strided.tensor(t) for t in (a, b, c)), value=value)
        general = getattr(strided, name)(*(_transposed(t) for t in (a, b, c)), value=value)
        expected = getattr(torch, name)(*(torch.tensor(t) for t in (a, b, c)), value=value).numpy()
        assert fast.stride() == (5, 1) and fast.dtype == getattr(strided, dt)
        np.testing.assert_array_equal(fast.numpy(), general.numpy())
        np.testing.assert_array_equal(fast.numpy(), expected)


def test_addc_fast_path_keeps_the_errors_and_zero_size() -> None:
    x = strided.zeros(0, 3)
    assert strided.addcmul(x, x, x, value=0.5).shape == (0, 3)
    with pytest.raises(RuntimeError) as ours:  # (value beyond float32: the general path refuses it)
        strided.addcmul(strided.ones(2), strided.ones(2), strided.ones(2), value=1e39)
    with pytest.raises(RuntimeError) as theirs:
        torch.addcmul(torch.ones(2), torch.ones(2), torch.ones(2), value=1e39)
    assert str(theirs.value) in str(ours.value)


@pytest.mark.parametrize("dt", DTYPES)
def test_add_with_alpha_in_place_equals_torch(dt: str) -> None:
    rng = np.random.default_rng(2)
    a, b = _data(rng, dt), _data(rng, dt)
    for alpha in (0.1, -0.37, 2, 1e5):
        for name in ("add_", "sub_"):
            x = strided.tensor(a)
            getattr(x, name)(strided.tensor(b), alpha=alpha)
            t = torch.tensor(a)
            getattr(t, name)(torch.tensor(b), alpha=alpha)
            np.testing.assert_array_equal(x.numpy(), t.numpy())
    with pytest.raises(RuntimeError, match="Boolean alpha only supported"):
        strided.tensor(a).add_(strided.tensor(b), alpha=True)


@pytest.mark.parametrize("dt", DTYPES)
def test_in_place_ops_with_a_number_equal_the_general_path_and_torch(dt: str) -> None:
    """``m.mul_(0.9)``, ``d.add_(1e-8)``: the flat path hands a Python float to the ufunc as it is
    (NumPy's weak scalar), no longer the dtype's scalar: the same bits as the general path (a
    transposed tensor) and PyTorch, for numbers float32 rounds, subnormal, huge and integral ones,
    and the same version count."""
    rng = np.random.default_rng(7)
    a = _data(rng, dt) * np.array(10.0, dt) ** rng.integers(-30, 30, (6, 5)).astype(dt)
    for number in (0.9, 1 / 3, 0.1, 1e-8, 1e-45, -2.5e-39, 3.3e38, 7, -3, 2.0**-149, 1e300 if dt == "float64" else 1e30):
        for name in ("mul_", "div_", "add_", "sub_"):
            flat, general, t = strided.tensor(a), _transposed(a), torch.tensor(a)
            with np.errstate(all="ignore"):
                getattr(flat, name)(number)
                getattr(general, name)(number)
            getattr(t, name)(number)
            np.testing.assert_array_equal(flat.numpy().view(f"u{a.itemsize}"), general.numpy().view(f"u{a.itemsize}"))
            np.testing.assert_array_equal(flat.numpy(), t.numpy())
            assert flat._version == general._version == t._version == 1


def _train(flat: bool, dt: str, shape: tuple[int, ...], cls: type = optim.Adam, steps: int = 4, **kw: object) -> tuple:
    """``steps`` steps of ``cls`` on one parameter; ``flat=False`` forces the op-by-op update."""
    calls: list[bool] = []
    real = adam_module._flat_update

    def spy(*args: object, **kwargs: object) -> bool:
        calls.append(real(*args, **kwargs) if flat else False)
        return calls[-1]

    adam_module._flat_update = spy
    try:
        rng = np.random.default_rng(3)
        w = strided.tensor(rng.standard_normal(shape).astype(dt), requires_grad=True)
        opt = cls([w], lr=0.1, **kw)
        for _ in range(steps):
            opt.zero_grad()
            ((w * w * w).sum() + (w * 3).sum()).backward()
            opt.step()
    finally:
        adam_module._flat_update = real
    state = {k: v.numpy().copy() for k, v in opt.state[w].items()}
    return w.detach().numpy().copy(), w._version, state, calls


CONFIGS = [{}, {"weight_decay": 0.1}, {"amsgrad": True}, {"maximize": True}, {"betas": (0.3, 0.5)},
           {"cls": optim.AdamW, "weight_decay": 0.3}]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: ",".join(f"{k}" for k in c) or "default")
@pytest.mark.parametrize("dt", DTYPES)
def test_adam_flat_update_equals_the_op_by_op_update(config: dict, dt: str) -> None:
    for shape in ((6, 5), (0,), ()):
        fast, fast_version, fast_state, calls = _train(True, dt, shape, **config)
        slow, slow_version, slow_state, _ = _train(False, dt, shape, **config)
        assert calls and all(calls)  # (the fast path ran every step)
        np.testing.assert_array_equal(fast, slow)
        assert fast_version == slow_version
        assert sorted(fast_state) == sorted(slow_state)
        for key in fast_state:
            np.testing.assert_array_equal(fast_state[key], slow_state[key])


def test_adam_flat_update_matches_torch_float64() -> None:
    rng = np.random.default_rng(4)
    init = rng.standard_normal((4, 3))
    w, tw = strided.tensor(init, requires_grad=True), torch.tensor(init, requires_grad=True)
    opt, topt = optim.Adam([w], lr=0.05, amsgrad=True), torch.optim.Adam([tw], lr=0.05, amsgrad=True, foreach=False)
    for _ in range(5):
        for o, p in ((opt, w), (topt, tw)):
            o.zero_grad()
            ((p * p * p).sum() + (p * 3).sum()).backward()
            o.step()
    np.testing.assert_array_equal(w.detach().numpy(), tw.detach().numpy())
    assert w._version == tw._version
    for key in ("exp_avg", "exp_avg_sq", "max_exp_avg_sq", "step"):
        np.testing.assert_array_equal(opt.state[w][key].numpy(), topt.state[tw][key].numpy())


def test_adam_falls_back_where_the_flat_path_does_not_apply() -> None:
    # a transposed parameter, a gradient sharing the parameter's memory, a float16 parameter:
    # the op-by-op update runs (the kernel is not called) and gives its own numbers
    base = strided.randn(4, 3)
    cases = [base.t().detach().requires_grad_(), strided.randn(3, 2, dtype=strided.float16,
                                                                               requires_grad=True)]
    real = adam_module._flat_update
    results: list[bool] = []

    def spy(*args: object, **kwargs: object) -> bool:
        results.append(real(*args, **kwargs))
        return results[-1]

    for w in cases:
        opt = optim.Adam([w], lr=0.1)
        (w.float() * w.float()).sum().backward()
        before = w.detach().clone()
        results.clear()
        adam_module._flat_update = spy
        try:
            opt.step()
        finally:
            adam_module._flat_update = real
        assert results == [False]
        assert not strided.equal(w.detach(), before)
    w = strided.ones(3, requires_grad=True)
    w.grad = w.detach()  # (the gradient is the parameter's own memory)
    opt = optim.Adam([w], lr=0.1)
    state = opt.state[w]
    assert not adam_module._flat_update(w, w.grad, {"step": strided.tensor(0.0), "exp_avg": strided.zeros(3),
                                                    "exp_avg_sq": strided.zeros(3)}, False)
    opt.step()
    assert state["step"].item() == 1.0


def test_zero_and_copy_fast_paths_write_what_torch_writes() -> None:
    strided.ones(1, requires_grad=True).sum().backward()  # (versions are counted once autograd is used)
    rng = np.random.default_rng(5)
    a, b = _data(rng, "float32", (4, 5)), _data(rng, "float32", (4, 5))
    for dtype in ("float32", "float64", "int64", "bool", "complex64"):
        x, t = strided.tensor(a).to(getattr(strided, dtype)), torch.tensor(a).to(getattr(torch, dtype))
        row = x[1:3]  # (a row-major view at an offset: only its elements are written)
        before = x._version
        assert row.zero_() is row
        t[1:3].zero_()
        np.testing.assert_array_equal(x.numpy(), t.numpy())
        assert x._version == before + 1
        src, tsrc = strided.tensor(b).to(getattr(strided, dtype)), torch.tensor(b).to(getattr(torch, dtype))
        assert x.copy_(src) is x
        t.copy_(tsrc)
        np.testing.assert_array_equal(x.numpy(), t.numpy())
        assert x._version == before + 2
    x, t = strided.tensor(a), torch.tensor(a)
    with pytest.raises(RuntimeError) as ours:  # (a source partly overlapping the target: the general path)
        x[:3].copy_(x[1:])
    with pytest.raises(RuntimeError) as theirs:
        t[:3].copy_(t[1:])
    assert str(theirs.value).splitlines()[0] in str(ours.value)
    frozen = np.zeros(3, np.float32)
    frozen.flags.writeable = False
    with pytest.raises(RuntimeError, match="read-only"):
        strided.from_numpy(frozen).zero_()
    with pytest.raises(RuntimeError, match="read-only"):
        strided.from_numpy(frozen).copy_(strided.ones(3))


@pytest.mark.parametrize("config", [{}, {"amsgrad": True}, {"cls": optim.AdamW, "weight_decay": 0.3}],
                         ids=["default", "amsgrad", "adamw"])
def test_flat_update_counts_every_write_and_names_the_users_line(config: dict) -> None:
    """The fused update's writes (counted together, one user line looked up for all): each state
    tensor's version and its last write (op, file:line) as the op-by-op update leaves them. The
    line is remembered only for a storage a live node saved for backward (the modified-tensor
    error's only reader): the last step runs with such nodes held over every state tensor and w,
    and without them (``held=False``) no line is looked up, the counts the same."""
    from strided.grad_mode import last_write

    def run(flat: bool, held: bool = True) -> list:
        real = adam_module._flat_update
        if not flat:  # (no spy around the fused path: a wrapper here would be the user's frame)
            adam_module._flat_update = lambda *a, **k: False
        try:
            kw = dict(config)
            cls = kw.pop("cls", optim.Adam)
            w = strided.tensor(np.arange(6.0, dtype=np.float32).reshape(2, 3), requires_grad=True)
            opt = cls([w], lr=0.1, **kw)
            probe = strided.ones(2, 3, requires_grad=True)
            nodes = []
            for i in range(3):
                opt.zero_grad()
                (w * w).sum().backward()
                if held and i == 2:  # (nodes saving each state tensor and w, alive over the step)
                    nodes = [probe * t for t in opt.state[w].values()] + [probe * w]
                opt.step()  # (the line every write is charged to)
        finally:
            adam_module._flat_update = real
        state = opt.state[w]
        assert len(nodes) == (len(state) + 1 if held else 0)
        return [(k, state[k]._version, last_write(state[k])) for k in sorted(state)] + [
            ("param", w._version, last_write(w))]

    fast, slow = run(True), run(False)
    assert fast == slow
    unheld = run(True, held=False)
    assert [(k, v) for k, v, _ in unheld] == [(k, v) for k, v, _ in fast]
    assert all(site is None for _, _, site in unheld)
    assert all(site is not None and "test_optim_flat.py" in site[1] for _, _, site in fast)
