"""Hostile differential tests of session 34's surfaces (issue #23), against PyTorch 2.13.

Fixed here:

- bfloat16 NaN words of the activations computed in float32 and rounded back (elu, selu, celu,
  softplus, logsigmoid, hardsigmoid, hardswish, silu, mish, leaky_relu, softshrink; fresh and in
  place): PyTorch's vector loop converts with ``cvtfp32_bf16`` (every NaN 0xFFFF), its scalar
  function with ``c10::BFloat16`` (every NaN 0x7FC0); strided's cast kept the NaN's sign (0xFFC0
  for a negative one, 0x7FC0 for a positive one) in both places. The vector step is measured per
  kernel (64 elements under AVX512 for the elu family, softplus, hardswish, silu, mish; 32 for
  hardsigmoid, leaky_relu, softshrink; every element for log_sigmoid's own loop; none under
  ``ATEN_CPU_CAPABILITY=default``).
- ``F.logsigmoid``'s first-order gradient (float32 / float64): PyTorch's log_sigmoid_backward bits,
  its buffer ``exp(-|x|)`` SLEEF's at every element and ``(max_deriv - sign * q) * g`` in that
  order (NumPy's exp was an ulp off in ~17% of float32 elements; a NaN input gave +NaN where
  PyTorch gives -|NaN|'s NaN); under ``ATEN_CPU_CAPABILITY=default`` the C library's exp, as
  its lane-by-lane std::exp.
- ``celu`` / ``celu_`` of a 0-d tensor with alpha != 1 through the general path (in place, recorded,
  or with an inference tensor alive): NumPy's expm1 of the NumPy scalar ``x / alpha`` (an ulp off)
  where PyTorch runs its scalar function (the C library's expm1).
- ``std`` / ``var`` of a float16 / bfloat16 input into a float32 / float64 ``out=`` with one output
  element: PyTorch's ``std_var_all: Unsupported dtype Half`` (its whole-tensor kernel, taken because
  the reduction computes in the out's dtype); strided wrote the value.
- ``EluBackward1``'s ``_saved_scale`` / ``_saved_input_scale`` (in-place elu / selu on a tensor in
  the graph): the int 1 PyTorch saves for elu_'s default Scalar (was 1.0).
- the version-counter error names an overload's node as PyTorch does: ``EluBackward1`` ->
  ``Elu1``, ``ClampBackward1`` -> ``Clamp1`` (was ``Elu`` / ``Clamp``); ``...Backward0`` -> ``...``.

Strict xfails: what is left (each test's reason).
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import strided
import strided.nn.functional as F


def _words(x) -> np.ndarray:
    """The bfloat16 (or any 2-byte) tensor's words, row-major."""
    if isinstance(x, torch.Tensor):
        return x.detach().contiguous().view(torch.int16).numpy().astype(np.uint16).reshape(-1)
    return np.ascontiguousarray(x.view(strided.int16).numpy()).astype(np.uint16).reshape(-1)


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    u = {2: np.uint16, 4: np.uint32, 8: np.uint64}[a.itemsize]
    return a.shape == b.shape and np.array_equal(a.view(u), b.view(u))


