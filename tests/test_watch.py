"""strided.diagnose.watch: the steps, copies, broadcasts, reshape mappings, allocations and peak
of the strided ops run inside a ``with watch()`` block, on known programs and random chains."""

from __future__ import annotations

import asyncio
import os
import re
import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
from layout_strategies import specs
from strided.creation import borrow_array  # (any strides: from_numpy refuses negative ones, as PyTorch)
from strided.diagnose.flow import MemoryTally
from strided.diagnose.watch import Watch, watch
from strided.kernels.listeners import OPEN
from strided.layout import Layout, product
from view_oracle import new_shapes


def _rows(w):
    return [(s.name, s.kind, tuple(i.shape for i in s.inputs), s.output.shape if s.output else None,
             s.output.strides if s.output else None, s.bytes_copied, s.bytes_allocated) for s in w.steps]


# ---------------------------------------------------------------- steps


def test_steps_of_a_small_program_exactly():
    with watch() as w:
        x = st.arange(6, dtype=st.float64)       # alloc 48 bytes
        y = x.view(2, 3)                          # view
        z = y.t()                                 # view, strides (1, 3)
        c = z.reshape(6)                          # copy: (3, 2) with strides (1, 3) cannot merge
        s = (c * 2).sum()                         # compute, compute
    assert _rows(w) == [
        ("arange", "alloc", (), (6,), (1,), 0, 48),
        ("view", "view", ((6,),), (2, 3), (3, 1), 0, 0),
        ("t", "view", ((2, 3),), (3, 2), (1, 3), 0, 0),
        ("reshape", "copy", ((3, 2),), (6,), (1,), 48, 48),
        ("mul", "compute", ((6,),), (6,), (1,), 0, 48),
        ("sum", "compute", ((6,),), (), (), 0, 8),
    ]
    assert [s.index for s in w.steps] == list(range(6))
    assert all(s.output.dtype == "float64" for s in w.steps)
    assert s.item() == 2 * sum(range(6))
    # the user's line: this file, not strided's
    lines = {int(s.where.rsplit(":", 1)[1]) for s in w.steps}
    assert all(s.where.startswith(__file__) for s in w.steps) and len(lines) == 5


def test_creation_ops_are_steps_and_from_numpy_is_a_view_of_the_users_memory():
    base = st.zeros(2, 3, dtype=st.float64)
    a = np.arange(6.0).reshape(2, 3)
    with watch() as w:
        st.zeros(2, 3)
        st.ones(4, dtype=st.int64)
        st.empty(5, dtype=st.int8)
        st.full((2,), 7.0)
        st.arange(3)
        st.empty_like(base)
        st.zeros_like(base)
        st.ones_like(base, dtype=st.float32)
        st.full_like(base, 2)
        st.tensor([1, 2, 3])
        st.as_tensor(a)  # shares the array's memory, as torch.as_tensor
        st.as_tensor(base)  # already a tensor of its dtype: no op
        borrow_array(a[:, ::-1], "from_numpy")  # (strided's own wrap: from_numpy refuses negative strides)
    assert [(s.name, s.kind, s.bytes_allocated) for s in w.steps] == [
        ("zeros", "alloc", 24), ("ones", "alloc", 32), ("empty", "alloc", 5), ("full", "alloc", 8),
        ("arange", "alloc", 24), ("empty_like", "alloc", 48), ("zeros_like", "alloc", 48),
        ("ones_like", "alloc", 24), ("full_like", "alloc", 48),
        ("tensor", "copy", 24), ("as_tensor", "view", 0), ("from_numpy", "view", 0),
    ]
    assert [i.shape for i in w.steps[5].inputs] == [(2, 3)]
    assert w.steps[-1].output.strides == (3, -1)
    assert w.allocated_bytes == 24 + 32 + 5 + 8 + 24 + 48 + 48 + 24 + 48 + 24


