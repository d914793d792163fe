"""What ``import strided`` leaves behind for the interpreter's exit (issue 23).

The exit of ``python -c "import strided"`` costs ~45 ms where NumPy's costs ~0: measured (perf,
session 40) as the finalizer's full collections walking every object the import made (~75% of
the exit's samples in ``gc_collect_main``/``visit_reachable``/``visit_decref``), the rest their
deallocation. No atexit function, thread, or library destructor of strided's is in it. Checked
here, each in a fresh interpreter: the import registers no atexit function and starts no
thread (OS threads counted, not only Python's), and the exit still finalizes what the user left
in ``__main__`` (a cycle through its globals included), which a "fix" that froze the collector's
objects at import (``gc.freeze()`` without ``gc.unfreeze()``) would silently stop: the permanent
generation is never collected, not even at exit."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest


def _run(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_import_registers_no_exit_function() -> None:
    out = _run("""
        import atexit, numpy
        before = atexit._ncallbacks()
        import strided
        print(atexit._ncallbacks() - before)
    """)
    assert out.split() == ["0"]


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="counts the OS threads in /proc")
def test_the_import_starts_no_thread() -> None:
    # (NumPy's OpenBLAS starts its own threads when NumPy loads: counted before, not strided's)
    out = _run("""
        import os, sys, numpy
        before = len(os.listdir("/proc/self/task"))
        import strided
        print(len(os.listdir("/proc/self/task")) - before, "threading" in sys.modules)
    """)
    assert out.split() == ["0", "False"]


@pytest.mark.parametrize("made", ["before", "after"])
def test_the_exit_still_finalizes_the_users_globals(made: str) -> None:
    # An object of __main__'s globals dies with the module's dict, which functions defined there
    # keep in a cycle: only the exit's collection frees it and runs its __del__. Made before and
    # after the import (the import's objects are in the oldest generation, not frozen).
    code = f"""
        import gc

        class Noisy:
            def __del__(self):
                print("finalized", gc.get_freeze_count(), flush=True)

        def keeps_the_globals_in_a_cycle():
            return Noisy

        {"first = Noisy()" if made == "before" else ""}
        import strided
        {"first = Noisy()" if made == "after" else ""}
        kept = [strided.ones(2, 3).T, first]
    """
    assert _run(code).split() == ["finalized", "0"]


@pytest.mark.skipif(not os.path.isfile("/proc/self/maps"), reason="reads the mapped libraries in /proc")
def test_the_import_maps_no_math_library_with_threads_nor_torch() -> None:
    # (MKL/VML, OpenMP runtimes and libtorch start thread pools and run destructors at exit: the
    # routes that use them load them on their first call; strided's own kernels do not link them)
    out = _run("""
        import os, strided
        libs = {os.path.basename(line.split()[-1]) for line in open("/proc/self/maps") if ".so" in line}
        bad = ("mkl", "iomp", "gomp", "libtorch", "libc10", "_watchrec")
        print(sorted(lib for lib in libs if any(b in lib for b in bad)), "torch" in __import__("sys").modules)
    """)
    assert out.split() == ["[]", "False"]
