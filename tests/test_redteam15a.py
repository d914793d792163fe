"""Red-team cases (session 15a) for the recent tensor() inference, nll_loss reductions and
var_mean changes: each compared with PyTorch (values bit for bit, dtypes, error classes)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import strided as st
import strided.nn.functional as SF


def _bits(t: torch.Tensor) -> np.ndarray:
    return t.detach().float().numpy() if t.dtype == torch.bfloat16 else t.detach().numpy()


def _sbits(s: st.Tensor) -> np.ndarray:
    return np.asarray(s.detach().float().tolist() if s.dtype == st.bfloat16 else s.detach().tolist())


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("bad", [0.5, np.inf, -np.inf, np.nan])
@pytest.mark.parametrize("weighted", [False, True])
def test_nll_loss_none_ignored_sample_is_plus_zero(dtype, bad, weighted):
    """reduction='none' writes +0 for an ignored sample, as PyTorch's nll_loss_out_frame does:
    not -0 (-w * x of a positive pick) nor NaN (an infinite or NaN pick times the zero weight)."""
    x = np.array([[bad, -1.0], [-2.0, bad], [-0.5, -3.0]])
    target = np.array([0, 1, 1])
    weight = np.array([2.0, 0.5]) if weighted else None
    tdt, sdt = getattr(torch, dtype), getattr(st, dtype)
    for shape_3d in (False, True):
        xx = x[..., None] if shape_3d else x
        tt = target[:, None] if shape_3d else target
        expected = TF.nll_loss(torch.tensor(xx).to(tdt), torch.tensor(tt), ignore_index=0, reduction="none",
                               weight=None if weight is None else torch.tensor(weight).to(tdt))
        got = SF.nll_loss(st.tensor(xx).to(sdt), st.tensor(tt), ignore_index=0, reduction="none",
                          weight=None if weight is None else st.tensor(weight).to(sdt))
        a, b = _bits(expected), _sbits(got).reshape(a_shape := tuple(expected.shape))
        assert tuple(got.shape) == a_shape
        np.testing.assert_array_equal(a, b)
        number = ~np.isnan(a)  # (a NaN's sign is not compared)
        assert list(np.signbit(a[number])) == list(np.signbit(b[number]))


def _outcome(make):
    try:
        return make(), None
    except Exception as err:  # noqa: BLE001 (the class is what is compared)
        return None, err


_INDEX_CASES = [
    # (label, data maker given the library, torch dtype)
    ("np.float32 into int64", lambda L: [np.float32(1.5), 2], torch.int64),
    ("np.float16 into uint8", lambda L: [np.float16(1.0)], torch.uint8),
    ("np.float32 into bool", lambda L: [np.float32(1.0)], torch.bool),
    ("float32 array into int64", lambda L: [np.array([1.5, 2.0], np.float32)], torch.int64),
    ("bool array into int64", lambda L: [np.array([True, False])], torch.int64),
    ("bool array beside ints", lambda L: [np.array([True, False]), [1, 2]], None),
    ("float tensor into int64", lambda L: [L.tensor(-1.5), 2], torch.int64),
    ("float64 tensor into int32", lambda L: [[L.tensor(1.5, dtype=L.float64)]], torch.int32),
    ("bfloat16 tensor into uint8", lambda L: [L.tensor(2.0, dtype=L.bfloat16)], torch.uint8),
    ("float tensor into bool", lambda L: [L.tensor(1.0)], torch.bool),
    # accepted by both (values compared)
    ("np.float64 into int64", lambda L: [np.float64(2.5), 1], torch.int64),
    ("np.bool_ into bool", lambda L: [np.bool_(True), 0], torch.bool),
    ("bool tensor into int64", lambda L: [L.tensor(True), 3], torch.int64),
    ("uint8 tensor into int64", lambda L: [L.tensor(7, dtype=L.uint8)], torch.int64),
    ("np.int16 into uint8", lambda L: [np.int16(7), 1], torch.uint8),
    ("bool array into bool", lambda L: [np.array([True, False])], torch.bool),
    ("float32 array into float64", lambda L: [np.array([1.5], np.float32)], torch.float64),
]


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("label,make,dtype", _INDEX_CASES, ids=[c[0] for c in _INDEX_CASES])
def test_tensor_leaves_read_as_integers(label, make, dtype):
    """A leaf PyTorch cannot read as an integer (no __index__: a NumPy float other than float64,
    a NumPy bool for an integer tensor, a floating tensor) stored into an integer or bool tensor
    is its TypeError; what it reads is the same value."""
    kw = {} if dtype is None else {"dtype": dtype}
    skw = {} if dtype is None else {"dtype": getattr(st, str(dtype).rsplit(".", 1)[-1])}
    expected, terr = _outcome(lambda: torch.tensor(make(torch), **kw))
    got, serr = _outcome(lambda: st.tensor(make(st), **skw))
    if terr is not None:
        assert isinstance(serr, type(terr)), (terr, serr)
        return
    assert serr is None, serr
    assert str(got.dtype).rsplit(".", 1)[-1] == str(expected.dtype).rsplit(".", 1)[-1]
    assert got.tolist() == expected.tolist()


@pytest.mark.parametrize("data", [
    [np.float32(1), 2**70],
    [np.float32(1), -(2**70), 3],
    [[np.float16(1)], [2**64]],
    [np.complex64(1), 2**70],
    [np.float32(1), 2**60 + 2**36 + 1],
    [True, 1.5, 2**70],
    [[True], [1.5], [-(2**70)]],
])
def test_tensor_huge_python_int_beside_numpy_float(data):
    """A NumPy float among the numbers (or a Python float beside bools) makes the result a float
    tensor, and PyTorch reads a Python int beyond int64 as a double there (no OverflowError)."""
    expected = torch.tensor(data)
    got = st.tensor(data)
    assert str(got.dtype).rsplit(".", 1)[-1] == str(expected.dtype).rsplit(".", 1)[-1]
    assert got.tolist() == expected.tolist()


@pytest.mark.parametrize("device", ["meta", "meta:0", "meta:1", torch.device("meta", 0), "cpu", "cpu:0"])
def test_explain_to_of_a_meta_tensor(device):
    """A meta tensor's ``to`` another meta device (meta:0) is PyTorch's copy, not the refusal
    'Cannot copy out of meta tensor' that only a real device gets."""
    from strided.diagnose.explain_torch import explain_torch

    x = torch.empty(3, 4, device="meta")
    rep = explain_torch(x, "to", (device,))
    try:
        r = x.to(device)
    except NotImplementedError:
        assert rep.outcome == "error" and rep.error_class == "NotImplementedError"
        return
    assert rep.outcome != "error", rep.error
    assert rep.returns_self == (r is x)
    assert rep.shape == tuple(r.shape) and rep.strides == r.stride()