def test_writes_and_in_place_ops_are_write_steps_that_allocate_nothing():
    x = st.zeros(2, 3)
    y = st.ones(3)
    with watch() as w:
        x.add_(y)
        x.copy_(y)
        x.fill_(2.0)
        x.zero_()
        x[0] = 5.0
        x.exp_()
    assert [(s.name, s.kind) for s in w.steps] == [
        ("add_", "write"), ("copy_", "write"), ("fill_", "write"), ("zero_", "write"),
        ("setitem", "write"), ("exp_", "write"),  # (one step: the view it writes through is its inside)
    ]
    assert w.allocated_bytes == 0 and w.peak_bytes == 0 and w.copies == []
    # add_ stretched its operand y along dim 0 of the target
    assert w.steps[0].broadcast.stretched == ((), (0,)) and not w.steps[0].broadcast.bilateral


def test_a_failed_op_adds_no_step():
    x = st.zeros(3, 4).t()
    with watch() as w, pytest.raises(st.StridedError):
        x.view(12)
    assert w.steps == []


# ---------------------------------------------------------------- copies


def test_copies_carry_their_reason_and_whether_the_user_asked():
    x = st.arange(12, dtype=st.float32).view(3, 4)
    with watch() as w:
        x.t().reshape(12)                # hidden behind reshape
        x.t().flatten()                  # hidden behind flatten
        x.t().contiguous()               # asked
        x.clone()                        # asked
        x.to(st.float64)                 # asked: a dtype conversion
        st.tensor([[1.0, 2.0]])          # asked: tensor(data) copies
        x.max(0)                         # a kernel's own copy (no tensor holds it)
    got = [(c.name, c.nbytes, c.asked, c.shape, c.dtype) for c in w.copies]
    assert got == [
        ("reshape", 48, False, (12,), "float32"),
        ("flatten", 48, False, (12,), "float32"),
        ("contiguous", 48, True, (4, 3), "float32"),
        ("clone", 48, True, (3, 4), "float32"),
        ("to", 96, True, (3, 4), "float64"),
        ("tensor", 8, True, (1, 2), "float32"),
        ("copy", 48, False, (4, 3), "float32"),
    ]
    reasons = [c.reason for c in w.copies]
    assert reasons[0].startswith("reshape(12): dims 0 and 1 cannot merge: stride[0] == size[1] * stride[1]")
    assert reasons[2:6] == ["contiguous() of (4, 3) strides (1, 4): dim 1 has stride 4, row-major needs 1",
                            "clone()", "to(float64)", "tensor(data)"]
    assert "argmax needs the reduced dim contiguous" in reasons[6]
    assert w.bytes_copied == 48 * 5 + 96 + 8
    internal = w.steps[w.copies[-1].step]
    assert internal.inputs == () and internal.output.strides == (3, 1) and internal.extra["asked"] is False


def test_bytes_copied_equals_the_record_copies_ledger_around_the_same_code():
    x = st.arange(24, dtype=st.float64).view(2, 3, 4)
    with st.record_copies() as ledger, watch() as w:
        x.permute(2, 0, 1).reshape(4, 6)
        x.transpose(0, 2).contiguous()
        x[:, ::2].flatten()
        x.clone().to(st.int32)
        x.max(1)
        st.tensor(np.ones((5, 5)))
        x.view(6, 4).mT.reshape(-1)
        x.reshape(24)  # a view: no copy
    assert len(ledger) == len(w.copies) == 7
    assert w.bytes_copied == sum(r.nbytes for r in ledger) > 0
    assert [c.reason for c in w.copies] == [r.reason for r in ledger]
    assert [c.nbytes for c in w.copies] == [r.nbytes for r in ledger]
    assert [c.where for c in w.copies] == [r.where for r in ledger]


# ---------------------------------------------------------------- broadcasts


def test_broadcasts_are_found_and_bilateral_ones_marked():
    col = st.zeros(3, 1)
    row = st.zeros(3)
    m = st.zeros(3, 4)
    with watch() as w:
        col - row              # (3, 1) - (3,): both stretched -> bilateral
        m + st.ones(4)         # (4,) stretched along dim 0
        m * 2                  # a number: not a broadcast
        m + m                  # same shapes: none
        st.where(m > 0, m, st.zeros(1))
        m.exp()
        m.sum(0) + m[0]        # (4,) + (4,): none
    b = w.broadcasts
    assert [(x.name, x.shapes, x.result, x.stretched, x.bilateral) for x in b] == [
        ("sub", ((3, 1), (3,)), (3, 3), ((1,), (0,)), True),
        ("add", ((3, 4), (4,)), (3, 4), ((), (0,)), False),
        ("where", ((3, 4), (3, 4), (1,)), (3, 4), ((), (), (0, 1)), False),
    ]
    assert [x.step for x in b] == [0, 2, 7]
    assert w.steps[0].marks == "bilateral" and w.steps[2].marks == ""


