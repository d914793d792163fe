"""Day 27's PyTorch 2.13 mismatches (fix27), each against torch: complex silu (computed, an empty
tensor's empty result, the autograd refusal), the whole median of an empty complex tensor,
repeat_interleave's refusal of complex repeats, sort/argsort's two signatures."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import strided

torch = pytest.importorskip("torch")


def _outcome(lib, fn):
    """``fn(lib)``: ("ok", the result as NumPy, dtype name, shape) or (error class kind, message's first line)."""
    try:
        r = fn(lib)
    except Exception as e:  # noqa: BLE001 (every error class is compared)
        for k in (NotImplementedError, IndexError, TypeError, ValueError, RuntimeError):
            if isinstance(e, k):
                return k.__name__, str(e).split("\n")[0]
        return type(e).__name__, str(e)
    if isinstance(r, tuple):
        r = r[0]
    return "ok", np.array(r.tolist()), str(r.dtype).split(".")[-1], tuple(r.shape)


def _complex_values(lib, dtype, shape, seed):
    rs = np.random.RandomState(seed)
    n = int(np.prod(shape))
    z = (rs.randn(n) * 3 + 1j * rs.randn(n) * 3).reshape(shape)
    return lib.tensor(z.tolist() if n else [], dtype=getattr(lib, dtype)).reshape(shape)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("shape", [(0,), (2, 0), (0, 3), (3,), (4, 5), (37,)])
def test_silu_of_complex_is_torchs(dtype, shape):
    """F.silu of a complex tensor: PyTorch computes ``x / (1 + exp(-x))`` (strided raised
    NotImplementedError, for an empty tensor too). complex128: PyTorch's bits; complex64 within two
    ulps (a few tail elements' last bits, see activations._complex_silu; hypothesis found a 2-ulp
    real part, 5.97e-8 off -0.2891635)."""
    def run(lib):
        return lib.nn.functional.silu(_complex_values(lib, dtype, shape, 0))
    want, got = _outcome(torch, run), _outcome(strided, run)
    assert want[0] == got[0] == "ok"
    assert want[2:] == got[2:]
    if dtype == "complex128":
        np.testing.assert_array_equal(got[1], want[1])
    else:
        np.testing.assert_allclose(got[1], want[1], rtol=2.5e-7, atol=1e-30)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(0, 70), seed=st.integers(0, 2**16), dtype=st.sampled_from(["complex64", "complex128"]))
def test_silu_of_complex_hypothesis(n, seed, dtype):
    def run(lib):
        return lib.nn.functional.silu(_complex_values(lib, dtype, (n,), seed))
    want, got = _outcome(torch, run), _outcome(strided, run)
    assert want[0] == got[0] == "ok" and want[2:] == got[2:]
    np.testing.assert_allclose(got[1], want[1], rtol=2.5e-7 if dtype == "complex64" else 0, atol=1e-30)


def test_silu_of_complex_in_autograd_is_torchs_refusal():
    for lib in (torch, strided):
        F = lib.nn.functional
        x = lib.tensor([1 + 2j, -0.5j], requires_grad=True)
        with pytest.raises(RuntimeError, match="silu does not support automatic differentiation for outputs "
                                               "with complex dtype"):
            F.silu(x)
        with pytest.raises(RuntimeError, match="silu does not support automatic differentiation"):
            F.silu(x * 1)
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
            F.silu(x, inplace=True)
        with lib.no_grad():
            assert F.silu(x).shape == (2,)
        y = F.silu(x.detach())
        assert not y.requires_grad
    a, b = torch.tensor([1 + 2j, 0.25 - 1j]), strided.tensor([1 + 2j, 0.25 - 1j])
    torch.nn.functional.silu(a, inplace=True)
    strided.nn.functional.silu(b, inplace=True)
    np.testing.assert_allclose(np.array(b.tolist()), np.array(a.tolist()), rtol=2e-7)


@pytest.mark.parametrize("dtype", ["complex64", "complex128", "bool", "uint8", "int8", "int16", "int32", "int64",
                                   "uint16", "uint32", "uint64", "float16", "bfloat16", "float32"])
