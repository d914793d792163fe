"""``explain_numpy`` against real NumPy 2.x: the predicted outcome, shape, strides, offset, bytes
copied and error (class and first line) equal what running the op gives.

Layouts are built with ``as_strided`` over an ``arange`` buffer: permuted, stepped, negative
steps, stride 0, size-1 dims with odd strides, zero-size and 0-d. A seeded generator supplies
the volume (valid and invalid arguments mixed); hypothesis the shrinking strategies. A real
result is a view when its ``base`` chain reaches the buffer (then its data pointer lies inside
the buffer's bytes: checked too), a copy otherwise.
"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

from layout_strategies import specs
from strided.diagnose.explain_numpy import NUMPY_OPS, explain_numpy
from strided.diagnose.report import Explanation
from strided.layout import contiguous_strides, index_span

DTYPES = ("int64", "float32", "int16", "uint8", "complex128")


# ---------------------------------------------------------------- building arrays and running ops


def build(shape, strides, offset, storage, dtype="int64"):
    """``(shape, strides, offset)`` in elements over ``arange(storage)`` of ``dtype``: (x, buffer)."""
    buf = np.arange(storage).astype(dtype)
    item = buf.itemsize
    x = np.lib.stride_tricks.as_strided(buf[offset:], shape, tuple(s * item for s in strides))
    return x, buf


def run(x, op, args, kwargs):
    if op == "flatten":
        return x.flatten(*args, **kwargs)
    if op.startswith("ndarray."):  # through the method descriptor, as x.name(...) calls it
        return getattr(np.ndarray, op[len("ndarray."):])(x, *args, **kwargs)
    return getattr(np, op)(x, *args, **kwargs)


def _reaches(obj, buf) -> bool:
    seen = 0
    while obj is not None and seen < 50:
        if obj is buf:
            return True
        obj = getattr(obj, "base", None)
        seen += 1
    return False


def actual(x, buf, op, args, kwargs) -> dict:
    """What NumPy really does: outcome, shape, strides and offset in elements, bytes, error."""
    try:
        r = run(x, op, args, kwargs)
    except Exception as err:  # noqa: BLE001 - every class NumPy raises is compared
        return {"outcome": "error", "error": f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"}
    item = x.itemsize
    view = _reaches(r, buf)
    ptr = r.__array_interface__["data"][0]
    lo = buf.__array_interface__["data"][0]
    if r.size and x.size:
        assert (lo <= ptr < lo + buf.nbytes) == view, "base chain and data pointer disagree"
    return {
        "outcome": "view" if view else "copy",
        "shape": r.shape,
        "strides": tuple(s // item for s in r.strides),
        "offset": (ptr - x.__array_interface__["data"][0]) // item if view else 0,
        "bytes": 0 if view else r.nbytes,
    }


def predicted(rep: Explanation) -> dict:
    if rep.outcome == "error":
        return {"outcome": "error", "error": rep.error}
    return {"outcome": rep.outcome, "shape": rep.shape, "strides": rep.strides, "offset": rep.offset,
            "bytes": rep.bytes_copied}


def check(x, buf, op, args=(), kwargs=None) -> Explanation:
    kwargs = kwargs or {}
    before = x.copy()
    rep = explain_numpy(x, op, args, kwargs)
    assert np.array_equal(x, before)  # explaining never touches the data
    want = actual(x, buf, op, args, kwargs)
    got = predicted(rep)
    assert got == want, f"{rep.call} on shape {x.shape} strides {x.strides}: predicted {got}, NumPy {want}"
    for fix in rep.fixes:  # every fix is a real call that costs what it says
        r = eval(fix.call, {"np": np, "x": x})  # noqa: S307 - our own text
        assert (0 if _reaches(r, buf) else r.nbytes) == fix.bytes_copied, (rep.call, fix)
    return rep


# ---------------------------------------------------------------- random layouts and arguments


def random_layout(rng: random.Random):
    """(shape, strides, offset, storage) in elements, favouring the hard layouts."""
    ndim = rng.choice([0, 1, 1, 2, 2, 2, 3, 3, 4])
    shape = [rng.choice([1, 1, 2, 2, 3, 3, 4, 5]) if rng.random() > 0.06 else 0 for _ in range(ndim)]
    steps = [rng.choice([1, 1, 1, 2, 3]) for _ in range(ndim)]
    parent = [max(n, 1) * k + rng.choice([0, 0, 1]) for n, k in zip(shape, steps)]
    base = contiguous_strides(parent)
    perm = list(range(ndim))
    if rng.random() < 0.5:
        rng.shuffle(perm)
    strides = [base[perm[d]] * steps[d] for d in range(ndim)]
    for d in range(ndim):
        kind = rng.choice(["keep"] * 5 + ["expand", "odd1", "neg", "neg"])
        if kind == "expand":
            strides[d] = 0
        elif kind == "odd1" and shape[d] == 1:
            strides[d] = rng.randint(-7, 7)
        elif kind == "neg":
            strides[d] = -strides[d]
    lo, _ = index_span([max(n, 1) for n in shape], strides)
    _, hi = index_span(shape, strides)
    offset = -lo + rng.randint(0, 2)
    return tuple(shape), tuple(strides), offset, hi + offset + rng.randint(0, 2)


def _factor_shape(rng: random.Random, n: int) -> list[int]:
    """A random shape of ``n`` elements (size-1 dims sprinkled in)."""
    if n == 0:
        dims = [0] + [rng.choice([1, 2, 3]) for _ in range(rng.randint(0, 2))]
        rng.shuffle(dims)
        return dims
    dims = []
    rest = n
    for p in (2, 3, 5, 7):
        while rest % p == 0:
            rest //= p
            if dims and rng.random() < 0.5:
                dims[-1] *= p
            else:
                dims.append(p)
    if rest > 1:
        dims.append(rest)
    rng.shuffle(dims)
    for _ in range(rng.choice([0, 0, 1, 2])):
        dims.insert(rng.randint(0, len(dims)), 1)
    return dims


def _orders(rng: random.Random, reshape: bool = False):
    return rng.choice(["C", "F", "A", "K", "C", "F", None, "c", "f", "a", "X", "", 3])


def _bad_int(rng: random.Random):
    return rng.choice([1.0, "0", None, True, np.int64(1), [0]])


def _axis(rng: random.Random, ndim: int) -> int:
    return rng.randint(-ndim - 1, ndim) if rng.random() < 0.2 else rng.randint(-max(ndim, 1), max(ndim, 1) - 1)


def random_call(rng: random.Random, shape: tuple[int, ...]):
    """An op and its (args, kwargs), valid or not, for an array of ``shape`` (a method spelling
    about one time in four)."""
    op = rng.choice(NUMPY_OPS + ("reshape", "reshape", "reshape", "ravel", "transpose", "squeeze"))
    method = op.startswith("ndarray.")
    op = op.split(".")[-1]
    op, args, kwargs = _function_call(rng, op, shape)
    if not method:
        return op, args, kwargs
    if op == "reshape":
        if "shape" in kwargs and rng.random() < 0.9:
            args = (kwargs.pop("shape"),) + args
        if args and isinstance(args[0], (tuple, list)) and rng.random() < 0.6:
            args = tuple(args[0]) + args[1:]  # x.reshape(3, 4)
    if op == "transpose" and args and isinstance(args[0], (tuple, list)) and rng.random() < 0.6:
        args = tuple(args[0]) + args[1:]  # x.transpose(1, 0)
    if op in ("swapaxes", "transpose") and rng.random() < 0.03:
        kwargs = {"axes": (0,)}
    return "ndarray." + op, args, kwargs


def _function_call(rng: random.Random, op: str, shape: tuple[int, ...]):
    ndim, n = len(shape), math.prod(shape)
    if op in ("swapaxes",) and rng.random() < 0.1:
        return op, (0,) * rng.choice([0, 1, 3]), {}
    args: list = []
    kwargs: dict = {}
    if op == "reshape":
        new = _factor_shape(rng, n)
        r = rng.random()
        if r < 0.2 and new:
            new[rng.randrange(len(new))] = -1
        elif r < 0.25:
            new = new + [2]
        elif r < 0.28:
            new = [-1, -1] + new
        elif r < 0.3 and new:
            new[0] = rng.choice([1.0, "a", True])
        elif r < 0.33:
            new = list(shape)
        shape_arg = tuple(new) if rng.random() < 0.8 else (new if rng.random() < 0.5 else (new[0] if len(new) == 1 else None))
        if rng.random() < 0.8:
            args.append(shape_arg)
        else:
            kwargs["shape"] = shape_arg
        if rng.random() < 0.4:
            kwargs["order"] = rng.choice(["C", "F", "A", "C", "F", "A", "K", None, "X", 1])
        if rng.random() < 0.5:
            kwargs["copy"] = rng.choice([None, False, False, True, "no", 0])
    elif op in ("ravel", "flatten", "copy"):
        if rng.random() < 0.7:
            order = _orders(rng)
            (args.append(order) if rng.random() < 0.5 else kwargs.__setitem__("order", order))
    elif op == "transpose":
        r = rng.random()
        if r < 0.6:
            perm = list(range(ndim))
            rng.shuffle(perm)
            perm = [p - ndim if rng.random() < 0.3 else p for p in perm]
            if rng.random() < 0.15 and perm:
                perm[0] = rng.choice([ndim, -ndim - 1, perm[-1], 1.0])
            if rng.random() < 0.05:
                perm = perm[:-1]
            args.append(tuple(perm) if rng.random() < 0.7 else perm)
        elif r < 0.75:
            args.append(None)
        elif r < 0.85:
            args.append(_axis(rng, ndim))
        elif r < 0.9:
            args.append(1.5)
    elif op == "swapaxes":
        args = [_axis(rng, ndim), _axis(rng, ndim)]
        if rng.random() < 0.05:
            args[rng.randrange(2)] = _bad_int(rng)
    elif op == "moveaxis":
        k = rng.randint(0, max(ndim, 1))
        src = [_axis(rng, ndim) for _ in range(k)]
        dst = [_axis(rng, ndim) for _ in range(k if rng.random() < 0.9 else k + 1)]
        conv = rng.choice([tuple, list, lambda v: v[0] if len(v) == 1 else tuple(v)])
        args = [conv(src), conv(dst)]
        if rng.random() < 0.05:
            args[rng.randrange(2)] = _bad_int(rng)
    elif op == "squeeze":
        r = rng.random()
        ones = [d for d in range(ndim) if shape[d] == 1]
        if r < 0.3:
            pass
        elif r < 0.6:
            kwargs["axis"] = rng.choice(ones) if ones and rng.random() < 0.7 else _axis(rng, ndim)
        elif r < 0.9:
            pick = [d for d in ones if rng.random() < 0.6] + ([_axis(rng, ndim)] if rng.random() < 0.2 else [])
            args.append(tuple(pick))
        else:
            args.append(_bad_int(rng))
    elif op == "expand_dims":
        k = rng.choice([1, 1, 1, 2, 3, 0])
        axes = [rng.randint(-(ndim + k) - 1, ndim + k) for _ in range(k)]
        args.append(axes[0] if k == 1 and rng.random() < 0.6 else (tuple(axes) if rng.random() < 0.7 else axes))
        if rng.random() < 0.04:
            args[0] = _bad_int(rng)
    elif op == "broadcast_to":
        lead = [rng.choice([1, 2, 3, 0]) for _ in range(rng.choice([0, 0, 1, 2]))]
        target = lead + [rng.choice([s, s, 2, 3]) if s == 1 else (s if rng.random() < 0.9 else s + 1) for s in shape]
        r = rng.random()
        if r < 0.05:
            target = target[1:]
        elif r < 0.08:
            target = []
        elif r < 0.1 and target:
            target[0] = -1
        elif r < 0.12 and target:
            target[0] = rng.choice([1.5, "a"])
        args.append(tuple(target) if rng.random() < 0.8 else (target if len(target) != 1 else target[0]))
    if rng.random() < 0.02:  # a wrong argument count or keyword
        if rng.random() < 0.5:
            args = args + [0, 0, 0]
        else:
            kwargs["bogus"] = 1
    return op, tuple(args), kwargs


# ---------------------------------------------------------------- the differential fuzz


N_CASES = 12_000


def test_fuzz_against_numpy() -> None:
    rng = random.Random(20261130)
    outcomes: dict[str, int] = {}
    for _ in range(N_CASES):
        shape, strides, offset, storage = random_layout(rng)
        x, buf = build(shape, strides, offset, storage, rng.choice(DTYPES))
        op, args, kwargs = random_call(rng, shape)
        rep = check(x, buf, op, args, kwargs)
        outcomes[rep.outcome] = outcomes.get(rep.outcome, 0) + 1
    # the generator reaches every outcome often (a fuzz of only errors would prove little)
    assert min(outcomes.get(k, 0) for k in ("view", "copy", "error")) > N_CASES // 20, outcomes


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(specs(max_dims=4, negative=True), hs.randoms(use_true_random=False), hs.sampled_from(DTYPES))
def test_hypothesis_layouts_against_numpy(spec, rng, dtype) -> None:
    x, buf = build(spec.shape, spec.strides, spec.offset, spec.storage_size, dtype)
    for _ in range(8):
        op, args, kwargs = random_call(rng, spec.shape)
        check(x, buf, op, args, kwargs)


# ---------------------------------------------------------------- pinned cases (found by the fuzz, or classic)


def _x(shape, strides, offset=None, storage=None, dtype="int64"):
    if offset is None:
        lo, _ = index_span([max(n, 1) for n in shape], strides)
        offset = -lo
    if storage is None:
        _, hi = index_span(shape, strides)
        storage = hi + offset + 1
    return build(shape, strides, offset, storage, dtype)


PINNED = [
    # ravel of a 1-d size-1 array with an odd stride: NumPy reshapes to (-1,), dense stride
    ("ravel_size1_odd_stride", ((1,), (3,)), "ravel", (), {}),
    # broadcast_to zeroes the stride of every size-1 dim, stretched or not
    ("broadcast_size1_kept", ((3, 1), (1, 5)), "broadcast_to", ((3, 1),), {}),
    ("broadcast_empty", ((3, 0), (4, 1)), "broadcast_to", ((2, 3, 0),), {}),
    # fresh empty copies have all-zero strides; a reshape copy of an empty array does not
    ("copy_empty", ((3, 0), (-4, -1)), "copy", (), {}),
    ("flatten_empty", ((2, 0), (1, 2)), "flatten", (), {}),
    ("reshape_copy_true_empty", ((0, 3), (3, 1)), "reshape", ((3, 0),), {"copy": True}),
    # copy order K: the dims sorted by |stride| (stride 0 and size 1 included), ties in index order
    ("copy_k_stride0", ((3, 1, 2), (2, 0, 5)), "copy", (), {}),
    ("copy_k_negative", ((3, 4), (-1, 3)), "copy", (), {}),
    # ravel(order='K') of a negative step copies; of a permuted dense array it is a view
    ("ravel_k_negative", ((3, 4), (4, -1)), "ravel", (), {"order": "K"}),
    ("ravel_k_permuted", ((4, 3), (1, 4)), "ravel", (), {"order": "K"}),
    # expand_dims is a reshape: NumPy's strides for the new size-1 dims
    ("expand_dims_noncontig", ((3, 2), (4, 2)), "expand_dims", (2,), {}),
    ("expand_dims_contig", ((3, 1), (1, 7)), "expand_dims", (0,), {}),
    # squeeze of a 0-d array accepts axis 0 and -1
    ("squeeze_0d", ((), ()), "squeeze", (-1,), {}),
    ("squeeze_dup_before_bad", ((1, 2), (2, 1)), "squeeze", ((0, 0, 1.0),), {}),
    ("ascontiguousarray_0d", ((), ()), "ascontiguousarray", (), {}),
    ("asfortranarray_copy", ((2, 3), (3, 1)), "asfortranarray", (), {}),
    ("reshape_copy_false", ((4, 3), (1, 4)), "reshape", ((12,),), {"copy": False}),
    ("reshape_order_k", ((2, 3), (3, 1)), "reshape", ((6,),), {"order": "K"}),
    ("reshape_none", ((2, 3), (1, 2)), "reshape", (None,), {}),
    ("moveaxis_not_iterable", ((2, 3), (3, 1)), "moveaxis", (1.5, 0), {}),
    ("broadcast_str", ((2,), (1,)), "broadcast_to", ("ab",), {}),
    # the method spellings: their own argument lists and defaults
    ("method_reshape_varargs", ((3, 4), (1, 3)), "ndarray.reshape", (2, 6), {"order": "F"}),
    ("method_reshape_no_shape", ((3,), (1,)), "ndarray.reshape", (), {}),
    ("method_reshape_bad_keyword_after_copy", ((3,), (1,)), "ndarray.reshape", ((3,),), {"shape": 1, "copy": "no"}),
    ("method_transpose_varargs", ((2, 3, 4), (12, 4, 1)), "ndarray.transpose", (2, 0, 1), {}),
    ("method_transpose_keyword", ((2, 3), (3, 1)), "ndarray.transpose", (), {"axes": (1, 0)}),
    ("method_copy_is_c_order", ((4, 3), (1, 4)), "ndarray.copy", (), {}),
    ("method_swapaxes_count", ((2, 3), (3, 1)), "ndarray.swapaxes", (1,), {}),
    ("c_parser_name_and_position", ((2, 3), (3, 1)), "flatten", ("C",), {"order": "F"}),
    # NumPy's limits: sizes beyond int64, extents beyond int64 bytes or elements, more than 64 dims
    ("reshape_size_beyond_int64", ((3, 4), (4, 1)), "reshape", ((2**63,),), {}),
    ("reshape_product_overflow_with_zero", ((0,), (1,)), "reshape", ((2**62, 2, 0),), {}),
    ("reshape_empty_too_many_bytes", ((0,), (1,)), "reshape", ((2**61, 2, 0),), {}),
    ("broadcast_iterator_too_large", ((3,), (1,)), "broadcast_to", ((2**62, 3),), {}),
    ("broadcast_too_many_bytes", ((3,), (1,)), "broadcast_to", ((2**59, 3),), {}),
    ("expand_dims_past_64_dims", ((3, 4), (4, 1)), "expand_dims", (tuple(range(63)),), {}),
    ("order_as_bytes", ((4, 3), (1, 4)), "reshape", ((12,),), {"order": b"F"}),
]


@pytest.mark.parametrize("name, layout, op, args, kwargs", PINNED, ids=[p[0] for p in PINNED])
def test_pinned(name, layout, op, args, kwargs) -> None:
    x, buf = _x(*layout)
    check(x, buf, op, args, kwargs)


# ---------------------------------------------------------------- reports


def test_report_fields_for_a_refused_reshape() -> None:
    x, _ = _x((4, 3), (1, 4), dtype="float64")
    rep = explain_numpy(x, "reshape", ((12,),), {"copy": False})
    assert rep.library == "numpy" and rep.op == "reshape" and rep.outcome == "error"
    assert rep.error_class == "ValueError"
    assert rep.input_shape == (4, 3) and rep.input_strides == (1, 4) and rep.itemsize == 8
    assert type(rep.refusal).__name__ == "NoCopyRefusal"
    assert "stride[0] == size[1] * stride[1] = 3 * 4 = 12, but stride[0] is 1" in rep.reason
    assert [(f.call, f.bytes_copied) for f in rep.fixes] == [
        ("np.reshape(x, (12,), order='C')", 96), ("np.reshape(x, (12,), order='F')", 0),
        ("np.reshape(x.T, (12,))", 0)]


def test_str_reshape_copy_false_on_a_transpose() -> None:
    x = np.arange(12.0).reshape(3, 4).T
    assert str(explain_numpy(x, "reshape", ((12,),), {"copy": False})) == SNAP_RESHAPE


SNAP_RESHAPE = """\
numpy: np.reshape(x, (12,), copy=False)
  input:  shape (4, 3), strides (1, 4), offset 0
  → error: ValueError: Unable to avoid creating a copy while reshaping.
  dims 0 and 1 cannot merge: stride[0] == size[1] * stride[1] = 3 * 4 = 12, but stride[0] is 1 (in elements): walking dim 0 jumps back through memory instead of past the end of dim 1
  fix: np.reshape(x, (12,), order='C')  (copies 96 bytes; copy=None copies when it must)
  fix: np.reshape(x, (12,), order='F')  (a view, 0 bytes; a view, but it reads the elements in F order)
  fix: np.reshape(x.T, (12,))  (a view, 0 bytes; a view of x.T: its elements in x.T's order)"""


def test_str_ravel_k_of_a_negative_step() -> None:
    x = np.arange(12.0).reshape(3, 4)[:, ::-1]
    assert str(explain_numpy(x, "ravel", (), {"order": "K"})) == SNAP_RAVEL_K


SNAP_RAVEL_K = """\
numpy: np.ravel(x, order='K')
  input:  shape (3, 4), strides (4, -1), offset 0
  → copy (96 bytes): shape (12,), strides (1,), offset 0
  a copy of 96 bytes: order 'K' walks memory in the order of the strides (dims 0, 1), but dim 1 has stride -1 (it walks backwards): memory order is not one forward run of unit steps, so no single stride reads it (in elements)
  dims: merges input dims 0, 1 (3, 4) into output dim 0 (12)"""


def test_str_flatten_always_copies() -> None:
    x = np.arange(12.0).reshape(3, 4)
    assert str(explain_numpy(x, "flatten", (), {})) == SNAP_FLATTEN


SNAP_FLATTEN = """\
numpy: x.flatten()
  input:  shape (3, 4), strides (4, 1), offset 0
  → copy (96 bytes): shape (12,), strides (1,), offset 0
  a copy of 96 bytes: flatten() always copies
  dims: merges input dims 0, 1 (3, 4) into output dim 0 (12)
  fix: np.ravel(x)  (a view, 0 bytes; a view of the same elements in the same order)"""


def test_view_offset_counts_from_xs_first_element() -> None:
    x, buf = _x((3, 4), (-4, 1))  # rows reversed: x's first element is the buffer's row 2
    rep = check(x, buf, "transpose", ())
    assert rep.offset == 0 and rep.strides == (1, -4)
    rep = check(x, buf, "broadcast_to", ((2, 3, 4),))
    assert rep.strides == (0, -4, 1)


# ---------------------------------------------------------------- misuse of explain itself


def test_unknown_op_lists_the_accepted_ones() -> None:
    with pytest.raises(ValueError, match="unknown op 'view'; NumPy ops accepted: reshape, ravel, flatten"):
        explain_numpy(np.zeros(3), "view", ())


def test_not_an_array_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="expects a numpy.ndarray, got list"):
        explain_numpy([1, 2], "ravel", ())


