"""Hostile tests of session 39's new paths (hyp39's sinh / cosh / atanh / log2, atan39, pow39, conv39,
misc39, wt39): each pins PyTorch 2.13's bits, strides, errors or copies on an input the branches'
own tests did not try."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided


def _same(got: strided.Tensor, want: torch.Tensor) -> None:
    """dtype, shape, strides and every bit (NaN words included) equal."""
    g, w = got.detach().numpy(), want.detach().numpy()
    assert g.dtype == w.dtype and g.shape == w.shape
    assert tuple(got.stride()) == tuple(want.stride())
    g, w = np.ascontiguousarray(g), np.ascontiguousarray(w)
    if g.dtype.kind == "f" and g.itemsize >= 4:
        g, w = g.view(f"u{g.itemsize}"), w.view(f"u{w.itemsize}")
    assert np.array_equal(g, w, equal_nan=g.dtype.kind in "fc"), (g.ravel()[:4], w.ravel()[:4])


# ---------------------------------------------------------------- hyp39: promoted integer inputs

_INT_VIEWS = {
    "expanded_rows": lambda a: a[:40].reshape(1, 40).expand(3, 40),
    "expanded_4d_permuted_sliced": lambda a: a[:40].reshape(1, 40, 1, 1).expand(2, 40, 3, 3).permute(0, 2, 3, 1)[..., ::2],
    "sliced_transposed": lambda a: a[:3600].reshape(60, 60)[3:50, 5:41].t(),
    "expanded_columns": lambda a: a[:40].reshape(40, 1).expand(40, 3),
    "permuted": lambda a: a[:3840].reshape(8, 16, 30).permute(2, 0, 1),
    "expanded_middle_sliced": lambda a: a[:600].reshape(20, 1, 30)[:, :, ::3].expand(20, 4, 10),
    "expanded_transposed": lambda a: a[:40].reshape(1, 40).expand(3, 40).t(),
    "size_one_dims": lambda a: a[:80].reshape(1, 8, 1, 10)[:, ::2],
}


@pytest.mark.parametrize("dt", [np.int32, np.int64, np.uint8])
@pytest.mark.parametrize("view", list(_INT_VIEWS))
@pytest.mark.parametrize("name", ["sinh", "cosh", "atanh", "log2"])
def test_integer_input_layouts(name: str, view: str, dt: type) -> None:
    """An integer input is cast to float32 first in the layout of PyTorch's temporary (Tensor.to's
    preserve_format: infer_dense_strides for a non-dense input), which decides which elements take
    SLEEF's vectorized function: NumPy's astype of an expanded input (column-major) sent every
    element through the scalar one (a 1-ulp sinh/cosh difference, atanh's NaN sign)."""
    rng = np.random.default_rng(3)
    x = rng.integers(0 if dt == np.uint8 else -2, 60, 4000).astype(dt)
    v = _INT_VIEWS[view]
    _same(getattr(v(strided.from_numpy(x)), name)(), getattr(v(torch.from_numpy(x)), name)())


@pytest.mark.usefixtures("torch_threads_as_assumed")
@pytest.mark.parametrize("name", ["sinh", "cosh", "atanh"])
def test_integer_expanded_past_grain(name: str) -> None:
    x = np.random.default_rng(4).integers(-2, 60, 40_000).astype(np.int32)
    _same(getattr(strided.from_numpy(x).reshape(1, -1).expand(3, -1), name)(),
          getattr(torch.from_numpy(x).reshape(1, -1).expand(3, -1), name)())


# ---------------------------------------------------------------- wt39: the compiled recorders


def _wt_programs() -> dict:
    """Programs for watch_torch's compiled recorders (``_watchrec.call`` / ``record`` / the tally's
    collector) against the Python ones: exceptions other than RuntimeError from inside a watched
    call, a tensor born in the block and dying in another thread, storages freed inside, views
    outliving their base, a worker thread's ops (not the block's), in-place resize."""
    import threading

    def value_error_inside() -> None:
        x = torch.ones(3, 4)

        class Boom:
            def __call__(self, t: torch.Tensor) -> torch.Tensor:
                t.t().contiguous()
                raise ValueError("boom")

        try:
            torch.overrides.handle_torch_function(Boom(), (x,), x)
        except ValueError:
            pass
        (x * 2).t().reshape(12)

    def storages() -> None:
        a = torch.randn(64, 32)
        v = a.t()[::2]
        del a
        w = v.contiguous()
        b = torch.empty(10)
        b.resize_(1000)
        b.fill_(1.0)
        del w, b
        c = [torch.ones(100) * i for i in range(5)]
        c.reverse()
        del c

    def threads() -> None:
        x = torch.ones(50, 40)
        keep: list = []

        def worker() -> None:
            y = torch.ones(8, 8).t().contiguous()
            keep.append(y)

        t = threading.Thread(target=worker)
        t.start()
        x.t().contiguous()
        t.join()
        z = x * 3
        died = threading.Thread(target=keep.append, args=(z,))
        died.start()
        died.join()
        del z
        keep.clear()

    return {"value_error": value_error_inside, "storages": storages, "threads": threads}


@pytest.mark.parametrize("name", ["value_error", "storages", "threads"])
def test_watch_compiled_recorders_keep_what_python_keeps(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from strided.diagnose import watch_torch as wt

    if wt._native_record() is None:
        pytest.skip("the _watchrec extension is not built")
    from test_wt39 import both
    from test_wtc36 import assert_same

    fast, slow, _ = both(_wt_programs()[name], monkeypatch)
    assert_same(fast, slow)


def test_watch_block_left_by_an_exception(monkeypatch: pytest.MonkeyPatch) -> None:
    """A block left by an exception raised in a watched call: the same records with the compiled
    recorders and the Python ones, the torch function-mode stack as before, later ops unwatched."""
    from strided.diagnose import watch_torch as wt
    from strided.diagnose.watch_torch import watch_torch
    from test_wtc36 import everything

    depth = torch._C._len_torch_function_stack()
    kept: dict = {}
    for native in (True, False):
        monkeypatch.setattr(wt, "_NATIVE_RECORD", [native])
        x = torch.ones(6, 5)
        with pytest.raises(RuntimeError), watch_torch() as w:
            y = x.t().contiguous()
            x.view(7)
        assert torch._C._len_torch_function_stack() == depth
        before = everything(w)
        del y
        x.t().contiguous()
        after = everything(w)
        # (no op recorded after the block; the tally still sees its tensors die, as on main and
        # after a block left normally)
        assert before["steps"] == after["steps"] and before["records"] == after["records"]
        assert after["memory"][1] == 0 and before["memory"][1] == 120
        kept[native] = after
    assert kept[True]["steps"] == kept[False]["steps"]
    assert kept[True]["memory"] == kept[False]["memory"]
    assert kept[True]["calls"] == kept[False]["calls"]


# ---------------------------------------------------------------- misc39 / conv39: layouts


@pytest.mark.parametrize("src", ["float32", "float64", "int32", "int64"])
@pytest.mark.parametrize("dst", ["float32", "float64", "int32", "int64"])
@pytest.mark.parametrize("case", range(6))
def test_to_of_offset_and_sliced_permutations(src: str, dst: str, case: int) -> None:
    """to(dtype) of a permuted view at a storage offset, sliced or with size-1 / size-0 dims:
    PyTorch's strides, offset 0, values, and self returned only for the same dtype."""
    shape, perm, off, cut = [((3, 4, 5), (2, 0, 1), 1, False), ((3, 1, 5), (1, 2, 0), 2, False),
                             ((4, 6), (1, 0), 1, True), ((2, 0, 3), (2, 1, 0), 0, False),
                             ((1, 1, 4), (2, 1, 0), 1, False), ((5, 3, 2, 2), (3, 1, 0, 2), 2, True)][case]
    n = int(np.prod(shape))
    a = np.trunc(np.random.default_rng(case).standard_normal(n + off) * 100).astype(src)
    x = strided.from_numpy(a.copy())[off:].reshape(shape).permute(*perm)
    t = torch.from_numpy(a.copy())[off:].reshape(shape).permute(*perm)
    if cut:
        x, t = x[1:], t[1:]
    got, want = x.to(getattr(strided, dst)), t.to(getattr(torch, dst))
    assert got.stride() == want.stride() and got.storage_offset() == want.storage_offset()
    assert (got is x) == (want is t)
    np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("dim", [0, 1])
@pytest.mark.parametrize("idx", [[0, 5, 5, 299, -1], [-301], [300], [3, 3, 3] * 100])
def test_index_select_large_permuted_errors_and_values(dim: int, idx: list) -> None:
    """The memory-order take (2^16+ result elements) and its bounds check: torch's error class for a
    negative or too large index, torch's values for repeated ones."""
    a = np.random.default_rng(2).standard_normal((300, 400)).astype(np.float32)
    i = np.array(idx, np.int64)
    try:
        want = torch.index_select(torch.from_numpy(a).t(), dim, torch.from_numpy(i))
    except (IndexError, RuntimeError) as e:
        with pytest.raises(type(e)):
            strided.index_select(strided.from_numpy(a).t(), dim, strided.from_numpy(i))
        return
    _same(strided.index_select(strided.from_numpy(a).t(), dim, strided.from_numpy(i)), want)


@pytest.mark.parametrize("geom", [(2, 2, 0, 1, False), (3, 1, 1, 1, False), (3, 2, 1, 2, True), (5, 3, 2, 1, True)])
@pytest.mark.parametrize("shape", [(8, 512, 64), (4, 1000, 33), (1, 4096, 8)])
def test_max_pool1d_of_transposed_input(shape: tuple, geom: tuple) -> None:
    """max_pool1d of a (N, L, C) batch seen as (N, C, L) (channels closest: the staged channels-last
    write), with NaN and signed zeros: torch's values, NaN words, indices and strides."""
    a = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    a.reshape(-1)[::5] = 0.0
    a.reshape(-1)[1::11] = -0.0
    a.reshape(-1)[7::997] = np.nan
    k, st, p, d, cm = geom
    got = strided.nn.functional.max_pool1d(strided.from_numpy(a).permute(0, 2, 1), k, st, p, d, cm, return_indices=True)
    want = torch.nn.functional.max_pool1d(torch.from_numpy(a).permute(0, 2, 1), k, st, p, d, cm, return_indices=True)
    _same(got[0], want[0])
    _same(got[1], want[1])
    _same(strided.nn.functional.max_pool1d(strided.from_numpy(a).permute(0, 2, 1), k, st, p, d, cm),
          torch.nn.functional.max_pool1d(torch.from_numpy(a).permute(0, 2, 1), k, st, p, d, cm))


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("name", ["sinh", "cosh", "atanh", "log2"])
def test_hyper_second_derivative_and_overlapping_out(name: str, dt: type) -> None:
    """The second derivative (create_graph: the backward's own sinh / cosh calls) with torch's bits;
    an out= overlapping its input refused with torch's error class (a RuntimeError)."""
    rng = np.random.default_rng(6)
    x = (rng.uniform(-0.9, 0.9, 37) if name == "atanh" else rng.uniform(0.1, 5, 37)).astype(dt)
    g = rng.standard_normal(37).astype(dt)
    sx, tx = strided.from_numpy(x.copy()).requires_grad_(), torch.from_numpy(x.copy()).requires_grad_()
    (sd,) = strided.autograd.grad(getattr(sx, name)(), sx, strided.from_numpy(g), create_graph=True)
    (td,) = torch.autograd.grad(getattr(tx, name)(), tx, torch.from_numpy(g), create_graph=True)
    _same(sd, td)
    _same(strided.autograd.grad(sd.sum(), sx)[0], torch.autograd.grad(td.sum(), tx)[0])
    a = strided.from_numpy(x.copy())
    with pytest.raises(RuntimeError):
        getattr(strided, name)(a[:-1], out=a[1:])
