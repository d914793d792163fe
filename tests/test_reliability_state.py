"""Reliability of strided's state and Python protocols (review findings R2-04..R2-09, R2-16..R2-18).

- context-local state: ``record_copies`` ledgers and ``broadcasting`` with-blocks belong to
  their thread or asyncio task, nest properly and never leak (R2-05..R2-09);
- pickle, copy and deepcopy of dtypes, tensors, errors and memory formats (R2-16..R2-18);
- a storage lent to NumPy by ``numpy()`` / ``__array__`` is not reallocated (R2-04).

Threaded tests use ``threading.Event`` to force one interleaving, so they are deterministic.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import multiprocessing
import pickle
import threading
import warnings
from collections.abc import Callable

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as hs

import strided as st
from strided import errors as E
from strided.dtypes import ALL_DTYPES
from strided.kernels.memory import _ledgers
from strided.ops.shape.broadcasting import get_broadcasting

TIMEOUT = 10  # seconds any one wait may take before a test fails instead of hanging


@pytest.fixture(autouse=True)
def _clean_state():
    """Every test starts and must end with no open ledger and the default mode."""
    st.broadcasting("allow")
    yield
    assert _ledgers.get() == (), "a record_copies ledger leaked"
    assert get_broadcasting() == ("allow", False), "the broadcasting mode leaked"
    st.broadcasting("allow")


def transposed() -> st.Tensor:
    """A (4, 3) float32 view whose contiguous() is a copy (48 bytes)."""
    return st.arange(12.0).view(3, 4).t()


def both_stretched() -> st.Tensor:
    """The classic (3, 1) - (3,) op: silent in "allow", flagged in "warn" and "raise"."""
    return st.zeros(3, 1) - st.zeros(3)


# warnings.catch_warnings swaps process-wide state, so threads take turns to use it.
_probe_lock = threading.Lock()


def mode_of_op() -> str:
    """What the calling thread's mode does to a both-stretched op: 'allow', 'warn' or 'raise'."""
    with _probe_lock, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            both_stretched()
        except st.BroadcastError:
            return "raise"
    return "warn" if any(issubclass(w.category, st.BroadcastWarning) for w in caught) else "allow"


