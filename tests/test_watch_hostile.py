"""Hostile uses of ``strided.watch``: explain inside a watch, a watch entered inside itself,
failing ops, ledgers nested both ways, steps that must not keep tensors alive, huge shapes,
generators and threads — each pinned after trying to break it."""

from __future__ import annotations

import gc
import threading
import weakref

import numpy as np
import pytest

import strided as st
from strided.diagnose.explain import explain
from strided.diagnose.watch import watch
from strided.kernels.listeners import OPEN
from strided.kernels.memory import record_copies


def test_explain_inside_a_watch_adds_no_step_and_no_bytes():
    x = st.zeros(3, 4)
    t = x.t()
    column = st.zeros(3, 1)
    with watch() as w:
        for call in [("reshape", 12), ("view", 12), ("clone",), ("contiguous",), ("to", st.float64),
                     ("flatten",), ("add", (4,)), ("sub", column)]:
            explain(t, *call)
        explain(t)
        explain(np.zeros((3, 4)).T, "reshape", -1)
    assert w.steps == [] and w.bytes_copied == 0 and w.allocated_bytes == 0 and w.peak_bytes == 0


def test_a_watch_entered_inside_itself_refuses_and_keeps_recording():
    with watch() as w:
        st.zeros(2)
        with pytest.raises(ValueError, match="this watch was already entered"):
            with w:
                pass
        st.zeros(3)  # still recorded: the refused entry closed nothing
    assert [s.output.shape for s in w.steps] == [(2,), (3,)]
    assert OPEN == []


def test_ops_that_raise_inside_a_watch_leave_no_step_and_no_memory():
    x = st.zeros(10)
    failing = [lambda: x.view(3), lambda: x + st.ones(3).expand(2, 3), lambda: x.reshape(3),
               lambda: x @ x.view(2, 5), lambda: x.sum(5), lambda: x[20], lambda: x.t().view(3),
               lambda: x.expand(3, 4), lambda: x.permute(0, 0)]
    with watch() as w:
        for f in failing:
            with pytest.raises((RuntimeError, IndexError, ValueError, TypeError)):
                f()
    names = [s.name for s in w.steps]
    # only the successful sub-steps of the failing lines (ones/expand, view, t) are steps
    assert names == ["ones", "expand", "view", "t"]
    assert w.allocated_bytes == 12 and w.bytes_copied == 0 and w.memory.alive_bytes <= 12


def test_a_ledger_inside_a_watch_and_a_watch_inside_a_ledger_see_the_same_copies():
    a = st.zeros(30, 20)

    def program():
        a.t().reshape(-1)
        a.t().contiguous()
        a.t().clone()
        a.t().to(st.float64)

    with record_copies() as outer_ledger:
        with watch() as inner_watch:
            program()
    with watch() as outer_watch:
        with record_copies() as inner_ledger:
            program()
    for ledger, w in ((outer_ledger, inner_watch), (inner_ledger, outer_watch)):
        assert [c.nbytes for c in ledger] == [c.nbytes for c in w.copies] == [2400, 2400, 2400, 4800]
        assert [c.reason for c in ledger] == [c.reason for c in w.copies]
        assert sum(c.nbytes for c in ledger) == w.bytes_copied == 12000


def test_steps_do_not_keep_tensors_or_storages_alive():
    refs = []
    with watch() as w:
        for _ in range(50):
            t = st.zeros(1000)
            u = (t.view(10, 100).t().reshape(-1) + 1).sum()
            refs += [weakref.ref(t), weakref.ref(t._storage), weakref.ref(u)]
            del t, u
    gc.collect()
    assert all(r() is None for r in refs)
    assert len(w.steps) == 50 * 6 and w.memory.alive_bytes == 0
    # at the add: zeros, the reshape's copy and the sum's input alive at once (the copy, a
    # temporary, is gone before the sum runs)
    assert w.peak_bytes == 4000 * 3


def test_huge_expanded_shapes_are_recorded_without_memory():
    with watch() as w:
        h = st.zeros(1).expand(2**40, 2**20)
        flat = h.reshape(-1)
    assert [s.kind for s in w.steps] == ["alloc", "view", "view"]
    assert flat.shape == (2**60,) and w.allocated_bytes == 4 and w.bytes_copied == 0
    text = str(w)
    assert "(1099511627776, 1048576)" in text and "(1152921504606846976,)" in text


def test_a_closed_generator_closes_its_watch():
    def steps():
        with watch() as w:
            yield w
            st.zeros(2)

    gen = steps()
    w = next(gen)
    gen.close()  # GeneratorExit closes the block
    st.zeros(5)
    assert w.steps == [] and OPEN == []


def test_a_watch_inside_a_suspended_generator_sees_only_the_generators_ops():
    """A generator shares its caller's context (no PEP 568): the watch tells the caller's ops
    apart by whether the generator's frame is running."""
    def steps():
        with watch() as w:
            st.zeros(2)
            yield w
            st.zeros(3)

    gen = steps()
    w = next(gen)
    st.zeros(7)  # the caller's op, run while the generator is suspended
    next(gen, None)
    assert [s.output.shape for s in w.steps] == [(2,), (3,)]


def test_resize_growth_counts_the_new_buffer():
    with watch() as w:
        r = st.zeros(4)
        r.resize_(1000)
    # the zeros, then the grown buffer; both alive while the old elements were copied over
    assert w.allocated_bytes == 16 + 4000 and w.peak_bytes == 16 + 4000
    assert w.memory.alive_bytes == 4000
    assert [(s.name, s.kind, s.bytes_allocated) for s in w.steps] == [
        ("zeros", "alloc", 16), ("copy", "copy", 0), ("resize_", "alloc", 4000)]
    r.resize_(10)  # shrinking keeps the storage (outside the watch: nothing recorded)
    del r
    assert w.memory.alive_bytes == 0


def test_resize_growth_of_a_storage_made_before_the_watch():
    r = st.zeros(4)
    with watch() as w:
        r.resize_(8)
        r.resize_(2)  # a shrink allocates nothing and is no step
    assert w.allocated_bytes == 32 and w.memory.alive_bytes == 32
    assert [s.name for s in w.steps] == ["copy", "resize_"]


def test_threads_each_with_a_watch_see_only_their_own_ops_and_the_main_watch_none():
    counts = {}

    def work(n):
        with watch() as wt:
            for _ in range(50):
                st.zeros(n).view(n, 1)
        counts[n] = (len(wt.steps), wt.allocated_bytes)

    with watch() as main:
        threads = [threading.Thread(target=work, args=(n,)) for n in range(1, 9)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert counts == {n: (100, 50 * 4 * n) for n in range(1, 9)}
    assert main.steps == []


def test_a_watch_inside_a_running_generator_sees_ops_of_the_functions_it_calls():
    def helper():
        return st.ones(5).view(5, 1)

    def steps():
        with watch() as w:
            helper()
            yield w
            helper()

    gen = steps()
    w = next(gen)
    helper()  # the caller's: not recorded
    next(gen, None)
    assert [(s.name, s.output.shape) for s in w.steps] == [("ones", (5,)), ("view", (5, 1))] * 2
