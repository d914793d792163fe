"""Shared fixtures: a headless Chromium driven through Selenium, for the playground's browser tests,
and the watch view's OS boundary (bubblewrap + seccomp) for the tests that run programs in it.

The browser and its driver come from the system's package manager (`.ci/run` installs `chromium`
and `chromium-driver`); nothing is downloaded at test time. Both paths are passed explicitly, so
Selenium never runs Selenium Manager (its downloader), and the fixture makes sure of that by
replacing Selenium Manager with a function that fails while the browser starts.

Under CI (CI=true, or STRIDED_REQUIRE_BROWSER=1, which `.ci/run` exports) a missing browser, driver
or selenium FAILS the tests that need them; on a developer machine they are skipped with the reason.
The same holds for the sandbox (``.ci/run`` installs ``bubblewrap``; STRIDED_REQUIRE_SANDBOX=1).
(`.ci/run` does not set CI itself: Hypothesis reads CI and switches to its derandomized profile.)
"""

from __future__ import annotations

import contextlib
import gc
import os
from collections.abc import Iterator
from pathlib import Path
from unittest import mock

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
WINDOW = (1280, 1000)
ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"


def browser_required() -> bool:
    """True under CI: the browser tests must run there, so what they need missing is a failure."""
    return (os.environ.get("CI", "").lower() in ("true", "1", "yes")
            or os.environ.get("STRIDED_REQUIRE_BROWSER") == "1")


def _missing_browser() -> str | None:
    """Why the browser tests cannot run here, or None when they can."""
    for path in (CHROMIUM, CHROMEDRIVER):
        if not os.access(path, os.X_OK):
            return f"{path} is missing (apt-get install chromium chromium-driver)"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[test]')"
    return None


def _no_selenium_manager(*args, **kwargs):
    raise AssertionError("Selenium Manager ran: the browser tests must use the system's chromedriver")


def sandbox_required() -> bool:
    """True under CI: the watch view's boundary must work there, so its absence is a failure."""
    return (os.environ.get("CI", "").lower() in ("true", "1", "yes")
            or os.environ.get("STRIDED_REQUIRE_SANDBOX") == "1")


@pytest.fixture(scope="session")
def boundary() -> object:
    """The watch view's OS boundary (:func:`strided.playground.boundary.probe`), available here.

    Example::

        @pytest.mark.usefixtures("boundary")
        def test_program_runs_sandboxed():
            assert strided.playground.sandbox.run_watch("print(1)")["ok"]
    """
    from strided.playground.boundary import probe

    found = probe()
    if not found.available:
        if sandbox_required():
            pytest.fail(f"the watch view's sandbox is required here but cannot be set up: {found.reason}")
        pytest.skip(f"the watch view's sandbox cannot be set up here: {found.reason}")
    return found


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    """A headless Chromium WebDriver (selenium), one per test session, with a fixed window size.

    Example::

        def test_page(browser):
            browser.get("file:///tmp/page.html")
            assert browser.find_element("css selector", "svg")
    """
    why = _missing_browser()
    if why:
        if browser_required():
            pytest.fail(f"browser tests cannot run in CI: {why}", pytrace=False)
        pytest.skip(f"browser tests need the system Chromium: {why}")

    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in ("--headless=new", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                "--disable-extensions", "--disable-background-networking", "--lang=en-US",
                f"--window-size={WINDOW[0]},{WINDOW[1]}"):
        options.add_argument(arg)
    # the page's console (script errors, failed loads) is readable through driver.get_log("browser")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        # Chromium refuses to start its sandbox as root (CI containers run as root).
        options.add_argument("--no-sandbox")
    service = Service(executable_path=str(CHROMEDRIVER))
    # SE_OFFLINE would stop Selenium Manager from downloading if it ever ran; the patch makes sure
    # it does not run at all (the explicit driver path is what skips it).
    with mock.patch.dict(os.environ, {"SE_OFFLINE": "true"}), \
            mock.patch("selenium.webdriver.common.selenium_manager.SeleniumManager.binary_paths",
                       _no_selenium_manager):
        driver = webdriver.Chrome(options=options, service=service)
    try:
        driver.set_window_size(*WINDOW)
        driver.set_page_load_timeout(20)
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def vml_route_off():
    """The MKL VML route (:mod:`strided.kernels.vml_route`) off for the test: the kernels it goes
    before (the C library's expf, tanh from double, the special kernels, NumPy's sqrt) are what
    strided's exp / tanh / erf / erfc / erfinv / sqrt ... compute then, as without MKL."""
    from strided.kernels import vml_route

    with vml_route.switched_off():
        yield


