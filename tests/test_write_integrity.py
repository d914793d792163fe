"""Data integrity of writes and scalars, and tensor() input, checked live against PyTorch.

- in-place ops whose operands alias the target (R2-01): the result is the read-before-write one
  PyTorch gives, or the same refusal;
- Python scalars meeting small dtypes (R2-02, R2-28): wrapped, checked or refused op by op as
  PyTorch does;
- bad values through every write path (R2-10): PyTorch's result, or an error with the target
  byte-for-byte unchanged;
- tensor()/from_numpy input: byte order (R2-27), deep (R2-15) and self-referential (R2-29) lists.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
from oracle_helpers import outcome

SETTINGS = settings(max_examples=120, deadline=None)


def values_of(x: Any) -> np.ndarray:
    """A tensor's (or number's) values as a float64 array, for comparing the two libraries."""
    if isinstance(x, torch.Tensor):
        return x.detach().numpy().astype(np.float64)
    if isinstance(x, st.Tensor):
        return x.numpy().astype(np.float64)
    return np.asarray(x, dtype=np.float64)


def dtype_name(x: Any) -> str:
    return str(x.dtype).removeprefix("torch.") if isinstance(x, torch.Tensor) else x.dtype.name


def assert_same_outcome(fn_t: Callable[[], Any], fn_s: Callable[[], Any], what: str, exact_text: bool = True,
                        rtol: float = 1e-6) -> BaseException | None:
    """Both raise (strided: a StridedError of torch's class, torch's first line), or both return
    tensors of one dtype and values. Returns strided's error, if any."""
    tr, te = outcome(fn_t)
    sr, se = outcome(fn_s)
    assert (te is None) == (se is None), f"{what}\n torch: {tr if te is None else repr(te)}\n strided: " \
                                         f"{sr if se is None else repr(se)}"
    if te is not None:
        assert isinstance(se, st.StridedError), f"{what}: {se!r}"
        assert isinstance(se, type(te)) or any(isinstance(se, c) and isinstance(te, c) for c in
                                               (ValueError, TypeError, RuntimeError, OverflowError)), \
            f"{what}\n torch: {te!r}\n strided: {se!r}"
        if exact_text:
            # (clamp_ names the target type in C: "unsigned char" where add_ says "Byte")
            first_s, first_t = (str(e).splitlines()[0].split("desired output type")[0] for e in (se, te))
            assert first_s == first_t, f"{what}\n torch: {te}\n strided: {se}"
        assert len(str(se).splitlines()) >= 2, f"{what}: strided's error explains itself: {se}"
        return se
    if isinstance(tr, torch.Tensor):
        assert dtype_name(sr) == dtype_name(tr), f"{what}: {sr!r} vs {tr!r}"
    np.testing.assert_allclose(values_of(sr), values_of(tr), rtol=rtol, atol=0, equal_nan=True, err_msg=what)
    return None


# ====================================================================== R2-01: aliasing operands


def test_r2_01_clamp_with_a_bound_that_is_the_target():
    for make_max in (lambda y: y, lambda y: y[:]):
        expected = torch.tensor([-1.0, 5.0, 2.0])
        expected.clamp_(min=torch.tensor([0.0, 0.0, 3.0]), max=make_max(expected))
        y = st.tensor([-1.0, 5.0, 2.0])
        y.clamp_(min=st.tensor([0.0, 0.0, 3.0]), max=make_max(y))
        assert y.tolist() == expected.tolist() == [-1.0, 5.0, 2.0]
    y = st.tensor([-1.0, 5.0, 2.0])
    y.clamp_(min=st.zeros(3), max=y)
    assert y.tolist() == [-1.0, 5.0, 2.0]  # min(max(x, 0), x) == x


# Operands as functions of (library, base, target): the same tensor, views of it, overlapping
# and permuted views, a disjoint region and a clone.
ALIASES: dict[str, Callable[[Any, Any, Any], Any]] = {
    "itself": lambda L, base, tgt: tgt,
    "view": lambda L, base, tgt: tgt[:],
    "reshaped view": lambda L, base, tgt: tgt.view(tgt.shape) if tgt.is_contiguous() else tgt[...],
    "overlap": lambda L, base, tgt: base[1:3],
    "permuted": lambda L, base, tgt: tgt.t(),
    "flipped rows": lambda L, base, tgt: base[2:0:-1] if L is st else base[1:3].flip(0),
    "row": lambda L, base, tgt: tgt[0],
    "other region": lambda L, base, tgt: base[2:4],
    "clone": lambda L, base, tgt: tgt.clone(),
}
TARGETS: dict[str, Callable[[Any], Any]] = {
    "rows 0:2": lambda base: base[0:2],
    "rows 1:3": lambda base: base[1:3],
    "cols 1:3": lambda base: base[:, 1:3].t(),
}


