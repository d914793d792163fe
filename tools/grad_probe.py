"""A randomized differential probe of first and second derivatives against PyTorch.

Every sample of ``tests/double_samples.py`` (one call per registry op with a backward rule) runs
in both libraries on inputs drawn in float32, float64, complex64, complex128, float16 and
bfloat16, through random layouts of its leaves (contiguous, permuted, sliced with a step, flipped,
expanded from a size-1 dim) and, for the samples whose inputs all have the default (2, 3) shape,
in other shapes too (0-d, (1, 1), (0, 3), (3, 0, 2)). For each case it compares with torch:

- the first derivatives ``autograd.grad(outs, leaves, v, create_graph=True)``: None-ness, dtype,
  shape, values (bit for bit, else within a dtype's tolerance), NaN positions;
- the second derivatives of ``sum(first * w)`` with respect to the leaves and ``v``, the same way;
- errors: the same builtin class at the same step (forward, first, second).

Not a test (it takes minutes and reports last-bit differences it does not judge): a probe whose
findings become tests. Run from the root of the tree::

    PYTHONPATH=src:tests python tools/grad_probe.py [--seed N] [--draws K] [--ops a,b] [--dtypes f32,...]

It prints one line per case that differs (``FAR`` beyond tolerance, ``NAN`` NaN/inf positions,
``META`` dtype/shape/None-ness, ``ERR`` error classes, ``ULP`` within tolerance but not bit equal)
and a count per kind.

``--versions`` probes the saved tensors instead: each sample runs on non-leaf copies of its
inputs, then (under no_grad) one output or one input is multiplied by 1.5 in place before the
first derivative. PyTorch raises "modified by an inplace operation" exactly where its node saved
that tensor; a ``VERSION`` line is a case where one library raises and the other does not, a
``SILENT`` line one where strided did not raise and its gradient changed with the write (it read
the written values: a wrong gradient, the worst kind).
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path.cwd() / "tests"))

import torch  # noqa: E402
import torch.nn.functional as TF  # noqa: E402

import strided as st  # noqa: E402
import strided.nn.functional as SF  # noqa: E402
from double_samples import SAMPLES, Sample  # noqa: E402

DTYPES = {"f32": "float32", "f64": "float64", "c64": "complex64", "c128": "complex128",
          "f16": "float16", "bf16": "bfloat16"}
# beyond these relative differences (of the largest magnitude compared) a derivative is FAR
TOLERANCE = {"float64": 1e-9, "complex128": 1e-9, "float32": 1e-4, "complex64": 1e-4,
             "float16": 2e-2, "bfloat16": 8e-2}
ALT_SHAPES = ((), (1, 1), (0, 3), (3, 0, 2), (4, 1, 3))
LAYOUTS = ("contiguous", "permuted", "sliced", "flipped", "expanded")


def _draw(rng: np.random.Generator, domain: str, shape: tuple, complex_: bool) -> np.ndarray:
    """Values from a sample's domain (as test_autograd_double's), with an imaginary part for a
    complex dtype."""
    lo, hi = {"pos": (0.5, 1.5), "unit": (-0.8, 0.8), "gt1": (1.2, 2.0)}.get(domain, (0.3, 1.2))
    a = rng.uniform(lo, hi, shape)
    if domain == "any":
        a = a * rng.choice([-1.0, 1.0], shape)
    if complex_:
        a = a + 1j * rng.uniform(-0.3, 0.3, shape)
    return a


def _leaf(L: Any, arr: np.ndarray, dtype: str, layout: str) -> tuple:
    """(the leaf, the op's input: the leaf seen through ``layout``; the same values)."""
    dt = getattr(L, dtype)
    shape, nd = arr.shape, arr.ndim
    if layout == "permuted" and nd >= 2:
        order = tuple(reversed(range(nd)))
        t = L.tensor(arr.transpose(order).copy(), dtype=dt, requires_grad=True)
        return t, t.permute(*order)
    if layout == "sliced" and nd >= 1:
        big = np.repeat(arr, 2, axis=-1)
        big[..., 1::2] += 0.25
        t = L.tensor(big, dtype=dt, requires_grad=True)
        return t, t[..., ::2]
    if layout == "flipped" and nd >= 1:
        t = L.tensor(np.flip(arr, -1).copy(), dtype=dt, requires_grad=True)
        return t, t.flip(-1)
    if layout == "expanded" and nd >= 1 and shape[0] != 1:
        t = L.tensor(arr[:1].copy(), dtype=dt, requires_grad=True)
        return t, t.expand(*shape)
    t = L.tensor(arr, dtype=dt, requires_grad=True)
    return t, t


def _floats(out: Any) -> list:
    outs = out if isinstance(out, (tuple, list)) else (out,)
    return [o for o in outs if hasattr(o, "dtype") and (o.dtype.is_floating_point or o.dtype.is_complex)]


def _builtin(e: BaseException) -> str:
    return next(c.__name__ for c in type(e).__mro__ if c.__module__ == "builtins")


def _record(L: Any, t: Any) -> Any:
    """A derivative as (dtype name, shape, complex128 values) or None."""
    if t is None or (L is torch and t._is_zerotensor()):
        return None
    if L is torch:
        t = t.resolve_conj().resolve_neg()
    return str(t.dtype).split(".")[-1], tuple(t.shape), t.detach().to(L.complex128).numpy()


def _real(t: Any) -> Any:
    return t.real if t.dtype.is_complex else t


def _random(L: Any, rng: np.random.Generator, like: Any) -> Any:
    """A tensor of ``like``'s shape and dtype with values in [-1, 1] (complex: both parts)."""
    shape = tuple(like.shape)
    a = rng.uniform(-1, 1, shape)
    if like.dtype.is_complex:
        a = a + 1j * rng.uniform(-1, 1, shape)
    return L.tensor(a, dtype=like.dtype)


def derivatives(L: Any, F: Any, sample: Sample, arrs: list, dtype: str, layouts: list, seed: int) -> dict:
    """{step: result or ('error', class, first line)} for the forward, first and second derivatives."""
    out: dict = {}
    try:
        leaves, views = zip(*(_leaf(L, a, dtype, lay) for a, lay in zip(arrs, layouts)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            outs = [o for o in _floats(sample.call(L, F, *views)) if o.requires_grad]
    except Exception as e:  # noqa: BLE001 - the error is what is compared
        out["forward"] = ("error", _builtin(e), str(e).splitlines()[0][:120] if str(e) else "")
        return out
    rng = np.random.default_rng(seed)
    try:
        vs = [_random(L, rng, o).requires_grad_(True) for o in outs]
        first = L.autograd.grad(outs, leaves, vs, create_graph=True, allow_unused=True) if outs else ()
        out["first"] = [_record(L, g) for g in first]
    except Exception as e:  # noqa: BLE001
        out["first"] = ("error", _builtin(e), str(e).splitlines()[0][:120] if str(e) else "")
        return out
    try:
        ws = [_random(L, rng, t) for t in leaves]
        # (a complex term's real part: autograd differentiates real losses)
        terms = [_real((g * w).sum()) for g, w in zip(first, ws) if g is not None and g.requires_grad]
        wrt = (*leaves, *vs)
        second = L.autograd.grad(sum(terms[1:], terms[0]), wrt, allow_unused=True) if terms else ()
        out["second"] = [_record(L, g) for g in second]
    except Exception as e:  # noqa: BLE001
        out["second"] = ("error", _builtin(e), str(e).splitlines()[0][:120] if str(e) else "")
    return out


def _same_nonfinite(a: np.ndarray, b: np.ndarray) -> bool:
    return bool((np.isnan(a) == np.isnan(b)).all() and (np.isinf(a) == np.isinf(b)).all()
                and (a[np.isinf(a)] == b[np.isinf(b)]).all())


def compare(theirs: dict, mine: dict, dtype: str) -> list:
    """[(kind, text)] of the differences, kinds as the module docstring's."""
    found = []
    for step in ("forward", "first", "second"):
        a, b = theirs.get(step), mine.get(step)
        if a is None and b is None:
            continue
        if isinstance(a, tuple) or isinstance(b, tuple):
            if not (isinstance(a, tuple) and isinstance(b, tuple) and a[1] == b[1]):
                found.append(("ERR", f"{step}: torch {a if isinstance(a, tuple) else 'ok'} strided "
                                     f"{b if isinstance(b, tuple) else 'ok'}"))
            break
        if step == "second" and len(a) != len(b):  # (one library's first derivative is not recorded)
            found.append(("REQ", f"first derivatives recorded: torch {bool(a)} strided {bool(b)}"))
            continue
        for k, (p, q) in enumerate(zip(a, b)):
            if p is None or q is None:
                # (a None against an all-zero gradient: PyTorch's undefined grads; only a value is wrong)
                other = q if p is None else p
                if other is not None and np.any(other[2] != 0):
                    found.append(("META", f"{step}[{k}]: torch {p is not None} strided {q is not None} "
                                          f"(the other nonzero)"))
                continue
            if p[:2] != q[:2]:
                found.append(("META", f"{step}[{k}]: torch {p[:2]} strided {q[:2]}"))
                continue
            x, y = p[2], q[2]
            if x.tobytes() == y.tobytes():
                continue
            if not _same_nonfinite(x.real, y.real) or not _same_nonfinite(x.imag, y.imag):
                found.append(("NAN", f"{step}[{k}]: torch {x.ravel()[:6]} strided {y.ravel()[:6]}"))
                continue
            fin = np.isfinite(x)
            diff = np.abs(x[fin] - y[fin])
            scale = max(float(np.abs(x[fin]).max(initial=0)), 1e-30)
            rel = float(diff.max(initial=0)) / scale
            # (the looser of the inputs' and the derivative's: a sample may widen with a float64 constant)
            if rel > max(TOLERANCE.get(p[0], 0.0), TOLERANCE[dtype]):
                found.append(("FAR", f"{step}[{k}]: rel {rel:.2e} torch {x.ravel()[:4]} strided {y.ravel()[:4]}"))
            else:
                found.append(("ULP", f"{step}[{k}]: rel {rel:.1e}"))
    return found


def cases(rng: np.random.Generator, draws: int, ops: set | None, dtypes: list) -> list:
    """[(sample, dtype, shapes, layouts)] drawn: each sample x dtype ``draws`` times."""
    out = []
    for sample in SAMPLES:
        if sample.diverges or (ops and sample.op not in ops):
            continue
        plain = all(s == (2, 3) for s in sample.shapes)
        for dtype in dtypes:
            for k in range(draws):
                shapes = sample.shapes
                if plain and k % 2 == 1:
                    alt = ALT_SHAPES[int(rng.integers(len(ALT_SHAPES)))]
                    shapes = tuple(alt for _ in shapes)
                # (the sample's layouts: a rank-deficient expanded input has no derivative to compare;
                # flipped as sliced, except for the ops that read the storage itself)
                allowed = [lay for lay in LAYOUTS if lay in sample.layouts
                           or (lay == "flipped" and not sample.op.startswith("as_strided"))]
                layouts = [str(rng.choice(allowed)) for _ in shapes]
                out.append((sample, dtype, shapes, layouts))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--draws", type=int, default=3)
    ap.add_argument("--ops", default="")
    ap.add_argument("--dtypes", default=",".join(DTYPES))
    ap.add_argument("--quiet-ulp", action="store_true")
    ap.add_argument("--versions", action="store_true", help="probe the saved tensors' version checks")
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    ops = set(args.ops.split(",")) if args.ops else None
    if args.versions:
        versions(rng, ops, [DTYPES[d] for d in args.dtypes.split(",")])
        return
    kinds: Counter = Counter()
    per_op: Counter = Counter()
    todo = cases(rng, args.draws, ops, [DTYPES[d] for d in args.dtypes.split(",")])
    for sample, dtype, shapes, layouts in todo:
        arrs = [_draw(rng, sample.domain, s, "complex" in dtype) for s in shapes]
        seed = int(rng.integers(1 << 30))
        theirs = derivatives(torch, TF, sample, arrs, dtype, layouts, seed)
        mine = derivatives(st, SF, sample, arrs, dtype, layouts, seed)
        found = compare(theirs, mine, dtype)
        name = sample.op + (f"-{sample.label}" if sample.label else "")
        for kind, text in found:
            kinds[kind] += 1
            if kind != "ULP":
                per_op[name] += 1
            if kind != "ULP" or not args.quiet_ulp:
                print(f"{kind} {name} {dtype} {shapes} {layouts}: {text}", flush=True)
        kinds["cases"] += 1
    print("counts:", dict(kinds))
    print("ops with FAR/NAN/META/ERR:", dict(per_op.most_common()))


def _written(L: Any, F: Any, sample: Sample, arrs: list, dtype: str, what: str, k: int, write: bool) -> Any:
    """The first derivatives of ``sample`` on non-leaf copies of its inputs, after output ``k``
    (``what == "out"``) or input ``k`` was multiplied by 1.5 in place under no_grad (if
    ``write``): a list of arrays or None, "skip" where there is no such tensor, or ("error", text)."""
    leaves = [L.tensor(a, dtype=getattr(L, dtype), requires_grad=True) for a in arrs]
    ins = [leaf.clone() for leaf in leaves]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            outs = [o for o in _floats(sample.call(L, F, *ins)) if o.requires_grad]
    except Exception:  # noqa: BLE001 - the forward's errors are the other mode's business
        return "skip"
    pool = outs if what == "out" else ins
    if k >= len(pool) or not outs:
        return "skip"
    if write:
        try:
            with L.no_grad():
                pool[k].mul_(1.5)
        except RuntimeError:  # (an output that cannot be written: expanded, a view of several)
            return "skip"
    # (a loss linear in the outputs: its derivative with respect to them does not read them;
    # errors compared by their first line: an unbind piece's history refused counts as raised too)
    try:
        terms = [(o * L.tensor(np.resize(np.linspace(-1, 2, 17), tuple(o.shape)), dtype=o.dtype)).sum()
                 for o in outs]
        grads = L.autograd.grad(sum(_real(t) for t in terms), leaves, allow_unused=True)
    except RuntimeError as e:
        return ("error", str(e).splitlines()[0][:100])
    return [None if _record(L, g) is None else _record(L, g)[2] for g in grads]


def versions(rng: np.random.Generator, ops: set | None, dtypes: list) -> None:
    """The ``--versions`` probe (see the module docstring): a line per difference and a count."""
    kinds: Counter = Counter()
    for sample in SAMPLES:
        if sample.diverges or (ops and sample.op not in ops):
            continue
        name = sample.op + (f"-{sample.label}" if sample.label else "")
        for dtype in dtypes:
            arrs = [_draw(rng, sample.domain, s, "complex" in dtype) for s in sample.shapes]
            for what, k in [("out", k) for k in range(3)] + [("in", k) for k in range(len(sample.shapes))]:
                theirs = _written(torch, TF, sample, arrs, dtype, what, k, True)
                mine = _written(st, SF, sample, arrs, dtype, what, k, True)
                if theirs == "skip" or mine == "skip":
                    continue
                kinds["cases"] += 1
                raised = [isinstance(r, tuple) and "modified" in r[1] for r in (theirs, mine)]
                if raised[0] != raised[1]:
                    kinds["VERSION"] += 1
                    print(f"VERSION {name} {dtype} {what}[{k}]: raises torch {raised[0]} strided {raised[1]}", flush=True)
                if isinstance(mine, list):
                    clean = _written(st, SF, sample, arrs, dtype, what, k, False)
                    if isinstance(clean, list) and any(
                            (p is None) != (q is None) or (p is not None and not np.allclose(p, q, equal_nan=True))
                            for p, q in zip(clean, mine)):
                        kinds["SILENT"] += 1
                        print(f"SILENT {name} {dtype} {what}[{k}]: strided's gradient read the written values",
                              flush=True)
    print("counts:", dict(kinds))


if __name__ == "__main__":
    main()