def run_threads(*targets: Callable[[], None]) -> None:
    """Run each target in its own thread; re-raise the first failure here."""
    failures: list[BaseException] = []

    def guarded(fn: Callable[[], None]) -> Callable[[], None]:
        def run() -> None:
            try:
                fn()
            except BaseException as exc:  # noqa: BLE001 - reported to the test thread
                failures.append(exc)
        return run

    threads = [threading.Thread(target=guarded(t)) for t in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join(TIMEOUT)
        assert not t.is_alive(), "a thread hung"
    if failures:
        raise failures[0]


def wait(event: threading.Event) -> None:
    assert event.wait(TIMEOUT), "the other thread never got there"


# ============================================================ R2-05 nested record_copies


def test_r2_05_inner_empty_block_does_not_steal_the_outer_ledger():
    x = transposed()
    with st.record_copies() as outer:
        with st.record_copies() as inner:
            pass
        x.contiguous()  # after the inner block: the outer one only
    assert [r.nbytes for r in outer] == [48] and inner == []
    assert _ledgers.get() == ()
    x.contiguous()  # nobody listens now: recorded nowhere
    assert len(outer) == 1


def test_r2_05_a_copy_inside_nested_blocks_goes_to_both():
    x = transposed()
    with st.record_copies() as outer:
        with st.record_copies() as inner:
            x.contiguous()
        x.clone()
    why = "contiguous() of (4, 3) strides (1, 4): dim 1 has stride 4, row-major needs 1"
    assert [r.reason for r in inner] == [why]
    assert [r.reason for r in outer] == [why, "clone()"]


def test_r2_05_blocks_closed_out_of_order_drop_only_their_own_ledger():
    x = transposed()
    stack_a, stack_b = contextlib.ExitStack(), contextlib.ExitStack()
    a = stack_a.enter_context(st.record_copies())
    b = stack_b.enter_context(st.record_copies())
    stack_a.close()  # a closes first although b was opened inside it
    x.contiguous()
    assert a == [] and len(b) == 1
    stack_b.close()
    assert _ledgers.get() == ()


def test_r2_05_exception_inside_the_block_still_closes_it():
    with pytest.raises(KeyError), st.record_copies():
        raise KeyError
    assert _ledgers.get() == ()


# A nested program of blocks and copies: ("copy",) or ("block", [children]) or ("mode", m, [children]).
_program = hs.recursive(
    hs.just(("copy",)),
    lambda kids: hs.one_of(
        hs.lists(kids, max_size=4).map(lambda c: ("block", c)),
        hs.tuples(hs.just("mode"), hs.sampled_from(["allow", "warn", "raise"]), hs.lists(kids, max_size=4)),
    ),
    max_leaves=12,
)


@settings(max_examples=60, deadline=None)
@given(hs.lists(_program, max_size=4))
def test_property_nested_blocks_record_exactly_their_copies_and_restore_the_mode(program):
    """Model check of the class R2-05/R2-07: each ledger holds exactly the copies made while it
    was open, and the mode inside every block is the innermost block's, restored on exit."""
    x = transposed()

    def run(nodes: list, open_ledgers: list[list], mode: str) -> None:
        for node in nodes:
            if node[0] == "copy":
                before = [len(ledger) for ledger in open_ledgers]
                x.contiguous()
                assert [len(ledger) for ledger in open_ledgers] == [n + 1 for n in before]
            elif node[0] == "block":
                with st.record_copies() as ledger:
                    run(node[1], [*open_ledgers, ledger], mode)
                assert _ledgers.get() == tuple(open_ledgers)
            else:
                with st.broadcasting(node[1]):
                    assert get_broadcasting()[0] == node[1]
                    run(node[2], open_ledgers, node[1])
                assert get_broadcasting()[0] == mode
                assert mode_of_op() == mode

    run(program, [], "allow")


# ============================================================ R2-06 ledgers across threads


def test_r2_06_record_copies_ignores_copies_of_other_threads():
    x = transposed()
    entered, copied = threading.Event(), threading.Event()
    seen: list = []

    def recorder() -> None:
        with st.record_copies() as recs:
            entered.set()
            wait(copied)
            seen.extend(recs)

    def worker() -> None:
        wait(entered)
        x.contiguous()
        x.clone()
        copied.set()

    run_threads(recorder, worker)
    assert seen == []


def test_r2_06_threads_each_record_their_own_copies():
    x = transposed()
    barrier = threading.Barrier(2, timeout=TIMEOUT)
    ledgers: dict[str, list] = {}

    def thread(name: str, copies: int) -> Callable[[], None]:
        def run() -> None:
            with st.record_copies() as recs:
                barrier.wait()  # both blocks are open now
                for _ in range(copies):
                    x.clone()
                barrier.wait()  # both have copied
            ledgers[name] = recs
        return run

    run_threads(thread("a", 2), thread("b", 5))
    assert len(ledgers["a"]) == 2 and len(ledgers["b"]) == 5


# ============================================================ R2-07 / R2-08 broadcasting across threads


def test_r2_08_a_block_in_one_thread_does_not_change_other_threads():
    inside, checked = threading.Event(), threading.Event()
    seen: dict[str, object] = {}

    def blocker() -> None:
        with st.broadcasting("raise", rank_promotion=True):
            inside.set()
            wait(checked)
            seen["blocker"] = mode_of_op()

    def other() -> None:
        wait(inside)
        seen["other"] = mode_of_op()
        seen["other setting"] = get_broadcasting()
        checked.set()

    run_threads(blocker, other)
    assert seen == {"blocker": "raise", "other": "allow", "other setting": ("allow", False)}


def test_r2_08_a_plain_call_is_the_process_default_that_other_threads_see():
    st.broadcasting("warn")
    seen: list[str] = []
    run_threads(lambda: seen.append(mode_of_op()))
    assert seen == ["warn"]
    with st.broadcasting("raise"):  # a block in this thread only
        run_threads(lambda: seen.append(mode_of_op()))
    assert seen == ["warn", "warn"]
    st.broadcasting("allow")


def test_plain_call_inside_a_block_takes_effect_at_once_and_ends_with_the_block():
    st.broadcasting("warn")
    with st.broadcasting("raise"):
        st.broadcasting("allow", rank_promotion=True)  # plain call inside the block
        assert get_broadcasting() == ("allow", True)
        assert mode_of_op() == "allow"
    assert get_broadcasting() == ("warn", False)  # the block restores exactly what it found
    st.broadcasting("allow")


def test_an_object_made_first_and_used_in_with_later_restores_like_a_block():
    b = st.broadcasting("raise")  # not the expression of a with: applies at once
    assert get_broadcasting()[0] == "raise"
    with b:
        assert mode_of_op() == "raise"
    assert get_broadcasting() == ("allow", False)
    with b:  # used again: scoped from __enter__ on
        assert mode_of_op() == "raise"
    assert get_broadcasting() == ("allow", False)


def test_with_expression_changes_nothing_before_enter():
    """``__init__`` of a with statement's expression runs before ``__enter__``: another thread,
    looking in between, must not see the mode (it would be a process-wide leak)."""
    initialised, looked = threading.Event(), threading.Event()
    seen: dict[str, str] = {}

    class PausedOnEnter(st.broadcasting):
        __slots__ = ()

        def __enter__(self) -> st.broadcasting:
            initialised.set()
            wait(looked)
            return super().__enter__()

    def in_block() -> None:
        with PausedOnEnter("raise"):
            seen["inside"] = mode_of_op()
        seen["after"] = mode_of_op()

    def looker() -> None:
        wait(initialised)
        seen["other thread"] = mode_of_op()
        looked.set()

    run_threads(in_block, looker)
    assert seen == {"other thread": "allow", "inside": "raise", "after": "allow"}


def _made_elsewhere(mode: str) -> st.broadcasting:
    return st.broadcasting(mode)  # not on a with line: a plain call until it is entered


@pytest.mark.parametrize("enter", ["with_line", "helper", "exit_stack"])
def test_r2_07_interleaved_blocks_restore_the_process_mode(enter):
    """A enters warn; B enters raise; A exits; B exits: the process mode is 'allow' again, for
    blocks written on the with line, made by a helper, or entered through ExitStack."""
    a_in, b_in, a_out = threading.Event(), threading.Event(), threading.Event()
    modes: dict[str, str] = {}

    def in_block(mode: str, body: Callable[[], None]) -> None:
        if enter == "with_line":
            with st.broadcasting(mode):
                body()
        elif enter == "helper":
            with _made_elsewhere(mode):
                body()
        else:
            with contextlib.ExitStack() as stack:
                stack.enter_context(st.broadcasting(mode))
                body()

    def a_body() -> None:
        a_in.set()
        wait(b_in)
        modes["a inside"] = mode_of_op()

    def b_body() -> None:
        b_in.set()
        wait(a_out)
        modes["b inside, after a left"] = mode_of_op()

    def a() -> None:
        in_block("warn", a_body)
        a_out.set()

    def b() -> None:
        wait(a_in)
        modes["b before"] = mode_of_op()
        in_block("raise", b_body)
        modes["b after"] = mode_of_op()

    run_threads(a, b)
    assert modes == {
        "a inside": "warn", "b before": "allow", "b inside, after a left": "raise", "b after": "allow"
    }
    assert get_broadcasting() == ("allow", False) and mode_of_op() == "allow"


def test_plain_calls_in_force_stay_bounded():
    from strided.ops.shape import broadcasting as module

    for mode in ["warn", "raise", "allow"] * 200:
        st.broadcasting(mode)
    assert len(module._plain_calls) <= 2
    assert get_broadcasting() == ("allow", False)


def test_asyncio_tasks_each_see_their_own_blocks():
    x = transposed()

    async def task(mode: str, copies: int, started: asyncio.Event, other: asyncio.Event) -> tuple:
        with st.broadcasting(mode), st.record_copies() as recs:
            started.set()
            await asyncio.wait_for(other.wait(), TIMEOUT)  # both blocks are open now
            for _ in range(copies):
                x.clone()
                await asyncio.sleep(0)  # let the other task run between copies
            return mode_of_op(), len(recs)

    async def main() -> list:
        a, b = asyncio.Event(), asyncio.Event()
        return await asyncio.gather(task("warn", 2, a, b), task("raise", 3, b, a))

    assert asyncio.run(main()) == [("warn", 2), ("raise", 3)]


def test_stress_threads_mixing_blocks_copies_and_modes():
    """A few threads, a few hundred mixed ops each: exact ledgers, no leak, mode restored."""
    rounds = 150
    modes = ("allow", "warn", "raise")
    barrier = threading.Barrier(4, timeout=TIMEOUT)

    def worker(seed: int) -> Callable[[], None]:
        def run() -> None:
            x = transposed()
            barrier.wait()
            for i in range(rounds):
                mode = modes[(seed + i) % 3]
                with st.broadcasting(mode), st.record_copies() as outer:
                    with st.record_copies() as inner:
                        x.contiguous()
                    y = x.clone()
                    y.resize_(20 + i % 5)
                    assert mode_of_op() == mode
                    assert len(inner) == 1 and len(outer) >= 2
                    assert _ledgers.get() == (outer,)
                assert _ledgers.get() == () and get_broadcasting() == ("allow", False)
        return run

    run_threads(*(worker(k) for k in range(4)))


# ============================================================ R2-09 bad arguments change nothing


@pytest.mark.parametrize("flag", ["no", np.array([1, 2]), 1, None, st.tensor(True)])
def test_r2_09_rank_promotion_must_be_a_bool_and_a_refused_call_changes_nothing(flag):
    st.broadcasting("warn")
    with pytest.raises(TypeError) as info:
        st.broadcasting("raise", rank_promotion=flag)
    assert isinstance(info.value, st.StridedError)
    text = str(info.value)
    assert text.startswith("broadcasting(): argument 'rank_promotion' must be bool")
    assert "True or False" in text and "fix:" in text
    assert get_broadcasting() == ("warn", False)
    with pytest.raises(TypeError), st.broadcasting("raise", rank_promotion=flag):
        pass
    assert get_broadcasting() == ("warn", False)
    st.broadcasting("allow")


def test_r2_09_bad_mode_changes_nothing_and_numpy_bools_are_flags():
    with pytest.raises(ValueError, match="mode must be one of"):
        st.broadcasting("loud", rank_promotion=True)
    assert get_broadcasting() == ("allow", False)
    with st.broadcasting("warn", rank_promotion=np.True_):
        assert get_broadcasting() == ("warn", True)


# ============================================================ R2-16 pickle of dtypes and tensors


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: d.name)
def test_r2_16_every_dtype_keeps_identity(dtype):
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        assert pickle.loads(pickle.dumps(dtype, protocol)) is dtype
    assert copy.copy(dtype) is dtype and copy.deepcopy(dtype) is dtype
    assert pickle.loads(pickle.dumps(st.bool)) is st.bool is st.bool_


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: d.name)
def test_r2_16_tensors_of_every_dtype_pickle_like_torch(dtype):
    values = [[True, False, True], [False, False, True]] if dtype is st.bool else [[1, 2, 3], [4, 5, 6]]
    t = st.tensor(values, dtype=dtype)
    tt = torch.tensor(values, dtype=getattr(torch, dtype.name))
    back = pickle.loads(pickle.dumps(t))
    # torch 2.13 cannot unpickle its own uint16/32/64 tensors (AttributeError: UntypedStorage has
    # no dtype); strided can, and its values are compared with the torch tensor's own
    torch_back = tt if dtype.name in ("uint16", "uint32", "uint64") else pickle.loads(pickle.dumps(tt))
    assert back.dtype is dtype and back.tolist() == torch_back.tolist() == values
    assert copy.deepcopy(t).tolist() == values