def test_strides_not_in_whole_elements_are_refused() -> None:
    raw = np.zeros(10, dtype=np.uint8)
    x = np.lib.stride_tricks.as_strided(raw.view(np.int16)[:2], (2,), (3,))
    with pytest.raises(ValueError, match=r"byte strides \(3,\) are not all multiples of its itemsize 2"):
        explain_numpy(x, "ravel", ())


def test_dtype_argument_is_not_predicted() -> None:
    with pytest.raises(ValueError, match="without dtype= or like="):
        explain_numpy(np.zeros(3), "ascontiguousarray", (np.float32,))


# ---------------------------------------------------------------- the layout additions, as values


def test_numpy_moves_plans_are_values() -> None:
    from strided.layout import Layout
    from strided.layout import numpy_moves as NM
    from strided.layout.plans import Copy, View
    from strided.refusals import NumpyAxisRefusal

    lay = Layout((2, 3, 4), (12, 4, 1))
    assert NM.numpy_moveaxis(lay, (0,), (2,)) == View(Layout((3, 4, 2), (4, 1, 12)))
    assert NM.numpy_swapaxes(lay, 0, 3) == NumpyAxisRefusal("bounds", "swapaxes", 3, 3, "axis2")
    assert NM.numpy_transpose(lay, (0, 0, 1)) == NumpyAxisRefusal("repeated", "transpose", 3, 0)
    assert NM.numpy_squeeze(Layout((1, 3), (5, 1)), (0, 0)) == NumpyAxisRefusal("repeated", "squeeze", 2, 0)
    copy = NM.numpy_copy(Layout((3, 4), (1, 3)), itemsize=8)
    assert isinstance(copy, Copy) and copy.layout == Layout((3, 4), (1, 3)) and copy.nbytes == 96
    assert NM.numpy_flatten(Layout((2, 0), (1, 2)), itemsize=8).layout == Layout((0,), (0,))


