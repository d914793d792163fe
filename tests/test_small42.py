"""small42: the small rows' fast paths of session 42, side by side with PyTorch.

- ``isinf`` of an empty float32 / float64 tensor: its result made without the general path, laid
  out with the strides PyTorch's composite ``x.abs() == inf`` gives (remembered per layout):
  shape, strides and dtype as PyTorch's over hard empty layouts, through the method, the module
  function and a listener's path, a second call (the remembered layout) too.
- ``F.batch_norm`` in evaluation: its fast path now its entry's ``__fresh__`` (tried before the
  forward's wrapper, ``training=`` given by keyword or position): values as NumPy's steps (bit for
  bit) and PyTorch's (to float rounding) over 2-D layouts, autograd's node and gradients as
  PyTorch's, training's running statistics untouched by the change.
- ``F.layer_norm``'s fresh path: its statistics stashed only where an input is in autograd, so a
  write through ``.data`` between forward and backward still meets the forward's statistics, as
  PyTorch's saved mean / rstd.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as TF
from hypothesis import assume, given, settings
from hypothesis import strategies as hs

import strided
import strided.nn.functional as SF
from layouts import build_valued, specs, valued_storage
from strided import dispatch

FLOATS = ["float32", "float64"]


@hs.composite
def _empty_specs(draw):
    """A layout with at least one zero-size dim (hard strides: expanded, odd size-1 strides)."""
    ndim = draw(hs.integers(1, 4))
    zero = draw(hs.integers(0, ndim - 1))
    shape = tuple(0 if d == zero else draw(hs.integers(0, 3)) for d in range(ndim))
    spec = draw(specs(shape=shape))
    if draw(hs.booleans()):  # (arbitrary non-negative strides: an empty tensor addresses nothing)
        spec = type(spec)(spec.storage_size, shape, tuple(draw(hs.integers(0, 7)) for _ in shape), spec.offset)
    return spec


@settings(max_examples=300, deadline=None)
@given(spec=_empty_specs(), dt=hs.sampled_from(FLOATS), twice=hs.booleans())
def test_isinf_empty_strides_as_torch(spec, dt, twice):
    data = valued_storage(spec, dt, 0)
    t, _, s = build_valued(spec, data)
    want = t.isinf()
    for call in (lambda x: x.isinf(), strided.isinf):
        got = call(s)
        if twice:
            got = call(s)
        assert got.shape == tuple(want.shape)
        assert got.stride() == want.stride(), (spec, got.stride(), want.stride())
        assert got.dtype is strided.bool
        assert got.numel() == 0


def test_isinf_empty_known_odd_layouts():
    """Layouts where the composite's strides are not row-major (PyTorch: (1, 0) for a (0, 1))."""
    for shape, strides in [((0, 1), (0, 0)), ((0, 1), (1, 6)), ((2, 0, 1), (1, 1, 3)), ((1, 0), (5, 1)),
                           ((0, 2, 1), (2, 1, 9))]:
        for dt in FLOATS:
            t = torch.empty_strided(shape, strides, dtype=getattr(torch, dt))
            s = strided.empty_strided(shape, strides, dtype=getattr(strided, dt))
            for _ in range(2):
                assert s.isinf().stride() == t.isinf().stride(), (shape, strides)
                assert strided.isinf(s).stride() == t.isinf().stride(), (shape, strides)


def test_isinf_empty_listened_and_other_dtypes():
    """A listener sees one isinf record with the same result layout; float16 and ints (the general
    path) keep PyTorch's strides."""
    s = strided.empty_strided((0, 1), (0, 0))
    seen = []
    with dispatch.listening(seen.append):
        got = s.isinf()
    assert [r.name for r in seen] == ["isinf"]
    assert got.stride() == torch.empty_strided((0, 1), (0, 0)).isinf().stride()
    for dt in ["float16", "int32", "bool"]:
        t = torch.empty_strided((0, 1), (1, 6), dtype=getattr(torch, dt))
        s = strided.empty_strided((0, 1), (1, 6), dtype=getattr(strided, dt))
        assert s.isinf().stride() == t.isinf().stride()
        assert s.isinf().dtype is strided.bool


# ---------------------------------------------------------------- batch_norm (evaluation)


def _channel(n: int, dt: str, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).uniform(0.1, 0.9, n).astype(dt)


