"""Regression tests for the low-severity findings of reliability review 3 (R3-15, R3-17 .. R3-21,
R3-23), each compared with PyTorch 2.13 (or NumPy where NumPy is the reference).

- R3-15 crafted pickles: unpickling checks the layout against the storage; the flat fast paths
  never read past a storage even when a bad layout got in;
- R3-17 ``angle`` of signed zeros and ``searchsorted`` with NaN, as PyTorch;
- R3-18 ``Generator`` pickles and deep-copies with its state;
- R3-19 ``watch_torch``, ``watch`` and ``record_copies`` exited from another thread or twice;
- R3-20 ``as_tensor`` in the CLI grammar;
- R3-21 the losses' input-domain checks;
- R3-23 read-only memory handed to torch.

Threaded tests use ``threading`` joins to force one interleaving, so they are deterministic.
"""

from __future__ import annotations

import copy
import math
import pickle
import re
import threading
import warnings

import numpy as np
import pytest
import torch

import strided as st
from oracle_helpers import case
from strided import errors as E
from strided.dtypes import DType
from strided.kernels import native
from strided.layout.core import _trusted

# ============================================================ R3-15 crafted pickles


class _Crafted:
    """Pickles as a Tensor whose fields are ``state``: what a hand-written pickle can hold."""

    def __init__(self, state: dict) -> None:
        self.state = state

    def __reduce__(self):
        return (object.__new__, (st.Tensor,), self.state)


class _RawLayout:
    """Pickles as ``strided.layout.core._trusted(shape, strides, offset)``: a Layout built without
    its checks, as any pickle can (it may call any importable function)."""

    def __init__(self, shape, strides, offset) -> None:
        self.args = (shape, strides, offset)

    def __reduce__(self):
        return (_trusted, self.args)


def _state_of(t: st.Tensor, **changes) -> dict:
    state = {"_storage": t._storage, "_layout": t._layout, "_dtype": t._dtype, "_base": None, "_ag": None}
    state.update(changes)
    return state


def _crafted_load(t: st.Tensor, **changes):
    return pickle.loads(pickle.dumps(_Crafted(_state_of(t, **changes))))


def _torch_set(storage_elems: int, offset: int, size: tuple, stride: tuple) -> str:
    """torch's set_ refusal for the same layout over a storage it may not grow (its first line)."""
    storage = torch.from_numpy(np.arange(storage_elems, dtype=np.float32)).untyped_storage()
    with pytest.raises(RuntimeError) as info:
        torch.empty(0).set_(storage, offset, size, stride)
    return str(info.value).splitlines()[0]


@pytest.mark.parametrize(
    "shape, strides, offset, first",
    [
        ((2,), (1,), 100, "setStorage: sizes [2], strides [1], storage offset 100, and itemsize 4 requiring a "
                          "storage size of 408 are out of bounds for storage of size 24"),
        ((1000,), (1,), 0, "setStorage: sizes [1000], strides [1], storage offset 0, and itemsize 4 requiring a "
                           "storage size of 4000 are out of bounds for storage of size 24"),
        ((2, 3), (3, 2), 1, "setStorage: sizes [2, 3], strides [3, 2], storage offset 1, and itemsize 4 requiring "
                            "a storage size of 36 are out of bounds for storage of size 24"),
        ((3,), (-1,), 0, "Tensor: invalid storage offset: sizes [3], strides [-1] and storage offset 0 reach "
                         "storage index -2"),
        ((2, 2), (-3, 1), 2, "Tensor: invalid storage offset: sizes [2, 2], strides [-3, 1] and storage offset 2 "
                             "reach storage index -1"),
        ((2,), (1,), -1, "Tensor: invalid storage offset -1"),
        ((-2,), (1,), 0, "Trying to create tensor with negative dimension -2: [-2]"),
    ],
)
def test_r3_15_unpickling_refuses_a_layout_outside_its_storage(shape, strides, offset, first):
    with pytest.raises(E.StridedRuntimeError) as info:
        _crafted_load(st.arange(6.0), _layout=_RawLayout(shape, strides, offset))
    lines = str(info.value).splitlines()
    assert lines[0] == first
    assert lines[-2:] == [
        "  while unpickling a Tensor: the layout does not fit its storage",
        "  fix: the pickle was not written by strided (or was altered): rebuild the tensor from data you trust",
    ]
    if lines[0].startswith("setStorage"):
        assert lines[1] == (f"  the last element would sit at index {int(first.split('size of ')[1].split()[0]) // 4 - 1}"
                            " of a storage of 6 elements")
        # torch's set_ refuses the same layout over a storage it may not grow
        assert _torch_set(6, offset, shape, strides) == "Trying to resize storage that is not resizable"


def test_r3_15_the_torch_texts_are_torchs_own():
    # torch's set_ over a resizable storage names the same invariants with these first lines
    t = torch.arange(6.0)
    for args, first in (((0, (3,), (-1,)), "Storage size calculation overflowed with sizes=[3] and strides=[-1]"),
                        ((-1, (2,), (1,)), "Tensor: invalid storage offset -1")):
        with pytest.raises(RuntimeError, match=first.replace("[", r"\[").replace("]", r"\]")):
            torch.empty(0).set_(t.untyped_storage(), *args)
    with warnings.catch_warnings(), pytest.raises(
            RuntimeError, match="Expected a Storage of type float or an UntypedStorage, but got type Double"):
        warnings.simplefilter("ignore")  # (TypedStorage is deprecated; it is the dtype-carrying storage)
        torch.empty(0).set_(torch.arange(6.0).double().storage(), 0, (2,), (1,))


