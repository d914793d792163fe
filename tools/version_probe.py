"""Every registry op's ``_version`` counts against PyTorch's, on the same generated inputs.

For each op of the registry, on ``bench/bench_ops.py``'s generated arguments (five
configurations: (3, 4), (16, 16), a transpose, (0, 4), (1, 1)), the op runs in strided and in
PyTorch (each on its own copy of the arrays), and where it runs in both, this compares:

- ``result``: each tensor of the result's ``_version`` (PyTorch counts the writes ATen made into
  an output in place: ``isclose``'s ``result.__ior__``, ``quantile``'s ``sort_``);
- ``input``: each tensor argument's ``_version`` after the call (an in-place op counts its write);
- ``shared``: after one in-place write into each tensor argument in turn, every result's and
  argument's ``_version`` again: a view shares its base's counter in PyTorch (and a result that
  only aliases its input's memory, ``x.data``-like, does not).

Run from the root of the tree (its ``bench/`` and ``src/`` are the ones used)::

    PYTHONPATH=src python tools/version_probe.py          # every difference, then the counts
    PYTHONPATH=src python tools/version_probe.py --grad   # float inputs requiring grad

:func:`differences` is what ``tests/test_version_registry.py`` asserts over. Not a timing.
"""

from __future__ import annotations

import sys
import warnings
import zlib
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))  # (this tree's bench_ops)

import torch  # noqa: E402

import bench_ops as B  # noqa: E402
import strided as st  # noqa: E402
from strided.opdef import OPDEFS  # noqa: E402

# ops bench_ops gives no arguments (it times them elsewhere or not at all): their makers here
MAKERS = {"split_with_sizes": lambda cfg: ((B.arr(cfg), [1, cfg.shape[0] - 1]), {})}

CONFIGS = (B.Config("(3,4)", (3, 4)), B.Config("(16,16)", (16, 16)), B.Config("(4,3)T", (4, 3), True),
           B.Config("(0,4)", (0, 4)), B.Config("(1,1)", (1, 1)))


def _tensors(value: Any, kind: type) -> list:
    """The tensors of ``value`` (a tensor, or lists / tuples / dicts of them), in order."""
    if isinstance(value, kind):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _tensors(v, kind)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _tensors(v, kind)]
    return []