@pytest.mark.parametrize("shape", [(0,), (2, 0), (0, 3)])
@pytest.mark.parametrize("op", ["median", "nanmedian"])
def test_whole_median_of_an_empty_tensor_is_torchs_nan_converted(op, shape, dtype):
    """PyTorch's whole median of an empty tensor is a float NaN converted to the dtype, before it
    looks at the dtype (complex nan+0j, bool True, int32/int64 their lowest: strided raised for
    complex/bool/uint16+ and gave 0 for int32/int64, a silently different number); its median
    along a dim checks the reduced dim's size first (IndexError), then the dtype
    (NotImplementedError "median_out")."""
    for fn in (lambda L: getattr(L, op)(L.empty(shape, dtype=getattr(L, dtype))),
               lambda L: getattr(L.empty(shape, dtype=getattr(L, dtype)), op)(),
               lambda L: getattr(L, op)(L.empty(shape, dtype=getattr(L, dtype)), 0),
               lambda L: getattr(L, op)(L.empty(shape, dtype=getattr(L, dtype)), -1, True)):
        want, got = _outcome(torch, fn), _outcome(strided, fn)
        assert want[0] == got[0], (want, got)
        if want[0] == "ok":
            assert want[2:] == got[2:]
            np.testing.assert_array_equal(got[1], want[1])
        else:
            assert got[1] == want[1]


@pytest.mark.parametrize("dtype", ["complex64", "float32", "bool"])
def test_repeat_interleave_of_non_integer_repeats_is_torchs_error(dtype):
    """``repeat_interleave(repeats)`` (the one-tensor form) of a complex tensor: PyTorch's
    NotImplementedError (strided cast it to integers, silently dropping the imaginary parts)."""
    def run(lib):
        return lib.repeat_interleave(lib.tensor([1, 2], dtype=getattr(lib, dtype)))
    want, got = _outcome(torch, run), _outcome(strided, run)
    assert want[0] == got[0] and want[1:] == got[1:] if want[0] != "ok" else want[0] == got[0]


# ---- prod of float16 / bfloat16 / complex: PyTorch's own steps (strided.kernels.reduce.torch_walk_products)

def _as_bits(t) -> np.ndarray:
    """A torch or strided result's values (complex as float pairs), float64 for comparing."""
    if isinstance(t, torch.Tensor):
        a = torch.view_as_real(t).numpy() if t.is_complex() else t.double().numpy()
    else:
        a = np.array(t.tolist(), complex if t.dtype.is_complex else float).reshape(tuple(t.shape))
        a = np.stack([a.real, a.imag], -1) if t.dtype.is_complex else a
    return np.asarray(a, np.float64)


def _prod_case(rng, dt: str):
    nd = int(rng.integers(1, 4))
    shape = tuple(int(rng.integers(1, 90 if nd == 1 else 30)) for _ in range(nd))
    v = rng.uniform(0.5, 1.6, shape) * rng.choice([-1, 1], shape)
    if dt.startswith("complex"):
        v = v * np.exp(1j * rng.uniform(0, 6.3, shape))
    if rng.random() < 0.15:
        v.flat[int(rng.integers(v.size))] = [0.0, -0.0, np.inf, np.nan][int(rng.integers(4))]
    kind = int(rng.integers(0, 5))
    d = None if rng.random() < 0.3 else int(rng.integers(0, nd))
    keep = bool(rng.random() < 0.5)

    def run(L):
        x = _laid_out(L.tensor(v.tolist(), dtype=getattr(L, dt)), kind)
        return L.prod(x) if d is None else L.prod(x, d, keepdim=keep)
    return run, (shape, kind, d, keep)


def _laid_out(x, kind: int):
    """``x`` in the layout ``kind`` names: 1 transposed, 2 [..., ::2], 3 flipped, 4 [:, 1:],
    5 permuted (3-d); as it is otherwise (and where its dims do not allow the kind)."""
    nd = x.ndim
    if kind == 1 and nd > 1:
        return x.transpose(0, nd - 1)
    if kind == 2:
        return x[..., ::2]
    if kind == 3:
        return x.flip(-1)
    if kind == 4 and nd > 1:
        return x[:, 1:]
    if kind == 5 and nd == 3:
        return x.permute(1, 2, 0)
    return x


