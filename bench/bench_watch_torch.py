"""Overhead of ``watch_torch`` on a small GPT's forward pass, and forward + backward.

Run from the repository root:

    .venv/bin/python bench/bench_watch_torch.py          # about 30 s, and a minute for the first blocks
    .venv/bin/python bench/bench_watch_torch.py --quick  # fewer repeats, noisier
    .venv/bin/python bench/bench_watch_torch.py --split  # only: where the watch's time goes
    .venv/bin/python bench/bench_watch_torch.py --floors  # only: each part of a watch alone

How to read it
--------------
The model is the GPT of ``tests/torch_gpt.py`` (token + position embedding, causal attention
with the head split and merge, MLP, layer norm, cross-entropy) at two sizes: ``tiny`` (the
test's size: every op is a few microseconds, so the time is PyTorch's own per-op overhead and the
watch's per-op Python work dominates) and ``small`` (B=8, T=64, C=128, 4 layers: ops do real
arithmetic, the regime where one would watch a model). For each: the time of one forward
(``fwd``) and one forward + backward (``fwd+bwd``) without a watch, inside a fresh
``watch_torch()`` block, and the ratio watched / plain (the issue aims at <= 1.5). The times are
the minimum over repeats of one call, measured round-robin; the ops recorded per call are shown.
``bare modes`` is the floor that PyTorch's mode machinery itself sets: the same two modes
(function + dispatch) doing nothing but passing each call on; ``+ paths`` adds the watch's own
module paths (its ``nn.Module.__call__`` wrapper keeping the module stack), and ``+ hooks``,
for comparison, two global ``nn.Module`` forward hooks doing nothing, the way the watch once
kept its module paths (with any global hook registered, every module call takes PyTorch's
slower hooked path). The watch's own work is the gap between ``+ paths`` and ``watched``. (These bare modes keep the wrapper PyTorch puts around every
dispatch mode's handler to keep Dynamo out, about 1 us per op; the watch's mode does without it —
see ``_keep_dynamo_out`` in ``strided.diagnose.watch_torch`` — so the gap can be smaller than the
watch's work.)
PyTorch runs with one thread so that the numbers do not depend on the machine's core count.

``--split`` prints only where a watched pass's time goes, each row a ``watch_torch()`` block with
less of the op recorder: ``modes + calls`` (the recorder of the user's calls as is, the per-op
recorder a no-op), ``+ op call`` (the per-op recorder reading only the autograd node and
counter), ``+ tensor reads`` (... and each tensor's shape, strides and dtype, through the C
helper: what any record needs), ``- storages`` and ``- tally`` (the whole recorder but the
memory tally: no output's storage read at all, so no storage object made; and each new output's
storage read but not counted: no weak reference, no callback when it dies), ``watched`` (the whole
recorder). The gap between ``+ tensor reads`` and ``watched`` is the recorder's own bookkeeping
(memory tally, kinds, the flat record), the part a faster recorder could still cut; ``+ tensor
reads`` is the floor of one that keeps reading what it reads; ``- storages`` to ``watched`` is
what the memory tally costs (the reports' ``allocated_bytes``/``peak_bytes``: the numbers
in these rows' watches are wrong, only their times count).
These times are thread CPU time (the minimum of one call, round-robin), not wall time: the
differences between rows are a few percent of a pass, below the noise of wall time on a shared
machine.

``--floors`` prints only what each part of a watch costs alone, in thread time (minimum of one
call, round-robin, 30 repeats; 10 with --quick): ``fn mode`` (a bare ``TorchFunctionMode``
passing each call on), ``dispatch mode`` (a bare ``TorchDispatchMode``, with the Dynamo wrapper
PyTorch puts around its handler), ``both`` (the ``bare modes`` floor), ``paths`` (the module path
wrapper alone, no mode), ``watch modes`` (the watch's own two mode classes, its user-call recorder a
plain pass-through and its op recorder a no-op: its floor), ``+ on_call`` (its user-call recorder
as is), ``+ paths`` (and the module paths: a whole watch but the per-op recorder), ``watched``.
The gap from ``+ paths`` to ``watched`` is the per-op recorder as it runs between the model's
kernels: on a busy 2-core machine (session 37) about 0.3x, three times what the same ops'
records cost replayed in a loop of their own (about 5 us an op; most likely its code and data
are cold at every op in the pass) -- the largest part of the watch above its floor.

The last table is the first block of a process (the issue aims at watched <= 1.1x bare): the
``small`` model's forward + backward, run twice without a watch, then once inside the process's
first ``watch_torch()`` block, or its first block of a bare ``TorchDispatchMode`` (passing each
call on, with the Dynamo wrapper PyTorch puts around its handler) — each in a fresh process, the
minimum over repeats. ``dynamo imported``: ``torch._dynamo`` was imported before the block (a
program that uses ``torch.compile``), ``fresh``: it was not, and the bare mode's first call
imports it (seconds), which the watch's mode never does (see ``_keep_dynamo_out``).
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))

from harness import fmt_time, measure, print_header  # noqa: E402


def passes(model, idx, targets) -> dict:  # noqa: ANN001
    """The two timed passes of ``model``: forward, and forward + backward."""

    def fwd() -> None:
        model(idx, targets)

    def fwd_bwd() -> None:
        model.zero_grad(set_to_none=True)
        model(idx, targets).backward()

    return {"fwd": fwd, "fwd+bwd": fwd_bwd}


def inside(context, f):  # noqa: ANN001, ANN201
    """``f`` run inside a fresh ``context()`` block."""

    def run() -> None:
        with context():
            f()

    return run


def thread_time_rows(timed: dict, contexts: list, repeats: int, width: int) -> None:
    """Print one row per pass in ``timed``: its plain thread time, then its time inside each of
    ``contexts`` as a ratio (the minimum of one call each, ``repeats`` rounds, round-robin)."""
    for name, f in timed.items():
        stmts = [f, *(inside(c, f) for c in contexts)]
        samples: list[list[float]] = [[] for _ in stmts]
        for g in stmts:
            g()
        for r in range(repeats):  # round-robin, each order rotated
            for i in (*range(r % len(stmts), len(stmts)), *range(r % len(stmts))):
                start = time.thread_time()
                stmts[i]()
                samples[i].append(time.thread_time() - start)
        plain_t, *rest = (min(s) for s in samples)
        print(f"{name:<9}{fmt_time(plain_t):>12}" + "".join(f"{t / plain_t:>{width}.2f}x" for t in rest))


_PASS_MODES: list[tuple] = []


def pass_modes() -> tuple[type, type]:
    """The bare floor's two modes, a function mode and a dispatch mode that only pass each call
    on (made on first use: importing this file imports no torch)."""
    if not _PASS_MODES:
        from torch.overrides import TorchFunctionMode
        from torch.utils._python_dispatch import TorchDispatchMode

        class PassFunction(TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):  # noqa: ANN001, ANN204
                return func(*args, **(kwargs or {}))

        class PassDispatch(TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # noqa: ANN001, ANN204
                return func(*args, **(kwargs or {}))

        _PASS_MODES.append((PassFunction, PassDispatch))
    return _PASS_MODES[0]


SMALL = dict(vocab=256, C=128, heads=4, T=64, layers=4, B=8)


def small_passes() -> dict:
    """The two timed passes (see :func:`passes`) of the ``small`` GPT, seeded."""
    import torch

    from torch_gpt import GPT, batch

    cfg = dict(SMALL)
    B = cfg.pop("B")
    torch.manual_seed(0)
    model = GPT(**cfg)
    return passes(model, *batch(model, B=B, T=cfg["T"], vocab=cfg["vocab"]))


def first_block_child(context: str, dynamo: str) -> None:
    """In a fresh process: print the seconds of the first ``context`` block ("bare" or "watch")
    around the small model's forward + backward (run twice before without a block)."""
    import torch

    if dynamo == "imported":
        import torch._dynamo  # noqa: F401
    from strided.diagnose.watch_torch import watch_torch
    from torch_gpt import GPT, batch

    PassDispatch = pass_modes()[1]
    torch.set_num_threads(1)
    cfg = dict(SMALL)
    B = cfg.pop("B")
    torch.manual_seed(0)
    model = GPT(**cfg)
    idx, targets = batch(model, B=B, T=cfg["T"], vocab=cfg["vocab"])
    f = passes(model, idx, targets)["fwd+bwd"]
    f()
    f()
    block = {"bare": PassDispatch, "watch": watch_torch}[context]
    start = time.perf_counter()
    with block():
        f()
    print(time.perf_counter() - start)


