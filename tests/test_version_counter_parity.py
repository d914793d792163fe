"""``Tensor._version`` against PyTorch's VersionCounter: every in-place write counts from the first
op of the process (not only once autograd is used), shared by a tensor, its views and detach(),
not by ``.data``, a clone, or tensors that merely share memory (from_numpy, set_); in-place ops,
out=, setitem, copy_, fill_, zero_, in-place sampling, optimizers' steps, no_grad and
inference_mode; and the modified-saved-tensor error, which names the user's line of the write."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import strided
from strided.grad_mode import last_write

# ---------------------------------------------------------------- random sequences, both libraries

_BASES = ["rows", "transposed", "empty", "scalar"]
_VIEWS = ["slice", "t", "detach", "data", "unsqueeze", "clone", "step", "expand"]
_WRITES = ["add_", "mul_", "fill_", "zero_", "setitem", "copy_", "out", "clamp_", "uniform_", "iadd", "abs_"]


def _base(lib, kind: str):
    if kind == "rows":
        return lib.ones(3, 4)
    if kind == "transposed":
        return lib.ones(4, 3).t()
    if kind == "empty":
        return lib.ones(0, 3)
    return lib.tensor(1.5)


def _view(lib, t, kind: str):
    """A view (or alias, or copy) of ``t``; None where the kind does not apply to its shape."""
    nd = t.dim()
    if kind == "slice":
        return t[1:] if nd else None
    if kind == "t":
        return t.t() if nd <= 2 else None
    if kind == "detach":
        return t.detach()
    if kind == "data":
        return t.data
    if kind == "unsqueeze":
        return t.unsqueeze(0)
    if kind == "clone":
        return t.clone()
    if kind == "step":
        return t[..., ::2] if nd else None
    return t.expand(2, *t.shape)  # (read only: writes through it are skipped below)


def _write(lib, t, kind: str) -> None:
    if kind == "add_":
        t.add_(1.0)
    elif kind == "mul_":
        t.mul_(0.5)
    elif kind == "fill_":
        t.fill_(2.0)
    elif kind == "zero_":
        t.zero_()
    elif kind == "setitem":
        t[...] = 3.0
    elif kind == "copy_":
        t.copy_(lib.full(tuple(t.shape), 4.0))
    elif kind == "out":
        lib.add(t, 1.0, out=t)
    elif kind == "clamp_":
        t.clamp_(0.0, 2.0)
    elif kind == "uniform_":
        t.uniform_()
    elif kind == "iadd":
        t += 1.0
    else:
        t.abs_()


def _versions(lib, base: str, steps: list) -> list:
    """The versions of every tensor made so far, after each step of ``steps``."""
    pool = [_base(lib, base)]
    expanded = [False]
    seen = []
    for is_view, which, kind in steps:
        at = which % len(pool)
        t = pool[at]
        if is_view:
            name = _VIEWS[kind % len(_VIEWS)]
            v = _view(lib, t, name)
            if v is not None:
                pool.append(v)
                expanded.append(name != "clone" and (expanded[at] or name == "expand"))
        elif not expanded[at]:
            _write(lib, t, _WRITES[kind % len(_WRITES)])
        seen.append([p._version for p in pool])
    return seen


_STEP = st.tuples(st.booleans(), st.integers(0, 20), st.integers(0, 20))


@settings(max_examples=150, deadline=None)
@given(base=st.sampled_from(_BASES), steps=st.lists(_STEP, max_size=14))
def test_versions_after_random_writes_and_views_match_torch(base: str, steps: list) -> None:
    assert _versions(strided, base, steps) == _versions(torch, base, steps)


@settings(max_examples=40, deadline=None)
@given(base=st.sampled_from(_BASES), steps=st.lists(_STEP, max_size=10), mode=st.sampled_from(["no_grad", "inference"]))
def test_versions_under_no_grad_and_inference_mode_match_torch(base: str, steps: list, mode: str) -> None:
    """Normal tensors written inside no_grad / inference_mode count as anywhere else."""
    def run(lib):
        with (lib.no_grad() if mode == "no_grad" else lib.inference_mode()):
            return _versions_of_normal(lib, base, steps)

    assert run(strided) == run(torch)


def _versions_of_normal(lib, base: str, steps: list) -> list:
    return _versions(lib, base, steps) if not lib.is_inference_mode_enabled() else _outside(lib, base, steps)


def _outside(lib, base: str, steps: list) -> list:
    """Inside inference_mode: the pool's base made outside it (a normal tensor), then the steps."""
    with lib.inference_mode(False):
        first = _base(lib, base)
    pool, seen = [first], []
    for is_view, which, kind in steps:
        t = pool[which % len(pool)]
        if is_view:
            name = _VIEWS[kind % len(_VIEWS)]
            if name in ("slice", "t", "detach", "unsqueeze", "step"):  # (views: normal tensors still)
                v = _view(lib, t, name)
                if v is not None:
                    pool.append(v)
        else:
            _write(lib, t, _WRITES[kind % len(_WRITES)])
        seen.append([p._version for p in pool])
    return seen


# ---------------------------------------------------------------- the first op of a process