def _setitem(t: Any, key: Any, value: Any) -> Any:
    t[key] = value
    return t


INPLACE: dict[str, Callable[[Any, Any, Any], Any]] = {
    "add_": lambda L, t, o: t.add_(o),
    "sub_": lambda L, t, o: t.sub_(o),
    "mul_": lambda L, t, o: t.mul_(o),
    "div_": lambda L, t, o: t.div_(o),
    "pow_": lambda L, t, o: t.pow_(o),
    "iadd": lambda L, t, o: t.__iadd__(o),
    "clamp_ min": lambda L, t, o: t.clamp_(min=o),
    "clamp_ max": lambda L, t, o: t.clamp_(max=o),
    "clamp_ min max=o": lambda L, t, o: t.clamp_(min=o * 0 - 1, max=o),
    "clamp_ min=o max": lambda L, t, o: t.clamp_(min=o, max=o * 0 + 1),
    "copy_": lambda L, t, o: t.copy_(o),
    "setitem ...": lambda L, t, o: _setitem(t, ..., o),
    "setitem row": lambda L, t, o: _setitem(t, 1, o[0] if o.ndim == 2 else o),
    "fill_ 0-d": lambda L, t, o: t.fill_(o.reshape(-1)[0]),
    "where": lambda L, t, o: t.copy_(L.where(t > 0, o, t)),
    "neg_": lambda L, t, o: t.neg_(),
    "sigmoid_": lambda L, t, o: t.sigmoid_(),
    "exp_": lambda L, t, o: t.exp_(),
    "relu_": lambda L, t, o: t.relu_(),
    "abs_": lambda L, t, o: t.abs_(),
}


def _base(L: Any) -> Any:
    return (L.arange(16, dtype=L.float64) * 0.25 - 1.5).reshape(4, 4)


@given(hs.sampled_from(sorted(INPLACE)), hs.sampled_from(sorted(ALIASES)), hs.sampled_from(sorted(TARGETS)))
@SETTINGS
def test_inplace_ops_with_aliasing_operands_read_before_write(op, alias, target):
    """Every in-place op with an operand aliasing its target: the whole storage ends as PyTorch's
    (run on the same aliasing views; a negative step, which PyTorch spells with a copying flip(),
    as if read first), or the op refuses where PyTorch refuses (OverlapWriteError for overlaps),
    with the storage untouched; or, where PyTorch finds the overlap "too hard" to judge (layouts
    with gaps) and its loop would read an element after writing it at another position (a number
    that depends on its loop order), strided refuses with the two positions, untouched too.
    """
    def run(L: Any, base: Any) -> Any:
        tgt = TARGETS[target](base)
        return INPLACE[op](L, tgt, ALIASES[alias](L, base, tgt))

    _, refused = outcome(lambda: run(torch, _base(torch)))
    reference = _base(torch)
    s_base = _base(st)
    before = s_base.numpy().copy()
    if refused is not None:
        _, err = outcome(lambda: run(st, s_base))
        assert isinstance(err, st.StridedError) and isinstance(err, type(refused)), f"{refused!r} vs {err!r}"
        np.testing.assert_array_equal(s_base.numpy(), before)
        if "single memory location" in str(err):
            assert isinstance(err, st.OverlapWriteError) and "clone()" in str(err)
        return
    _, err = outcome(lambda: run(st, s_base))
    if err is not None:
        assert isinstance(err, st.OverlapWriteError) and "which it writes at position" in str(err), repr(err)
        np.testing.assert_array_equal(s_base.numpy(), before)
        return
    run(torch, reference)
    np.testing.assert_allclose(s_base.numpy(), reference.numpy(), rtol=1e-12, equal_nan=True)