def first_blocks(repeat: int) -> None:
    """The first-block table: each (dynamo state, block) timed in ``repeat`` fresh processes,
    round-robin; the minimum of each."""
    import strided

    env = dict(os.environ)  # (the children import the strided this process runs)
    src = os.path.dirname(os.path.dirname(os.path.abspath(strided.__file__)))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (src, env.get("PYTHONPATH", "")) if p)
    print(f"\nfirst block of a process (small fwd+bwd, {repeat} fresh processes each, minimum)")
    print(f"{'torch._dynamo':<18}{'bare mode':>12}{'watched':>12}{'watched/bare':>15}")
    for dynamo in ("fresh", "imported"):
        samples: dict[str, list[float]] = {"bare": [], "watch": []}
        for r in range(repeat):
            for context in (("bare", "watch") if r % 2 == 0 else ("watch", "bare")):
                out = subprocess.run([sys.executable, os.path.abspath(__file__), "--first-block-child", context,
                                      dynamo], capture_output=True, text=True, env=env, check=True).stdout
                samples[context].append(float(out.split()[-1]))
        bare_t, watched_t = min(samples["bare"]), min(samples["watch"])
        print(f"{dynamo:<18}{fmt_time(bare_t):>12}{fmt_time(watched_t):>12}{watched_t / bare_t:>14.2f}x")


