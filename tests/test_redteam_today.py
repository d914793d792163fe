"""Red-team findings on the day's fast paths and lazy loading (each a failing test first, then fixed)."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def _fresh(code: str) -> str:
    """Run ``code`` in a fresh interpreter (nothing lazy loaded yet); its stdout."""
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_array_api_first_use_from_several_threads_sees_every_name() -> None:
    # the namespace loads on first use; a second thread's lookup while the first one loads it
    # used to find the namespace half-made: AttributeError: ... has no attribute 'asarray'
    out = _fresh("""
        import threading, strided
        barrier = threading.Barrier(8)
        errors = []
        def use():
            barrier.wait()
            try:
                xp = strided.array_api
                xp.asarray([1, 2]); xp.__array_api_version__; xp.__all__
            except Exception as e:
                errors.append(repr(e))
        threads = [threading.Thread(target=use) for _ in range(8)]
        [t.start() for t in threads]; [t.join() for t in threads]
        print(len(errors), errors[:1])
    """)
    assert out.split()[0] == "0", out