@pytest.mark.parametrize("dt", ["float16", "bfloat16", "complex64", "complex128", "float32", "float64"])
def test_prod_is_torchs_bits(dt):
    """prod of float16/bfloat16 rounds each product to the dtype and complex products take
    PyTorch's forms (the vector loop's rounded ``ac - bd``, the scalar loops' fused ``a * c``,
    ``a * d``), in TensorIterator's walk (inner lines by 4 vectors, outer columns by vectors,
    the rest one by one): before fix27 strided multiplied float16 in float32 and complex by NumPy,
    936 of 1200 such cases differed in some bit; float32/float64 over rows that step by one but
    do not tile their memory (x[:, 1:]) took NumPy's order (100-153 of 200 differed). A NaN's sign is NumPy's (which operand a
    compiler keeps: as for float32), compared as NaN only. Excluded: complex64 over every element
    of rows that do not coalesce (test_complex64_prod_over_uncoalesced_rows)."""
    rng = np.random.default_rng(27)
    checked = 0
    for _ in range(250):
        run, (shape, kind, d, keep) = _prod_case(rng, dt)
        if dt == "complex64" and kind == 4 and d is None and len(shape) > 1:
            continue
        with np.errstate(all="ignore"):
            want, got = _as_bits(run(torch)), _as_bits(run(strided))
        assert want.shape == got.shape
        nan = np.isnan(want)
        assert np.array_equal(nan, np.isnan(got)), (shape, kind, d, keep)
        assert np.array_equal(want[~nan].view(np.int64), got[~nan].view(np.int64)), (shape, kind, d, keep)
        checked += 1
    assert checked > 200


@pytest.mark.xfail(strict=True, reason="complex64 prod over every element of rows TensorIterator does not "
                   "coalesce (x[:, 1:] of a (r, 18)): each row's vectorized product into the running one "
                   "differs in the last bit in about a third of the cases; the compiled form of that step "
                   "was not found (neither fused nor rounded as the others)")
def test_complex64_prod_over_uncoalesced_rows():
    rng = np.random.RandomState(3)
    bad = 0
    for _ in range(20):
        v = (rng.uniform(0.6, 1.5, (4, 18)) * np.exp(1j * rng.uniform(0, 6.3, (4, 18)))).astype(np.complex64)
        want = torch.prod(torch.from_numpy(v)[:, 1:]).numpy()
        got = complex(strided.prod(strided.from_numpy(v)[:, 1:]).item())
        bad += np.complex64(got) != want
    assert bad == 0


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
@pytest.mark.parametrize("op", ["amax", "amin"])
def test_reduced_float_extreme_nan_bits_along_an_outer_dim(dt, op):
    """float16/bfloat16 amax/amin along a dim that does not step by one: the columns PyTorch's
    vectorized outer walk takes in whole blocks of 64 keep vec::maximum's all-ones NaN (0xffff),
    the rest the canonical one (strided gave the canonical NaN everywhere: 64 of these 144 layouts
    differed in some NaN's bits, 2-d ones too)."""
    rs = np.random.RandomState(0)
    for shape, d in (((5, 130), 0), ((2, 5, 70), 1), ((3, 4, 20), 0), ((4, 130), 1), ((5, 2, 130), 1),
                     ((3, 70, 2), 1), ((2, 3, 4, 70), 2), ((70, 70), 0), ((3, 66), -2)):
        for transposed in (False, True):
            v = rs.randn(*shape)
            v[rs.rand(*shape) < 0.3] = np.nan
            got = []
            for L in (torch, strided):
                x = L.tensor(v.tolist(), dtype=getattr(L, dt))
                if transposed:
                    x = x.transpose(0, -1)
                for keep in (False, True):
                    r = getattr(L, op)(x, d, keepdim=keep).contiguous().view(L.int16)
                    got.append(np.array(r.reshape(-1).tolist(), np.int64) & 0xFFFF)
            np.testing.assert_array_equal(got[2], got[0], err_msg=f"{shape} {d} {transposed}")
            np.testing.assert_array_equal(got[3], got[1], err_msg=f"{shape} {d} {transposed}")