@pytest.fixture
def torch_threads_as_assumed():
    """PyTorch's thread count set to the one strided assumes for its loops
    (:func:`strided.kernels.torch_loops.torch_threads`: it moves a loop's scalar elements past
    PyTorch's parallel grain, 32768 elements), restored after the test."""
    import torch

    from strided.kernels.torch_loops import torch_threads

    with _torch_threads(torch, torch_threads()):
        yield


@pytest.fixture
def torch_one_thread():
    """PyTorch at one thread, restored after the test: the reductions strided models bit for bit
    (:mod:`strided.kernels.torch_sum`) are PyTorch's one-thread order."""
    import torch

    with _torch_threads(torch, 1):
        yield


@pytest.fixture
def torch_two_threads():
    """PyTorch at two threads, restored after the test, for bits strided models from two threads
    up where PyTorch's one-thread bits differ and are not modelled yet (softmax's float32 backward
    rows; the NaN word of a float32 sum holding NaNs, all-ones at one thread). Not
    ``torch_threads_as_assumed``: a CI worker has seen ``torch_threads() == 1`` there."""
    import torch

    with _torch_threads(torch, 2):
        yield


@contextlib.contextmanager
def _torch_threads(torch, n: int):
    before = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


@pytest.fixture(scope="session")
def artifacts() -> Path:
    """The ignored folder where browser tests keep their screenshots (`test-artifacts/`)."""
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


# The files with the slowest tests (from `pytest --durations`), slowest first, started first. Under
# pytest-xdist the collection order is the order work is handed out, so a slow test collected
# last runs alone at the end while the other worker sits idle; started first, it overlaps with
# the thousands of short tests. A file moves whole, in its own order, so its module-scoped
# fixtures (test_playground_security's servers, test_array_api_ecosystem's scipy subprocess) are
# still made once; test_bad_input (10,000 cases) moves only its two slow sweeps. Only the order
# changes: every test still runs, once.
SLOW_FIRST = (
    # (2 gloo processes, 1,000 cases) the whole file: its module-scoped fixture real_reports serves two
    # tests; naming one of them only sent the other to the other worker, which ran the pair again
    "tests/test_dtensor_explain.py::",
    "tests/test_tour.py::test_module_runs_in_chinese_without_torch",  # (the whole tour in a subprocess)
    "tests/test_tour_terminal.py::",  # (the tour in a pseudo-terminal, four times)
    "tests/test_dtensor_cli.py::",  # (strided watch --nproc 2)
    "tests/test_explain_torch.py::",
    "tests/test_notebook.py::",  # (a real Jupyter kernel starts)
    "tests/test_playground_security.py::",
    "tests/test_watch_html_browser.py::",
    "tests/test_array_api_ecosystem.py::",
    "tests/test_typing.py::",
    "tests/test_explain_numpy.py::",
    "tests/test_playground_browser.py::",
    "tests/test_copies.py::",
    "tests/test_einsum_diff.py::",
    "tests/test_layout_plans.py::",
    "tests/test_einsum.py::",
    "tests/test_elementwise.py::",
    "tests/test_view_fuzz.py::",
    "tests/test_bad_input.py::test_bad_input_sweep_mutated",
    "tests/test_small_op_paths.py::",
    "tests/test_layers.py::",
    "tests/test_creation.py::",
    "tests/test_cli.py::",
    "tests/test_advanced_indexing.py::",
    "tests/test_bad_input.py::test_bad_input_sweep",
)


