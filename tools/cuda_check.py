"""A one-off look at ``explain`` and ``watch_torch`` on CUDA tensors (run on a machine with a GPU).

Nothing in the library or its tests depends on this script; it prints what the diagnostics say
about host <-> device copies, ``.contiguous()`` on the GPU and a small GPT's forward + backward
there, beside what PyTorch's own allocator counted, so a person can compare the two:

    python tools/cuda_check.py        # falls back to the CPU where no GPU is seen
"""

from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))

import torch  # noqa: E402

from strided import explain, watch_torch  # noqa: E402

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"


def sync() -> None:
    if DEVICE == "cuda":
        torch.cuda.synchronize()


def explain_on_device() -> None:
    x = torch.randn(64, 128, device=DEVICE)
    print(f"== explain on {DEVICE}: x = torch.randn(64, 128).t()")
    print(explain(x.t()))
    for op, args in [("contiguous", ()), ("view", (-1,)), ("reshape", (-1,)), ("to", ("cpu",)),
                     ("to", (DEVICE,)), ("to", (torch.float16,)), ("transpose", (0, 1))]:
        r = explain(x.t(), op, *args)
        print(f"-- x.t().{op}{args}: outcome={r.outcome}")
        print(r)
        if op == "reshape":  # the prediction against what torch does on the device
            y = x.t().reshape(-1)
            print("   torch: shares storage:", y.untyped_storage().data_ptr() == x.untyped_storage().data_ptr())


def watch_copies() -> None:
    print(f"== watch_torch: host <-> {DEVICE} copies and a GPU contiguous()")
    torch.cuda.reset_peak_memory_stats() if DEVICE == "cuda" else None
    before = torch.cuda.memory_allocated() if DEVICE == "cuda" else 0
    with watch_torch() as w:
        a = torch.randn(256, 512)
        b = a.to(DEVICE)
        c = b.t().contiguous()
        d = (c @ b).relu()
        e = d.cpu()
        del c
    sync()
    print(w)
    print("steps:")
    for s in w.steps:
        print("  ", s)
    print("copies:", [(c.name, c.nbytes, c.asked) for c in w.copies])
    print("watch allocated_bytes", w.allocated_bytes, "peak_bytes", w.peak_bytes)
    if DEVICE == "cuda":
        print("torch.cuda peak over the block", torch.cuda.max_memory_allocated() - before,
              "allocated now", torch.cuda.memory_allocated() - before)
    del a, b, d, e


def gpt_timing() -> None:
    from torch_gpt import GPT  # the tests' small GPT

    torch.manual_seed(0)
    B, T, C = 8, 64, 128
    model = GPT(vocab=96, C=C, heads=4, layers=4, T=T).to(DEVICE)
    idx = torch.randint(0, 96, (B, T), device=DEVICE)
    tgt = torch.randint(0, 96, (B, T), device=DEVICE)

    def step() -> None:
        model.zero_grad(set_to_none=True)
        model(idx, tgt).backward()

    def forward() -> None:
        with torch.no_grad():
            model(idx, tgt)

    def timed(run: object, watched: bool) -> float:
        sync()
        t0 = time.perf_counter()
        if watched:
            with watch_torch():
                run()  # type: ignore[operator]
        else:
            run()  # type: ignore[operator]
        sync()
        return time.perf_counter() - t0

    first = timed(step, True)
    print(f"== GPT on {DEVICE}: first watched fwd+bwd {first * 1e3:.0f} ms")
    for name, run in (("fwd (no_grad)", forward), ("fwd+bwd", step)):
        plain = min(timed(run, False) for _ in range(10))
        watched = min(timed(run, True) for _ in range(10))
        print(f"   {name}: plain {plain * 1e3:.2f} ms, watched {watched * 1e3:.2f} ms, ratio {watched / plain:.2f}")
    with watch_torch() as w:
        step()
    print("\n".join(str(w).splitlines()[:16]))


if __name__ == "__main__":
    print("torch", torch.__version__, "device", DEVICE,
          torch.cuda.get_device_name() if DEVICE == "cuda" else "")
    explain_on_device()
    watch_copies()
    gpt_timing()