def test_r3_15_unpickling_refuses_a_dtype_other_than_the_storages():
    with pytest.raises(E.StridedRuntimeError) as info:
        _crafted_load(st.arange(6.0), _dtype=st.float64)
    assert str(info.value).splitlines() == [
        "Expected a Storage of type float64 or an UntypedStorage, but got type float32 for argument 1 'storage'",
        "  while unpickling a Tensor: the tensor's dtype is float64, but its storage holds 6 elements of float32",
        "  fix: the pickle was not written by strided (or was altered): rebuild the tensor from data you trust",
    ]


@pytest.mark.parametrize(
    "changes, first",
    [
        ({"_dtype": "float32"}, "Tensor.__setstate__: expected a strided dtype, got str 'float32'"),
        ({"_layout": ((2,), (1,), 0)}, "Tensor.__setstate__: expected a Layout, got tuple"),
        ({"_storage": np.arange(6.0)}, "Tensor.__setstate__: expected a Storage over a 1-D contiguous NumPy array"),
        ({"_layout": _RawLayout((2,), (1.5,), 0)}, "Layout: stride[0] must be an int, not float (1.5)"),
        ({"_layout": _RawLayout([2], (1,), 0)}, "Layout: shape and strides must be tuples of ints, got list and tuple"),
        ({"_layout": _trusted((2,), (1.5,), 0)}, "strides must contain only integers, but got float 1.5"),
    ],
)
def test_r3_15_unpickling_refuses_fields_of_the_wrong_kind(changes, first):
    with pytest.raises(E.StridedTypeError) as info:
        _crafted_load(st.arange(6.0), **changes)
    assert str(info.value).splitlines()[0].startswith(first)


def test_r3_15_unpickling_refuses_unequal_sizes_and_strides_and_a_foreign_base():
    with pytest.raises(E.StridedRuntimeError, match=r"^mismatch in length of strides and shape\n  shape \(2,\) has 1"):
        _crafted_load(st.arange(6.0), _layout=_RawLayout((2,), (1, 1), 0))
    with pytest.raises(E.StridedRuntimeError, match="the view's base is not a tensor over the same memory"):
        _crafted_load(st.arange(6.0), _base=st.arange(6.0))
    with pytest.raises(E.StridedTypeError, match=r"expected the tensor's fields"):
        pickle.loads(pickle.dumps(_Crafted({"_storage": st.arange(2.0)._storage})))


def _smuggled(shape, strides, offset, elements=6) -> st.Tensor:
    """A tensor whose layout reaches past its storage, set behind the unpickler's back: what the
    kernels' own bounds checks stand against."""
    t = object.__new__(st.Tensor)
    source = st.arange(float(elements)) if elements else st.zeros(0)
    for name, value in _state_of(source, _layout=_trusted(shape, strides, offset)).items():
        object.__setattr__(t, name, value)
    return t


_READERS = {
    "add number": lambda x: x + 1.0,
    "add itself": lambda x: x + x,
    "add fresh": lambda x: st.ones(x.shape) * x,
    "bias": lambda x: x.view(-1, 1) + st.ones(3),
    "exp": lambda x: x.exp(),
    "neg": lambda x: -x,
    "sum": lambda x: x.sum(),
    "matmul": lambda x: x.view(-1, 1) @ x.view(1, -1),
    "clone": lambda x: x.clone(),
    "tolist": lambda x: x.tolist(),
    "sort": lambda x: x.sort()[0],
    "index": lambda x: x[st.tensor([0, 1])],
}


@pytest.mark.parametrize("reader", _READERS, ids=str)
def test_r3_15_no_kernel_reads_past_its_storage(reader):
    for layout in [((2,), (1,), 100), ((1000,), (1,), 0), ((2,), (1,), 0, 0)]:
        with case(layout=layout):
            _r3_15_no_kernel_reads_past_its_storage(reader, layout)


def _r3_15_no_kernel_reads_past_its_storage(reader, layout):
    # (the review's repro: x + 1.0 gave heap bytes, x.sum() the sum of the 6 elements there are)
    x = _smuggled(*layout)
    with pytest.raises(E.StridedRuntimeError, match=r"^setStorage: sizes \[") as info:
        _READERS[reader](x)
    assert "are out of bounds for storage of size" in str(info.value).splitlines()[0]


# Zero-argument Tensor methods that answer from the layout or the dtype alone (no element read),
# and those that change the tensor's metadata instead of reading it.
_METADATA = {"data_ptr", "element_size", "is_complex", "is_conj", "is_contiguous", "is_floating_point",
             "is_inference", "is_leaf", "is_neg", "is_nonzero", "is_pinned", "is_set_to", "is_shared", "is_signed",
             "is_sparse", "is_view", "ndimension", "nelement", "numel", "dim", "size", "stride", "storage_offset",
             "get_device", "untyped_storage", "describe", "type", "__len__", "__repr__", "__str__",
             "is_cpu", "itemsize", "layout", "nbytes", "ndim", "requires_grad", "retains_grad", "shape",
             # a new tensor in self's dtype (no element of self read); isreal of a real dtype: all True
             "new_empty", "new_ones", "new_zeros", "isreal",
             # new() with no data: an empty tensor of self's dtype; a strided tensor's sparse/dense dims
             "new", "sparse_dim", "dense_dim",
             # the whole storage (as untyped_storage): its own buffer, whatever the layout says
             "storage"}
_MUTATE_LAYOUT = {"resize_", "set_", "requires_grad_", "share_memory_", "backward", "register_hook", "retain_grad",
                  "detach_", "t_", "squeeze_", "unsqueeze_", "as_strided_"}