def split(quick: bool) -> None:
    """The ``--split`` table: the small model's passes inside watches with less of the op recorder."""
    import torch

    import strided.diagnose.watch_torch as wt
    from strided.diagnose.flow import MemoryTally

    full = wt._recorders
    layouts = wt._native_layouts()
    tensor, strided = torch.Tensor, torch.strided
    is_tensor = tensor.__instancecheck__
    node, peek = torch._C._current_autograd_node, torch._C._autograd._get_sequence_nr

    def partial(level: int):  # noqa: ANN202
        def recorders(watch):  # noqa: ANN001, ANN202
            on_call, _ = full(watch)
            fields: list = []
            kept: dict = {}

            def on_op(func, args, out) -> None:  # noqa: ANN001
                if level >= 1:
                    node()
                    peek()
                    tensors = (*filter(is_tensor, args), *((out,) if isinstance(out, tensor) else ()))
                    if level >= 2 and layouts is not None:
                        layouts(fields, tensors, kept, strided)

            return on_call, on_op

        return recorders

    entry = wt._op_entry
    counted = MemoryTally.allocated

    def no_tally() -> None:  # each new storage read, none counted
        MemoryTally.allocated = lambda tally, owner, nbytes: False

    def no_storages() -> None:  # no output storage read: every op as if it allocated nothing
        wt._op_entry = lambda func: (*entry(func)[:3], False, entry(func)[4])
        wt._OPS.clear()

    def restore() -> None:
        MemoryTally.allocated, wt._op_entry = counted, entry
        wt._OPS.clear()

    class Partial:
        """A watch_torch() block whose op recorder does only part of its work."""

        def __init__(self, recorders, patch=None) -> None:  # noqa: ANN001
            self.recorders, self.patch = recorders, patch

        def __call__(self) -> Partial:
            return self

        def __enter__(self) -> None:
            wt._recorders = self.recorders
            if self.patch is not None:
                self.patch()
            self.watch = wt.watch_torch()
            self.watch.__enter__()

        def __exit__(self, *exc: object) -> None:
            wt._recorders = full
            if self.patch is not None:
                restore()
            self.watch.__exit__(*exc)

    torch.set_num_threads(1)
    print_header(f"torch {torch.__version__}")
    labels = ("modes + calls", "+ op call", "+ tensor reads", "- storages", "- tally", "watched")
    contexts = [Partial(partial(0)), Partial(partial(1)), Partial(partial(2)), Partial(full, no_storages),
                Partial(full, no_tally), wt.watch_torch]
    print(f"{'pass':<9}{'plain':>12}" + "".join(f"{label:>16}" for label in labels) + "   (x plain)")
    thread_time_rows(small_passes(), contexts, 8 if quick else 30, 15)


def floors(quick: bool) -> None:
    """The ``--floors`` table: the small model's passes under each part of a watch alone."""
    import torch

    import strided.diagnose.watch_torch as wt

    PassFunction, PassDispatch = pass_modes()
    function_mode, dispatch_mode = wt._mode_classes(torch)

    def pass_call(func, args, kwargs):  # noqa: ANN001, ANN202
        return func(*args, **kwargs)

    def on_call() -> object:  # the watch's own user-call recorder, of a watch never entered
        watch = wt.watch_torch()
        watch._thread = threading.get_ident()
        return wt._recorders(watch)[0]

    class Parts:
        """Some modes (made by ``make``), and the module paths if ``paths``, for one block."""

        def __init__(self, make, paths: bool = False) -> None:  # noqa: ANN001
            self.make, self.paths = make, paths

        def __call__(self) -> Parts:
            return self

        def __enter__(self) -> None:
            self.modes = self.make()
            for m in self.modes:
                m.__enter__()
            if self.paths:
                self.watch = wt.watch_torch()
                self.watch._thread = threading.get_ident()
                wt._watch_modules(torch, self.watch)

        def __exit__(self, *exc: object) -> None:
            if self.paths:
                wt._unwatch_modules(torch, self.watch)
            for m in reversed(self.modes):
                m.__exit__(*exc)

    contexts = {
        "fn mode": Parts(lambda: [PassFunction()]),
        "dispatch mode": Parts(lambda: [PassDispatch()]),
        "both": Parts(lambda: [PassFunction(), PassDispatch()]),
        "paths": Parts(lambda: [], paths=True),
        "watch modes": Parts(lambda: [function_mode(pass_call), dispatch_mode(lambda func, args, out: None)]),
        "+ on_call": Parts(lambda: [function_mode(on_call()), dispatch_mode(lambda func, args, out: None)]),
        "+ paths": Parts(lambda: [function_mode(on_call()), dispatch_mode(lambda func, args, out: None)], paths=True),
        "watched": wt.watch_torch,
    }
    torch.set_num_threads(1)
    print_header(f"torch {torch.__version__}")
    print(f"{'pass':<9}{'plain':>12}" + "".join(f"{label:>15}" for label in contexts) + "   (x plain)")
    thread_time_rows(small_passes(), list(contexts.values()), 10 if quick else 30, 14)