@settings(max_examples=40, deadline=None)
@given(
    hs.sampled_from(ALL_DTYPES),
    hs.integers(1, 4), hs.integers(1, 5),
    hs.sampled_from(["t", "step", "expand", "neg", "none"]),
)
def test_property_views_pickle_with_their_layout_and_shared_storage(dtype, rows, cols, how):
    base = st.arange(rows * cols).view(rows, cols).to(dtype)
    view = {
        "t": lambda: base.t(),
        "step": lambda: base[:, ::2],
        "expand": lambda: base[:1].expand(3, cols),
        "neg": lambda: base[1:],
        "none": lambda: base,
    }[how]()
    for back_base, back_view in (pickle.loads(pickle.dumps((base, view))), copy.deepcopy((base, view))):
        assert back_view.shape == view.shape and back_view.stride() == view.stride()
        assert back_view.storage_offset() == view.storage_offset()
        assert back_view.tolist() == view.tolist() and back_view.dtype is dtype
        assert st.shares_memory(back_base, back_view) or view.numel() == 0


# ============================================================ R2-17 errors pickle


def _error_classes() -> list[type]:
    return sorted(
        (c for c in vars(E).values() if isinstance(c, type) and issubclass(c, E.StridedError)),
        key=lambda c: c.__name__,
    )