@pytest.mark.filterwarnings("ignore")  # (x.T of a 1-d tensor warns, among others)
@pytest.mark.parametrize("dtype", [st.float32, st.int64, st.float64], ids=lambda d: d.name)
def test_r3_15_no_tensor_method_reads_past_its_storage(dtype):
    """Every Tensor method callable without arguments, on tensors whose layout reaches past their
    storage: each raises, answers from metadata, or gives a result whose own reading raises."""
    names = [n for n in dir(st.Tensor) if (not n.startswith("_") or n in ("__neg__", "__abs__", "__invert__",
                                                                              "__float__", "__int__", "__bool__",
                                                                              "__array__", "__dlpack__"))
             and n not in _MUTATE_LAYOUT and n not in _METADATA]
    ran, read = 0, []
    for layout in [((2,), (1,), 100), ((1000,), (1,), 0), ((2,), (1,), 0, 0), ((4, 4), (4, 1), 0),
                   ((4, 4), (1, 4), 0)]:
        for name in names:
            x = _smuggled(*layout)
            x = x if dtype is st.float32 else _retyped(x, dtype)
            try:
                method = getattr(x, name)
                result = method() if callable(method) else method
            except Exception:  # noqa: BLE001 - a refusal is what we want
                continue
            ran += 1
            try:
                if isinstance(result, st.Tensor):
                    values = result.tolist()
                elif isinstance(result, tuple) and any(isinstance(r, st.Tensor) for r in result):
                    values = [r.tolist() for r in result if isinstance(r, st.Tensor)]
                elif isinstance(result, (DType, st.device, str, type(None))) or callable(result):
                    continue
                else:
                    values = result
            except E.StridedRuntimeError:
                continue
            read.append(f"{name} on {layout} gave {values!r:.60}")
    assert ran > 0 and read == [], read


def _retyped(x: st.Tensor, dtype) -> st.Tensor:
    """``x``'s layout over a storage of ``dtype`` of the same length (set behind the checks)."""
    t = object.__new__(st.Tensor)
    source = st.zeros(x._storage.array.shape[0], dtype=dtype)
    for name, value in _state_of(source, _layout=x._layout).items():
        object.__setattr__(t, name, value)
    return t


@pytest.mark.parametrize(
    "make",
    [
        lambda: st.arange(12.0).view(3, 4).t(),
        lambda: st.arange(12.0).view(3, 4)[1:, ::2],
        lambda: st.arange(3.0).expand(4, 3),
        lambda: st.arange(6.0).view(2, 3)[:, :0],
        lambda: st.arange(6.0)[6:],
        lambda: st.tensor(2.5),
        lambda: st.arange(6.0).flip(0),
        lambda: st.arange(12.0).view(3, 4).flip(0, 1)[::2],
        lambda: st.arange(6).view(2, 3).to(st.int16)[:, 1:],
        lambda: st.arange(4.0).to(st.complex64).imag,
    ],
    ids=["t", "sliced", "expanded", "zero-size", "zero-size at the end", "0-d", "flipped", "flipped steps",
         "int16", "imag"],
)
def test_r3_15_every_kind_of_layout_round_trips(make):
    t = make()
    facts = (t.shape, t.stride(), t.storage_offset())
    if min(t.stride(), default=0) >= 0:  # the same layout in torch (whose as_strided takes no negative stride)
        tt = torch.from_numpy(t._storage.array.copy()).as_strided(*facts)
        back_t = pickle.loads(pickle.dumps(tt))
        assert (tuple(back_t.shape), back_t.stride(), back_t.storage_offset()) == facts
        assert back_t.tolist() == t.tolist()
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):  # (protocols 0 and 1 too, as torch's tensors)
        back = pickle.loads(pickle.dumps(t, protocol))
        assert (back.shape, back.stride(), back.storage_offset()) == facts
        assert back.dtype is t.dtype and back.tolist() == t.tolist()
    deep = copy.deepcopy(t)
    assert (deep.shape, deep.stride(), deep.tolist()) == (t.shape, t.stride(), t.tolist())


def test_r3_15_a_leaf_that_requires_grad_round_trips_like_torch():
    x = st.tensor([1.0, 2.0], requires_grad=True)
    tx = torch.tensor([1.0, 2.0], requires_grad=True)
    for back, tback in ((pickle.loads(pickle.dumps(x)), pickle.loads(pickle.dumps(tx))),
                        (copy.deepcopy(x), copy.deepcopy(tx))):
        assert back.requires_grad is tback.requires_grad is True
        assert back.tolist() == tback.tolist()


# ============================================================ R3-17 angle of -0.0, searchsorted with NaN

_EDGES = [0.0, -0.0, 1.0, -1.0, 1e-30, -1e-30, math.inf, -math.inf, math.nan]


def _same_floats(a: list, b: list) -> bool:
    """Equal lists of floats, NaN equal to NaN, -0.0 told apart from 0.0 (a NaN's sign is not
    compared: PyTorch's own vectorized and scalar loops disagree on it)."""
    return len(a) == len(b) and all(
        (math.isnan(x) and math.isnan(y)) or (x == y and math.copysign(1, x) == math.copysign(1, y))
        for x, y in zip(a, b))


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_r3_17_angle_of_real_edges_is_torchs(dtype):
    # (the review's repro: angle(-0.0) was pi, NumPy's atan2(0, -0.0); PyTorch's is 0)
    got = st.tensor(_EDGES, dtype=getattr(st, dtype)).angle()
    want = torch.tensor(_EDGES, dtype=getattr(torch, dtype)).angle()
    assert got.dtype.name == str(want.dtype).removeprefix("torch.")
    assert _same_floats(got.tolist(), want.tolist())
    assert st.tensor([-0.0]).angle().item() == 0.0 and not st.tensor([-0.0]).angle().signbit().item()