def main() -> None:
    if "--split" in sys.argv:
        split("--quick" in sys.argv)
        return
    if "--floors" in sys.argv:
        floors("--quick" in sys.argv)
        return
    if "--first-block-child" in sys.argv:
        at = sys.argv.index("--first-block-child")
        first_block_child(sys.argv[at + 1], sys.argv[at + 2])
        return
    quick = "--quick" in sys.argv
    import torch

    import strided.diagnose.watch_torch as wt
    from strided.diagnose.watch_torch import watch_torch
    from torch_gpt import GPT, batch

    PassFunction, PassDispatch = pass_modes()

    class BareModes:
        """The floor: the same two modes doing nothing but pass each call on."""

        hooks = False

        def __enter__(self) -> None:
            self.modes = (PassFunction(), PassDispatch())
            modules = torch.nn.modules.module
            self.handles = [modules.register_module_forward_pre_hook(lambda m, a: None),
                            modules.register_module_forward_hook(lambda m, a, o: None, always_call=True)] \
                if self.hooks else []
            for m in self.modes:
                m.__enter__()

        def __exit__(self, *exc: object) -> None:
            for m in reversed(self.modes):
                m.__exit__(*exc)
            for h in self.handles:
                h.remove()

    class BareModesHooks(BareModes):
        """... and two global module hooks, doing nothing."""

        hooks = True

    class BareModesPaths(BareModes):
        """... and the watch's module paths alone (a watch whose modes are never entered)."""

        def __enter__(self) -> None:
            super().__enter__()
            self.watch = watch_torch()
            self.watch._thread = threading.get_ident()
            wt._watch_modules(torch, self.watch)

        def __exit__(self, *exc: object) -> None:
            wt._unwatch_modules(torch, self.watch)
            super().__exit__(*exc)

    torch.set_num_threads(1)
    print_header(f"torch {torch.__version__}")
    sizes = {
        "tiny": dict(vocab=32, C=16, heads=4, T=8, layers=2, B=2),
        "small": dict(SMALL),
    }
    print(f"{'model':<7}{'pass':<9}{'ops':>6}{'plain':>12}{'bare modes':>12}{'+ paths':>12}{'+ hooks':>12}"
          f"{'watched':>12}{'bare/plain':>12}{'+paths/plain':>14}{'+hooks/plain':>14}{'watched/plain':>15}")
    for label, cfg in sizes.items():
        B = cfg.pop("B")
        torch.manual_seed(0)
        model = GPT(**cfg)
        idx, targets = batch(model, B=B, T=cfg["T"], vocab=cfg["vocab"])
        for name, f in passes(model, idx, targets).items():
            with watch_torch() as w:
                f()
            number = 5 if label == "small" else 20
            samples = measure([f, inside(BareModes, f), inside(BareModesPaths, f), inside(BareModesHooks, f),
                               inside(watch_torch, f)], number=number, repeat=3 if quick else 7)
            plain_t, bare_t, paths_t, hooks_t, watched_t = (min(s) for s in samples)
            print(f"{label:<7}{name:<9}{len(w.steps):>6}{fmt_time(plain_t):>12}{fmt_time(bare_t):>12}"
                  f"{fmt_time(paths_t):>12}{fmt_time(hooks_t):>12}{fmt_time(watched_t):>12}"
                  f"{bare_t / plain_t:>11.2f}x{paths_t / plain_t:>13.2f}x{hooks_t / plain_t:>13.2f}x"
                  f"{watched_t / plain_t:>14.2f}x")
    first_blocks(3 if quick else 5)


if __name__ == "__main__":
    main()