@given(hs.sampled_from(["clamp", "add", "mul", "pow", "sub", "div"]), hs.sampled_from(sorted(ALIASES)))
@SETTINGS
def test_inplace_equals_out_of_place_on_clones(op, alias):
    """x.op_(y) leaves x equal to op(x.clone(), y) computed before the write (y itself, not its clone: a
    reversed view's clone is laid out otherwise, which moves pow's vector and scalar lanes, SLEEF's and the
    C library's bits, under ATen's AVX2 step of 8 doubles)."""
    base = _base(st)
    tgt = base[1:3]
    operand = ALIASES[alias](st, base, tgt)
    if operand.shape != tgt.shape and operand.ndim == 2:
        return
    x0, y0 = tgt.clone(), operand.clone()
    fn = {"clamp": lambda x, y: x.clamp(min=y * 0 - 1, max=y), "add": st.add, "mul": st.mul,
          "pow": st.pow, "sub": st.sub, "div": st.div}[op]
    expected = fn(x0, operand)
    np.testing.assert_array_equal(operand.numpy(), y0.numpy())
    inplace = {"clamp": lambda x, y: x.clamp_(min=y * 0 - 1, max=y)}.get(op, lambda x, y: getattr(x, op + "_")(y))
    _, err = outcome(lambda: inplace(tgt, operand))
    if err is None:
        np.testing.assert_array_equal(tgt.numpy(), expected.numpy())
    else:
        assert isinstance(err, st.OverlapWriteError)
        np.testing.assert_array_equal(tgt.numpy(), x0.numpy())


# ====================================================================== R2-02 / R2-28: scalars


@pytest.mark.parametrize(
    "call",
    [
        lambda L: L.tensor([5, 200], dtype=L.uint8).clamp(0, 300),
        lambda L: L.tensor([5], dtype=L.int8).clamp(-1000, 1000),
        lambda L: L.tensor([5, 200], dtype=L.uint8).clamp(max=256),
        lambda L: L.where(L.tensor([False]), L.tensor([5], dtype=L.uint8), 300),
    ],
)
def test_r2_02_out_of_range_scalar_bounds_are_refused(call):
    err = assert_same_outcome(lambda: call(torch), lambda: call(st), "R2-02")
    assert err is not None and "without overflow" in str(err) and "fix:" in str(err)


def test_r2_02_unsigned_bounds_still_wrap_like_torch():
    assert st.tensor([5, 200], dtype=st.uint8).clamp(min=-5).tolist() == \
        torch.tensor([5, 200], dtype=torch.uint8).clamp(min=-5).tolist() == [251, 251]


def test_r2_02_failed_clamp_leaves_target_unchanged():
    t = st.tensor([5, 200], dtype=st.uint8)
    with pytest.raises(RuntimeError, match="uint8_t without overflow"):
        t.clamp_(0, 300)
    assert t.tolist() == [5, 200]


@pytest.mark.parametrize("call", [lambda L: L.ones(2) + 2**63,
                                  lambda L: L.where(L.tensor([True, False]), L.ones(2), 2**63),
                                  lambda L: L.ones(2, dtype=L.float64) * (2**64 - 1),
                                  lambda L: L.ones(2).fill_(2**63),
                                  lambda L: L.full((2,), 2**63, dtype=L.float32),
                                  lambda L: L.tensor([1, 2], dtype=L.uint8) + 2**63,
                                  lambda L: L.tensor([True]) + 2**63,
                                  lambda L: L.ones(2) + 2**64])
def test_r2_28_ints_from_2_63_compute_or_refuse_as_torch(call):
    assert_same_outcome(lambda: call(torch), lambda: call(st), "R2-28")


SCALARS = [300, -1, -5, -255, -256, -1000, 127, 128, 2**31, 2**63 - 1, 2**63, 2**64 - 1, 2**64, -(2**63),
           -(2**63) - 1, 1.5, 300.0, -1.0, float("nan"), float("inf"), 1e40, 70000.0, True, False]
