"""Red-team findings on the Adam/lerp/addcmul/add_(alpha=) fast paths, against PyTorch 2.13.

The fused multiply-add of float64 (``kernels.fused.fma``, which ``add_(alpha=)``, ``addcmul``
and ``lerp`` round through, fast paths and general paths alike) gave NaN where PyTorch's
hardware fma gives the infinite addend (``-inf + 1e308 * 65504``: the exact product is finite),
and lost a subnormal addend beside a zero product of a huge factor (``5e-324 + -0.0 * 1e308``).
Also here: the Adam fast path against ``torch.optim`` where its preconditions fail part way
(a param group added mid-run with other flags, a saved and reloaded state dict, a transposed
parameter, an expanded gradient); ``lerp``'s number weight beyond its math type or PyTorch's
int parser (was used, rounded); a group switched to amsgrad mid-run (PyTorch's KeyError, before
any write).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided
from strided import optim

_MAX = float(np.finfo(np.float64).max)


def _same_bits(got: strided.Tensor, want: object) -> None:
    w = want.detach().numpy()  # type: ignore[attr-defined]
    g = got.numpy()
    assert g.dtype == w.dtype and got.shape == tuple(w.shape) and got.stride() == want.stride()  # type: ignore[attr-defined]
    assert np.array_equal(g, w, equal_nan=True), (g, w)


# x, y, z rows: x + y * z (addcmul, value 1), x.add_(y, alpha=z) with z a Python float.
_FMA_CASES = [
    (-np.inf, 1e308, 65504.0),  # product overflows when rounded, exact sum is -inf (was nan)
    (np.inf, -1e308, 3.5e38),
    (5e-324, 1e308, -0.0),  # zero product of a huge factor: the subnormal addend stays (was 0.0)
    (-5e-324, -0.0, 1e300),
    (-_MAX, 2.0**1000, 2.0**24),  # product overflows, the sum does not: 2**971 (was inf)
    (np.nan, 1e308, 10.0),
    (1.0, np.inf, 0.0),
    (1.0, 1e308, 10.0),
]


@pytest.mark.parametrize("x, y, z", _FMA_CASES)
def test_float64_fused_ops_with_overflowing_products_equal_torch(x: float, y: float, z: float) -> None:
    S = lambda v: strided.tensor([v, 2.0], dtype=strided.float64)  # noqa: E731
    T = lambda v: torch.tensor([v, 2.0], dtype=torch.float64)  # noqa: E731
    _same_bits(S(x).add_(S(y), alpha=z), T(x).add_(T(y), alpha=z))  # the flat fast path
    _same_bits(S(x).sub_(S(y), alpha=-z), T(x).sub_(T(y), alpha=-z))
    _same_bits(strided.add(S(x), S(y), alpha=z), torch.add(T(x), T(y), alpha=z))  # the general path
    _same_bits(strided.addcmul(S(x), S(y), S(z)), torch.addcmul(T(x), T(y), T(z)))
    _same_bits(S(x).addcmul_(S(y), S(z)), T(x).addcmul_(T(y), T(z)))
    _same_bits(strided.addcmul(S(x), S(y), S(z).t().expand(2), value=0.5),
               torch.addcmul(T(x), T(y), T(z).t().expand(2), value=0.5))


def test_float64_lerp_with_a_huge_weight_and_infinite_end_equals_torch() -> None:
    a = [1e308, -1e308, 5e-324]
    b = [-np.inf, np.inf, 1e308]
    for w in (65504.0, -1e300, 0.0):
        want = torch.lerp(torch.tensor(a, dtype=torch.float64), torch.tensor(b, dtype=torch.float64), w)
        _same_bits(strided.lerp(strided.tensor(a, dtype=strided.float64), strided.tensor(b, dtype=strided.float64), w),
                   want)


def _adam_run(lib: object, amsgrad: bool) -> list:
    """Adam over 6 steps: a transposed parameter, an expanded gradient, a group added at step 2
    with other flags (one of its params has no grad), the state saved and loaded at step 3."""
    is_torch = lib is torch
    T = (lambda a: torch.from_numpy(a.copy())) if is_torch else (lambda a: strided.tensor(a.copy()))  # noqa: E731
    lib_optim = torch.optim if is_torch else optim
    kw = {"foreach": False} if is_torch else {}
    rng = np.random.default_rng(7)
    base = rng.standard_normal(24)
    gs = [rng.standard_normal(24) for _ in range(6)]
    p = T(base).reshape(4, 6).t().detach().requires_grad_(True)  # transposed: (6, 4), strides (1, 6)
    q = T(base[:6]).reshape(1, 6).expand(4, 6).contiguous().requires_grad_(True)
    z = T(base[:3]).requires_grad_(True)

    def fresh() -> object:
        opt = lib_optim.Adam([p], lr=0.1, weight_decay=0.2, amsgrad=amsgrad, **kw)
        return opt

    opt = fresh()
    group = {"params": [q, z], "lr": 0.05, "amsgrad": True, "maximize": True, "decoupled_weight_decay": True,
             "weight_decay": 0.3}
    for i, g in enumerate(gs):
        if i == 2:
            opt.add_param_group(dict(group))
        p.grad = T(g).reshape(6, 4)
        if i >= 2:
            q.grad = T(g[:6]).reshape(1, 6).expand(4, 6)  # a stride-0 gradient: the op-by-op path
        for gr in opt.param_groups:
            gr["lr"] *= 0.9  # a schedule between steps
        opt.step()
        if i == 3:
            sd = opt.state_dict()
            opt = fresh()
            opt.add_param_group(dict(group))
            opt.load_state_dict(sd)
    return [p, q, z]


@pytest.mark.parametrize("amsgrad", [False, True])
def test_adam_with_groups_reload_and_odd_layouts_equals_torch(amsgrad: bool) -> None:
    for got, want in zip(_adam_run(strided, amsgrad), _adam_run(torch, amsgrad)):
        _same_bits(got.detach(), want.detach())


@pytest.mark.parametrize("dt", ["float32", "float16", "bfloat16", "complex64"])
def test_lerp_refuses_a_weight_its_math_type_cannot_hold_like_torch(dt: str) -> None:
    # (was: a RuntimeWarning and -inf everywhere, on the fast path and the general one alike)
    sd, td = getattr(strided, dt), getattr(torch, dt)
    for w in (1e39, -3.5e38):
        for spelling in ("lerp", "lerp_", "transposed"):
            a, b = strided.ones(2, 2, dtype=sd), strided.zeros(2, 2, dtype=sd)
            ta, tb = torch.ones(2, 2, dtype=td), torch.zeros(2, 2, dtype=td)
            with pytest.raises(RuntimeError) as want:
                torch.lerp(ta, tb, w) if spelling != "lerp_" else ta.lerp_(tb, w)
            with pytest.raises(RuntimeError) as got:
                if spelling == "lerp_":
                    a.lerp_(b, w)
                else:
                    strided.lerp(a.t() if spelling == "transposed" else a, b, w)
            assert str(got.value).splitlines()[0] == str(want.value).splitlines()[0]
            assert a.tolist() == [[1.0, 1.0], [1.0, 1.0]]  # (nothing written)
    inf = strided.lerp(strided.ones(2, dtype=sd), strided.zeros(2, dtype=sd), float("inf"))  # (inf is no overflow)
    want_inf = torch.lerp(torch.ones(2, dtype=td), torch.zeros(2, dtype=td), float("inf"))
    assert inf.dtype is sd and str(inf.tolist()) == str(want_inf.tolist())  # (str: nan parts compare)


def test_adam_switched_to_amsgrad_after_steps_raises_torchs_key_error_before_any_write() -> None:
    # (was: an AssertionError after the step was counted and the averages moved)
    def run(lib: object) -> tuple:
        is_torch = lib is torch
        lib_optim = torch.optim if is_torch else optim
        p, q = lib.ones(3, requires_grad=True), lib.ones(2, requires_grad=True)  # type: ignore[attr-defined]
        opt = lib_optim.Adam([p, q], lr=0.1, **({"foreach": False} if is_torch else {}))
        p.grad, q.grad = lib.full((3,), 0.5), lib.full((2,), -2.0)  # type: ignore[attr-defined]
        opt.step()
        before = [t.detach().clone() for t in (p, q, opt.state[p]["exp_avg"], opt.state[q]["exp_avg_sq"])]
        opt.param_groups[0]["amsgrad"] = True
        with pytest.raises(KeyError) as err:
            opt.step()
        after = [p, q, opt.state[p]["exp_avg"], opt.state[q]["exp_avg_sq"]]
        assert all(a.detach().tolist() == b.tolist() for a, b in zip(after, before))
        return str(err.value), opt.state[p]["step"].item(), opt.state[q]["step"].item()

    assert run(strided) == run(torch) == ("'max_exp_avg_sq'", 1.0, 1.0)


@pytest.mark.parametrize("w", [10**20, -(2**63) - 1])
def test_lerp_refuses_an_int_weight_pytorchs_parser_refuses(w: int) -> None:
    # (was: the weight rounded to a float and used: a silently made-up number)
    with pytest.raises(OverflowError) as want:
        torch.lerp(torch.ones(2, dtype=torch.float64), torch.zeros(2, dtype=torch.float64), w)
    x = strided.ones(2, dtype=strided.float64)
    for call in (lambda: strided.lerp(x, strided.zeros(2, dtype=strided.float64), w),
                 lambda: x.lerp_(strided.zeros(2, dtype=strided.float64), w)):
        with pytest.raises(OverflowError) as got:
            call()
        assert str(got.value).splitlines()[0] == str(want.value)
    assert x.tolist() == [1.0, 1.0]
    big = 2**64 - 1  # (the parser's last uint64: taken)
    assert strided.lerp(x, strided.zeros(2, dtype=strided.float64), big).tolist() == torch.lerp(
        torch.ones(2, dtype=torch.float64), torch.zeros(2, dtype=torch.float64), big).tolist()