def _view_error() -> st.ViewError:
    try:
        st.arange(12.0).view(3, 4).t().view(12)
    except st.ViewError as err:
        return err
    raise AssertionError("view(12) of a transpose must be refused")


def test_r2_17_view_error_pickles_and_deep_copies_with_its_refusal():
    err = _view_error()
    for back in (pickle.loads(pickle.dumps(err)), copy.deepcopy(err), copy.copy(err)):
        assert type(back) is st.ViewError and isinstance(back, RuntimeError)
        assert str(back) == str(err) and back.args == err.args
        assert back.refusal == err.refusal and back.refusal.outer == 0


@pytest.mark.parametrize("cls", _error_classes(), ids=lambda c: c.__name__)
def test_r2_17_every_error_class_pickles_with_its_message(cls):
    message = f"first line of a {cls.__name__}\n  a detail line"
    err = cls(message, None) if cls is st.ViewError else cls(message)
    err.add_note("a note")
    back = pickle.loads(pickle.dumps(err))
    # (str(), not the message: a KeyError's str() is its message's repr, in Python and PyTorch alike)
    assert type(back) is cls and str(back) == str(err) and back.args[0] == message and back.__notes__ == ["a note"]
    assert type(copy.deepcopy(err)) is cls


@settings(max_examples=40, deadline=None)
@given(hs.sampled_from(_error_classes()), hs.text(max_size=40), hs.dictionaries(
    hs.from_regex(r"[a-z]{1,8}", fullmatch=True), hs.integers() | hs.text(max_size=5), max_size=3))