@settings(max_examples=150, deadline=None)
@given(hs.lists(hs.integers(1, 3), min_size=0, max_size=3), hs.data())
def test_broadcast_marks_agree_with_numpy(result, data):
    def operand():
        n = data.draw(hs.integers(0, len(result)))
        return tuple(data.draw(hs.sampled_from([1, r])) for r in result[len(result) - n:])

    a_shape, b_shape = operand(), operand()
    a, b = st.zeros(a_shape), st.zeros(b_shape)
    with watch() as w:
        out = a + b
    full = np.broadcast_shapes(a_shape, b_shape)
    assert out.shape == full

    def stretched(shape):  # independent: a non-0-d operand whose padded shape is not the result's
        return bool(shape) and (1,) * (len(full) - len(shape)) + shape != full

    n_stretched = stretched(a_shape) + stretched(b_shape)
    assert len(w.broadcasts) == (n_stretched > 0)
    if n_stretched:
        assert w.broadcasts[0].bilateral == (n_stretched == 2)


# ---------------------------------------------------------------- reshape mappings


def test_the_head_split_view_where_a_permute_was_meant_is_a_regrouping():
    B, T, h, d = 2, 5, 3, 4
    q = st.zeros(B, T, h * d)
    with watch() as w:
        wrong = q.view(B, h, T, d)                          # legal, scrambles the heads
        right = q.view(B, T, h, d).transpose(1, 2)          # the correct head split
        merged = right.transpose(1, 2).reshape(B, T, h * d)  # the merge back (a copy-free view here)
        flat = q.flatten(1)
        back = flat.unflatten(1, (T, h * d))
    assert wrong.shape == right.shape == (B, h, T, d) and merged.shape == q.shape and back.shape == q.shape
    kinds = [(s.name, s.mapping.kind if s.mapping else None) for s in w.steps]
    assert kinds == [("view", "regroup"), ("view", "split"), ("transpose", None), ("transpose", None),
                     ("reshape", "merge"), ("flatten", "merge"), ("unflatten", "split")]
    assert [s.index for s in w.regroups] == [0]
    assert w.regroups[0].mapping.regroups[0].inputs == (1, 2)
    assert w.regroups[0].mapping.regroups[0].outputs == (1, 2, 3)
    assert [s.marks for s in w.steps] == ["regroups", "", "", "", "", "", ""]
    table = str(w)
    assert "regroups input dims 1, 2 (5, 12) into output dims 1, 2, 3 (3, 5, 4)" in table
    assert "1 regrouping reshapes" in table


def test_a_regrouping_reshape_that_copies_is_marked_twice():
    x = st.zeros(4, 6).t()  # (6, 4), not contiguous
    with watch() as w:
        x.reshape(4, 6)
    (s,) = w.steps
    assert s.kind == "copy" and s.regroups and s.marks == "COPY regroups"


def _mapping_kind_from_elements(old, new):
    """Independent: which input dims each output dim moves through, read off the element indices
    (output dim j touches input dim i if stepping along j changes i's coordinate somewhere); the
    dims connected through these contacts form groups, and a group with two or more dims on both
    sides is a regrouping."""
    if 0 in old or 0 in new:
        return "empty"
    coords = np.unravel_index(np.arange(product(old)), old) if old else ()
    edges = set()
    for i, c in enumerate(coords):
        c = c.reshape(new)
        for j in range(len(new)):
            if new[j] > 1 and np.any(np.diff(c, axis=j) != 0):
                edges.add((i, j))
    parent = {("i", i): ("i", i) for i, _ in edges} | {("o", j): ("o", j) for _, j in edges}

    def root(n):
        while parent[n] != n:
            n = parent[n]
        return n

    for i, j in edges:
        parent[root(("i", i))] = root(("o", j))
    groups: dict = {}
    for n in parent:
        groups.setdefault(root(n), []).append(n)
    kinds = set()
    for members in groups.values():
        ins = sum(1 for side, _ in members if side == "i")
        outs = len(members) - ins
        if ins > 1 and outs > 1:
            return "regroup"
        if ins > 1:
            kinds.add("merge")
        elif outs > 1:
            kinds.add("split")
    return "+".join(k for k in ("split", "merge") if k in kinds) or "same"