def _bn_numpy(x: np.ndarray, rm, rv, w, b, eps: float) -> np.ndarray:
    """The evaluation steps the forward takes, in NumPy, in the input's dtype."""
    with np.errstate(all="ignore"):
        y = np.subtract(x, rm)
        y = np.multiply(y, 1 / np.sqrt(rv + x.dtype.type(eps)))
        if w is not None:
            y = y * w
        if b is not None:
            y = y + b
    return y


@settings(max_examples=200, deadline=None)
@given(spec=specs(min_dims=2, max_dims=2, max_size=6), dt=hs.sampled_from(FLOATS), affine=hs.sampled_from(
    ["both", "weight", "bias", "none"]), keyword=hs.booleans(), eps=hs.sampled_from([1e-5, 0.5, 1e-3]))
def test_batch_norm_eval_fresh(spec, dt, affine, keyword, eps):
    c = spec.shape[1]
    assume(c > 0)  # (no channel: PyTorch's IndexError, strided's empty result; not this path's)
    data = valued_storage(spec, dt, 1)
    t, a, s = build_valued(spec, data)
    rm, rv, w, b = (_channel(c, dt, k) for k in range(4))
    w = w if affine in ("both", "weight") else None
    b = b if affine in ("both", "bias") else None
    sa = [strided.from_numpy(v.copy()) if v is not None else None for v in (rm, rv, w, b)]
    ta = [torch.from_numpy(v.copy()) if v is not None else None for v in (rm, rv, w, b)]
    if keyword:
        got = SF.batch_norm(s, *sa, training=False, eps=eps)
        want = TF.batch_norm(t, *ta, training=False, eps=eps)
    else:
        got = SF.batch_norm(s, *sa, False, 0.1, eps)
        want = TF.batch_norm(t, *ta, False, 0.1, eps)
    assert got.shape == tuple(want.shape) and got.dtype.name == dt
    if got.numel():
        assert got.stride() == want.stride()
    expect = _bn_numpy(np.array(a), rm, rv, w, b, eps)
    np.testing.assert_array_equal(got.numpy(), expect)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5 if dt == "float32" else 1e-12, atol=1e-6)
    # the running statistics are read, not written
    np.testing.assert_array_equal(sa[0].numpy(), rm)
    np.testing.assert_array_equal(sa[1].numpy(), rv)


@pytest.mark.parametrize("grads", [(True, False, False), (False, True, True), (True, True, True)])
def test_batch_norm_eval_autograd(grads):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((5, 4)).astype(np.float32)
    rm, rv, w, b = (_channel(4, "float32", k) for k in range(4))
    sx, sw, sb = (strided.tensor(v, requires_grad=g) for v, g in zip((x, w, b), grads))
    tx, tw, tb = (torch.tensor(v, requires_grad=g) for v, g in zip((x, w, b), grads))
    sy = SF.batch_norm(sx, strided.tensor(rm), strided.tensor(rv), sw, sb, training=False)
    ty = TF.batch_norm(tx, torch.tensor(rm), torch.tensor(rv), tw, tb, training=False)
    assert sy.requires_grad and type(sy.grad_fn).__name__ == "NativeBatchNormBackward0" or \
        sy.grad_fn.name() == ty.grad_fn.name()
    g = rng.standard_normal((5, 4)).astype(np.float32)
    sy.backward(strided.tensor(g))
    ty.backward(torch.tensor(g))
    for a, c in ((sx, tx), (sw, tw), (sb, tb)):
        assert (a.grad is None) == (c.grad is None)
        if c.grad is not None:
            np.testing.assert_allclose(a.grad.numpy(), c.grad.numpy(), rtol=1e-5, atol=1e-6)
    with strided.no_grad():
        assert not SF.batch_norm(sx, strided.tensor(rm), strided.tensor(rv), sw, sb).requires_grad


def test_batch_norm_eval_listened_and_training():
    """A listener still sees one batch_norm record; training still updates the running statistics
    as PyTorch does (the fresh path declines it)."""
    x = np.random.default_rng(4).standard_normal((6, 3)).astype(np.float32)
    rm, rv = _channel(3, "float32", 0), _channel(3, "float32", 1)
    seen = []
    args = (strided.tensor(x), strided.tensor(rm), strided.tensor(rv))
    with dispatch.listening(seen.append):
        heard = SF.batch_norm(*args, training=False)
    assert [r.name for r in seen] == ["batch_norm"]
    np.testing.assert_array_equal(heard.numpy(), SF.batch_norm(*args, training=False).numpy())
    srm, srv = strided.tensor(rm), strided.tensor(rv)
    trm, trv = torch.tensor(rm), torch.tensor(rv)
    got = SF.batch_norm(strided.tensor(x), srm, srv, None, None, True)
    want = TF.batch_norm(torch.tensor(x), trm, trv, None, None, True)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(srm.numpy(), trm.numpy(), rtol=1e-6)
    np.testing.assert_allclose(srv.numpy(), trv.numpy(), rtol=1e-6)
    with pytest.raises(RuntimeError, match="running_mean must be defined in evaluation mode"):
        SF.batch_norm(strided.tensor(x), None, strided.tensor(rv), training=False)