_SORT_CALLS = [
    "L.sort(x, 0, stable=True)", "L.sort(x, stable=True)", "L.sort(x, 0, True)", "L.sort(x, 0, True, stable=True)",
    "x.sort(0, stable=True)", "x.sort(stable=True)", "x.sort(0, True)", "x.sort(0, True, stable=True)",
    "x.sort(dim=0, stable=True)", "L.sort(x, dim=0, stable=True)", "L.sort(x, stable=None)",
    "L.sort(x, 0, stable=None)", "x.sort(0, stable=None)", "L.sort(x, stable=None, dim=0)",
    "L.sort(x, stable=False, dim=0, descending=True)", "L.sort(x, 0, descending=True, stable=True)",
    "L.sort(x, 0, descending=True)", "L.sort(x, True)", "x.sort(True)", "x.sort(0, True, True)",
    "L.sort(x, axis=0)", "L.sort(x, axis=0, stable=True)", "L.sort(x, 0, axis=0)", "x.sort(axis=0, descending=True)",
    "L.sort(x, 0, True, out=(v, i))", "L.sort(x, 0, stable=True, out=(v, i))", "L.sort(x, stable=True, out=(v, i))",
    "L.argsort(x, 0, stable=True)", "L.argsort(x, stable=True)", "L.argsort(x, 0, True)",
    "L.argsort(x, 0, True, stable=True)", "x.argsort(0, stable=True)", "x.argsort(stable=True)",
    "x.argsort(0, True)", "x.argsort(dim=0, stable=True)", "L.argsort(x, stable=None)", "x.argsort(stable=None)",
    "L.argsort(x, stable=False, dim=0, descending=True)", "L.argsort(x, True)", "L.argsort(x, 0, stable=False)",
    "L.argsort(x, 0, descending=True, stable=True)", "x.argsort(0, descending=True, stable=True)",
    "L.argsort(x, axis=0, stable=True)", "x.argsort(stable=True, dim=0, descending=True)",
]


@pytest.mark.parametrize("call", _SORT_CALLS)
def test_sort_and_argsort_bind_as_torchs_two_signatures(call):
    """PyTorch's sort/argsort have two signatures, ``(dim=-1, descending=False)`` and ``(*, stable,
    dim=-1, descending=False)``: with ``stable=`` (even None for sort; argsort's is a bool)
    ``dim`` and ``descending`` are keywords only, so ``sort(x, 0, stable=True)`` is PyTorch's
    TypeError (strided took it as a stable sort along 0). Accepted calls: the same values and
    indices; refused ones: TypeError both."""
    def run(L):
        x = L.tensor([[3.0, 1.0, 2.0], [1.0, 1.0, 0.0]])
        v, i = L.empty(0), L.empty(0, dtype=L.int64)  # noqa: F841 (read by the call's text)
        return eval(call, {"L": L, "x": x, "v": v, "i": i})  # noqa: S307 (the fixed texts above)
    want, got = _outcome(torch, run), _outcome(strided, run)
    assert want[0] == got[0], (want, got)
    if want[0] == "ok":
        np.testing.assert_array_equal(got[1], want[1])
    else:
        assert want[0] == "TypeError"
        if "received an invalid combination" in want[1] and "axis" not in call:
            # (the same words; the arguments listed in strided's order, without the Tensor)
            assert got[1].startswith(want[1].split(" - got ")[0]), (got[1], want[1])


def test_sort_keeps_its_shown_signature_and_node_names():
    import inspect
    assert str(inspect.signature(strided.sort)) == str(inspect.signature(strided.Tensor.sort))
    assert "stable" in str(inspect.signature(strided.sort)) and "*args" not in str(inspect.signature(strided.sort))
    for L in (torch, strided):
        x = L.tensor([3.0, 1.0, 2.0], requires_grad=True)
        names = [f(x)[0].grad_fn for f in (lambda t: t.sort(), lambda t: t.sort(stable=False),
                                           lambda t: t.sort(stable=True), lambda t, L=L: L.sort(t, axis=0))]
        names = [type(n).__name__ if L is torch else n.name() for n in names]
        assert names == ["SortBackward0", "SortBackward1", "SortBackward1", "SortBackward0"]


def _walk_case(rng: np.random.Generator, dt: str):
    """A prod call over a drawn layout (contiguous, transposed, [..., ::2], flipped, [:, 1:],
    a permuted 3-d) of values that overflow, underflow and hold zeros, infinities and NaNs, long
    enough for the lanes' blocks (16 float16 lanes: rows and columns past 64)."""
    nd = int(rng.integers(1, 4))
    shape = tuple(int(rng.integers(1, 300 if nd == 1 else 90 if nd == 2 else 20)) for _ in range(nd))
    v = rng.uniform(0.3, 3.0, shape) * rng.choice([-1, 1], shape)
    if dt.startswith("complex"):
        v = v * np.exp(1j * rng.uniform(0, 6.3, shape))
    for _ in range(int(rng.integers(0, 4))):
        v.flat[int(rng.integers(v.size))] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-6, 7e4][int(rng.integers(7))]
    kind = int(rng.integers(0, 6))
    d = None if rng.random() < 0.3 else int(rng.integers(-nd, nd))
    return _laid_out(strided.tensor(v.tolist(), dtype=getattr(strided, dt)), kind), d