@settings(max_examples=150, deadline=None)
@given(specs(max_dims=4, max_size=4), hs.data())
def test_random_view_and_reshape_chains_are_recorded_step_for_step(spec, data):
    x = st.arange(spec.storage_size)._view(Layout(spec.shape, spec.strides, spec.offset))
    ops = []
    for _ in range(data.draw(hs.integers(1, 4))):
        op = data.draw(hs.sampled_from(["reshape", "view", "flatten", "permute", "t_or_T"]))
        ops.append(op)
    with watch() as w:
        ran = []
        for op in ops:
            before = x
            try:
                if op in ("reshape", "view"):
                    x = getattr(x, op)(data.draw(new_shapes(x.shape)))
                elif op == "flatten":
                    x = x.flatten()
                elif op == "permute":
                    x = x.permute(*data.draw(hs.permutations(range(x.ndim))))
                else:
                    op = "transpose"
                    if x.ndim < 2:
                        continue
                    x = x.transpose(0, x.ndim - 1)
            except (st.StridedError, TypeError, ValueError, IndexError, RuntimeError):
                continue
            if x is before:
                continue  # the op handed back its input (flatten of 1-d): PyTorch's, and no step
            copied = x._storage is not before._storage
            ran.append((op, before.shape, x.shape, x.stride(), copied))
    assert [(s.name, s.inputs[0].shape, s.output.shape, s.output.strides, s.kind == "copy") for s in w.steps] == ran
    for s in w.steps:
        if s.name in ("reshape", "view", "flatten"):
            assert s.mapping.kind == _mapping_kind_from_elements(s.inputs[0].shape, s.output.shape)
            assert s.regroups == (s.mapping.kind == "regroup")
        else:
            assert s.mapping is None
        assert s.bytes_copied == (product(s.output.shape) * 8 if s.kind == "copy" else 0)


# ---------------------------------------------------------------- allocated and peak


def test_pairwise_distance_peaks_above_its_intermediate():
    rng = np.random.default_rng(0)
    a = st.tensor(rng.random((2000, 2)))
    b = st.tensor(rng.random((2000, 2)))
    with watch() as w:
        d = ((a[:, None] - b[None]) ** 2).sum(-1)
    assert d.shape == (2000, 2000)
    # sub: (2000, 2000, 2) float64 = 64,000,000 bytes; pow: another 64,000,000 while the sub's
    # result is still its input (128,000,000 alive: the peak); sum: 32,000,000 while pow's result
    # is alive (96,000,000), the sub's gone.
    assert [(s.name, s.bytes_allocated) for s in w.steps] == [
        ("__getitem__", 0), ("__getitem__", 0), ("sub", 64_000_000), ("pow", 64_000_000), ("sum", 32_000_000),
    ]
    assert w.allocated_bytes == 160_000_000
    assert w.peak_bytes == 128_000_000
    assert w.memory.alive_bytes == 32_000_000  # only the result is left
    assert w.broadcasts[0].bilateral
    del d
    assert w.memory.alive_bytes == 0


def test_pairwise_distance_with_its_inputs_made_inside_the_block():
    rng = np.random.default_rng(0)
    with watch() as w:
        a = st.tensor(rng.random((2000, 2)))   # a copy of the NumPy data: 32,000 bytes
        b = st.tensor(rng.random((2000, 2)))
        d = ((a[:, None] - b[None]) ** 2).sum(-1)
    assert [s.name for s in w.steps] == ["tensor", "tensor", "__getitem__", "__getitem__", "sub", "pow", "sum"]
    assert w.bytes_copied == 64_000 and all(c.asked for c in w.copies)
    assert w.allocated_bytes == 160_064_000 and w.peak_bytes == 128_064_000
    assert np.allclose(d.numpy()[3, 5], ((a.numpy()[3] - b.numpy()[5]) ** 2).sum())


