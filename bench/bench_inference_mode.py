"""inference_mode's costs: small in-place ops before and after the first block, and an op inside a
block against the same op under no_grad, strided beside PyTorch.

Run from the repository root (a few seconds):

    .venv/bin/python bench/bench_inference_mode.py

Why it matters: entering ``strided.inference_mode()`` sets the process-wide flag that sends every
later in-place op through autograd's checked path (``grad_mode.STATE["used"]``, the same flag a
first ``requires_grad=True`` tensor sets), and an open block listens to every op record to mark
the memory it makes. PyTorch's inference mode is a speed trick instead. Measured on 2 shared
cores (red team, issue 25): three in-place ops on 100 floats 8.1 us before the first block, 17.3
us after (2.1x; PyTorch 8.5 and 8.9 us); ``x * 2`` inside a block 22 us against 5.5 us under
no_grad (PyTorch 7.2 us inside a block).
"""

from __future__ import annotations

import timeit

import strided


def _best(fn: object, number: int) -> float:
    return min(timeit.repeat(fn, number=number, repeat=5)) / number * 1e6  # type: ignore[arg-type]


def main() -> None:
    import torch

    for m in (strided, torch):
        x, y = m.ones(100), m.ones(100)

        def inplace(x: object = x, y: object = y) -> None:
            x.add_(y)  # type: ignore[attr-defined]
            x.mul_(1.0)  # type: ignore[attr-defined]
            x[0:10].add_(1.0)  # type: ignore[index]

        before = _best(inplace, 3000)
        with m.inference_mode():
            m.ones(3)
        after = _best(inplace, 3000)

        def in_block(m: object = m, x: object = x) -> None:
            with m.inference_mode():  # type: ignore[attr-defined]
                x * 2  # type: ignore[operator]

        def in_no_grad(m: object = m, x: object = x) -> None:
            with m.no_grad():  # type: ignore[attr-defined]
                x * 2  # type: ignore[operator]

        print(f"{m.__name__:8} 3 in-place ops: {before:6.2f} us before the first block, {after:6.2f} us after "
              f"({after / before:.2f}x); x * 2 in a block {_best(in_block, 2000):6.2f} us, "
              f"under no_grad {_best(in_no_grad, 2000):6.2f} us")


if __name__ == "__main__":
    main()