SCALAR_OPS: dict[str, Callable[[Any, Any, Any], Any]] = {
    "clamp": lambda L, x, v: x.clamp(0, v), "clamp min": lambda L, x, v: x.clamp(min=v),
    "clamp max": lambda L, x, v: x.clamp(max=v), "clamp_": lambda L, x, v: x.clone().clamp_(min=v),
    "where": lambda L, x, v: L.where(L.tensor([False, True]), x, v),
    "where other": lambda L, x, v: L.where(L.tensor([False, True]), v, x),
    "add": lambda L, x, v: x + v, "radd": lambda L, x, v: v + x, "add_": lambda L, x, v: x.clone().add_(v),
    "sub": lambda L, x, v: x - v, "rsub": lambda L, x, v: v - x, "mul": lambda L, x, v: x * v,
    "div": lambda L, x, v: x / v, "rdiv": lambda L, x, v: v / x, "floordiv": lambda L, x, v: x // v,
    "remainder": lambda L, x, v: x % v, "eq": lambda L, x, v: x == v, "lt": lambda L, x, v: x < v,
    "ge": lambda L, x, v: x >= v, "pow": lambda L, x, v: x**v, "rpow": lambda L, x, v: v**x,
    "pow_": lambda L, x, v: x.clone().pow_(v), "and": lambda L, x, v: x & v, "xor": lambda L, x, v: x ^ v,
    "fill_": lambda L, x, v: x.clone().fill_(v), "fill_ 0-d": lambda L, x, v: x[0].clone().fill_(v),
    "setitem [0]": lambda L, x, v: _setitem(x.clone(), 0, v),
    "setitem [...]": lambda L, x, v: _setitem(x.clone(), ..., v),
    "copy_": lambda L, x, v: x.clone().copy_(v), "full": lambda L, x, v: L.full((2,), v, dtype=x.dtype),
}


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32", "int64", "bool", "float16", "float32"])
def test_python_scalars_meet_dtypes_as_in_torch(dtype):
    """Small dtypes x Python scalars (in and out of range, negative, >= 2**63, floats, nan,
    bools) through clamp, where, binary ops, pow, fills, setitem and copy_: torch's value or
    torch's error (class and first line)."""
    xt = torch.tensor([5, 100], dtype=getattr(torch, dtype))
    xs = st.tensor([5, 100], dtype=dtype)
    for v in SCALARS:
        for name, op in SCALAR_OPS.items():
            # (float pow's last bit differs between NumPy and PyTorch: rtol)
            assert_same_outcome(lambda op=op, v=v: op(torch, xt, v), lambda op=op, v=v: op(st, xs, v),
                                f"{dtype} {name} {v!r}", rtol=1e-6)
    assert xs.tolist() == xt.tolist()  # (no op above wrote into them)


# ====================================================================== R2-10: write paths


R2_10_CASES = [
    ("float32", ["1", "2", "x", "4"]),
    ("int64", [1, 2**70, 3]),
    ("float32", [1.0, None, 3.0]),
    ("float32", ["1.5", "2", "3"]),
    ("int64", [1, 2**64 - 1, 3]),
    ("float32", np.array(["2020-01-01"] * 3, "M8[D]")),
]


@pytest.mark.parametrize("dtype, value", R2_10_CASES, ids=repr)
def test_r2_10_setitem_refuses_what_tensor_refuses_and_writes_nothing(dtype, value):
    n = len(value)
    t = st.arange(n).to(dtype) + 7
    before = t.numpy().tobytes()
    with pytest.raises(TypeError) as info:
        t[...] = value
    assert isinstance(info.value, st.StridedError)
    assert "fix:" in str(info.value) or "convert it first" in str(info.value)
    assert t.numpy().tobytes() == before
    with pytest.raises(Exception) as refused:  # tensor() refuses the same data
        st.tensor(value)
    assert isinstance(refused.value, st.StridedError)


BAD_VALUES = [
    "abc", None, 2**70, 2**64, 2**63, -(2**63) - 1, [1, 2**70], [[1, 2], [3]], [[[1, 2]]], [[1], [2]],
    [1.0, None], ["1", "2"], float("nan"), [float("nan"), 1.0], True, [True, False], 300, -1, 1e40, 70000.0,
    [300, 1], 2.5, [2.5, 1.5], (1, 2), [], [[]],
    np.array(["a", "b"]), np.array([1, 2], dtype=object), np.array([1 + 2j, 0]), np.array([1, 2], dtype=">i4"),
    np.array([0.5, 1e10], dtype=">f8"), np.array(["2020-01-01", "2021-01-01"], "M8[D]"), np.array([3, 4], np.int16),
    np.array([True, False]), np.float64(2.5), np.int64(-3), np.str_("x"),
]


