"""``watch_torch``'s memory tally in C (``_watchrec``: ``MemoryTally.allocated`` inside the compiled
recorder, ``MemoryTally._collected`` as the C callback ``collector(tally)`` of each weak reference)
keeps exactly the tally of the Python methods: allocated, alive and peak bytes, the step of the
peak and the timeline, for storages made and freed in any order, freed after the block, freed in
another thread, in nested blocks and in a block that raises; a tally whose ``allocated`` was
replaced is called as before; many blocks leave no objects behind.
"""

from __future__ import annotations

import gc
import threading
from typing import Any

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from strided.diagnose import watch_torch as wt
from strided.diagnose.flow import MemoryTally, _KeyedRef
from strided.diagnose.watch_torch import watch_torch
from test_wtc36 import assert_same, both

pytestmark = pytest.mark.skipif(wt._native_collector() is None, reason="the _watchrec extension is not built")


def tally_of(w: wt.TorchWatch) -> tuple:
    m = w.memory
    return m.allocated_bytes, m.alive_bytes, m.peak_bytes, m.peak_step, list(m.timeline), len(m._seen)


def run_both(program: Any, monkeypatch: pytest.MonkeyPatch) -> tuple[tuple, tuple]:
    """The tally of ``program``'s block, compiled recorder (C tally) and Python recorder, read once
    every tensor the program made is gone (its ``program`` returns what it keeps alive till then)."""
    with watch_torch():
        program()  # (the ops' facts read once)
    got = {}
    for native in (True, False):
        monkeypatch.setattr(wt, "_NATIVE_RECORD", [native])
        with watch_torch() as w:
            kept = program()
        during = tally_of(w)
        del kept
        gc.collect()
        got[native] = (during, tally_of(w))
    return got[True], got[False]


EVENTS = st.lists(st.tuples(st.sampled_from(["new", "clone", "view", "free", "cat", "inplace"]),
                            st.integers(0, 5)), max_size=14)


@settings(max_examples=25, deadline=None)
@given(events=EVENTS)
def test_random_allocations_and_frees_same_tally(events: list[tuple[str, int]]) -> None:
    def program() -> list:
        alive: list = [torch.ones(3)]
        for what, n in events:
            pick = alive[n % len(alive)] if alive else torch.ones(2)
            if what == "new":
                alive.append(torch.ones(n + 1) * 2)  # (two storages: ones and the product)
            elif what == "clone":
                alive.append(pick.clone())
            elif what == "view":
                alive.append(pick.view(-1))
            elif what == "free" and alive:
                del alive[n % len(alive)]
            elif what == "cat":
                alive.append(torch.cat([pick, pick]))
            elif what == "inplace":
                pick.add_(1)
        return alive

    with pytest.MonkeyPatch.context() as mp:
        fast, slow = run_both(program, mp)
    assert fast == slow
    (allocated, alive, peak, _, timeline, _), after = fast
    assert allocated >= alive and peak >= alive and timeline
    assert after[1] == 0 and after[5] == 0  # (everything freed: nothing alive, nothing left to watch)


def test_gpt_records_and_tally_same(monkeypatch: pytest.MonkeyPatch) -> None:
    from test_wtc36 import gpt_program

    fast, slow, declined = both(gpt_program(), monkeypatch)
    assert_same(fast, slow)
    assert declined == 0 and fast["memory"][0] > 0 and len(fast["memory"][4]) > 100


def test_freed_in_another_thread_same_tally(monkeypatch: pytest.MonkeyPatch) -> None:
    def program() -> None:
        box = [torch.ones(100) + 1, torch.zeros(7) * 3]
        done = threading.Event()

        def free() -> None:
            box.clear()  # (the storages die in this thread: their callbacks run here)
            done.set()

        threading.Thread(target=free).start()
        done.wait()
        torch.ones(5).neg()

    fast, slow = run_both(program, monkeypatch)
    assert fast == slow
    assert fast[0][1] == 0 and fast[0][0] >= 4 * 107


def test_nested_blocks_and_a_raising_block_same_tally(monkeypatch: pytest.MonkeyPatch) -> None:
    got = {}
    for native in (True, False):
        monkeypatch.setattr(wt, "_NATIVE_RECORD", [native])
        keep = []
        with watch_torch() as outer:
            a = torch.ones(10) * 2
            with pytest.raises(ZeroDivisionError), watch_torch() as inner:
                b = a + 1
                keep.append(b.exp())
                del b
                1 / 0  # noqa: B018
            del a
        during = (tally_of(outer), tally_of(inner))
        keep.clear()
        got[native] = (during, tally_of(outer), tally_of(inner))
    assert got[True] == got[False]
    (outer_t, inner_t), outer_after, inner_after = got[True]
    assert inner_t[:3] == (80, 40, 80) and outer_t[0] == 40 + 80 + 40
    assert outer_after[1] == inner_after[1] == 0


def test_a_replaced_allocated_is_called(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    original = MemoryTally.allocated

    def counting(self: MemoryTally, owner: Any, nbytes: int) -> bool:
        calls.append(nbytes)
        return original(self, owner, nbytes)

    monkeypatch.setattr(MemoryTally, "allocated", counting)
    with watch_torch() as w:
        x = torch.ones(6) * 2
    assert calls == [24, 24] and w.memory.allocated_bytes == 48
    del x


def test_collector_is_the_python_callback() -> None:
    """``collector(tally)`` on the references of a tally does what ``tally._collected`` does."""
    from strided.diagnose._watchrec import collector

    class Owner:
        pass

    results = []
    for native in (True, False):
        tally = MemoryTally(iter(range(100)).__next__)
        owners = [Owner() for _ in range(4)]
        for i, o in enumerate(owners):
            tally.allocated(o, 10 * (i + 1))
        del o
        if native:  # (each reference's callback swapped for the C one)
            callback = collector(tally)
            for key, entry in list(tally._seen.items()):
                ref = _KeyedRef(entry[0](), callback)
                ref.key = key
                entry[0] = ref
        tally._seen[id(owners[1])][1] = 5  # (the bytes now, as ``resized`` leaves them; alive_bytes kept)
        del owners[1], owners[2]
        del owners[0]
        results.append((tally.allocated_bytes, tally.alive_bytes, tally.peak_bytes, tally.peak_step,
                        [(t - min(s for s, _ in tally.timeline), a) for t, a in tally.timeline], sorted(
                            e[1] for e in tally._seen.values())))
    assert results[0] == results[1]
    assert results[0][1] == 100 - 5 - 40 - 10 and results[0][5] == [30]
    assert [a for _, a in results[0][4]][-3:] == [95, 55, 45]


def test_many_blocks_leave_nothing_behind() -> None:
    def block() -> Any:
        with watch_torch() as w:
            y = (torch.ones(8) * 2).clone()
            del y
        return w

    import weakref

    for _ in range(5):
        block()
    gc.collect()
    before = len(gc.get_objects())
    refs_before = (sys_refcount(MemoryTally), sys_refcount(_KeyedRef))
    watches = [weakref.ref(block()) for _ in range(40)]
    gc.collect()
    assert all(r() is None for r in watches)  # (each watch, its tally and its callback collected)
    del watches  # (its weak references are objects of the collector's too)
    gc.collect()
    assert len(gc.get_objects()) <= before + 5
    assert (sys_refcount(MemoryTally), sys_refcount(_KeyedRef)) == refs_before


def sys_refcount(x: Any) -> int:
    import sys

    return sys.getrefcount(x)
