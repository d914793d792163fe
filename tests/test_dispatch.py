"""The op boundary (strided.dispatch): op records reach listeners, and the op table is complete."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import strided as st
from strided import dispatch
from strided.kernels.listeners import OPEN
from strided.opdef import BACKWARD, OPDEFS
from strided.ops.table import OPS


def _x():
    return st.arange(12, dtype=st.float32).view(3, 4)


def _seen(fn):
    records = []
    with dispatch.listen(records.append):
        out = fn()
    return records, out


@pytest.mark.parametrize("call, name", [
    (lambda x: x.permute(1, 0), "permute"), (lambda x: x.T, "T"), (lambda x: x[1:], "__getitem__"),
    (lambda x: x.view(12), "view"), (lambda x: x.expand(2, 3, 4), "expand"),
    (lambda x: x.unsqueeze(0), "unsqueeze"), (lambda x: x.select(0, 1), "select"),
    (lambda x: x.narrow(1, 0, 2), "narrow"), (lambda x: x.diagonal(), "diagonal"),
    (lambda x: x.flatten(), "flatten"), (lambda x: x.reshape(2, 6), "reshape"),
])
def test_a_view_reaches_a_listener_with_its_name_input_and_layout(call, name):
    x = _x()
    records, out = _seen(lambda: call(x))
    assert [(r.name, r.kind) for r in records] == [(name, "view")]
    r = records[0]
    assert r.inputs == (x,) and r.output is out and r.plan is out._layout and r.shape == out.shape
    assert r.where.endswith(".py:" + r.where.rsplit(":", 1)[1]) and "strided/" not in r.where.split("tests")[0][-9:]


@pytest.mark.parametrize("call, name, views", [
    (lambda x: x.T.contiguous(), "contiguous", 1), (lambda x: x.clone(), "clone", 0),
    (lambda x: x.to(st.float64), "to", 0), (lambda x: x.T.reshape(-1), "reshape", 1),
])
def test_a_copy_reaches_a_listener_with_its_reason_and_bytes(call, name, views):
    x = _x()
    records, out = _seen(lambda: call(x))
    copies = [r for r in records if r.kind == "copy"]
    assert len(records) == views + 1 and [r.name for r in copies] == [name]
    r = copies[0]
    assert r.output is out and r.nbytes == out.numel() * out.element_size() and isinstance(r.plan, str)


@pytest.mark.parametrize("call, name, n_inputs", [
    (lambda x: x + x, "add", 2), (lambda x: x * 2.0, "mul", 2), (lambda x: x + x[0], "add", 2),
    (lambda x: x.T + x.T, "add", 2), (lambda x: x.to(st.int64) + x, "add", 2),
    (lambda x: x.exp(), "exp", 1), (lambda x: x.sigmoid(), "sigmoid", 1), (lambda x: x.clamp(0, 1), "clamp", 3),
    (lambda x: st.where(x > 0, x, 0.0), "where", 3), (lambda x: x.sum(), "sum", 1),
    (lambda x: x.sum(0), "sum", 1), (lambda x: x.mean(), "mean", 1), (lambda x: x.var(1), "var", 1),
    (lambda x: x.all(), "all", 1), (lambda x: x.max(), "max", 1), (lambda x: x.max(0), "max", 1),
    (lambda x: x.argmax(), "argmax", 1), (lambda x: x.softmax(1), "softmax", 1),
    (lambda x: x @ x.T, "matmul", 2), (lambda x: x.mm(x.T), "mm", 2), (lambda x: x[0].dot(x[1]), "dot", 2),
    (lambda x: x.add_(1), "add_", 2), (lambda x: x.exp_(), "exp_", 1),
])
def test_a_compute_op_reaches_a_listener_with_its_inputs_and_output(call, name, n_inputs):
    x = _x()
    records, out = _seen(lambda: call(x))
    computed = [r for r in records if r.kind == "compute"]
    assert computed[-1].name == name and computed[-1].output is out and len(computed[-1].inputs) == n_inputs


@pytest.mark.parametrize(
    "write,name",
    [
        (lambda t: t.copy_(st.ones(2, 3)), "copy_"),
        (lambda t: t.fill_(2.0), "fill_"),
        (lambda t: t.zero_(), "zero_"),
        (lambda t: t.__setitem__((0, 1), 5.0), "setitem"),
    ],
)
def test_a_write_reaches_a_listener_as_a_compute_op_on_its_target(write, name):
    t = st.zeros(2, 3)
    records = []
    with dispatch.listen(records.append):
        write(t)
    last = records[-1]
    assert (last.name, last.kind) == (name, "compute")
    assert last.output._storage is t._storage


def test_a_failed_write_reports_nothing_as_written():
    t = st.zeros(2, 3)
    records = []
    with dispatch.listen(records.append), pytest.raises(st.StridedError):
        t.copy_(st.ones(4))
    assert not [r for r in records if r.name == "copy_"]


def test_record_copies_is_one_listener_beside_others():
    x = _x()
    records = []
    with dispatch.listen(records.append), st.record_copies() as copies:
        x.T.contiguous()
    assert [r.reason for r in copies] == ["contiguous() of (4, 3) strides (1, 4): dim 1 has stride 4, row-major needs 1"]
    assert [(r.name, r.kind) for r in records] == [("T", "view"), ("contiguous", "copy")]


def test_nothing_is_delivered_outside_the_block_or_to_other_threads():
    x = _x()
    records = []
    with dispatch.listen(records.append):
        t = threading.Thread(target=lambda: x + x)
        t.start()
        t.join()
    x + x
    assert records == [] and OPEN == []


def test_a_listener_that_raises_leaves_no_listener_open():
    def boom(record):
        raise KeyError(record.name)

    with pytest.raises(KeyError), dispatch.listen(boom):
        _ = _x().T
    assert OPEN == [] and dispatch.OPEN == []
    assert np.array_equal(_x().T.numpy(), np.arange(12, dtype=np.float32).reshape(3, 4).T)


# ---------------------------------------------------------------- the op table

_NOT_OPS = {  # public names that are no op: types, constants, settings, factories, predicates
    "__version__", "enable_grad", "is_grad_enabled", "no_grad", "set_grad_enabled", "inference_mode",
    "is_inference_mode_enabled", "Size", "BFloat16Tensor", "BoolTensor", "ByteTensor", "CharTensor", "DoubleTensor", "FloatTensor",
    "HalfTensor", "IntTensor", "LongTensor", "ShortTensor",
    "bool", "bool_", "broadcasting", "BroadcastError", "BroadcastWarning", "channels_last",
    "contiguous_format", "CopyRecord", "DType", "float16", "bfloat16", "float32", "float64", "int16", "int32",
    "int64", "int8", "uint8", "Layout", "OverlapWriteError", "preserve_format", "promote_types",
    "record_copies", "ReshapeRefusal", "result_type", "return_types", "shares_memory",
    "may_share_memory", "Storage", "StridedError", "StridedIndexError", "StridedNotImplementedError",
    "StridedRuntimeError", "StridedTypeError", "StridedValueError", "Tensor", "ViewError",
    "arange", "as_tensor", "asarray", "from_dlpack", "StridedBufferError", "empty", "empty_like", "from_numpy", "full", "full_like", "ones",
    "ones_like", "tensor", "zeros", "zeros_like", "broadcast_shapes",
    "complex64", "complex128", "cfloat", "cdouble", "uint16", "uint32", "uint64", "channels_last_3d",
    "device", "nn", "optim", "linalg", "special", "linspace",
    # files: strided.save / strided.load (serialization), no op
    "save", "load", "logspace", "eye", "empty_strided",
    # random numbers: the generator and its settings, and the factories that sample new memory
    "Generator", "default_generator", "initial_seed", "manual_seed", "seed", "get_rng_state", "set_rng_state", "rand", "rand_like", "randint",
    "randint_like", "randn", "randn_like", "randperm", "normal", "bernoulli", "multinomial",
    # predicates and queries: a Python bool or int, no tensor
    "allclose", "equal", "is_complex", "is_conj", "is_floating_point", "is_nonzero", "is_same_size", "is_signed", "is_tensor", "numel",
    # dtype aliases, dtype limits and the settings of the default dtype and of printing
    "float", "double", "half", "long", "int", "short", "finfo", "iinfo", "get_default_dtype",
    "set_default_dtype", "set_printoptions", "use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
    # PyTorch's typed storages (legacy classes): a storage's elements as a dtype, no op
    "TypedStorage", "BoolStorage", "ByteStorage", "CharStorage", "DoubleStorage", "FloatStorage", "HalfStorage",
    "IntStorage", "LongStorage", "ShortStorage",
    # NumPy-style functions (numpy_api): they carry out the layout plans of their Tensor methods
    "ascontiguousarray", "asfortranarray", "broadcast_to", "ravel", "reshape",
    # the diagnostics: readers of plans and op records, not ops
    "draw", "explain", "watch", "watch_torch", "einsum_plan",
}
_ALIASES = {"divide": "div", "true_divide": "div", "subtract": "sub", "multiply": "mul",
            "negative": "neg", "clip": "clamp"}


def test_the_table_lists_every_public_op_function():
    missing = [n for n in st.__all__ if n not in _NOT_OPS and _ALIASES.get(n, n) not in OPS]
    assert not missing, missing


def test_the_table_lists_every_computing_tensor_method():
    methods = {n for n in dir(st.Tensor) if callable(getattr(st.Tensor, n, None)) and not n.startswith("__")
               and not n.endswith("_")}
    plain = {"add", "sub", "mul", "div", "pow", "exp", "sum", "matmul", "max", "softmax", "permute",
             "view", "contiguous", "clamp", "where", "outer", "argmin", "std"}
    assert plain <= methods
    assert all(name in OPS for name in plain)


def test_every_table_entry_exists_and_is_the_registrys_op():
    for name, entry in OPS.items():
        assert name in entry.names and entry.kind in ("view", "copy", "compute", "alloc", "write")
        assert entry is OPDEFS[name]  # one object per op: the table's entry is the registry's
        assert callable(entry.forward) or isinstance(entry.forward, property)
        # (a Tensor method, a strided function, or a function of the namespace the op lives in:
        # F.gelu, linalg.vector_norm, linalg.inv of the op linalg_inv (PyTorch's native name);
        # advanced indexing's getitem is behind Tensor.__getitem__)
        # (special_i1 of strided.special.i1 likewise)
        homes = (st.Tensor, st, st.nn.functional, st.linalg)
        assert (any(hasattr(h, name) for h in homes) or hasattr(st.linalg, name.removeprefix("linalg_"))
                or hasattr(st.special, name.removeprefix("special_"))
                or entry.home == "strided.ops.indexing.advanced"), name
    with_rules = {e.name for e in OPS.values() if e.backward is not None}
    assert {"add", "mul", "exp", "sum", "matmul", "permute", "view", "cat", "softmax"} <= with_rules
    assert OPS["argmax"].backward is None  # (an integer result has no rule; polar has one since round 6)
    assert OPS["polar"].backward is not None


def test_backward_is_a_view_of_the_registry():
    """Every spelling of an op with a rule reads the op's one rule; ``BACKWARD`` holds no other
    (a reflected operator reads the rule derived from its op's: ``__rsub__`` is ``sub``'s, swapped)."""
    for name, (rule, operands) in BACKWARD.items():
        op = OPDEFS[name]
        assert (rule, operands) == op.rule_for(name) and name in op.names
        if op.operands[name] == "reflected":
            assert operands == "dunder" and rule is op.rule_for(name)[0]  # (derived once)
        else:
            assert op.backward is rule and op.operands[name] == operands
    for reflected, forward in (("__rsub__", "sub"), ("__rtruediv__", "div"), ("__rpow__", "pow"),
                               ("__rmatmul__", "matmul")):
        assert OPDEFS[reflected] is OPDEFS[forward]  # no OpDef of their own
    mul = OPDEFS["mul"]
    assert mul.aliases == ("multiply",) and mul.dunders == ("__mul__", "__rmul__")
    assert all(OPDEFS[n] is mul for n in mul.names)
    assert len(BACKWARD) == len(list(BACKWARD)) > 200