def test_axis_refusals_render_numpys_texts() -> None:
    from strided import messages
    from strided.errors import StridedAxisError
    from strided.refusals import NumpyAxisRefusal

    err = messages.error(NumpyAxisRefusal("bounds", "moveaxis", 2, 5, "source"))
    assert isinstance(err, StridedAxisError) and isinstance(err, IndexError) and isinstance(err, ValueError)
    assert str(err).splitlines() == ["source: axis 5 is out of bounds for array of dimension 2",
                                     "  the array has 2 dims; axes count from -2 to 1"]
    assert str(messages.error(NumpyAxisRefusal("squeeze", "squeeze", 2, 1))).splitlines()[0] == (
        "cannot select an axis to squeeze out which has size not equal to one")


def test_method_copy_and_function_copy_differ() -> None:
    x, _ = _x((4, 3), (1, 4))  # F-ordered memory
    assert explain_numpy(x, "copy", ()).strides == (1, 4)  # np.copy keeps order K
    assert explain_numpy(x, "ndarray.copy", ()).strides == (3, 1)  # x.copy() writes C order
    assert explain_numpy(x, "ndarray.copy", ()).call == "x.copy()"


def test_reshape_mapping_is_the_same_in_c_and_f_order() -> None:
    x, _ = _x((2, 3, 4), (12, 4, 1))
    for new, kind in (((6, 4), "merge"), ((4, 6), "regroup"), ((2, 3, 2, 2), "split")):
        c = explain_numpy(x, "reshape", (new,)).mapping
        f = explain_numpy(x, "reshape", (new,), {"order": "F"}).mapping
        assert c == f and c.kind == kind
    assert explain_numpy(x[:, ::-1], "ravel", (), {"order": "K"}).mapping.kind == "merge"