WRITE_PATHS: dict[str, Callable[[Any, Any, Any], Any]] = {
    "t[...] = v": lambda L, t, v: _setitem(t, ..., v),
    "t[0] = v": lambda L, t, v: _setitem(t, 0, v),
    "t[1:] = v": lambda L, t, v: _setitem(t, slice(1, None), v),
    "t[::2] = v": lambda L, t, v: _setitem(t, slice(None, None, 2), v),
    "t[None] = v": lambda L, t, v: _setitem(t, None, v),
    "copy_": lambda L, t, v: t.copy_(v),
    "fill_": lambda L, t, v: t.fill_(v),
    "add_": lambda L, t, v: t.add_(v),
    "mul_": lambda L, t, v: t.mul_(v),
}


@given(hs.sampled_from(range(len(BAD_VALUES))), hs.sampled_from(sorted(WRITE_PATHS)),
       hs.sampled_from(["float32", "int64", "uint8", "bool", "float16"]))
@settings(max_examples=300, deadline=None)
def test_bad_values_through_every_write_path(index, path, dtype):
    """Either PyTorch's result, or the right error class with the target byte-for-byte unchanged."""
    value = BAD_VALUES[index]
    write = WRITE_PATHS[path]
    t = st.tensor([3, 0], dtype=dtype)
    r = torch.tensor([3, 0], dtype=getattr(torch, dtype))
    before = t.numpy().tobytes()
    is_data = isinstance(value, (list, tuple, np.ndarray)) or (
        isinstance(value, np.generic) and value.dtype.kind not in "biuf")
    if path.startswith("t[") and is_data:
        # what strided.tensor() takes (complex and uint16 arrays are torch's, not strided's)
        built, refused = outcome(lambda: st.tensor(value))
        _, te = (None, refused) if refused else outcome(
            lambda: write(torch, r, torch.from_numpy(built.numpy().copy())))
        _, se = outcome(lambda: write(st, t, value))
        assert (te is None) == (se is None), f"{path} {value!r}: torch {te!r}, strided {se!r}"
        if se is not None:
            # Note: PyTorch's t[...] = list is always a TypeError; strided writes data that
            # tensor() takes and refuses the rest with TypeError, naming tensor()'s reason.
            assert isinstance(se, st.StridedError), repr(se)
            assert isinstance(se, TypeError if refused else type(te)), f"{te!r} vs {se!r}"
    elif isinstance(value, np.ndarray) and path in ("add_", "mul_"):
        return  # Note: strided reads a NumPy operand zero-copy (from_numpy); PyTorch refuses it
    else:
        se = assert_same_outcome(lambda: write(torch, r, value), lambda: write(st, t, value),
                                 f"{path} {value!r} {dtype}", exact_text=False, rtol=1e-3)
    if se is not None:
        assert t.numpy().tobytes() == before, f"{path} {value!r}: a failed write changed the target"
    else:
        np.testing.assert_array_equal(values_of(t), values_of(r))


# ====================================================================== tensor() input


def test_r2_27_byte_swapped_arrays():
    a = np.arange(3, dtype=">f4")
    with pytest.raises(ValueError) as peer:
        torch.from_numpy(a)
    with pytest.raises(ValueError) as info:
        st.from_numpy(a)
    assert isinstance(info.value, st.StridedError)
    assert str(info.value).splitlines()[0] == str(peer.value).splitlines()[0]
    assert "strided.tensor(array)" in str(info.value)
    # Note: torch.tensor / as_tensor refuse too; strided's copy converts, as np.asarray(a, "=f4")
    for make in (st.tensor, st.as_tensor):
        for dtype in (">f4", ">i8", ">i2", ">f8"):
            arr = np.array([1, -2, 300], dtype=dtype)
            got = make(arr)
            assert got.tolist() == arr.tolist()
            assert got.dtype.name == np.dtype(dtype).newbyteorder("=").name


def _nested(depth: int) -> list:
    x: Any = [1]
    for _ in range(depth - 1):
        x = [x]
    return x


@pytest.mark.parametrize("depth", [65, 200, 3000])
def test_r2_15_deep_lists_are_a_value_error(depth):
    with pytest.raises(ValueError) as info:
        st.tensor(_nested(depth))
    assert isinstance(info.value, st.StridedError)
    assert str(info.value).splitlines()[0] == "too many dimensions 'list'"
    assert "64" in str(info.value)
    if depth >= 3000:
        with pytest.raises(ValueError, match="too many dimensions 'list'"):
            torch.tensor(_nested(depth))
    assert st.tensor(_nested(64)).ndim == 64


def _self_referential() -> list:
    a: list = [1]
    a.append(a)
    return a


