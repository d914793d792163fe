"""Every registry op's strided results on generated inputs, dumped for an old-vs-new comparison.

Runs each op of the registry on ``bench/bench_ops.py``'s generated arguments in 11 configurations
((3,4), (16,16), a transpose, (0,4), (1,1), and float32/float64 inputs drawn from NaN, +-inf,
-0.0, huge and tiny values in three layouts), random ops after ``manual_seed(0)``, and pickles
each result (dtype, shape, strides, bytes) or error (class, first line). Run it in two trees and
compare: a fast path that changes a value, a stride, an error or a random stream shows up as a
differing key (uninitialized ``empty*`` memory always differs). Not a test: a merge check.

Run from the root of the tree to dump (its ``bench/`` and ``src/`` are the ones used)::

    PYTHONPATH=src python tools/dump_results.py /tmp/new.pkl
    python tools/dump_results.py --compare /tmp/old.pkl /tmp/new.pkl
"""

from __future__ import annotations

import pickle
import sys
import warnings
import zlib
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path.cwd() / "bench"))  # (the dumped tree's own bench_ops)

import bench_ops as B  # noqa: E402
import strided as st  # noqa: E402
from strided.opdef import OPDEFS  # noqa: E402

_SPECIAL = {np.dtype(np.float32): [np.nan, np.inf, -np.inf, -0.0, 0.0, -1.5, 2.5, 1e30, -1e-30, 0.5, -7.0, 3.0],
            np.dtype(np.float64): [np.nan, np.inf, -np.inf, -0.0, 0.0, -1.5, 2.5, 1e300, -1e-300, 0.5, -7.0, 3.0]}
_MODE: dict[str, Any] = {"special": None}  # (dtype, rng) while a special-values configuration runs
_GENERATED = B.arr


def _arr(cfg: B.Config, shape: tuple[int, ...] | None = None, kind: str = "float") -> np.ndarray:
    """bench_ops' float arrays, or arrays of the special values while a special configuration runs."""
    if kind != "float" or _MODE["special"] is None:
        return _GENERATED(cfg, shape, kind)
    dt, rng = _MODE["special"]
    shape = cfg.shape if shape is None else shape
    make = shape[::-1] if cfg.permuted and len(shape) >= 2 else shape
    a = rng.choice(np.array(_SPECIAL[dt], dt), int(np.prod(make))).reshape(make)
    return a.T if cfg.permuted and len(shape) >= 2 else a


def _record(v: Any) -> Any:
    """A result as comparable plain data: a tensor's dtype, shape, strides and bytes."""
    if isinstance(v, (list, tuple)):
        return [_record(x) for x in v]
    if isinstance(v, st.Tensor):
        a = v.detach().numpy()
        return ("T", str(v.dtype), tuple(v.shape), v.stride(), np.ascontiguousarray(a).tobytes())
    if isinstance(v, np.ndarray):
        return ("A", str(v.dtype), v.shape, np.ascontiguousarray(v).tobytes())
    return ("O", repr(v)[:200])


def _configs() -> list[tuple[str, B.Config, np.dtype | None]]:
    found = [("plain", B.Config("(3,4)", (3, 4)), None), ("plain16", B.Config("(16,16)", (16, 16)), None),
             ("perm", B.Config("(4,3)T", (4, 3), True), None), ("zero", B.Config("(0,4)", (0, 4)), None),
             ("one", B.Config("(1,1)", (1, 1)), None)]
    for dt in (np.dtype(np.float32), np.dtype(np.float64)):
        for c in (B.Config("(3,4)", (3, 4)), B.Config("(5,3)T", (5, 3), True), B.Config("(17,9)", (17, 9))):
            found.append((f"special-{dt.name}-{c.label}", c, dt))
    return found


def dump() -> dict[tuple, Any]:
    """Every op's result (or error) per configuration and argument set."""
    B.arr = _arr
    names = sorted({op.name for op in OPDEFS.values() if op.kind is not None and op.forward is not None})
    results: dict[tuple, Any] = {}
    for label, cfg, dt in _configs():
        for name in names:
            B._rng = np.random.default_rng(zlib.crc32(f"{label}|{name}".encode()))
            _MODE["special"] = None if dt is None else (dt, np.random.default_rng(zlib.crc32(f"{label}|{name}|1".encode())))
            fn, prop = B._resolve(st, name, st.Tensor)
            if fn is None:
                continue
            try:
                attempts = B._attempts(name, cfg)
            except B.Skip:
                continue
            for variant, (args, kw) in attempts:
                sa = B._convert(args, "strided")
                skw = {k: B._convert(v, "strided") for k, v in kw.items()}
                st.manual_seed(0)
                key = (label, name, variant, len(args))
                try:
                    with np.errstate(all="ignore"):
                        results[key] = _record(fn(sa[0]) if prop else fn(*sa, **skw))
                except Exception as e:  # noqa: BLE001 (the error is part of the result)
                    results[key] = ("E", type(e).__name__, str(e).splitlines()[0][:120] if str(e) else "")
    return results


def main(argv: list[str]) -> int:
    warnings.filterwarnings("ignore")
    if argv[:1] == ["--compare"]:
        old, new = (pickle.loads(Path(p).read_bytes()) for p in argv[1:3])
        differ = sorted(k for k in old if k in new and old[k] != new[k])
        for k in differ:
            print("differs:", *k)
        print(f"{len(old)} / {len(new)} results; {len(differ)} differ; {len(set(old) ^ set(new))} in one only")
        return 0
    results = dump()
    Path(argv[0]).write_bytes(pickle.dumps(results))
    print(f"{len(results)} results written to {argv[0]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
