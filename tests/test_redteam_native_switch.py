"""Red team (session 12): :func:`strided.kernels.native.disabled` is per thread *and per task*.

Its thread mirror (read by ``enabled_here``, ``active``, ``special``, ``rand``, ``takes``, so that
a block reaches kernels called from inside a prebuilt NumPy context) was one count per thread:
an asyncio task suspended at an ``await`` inside the block turned the compiled kernels off for
every other task of its event loop (they share the thread), where the context variable alone
leaves them on. The mirror now counts per task. These checks need no compiled kernel: they
read the switch itself (``enabled_here``) and, where a kernel is built, the accessors.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading

from strided.kernels import native


def _switch() -> tuple[bool, ...]:
    """What every accessor says here: the switch, and whether each kernel is handed out."""
    return (native.enabled_here(), native.active() == (native.kernel() is not None),
            (native.special() is not None) == (native._special is not None),
            (native.rand() is not None) == (native._rand is not None))


def _prebuilt(fn):  # type: ignore[no-untyped-def]
    """``fn()`` inside a fresh context (as fpstate.quiet_call runs NumPy: every context variable
    at its default)."""
    return contextvars.Context().run(fn)


def test_a_block_in_one_task_leaves_other_tasks_on() -> None:
    native.special(), native.rand(), native.kernel()  # (loaded: the comparisons above are exact)
    seen: dict[str, object] = {}

    async def inside(entered: asyncio.Event, done: asyncio.Event) -> None:
        with native.disabled():
            entered.set()
            seen["inside"] = native.enabled_here()
            seen["inside, prebuilt context"] = _prebuilt(native.enabled_here)
            await done.wait()
            seen["inside, after the await"] = _prebuilt(native.enabled_here)
        seen["inside task, after the block"] = _prebuilt(native.enabled_here)

    async def other(entered: asyncio.Event, done: asyncio.Event) -> None:
        await entered.wait()
        seen["other task"] = _switch()
        seen["other task, prebuilt context"] = _prebuilt(_switch)
        done.set()

    async def main() -> None:
        entered, done = asyncio.Event(), asyncio.Event()
        await asyncio.gather(inside(entered, done), other(entered, done))
        seen["main task after"] = native.enabled_here()

    asyncio.run(main())
    assert seen["inside"] is False
    assert seen["inside, prebuilt context"] is False  # (the mirror still reaches the prebuilt context)
    assert seen["inside, after the await"] is False
    assert seen["inside task, after the block"] is True
    assert seen["other task"] == (True, True, True, True)  # (was all False: the block leaked)
    assert seen["other task, prebuilt context"] == (True, True, True, True)
    assert seen["main task after"] is True
    assert native._open_blocks[0] == 0 and not getattr(native._disabled_in_thread, "depths", None)


def test_blocks_outside_tasks_threads_and_nesting() -> None:
    """Outside any task: the thread's block reaches a prebuilt context, other threads stay on,
    nested blocks count, and everything is back on after them (also after an error)."""
    other: list[bool] = []
    with native.disabled():
        assert _prebuilt(native.enabled_here) is False
        with native.disabled():
            assert _prebuilt(native.enabled_here) is False
        assert _prebuilt(native.enabled_here) is False
        t = threading.Thread(target=lambda: other.append(_prebuilt(native.enabled_here)))
        t.start()
        t.join()
    assert other == [True]
    assert native.enabled_here() and _prebuilt(native.enabled_here)
    try:
        with native.disabled():
            raise KeyError
    except KeyError:
        pass
    assert native.enabled_here() and _prebuilt(native.enabled_here)
    assert native._open_blocks[0] == 0