def test_inputs_made_inside_the_block_count_and_freed_storages_stop_counting():
    with watch() as w:
        x = st.zeros(1000, dtype=st.float64)   # 8,000
        v = x[::2].view(-1)                    # views: nothing
        del x                                   # v still holds the storage
        y = st.zeros(500, dtype=st.float64)    # 4,000 -> 12,000 alive
        del v                                   # the 8,000 go
        z = st.ones(250, dtype=st.float64)     # 2,000 -> 6,000 alive
    assert w.allocated_bytes == 14_000 and w.peak_bytes == 12_000 and w.memory.alive_bytes == 6_000
    del y, z
    assert w.memory.alive_bytes == 0


def test_views_writes_and_borrowed_memory_allocate_nothing():
    x = st.zeros(4, 4)
    a = np.zeros((3, 3))
    with watch() as w:
        x.t().unsqueeze(0).expand(2, 4, 4)[0].diagonal()
        x.add_(1).mul_(2)
        x[1:, ::2] = 3.0
        st.from_numpy(a)
        x.contiguous()   # already contiguous: returns x, reports nothing
    assert w.allocated_bytes == 0 and w.peak_bytes == 0


def test_a_kernels_own_copy_is_alive_while_its_op_runs():
    x = st.arange(12, dtype=st.float32).view(3, 4)
    with watch() as w:
        m = x.max(0)        # copies x.T (48 bytes) for NumPy's argmax, then values 16 + indices 32
    assert [(s.name, s.kind, s.bytes_allocated) for s in w.steps] == [("copy", "copy", 48), ("max", "compute", 48)]
    assert w.allocated_bytes == 96 and w.peak_bytes == 96 and w.memory.alive_bytes == 48
    del m
    assert w.memory.alive_bytes == 0


def test_memory_tally_counts_each_owner_once_and_refuses_what_it_cannot_watch():
    class Owner:
        pass

    tally = MemoryTally()
    o = Owner()
    assert tally.allocated(o, 10) and not tally.allocated(o, 10)
    assert not tally.allocated(3, 10)  # an int cannot be weakly referenced: not counted
    tally.transient(5)
    assert (tally.allocated_bytes, tally.alive_bytes, tally.peak_bytes) == (15, 15, 15)
    tally.released(5)
    del o
    assert (tally.allocated_bytes, tally.alive_bytes, tally.peak_bytes) == (15, 0, 15)


# ---------------------------------------------------------------- blocks: nesting, threads, errors


def test_nested_watches_each_see_their_own_ops():
    x = st.zeros(2, 3)
    with watch() as outer:
        x.t()
        with watch() as inner:
            x.clone()
        x.sum()
    assert [s.name for s in outer.steps] == ["t", "clone", "sum"]
    assert [s.name for s in inner.steps] == ["clone"]
    assert inner.bytes_copied == outer.bytes_copied == 24 and OPEN == []
    # each tallies what it saw made: the clone (24) in both, the sum (4) in the outer one only
    assert (inner.allocated_bytes, outer.allocated_bytes) == (24, 28)


def test_a_watch_belongs_to_its_thread():
    x = st.zeros(2, 3)
    seen = {}
    ready = threading.Barrier(2)

    def work(name, op):
        with watch() as w:
            ready.wait()
            for _ in range(20):
                op()
        seen[name] = w

    threads = [threading.Thread(target=work, args=("t", lambda: x.t())),
               threading.Thread(target=work, args=("clone", lambda: x.clone()))]
    with watch() as main:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert [s.name for s in seen["t"].steps] == ["t"] * 20
    assert [s.name for s in seen["clone"].steps] == ["clone"] * 20
    assert main.steps == [] and OPEN == []


def test_a_watch_in_another_thread_costs_this_thread_no_stack_walk(monkeypatch):
    """With a block open elsewhere (OPEN is true) an op here must not look for its caller's name
    or render a copy's reason: that is the price of a listener, and there is none here."""
    from strided import dispatch

    def walked():
        raise AssertionError("the stack was walked with no listener in this thread")

    x = st.zeros(3, 4)
    opened, done = threading.Event(), threading.Event()

    def hold():
        with watch():
            opened.set()
            done.wait()

    t = threading.Thread(target=hold)
    t.start()
    opened.wait()
    try:
        monkeypatch.setattr(dispatch, "_caller_method", walked)
        assert OPEN
        x.t().reshape(12)  # a view, then a copy
        x.t().contiguous()
        x.max(0)           # a kernel's own copy
        x + x
        st.zeros(2)
    finally:
        done.set()
        t.join()
    assert OPEN == []


