"""Generated DTensor cases and the worker that checks ``strided.explain``'s predictions against
REAL DTensor runs (gloo, one process per rank). ``tests/test_dtensor_explain.py`` starts the
workers once (``python tests/dtensor_cases.py RANK WORLD PORT MESH OUT N``); each worker builds every
case for real, asks ``strided.explain`` (meta shadow, no collective), runs the op for real under
its own collective observer (independent of strided's recorder: a dispatch mode written here),
and writes the mismatches to OUT as JSON.

A case is plain data (shapes, placements as strings, the op and its arguments) so that every rank
generates the same list from the same seed.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import socket
import subprocess
import sys
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

OPS = ("view", "reshape", "flatten", "unflatten", "permute", "transpose", "contiguous", "expand",
       "__getitem__", "add", "mul", "matmul", "sum")


def _placement(rng: random.Random, ndim: int, partial: bool = True) -> str:
    kinds = ["R"] + [f"S{d}" for d in range(ndim)] + (["P"] if partial else [])
    return rng.choice(kinds)


def _factor_splits(n: int) -> list[tuple[int, int]]:
    return [(a, n // a) for a in range(1, n + 1) if n % a == 0]


def _reshape_target(rng: random.Random, shape: tuple[int, ...]) -> tuple[int, ...]:
    numel = 1
    for s in shape:
        numel *= s
    choice = rng.randrange(4)
    if choice == 0 or len(shape) == 1 and choice == 1:
        return (numel,)
    if choice == 1:  # merge two adjacent dims
        d = rng.randrange(len(shape) - 1)
        return shape[:d] + (shape[d] * shape[d + 1],) + shape[d + 2:]
    if choice == 2:  # split one dim
        d = rng.randrange(len(shape))
        a, b = rng.choice(_factor_splits(shape[d]))
        return shape[:d] + (a, b) + shape[d + 1:]
    a, b = rng.choice(_factor_splits(numel))  # a fresh 2-d shape (a regrouping, often)
    return (a, b)


def _slice(rng: random.Random, n: int) -> list:
    start = rng.randrange(0, n)
    stop = rng.randrange(start, n + 1)
    return [start, stop, rng.choice([1, 1, 2])]


def make_case(rng: random.Random, mesh_ndim: int) -> dict[str, Any]:
    ndim = rng.choice([1, 2, 2, 3])
    shape = tuple(rng.choice([1, 2, 3, 4, 4, 5, 6, 8]) for _ in range(ndim))
    op = rng.choice(OPS)
    case: dict[str, Any] = {"shape": shape, "dtype": rng.choice(["float32", "float64"]),
                            "placements": [_placement(rng, ndim) for _ in range(mesh_ndim)],
                            "transposed": ndim >= 2 and rng.random() < 0.25, "op": op, "args": [], "other": None}
    if op in ("view", "reshape"):
        case["args"] = list(_reshape_target(rng, shape))
    elif op == "flatten":
        a = rng.randrange(ndim)
        case["args"] = [a, rng.randrange(a, ndim)]
    elif op == "unflatten":
        d = rng.randrange(ndim)
        case["args"] = [d, list(rng.choice(_factor_splits(shape[d])))]
    elif op == "permute":
        perm = list(range(ndim))
        rng.shuffle(perm)
        case["args"] = perm
    elif op == "transpose":
        case["args"] = [rng.randrange(ndim), rng.randrange(ndim)]
    elif op == "expand":
        ones = [d for d in range(ndim) if shape[d] == 1]
        new = list(shape)
        if ones and rng.random() < 0.5:
            new[rng.choice(ones)] = rng.choice([2, 3])
            case["args"] = new
        else:
            case["args"] = [rng.choice([2, 3]), *shape]
    elif op == "__getitem__":
        case["args"] = [_slice(rng, s) for s in shape[: rng.randrange(1, ndim + 1)]]
    elif op in ("add", "mul"):
        k = rng.randrange(1, ndim + 1)
        oshape = [s if rng.random() < 0.7 else 1 for s in shape[ndim - k:]]
        case["other"] = {"shape": oshape, "placements": [_placement(rng, k) for _ in range(mesh_ndim)]}
    elif op == "matmul":
        n = rng.choice([2, 3, 4, 5])
        oshape = [shape[-1]] if rng.random() < 0.2 else [shape[-1], n]
        case["other"] = {"shape": oshape, "placements": [_placement(rng, len(oshape)) for _ in range(mesh_ndim)]}
    elif op == "sum":
        case["args"] = [rng.randrange(ndim)]
    return case


def make_cases(n: int, mesh_ndim: int, seed: int = 27) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    return [make_case(rng, mesh_ndim) for _ in range(n)]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_ranks(script: str, args: list[str], world: int = 2, timeout: float = 240.0) -> list[str]:
    """Run ``python script RANK WORLD PORT *args`` as ``world`` processes (a free port for the
    store); kill any still running after ``timeout`` s (a hung rank must not outlive the test);
    assert every rank exited 0; the ranks' stderr."""
    port = free_port()
    env = {**os.environ, "PYTHONWARNINGS": "ignore", "TORCH_CPP_LOG_LEVEL": "ERROR"}
    procs = [subprocess.Popen([sys.executable, script, str(r), str(world), str(port),
                               *[a.replace("{rank}", str(r)) for a in args]],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env) for r in range(world)]
    try:
        errs = [p.communicate(timeout=timeout)[1].decode(errors="replace") for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    assert all(p.returncode == 0 for p in procs), "\n".join(e[-3000:] for e in errs)
    return errs


@contextlib.contextmanager
def fake_mesh(world: int = 2, rank: int = 0) -> Iterator[Any]:
    """A 1-d mesh of ``world`` on PyTorch's fake process group, this process being ``rank``
    (collectives do nothing; local ops run for real); the process group is torn down after."""
    import torch.distributed as dist
    from torch.distributed.device_mesh import init_device_mesh
    from torch.testing._internal.distributed.fake_pg import FakeStore

    assert not dist.is_initialized()
    dist.init_process_group("fake", store=FakeStore(), rank=rank, world_size=world)
    try:
        yield init_device_mesh("cpu", (world,))
    finally:
        dist.destroy_process_group()


# ---------------------------------------------------------------- inside a worker process


def build(torch: Any, mesh: Any, spec: dict[str, Any], dtype: Any, rank: int, transposed: bool = False) -> Any:
    """A real DTensor of ``spec``'s global shape and placements (Partial: each rank holds a part)."""
    from torch.distributed.tensor import DTensor, Partial, Replicate, Shard, distribute_tensor

    shape = tuple(spec["shape"])
    full = torch.arange(1, 1 + _numel(shape), dtype=dtype).reshape(shape)
    if transposed:
        full = full.transpose(-1, -2).contiguous().transpose(-1, -2)  # same values, non-contiguous
    pl = [Replicate() if p in ("R", "P") else Shard(int(p[1:])) for p in spec["placements"]]
    dt = distribute_tensor(full, mesh, pl, src_data_rank=None)  # every rank has full: no scatter
    if "P" in spec["placements"]:
        final = [Partial() if p == "P" else q for p, q in zip(spec["placements"], pl)]
        dt = DTensor.from_local(dt.to_local() * (rank + 1), mesh, final, run_check=False,
                                shape=dt.shape, stride=dt.stride())
    return dt


def _numel(shape: tuple[int, ...]) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def observer(torch: Any, seen: list) -> Any:
    """Records each functional collective a real run issues: (kind, bytes in, bytes out)."""
    from torch.distributed.tensor import DTensor
    from torch.utils._python_dispatch import TorchDispatchMode

    class Observe(TorchDispatchMode):
        def __torch_dispatch__(self, func: Any, types: Any, args: tuple = (), kwargs: Any = None) -> Any:
            if any(issubclass(t, DTensor) for t in types):
                return NotImplemented
            out = func(*args, **(kwargs or {}))
            if func.namespace == "_c10d_functional" and "wait" not in func.__name__ and "wrap" not in func.__name__:
                seen.append((func.__name__.split(".")[0], args[0].numel() * args[0].element_size(),
                             out.numel() * out.element_size()))
            return out

    return Observe()


KIND = {"all_gather_into_tensor": "all_gather", "all_reduce": "all_reduce", "reduce_scatter_tensor": "reduce_scatter",
        "all_to_all_single": "all_to_all", "broadcast": "broadcast"}


def call_of(case: dict[str, Any], x: Any, other: Any) -> tuple[str, tuple]:
    op, args = case["op"], case["args"]
    if op == "__getitem__":
        return op, (tuple(slice(*a) for a in args),)
    if op == "unflatten":
        return op, (args[0], tuple(args[1]))
    if other is not None:
        return op, (other,)
    return op, tuple(args)


def check_case(torch: Any, mesh: Any, rank: int, case: dict[str, Any]) -> list[str]:
    import strided

    dtype = getattr(torch, case["dtype"])
    x = build(torch, mesh, {"shape": case["shape"], "placements": case["placements"]}, dtype, rank,
              case["transposed"])
    other = build(torch, mesh, case["other"], dtype, rank) if case["other"] else None
    op, args = call_of(case, x, other)
    pred = strided.explain(x, op, *args)
    seen: list = []
    try:
        with observer(torch, seen):
            real = getattr(x, op)(*args)
    except Exception as exc:  # noqa: BLE001 - PyTorch's refusal is the expected answer
        first = str(exc).strip().splitlines()[0]
        want = f"{type(exc).__name__}: {first}"
        return [] if pred.error == want else [f"error: predicted {pred.error!r}, real {want!r}"]
    bad = []
    if pred.error is not None:
        return [f"predicted error {pred.error!r}, real ran"]
    local = real.to_local()
    checks = {
        "placements": (tuple(map(repr, pred.placements)), tuple(map(repr, real.placements))),
        "global shape": (pred.shape, tuple(real.shape)),
        "global strides": (pred.strides, tuple(real.stride())),
        "local shape": (pred.ranks[rank].shape, tuple(local.shape)),
        "local strides": (pred.ranks[rank].strides, tuple(local.stride())),
        "storage offset": (pred.ranks[rank].storage_offset, local.storage_offset()),
        "collectives": ([(c.kind, c.bytes_in, c.bytes_out) for c in pred.collectives],
                        [(KIND[k], i, o) for k, i, o in seen]),
    }
    for name, (p, r) in checks.items():
        if p != r:
            bad.append(f"{name}: predicted {p}, real {r}; x local {tuple(x._local_tensor.stride())} global {tuple(x.stride())}")
    # which global elements this rank holds (ownership, as draw pictures it): its local values are
    # exactly those of the full result at the predicted global indices (Partial results hold parts)
    if not any(repr(p).startswith("Partial") for p in real.placements):
        from strided.diagnose.distributed.ownership import ownership

        own = ownership(tuple(real.shape), tuple(mesh.shape), tuple(real.placements))
        coord = tuple(mesh.get_coordinate())
        full = real.full_tensor().reshape(-1)
        want = full[torch.as_tensor(own.local[coord]).reshape(-1)] if full.numel() else full
        if tuple(own.local[coord].shape) != tuple(local.shape) or not torch.equal(want, local.reshape(-1)):
            bad.append(f"ownership: predicted indices {own.local[coord].tolist()} do not hold rank {rank}'s values")
    # every rank's predicted row matches what that rank really holds (shape; strides where known)
    for row in pred.ranks:
        if row.strides is not None and row.shape == tuple(local.shape) and row.strides != tuple(local.stride()):
            bad.append(f"rank {row.rank}'s strides {row.strides} differ from this rank's {tuple(local.stride())}")
    return bad


def main(rank: int, world: int, mesh_shape: tuple[int, ...], port: int, out: str, n: int) -> None:
    import torch
    import torch.distributed as dist
    from torch.distributed.device_mesh import init_device_mesh

    store = dist.TCPStore("127.0.0.1", port, world, rank == 0, timeout=timedelta(seconds=60))
    dist.init_process_group("gloo", store=store, rank=rank, world_size=world, timeout=timedelta(seconds=60))
    try:
        mesh = init_device_mesh("cpu", mesh_shape)
        results, watch = [], None
        for i, case in enumerate(make_cases(n, len(mesh_shape))):
            try:
                bad = check_case(torch, mesh, rank, case)
            except Exception as exc:  # noqa: BLE001 - a crash in explain is a failure to report
                bad = [f"crash: {type(exc).__name__}: {exc}"]
            if bad:
                results.append({"i": i, "case": case, "bad": bad})
        from dtensor_watch_ranks import watch_scenario

        if len(mesh_shape) == 1:
            watch = watch_scenario(mesh, rank)
        with open(out, "w") as f:
            json.dump({"rank": rank, "n": n, "failures": results, "watch": watch}, f)
        # (every rank done before any tears down: rank 0 serves the store, and a rank whose peer has
        # already gone aborted in gloo's teardown now and then, "terminate called without an active
        # exception", on a loaded machine)
        dist.barrier()
    finally:
        dist.destroy_process_group()


if __name__ == "__main__":
    r, w, p, m, o, n = sys.argv[1:7]
    main(int(r), int(w), tuple(int(s) for s in m.split("x")), int(p), o, int(n))