@pytest.mark.parametrize("f16c", [1, 0])
@pytest.mark.parametrize("dt", ["float16", "bfloat16", "complex64", "complex128"])
def test_compiled_walk_products_are_the_numpy_steps_bits(dt, f16c, monkeypatch):
    """The compiled loops of torch_walk_products (_walk_products.h) give the bits of its NumPy
    steps (their reference, which test_prod_is_torchs_bits holds to PyTorch's) over 300 drawn
    layouts, dims and special values per dtype, every bit (NaN payloads and signs included: a
    complex result holding a NaN is made by the NumPy steps, whose NaN signs the compiled forms'
    operand order need not keep)."""
    from strided.kernels import reduce

    if not f16c and dt != "float16":
        pytest.skip("the F16C switch is float16's")
    monkeypatch.setattr(reduce, "_F16C", [f16c])  # (the float16 rounding by the CPU's F16C or in software)
    rng = np.random.default_rng(28)
    for _ in range(300):
        x, d = _walk_case(rng, dt)
        with np.errstate(all="ignore"):
            got = (strided.prod(x) if d is None else strided.prod(x, d)).numpy()
            with monkeypatch.context() as m:
                m.setattr(reduce, "_WALK_NAMES", {})  # (the NumPy steps)
                m.setattr(reduce, "_WALK_KINDS", {})
                want = (strided.prod(x) if d is None else strided.prod(x, d)).numpy()
        assert got.shape == want.shape and got.dtype == want.dtype
        assert got.tobytes() == want.tobytes(), (x.shape, x.stride(), d)


def test_compiled_walk_products_are_taken():
    """The compiled loops run where built (a float16 prod does not fall back to the NumPy steps)."""
    from strided.kernels import native, reduce

    if native.sums() is None:
        pytest.skip("the compiled sum kernel is not built")
    calls = []
    original = reduce._compiled_walk
    try:
        reduce._compiled_walk = lambda *a: calls.append(a[0]) or original(*a)
        strided.prod(strided.ones(3, 70, dtype=strided.float16), 1)
    finally:
        reduce._compiled_walk = original
    assert calls == [0]


@pytest.mark.parametrize("dst", ["float16", "bfloat16", "float32", "float64", "complex64", "complex128"])
def test_prod_with_dtype_converts_first(dst):
    """prod(x, dtype=) converts x first (PyTorch's make_reduction: ``self.to(dtype)``, in
    preserve_format's strides) and multiplies in ``dtype`` in its own order: float16 -> bfloat16
    rounds each product to bfloat16, float16 -> float32 takes float32's vectorized order, a
    complex input's real parts are laid out densely. Before, strided multiplied the input in
    NumPy's accumulator (float32 for the 2-byte floats) and rounded once: 62 of 1500 drawn cases
    of the prod differential differed (every one with dtype=), 0 now but the threaded ones."""
    rng = np.random.default_rng(28)
    for src in ("float16", "bfloat16", "float32", "complex64", "complex128"):
        if src == dst:
            continue
        for shape, kind, d in (((5, 7), 0, -1), ((9, 40), 1, 0), ((9, 40), 2, 1), ((6, 70), 4, None),
                               ((3, 33, 5), 5, 1), ((130,), 0, None), ((17, 3), 3, 0)):
            v = rng.uniform(0.5, 1.6, shape) * rng.choice([-1, 1], shape)
            if src.startswith("complex"):
                v = v * np.exp(1j * rng.uniform(0, 6.3, shape))
            got = []
            for L in (torch, strided):
                x = L.from_numpy(np.asarray(v, src if src.startswith("complex") else np.float32))
                x = _laid_out(x.to(getattr(L, src)), kind)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    r = L.prod(x, dtype=getattr(L, dst)) if d is None else L.prod(x, d, dtype=getattr(L, dst))
                got.append(_as_bits(r))
            assert np.array_equal(got[0].view(np.int64), got[1].view(np.int64)), (src, shape, kind, d)