def _copied(value: Any) -> Any:
    """``value`` with every array copied in its own layout (each library writes its own memory)."""
    if isinstance(value, np.ndarray):
        return value.T.copy().T if value.ndim >= 2 and value.flags.f_contiguous and not value.flags.c_contiguous \
            else value.copy()
    if isinstance(value, list):
        return [_copied(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_copied(v) for v in value)
    return value


def _write(t: Any) -> bool:
    """One in-place write into ``t`` (its own values back): False where it cannot be written."""
    try:
        t.copy_(t.clone())
    except Exception:  # noqa: BLE001 (an overlapping or read-only tensor: both libraries refuse alike)
        return False
    return True


def _observe(fn: Any, prop: bool, args: tuple, kw: dict, kind: type) -> dict[str, Any] | None:
    """The versions one library's call leaves (None where the call fails)."""
    try:
        with np.errstate(all="ignore"):
            out = fn(args[0]) if prop else fn(*args, **kw)
    except Exception:  # noqa: BLE001 (an op that runs in one library only is not compared)
        return None
    inputs = _tensors((args, kw), kind)
    results = _tensors(out, kind)
    seen = {"result": [r._version for r in results], "input": [t._version for t in inputs]}
    for i, t in enumerate(inputs):
        if _write(t):
            seen[f"shared after a write to input {i}"] = ([r._version for r in results], [u._version for u in inputs])
    return seen


def _inplace(name: str, kind: type) -> Any:
    """The in-place method of op ``name`` (``add`` -> ``Tensor.add_``), or None."""
    method = getattr(kind, name + "_", None) if not name.startswith("_") and not name.endswith("_") else None
    return None if method is None else (lambda t, *a, **k: getattr(t, name + "_")(*a, **k))


def _with_out(fn: Any, lib: Any, kind: type, sized: bool) -> Any:
    """``fn`` called with ``out=``: fresh tensors of its result's shapes and dtypes (``sized``), or
    empty ones it must resize."""
    def call(*args: Any, **kw: Any) -> Any:
        made = fn(*_copied_tensors(args, lib, kind), **kw)
        outs = [lib.empty(tuple(r.shape) if sized else (0,), dtype=r.dtype) for r in _tensors(made, kind)]
        if not outs or (not isinstance(made, kind) and len(outs) != len(made)):
            raise TypeError("no tensor result to write out=")
        got = fn(*args, **kw, out=outs[0] if isinstance(made, kind) else tuple(outs))
        return got, outs
    return call


def _copied_tensors(args: tuple, lib: Any, kind: type) -> tuple:
    """``args`` with each tensor cloned (the sizing call leaves the arguments' counters alone)."""
    return tuple(a.clone() if isinstance(a, kind) else a for a in args)


def _calls(name: str, lib: Any, kind: type) -> list[tuple[str, Any, bool]]:
    """The ways op ``name`` is called: ``(how, fn, is a property)``: as the registry names it,
    its in-place method, and with ``out=`` (sized and to resize)."""
    fn, prop = B._resolve(lib, name, kind)
    if fn is None:
        return []
    found = [("call", fn, prop)]
    if not prop:
        inplace = _inplace(name, kind)
        if inplace is not None:
            found.append(("inplace", inplace, False))
        found += [("out", _with_out(fn, lib, kind, True), False), ("out resized", _with_out(fn, lib, kind, False), False)]
    return found


def _converted(value: Any, lib: str, grad: bool) -> Any:
    """A generated argument in ``lib``'s form, its float tensors requiring grad where ``grad``."""
    made = B._convert(_copied(value), lib)
    if grad and isinstance(value, np.ndarray) and value.dtype.kind == "f":
        made.requires_grad_()
    return made


def probe(names: list[str] | None = None, grad: bool = False, configs: tuple = CONFIGS
          ) -> tuple[dict[tuple, tuple], int]:
    """``({(config, op, variant, what): (strided's, torch's)} for every difference, cases compared)``;
    ``grad``: every float tensor argument requires grad (the calls autograd records; in place and
    out= then refused alike)."""
    if names is None:
        names = sorted({op.name for op in OPDEFS.values() if op.kind is not None and op.forward is not None})
    found: dict[tuple, tuple] = {}
    compared = 0
    for cfg in configs:
        for name in names:
            t_calls = {how: (fn, prop) for how, fn, prop in _calls(name, torch, torch.Tensor)}
            for how, s_fn, s_prop in _calls(name, st, st.Tensor):
                if how not in t_calls:
                    continue
                t_fn, t_prop = t_calls[how]
                B._rng = np.random.default_rng(zlib.crc32(f"{cfg.label}|{name}".encode()))
                try:
                    attempts = [("", MAKERS[name](cfg))] if name in MAKERS else B._attempts(name, cfg)
                except B.Skip:
                    continue
                for variant, (args, kw) in attempts:
                    tv = _observe(t_fn, t_prop, tuple(_converted(a, "torch", grad) for a in args),
                                  {k: _converted(v, "torch", grad) for k, v in kw.items()}, torch.Tensor)
                    if tv is None:
                        continue
                    st.manual_seed(0)
                    sv = _observe(s_fn, s_prop, tuple(_converted(a, "strided", grad) for a in args),
                                  {k: _converted(v, "strided", grad) for k, v in kw.items()}, st.Tensor)
                    if sv is None:
                        continue
                    compared += 1
                    label = f"{how} {variant or f'{len(args)} args'}"
                    for what in sorted(set(sv) | set(tv)):
                        if sv.get(what) != tv.get(what):
                            found[(cfg.label, name, label, what)] = (sv.get(what), tv.get(what))
                    if not variant:  # (generic tries: the first that runs in both is the op's case)
                        break
    return found, compared


def differences(names: list[str] | None = None) -> dict[str, list[str]]:
    """Op name -> the lines saying how its versions differ from PyTorch's (ops alike: absent)."""
    found, _ = probe(names)
    by_op: dict[str, list[str]] = {}
    for (label, name, variant, what), (s, t) in sorted(found.items()):
        by_op.setdefault(name, []).append(f"{label} {variant}: {what}: strided {s}, torch {t}")
    return by_op


def main(argv: list[str]) -> int:
    warnings.filterwarnings("ignore")
    grad = "--grad" in argv
    found, compared = probe([a for a in argv if a != "--grad"] or None, grad)
    by_op: dict[str, list[str]] = {}
    for (label, name, variant, what), (s, t) in sorted(found.items()):
        by_op.setdefault(name, []).append(f"{label} {variant}: {what}: strided {s}, torch {t}")
    for name, lines in by_op.items():
        print(name)
        for line in lines:
            print("   ", line)
    print(f"{compared} cases compared; {len(found)} differences in {len(by_op)} ops")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