# ---------------------------------------------------------------- layer_norm's stash


@pytest.mark.parametrize("which", ["input", "weight", "bias"])
def test_layer_norm_rule_takes_forward_statistics(which, monkeypatch):
    """Where an input is in autograd, the fresh path stashes its mean and r and the backward rule
    takes them (it never recomputes them); an untracked call in between stashes nothing, so it
    does not displace them. Gradients as PyTorch's."""
    from strided.nn.functional import layers

    rng = np.random.default_rng(5)
    x = rng.standard_normal((3, 4)).astype(np.float32)
    w, b = _channel(4, "float32", 0), _channel(4, "float32", 1)
    flags = {"input": (True, False, False), "weight": (False, True, False), "bias": (False, False, True)}[which]
    sx, sw, sb = (strided.tensor(v, requires_grad=f) for v, f in zip((x, w, b), flags))
    tx, tw, tb = (torch.tensor(v, requires_grad=f) for v, f in zip((x, w, b), flags))

    def recomputed(*args):
        raise AssertionError("the rule recomputed the statistics the forward had")

    monkeypatch.setattr(layers, "_layer_norm_stats", recomputed)
    plain = strided.tensor(x), strided.tensor(w), strided.tensor(b)
    sy = SF.layer_norm(sx, (4,), sw, sb)
    SF.layer_norm(plain[0], (4,), plain[1], plain[2])  # (untracked: stashes nothing)
    assert layers._STATS[0] is None or layers._STATS[0][0]() is not None
    ty = TF.layer_norm(tx, (4,), tw, tb)
    g = rng.standard_normal((3, 4)).astype(np.float32)
    sy.backward(strided.tensor(g))
    ty.backward(torch.tensor(g))
    for a, c in ((sx, tx), (sw, tw), (sb, tb)):
        assert (a.grad is None) == (c.grad is None)
        if c.grad is not None:
            np.testing.assert_allclose(a.grad.numpy(), c.grad.numpy(), rtol=1e-5, atol=1e-5)


def test_layer_norm_untracked_leaves_stash():
    """An untracked call leaves the stash as it was (no weak reference made for nobody)."""
    from strided.nn.functional import layers

    x = strided.tensor(np.ones((2, 3), np.float32))
    layers._STATS[0] = None
    SF.layer_norm(x, (3,))
    assert layers._STATS[0] is None


@settings(max_examples=150, deadline=None)
@given(spec=specs(min_dims=1, max_dims=3, max_size=5), dt=hs.sampled_from(FLOATS), affine=hs.booleans())
def test_layer_norm_fresh_values(spec, dt, affine):
    data = valued_storage(spec, dt, 2)
    t, _, s = build_valued(spec, data)
    n = spec.shape[-1]
    w, b = (_channel(n, dt, k) for k in range(2)) if affine else (None, None)
    got = SF.layer_norm(s, (n,), None if w is None else strided.tensor(w), None if b is None else strided.tensor(b))
    want = TF.layer_norm(t, (n,), None if w is None else torch.tensor(w), None if b is None else torch.tensor(b))
    assert got.shape == tuple(want.shape) and got.stride() == want.stride()
    np.testing.assert_array_equal(got.numpy(), want.numpy())


# ---------------------------------------------------------------- matrix_norm's row-major path


@settings(max_examples=150, deadline=None)
@given(batch=hs.sampled_from([(), (0,), (1,), (3,), (2, 2)]), m=hs.integers(1, 9), n=hs.integers(1, 9),
       dt=hs.sampled_from(FLOATS), misaligned=hs.booleans(), offset=hs.integers(0, 2))