def test_property_errors_round_trip_message_and_attributes(cls, message, attributes):
    err = cls(message, None) if cls is st.ViewError else cls(message)
    for name, value in attributes.items():
        setattr(err, name, value)
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is cls and back.args == err.args and vars(back) == vars(err)


@pytest.mark.parametrize(
    "make",
    [
        lambda: st.zeros(3)[5],
        lambda: st.zeros(3).to(None),
        lambda: st.zeros(3, dtype=st.int64).fill_(2**70),
        lambda: st.zeros(1).expand(3).add_(1),
        lambda: st.zeros(2, 3) + st.zeros(4),
        lambda: st.arange(12.0).view(3, 4).t().view(12),
        lambda: st.zeros(3, 4).t().contiguous(st.preserve_format),
    ],
)
def test_r2_17_errors_raised_by_strided_survive_pickle(make):
    with pytest.raises(st.StridedError) as info:
        make()
    back = pickle.loads(pickle.dumps(info.value))
    assert type(back) is type(info.value) and str(back) == str(info.value)


def _view_in_worker(n: int) -> list:
    return st.arange(12.0).view(3, 4).t().view(n).tolist()


def test_r2_17_view_error_raised_in_a_pool_worker_reaches_the_parent():
    pool = multiprocessing.get_context("fork").Pool(1)
    try:
        result = pool.apply_async(_view_in_worker, (12,))
        with pytest.raises(st.ViewError) as info:
            result.get(timeout=TIMEOUT)
        assert "view size is not compatible" in str(info.value) and info.value.refusal.inner == 1
        # the pool still works afterwards (its result handler did not die)
        assert pool.apply_async(len, ((1, 2),)).get(timeout=TIMEOUT) == 2
    finally:
        pool.terminate()
        pool.join()