def _slow_rank(item: pytest.Item) -> int:
    nodeid = item.nodeid
    for rank, prefix in enumerate(SLOW_FIRST):
        if nodeid.startswith(prefix):
            return rank
    return len(SLOW_FIRST)


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under pytest-xdist, deal the files with known-slow tests out first, alternately to each worker.

    xdist's default ``load`` scheduler first hands each of the n workers a block of
    ``len(items) // n // 4`` consecutive tests, then feeds whichever worker runs low. So the
    SLOW_FIRST entries go, slowest first, round-robin to the front of those first blocks (each
    entry whole, to one worker); every other test keeps its collected order. Every worker
    collects, so every worker computes the same order.
    """
    workerinput = getattr(config, "workerinput", None)
    if workerinput is None:
        return  # one process: the order makes no difference to the wall time, keep the files' order
    n = int(workerinput.get("workercount", 1))
    groups: list[list[pytest.Item]] = [[] for _ in SLOW_FIRST]
    rest: list[pytest.Item] = []
    for it in items:
        rank = _slow_rank(it)
        (groups[rank] if rank < len(SLOW_FIRST) else rest).append(it)
    block = max(len(items) // n // 4, 2)
    ordered: list[pytest.Item] = []
    for w in range(n):
        mine = [it for group in groups[w::n] for it in group]
        take = max(block - len(mine), 0)
        ordered += mine + rest[:take]
        rest = rest[take:]
    items[:] = ordered + rest


def pytest_collection_finish(session: pytest.Session) -> None:
    """Move everything alive after collection (torch, NumPy, the test modules, ~600,000 objects
    with 20,000 items) out of the cyclic GC's reach with :func:`gc.freeze`: it all lives to the end
    of the session anyway, and otherwise every full collection (the GC's own, and the explicit
    ``gc.collect()`` a few tests make) walks it again, ~0.3 s each. Objects the tests make are collected as before."""
    gc.collect()
    gc.freeze()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """After a module's last test (its module-scoped fixtures torn down), collect the garbage and
    :func:`gc.freeze` what is still alive, as after collection: what a module leaves alive (caches,
    lazily imported modules, hypothesis' strategies) stays to the end of the session, and left in
    the GC's generations every later full collection walks it again. Measured on 91 test files in
    one process, side by side with the previous conftest: the GC's time 18.7 s -> 12.0 s. The collection first means no garbage is frozen;
    a test's own objects are collected as before. (Per process: each xdist worker does its own.)"""
    yield
    if nextitem is None or getattr(nextitem, "module", None) is not getattr(item, "module", None):
        gc.collect()
        gc.freeze()


@pytest.fixture
def room_in_the_dense_memo():
    """An empty dense-layout memo (strided.kernels.memory._DENSE) for the test, refilled after: it
    holds 256 layouts, a suite run before may have filled it, and a full memo sends every new
    transpose to the compiled fronts' fallback (tests that check the C path is taken need room)."""
    from strided.kernels import memory

    saved = dict(memory._DENSE)
    memory._DENSE.clear()
    yield
    memory._DENSE.clear()
    memory._DENSE.update(saved)


@pytest.fixture
def run_with_rows_isa():
    """``run(script, isa) -> stdout``: ``script`` run by this Python in a fresh process with
    ``STRIDED_NATIVE_ROWS_ISA=isa`` (the row kernel's copy of its loops, picked at import:
    base, avx2, avx512) and this checkout's ``src`` first on the path; asserts that it exits 0."""
    import os
    import subprocess
    import sys

    from strided.kernels import rows

    def run(script: str, isa: str) -> str:
        env = dict(os.environ, STRIDED_NATIVE_ROWS_ISA=isa)
        src = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(rows.__file__))))
        env["PYTHONPATH"] = os.pathsep.join(p for p in (src, env.get("PYTHONPATH", "")) if p)
        done = subprocess.run([sys.executable, "-W", "ignore", "-c", script], env=env, capture_output=True,
                              text=True, timeout=900)
        assert done.returncode == 0, done.stderr[-2000:]
        return done.stdout.strip()

    return run
