"""Red-team of day 25's changes (out= everywhere, the read-after-write refusals), against torch.

Each case runs PyTorch on the SAME aliasing views (never a clone): where PyTorch's loop reads an
element it has already written, its number depends on that order and strided refuses
(``OverlapWriteError``); everywhere else strided's values are PyTorch's.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import strided
from strided.errors import OverlapWriteError

torch = pytest.importorskip("torch")

_VALUES = np.random.RandomState(25).randn(40).astype(np.float32).tolist()


def _run(lib, case):
    """``case(lib, base)`` on a fresh base of 40 random float32 values; the base afterwards."""
    base = lib.tensor(_VALUES)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (the resize warning of an out= of another shape)
        case(lib, base)
    return np.array(base.tolist(), np.float32)


def _torch_order_dependent(case) -> bool:
    """Whether PyTorch's aliased run differs from the same run on copied inputs."""
    aliased = _run(torch, case)
    copied = _run(torch, lambda L, b: case(L, _Copied(b)))
    return not np.array_equal(aliased, copied, equal_nan=True)


class _Copied:
    """A base whose slices are copies (read-only views of the values before the op) except the
    one written through ``out=``: stands in for "the inputs read first"."""

    def __init__(self, base):
        self.base, self.frozen = base, base.clone()

    def __getitem__(self, key):
        return self.frozen[key]

    def as_strided(self, *args):
        return self.base.as_strided(*args)


def _out(b):
    return b.as_strided((6,), (2,), 0)  # out= laid across the inputs below, not dense: "too hard"


# out= laid over an input in a layout PyTorch does not check, where its loop reads an element
# after writing it (strided gave the inputs-read-first numbers silently before)
_REFUSED = {
    "add": lambda L, b: L.add(b[:6], b[20:26], out=_out(b)),
    "mul scalar": lambda L, b: L.mul(b[:6], 2, out=_out(b)),
    "neg": lambda L, b: L.neg(b[:6], out=_out(b)),
    "sigmoid": lambda L, b: L.sigmoid(b[:6], out=_out(b)),
    "maximum": lambda L, b: L.maximum(b[:6], b[20:26], out=_out(b)),
    "where": lambda L, b: L.where(b[:6] > -1e9, b[:6], b[20:26], out=_out(b)),
    "clamp": lambda L, b: L.clamp(b[:6], -0.5, 0.5, out=_out(b)),
    "lerp": lambda L, b: L.lerp(b[:6], b[20:26], 0.3, out=_out(b)),
    "addcmul": lambda L, b: L.addcmul(b[20:26], b[:6], b[:6], out=_out(b)),
    "pow": lambda L, b: L.pow(b[:6], 2, out=_out(b)),
    "add 0-d other": lambda L, b: L.add(b[:6], b[4], out=_out(b)),
    "cumsum": lambda L, b: L.cumsum(b[:6], 0, out=_out(b)),
    "cumprod": lambda L, b: L.cumprod(b[:6], 0, out=_out(b)),
    # (round with decimals is PyTorch's plain loop, not the buffered round_vml_cpu)
    "round decimals": lambda L, b: L.round(b[:6], decimals=1, out=_out(b)),
    # out resized to (4, 1) dense at offset 8: overlaps the input (elements 7..10) only once
    # resized, after PyTorch's check of the out as given
    "mul resized": lambda L, b: L.mul(b[7:11].reshape(4, 1), 2.0, out=b.as_strided((3,), (2,), 8)),
}

# the same layouts where every shared element is read before (or where) it is written
_KEPT = {
    "add ahead": lambda L, b: L.add(b[12:18], b[20:26], out=_out(b)),
    "clamp ahead": lambda L, b: L.clamp(b[12:18], -0.5, 0.5, out=_out(b)),
    "cumsum ahead": lambda L, b: L.cumsum(b[10:16], 0, out=_out(b)),
    "exp 0-d resized": lambda L, b: L.exp(b[4], out=_out(b)),
    # PyTorch's buffered unary kernels (*_vml_cpu) read a row before writing it
    "floor read first": lambda L, b: L.floor(b[:6], out=_out(b)),
    "add itself": lambda L, b: L.add(_out(b), b[20:26], out=_out(b)),
}