# ============================================================ R2-18 memory formats keep identity


@pytest.mark.parametrize("name", ["contiguous_format", "channels_last", "preserve_format"])
def test_r2_18_memory_formats_keep_identity_like_torch(name):
    fmt, torch_fmt = getattr(st, name), getattr(torch, name)
    for make in (lambda f: pickle.loads(pickle.dumps(f)), copy.copy, copy.deepcopy):
        assert make(fmt) is fmt
        assert make(torch_fmt) is torch_fmt


def test_r2_18_a_deep_copied_format_is_accepted_like_torch():
    x = st.arange(24.0).view(1, 2, 3, 4)
    tx = torch.arange(24.0).view(1, 2, 3, 4)
    y = x.contiguous(copy.deepcopy(st.channels_last))
    ty = tx.contiguous(memory_format=copy.deepcopy(torch.channels_last))
    assert y.stride() == ty.stride() and y.tolist() == ty.tolist()
    assert x.clone(pickle.loads(pickle.dumps(st.channels_last))).stride() == ty.stride()


def test_r2_18_preserve_format_message_matches_torch():
    with pytest.raises(RuntimeError) as torch_info:
        torch.zeros(3, 4).t().contiguous(memory_format=torch.preserve_format)
    with pytest.raises(RuntimeError) as info:
        st.zeros(3, 4).t().contiguous(copy.deepcopy(st.preserve_format))
    assert str(info.value).splitlines()[0] == str(torch_info.value)
    assert "strided.contiguous_format or strided.channels_last" in str(info.value)


# ============================================================ R2-04 resize_ after numpy()


def _state(t: st.Tensor) -> tuple:
    return t.shape, t.stride(), t.storage_offset(), t.untyped_storage().data_ptr(), t.tolist()


@pytest.mark.parametrize("export", ["numpy", "asarray"])
def test_r2_04_resize_after_export_is_refused_like_torch(export):
    t, tt = st.zeros(4), torch.zeros(4)
    if export == "numpy":
        a, _ta = t.numpy(), tt.numpy()
    else:
        a, _ta = np.asarray(t), np.asarray(tt)
    with pytest.raises(RuntimeError) as torch_info:
        tt.resize_(1000)
    before = _state(t)
    with pytest.raises(RuntimeError) as info:
        t.resize_(1000)
    assert isinstance(info.value, st.StridedRuntimeError)
    text = str(info.value)
    assert text.splitlines()[0] == str(torch_info.value) == "Trying to resize storage that is not resizable"
    assert "handed to NumPy" in text and ("t.numpy()" if export == "numpy" else "np.asarray(t)") in text
    assert "t.clone()" in text and "1000 elements" in text
    assert _state(t) == before  # the refused call changed nothing
    a[0] = 7.0  # and the array still writes into the tensor
    assert t[0].item() == 7.0
    assert not t.untyped_storage().resizable() and not tt.untyped_storage().resizable()


def test_r2_04_the_review_repro_keeps_every_write():
    t = st.zeros(4)
    a = t.numpy()
    t2 = st.from_numpy(a)
    with pytest.raises(RuntimeError, match="not resizable"):
        t.resize_(1000)
    a[0] = 7.0
    t2[1] = 8.0
    assert t[:2].tolist() == [7.0, 8.0] and st.shares_memory(t, t2)


def test_r2_04_numpy_copies_pin_the_storage_as_torch_does():
    """NumPy reads ``__array_interface__`` (a share) before it decides to copy, so ``np.array(t)``
    pins the storage, as torch's ``np.array(tt)`` does (its ``__array__`` calls ``numpy()``);
    a copy strided makes (``clone``) does not."""
    for make in (np.array, lambda x: np.asarray(x, dtype=np.float64)):
        t, tt = st.zeros(4), torch.zeros(4)
        make(t), make(tt)
        with pytest.raises(RuntimeError, match="Trying to resize storage that is not resizable"):
            tt.resize_(1000)
        with pytest.raises(st.StridedError, match="Trying to resize storage that is not resizable"):
            t.resize_(1000)
    t = st.zeros(4)
    t.clone().numpy()
    t.resize_(1000)
    assert t.untyped_storage().resizable()


