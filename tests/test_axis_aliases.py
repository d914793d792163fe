"""NumPy's keywords ``axis=`` / ``keepdims=``: accepted where PyTorch's argument parser accepts them,
refused with PyTorch's TypeError where it does not (strided.numpy_keywords).

The sweep walks every op of strided with a ``dim``/``keepdim`` parameter (Tensor methods, the
face, nn.functional, linalg), builds one call from the parameter names, and runs it in PyTorch and
strided three ways: with ``dim=``, with ``axis=`` (and ``keepdims=``), with both.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import strided
import strided.nn.functional as SF
from strided.grad_mode import _parameters
from strided.numpy_keywords import ALIASES, NO

SHAPE = (2, 3, 4)
DIM = 1  # (size 3: cross's dim)


def _spellings() -> list[tuple[str, str]]:
    """(prefix, name) of every op spelling whose forward has a dim/keepdim parameter."""
    spaces = (("Tensor.", vars(strided.Tensor)), ("", vars(strided)), ("F.", vars(SF)),
              ("linalg.", vars(strided.linalg)))
    found = []
    for prefix, space in spaces:
        for name, value in sorted(space.items()):
            if name.startswith("_") or not callable(value) or isinstance(value, type):
                continue
            params = _parameters(value) or []
            if {p.name for p in params} & set(ALIASES.values()):
                found.append((prefix, name))
    return found


SPELLINGS = _spellings()


# parameters with a default that torch still needs for the call (repeat_interleave's repeats)
ALWAYS = {"repeats", "indices_or_sections", "src"}
DIMS = {"matrix_norm": (1, 2), "glu": 2}  # (the ops whose dim is a pair; glu halves an even dim)


def _value(name: str, lib, x, op: str):
    """A valid argument for the parameter ``name`` (by its name) of ``op``, in ``lib`` (torch or strided)."""
    if op.startswith("index_"):  # (a 1-d index along dim 1, and a source of that length there)
        if name == "index":
            return lib.tensor([0, 2])
        if name == "source":
            return lib.ones(2, 2, 4, dtype=x.dtype)
        if name == "reduce":  # (index_reduce's reductions: no "sum")
            return "prod"
    if op in ("select", "select_scatter") and name == "index":
        return 0
    if op == "split_with_sizes" and name == "split_sizes":  # (dim 1 has size 3)
        return [1, 2]
    if op == "select_scatter" and name == "src":  # (the shape of x.select(1, 0))
        return lib.ones(SHAPE[0], SHAPE[2], dtype=x.dtype)
    idx = lib.tensor([[[0, 1, 0, 1]] * 3] * 2)
    table = {
        "tensors": [x, x],
        "index": idx, "indices": idx, "k": 1, "q": 0.5, "chunks": 2, "split_size": 1, "sizes": (3, 1),
        "source": lib.ones(*SHAPE, dtype=x.dtype), "src": lib.ones(*SHAPE, dtype=x.dtype), "value": 0.5,
        "reduce": "sum", "repeats": 2, "start": 0, "length": 2, "n": 1, "p": 2, "other": x + 1,
        "indices_or_sections": 2, "ord": 2, "input": x, "self": x, "x": x,
    }
    return table.get(name, x)  # (a parameter the table lacks: the tensor; where torch refuses it, the sweep names the op)


def _fix(prefix: str, name: str, lib, x):
    """(callable, positional args, keyword args without dim/keepdim, has keepdim) of one call."""
    space = {"Tensor.": None, "": lib, "F.": TF if lib is torch else SF,
             "linalg.": lib.linalg}[prefix]
    fn = getattr(x, name, None) if space is None else getattr(space, name, None)
    ours = {"Tensor.": vars(strided.Tensor), "": vars(strided), "F.": vars(SF), "linalg.": vars(strided.linalg)}
    params = _parameters(ours[prefix][name])
    if prefix == "Tensor.":
        params = params[1:]
    before, after = [], {}
    seen_dim = False
    for i, p in enumerate(params):
        if p.name in ("dim", "keepdim") or p.name in ALIASES:
            seen_dim = seen_dim or p.name == "dim"
            continue
        required = p.default is inspect.Parameter.empty or p.default is NO or p.name in ALWAYS
        if not required or p.kind.name in ("VAR_POSITIONAL", "VAR_KEYWORD"):
            continue
        if i == 0 and prefix != "Tensor." and p.name != "tensors":
            before.append(x)
        elif seen_dim:
            after[p.name] = _value(p.name, lib, x, name)
        else:
            before.append(_value(p.name, lib, x, name))
    return fn, before, after, any(p.name == "keepdim" for p in params)


def _outcome(fn, args, kwargs):
    try:
        return "ok", fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - the class and text are compared
        return "error", e


def _numpy(v):
    if isinstance(v, (tuple, list)):
        return [_numpy(u) for u in v]
    if hasattr(v, "detach"):
        return v.detach().numpy()
    if isinstance(v, strided.Tensor):
        return v.numpy()
    return v


def _same(a, b) -> None:
    a, b = _numpy(a), _numpy(b)
    if isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b)
        for u, v in zip(a, b):
            _same(u, v)
        return
    if isinstance(a, np.ndarray):
        assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, b.shape, a.dtype, b.dtype)
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)
        return
    assert a == b


def _text(e: Exception) -> str:
    # (Python names a method that torch writes in Python Tensor.split; strided's entries are named split)
    # (and torch names its linalg functions linalg_vector_norm in these errors)
    return str(e).splitlines()[0].removeprefix("Tensor.").removeprefix("linalg_")


def _inputs(transposed: bool):
    data = np.arange(24.0).reshape(SHAPE) / 7.0
    t, s = torch.tensor(data), strided.tensor(data)
    if transposed:  # (a non-contiguous input: same shape, permuted strides)
        t = torch.tensor(np.ascontiguousarray(data.transpose(2, 1, 0))).permute(2, 1, 0)
        s = strided.tensor(np.ascontiguousarray(data.transpose(2, 1, 0))).permute(2, 1, 0)
    return t, s


# the one choice where PyTorch disagrees with itself: torch.unflatten (its parser) takes axis=,
# Tensor.unflatten (written in Python) does not; strided's method and function are one entry, and
# take it (a refusal would break torch.unflatten's spelling)
LENIENT = {("Tensor.", "unflatten")}


@pytest.mark.parametrize("transposed", [False, True])
def test_every_op_with_dim_takes_axis_where_torch_does(transposed: bool) -> None:
    compared, accepted, refused, no_oracle = 0, 0, 0, []
    for prefix, name in SPELLINGS:
        t, s = _inputs(transposed)
        tfn, tpos, tkw, keep = _fix(prefix, name, torch, t)
        sfn, spos, skw, _ = _fix(prefix, name, strided, s)
        if tfn is None:
            no_oracle.append(prefix + name)
            continue
        dim = DIMS.get(name, DIM)
        canonical = {"dim": dim, **({"keepdim": True} if keep else {})}
        numpy_kw = {"axis": dim, **({"keepdims": True} if keep else {})}
        status, ref = _outcome(tfn, tpos, {**tkw, **canonical})
        if status != "ok":  # (this call is not one torch takes with dim=: the recipe does not fit)
            no_oracle.append(prefix + name)
            continue
        compared += 1
        # with dim=: the same result (the sweep's own sanity check)
        _same(ref, sfn(*spos, **skw, **canonical))
        # with axis= / keepdims=: accepted with the same values, or refused with torch's error
        t_status, t_out = _outcome(tfn, tpos, {**tkw, **numpy_kw})
        s_status, s_out = _outcome(sfn, spos, {**skw, **numpy_kw})
        if (prefix, name) in LENIENT:
            assert t_status == "error" and s_status == "ok", name
            _same(ref, s_out)
            continue
        assert t_status == s_status, (prefix + name, t_out, s_out)
        if t_status == "ok":
            accepted += 1
            _same(t_out, s_out)
        else:
            refused += 1
            assert isinstance(s_out, TypeError) and isinstance(t_out, TypeError), (name, t_out, s_out)
            # (torch's text names its Python function: unique's is its dispatcher's, _return_output)
            assert _text(s_out) == f"{name}() " + _text(t_out).split("() ", 1)[1], (prefix + name, s_out, t_out)
        # both spellings: torch's error where it takes the alias
        if t_status == "ok":
            both = {**canonical, "axis": dim}
            t_status, t_err = _outcome(tfn, tpos, {**tkw, **both})
            s_status, s_err = _outcome(sfn, spos, {**skw, **both})
            assert t_status == s_status == "error", (prefix + name, t_err, s_err)
            assert isinstance(s_err, TypeError)
            if "received an invalid combination of arguments" not in _text(t_err):
                assert _text(s_err) == _text(t_err), (prefix + name, _text(s_err), _text(t_err))
            else:  # (an op with overloads: torch lists them all; strided names the extra keyword)
                assert _text(s_err).endswith("got an unexpected keyword argument 'axis'"), _text(s_err)
    # the sweep compared every spelling (a new op whose arguments the recipe cannot make is named here)
    assert compared == len(SPELLINGS) > 130, " ".join(sorted(no_oracle))
    assert accepted >= 120 and refused >= 10, (accepted, refused)


def test_the_alias_given_positionally_twice_is_torchs_error() -> None:
    t, s = _inputs(False)
    for fn in (lambda x: x.sum(1, axis=0), lambda x: x.mean(1, keepdim=True, keepdims=True),
               lambda x: x.argmax(1, axis=0), lambda x: x.unsqueeze(0, axis=1),
               lambda x: x.cumsum(0, axis=1), lambda x: x.clone().cumsum_(0, axis=1)):
        with pytest.raises(TypeError) as theirs:
            fn(t)
        with pytest.raises(TypeError) as ours:
            fn(s)
        assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gradients_through_an_aliased_call(dtype: str) -> None:
    data = np.random.default_rng(0).standard_normal(SHAPE).astype(dtype)
    calls = [lambda x, m: m.sum(x, axis=1, keepdims=True), lambda x, m: x.mean(axis=(0, 2)),
             lambda x, m: x.softmax(axis=-1), lambda x, m: m.cat([x, x], axis=2),
             lambda x, m: x.amax(axis=1, keepdims=True), lambda x, m: x.unsqueeze(axis=0).squeeze(axis=0),
             lambda x, m: x.max(axis=2, keepdims=True).values, lambda x, m: x.narrow(axis=2, start=1, length=2),
             lambda x, m: x.cumsum(axis=1), lambda x, m: x.std(axis=1, keepdims=True)]
    for call in calls:
        t = torch.tensor(data, requires_grad=True)
        s = strided.tensor(data, requires_grad=True)
        yt, ys = call(t, torch), call(s, strided)
        assert ys.grad_fn.name() == yt.grad_fn.name()
        g = np.cos(np.arange(yt.numel(), dtype=dtype)).reshape(tuple(yt.shape))
        yt.backward(torch.tensor(g))
        ys.backward(strided.tensor(g))
        np.testing.assert_allclose(s.grad.numpy(), t.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_zero_size_and_the_rules_never_see_axis() -> None:
    t, s = torch.zeros(0, 3), strided.zeros(0, 3)
    for call in (lambda x: x.sum(axis=0), lambda x: x.sum(axis=1, keepdims=True), lambda x: x.mean(axis=0)):
        _same(call(t), call(s))
    # what the recorder hands the backward rules: the op's own keywords, never NumPy's
    from strided import grad_mode

    seen = []
    attach = grad_mode._RECORDER["attach"]
    grad_mode._RECORDER["attach"] = lambda out, maker, args, kwargs: (seen.append((args[1:], kwargs)),
                                                                        attach(out, maker, args, kwargs))[1]
    try:
        x = strided.ones(2, 3, requires_grad=True)
        x.mean(axis=1, keepdims=True), x.sum(axis=1, keepdims=True), x.argmax(axis=1), x.cumsum(axis=0)
        strided.gather(x, axis=1, index=strided.zeros(2, 1, dtype=strided.int64)), x.unsqueeze(axis=0)
    finally:
        grad_mode._RECORDER["attach"] = attach
    assert len(seen) == 5 and seen[0][0] == (1, True) and seen[1][0] == (1, True), seen  # (mean, sum: dim, keepdim)
    assert all("axis" not in k and "keepdims" not in k for _, k in seen), seen


def test_numpy_refused_is_fresh() -> None:
    import importlib.util
    import pathlib

    path = pathlib.Path(__file__).resolve().parents[1] / "tools" / "gen_face.py"
    spec = importlib.util.spec_from_file_location("gen_face", path)
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    assert gen.REFUSED.read_text() == gen.render_refused(), "run PYTHONPATH=src python tools/gen_face.py"