def test_importing_the_watch_does_not_import_torch():
    import subprocess
    import sys

    src = os.path.dirname(os.path.dirname(st.__file__))  # this checkout's strided, not an installed one
    code = "import sys, strided.diagnose.watch; assert 'torch' not in sys.modules, 'torch imported'"
    subprocess.run([sys.executable, "-c", code], check=True, env={**os.environ, "PYTHONPATH": src})


def test_a_watch_belongs_to_its_asyncio_task():
    x = st.zeros(2, 3)

    async def work(op):
        with watch() as w:
            for _ in range(5):
                op()
                await asyncio.sleep(0)
        return w

    async def both():
        return await asyncio.gather(work(lambda: x.t()), work(lambda: x.exp()))

    w1, w2 = asyncio.run(both())
    assert [s.name for s in w1.steps] == ["t"] * 5 and [s.name for s in w2.steps] == ["exp"] * 5


def test_an_exception_closes_the_watch_and_keeps_what_it_recorded():
    x = st.zeros(2, 3)
    with pytest.raises(KeyError), watch() as w:
        x.t()
        x.clone()
        raise KeyError("boom")
    assert [s.name for s in w.steps] == ["t", "clone"] and OPEN == []
    x.exp()
    assert len(w.steps) == 2


def test_a_watch_is_entered_once():
    w = watch()
    with w:
        pass
    with pytest.raises(ValueError, match=r"already entered.*open a new one .*strided\.watch\(\)"):
        with w:
            pass
    inner = Watch()
    with inner, pytest.raises(ValueError, match="already entered"):
        with inner:
            pass
    assert OPEN == []


# ---------------------------------------------------------------- the table


def _program():
    q = st.zeros(2, 5, 12)
    heads = q.view(2, 3, 5, 4)
    col = st.zeros(3, 1)
    d = col - st.zeros(3)
    flat = q.transpose(1, 2).reshape(2, 60)
    return heads, d, flat


def test_the_table_snapshot():
    with watch() as w:
        _program()
    # (the step table moved to w.table() when print(w) got its summary; copy rows now carry
    # their category and reason)
    text = re.sub(r"test_watch\.py:\d+", "test_watch.py:N", w.table())
    assert text == """\
watch: 7 steps
#  op         kind     inputs       output        strides         bytes  marks      where
0  zeros      alloc    -            (2, 5, 12)    (60, 12, 1)     480               test_watch.py:N
1  view       view     (2, 5, 12)   (2, 3, 5, 4)  (60, 20, 4, 1)         regroups   test_watch.py:N
2  zeros      alloc    -            (3, 1)        (1, 1)          12                test_watch.py:N
3  zeros      alloc    -            (3,)          (1,)            12                test_watch.py:N
4  sub        compute  (3, 1) (3,)  (3, 3)        (3, 1)          36     bilateral  test_watch.py:N
5  transpose  view     (2, 5, 12)   (2, 12, 5)    (60, 1, 12)                       test_watch.py:N
6  reshape    copy     (2, 12, 5)   (2, 60)       (60, 1)         480    COPY       test_watch.py:N
      layout copy: reshape(2, 60): dims 1 and 2 cannot merge: stride[1] == size[2] * stride[2] = 5 * 12 = 60, but stride[1] is 1
total: 1 copies, 480 bytes copied; 1,020 bytes allocated, peak 1,008; 1 bilateral broadcasts; 1 regrouping reshapes
  step 1 at test_watch.py:N: view regroups input dims 1, 2 (5, 12) into output dims 1, 2, 3 (3, 5, 4)
  step 4 at test_watch.py:N: bilateral broadcast: sub((3, 1), (3,)) -> (3, 3); stretched: (3, 1) along dims (1,) and (3,) along dims (0,)"""


def test_an_empty_watch_prints_a_table_with_no_rows():
    with watch() as w:
        pass
    assert w.table().splitlines()[0] == "watch: 0 steps"
    assert w.table().splitlines()[-1].startswith("total: 0 copies, 0 bytes copied; 0 bytes allocated, peak 0")
    assert w.summary() == [] and str(w).splitlines()[0].startswith("watch: 0 steps;")
    assert "nothing: no copies" in str(w)