@settings(max_examples=60, deadline=None)
@given(hs.lists(hs.one_of(hs.tuples(hs.just("export"), hs.sampled_from(["numpy", "asarray", "view"])),
                          hs.tuples(hs.just("resize"), hs.integers(0, 12))), max_size=8))
def test_property_resize_after_export_matches_torch(ops):
    """Random exports and resizes, in strided and torch: the same calls succeed, and every array
    handed out still shares memory with the tensor afterwards."""
    t, tt = st.zeros(6), torch.zeros(6)
    arrays = []
    for op, arg in ops:
        if op == "export":
            if arg == "view":  # exporting a view pins the whole storage, in torch too
                arrays.append(t[1:].numpy())
                tt[1:].numpy()
            else:
                arrays.append(t.numpy() if arg == "numpy" else np.asarray(t))
                tt.numpy() if arg == "numpy" else np.asarray(tt)
            continue
        outcome = []
        for tensor in (t, tt):
            try:
                tensor.resize_(arg)
                outcome.append(None)
            except RuntimeError as err:
                outcome.append(str(err).splitlines()[0])
        assert outcome[0] == outcome[1], (ops, outcome)
        if outcome[1] is not None:
            # Note: torch sets the new sizes before it refuses (a failed resize_ leaves torch's
            # tensor at (7,) over 6 elements); strided leaves the tensor as it was. Put torch back.
            tt.resize_(t.shape)
        assert t.shape == tuple(tt.shape)
    for arr in arrays:
        if arr.size:
            assert np.shares_memory(arr, t.untyped_storage().array)


def test_deepcopy_of_a_detached_result_as_torch():
    # (red team) a detached result's view base is the result (with a history): deepcopy copied the
    # base with the refusal for results; PyTorch copies the detached tensor (a leaf)
    def run(L):
        x = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * 2
        d, d2 = copy.deepcopy([y.detach(), y[1:].detach()])
        d.add_(1)  # (the two copies share their memory, as the originals)
        with pytest.raises(RuntimeError, match="Only Tensors created explicitly"):
            copy.deepcopy(y)
        return d.tolist(), d2.tolist(), d.requires_grad, d.is_leaf

    assert run(st) == run(torch)


_REBUILDS = {
    "pickle": lambda t: pickle.loads(pickle.dumps(t)),
    "pickle_protocol_2": lambda t: pickle.loads(pickle.dumps(t, 2)),
    "deepcopy": copy.deepcopy,
}


def _versioned_tensors(lib):
    """(name, tensor) pairs with different version histories; autograd is in use first."""
    a = lib.ones(2, requires_grad=True)
    (a * 2).sum().backward()
    written = lib.zeros(3)
    written.add_(1)
    written.mul_(2)
    leaf = lib.ones(3, requires_grad=True)
    with lib.no_grad():
        leaf.add_(1)
    view = lib.zeros(4, 4)[::2, 1:]
    view.fill_(3.0)
    return {"fresh": lib.zeros(3), "written_twice": written, "leaf_written": leaf, "view": view,
            "int64": lib.zeros(2, dtype=lib.int64), "zero_dim": lib.zeros(())}


@pytest.mark.parametrize("how", list(_REBUILDS))
def test_pickle_and_deepcopy_give_the_version_torch_gives(how):
    """torch 2.13 rebuilds an unpickled or deep-copied tensor with set_ on its new storage: the
    copy's _version is 1 whatever the original's was; the original keeps its own."""
    got = []
    for lib in (st, torch):
        seen = {}
        for name, t in _versioned_tensors(lib).items():
            before = t._version
            c = _REBUILDS[how](t)
            seen[name] = (before, c._version, t._version, c.requires_grad, c.detach().tolist())
        together = _REBUILDS[how]([lib.zeros(4), lib.zeros(4)[1:]])  # a base and its view, together
        seen["together"] = [x._version for x in together]
        got.append(seen)
    assert got[0] == got[1]
