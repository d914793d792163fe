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
    # the NumPy-style functions carry their Tensor method's plan; every other non-op is no op at all
    assert {n for n in non_ops if n in OPDEFS} == {"reshape", "broadcast_to"}
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
    ``strided.linalg`` / ``strided.nn.functional`` (``F.<name>`` ops)."""
    for op in {id(op): op for op in OPDEFS.values()}.values():
        spots = [getattr(st.Tensor, n, None) for n in op.names] + [getattr(st, n, None) for n in op.names]
        spots += [getattr(st.linalg, n, None) for n in op.names]
        spots += [getattr(st.nn.functional, n.removeprefix("F."), None) for n in op.names]
        if op.name == "getitem":  # (advanced indexing: t[index_tensor] reaches it through __getitem__)
            spots.append(st.Tensor.__getitem__)
        assert any(s is not None for s in spots), op.name


def test_the_diagnostics_and_command_line_name_registry_ops():
    """explain's, watch's and the ``show`` grammar's op lists hold registry names only (plus
    ``ravel``, the NumPy-style reshape(-1) strided and torch share as a method)."""
    known = set(OPDEFS) | {"ravel"}
    assert set(explain_torch.TORCH_OPS) <= known, set(explain_torch.TORCH_OPS) - known
    assert set(expr.METHODS) <= known | {"moveaxis", "broadcast_to"}, set(expr.METHODS) - known
    assert set(expr.COMPUTE) <= set(OPS)
    assert {n.rstrip("_") for n in watch.RESHAPES} <= known | {"reshape_as"}
    assert watch.ELEMENTWISE <= set(OPDEFS)