_FRESH = textwrap.dedent("""
    import sys
    lib = __import__(sys.argv[1])
    kind = sys.argv[2]
    x = lib.ones(3)
    if kind == "add_":
        x.add_(1.0)
    elif kind == "setitem":
        x[0] = 2.0
    elif kind == "copy_":
        x.copy_(lib.zeros(3))
    elif kind == "out":
        lib.mul(x, 2.0, out=x)
    elif kind == "uniform_":
        x.uniform_()
    elif kind == "fill_":
        x.fill_(1.0)
    elif kind == "view":
        x[1:].mul_(2.0)
    elif kind == "optim":
        p = lib.nn.Parameter(lib.ones(3))
        p.grad = lib.ones(3)
        opt = lib.optim.Adam([p])
        opt.step()
        x = p
    print(x._version)
""")


@pytest.mark.parametrize("kind", ["add_", "setitem", "copy_", "out", "uniform_", "fill_", "view", "optim"])
def test_the_first_write_of_a_process_counts(kind: str) -> None:
    """Nothing has required grad, nothing read a version before: the write still counts."""
    def fresh(lib: str) -> str:
        done = subprocess.run([sys.executable, "-c", _FRESH, lib, kind], capture_output=True, text=True, check=True)
        return done.stdout.strip()

    assert fresh("strided") == fresh("torch")


# ---------------------------------------------------------------- cases named one by one


def test_sharing_cases_match_torch() -> None:
    def run(lib) -> list:
        out = []
        x = lib.ones(4)
        x.add_(1)
        d, data, c = x.detach(), x.data, x.clone()
        d.add_(1)
        data.add_(1)
        c.add_(1)
        out += [x._version, d._version, data._version, c._version]
        arr = np.ones(3, dtype=np.float32)
        a, b = lib.from_numpy(arr), lib.from_numpy(arr)
        a.add_(1)
        out += [a._version, b._version]
        v = x[1:]
        src = lib.zeros(2)
        v.set_(src)  # (v keeps the counter it shared with x; src keeps its own)
        v.add_(1)
        out += [x._version, v._version, src._version]
        x.set_()
        out.append(x._version)
        return out

    assert run(strided) == run(torch)


def test_an_inference_tensor_has_no_version() -> None:
    with strided.inference_mode():
        t = strided.ones(2)
        t.add_(1)
    with torch.inference_mode():
        u = torch.ones(2)
        u.add_(1)
    with pytest.raises(RuntimeError) as ours:
        _ = t._version
    with pytest.raises(RuntimeError) as theirs:
        _ = u._version
    assert str(ours.value).splitlines()[0] == str(theirs.value)


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop"])
def test_optimizer_steps_count_as_torchs(name: str) -> None:
    def run(lib) -> list:
        p = lib.nn.Parameter(lib.tensor([1.0, -2.0, 3.0]))
        kw = {"lr": 0.1, "momentum": 0.9} if name == "SGD" else {"lr": 0.1}
        opt = getattr(lib.optim, name)([p], **kw)
        for _ in range(3):
            opt.zero_grad()
            (p * p).sum().backward()
            opt.step()
        state = opt.state[p]
        return [p._version] + [(k, state[k]._version) for k in sorted(state) if hasattr(state[k], "_version")]

    assert run(strided) == run(torch)


def test_the_users_line_is_looked_up_only_for_a_saved_storage() -> None:
    """A write to a storage no live node saved counts without the walk for the user's line; one
    that a node saved (and has not freed by backward) remembers it for the error."""
    w = strided.ones(3, requires_grad=True)
    free = strided.ones(3)
    free.add_(1)  # (a storage's first write looks its line up: a node may hold it saved unwritten)
    free.add_(1)  # (no node holds it: no line, and the first one's forgotten)
    assert free._version == 2 and last_write(free) is None
    y = w.exp()
    z = y * y  # (saves y)
    with strided.no_grad():
        y.mul_(2); at = sys._getframe().f_lineno  # noqa: E702
    assert last_write(y) == ("mul_", f"{__file__}:{at}")
    with pytest.raises(RuntimeError, match="modified by an inplace operation") as info:
        z.sum().backward()
    assert f"the last write: mul_ at {__file__}:{at}" in str(info.value)
    # after a backward frees the saving node, writes stop looking their line up
    q = w * w  # (saves w)
    q.sum().backward()
    with strided.no_grad():
        w.add_(1)
        w.add_(1)
    assert w._version == 2 and last_write(w) is None


def test_a_saved_unwritten_storage_written_twice_names_the_last_write_or_none() -> None:
    """A node saved a never-written storage (no record to watch: none is made per save); the
    error names the last write's line, or none, never an older write's."""
    w = strided.ones(3, requires_grad=True)
    y = w.exp()
    z = y * y  # (saves y, never written)
    with strided.no_grad():
        y.mul_(2)
        y.add_(1); at = sys._getframe().f_lineno  # noqa: E702
    with pytest.raises(RuntimeError, match="modified by an inplace operation") as info:
        z.sum().backward()
    message = str(info.value)
    assert f"the last write: add_ at {__file__}:{at}" in message or "the last write" not in message