def test_matrix_norm_fro_row_major_bits(batch, m, n, dt, misaligned, offset):
    """The Frobenius norm of row-major matrices: the compiled rows called on the flat run itself
    (a storage offset too); memory misaligned for its items (from_numpy of a byte-shifted buffer)
    declines it and takes the copy, as before. PyTorch's bits either way."""
    shape = (*batch, m, n)
    count = int(np.prod(shape))
    item = np.dtype(dt).itemsize
    values = np.random.default_rng(m * 10 + n).standard_normal(count + offset).astype(dt)
    if misaligned:
        raw = np.zeros((count + offset) * item + 1, np.uint8)
        arr = raw[1:].view(dt)
        arr[:] = values
    else:
        arr = values
    s = strided.from_numpy(arr)[offset:].view(shape)
    t = torch.tensor(values[offset:].reshape(shape))
    got = strided.linalg.matrix_norm(s)
    want = torch.linalg.matrix_norm(t)
    assert got.shape == tuple(want.shape) and got.stride() == want.stride()
    np.testing.assert_array_equal(got.numpy(), want.numpy())


# ---------------------------------------------------------------- std / var: the fast path first


@settings(max_examples=300, deadline=None)
@given(spec=specs(min_dims=0, max_dims=3, max_size=5), dt=hs.sampled_from(FLOATS), op=hs.sampled_from(["std", "var"]),
       dim=hs.sampled_from([None, 0, -1, 1, 1, (0, -1), True]), keepdim=hs.booleans(),
       unbiased=hs.sampled_from([None, None, None, True, False]), correction=hs.sampled_from([None, None, None, 0, 2]),
       method=hs.booleans(), with_out=hs.sampled_from([False, False, True]))
def test_std_var_entry_paths(spec, dt, op, dim, keepdim, unbiased, correction, method, with_out):
    """std / var now try their fast path before their general route when no out=, unbiased or
    correction is given: every call (those too) gives PyTorch's shape, strides and values, or
    its error class."""
    data = valued_storage(spec, dt, 3)
    t, _, s = build_valued(spec, data)
    kw = {"keepdim": keepdim}
    if unbiased is not None:
        kw["unbiased"] = unbiased
    if correction is not None:
        kw["correction"] = correction
    args = () if dim is None else (dim,)

    def call(lib, x, **more):
        return getattr(x, op)(*args, **kw, **more) if method else getattr(lib, op)(x, *args, **kw, **more)

    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            want = call(torch, t)
        except TypeError:  # (an argument combination PyTorch's binding refuses: not these paths')
            assume(False)
        except Exception as e:  # noqa: BLE001 - the error class is compared
            with pytest.raises(type(e)):
                call(strided, s)
            return
        got = call(strided, s)
        if with_out and not method:
            tout, sout = torch.empty(0, dtype=t.dtype), strided.empty(0, dtype=s.dtype)
            call(torch, t, out=tout)
            call(strided, s, out=sout)
            np.testing.assert_allclose(sout.numpy(), tout.numpy(), rtol=1e-5, atol=1e-6, equal_nan=True)
    assert got.shape == tuple(want.shape) and got.stride() == want.stride()
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6, equal_nan=True)


# ---------------------------------------------------------------- complex sgn: the front's kernel


@pytest.mark.parametrize("dt", ["complex64", "complex128"])
def test_complex_sgn_front_takes_its_kernel(dt, monkeypatch):
    """The sgn front's complex entries gain their compiled pass at the first complex call
    (_sgn_front_kernels changes the table the front was given): the front must read that same
    dict (compiled_front kept a copy, so complex sgn never took its kernel from C). With the
    Python pass made to fail, a row-major complex call still runs: from C."""
    from strided.ops.elementwise import unary_more as U

    rng = np.random.default_rng(7)
    c = (rng.standard_normal((16, 16)) + 1j * rng.standard_normal((16, 16))).astype(dt)
    c[0, :3] = 0
    s = strided.from_numpy(c.copy())
    first = strided.sgn(s)  # (the first complex call: the step is found, the kernels installed)

    def python_pass(x):
        raise AssertionError("the front ran the Python pass, not its kernel")

    monkeypatch.setattr(U, "_sgn_fresh", python_pass)
    for got in (strided.sgn(s), s.sgn()):
        np.testing.assert_array_equal(got.numpy(), first.numpy())
        assert got.stride() == first.stride()
    want = torch.sgn(torch.from_numpy(c.copy()))
    np.testing.assert_allclose(first.numpy(), want.numpy(), rtol=1e-6 if dt == "complex64" else 1e-15)
    assert (first.numpy()[0, :3] == 0).all()