@pytest.mark.parametrize("dtype", ["int64", "int8", "uint8", "bool"])
def test_r3_17_angle_of_integers_is_torchs(dtype):
    values = [True, False] if dtype == "bool" else [0, 3, -2] if dtype != "uint8" else [0, 3, 255]
    got = st.tensor(values, dtype=getattr(st, dtype)).angle()
    want = torch.tensor(values, dtype=getattr(torch, dtype)).angle()
    assert got.dtype.name == str(want.dtype).removeprefix("torch.") and got.tolist() == want.tolist()


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_r3_17_angle_of_complex_edges_is_torchs(dtype):
    values = [complex(re, im) for re in _EDGES for im in _EDGES]
    got = st.tensor(values, dtype=getattr(st, dtype)).angle()
    # (PyTorch's scalar loop, the C library's atan2, as strided: a stride-2 view; its vectorized
    # loop, Sleef's atan2_u10, gives 0.7853981 for angle(1+1j) in float32, 1 ulp below the
    # correctly rounded pi/4 its scalar loop gives: see strided.kernels.elementwise.complex_angle)
    twice = torch.tensor([v for v in values for _ in range(2)], dtype=getattr(torch, dtype))
    want = twice[::2].angle()
    if dtype == "complex64" and native.sleef() is not None:
        # (a dense complex64 tensor with the compiled kernels: PyTorch's own split of the two, its
        # vectorized loop included: strided.kernels.sleef.angle_complex64)
        want = torch.tensor(values, dtype=torch.complex64).angle()
    assert _same_floats(got.tolist(), want.tolist())