@pytest.mark.parametrize("name", sorted(_REFUSED))
def test_out_read_after_write_is_refused_where_torch_depends_on_its_order(name):
    case = _REFUSED[name]
    assert _torch_order_dependent(case)
    before = _run(strided, lambda L, b: None)
    base = strided.tensor(_VALUES)
    with pytest.raises(OverlapWriteError, match=r"\(out=\.\.\.\): at position"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        case(strided, base)
    if name != "mul resized":  # (nothing written on a refusal)
        assert np.array_equal(np.array(base.tolist(), np.float32), before)


@pytest.mark.parametrize("name", sorted(_KEPT))
def test_out_read_before_write_is_torchs(name):
    case = _KEPT[name]
    np.testing.assert_array_equal(_run(strided, case), _run(torch, case))


@pytest.mark.parametrize("op", ["sin", "exp", "log1p", "sqrt"])
def test_out_of_a_buffered_unary_kernel_reads_its_row_first(op):
    """PyTorch's *_vml_cpu kernels read the row into a buffer before writing it: no refusal, the
    inputs-read-first values (their bits are MKL's, not reproduced: compared with strided's own
    run on copied inputs, PyTorch's order-independence with torch's)."""
    def case(L, b):
        getattr(L, op)(b[:6], out=_out(b))
    assert not _torch_order_dependent(case)
    np.testing.assert_array_equal(_run(strided, case), _run(strided, lambda L, b: case(L, _Copied(b))))


def _source_copied(case):
    """PyTorch's run of ``case(L, b, source_base)`` with the source read from a copy of the base
    (the inputs-read-first values) and with the base itself: whether the two differ."""
    def run(copied):
        b = torch.tensor(_VALUES)
        case(torch, b, b.clone() if copied else b)
        return np.array(b.tolist(), np.float32)
    return not np.array_equal(run(False), run(True))


# (day 26: red25's strict xfails, fixed: the index ops model PyTorch's loops, refusing where it
# reads an element after writing it; the differential fuzz is tests/test_alias_index_ops.py)
_INDEX_REFUSED = {
    "index_add_": lambda L, b, s: b[::2][:6].index_add_(0, L.tensor([0, 1, 2]), s[:3]),
    "index_copy_": lambda L, b, s: b[::2][:6].index_copy_(0, L.tensor([0, 1, 2]), s[:3]),
    "scatter_": lambda L, b, s: b[:12][::2].scatter_(0, L.tensor([0, 1, 2, 3, 4, 5]), s[:6]),
}
# the same layouts where each shared element is read before it is written
_INDEX_KEPT = {
    "index_add_": lambda L, b, s: b[::2][:6].index_add_(0, L.tensor([0, 1, 2]), s[5:8]),
    "index_copy_": lambda L, b, s: b[::2][:6].index_copy_(0, L.tensor([0, 1, 2]), s[5:8]),
    "scatter_": lambda L, b, s: b[:12][::2].scatter_(0, L.tensor([0, 1, 2, 3, 4, 5]), s[6:12]),
}


@pytest.mark.parametrize("op", sorted(_INDEX_REFUSED))
def test_index_ops_with_a_source_aliasing_self(op):
    case = _INDEX_REFUSED[op]
    assert _source_copied(case)
    base = strided.tensor(_VALUES)
    with pytest.raises(OverlapWriteError, match="reads storage element"):
        case(strided, base, base)
    assert np.array_equal(np.array(base.tolist(), np.float32), np.array(_VALUES, np.float32))


@pytest.mark.parametrize("op", sorted(_INDEX_KEPT))
def test_index_ops_with_a_source_read_before_written_are_torchs(op):
    case = _INDEX_KEPT[op]
    assert not _source_copied(case)
    np.testing.assert_array_equal(_run(strided, lambda L, b: case(L, b, b)), _run(torch, lambda L, b: case(L, b, b)))


_LOGSUMEXP_NO_DIMS = {
    "1-d": lambda L: L.logsumexp(L.ones(3), ()),
    "2-d list": lambda L: L.logsumexp(L.ones(2, 3), []),
    "method": lambda L: L.ones(2, 3).logsumexp(dim=()),
    "one element": lambda L: L.logsumexp(L.ones(1, 1), ()),
    "int": lambda L: L.logsumexp(L.ones(3, dtype=L.int64), ()),
    "complex": lambda L: L.logsumexp(L.ones(2, dtype=L.complex64), ()),
    "keepdim": lambda L: L.logsumexp(L.tensor([[1.0, 2.0], [0.5, -1.0]]), (), keepdim=True),
    "0-d": lambda L: L.logsumexp(L.tensor(1.5), ()),
    "empty": lambda L: L.logsumexp(L.ones(2, 0), ()),
    "empty keepdim": lambda L: L.logsumexp(L.ones(2, 0), (), True),
}


def _outcome(lib, case):
    try:
        r = case(lib)
    except RuntimeError as e:  # (strided's errors subclass the builtin ones)
        return "RuntimeError", str(e).splitlines()[0]
    return tuple(r.shape), r.tolist()


@pytest.mark.parametrize("name", sorted(_LOGSUMEXP_NO_DIMS))
def test_logsumexp_of_no_dims_is_torchs(name):
    """logsumexp(x, dim=()) without keepdim fails in PyTorch 2.13 ("output with shape [] doesn't
    match the broadcast shape [1]") for a non-empty x with dims; strided gave every dim's sum."""
    case = _LOGSUMEXP_NO_DIMS[name]
    assert _outcome(strided, case) == _outcome(torch, case)


_FILL_OUTS = {
    "zeros expanded": lambda L: L.zeros(2, 3, out=L.empty(1, 3).expand(2, 3)),
    "ones expanded int": lambda L: L.ones(2, 3, out=L.empty(1, 3, dtype=L.int32).expand(2, 3)),
    "full expanded": lambda L: L.full((2, 3), 4.0, out=L.empty(1, 3).expand(2, 3)),
    "full overlapping": lambda L: L.full((2, 3), 7, out=L.ones(8).as_strided((2, 3), (2, 1))),
    "eye expanded": lambda L: L.eye(2, out=L.empty(1, 2).expand(2, 2)),
    "eye expanded column": lambda L: L.eye(3, 2, out=L.empty(3, 1).expand(3, 2)),
    "eye overlapping": lambda L: L.eye(3, 3, out=L.zeros(8).as_strided((3, 3), (2, 1))),
    "eye bool expanded": lambda L: L.eye(3, out=L.empty(1, 3, dtype=L.bool).expand(3, 3)),
    "eye transposed": lambda L: L.eye(2, 3, out=L.empty(3, 2).t()),
}


@pytest.mark.parametrize("name", sorted(_FILL_OUTS))
def test_factory_fill_outs_take_overlapping_outs_as_torch(name):
    """zeros/ones/full/eye(out=) are fills in PyTorch (zero_, fill_: no overlap check), so an
    expanded or overlapping out is written (strided refused it: OverlapWriteError); eye is
    zero_ then the diagonal's fill_ (a shared element holds 1)."""
    case = _FILL_OUTS[name]
    got, want = case(strided), case(torch)
    assert (got.shape, got.stride(), got.tolist()) == (tuple(want.shape), want.stride(), want.tolist())


_ONE_BOUND = {
    "clamp_ min 0-d": lambda L, b: b[:12:2].clamp_(min=b[2]),
    "clamp_ max 0-d": lambda L, b: b[:12:2].clamp_(max=b[2]),
    "clamp_min_ 0-d": lambda L, b: b[:12:2].clamp_min_(b[2]),
    "clamp_max_ 0-d": lambda L, b: b[:12:2].clamp_max_(b[4]),
}


@pytest.mark.parametrize("name", sorted(_ONE_BOUND))
def test_clamp_by_an_element_of_itself_is_torchs(name):
    """clamp_ with one bound that is an element the op also writes: that element is written
    with max(v, v) = v, so PyTorch's result does not depend on its order (strided refused it)."""
    case = _ONE_BOUND[name]
    assert not _torch_order_dependent(lambda L, b: case(L, b) if isinstance(b, torch.Tensor) else
                                      b.base[:12:2].clamp_(**_frozen_bound(name, b)))
    np.testing.assert_array_equal(_run(strided, case), _run(torch, case))


def _frozen_bound(name, b):
    """The bound of ``name``'s case read from the frozen copy (its run on copied inputs)."""
    k = 4 if "max_" in name else 2
    return {"max" if "max" in name else "min": b.frozen[k]}


def test_clamp_read_after_write_still_refused():
    def case(L, b):
        b[:12:2].clamp_(min=b[:6])
    assert _torch_order_dependent(lambda L, b: case(L, b) if isinstance(b, torch.Tensor) else
                                  b.base[:12:2].clamp_(min=b.frozen[:6]))
    with pytest.raises(OverlapWriteError):
        case(strided, strided.tensor(_VALUES))


@pytest.mark.parametrize("n", [8, 15, 16, 17, 31, 33])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_row_read_whole_by_torchs_vector_loop_is_not_refused(n, dtype):
    """b[:, 1:n+1].add_(b[:, :n]): PyTorch's vectorized loop loads each block of 2 * Vectorized<T>
    (64 bytes at least) before storing it, so a row within one block reads its inputs first (its
    result the inputs-read-first one); strided runs those as PyTorch and refuses the rest, where
    PyTorch's number depends on its order."""
    data = np.random.default_rng(n).standard_normal((2, n + 2)).astype(dtype)
    t = torch.tensor(data)
    t[:, 1:n + 1].add_(t[:, :n])
    first = torch.tensor(data)
    first[:, 1:n + 1] += first[:, :n].clone()
    s = strided.tensor(data)
    try:
        s[:, 1:n + 1].add_(s[:, :n])
    except OverlapWriteError:
        assert not torch.equal(t, first)  # (refused only where PyTorch's order shows)
        assert s.numpy().tobytes() == data.tobytes()
        return
    np.testing.assert_array_equal(s.numpy(), t.numpy())


@pytest.mark.parametrize("which", ["input", "other", "both"])
def test_where_out_takes_tensors_only_as_torch(which):
    """PyTorch's where(..., out=) has no overload with a Python input or other: TypeError
    (strided wrote the result)."""
    def call(lib):
        a = 1.0 if which in ("input", "both") else lib.ones(3)
        b = 0.0 if which in ("other", "both") else lib.zeros(3)
        return lib.where(lib.ones(3) > 0, a, b, out=lib.empty(3))
    with pytest.raises(TypeError) as theirs:
        call(torch)
    with pytest.raises(TypeError) as ours:
        call(strided)
    assert str(ours.value).splitlines()[0] == str(theirs.value)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_logspace_is_torchs(dtype):
    """PyTorch's complex logspace is std::pow(complex base, complex start + step * i) in the
    complex type (glibc's cpowf/cpow): logspace(0, 2, 3, dtype=complex64)[2] is
    100.00000762939453 (strided once computed the real double power, 100, with NumPy's
    ComplexWarning); tests/test_space_complex.py draws the rest."""
    got = strided.logspace(-1, 3, 7, base=3, dtype=getattr(strided, dtype))
    want = torch.logspace(-1, 3, 7, base=3, dtype=getattr(torch, dtype))
    assert got.tolist() == want.tolist()


@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
@pytest.mark.parametrize("to", ["uint8", "int8", "int16", "int32", "int64"])
@pytest.mark.parametrize("how", ["dtype", "out"])
def test_bfloat16_scans_into_integers_convert_as_torch(op, to, how):
    """A bfloat16 cumsum/cumprod into an integer dtype converts each element first as PyTorch does
    (through float: -6.0625 -> uint8 is 250); ml_dtypes' conversion gave 0 for any value out of
    the target's range (cumsum(bf16 [-6.0625, -39, 300, 70.5], dtype=uint8) was [0, 0, 0, 70])."""
    def run(lib):
        x = lib.tensor([-6.0625, -39.0, 300.0, 70.5, float("nan"), float("inf")]).to(lib.bfloat16)
        if how == "dtype":
            return getattr(lib, op)(x, 0, dtype=getattr(lib, to)).tolist()
        return getattr(lib, op)(x, 0, out=lib.empty(6, dtype=getattr(lib, to))).tolist()
    assert run(strided) == run(torch)


_BF16_REDUCTIONS = {
    "sum": lambda L, d: L.sum(L.tensor([-6.0625, -39.0, 300.0, 70.5, float("inf")]).to(L.bfloat16), dtype=d),
    "sum dim": lambda L, d: L.sum(L.tensor([[-6.0625, -39.0], [300.0, 70.5]]).to(L.bfloat16), 0, dtype=d),
    "prod": lambda L, d: L.prod(L.tensor([-6.0625, -39.0, 3.0, 70.5]).to(L.bfloat16), dtype=d),
    "prod dim": lambda L, d: L.prod(L.tensor([[-6.0625, -39.0], [3.0, 70.5]]).to(L.bfloat16), 1, dtype=d),
    "nansum": lambda L, d: L.nansum(L.tensor([-6.0625, -39.0, 300.0, 70.5, float("nan")]).to(L.bfloat16), dtype=d),
    "nansum dim": lambda L, d: L.nansum(L.tensor([[-6.0625, -39.0], [300.0, float("nan")]]).to(L.bfloat16), 0, dtype=d),
}


@pytest.mark.parametrize("name", sorted(_BF16_REDUCTIONS))
@pytest.mark.parametrize("to", ["uint8", "int8", "int16", "int64"])
def test_bfloat16_reductions_into_integers_convert_as_torch(name, to):
    """sum/prod/nansum(bfloat16, dtype=<int>) convert each element through float, as PyTorch
    (sum(bf16 [-6.0625, -39, 300, 70.5], dtype=uint8) is 69; strided gave 70, int8 25)."""
    case = _BF16_REDUCTIONS[name]
    assert case(strided, getattr(strided, to)).tolist() == case(torch, getattr(torch, to)).tolist()


_FILL_ENTRIES = {
    "masked_fill_": lambda L, t, v: t.masked_fill_(L.tensor([True, False]), v),
    "masked_fill_ 0-d": lambda L, t, v: t.masked_fill_(L.tensor([True, False]), L.tensor(v, dtype=L.float64)),
    "masked_fill": lambda L, t, v: t.masked_fill(L.tensor([True, False]), v),
    "index_fill_": lambda L, t, v: t.index_fill_(0, L.tensor([1]), v),
    "scatter_ value": lambda L, t, v: t.scatter_(0, L.tensor([1]), v),
}


@pytest.mark.parametrize("name", sorted(_FILL_ENTRIES))
@pytest.mark.parametrize("dtype", ["uint8", "int8", "int64", "uint16"])
@pytest.mark.parametrize("value", [-0.5, -1e-300, -0.0, 255.9, 128.0, -128.9, 3.7, -3.7, 2.0**63, 65535.5])
def test_float_fill_values_into_integers_are_checked_as_torch(name, dtype, value):
    """A float fill value outside an integer target's range is refused before truncation, as
    PyTorch's c10::overflows (masked_fill_ of -0.5 into uint8: strided wrote 0, of 255.9 wrote 255,
    of -3.7 wrote 253); 2.0**63 into int64 passes that check and is INT64_MIN."""
    def run(lib):
        try:
            return _FILL_ENTRIES[name](lib, lib.zeros(2, dtype=getattr(lib, dtype)), value).tolist()
        except RuntimeError as e:
            return str(e).splitlines()[0]
    assert run(strided) == run(torch)


def test_buffered_unary_out_across_rows():
    """(red25's strict xfail, fixed on day 26: a buffered unary op's rows are modelled, read in
    pieces before they are written, a later row reading what an earlier one wrote; the fuzz is
    tests/test_alias_index_ops.py::test_buffered_unary_out_over_its_input_across_rows)"""
    def case(L, b):
        L.sqrt(b[:12].view(3, 4), out=b[:24].view(3, 8)[:, :4])
    assert _torch_order_dependent(lambda L, b: case(L, b) if isinstance(b, torch.Tensor) else
                                  torch.sqrt(b.frozen[:12].view(3, 4), out=b.base[:24].view(3, 8)[:, :4]))
    with pytest.raises(OverlapWriteError):
        case(strided, strided.tensor(_VALUES))
