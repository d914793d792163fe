"""``strided.kernels.native.disabled()``: the compiled kernels off in this thread and context only,
also for code that runs inside a prebuilt context (``kernels.fpstate.quiet_call``), and on again
after the block."""

from __future__ import annotations

import threading

import pytest

from strided.kernels import fpstate, native

needs_kernels = pytest.mark.skipif(native.special() is None, reason="the compiled kernels are not built")


@needs_kernels
def test_a_block_in_one_thread_leaves_another_threads_kernels_on() -> None:
    inside, release = threading.Event(), threading.Event()
    seen: dict[str, object] = {}

    def blocked() -> None:
        with native.disabled():
            seen["inside"] = (native.special(), native.rand(), native.active(),
                              fpstate.quiet_call(native.special))  # (a prebuilt context too)
            inside.set()
            release.wait(5)

    worker = threading.Thread(target=blocked)
    worker.start()
    assert inside.wait(5)
    try:
        # (this thread, while the other's block is open)
        assert native.special() is not None and native.active() and fpstate.quiet_call(native.special) is not None
    finally:
        release.set()
        worker.join(5)
    assert seen["inside"] == (None, None, False, None)
    assert native.special() is not None and native.enabled_here()


@needs_kernels
def test_nested_blocks_and_errors_restore_the_kernels() -> None:
    with pytest.raises(KeyError):
        with native.disabled():
            with native.disabled():
                assert native.special() is None
            assert native.special() is None and not native.enabled_here()
            raise KeyError("inside")
    assert native.special() is not None and native.enabled_here() and native._open_blocks[0] == 0
