"""The public op names are the registry's (issue 21): the face's op functions are generated from
it (``tools/gen_face.py`` -> ``strided/face_ops.py``), and every other list of op names the
diagnostics and the command line read names registry ops."""

from __future__ import annotations

import importlib.util
import pathlib

import torch

import strided as st
from strided import face_ops
from strided.cli import expr
from strided.diagnose import explain_torch, watch
from strided.opdef import OPDEFS
from strided.ops.table import OPS

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _gen_face():
    spec = importlib.util.spec_from_file_location("gen_face", ROOT / "tools" / "gen_face.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_faces_op_functions_are_generated_from_the_registry_and_current():
    gen = _gen_face()
    assert gen.FACE == ROOT / "src" / "strided" / "face_ops.py"
    assert gen.render() == gen.FACE.read_text(), "src/strided/face_ops.py is stale: run tools/gen_face.py"


def test_every_face_function_is_a_registry_op_or_a_named_non_op():
    """The face is the generated op functions plus a short list of names that are no op; an op
    function is the registry's entry itself (the object ``strided.<name>`` is the op's)."""
    ops = set(face_ops.__all__)
    assert ops <= set(st.__all__) and len(ops) > 200
    assert all(name in OPDEFS for name in ops)
    non_ops = set(st.__all__) - ops
    # the NumPy-style functions carry their Tensor method's plan; the dtype aliases (strided.float,
    # a DType) share their name with a conversion method (t.float()); every other non-op is no op
    assert {n for n in non_ops if n in OPDEFS and not isinstance(getattr(st, n), st.DType)} == {"reshape", "broadcast_to"}
    for name in ops:
        assert getattr(st, name).__name__ in OPDEFS[name].names or getattr(st, name).__wrapped__ is not None


def test_every_registry_op_with_a_torch_function_is_on_the_face():
    """Vice versa: an op declared in its family module with a function torch also has is
    ``strided.<name>`` (a new op shows everywhere from its one declaration)."""
    for op in {id(op): op for op in OPDEFS.values()}.values():
        for name in op.names:
            if name.startswith("_") or "." in name or not hasattr(torch, name):
                continue
            home = __import__("sys").modules.get(op.home or "")
            if home is not None and callable(vars(home).get(name)):
                # (or it is one of the face's NumPy-style functions, which keep the name)
                assert name in face_ops.__all__ or getattr(st, name).__module__ == "strided.numpy_api", name


def test_every_registry_op_is_reachable_by_one_of_its_spellings():
    """No registry op is a name only: each is a Tensor method, a face function, or a function of
    ``strided.linalg`` (``linalg_<name>`` ops: PyTorch's native names of ``torch.linalg.<name>``) /
    ``strided.special`` (``special_<name>`` ops, likewise) /
    ``strided.nn.functional`` (``F.<name>`` ops)."""
    for op in {id(op): op for op in OPDEFS.values()}.values():
        spots = [getattr(st.Tensor, n, None) for n in op.names] + [getattr(st, n, None) for n in op.names]
        spots += [getattr(st.linalg, n.removeprefix("linalg_"), None) for n in op.names]
        spots += [getattr(st.special, n.removeprefix("special_"), None) for n in op.names]
        spots += [getattr(st.nn.functional, n.removeprefix("F."), None) for n in op.names]
        if op.name == "getitem":  # (advanced indexing: t[index_tensor] reaches it through __getitem__)
            spots.append(st.Tensor.__getitem__)
        assert any(s is not None for s in spots), op.name


def test_the_diagnostics_and_command_line_name_lists_are_read_off_the_registry():
    """explain's op list is the spellings whose declarations say explain predicts them (plus
    ``ravel``, PyTorch's composite ``contiguous().view(-1)``); the ``show`` grammar's methods are
    the same, its computing methods every computing op's method; watch's reshapes are the spellings
    of the reshaping ops and its elementwise ops those with a descriptor; explain's elementwise ops
    are every name of the registry's binary ops (plus the operator module's and NumPy's names)."""
    from strided.diagnose import explain_broadcast
    from strided.opdef import Kind
    from strided.ops.elementwise.binary import BinaryOp
    from strided.ops.table import explained

    assert explain_torch.TORCH_OPS == (*explained(), "ravel")
    assert all(OPDEFS[n].kind in (Kind.VIEW, Kind.COPY) and n in OPDEFS[n].explained for n in explained())
    assert {"view", "transpose", "swapaxes", "contiguous", "to"} <= set(explained())
    assert expr.METHODS == explain_torch.TORCH_OPS
    assert set(expr.COMPUTE) == {n for n, op in OPS.items() if op.kind is Kind.COMPUTE and not n.endswith("_")
                                 and callable(getattr(st.Tensor, n, None))}
    assert {"sum", "exp", "add", "addcmul", "trace", "softmax"} <= set(expr.COMPUTE)
    assert {"view", "view_as", "reshape", "reshape_as", "flatten", "unflatten", "ravel"} <= watch.RESHAPES
    assert watch.ELEMENTWISE <= set(OPDEFS)
    binary = {n for n, op in OPS.items() if isinstance(op.spec, BinaryOp)}
    assert binary <= set(explain_broadcast.ELEMENTWISE_OPS) and {"truediv", "and_", "less"} <= set(
        explain_broadcast.ELEMENTWISE_OPS)


def test_every_registry_op_has_its_kind_declared_in_its_family_module():
    """Each op's kind is written once, by ``declare`` at the end of its family module (or ``@op``):
    no op of the registry is without one, and its home is the module that declared it."""
    import strided.nn.functional  # noqa: F401  (its ops too)

    for op in {id(op): op for op in OPDEFS.values()}.values():
        assert op.kind is not None, op.name
        assert op.home.startswith("strided."), op.name