def _self_referential_deeper() -> list:
    d: list = [[1, 2], [3, 4]]
    d[1][0] = d
    return d


def test_r2_29_self_referential_lists():
    data = _self_referential()
    with pytest.raises(TypeError) as peer:
        torch.tensor(data)
    for made in (data, _self_referential_deeper()):  # (torch.tensor of the deeper one crashes)
        with pytest.raises(TypeError) as info:
            st.tensor(made)
        assert isinstance(info.value, st.StridedError)
        assert str(info.value).splitlines()[0] == str(peer.value).splitlines()[0]
        assert "contains itself" in str(info.value)


@given(hs.recursive(hs.integers(-3, 3), lambda kids: hs.lists(kids, min_size=1, max_size=3), max_leaves=12),
       hs.integers(0, 3))
@settings(max_examples=150, deadline=None)
def test_nested_data_like_torch(data, loops):
    """Random nesting (ragged, mixed depth, self-references): torch's tensor or its error class."""
    if isinstance(data, list) and loops:
        node = data
        for _ in range(loops - 1):  # make a list contain itself or an outer one
            if isinstance(node[-1], list):
                node = node[-1]
        node.append(data)
        if node is not data:  # torch.tensor recurses until the process crashes: strided refuses
            _, se = outcome(lambda: st.tensor(data))
            assert isinstance(se, st.StridedError) and isinstance(se, (TypeError, ValueError)), repr(se)
            return
    tr, te = outcome(lambda: torch.tensor(data))
    sr, se = outcome(lambda: st.tensor(data))
    assert (te is None) == (se is None), f"{data!r}: torch {te!r}, strided {se!r}"
    if te is None:
        assert sr.tolist() == tr.tolist()
    else:
        assert isinstance(se, st.StridedError) and isinstance(se, type(te)), f"{data!r}: {te!r} vs {se!r}"


# ---------------------------------------------------------------- found by the second hostile pass


@pytest.mark.parametrize("op", ["mul_", "add_", "sub_", "div_", "remainder_"])
@pytest.mark.parametrize("index", [0, -1])
def test_in_place_op_with_a_0d_view_of_the_target_is_refused_like_torch(op, index):
    t, s = torch.tensor([2.0, 3.0, 4.0]), st.tensor([2.0, 3.0, 4.0])
    with pytest.raises(RuntimeError) as peer:
        getattr(t, op)(t[index])
    with pytest.raises(st.OverlapWriteError) as ours:
        getattr(s, op)(s[index])
    assert str(ours.value).splitlines()[0] == str(peer.value).splitlines()[0]
    assert s.tolist() == [2.0, 3.0, 4.0]
    # a 0-d target, or operands that do not meet, are fine in both
    getattr(t[0], op)(t[1])
    getattr(s[0], op)(s[1])
    assert s.tolist() == t.tolist()


@pytest.mark.parametrize("op", [lambda w: w.add_(1), lambda w: w.pow_(2), lambda w: w.mul_(w.clone())])
def test_in_place_update_of_overlapping_windows_is_torchs(op):
    # torch updates the shared elements once per window ([1, 3, 4, 4] for add_(1)), one element
    # after another in its loop's order (below its parallel grain): strided makes the same updates
    t, s = torch.arange(4.0), st.arange(4.0)
    op(t.unfold(0, 2, 1))
    op(s.unfold(0, 2, 1))
    assert s.tolist() == t.tolist()


def test_in_place_update_of_overlapping_windows_past_the_grain_is_refused(monkeypatch):
    # from its parallel grain (32768 elements) torch's threads race for the shared locations
    monkeypatch.setenv("OMP_NUM_THREADS", "2")
    s = st.arange(40001.0)
    with pytest.raises(st.OverlapWriteError) as info:
        s.unfold(0, 2, 1).add_(1)
    text = str(info.value)
    assert "strides (1, 1)" in text and "unfold" in text and "clone()" in text
    assert s.tolist() == list(range(40001))


def test_plain_writes_into_overlapping_windows_stay_as_in_torch():
    t, s = torch.arange(4.0), st.arange(4.0)
    t.unfold(0, 2, 1).fill_(7.0)
    s.unfold(0, 2, 1).fill_(7.0)
    assert s.tolist() == t.tolist()
    t.unfold(0, 2, 1).copy_(torch.tensor(5.0))
    s.unfold(0, 2, 1).copy_(st.tensor(5.0))
    assert s.tolist() == t.tolist()