def _searches(seq: np.ndarray, values, **kwargs) -> tuple:
    def run(lib):
        wrap = lib.tensor
        args = {k: wrap(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
        return lib.searchsorted(wrap(seq), wrap(values) if isinstance(values, np.ndarray) else values,
                                **args).tolist()
    return run(st), run(torch)


def test_r3_17_searchsorted_puts_nan_after_a_trailing_nan_as_torch():
    # (the review's repro: [2], NumPy's answer; torch's is [3])
    got, want = _searches(np.array([1.0, 2.0, math.nan], np.float32), np.array([math.nan], np.float32))
    assert got == want == [3]
    got, want = _searches(np.array([1.0, 2.0, math.nan], np.float32), np.array([math.nan], np.float32), right=True)
    assert got == want == [3]


def test_r3_17_searchsorted_sweep_with_nan_against_torch():
    rng = np.random.default_rng(17)
    probes = 0
    for _ in range(60):
        n, nans = int(rng.integers(0, 6)), int(rng.integers(0, 3))
        for dtype in (np.float32, np.float64):
            seq = np.sort(np.concatenate([rng.choice([-math.inf, -1.0, -0.0, 0.0, 1.0, 2.0, math.inf], n),
                                          np.full(nans, math.nan)])).astype(dtype)
            values = rng.choice([math.nan, -math.inf, -1.0, 0.0, 0.5, 1.0, 2.0, math.inf], 5).astype(dtype)
            shuffled = seq[rng.permutation(len(seq))]
            for side in ("left", "right"):
                cases = [
                    ((seq, values), {"side": side}),
                    ((seq, float(values[0])), {"side": side}),  # one number
                    ((seq, rng.integers(-2, 4, 5)), {"side": side}),  # int values in a float sequence
                    ((np.stack([seq, seq]), np.stack([values, values[::-1].copy()])), {"side": side}),  # batched
                    ((shuffled, values), {"side": side,
                                          "sorter": np.argsort(shuffled, kind="stable").astype(np.int64)}),
                ]
                for args, kwargs in cases:
                    got, want = _searches(*args, **kwargs)
                    assert got == want, (args, kwargs)
                    probes += 1
    got, want = _searches(np.array([1, 2, 3]), np.array([math.nan, 2.5, -math.inf], np.float32))  # int sequence
    assert got == want == [3, 2, 0]
    assert probes == 60 * 2 * 2 * 5


# ============================================================ R3-18 Generator pickles and deep-copies


def _torch_copies_draw_alike() -> bool:
    g = torch.Generator().manual_seed(3)
    torch.rand(2, generator=g)
    copies = [copy.deepcopy(g), copy.copy(g), pickle.loads(pickle.dumps(g))]
    first = torch.rand(3, generator=g).tolist()
    return all(torch.rand(3, generator=c).tolist() == first and c.initial_seed() == 3 for c in copies)


@pytest.mark.parametrize("how", ["deepcopy", "copy", "pickle"])
def test_r3_18_a_generator_copy_draws_what_the_original_draws_next(how):
    # (the review's repro: deepcopy raised TypeError: cannot pickle '_thread.lock')
    assert _torch_copies_draw_alike()  # the reference's contract
    g = st.Generator().manual_seed(3)
    st.rand(5, generator=g)
    g.draw(lambda r: r.integers(0, 10, size=1, dtype=np.uint32))  # half a 64-bit word left buffered
    other = {"deepcopy": copy.deepcopy, "copy": copy.copy,
             "pickle": lambda x: pickle.loads(pickle.dumps(x))}[how](g)
    assert other is not g and other.initial_seed() == g.initial_seed() == 3
    assert other.get_state().tolist() == g.get_state().tolist()
    for draw in (lambda x: st.rand(4, generator=x), lambda x: st.randint(0, 1000, (4,), generator=x),
                 lambda x: st.randn(3, generator=x),
                 lambda x: x.draw(lambda r: r.integers(0, 10, size=3, dtype=np.uint32))):
        assert draw(g).tolist() == draw(other).tolist()  # (tensors, or the NumPy draw's array)
    # the two streams are independent after the copy: drawing from one leaves the other where it was
    st.rand(10, generator=g)
    assert st.rand(2, generator=other).tolist() != st.rand(2, generator=g).tolist()


def test_r3_18_the_default_generator_copies_into_a_new_one():
    st.manual_seed(11)
    twin = copy.deepcopy(st.default_generator)
    assert twin is not st.default_generator and twin.initial_seed() == 11
    assert st.rand(3, generator=twin).tolist() == st.rand(3).tolist()
    assert copy.deepcopy(torch.default_generator) is not torch.default_generator  # (as torch's)


# ============================================================ R3-19 blocks exited from another thread


def _exit_elsewhere(block) -> BaseException | None:
    """``block.__exit__(None, None, None)`` run in another thread; what it raised (None: nothing)."""
    raised: list[BaseException] = []

    def run() -> None:
        try:
            block.__exit__(None, None, None)
        except BaseException as e:  # noqa: BLE001 - handed to the test
            raised.append(e)

    worker = threading.Thread(target=run)
    worker.start()
    worker.join(10)
    assert not worker.is_alive()
    return raised[0] if raised else None


def _torch_modes() -> tuple:
    from torch.overrides import _get_current_function_mode_stack
    from torch.utils._python_dispatch import _get_current_dispatch_mode_stack
    return tuple(_get_current_dispatch_mode_stack()), tuple(_get_current_function_mode_stack())


def test_r3_19_watch_torch_exited_from_another_thread_is_refused_and_stays_closable():
    # (the review's repro: the thread's exit broke the block half-way, a second exit raised IndexError,
    # and 100 later ops added 200 records)
    before = _torch_modes()
    w = st.watch_torch()
    w.__enter__()
    torch.ones(2) + 1
    recorded = len(w.steps)
    err = _exit_elsewhere(w)
    assert isinstance(err, RuntimeError) and isinstance(err, E.StridedError)
    lines = str(err).splitlines()
    assert lines[0].startswith("a strided.watch_torch() block must be exited in the thread that entered it (entered in thread ")
    assert lines[-1] == "  fix: exit it in the thread that entered it (leave the with block there)"
    w.__exit__(None, None, None)  # the entering thread still closes it
    assert _torch_modes() == before  # no mode left behind
    for _ in range(3):
        torch.ones(2) + 1
    assert len(w._records) == recorded == len(w.steps)  # nothing recorded after the close
    with pytest.raises(RuntimeError, match=r"^this strided\.watch_torch\(\) block was already exited") as info:
        w.__exit__(None, None, None)
    assert isinstance(info.value, E.StridedRuntimeError)
    with pytest.raises(E.StridedRuntimeError, match=r"^this strided\.watch_torch\(\) block was never entered"):
        st.watch_torch().__exit__(None, None, None)


def test_r3_19_watch_torch_blocks_exited_out_of_order_are_refused():
    before = _torch_modes()
    outer, inner = st.watch_torch(), st.watch_torch()
    outer.__enter__()
    inner.__enter__()
    with pytest.raises(E.StridedRuntimeError,
                       match=r"^strided\.watch_torch\(\) blocks must be exited in the reverse order they were entered"):
        outer.__exit__(None, None, None)  # torch would pop the inner block's modes here
    torch.ones(2) * 2
    counts = (len(inner._records), len(outer._records))
    assert counts[0] == 2  # the inner block still records (ones, mul)
    inner.__exit__(None, None, None)
    outer.__exit__(None, None, None)
    assert _torch_modes() == before
    torch.ones(2) * 2
    assert (len(inner._records), len(outer._records)) == counts  # neither records after its close


@pytest.mark.parametrize("make, what", [
    (lambda: st.watch(), "strided.watch()"),
    (lambda: st.record_copies(), "strided.record_copies()"),
    (lambda: st.dispatch.listen(lambda record: None), "strided.dispatch.listen()"),
], ids=["watch", "record_copies", "listen"])
def test_r3_19_strided_blocks_exited_from_another_thread_are_refused_and_stay_closable(make, what):
    block = make()
    target = block.__enter__()
    x = st.ones(2, 3)
    err = _exit_elsewhere(block)
    assert isinstance(err, E.StridedRuntimeError)
    assert str(err).splitlines()[0].startswith(
        f"a {what} block must be exited in the thread that entered it (entered in thread ")
    x.t().contiguous()  # still recorded: the block is still open in this thread
    block.__exit__(None, None, None)
    x.t().contiguous()
    x.t().contiguous()
    if what == "strided.watch()":
        assert [s.name for s in block.steps].count("contiguous") == 1
    elif what == "strided.record_copies()":
        assert len(target) == 1
    assert st.kernels.listeners.OPEN == [] and st.kernels.listeners.listeners() == ()
    with pytest.raises(E.StridedRuntimeError, match=rf"^this {re.escape(what)} block was already exited"):
        block.__exit__(None, None, None)


def test_r3_19_a_strided_block_is_entered_once():
    block = st.record_copies()
    with block:
        pass
    with pytest.raises(E.StridedRuntimeError, match=r"^this strided\.record_copies\(\) block was already entered"):
        block.__enter__()
    with pytest.raises(E.StridedRuntimeError, match=r"^this strided\.record_copies\(\) block was never entered"):
        st.record_copies().__exit__(None, None, None)
    with pytest.raises(E.StridedRuntimeError, match=r"^this strided\.watch\(\) block was never entered"):
        st.watch().__exit__(None, None, None)


# ============================================================ R3-20 as_tensor in the CLI grammar


def test_r3_20_show_as_tensor_works_like_tensor(capsys):
    from strided.cli.main import main

    # (the review's repro: AttributeError: module 'strided.creation' has no attribute 'as_tensor', exit 2)
    outputs = []
    for ctor in ("as_tensor", "tensor", "strided.as_tensor"):
        assert main(["show", f"{ctor}([[1, 2], [3, 4]], dtype=float64).t()"]) == 0
        out, err = capsys.readouterr()
        assert err == ""
        # (words compared, not line breaks: the output wraps at 80 columns, after a name of its length)
        outputs.append(" ".join(out.replace(f"0. {ctor.removeprefix('strided.')}(", "0. CTOR(", 1).split()))
    assert outputs[0] == outputs[1] == outputs[2]
    assert "0. CTOR([[1, 2], [3, 4]], dtype=float64) → new tensor (32 bytes of new storage)" in outputs[0]
    assert "1. x.t() → view (0 bytes copied; shares x's storage)" in outputs[0]
    ty = torch.as_tensor([[1, 2], [3, 4]], dtype=torch.float64).t()
    x = st.as_tensor([[1, 2], [3, 4]], dtype=st.float64).t()
    assert (x.shape, x.stride(), x.tolist()) == (tuple(ty.shape), ty.stride(), ty.tolist())


def test_r3_20_every_name_the_grammar_lists_exists():
    from strided.cli import expr

    for name in expr.CONSTRUCTORS:
        assert callable(expr._CONSTRUCTOR_FUNCTIONS[name]) and callable(getattr(st, name)), name
    x = st.ones(2, 3)
    for name in expr.METHODS + expr.COMPUTE:
        assert callable(getattr(x, name)), name
    for name in expr.ATTRIBUTES:
        assert isinstance(getattr(x, name), st.Tensor), name
    # every constructor runs through the grammar, from its own literal arguments
    examples = {"arange": "arange(3)", "zeros": "zeros(2)", "ones": "ones(2)", "empty": "empty(2)",
                "full": "full((2,), 7)", "tensor": "tensor([1])", "as_tensor": "as_tensor([1])"}
    assert set(examples) == set(expr.CONSTRUCTORS)
    for name, source in examples.items():
        steps = expr.evaluate(expr.parse(source))
        assert steps[0].error is None and steps[0].output is not None, name


# ============================================================ R3-21 the losses' input-domain checks

_NAN = math.nan


def _f(lib, values, dtype="float32"):
    return lib.tensor(values, dtype=getattr(lib, dtype))


def _i(lib, values, dtype="int64"):
    return lib.tensor(values, dtype=getattr(lib, dtype))


# name -> call(lib, F), run on torch (torch, torch.nn.functional) and on strided
_LOSS_CASES = {
    # binary_cross_entropy: targets and inputs are probabilities, in the input's dtype
    "bce target above 1": lambda lib, F: F.binary_cross_entropy(_f(lib, [0.2, 0.9]), _f(lib, [2.0, -1.0])),
    "bce target NaN": lambda lib, F: F.binary_cross_entropy(_f(lib, [0.2, 0.9]), _f(lib, [_NAN, 0.5])),
    "bce target inf, none": lambda lib, F: F.binary_cross_entropy(_f(lib, [0.2, 0.9]), _f(lib, [math.inf, 0.5]),
                                                                 reduction="none"),
    "bce target just above 1": lambda lib, F: F.binary_cross_entropy(_f(lib, [0.2, 0.9]), _f(lib, [1.0000001, 0.5])),
    "bce target -0.0": lambda lib, F: F.binary_cross_entropy(_f(lib, [0.2, 0.9]), _f(lib, [-0.0, 1.0])),
    "bce input and target bad": lambda lib, F: F.binary_cross_entropy(_f(lib, [1.2, 0.9]), _f(lib, [2.0, 0.0])),
    "bce input NaN": lambda lib, F: F.binary_cross_entropy(_f(lib, [_NAN, 0.9]), _f(lib, [1.0, 0.0])),
    "bce target float64": lambda lib, F: F.binary_cross_entropy(_f(lib, [0.2, 0.5]), _f(lib, [1.0, 0.0], "float64")),
    "bce target int64": lambda lib, F: F.binary_cross_entropy(_f(lib, [0.2, 0.5]), _i(lib, [1, 0])),
    "bce float16 target float32": lambda lib, F: F.binary_cross_entropy(_f(lib, [0.2, 0.5], "float16"),
                                                                       _f(lib, [1.0, 0.0])),
    "bce weight float64": lambda lib, F: F.binary_cross_entropy(_f(lib, [0.2, 0.5]), _f(lib, [1.0, 0.0]),
                                                              weight=_f(lib, [1.0, 2.0], "float64")),
    "bce weight does not broadcast": lambda lib, F: F.binary_cross_entropy(_f(lib, [[0.2, 0.5]]), _f(lib, [[1.0, 0.0]]),
                                                                         weight=_f(lib, [1.0, 1.0, 1.0])),
    "bce empty": lambda lib, F: F.binary_cross_entropy(_f(lib, []), _f(lib, []), reduction="sum"),
    # binary_cross_entropy_with_logits: any target value; computed in the target's dtype
    "bcel target outside [0, 1]": lambda lib, F: F.binary_cross_entropy_with_logits(_f(lib, [0.2, 0.9]),
                                                                                   _f(lib, [2.0, -1.0])),
    "bcel target float64": lambda lib, F: F.binary_cross_entropy_with_logits(_f(lib, [0.2, 0.5]),
                                                                            _f(lib, [1.0, 0.0], "float64")),
    "bcel input float64": lambda lib, F: F.binary_cross_entropy_with_logits(_f(lib, [0.2, 0.5], "float64"),
                                                                           _f(lib, [1.0, 0.0]), reduction="none"),
    "bcel target int64": lambda lib, F: F.binary_cross_entropy_with_logits(_f(lib, [0.2, 0.5]), _i(lib, [1, 0])),
    "bcel target bool": lambda lib, F: F.binary_cross_entropy_with_logits(_f(lib, [0.2, 0.5]), _i(lib, [True, False], "bool")),
    "bcel input int64": lambda lib, F: F.binary_cross_entropy_with_logits(_i(lib, [1, 0]), _f(lib, [1.0, 0.0])),
    "bcel pos_weight does not broadcast": lambda lib, F: F.binary_cross_entropy_with_logits(
        _f(lib, [0.2, 0.5]), _f(lib, [1.0, 0.0]), pos_weight=_f(lib, [1.0, 1.0, 1.0])),
    # nll_loss and cross_entropy with class indices: targets in range, weights in the input's dtype
    "nll target out of range": lambda lib, F: F.nll_loss(_f(lib, [[-0.1, -2.3]]), _i(lib, [2])),
    "nll target negative": lambda lib, F: F.nll_loss(_f(lib, [[-0.1, -2.3], [-1.0, -0.5]]), _i(lib, [0, -1]),
                                                   reduction="none"),
    "nll target ignored": lambda lib, F: F.nll_loss(_f(lib, [[-0.1, -2.3]]), _i(lib, [-100])),
    "nll target float": lambda lib, F: F.nll_loss(_f(lib, [[-0.1, -2.3]]), _f(lib, [0.0])),
    "nll target int32": lambda lib, F: F.nll_loss(_f(lib, [[-0.1, -2.3]]), _i(lib, [1], "int32")),
    "nll weight float64": lambda lib, F: F.nll_loss(_f(lib, [[-0.1, -2.3]]), _i(lib, [1]), weight=_f(lib, [1.0, 2.0], "float64")),
    "nll weight wrong size": lambda lib, F: F.nll_loss(_f(lib, [[-0.1, -2.3]]), _i(lib, [1]), weight=_f(lib, [1.0, 1.0, 1.0])),
    "nll input int64": lambda lib, F: F.nll_loss(_i(lib, [[1, 2]]), _i(lib, [1])),
    "nll input int64 3-d": lambda lib, F: F.nll_loss(_i(lib, [[[1], [2]]]), _i(lib, [[1]])),
    "ce target out of range": lambda lib, F: F.cross_entropy(_f(lib, [[-0.1, -2.3]]), _i(lib, [3]), label_smoothing=0.1),
    "ce target ignored at -5": lambda lib, F: F.cross_entropy(_f(lib, [[-0.1, -2.3]]), _i(lib, [-5]), ignore_index=-5),
    "ce weight float64": lambda lib, F: F.cross_entropy(_f(lib, [[0.2, 0.5]]), _i(lib, [1]),
                                                      weight=_f(lib, [1.0, 1.0], "float64")),
    "ce weight int64": lambda lib, F: F.cross_entropy(_f(lib, [[0.2, 0.5]]), _i(lib, [1]), weight=_i(lib, [1, 1])),
    "ce label_smoothing above 1": lambda lib, F: F.cross_entropy(_f(lib, [[0.2, 0.5]]), _i(lib, [1]), label_smoothing=1.5),
    "ce label_smoothing negative": lambda lib, F: F.cross_entropy(_f(lib, [[0.2, 0.5]]), _i(lib, [1]),
                                                                label_smoothing=-0.1),
    # cross_entropy with class probabilities: promoted, no ignore_index
    "ce probabilities float64": lambda lib, F: F.cross_entropy(_f(lib, [[0.2, 0.5]]), _f(lib, [[1.0, 0.0]], "float64")),
    "ce probabilities weight float64": lambda lib, F: F.cross_entropy(_f(lib, [[0.2, 0.5]]), _f(lib, [[0.3, 0.7]]),
                                                                    weight=_f(lib, [1.0, 2.0], "float64")),
    "ce probabilities ignore_index": lambda lib, F: F.cross_entropy(_f(lib, [[0.2, 0.5]]), _f(lib, [[1.0, 0.0]]),
                                                                  ignore_index=0),
    "ce probabilities int64": lambda lib, F: F.cross_entropy(_f(lib, [[0.2, 0.5]]), _i(lib, [[1, 0]])),
    # the other losses and dropout
    "smooth_l1 beta NaN": lambda lib, F: F.smooth_l1_loss(_f(lib, [0.2, 0.5]), _f(lib, [1.0, 0.0]), beta=_NAN),
    "smooth_l1 beta negative": lambda lib, F: F.smooth_l1_loss(_f(lib, [0.2, 0.5]), _f(lib, [1.0, 0.0]), beta=-1.0),
    "mse target NaN": lambda lib, F: F.mse_loss(_f(lib, [0.2, 0.5]), _f(lib, [_NAN, 0.0])),
    "dropout p NaN": lambda lib, F: F.dropout(_f(lib, [0.2, 0.5]), p=_NAN),
    "dropout p NaN, eval": lambda lib, F: F.dropout(_f(lib, [0.2, 0.5]), p=_NAN, training=False),
    "dropout p above 1": lambda lib, F: F.dropout(_f(lib, [0.2, 0.5]), p=1.5),
}


def _loss_outcome(lib, F, call):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (the size warnings are tested elsewhere)
            result = call(lib, F)
    except Exception as e:  # noqa: BLE001 - compared between the libraries
        return "raised", e
    return "ok", result


@pytest.mark.parametrize("case", _LOSS_CASES)
def test_r3_21_loss_domains_as_torch(case):
    import torch.nn.functional as TF

    import strided.nn.functional as SF

    t_kind, t_value = _loss_outcome(torch, TF, _LOSS_CASES[case])
    s_kind, s_value = _loss_outcome(st, SF, _LOSS_CASES[case])
    assert s_kind == t_kind, (t_value, s_value)
    if t_kind == "raised":
        builtin = next(c for c in type(t_value).__mro__ if c.__module__ == "builtins")
        assert isinstance(s_value, builtin) and isinstance(s_value, E.StridedError)
        assert str(s_value).splitlines()[0] == str(t_value).splitlines()[0]
        assert len(str(s_value).splitlines()) >= 2  # then our explanation
    else:
        assert s_value.dtype.name == str(t_value.dtype).removeprefix("torch.")
        assert s_value.shape == tuple(t_value.shape)
        np.testing.assert_allclose(np.asarray(s_value.tolist(), dtype=float),
                                   np.asarray(t_value.tolist(), dtype=float), rtol=1e-3, equal_nan=True)


def test_r3_21_binary_cross_entropy_says_which_targets_are_out_of_range():
    import strided.nn.functional as F

    with pytest.raises(E.StridedRuntimeError) as info:
        F.binary_cross_entropy(st.tensor([0.2, 0.9, 0.5]), st.tensor([2.0, -1.0, _NAN]))
    assert str(info.value).splitlines() == [
        "all elements of target should be between 0 and 1",
        "  binary_cross_entropy reads the target as probabilities; it holds 2 below 0 or above 1 "
        "(from -1 to 2) and 1 NaN, of its 3 elements",
        "  fix: targets in [0, 1] (class labels as 0.0 / 1.0; target.clamp(0, 1) if they only strayed by rounding)",
    ]
    with pytest.raises(E.StridedRuntimeError) as info:
        F.binary_cross_entropy(st.tensor([1.5, _NAN]), st.tensor([1.0, 0.0]))
    assert str(info.value).splitlines()[1] == (
        "  binary_cross_entropy reads the input as probabilities; it holds 1 below 0 or above 1 (from 1.5 to 1.5) "
        "and 1 NaN, of its 2 elements")


# ============================================================ R3-23 read-only memory handed to torch


def _read_only_tensors():
    raw = bytes(range(16))  # immutable memory
    owner = np.arange(4.0, dtype=np.float32)
    lent = owner.view()
    lent.flags.writeable = False  # read-only view of writable memory
    return raw, [st.from_numpy(np.frombuffer(raw, np.float32)), st.from_numpy(lent), st.from_numpy(lent)[::2]]


@pytest.mark.parametrize("consumer", ["torch.from_dlpack", "torch.as_tensor", "torch.asarray", "torch.tensor",
                                      "np.from_dlpack"])
def test_r3_23_read_only_memory_reaches_dlpack_consumers_as_a_copy(consumer):
    # (the review's repro: torch.from_dlpack(t)[0] = 5 changed an immutable bytes object)
    take = {"torch.from_dlpack": torch.from_dlpack, "torch.as_tensor": torch.as_tensor,
            "torch.asarray": torch.asarray, "torch.tensor": torch.tensor, "np.from_dlpack": np.from_dlpack}[consumer]
    raw, tensors = _read_only_tensors()
    for t in tensors:
        before = t.tolist()
        with st.record_copies() as copies:
            out = take(t)
        assert out.tolist() == before
        out[0] = 99  # writable, and its own memory
        assert t.tolist() == before and bytes(range(16)) == raw
        assert [c.reason for c in copies] == [
            "__dlpack__: a read-only tensor, exported as a writable copy (a DLPack consumer may ignore the "
            "read-only flag: PyTorch 2.13 does)"]
        assert copies[0].nbytes == t.numel() * t.element_size()


def test_r3_23_torch_itself_would_write_through_the_flag():
    # why strided copies: torch 2.13 takes NumPy's read-only DLPack 1.0 capsule as writable memory
    a = np.arange(3.0)
    a.flags.writeable = False
    capsule_user = torch.from_dlpack(a)
    capsule_user[0] = 5.0
    assert a[0] == 5.0  # (torch's own behaviour; if this changes, the copy can become a read-only share)


def test_r3_23_writable_tensors_still_share_with_torch_and_numpy_keeps_its_read_only_view():
    t = st.arange(4.0)
    shared = torch.from_dlpack(t)
    shared[0] = 7.0
    assert t[0].item() == 7.0
    _, (read_only, *_) = _read_only_tensors()
    view = np.asarray(read_only)
    assert not view.flags.writeable and np.shares_memory(view, read_only.numpy())
    with pytest.raises(BufferError, match="Cannot export readonly array since signalling readonly is unsupported"):
        read_only.__dlpack__()  # a DLPack 0.x consumer: refused, as NumPy refuses it