def _as_strided(t: torch.Tensor) -> strided.Tensor:
    """A strided tensor over a copy of ``t``'s whole storage, with ``t``'s shape, strides, offset."""
    flat = torch.empty(t.untyped_storage().nbytes() // t.element_size(), dtype=t.dtype)
    flat.untyped_storage().copy_(t.untyped_storage())
    if t.dtype == torch.bfloat16:
        s = strided.from_numpy(flat.view(torch.int16).numpy().copy()).view(strided.bfloat16)
    else:
        s = strided.from_numpy(flat.numpy().copy())
    return s.as_strided(tuple(t.shape), tuple(t.stride()), t.storage_offset())


# --- 1. bfloat16 NaN words of the activations (fixed) -----------------------------------------

_BF16_OPS = {
    "elu": (lambda L, x: L.elu(x, 0.5), True),
    "selu": (lambda L, x: L.selu(x), True),
    "celu": (lambda L, x: L.celu(x, 0.7), True),
    "softplus": (lambda L, x: L.softplus(x, 2.0, 5.0), False),
    "logsigmoid": (lambda L, x: L.logsigmoid(x), False),
    "hardsigmoid": (lambda L, x: L.hardsigmoid(x), True),
    "hardswish": (lambda L, x: L.hardswish(x), True),
    "silu": (lambda L, x: L.silu(x), True),
    "mish": (lambda L, x: L.mish(x), True),
    "leaky_relu": (lambda L, x: L.leaky_relu(x, 0.2), True),
    "softshrink": (lambda L, x: L.softshrink(x, 1e-3), False),  # (no zero band: see the xfail below)
}
_INPLACE = {
    "elu": lambda L, x: L.elu(x, 0.5, inplace=True),
    "selu": lambda L, x: L.selu(x, inplace=True),
    "celu": lambda L, x: L.celu(x, 0.7, inplace=True),
    "hardsigmoid": lambda L, x: L.hardsigmoid(x, inplace=True),
    "hardswish": lambda L, x: L.hardswish(x, inplace=True),
    "silu": lambda L, x: L.silu(x, inplace=True),
    "mish": lambda L, x: L.mish(x, inplace=True),
    "leaky_relu": lambda L, x: L.leaky_relu(x, 0.2, inplace=True),
}


def _bf16_nan_input(n: int) -> torch.Tensor:
    """A bfloat16 row of ``n`` holding NaNs of both signs and payloads, infinities (hardswish(-inf)
    and selu(-inf) * 0 paths make NaNs of numbers), zeros and numbers."""
    w = (np.random.default_rng(n).standard_normal(n) * 3).astype(np.float32)
    t = torch.from_numpy(w).bfloat16().view(torch.int16)
    t[::3] = 0x7FC0
    t[1::5] = -1  # 0xFFFF
    t[2::7] = -64  # 0xFFC0
    t[4::11] = -128  # -inf
    t[5::13] = 0x7F81  # a signalling payload
    return t.view(torch.bfloat16)


def _bf16_layouts(x: torch.Tensor):
    n = x.shape[0]
    yield "flat", x
    yield "stepped", torch.stack([x, x], 1)[:, 0]
    if n % 2 == 0:
        yield "T", x.reshape(2, n // 2).t()
        yield "rows", x.reshape(2, n // 2)
    yield "expanded", x[: min(n, 70)].expand(3, min(n, 70))
    yield "0-d", x[0]


@pytest.mark.usefixtures("torch_threads_as_assumed")
@pytest.mark.parametrize("name", sorted(_BF16_OPS))
def test_bf16_nan_words_fresh(name: str) -> None:
    f, _ = _BF16_OPS[name]
    for n in [1, 2, 17, 31, 32, 33, 63, 64, 65, 96, 129, 200]:
        for lab, t in _bf16_layouts(_bf16_nan_input(n)):
            want, got = f(TF, t), f(F, _as_strided(t))
            assert got.stride() == want.stride(), (name, n, lab)
            np.testing.assert_array_equal(_words(got), _words(want), err_msg=f"{name} {n} {lab}")


@pytest.mark.usefixtures("torch_threads_as_assumed")
@pytest.mark.parametrize("name", sorted(_INPLACE))
def test_bf16_nan_words_in_place(name: str) -> None:
    f = _INPLACE[name]
    for n in [2, 17, 33, 64, 65, 129, 200]:
        for lab, t in _bf16_layouts(_bf16_nan_input(n)):
            if lab == "expanded":
                continue  # (PyTorch refuses the overlapping target: tested elsewhere)
            tt = t.clone() if lab != "stepped" else torch.stack([t, t], 1)[:, 0]
            ss = _as_strided(tt)
            rt, rs = f(TF, tt), f(F, ss)
            assert rs is ss and rt is tt
            np.testing.assert_array_equal(_words(ss), _words(tt), err_msg=f"{name} {n} {lab}")


def test_bf16_nan_words_top_level_in_place() -> None:
    """strided.selu_ / celu_ (session 34's spellings of torch's) write PyTorch's words too."""
    t = _bf16_nan_input(129)
    for fs, ft in ((strided.selu_, torch.selu_), (lambda x: strided.celu_(x, 0.7), lambda x: torch.celu_(x, 0.7))):
        tt, ss = t.clone(), _as_strided(t.clone())
        ft(tt)
        fs(ss)
        np.testing.assert_array_equal(_words(ss), _words(tt))


def test_bf16_nan_words_recorded() -> None:
    """The recording entry (an input requiring grad) and the in-place form on a tensor in the graph."""
    t = _bf16_nan_input(130)
    for name, (f, _) in _BF16_OPS.items():
        want = f(TF, t.clone().requires_grad_())
        got = f(F, _as_strided(t).requires_grad_())
        np.testing.assert_array_equal(_words(got), _words(want), err_msg=name)
    for name in ("elu", "selu", "celu"):
        a, b = t.clone().requires_grad_(), _as_strided(t).requires_grad_()
        za, zb = a * 1, b * 1
        _INPLACE[name](TF, za)
        _INPLACE[name](F, zb)
        np.testing.assert_array_equal(_words(zb), _words(za), err_msg=name)


_CAPABILITY_SCRIPT = r"""
import numpy as np, torch, strided, sys
import torch.nn.functional as TF, strided.nn.functional as F
torch.set_num_threads(1)
bad = []
for n in (17, 64, 65, 129):
    w = torch.full((n,), float("nan")).bfloat16().view(torch.int16)
    w[::2] = 0x7FC0
    t = w.view(torch.bfloat16)
    for name in ("elu", "selu", "softplus", "logsigmoid", "hardsigmoid", "hardswish", "leaky_relu"):
        a = getattr(TF, name)(t).view(torch.int16).numpy()
        s = strided.from_numpy(w.numpy().copy()).view(strided.bfloat16)
        b = getattr(F, name)(s).view(strided.int16).numpy()
        if not np.array_equal(a, b):
            bad.append(f"{name} {n}")
print(";".join(bad))
"""


@pytest.mark.parametrize("capability", ["avx2", "default"])
def test_bf16_nan_words_other_capabilities(capability: str) -> None:
    """ATEN_CPU_CAPABILITY=avx2 halves the vector step; default has none (every NaN 0x7FC0)."""
    assert _run_capability(_CAPABILITY_SCRIPT, capability) == ""


# --- 2. logsigmoid's first-order gradient bits (fixed) ------------------------------------------

def _values(n: int, dtype, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal(n) * 6).astype(dtype)
    sp = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-40, -1e-40, 88.0, -88.0, 750.0, -750.0], dtype)
    a[: min(n, len(sp))] = sp[: min(n, len(sp))]
    return a


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("layout", ["flat", "T", "stepped", "0-d", "expanded", "empty"])
def test_logsigmoid_backward_bits(dtype, layout: str) -> None:
    for n in ([1] if layout == "0-d" else [0] if layout == "empty" else [12, 40, 130]):
        a = _values(2 * n if layout == "stepped" else n, dtype, n)
        g = _values(n, dtype, n + 1)[::-1].copy()
        t0 = torch.from_numpy(a.copy())
        if layout == "T" and n % 2 == 0:
            t0 = t0.reshape(2, n // 2).t()
            g = g.reshape(n // 2, 2)
        elif layout == "stepped":
            t0 = t0[::2]
        elif layout == "0-d":
            t0, g = t0[0], g[0].copy()
        elif layout == "expanded":
            t0, g = t0[:5], np.broadcast_to(g[:5], (3, 5)).copy()
        t = t0.clone().requires_grad_()
        s = _as_strided(t0).clone().requires_grad_() if layout != "T" else _as_strided(t0).requires_grad_()
        if layout == "T":
            t = t0.detach().clone().t().contiguous().t().requires_grad_()
            s = strided.from_numpy(t.detach().numpy().T.copy()).T.requires_grad_()
        xt = t.expand(3, 5) if layout == "expanded" else t
        xs = s.expand(3, 5) if layout == "expanded" else s
        (gt,) = torch.autograd.grad(TF.logsigmoid(xt), t, torch.from_numpy(np.asarray(g)))
        (gs,) = strided.autograd.grad(F.logsigmoid(xs), s, strided.from_numpy(np.asarray(g)))
        assert _same_bits(gs.numpy(), gt.numpy()), (layout, n)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_logsigmoid_backward_bits_wide_sweep(dtype) -> None:
    """Every float32 exponent's worth of inputs: the buffer's exp at every element is SLEEF's."""
    x = np.concatenate([np.geomspace(1e-30, 120, 3000), -np.geomspace(1e-30, 120, 3000)]).astype(dtype)
    g = np.linspace(-3, 3, x.size).astype(dtype)
    t, s = torch.from_numpy(x.copy()).requires_grad_(), strided.from_numpy(x.copy()).requires_grad_()
    TF.logsigmoid(t).backward(torch.from_numpy(g.copy()))
    F.logsigmoid(s).backward(strided.from_numpy(g.copy()))
    assert _same_bits(s.grad.numpy(), t.grad.numpy())


_LOGSIGMOID_SCRIPT = r"""
import numpy as np, torch, strided, sys
import torch.nn.functional as TF, strided.nn.functional as F
torch.set_num_threads(1)
bad = []
for dt in (np.float32, np.float64):
    for n in (1, 7, 17, 40, 100):
        a = (np.random.default_rng(n).standard_normal(n) * 6).astype(dt)
        a[0] = np.nan
        g = np.linspace(-2, 2, n).astype(dt)
        for step in (1, 2):
            t = torch.from_numpy(np.repeat(a, step))[::step].clone().requires_grad_()
            s = strided.from_numpy(np.repeat(a, step))[::step].clone().requires_grad_()
            (gt,) = torch.autograd.grad(TF.logsigmoid(t) if sys.argv[1] == "bwd" else t * 1, t, torch.from_numpy(g.copy()))
            (gs,) = strided.autograd.grad(F.logsigmoid(s) if sys.argv[1] == "bwd" else s * 1, s, strided.from_numpy(g.copy()))
            if sys.argv[1] == "fwd":
                gt, gs = TF.logsigmoid(t.detach()), F.logsigmoid(s.detach())
            u = np.uint32 if dt == np.float32 else np.uint64
            if not np.array_equal(gs.detach().numpy().view(u), gt.detach().numpy().view(u)):
                bad.append(f"{dt.__name__} {n} {step}")
print(";".join(bad))
"""


def _run_capability(script: str, capability: str, *args: str) -> str:
    src = os.path.dirname(os.path.dirname(strided.__file__))
    env = dict(os.environ, ATEN_CPU_CAPABILITY=capability, OMP_NUM_THREADS="1",
               PYTHONPATH=os.pathsep.join(p for p in (src, os.environ.get("PYTHONPATH", "")) if p))
    done = subprocess.run([sys.executable, "-W", "ignore", "-c", script, *args], env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip()


@pytest.mark.parametrize("capability", ["avx2", "default"])
def test_logsigmoid_backward_bits_other_capabilities(capability: str) -> None:
    assert _run_capability(_LOGSIGMOID_SCRIPT, capability, "bwd") == ""


@pytest.mark.xfail(strict=True, reason="F.logsigmoid's forward under ATEN_CPU_CAPABILITY=default: PyTorch's "
                   "lane-by-lane std::exp / std::log1p; strided's compiled pass is off there and NumPy's exp / "
                   "log1p run (float32 rows of 17, 40, 100 and float64 rows of 40, 100 hold an ulp-off element)")
def test_logsigmoid_forward_bits_default_capability() -> None:
    assert _run_capability(_LOGSIGMOID_SCRIPT, "default", "fwd") == ""


# --- 3. celu of a 0-d tensor on the general path (fixed) -----------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_celu_zero_dim_general_path(dtype) -> None:
    """An inference tensor alive sends in-place calls to the general path (as do autograd and
    watchers): its 0-d celu_ with alpha 0.5 was NumPy's expm1 (an ulp off at -1.5)."""
    with strided.inference_mode():
        keep = strided.tensor([1.0])
    values = -np.abs(np.random.default_rng(3).standard_normal(200) * 3).astype(dtype)
    values[0] = -1.5
    for alpha in (0.5, 0.3, 2.0, 0.7):
        for v in values:
            want = torch.celu_(torch.tensor(v), alpha).numpy()
            assert _same_bits(strided.celu_(strided.tensor(v), alpha).numpy(), want), (alpha, v)
            got = F.celu(strided.tensor(v).requires_grad_(), alpha).detach().numpy()
            assert _same_bits(got, want), (alpha, v)
    del keep


# --- 4. the version-counter error's node name (fixed) ----------------------------------------------

@pytest.mark.parametrize("call", ["elu_", "celu_", "selu_", "clamp_", "relu_", "pow_"])
def test_version_error_names_the_overload(call: str) -> None:
    ops = {"elu_": lambda L, b: (TF if L is torch else F).elu(b, inplace=True),
           "celu_": lambda L, b: L.celu_(b, 0.5), "selu_": lambda L, b: L.selu_(b),
           "clamp_": lambda L, b: b.clamp_(0.0), "relu_": lambda L, b: L.relu_(b), "pow_": lambda L, b: b.pow_(2)}
    texts = []
    for L in (torch, strided):
        a = L.tensor([1.0, -2.0, 3.0], requires_grad=True)
        b = a * 1
        c = b * b
        ops[call](L, b)
        with pytest.raises(RuntimeError) as info:
            c.sum().backward()
        texts.append(str(info.value).split("\n")[0].split(" Hint")[0])
    assert texts[1] == texts[0]


# --- 5. std / var of a half input into a wider float out= (fixed) -----------------------------------

@pytest.mark.parametrize("fn", ["std", "var"])
@pytest.mark.parametrize("idt", ["float16", "bfloat16", "float32"])
@pytest.mark.parametrize("odt", ["float32", "float64", "float16", "complex64"])
def test_std_var_half_input_wider_out(fn: str, idt: str, odt: str) -> None:
    for shape, dims in (((4,), 0), ((1, 4), 1), ((3, 4), (0, 1)), ((3, 4), (1,)), ((0, 3), (0, 1)),
                        ((3, 4), None), ((), None)):
        got = []
        for L in (strided, torch):
            x = L.ones(shape, dtype=getattr(L, idt))
            o = L.empty(0, dtype=getattr(L, odt))
            try:
                with np.errstate(all="ignore"):
                    import warnings
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        getattr(L, fn)(x, dims, out=o)
                got.append(("ok", tuple(o.shape), o.dtype.__repr__().split(".")[-1]))
            except (RuntimeError, NotImplementedError) as e:
                got.append((RuntimeError if isinstance(e, RuntimeError) else NotImplementedError,
                            str(e).split("\n")[0]))
        assert got[0] == got[1], (shape, dims)


# --- 6. EluBackward1's saved numbers (fixed) ------------------------------------------------------

@pytest.mark.parametrize("call", ["elu", "selu"])
def test_elu_backward1_saved_scalars_types(call: str) -> None:
    got = []
    for L, FF in ((torch, TF), (strided, F)):
        z = L.tensor([1.0, -2.0], requires_grad=True) * 1
        (FF.elu(z, 0.3, inplace=True) if call == "elu" else FF.selu(z, inplace=True))
        fn = z.grad_fn
        got.append([(type(getattr(fn, a)), getattr(fn, a)) for a in ("_saved_alpha", "_saved_scale", "_saved_input_scale")])
    assert got[1] == got[0]


# --- strict xfails: what is left ---------------------------------------------------------------

@pytest.mark.xfail(strict=True, reason="softplus's first-order gradient takes EXP_SPLIT's lanes from x's own "
                   "layout: a transposed x with a row-major incoming gradient (PyTorch's loop: the gradient's "
                   "order, x non-contiguous, every element std::exp) or an expanded x (rows of x's last dim) "
                   "gives SLEEF's exp where PyTorch takes the C library's: (17, 9) float32 T, 10 of 153 "
                   "elements an ulp off")
def test_softplus_backward_bits_transposed_input() -> None:
    a = (np.random.default_rng(4).standard_normal((9, 17)) * 4).astype(np.float32)
    g = (np.random.default_rng(5).standard_normal((17, 9))).astype(np.float32)
    t = torch.from_numpy(a.copy()).t().requires_grad_()
    s = strided.from_numpy(a.copy()).T.requires_grad_()
    (gt,) = torch.autograd.grad(TF.softplus(t), t, torch.from_numpy(g.copy()))
    (gs,) = strided.autograd.grad(F.softplus(s), s, strided.from_numpy(g.copy()))
    assert _same_bits(gs.numpy(), gt.numpy())


@pytest.mark.xfail(strict=True, reason="logsigmoid's float16 / bfloat16 gradient: PyTorch's reduced-float "
                   "log_sigmoid_backward reads its buffer exp(-|x|) rounded to the input's dtype (and writes "
                   "bfloat16 NaN words by loop place); strided's fused backward computes z in float32")
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_logsigmoid_backward_reduced_floats(dtype: str) -> None:
    a = (np.random.default_rng(6).standard_normal(130) * 4).astype(np.float32)
    t = torch.from_numpy(a).to(getattr(torch, dtype)).requires_grad_()
    s = strided.from_numpy(a).to(getattr(strided, dtype)).requires_grad_()
    g = np.linspace(-2, 2, 130).astype(np.float32)
    (gt,) = torch.autograd.grad(TF.logsigmoid(t), t, torch.from_numpy(g).to(t.dtype))
    (gs,) = strided.autograd.grad(F.logsigmoid(s), s, strided.from_numpy(g).to(s.dtype))
    np.testing.assert_array_equal(_words(gs), _words(gt))


@pytest.mark.xfail(strict=True, reason="softshrink of float16 / bfloat16: the zero band's sign follows "
                   "float32's 16 vector lanes (the upcast copy's; a stepped input's copy is contiguous), "
                   "PyTorch's reduced-float loop takes 32 per step: a row of 17 -0.1 gives 17 -0.0 in "
                   "PyTorch, 1 here")
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_softshrink_reduced_float_zero_sign(dtype: str) -> None:
    for n, step in ((17, 1), (20, 2), (33, 2)):
        t = torch.full((n * step,), -0.1, dtype=getattr(torch, dtype))[::step]
        s = strided.full((n * step,), -0.1, dtype=getattr(strided, dtype))[::step]
        np.testing.assert_array_equal(_words(F.softshrink(s, 0.3)), _words(TF.softshrink(t, 0.3)))


@pytest.mark.parametrize("call", ["threshold_", "hardswish_", "hardsigmoid_"])
def test_inplace_node_name_in_version_error(call: str) -> None:
    ops = {"threshold_": lambda FF, b: FF.threshold_(b, 0.1, 2.0),
           "hardswish_": lambda FF, b: FF.hardswish(b, inplace=True),
           "hardsigmoid_": lambda FF, b: FF.hardsigmoid(b, inplace=True)}
    texts = []
    for L, FF in ((torch, TF), (strided, F)):
        a = L.tensor([1.0, -2.0, 3.0], requires_grad=True)
        b = a * 1
        c = b * b
        ops[call](FF, b)
        with pytest.raises(RuntimeError) as info:
            c.sum().backward()
        texts.append(str(info.value).split("\n")[0].split(" Hint")[0])
    assert texts[1] == texts[0]


def test_rrelu_inplace_result_modified_refuses_backward() -> None:
    for L, FF in ((torch, TF), (strided, F)):
        a = L.tensor([1.0, -2.0, 3.0], requires_grad=True)
        b = a * 1
        FF.rrelu(b, training=False, inplace=True)
        b.mul_(2)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            b.sum().backward()


@pytest.mark.parametrize("flag", ["foreach", "fused"])
def test_adam_foreach_and_fused_accepted(flag: str) -> None:
    """PyTorch 2.13 takes foreach=True / fused=True on the CPU, its results equal foreach=False's
    bit for bit; strided takes them too (out35; was refused), the same update."""
    w = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
    g = np.random.default_rng(1).standard_normal((4, 3)).astype(np.float32)
    got = []
    for L in (torch, strided):
        p = L.nn.Parameter(L.from_numpy(w.copy()))
        opt = L.optim.Adam([p], amsgrad=True, weight_decay=0.1, **{flag: True})
        for i in range(3):
            p.grad = L.from_numpy(g * (i + 1))
            opt.step()
        got.append(p.detach().numpy().copy())
    assert _same_bits(got[1], got[0])


def test_logsumexp_float64_bits() -> None:
    rng = np.random.default_rng(0)
    for shape in ((3, 4), (3, 4), (17, 9)):
        a = rng.standard_normal(shape) * 5
    want = torch.logsumexp(torch.from_numpy(a.copy()), 1).numpy()
    assert _same_bits(strided.logsumexp(strided.from_numpy(a.copy()), 1).numpy(), want)


def test_double_backward_layout_transposed_input() -> None:
    a = np.random.default_rng(8).standard_normal((3, 4)).astype(np.float64)
    g = np.random.default_rng(9).standard_normal((4, 3))
    strides = []
    for L, FF in ((torch, TF), (strided, F)):
        x = L.from_numpy(a.copy()).T.requires_grad_() if L is strided else torch.from_numpy(a.copy()).t().requires_grad_()
        (gx,) = L.autograd.grad(FF.selu(x), x, L.from_numpy(g.copy()), create_graph=True)
        (ggx,) = L.autograd.grad((gx * gx).sum(), x)
        strides.append(tuple(ggx.stride()))
    assert strides[1] == strides[0]


def test_logsigmoid_create_graph_first_derivative_bits() -> None:
    a = (np.random.default_rng(10).standard_normal(40) * 4).astype(np.float64)
    got = []
    for L, FF in ((torch, TF), (strided, F)):
        x = L.from_numpy(a.copy()).requires_grad_()
        (gx,) = L.autograd.grad(FF.logsigmoid(x).sum(), x, create_graph=True)
        got.append(gx.detach().numpy().copy())
    assert _same_bits(got[1], got[0])


@pytest.mark.xfail(strict=True, reason="bfloat16 NaN words of relu / relu6 / hardtanh / hardshrink / gelu: "
                   "PyTorch's vector lanes keep the input's word (0x7FC0 stays 0x7FC0) and its tail writes "
                   "0x7FC0; strided keeps the NaN's sign everywhere (0xFFC0 for a negative one)")
@pytest.mark.parametrize("name", ["relu", "relu6", "hardtanh", "hardshrink", "gelu"])
def test_bf16_nan_words_selection_ops(name: str) -> None:
    t = _bf16_nan_input(200)
    np.testing.assert_array_equal(_words(getattr(F, name)(_as_strided(t))), _words(getattr(TF, name)(t)))


@pytest.mark.xfail(strict=True, reason="prelu's weight gradient in bfloat16 at a NaN input: PyTorch's channel "
                   "sum writes 0xFFFF (its vectorized reduction), strided's 0x7FC0")
def test_prelu_bf16_weight_grad_nan_word() -> None:
    a = np.random.default_rng(11).standard_normal((2, 5, 3)).astype(np.float32)
    a[0, 0, 0] = np.nan
    got = []
    for L, FF in ((torch, TF), (strided, F)):
        x = L.from_numpy(a.copy()).to(L.bfloat16).requires_grad_()
        w = L.full((5,), 0.25, dtype=L.bfloat16, requires_grad=True)
        (gw,) = L.autograd.grad(FF.prelu(x, w).sum(), w)
        got.append(_words(gw))
    np.testing.assert_array_equal(got[1], got[0])


@pytest.mark.parametrize("call", ["softplus", "logsigmoid"])
def test_saved_attributes_softplus_logsigmoid(call: str) -> None:
    names = []
    for L, FF in ((torch, TF), (strided, F)):
        x = L.tensor([1.0, -2.0], requires_grad=True)
        y = FF.softplus(x, 2.0, 3.0) if call == "softplus" else FF.logsigmoid(x)
        names.append(sorted(a for a in dir(y.grad_fn) if a.startswith("_saved_")))
    assert names[1] == names[0]


@pytest.mark.parametrize("case", ["layer_norm", "normalize"])
def test_data_write_then_second_derivative(case: str) -> None:
    rng = np.random.default_rng(12)
    a, g = rng.standard_normal((5, 6)), rng.standard_normal((5, 6))
    got = []
    for L, FF in ((torch, TF), (strided, F)):
        x = L.from_numpy(a.copy()).requires_grad_()
        y = FF.layer_norm(x, (6,), L.from_numpy(np.linspace(0.5, 2, 6)), None, 1e-5) if case == "layer_norm" \
            else FF.normalize(x, 2.0, 1)
        x.data.mul_(2.0)
        x.data[0, 0] = -5.0
        (gx,) = L.autograd.grad(y, x, L.from_numpy(g.copy()), create_graph=True)
        (ggx,) = L.autograd.grad((gx * gx).sum(), x)
        got.append(ggx.detach().numpy().copy())
    np.testing.assert_allclose(got[1], got[0], rtol=1e-9, atol=1e-12)
