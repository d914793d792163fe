"""Run one of PyTorch's own test files against strided and count what passes (issue 26).

PyTorch's view, indexing and shape tests (test/test_view_ops.py, test/test_indexing.py,
test/test_shape_ops.py) are not in the torch wheel; get them from PyTorch's repository and keep
them OUTSIDE this repository (their code is a measurement instrument, never ours). Then::

    PYTHONPATH=src .venv/bin/python tools/torch_suites.py /tmp/torch_tests/test_view_ops.py
    PYTHONPATH=src .venv/bin/python tools/torch_suites.py FILE -k view_as  # only ids containing 'view_as'
    PYTHONPATH=src .venv/bin/python tools/torch_suites.py FILE --quiet     # totals and classes only

It needs ``torch`` and ``expecttest`` (torch.testing._internal imports it). It prints one line per
CPU instantiation (``PASS``, ``FAIL``/``ERROR`` with the first line of the error, ``DIFF`` for a
documented deliberate difference, ``N/A`` with the reason), then the totals: ``applicable``
counts PASS + FAIL + ERROR + DIFF. The same tests then run once more on real torch (the control
run, ``--no-control`` skips it): a test that does not pass there either is N/A, since a test file
from another PyTorch version can expect texts or behaviour torch itself no longer has.

How the file sees strided. The file's ``import torch`` (and every ``from torch import ...``) is
bound to a proxy namespace, :class:`TorchProxy`. ``torch.X`` resolves to ``strided.X``; a name
strided lacks raises ``AttributeError: strided has no torch.X``, so a test never silently
measures real PyTorch. Real torch answers only for the test infrastructure:

- ``torch.testing`` and ``torch.testing._internal`` (TestCase, ``instantiate_device_type_tests``,
  ``@dtypes``, the dtype lists of common_dtype, ``make_tensor``): they build and name the tests.
  ``make_tensor`` draws with torch and hands back a strided tensor of the same shape, strides,
  values and requires_grad; ``TestCase.assertEqual``/``assertNotEqual`` receive strided tensors
  and dtypes converted to torch ones (values copied through NumPy), so the comparison is
  PyTorch's own.
- dtypes: while the file loads (decorators such as ``@dtypes(torch.float)`` insist on
  ``torch.dtype``) ``torch.float`` is torch's; while a test runs it is strided's, and the
  ``dtype`` a test is instantiated with is converted to strided's. A dtype strided lacks
  (bfloat16, complex32, quantized, float8) stays torch's: strided refuses it and the test is
  classified N/A (dtype outside strided).
- ``torch.Size`` (a tuple subclass used to spell expected shapes), ``torch.cuda`` /
  ``torch.backends`` (is-available queries), ``inf``/``nan``/``pi``/``e`` (Python floats) and
  ``torch._utils._element_size`` (a dtype's size, answered from strided's dtype).

Classification (see :func:`classify`): N/A is a test that PyTorch's own decorators skip on CPU, or
one that fails only because it needs something outside strided's scope (dtypes above, sparse,
quantized, jit/compile/fx, meta device, CUDA, named tensors, torch's private API); everything else
that does not pass is FAIL (an assertion) or ERROR (any other exception).
"""

from __future__ import annotations

import argparse
import builtins
import functools
import math
import re
import signal
import sys
import time
import types
import unittest
import warnings
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import strided

TEST_TIMEOUT_S = 60

# Phase of the run: while the test file loads, dtype attributes are torch's (the decorators need
# them); while a test runs, strided's. One suite runs at a time, in the main thread.
_RUNNING = {"on": False}

# Needed to build and name the tests; resolved on real torch.
# PyTorch's operator registry and internals: no strided counterpart, never forwarded to torch.
PRIVATE_NAMES = frozenset({"ops", "_C", "_refs", "_prims", "_prims_common", "_subclasses", "library"})
INFRA_NAMES = frozenset({"testing", "cuda", "backends", "Size", "version", "__version__", "mps", "xpu"})
CONSTANTS = {"inf": math.inf, "nan": math.nan, "pi": math.pi, "e": math.e}

# (pattern over the error text or test id, reason): a test failing with this is outside strided's
# scope, not a deviation. Checked in order.
NOT_APPLICABLE = (
    (r"unsupported dtype torch\.(bfloat16|complex32|q\w+|float8\w*|bits\w*)|_bfloat16|_complex32|_q(u)?int",
     "dtype outside strided"),
    (r"sparse|to_sparse|_coo|_csr|_csc|_bsr|_bsc", "sparse tensors"),
    (r"quantiz|qint|quint", "quantized tensors"),
    (r"torch\.(jit|compile|fx|_dynamo|export)\b|_jit|scripting|torchscript", "jit/compile/fx"),
    (r"device='?meta|_meta\b|torch\.device\('meta", "meta device"),
    (r"cuda|_mps\b|pin_memory", "accelerators"),
    (r"named_tensor|names=|refine_names|rename", "named tensors"),
    (r"strided has no torch\._|has no attribute '_|torch private API", "torch private API"),
    (r"check_forward_ad|check_batched_grad|forward_ad|fwAD", "forward-mode AD"),
)

# (pattern over the error text or test id, reason): strided's documented deliberate differences.
DELIBERATE = (
    (r"step must be greater than zero|negative_step", "negative slice steps (strided allows them, as NumPy)"),
    (r"could not be broadcast together with remapped shapes|all elements of broadcast shape must be non-negative",
     "strided.broadcast_to is numpy.broadcast_to (NumPy's ValueError and text; Tensor.broadcast_to is PyTorch's)"),
    (r"test_conj_imag_view|test_conj_neg_view_numpy_error|has conjugate bit set|has negative bit set",
     "conj() copies: strided has no conjugate or negative bit"),
)
# Deliberate differences that need both the test and its error to match (a broader pattern would
# hide a new failure of the same test): (test id pattern, error text pattern, reason).
DELIBERATE_IN_TEST = (
    (r"^test_index_cpu$", r"ValueError not raised by <lambda>",
     "negative slice steps (strided allows them, as NumPy): reference[1:9:-1] is an empty view, not PyTorch's "
     "ValueError; the rest of the test passes without that line"),
    (r"^test_tolist_cpu$", r"Storage\(\): expected a 1-D contiguous NumPy array",
     "strided.Storage is strided's raw buffer; PyTorch's torch.Storage([...]) is its legacy FloatStorage, "
     "which strided has as strided.FloatStorage"),
)


class TorchProxy(types.ModuleType):
    """``torch`` as the test file sees it: strided's names, real torch only for infrastructure.

    >>> p = TorchProxy()
    >>> p.zeros is strided.zeros, p.Size is __import__("torch").Size
    (True, True)
    """

    def __init__(self) -> None:
        super().__init__("torch", "strided seen as torch by tools/torch_suites.py")

    def __getattr__(self, name: str) -> Any:
        import torch

        if name in CONSTANTS:
            return CONSTANTS[name]
        if name == "testing":
            return _TESTING
        if name in INFRA_NAMES:
            return getattr(torch, name)
        if name in PRIVATE_NAMES:
            raise AttributeError(f"strided has no torch.{name} (torch private API)")
        if name == "_utils":
            return _UTILS
        real = getattr(torch, name, None)
        if isinstance(real, torch.dtype) or name == "dtype":
            if not _RUNNING["on"]:
                return real
            if name == "dtype":
                return strided.DType
            return _to_strided_dtype(real)
        if hasattr(strided, name):
            return getattr(strided, name)
        raise AttributeError(f"strided has no torch.{name}")


def _to_strided_dtype(d: Any) -> Any:
    """strided's dtype of torch dtype ``d``; ``d`` itself where strided has none (strided refuses it)."""
    try:
        return strided.dtypes.to_dtype(str(d).removeprefix("torch."))
    except Exception:
        return d


def _to_torch_dtype(d: Any) -> Any:
    import torch

    if isinstance(d, strided.DType):
        return getattr(torch, d.name)
    return d


def to_torch(x: Any) -> Any:
    """Convert strided tensors and dtypes in ``x`` (recursively through lists/tuples/dicts) to torch's.

    A tensor's values are copied (through NumPy); its shape, dtype and requires_grad carry over.
    """
    import numpy as np
    import torch

    if isinstance(x, strided.Tensor):
        return torch.from_numpy(np.array(x.detach()))
    if isinstance(x, strided.DType):
        return _to_torch_dtype(x)
    if isinstance(x, np.ndarray) and any(st < 0 for st in x.strides):
        return torch.from_numpy(x.copy())  # as TestCase.compare_with_numpy does (torch has no negative strides)
    if isinstance(x, (list, tuple)) and not hasattr(x, "_fields"):
        converted = [to_torch(v) for v in x]
        return type(x)(converted) if type(x) in (list, tuple) else tuple(converted)
    if isinstance(x, dict):
        return {k: to_torch(v) for k, v in x.items()}
    return x


def from_torch(t: Any) -> Any:
    """A strided tensor with torch tensor ``t``'s shape, strides, values, dtype and requires_grad."""
    s = strided.empty_strided(tuple(t.shape), tuple(t.stride()), dtype=str(t.dtype).removeprefix("torch."))
    if t.numel():
        with strided.no_grad():
            s.copy_(strided.from_numpy(t.detach().contiguous().numpy().copy()))
    if t.requires_grad:
        s.requires_grad_(True)
    return s


def _make_tensor(*shape: Any, dtype: Any, device: Any = "cpu", **kwargs: Any) -> Any:
    from torch.testing import make_tensor

    t = make_tensor(*shape, dtype=_to_torch_dtype(dtype), device="cpu", **kwargs)
    return from_torch(t)


def _testing_module() -> types.ModuleType:
    import torch.testing

    mod = types.ModuleType("torch.testing")
    mod.__dict__.update({k: v for k, v in vars(torch.testing).items() if not k.startswith("__")})
    mod.make_tensor = _make_tensor
    mod._internal = torch.testing._internal
    return mod


class _LazyModule(types.ModuleType):
    def __init__(self, name: str, build: Callable[[], types.ModuleType]) -> None:
        super().__init__(name)
        self._build = build
        self._mod: types.ModuleType | None = None

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        if self._mod is None:
            self._mod = self._build()
        return getattr(self._mod, name)


def _utils_module() -> types.ModuleType:
    mod = types.ModuleType("torch._utils")
    mod._element_size = lambda d: _to_strided_dtype(_to_torch_dtype(d)).itemsize
    return mod


_TESTING = _LazyModule("torch.testing", _testing_module)
_UTILS = _LazyModule("torch._utils", _utils_module)


def _converting(test_fn: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap a generic test so its instantiated ``dtype``/``dtypes`` arrive as strided dtypes."""

    @functools.wraps(test_fn)
    def run(self: Any, *args: Any, **kwargs: Any) -> Any:
        for key in ("dtype", "dtypes"):
            if key in kwargs:
                v = kwargs[key]
                kwargs[key] = (type(v)(_to_strided_dtype(d) for d in v) if isinstance(v, (list, tuple))
                               else _to_strided_dtype(v))
        return test_fn(self, *args, **kwargs)

    return run


def _testcase_class() -> type:
    from torch.testing._internal.common_utils import TestCase

    class StridedTestCase(TestCase):
        """PyTorch's TestCase, comparing strided results by converting them to torch first."""

        def assertEqual(self, x: Any, y: Any, *args: Any, **kwargs: Any) -> None:  # noqa: N802
            super().assertEqual(to_torch(x), to_torch(y), *args, **kwargs)

        def assertNotEqual(self, x: Any, y: Any, *args: Any, **kwargs: Any) -> None:  # noqa: N802
            super().assertNotEqual(to_torch(x), to_torch(y), *args, **kwargs)

        def compare_with_numpy(self, torch_fn: Any, np_fn: Any, tensor_like: Any,
                               device: Any = None, dtype: Any = None, **kwargs: Any) -> None:
            # PyTorch's version builds its input with real torch; this one builds a strided tensor
            # (from the list, or the given tensor) and compares fn(strided) with fn(NumPy) the same way.
            import numpy as np

            if isinstance(tensor_like, strided.Tensor):
                a, t = np.array(tensor_like.detach()), tensor_like
            else:
                sdtype = _to_strided_dtype(_to_torch_dtype(dtype)) if dtype is not None else None
                a = np.array(tensor_like, dtype=None if sdtype is None else sdtype.numpy)
                t = strided.tensor(tensor_like, dtype=sdtype)
            self.assertEqual(np_fn(a), torch_fn(t), **kwargs)

    return StridedTestCase


def _instantiate(generic: type, scope: dict[str, Any], **kwargs: Any) -> None:
    from torch.testing._internal.common_device_type import instantiate_device_type_tests

    for name, fn in list(vars(generic).items()):
        if name.startswith("test") and callable(fn):
            setattr(generic, name, _converting(fn))
    kwargs.pop("only_for", None)
    kwargs.pop("except_for", None)
    instantiate_device_type_tests(generic, scope, only_for="cpu", **kwargs)


class _PhaseDict(dict):  # type: ignore[type-arg]
    """A torch<->NumPy dtype table whose torch dtypes read as strided's while a test runs."""

    def _conv(self, x: Any) -> Any:
        return _to_strided_dtype(x) if _RUNNING["on"] else x

    def items(self) -> Any:  # type: ignore[override]
        return [(self._conv(k), self._conv(v)) for k, v in super().items()]

    def keys(self) -> Any:  # type: ignore[override]
        return [self._conv(k) for k in super().keys()]

    def values(self) -> Any:  # type: ignore[override]
        return [self._conv(v) for v in super().values()]

    def __iter__(self) -> Any:
        return iter(self.keys())

    def __getitem__(self, key: Any) -> Any:
        return self._conv(super().__getitem__(_to_torch_dtype(key)))

    def __contains__(self, key: Any) -> bool:
        return super().__contains__(_to_torch_dtype(key))


def _dtype_list(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A common_dtype helper (``all_types_and(...)``) taking and, while a test runs, giving strided dtypes."""

    @functools.wraps(fn)
    def helper(*args: Any, **kwargs: Any) -> Any:
        out = fn(*(_to_torch_dtype(a) for a in args), **kwargs)
        if _RUNNING["on"] and isinstance(out, (list, tuple)):
            return type(out)(_to_strided_dtype(d) for d in out) if type(out) in (list, tuple) else tuple(
                _to_strided_dtype(d) for d in out)
        return out

    return helper


def _internal_substitutes() -> dict[str, Any]:
    from torch.testing._internal import common_dtype, common_utils

    subs: dict[str, Any] = {"TestCase": _testcase_class(), "make_tensor": _make_tensor,
                            "instantiate_device_type_tests": _instantiate,
                            # gradient checks run on strided's autograd, not torch's
                            "gradcheck": strided.autograd.gradcheck, "gradgradcheck": strided.autograd.gradgradcheck}
    for name in ("numpy_to_torch_dtype_dict", "torch_to_numpy_dtype_dict"):
        subs[name] = _PhaseDict(getattr(common_utils, name))
    for name, fn in vars(common_dtype).items():
        if callable(fn) and not isinstance(fn, type) and not name.startswith("_") and fn.__module__ == common_dtype.__name__:
            subs[name] = _dtype_list(fn)
    return subs


class _SubstitutingModule(types.ModuleType):
    """A real torch.testing module with the harness's substitutes in front."""

    def __init__(self, real: types.ModuleType, subs: dict[str, Any]) -> None:
        super().__init__(real.__name__)
        self._real = real
        self._subs = subs

    def __getattr__(self, name: str) -> Any:
        if name in self._subs:
            return self._subs[name]
        return getattr(self._real, name)


def _importer(proxy: TorchProxy, subs: dict[str, Any]) -> Callable[..., Any]:
    import importlib

    def _import(name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0) -> Any:
        if level or not (name == "torch" or name.startswith("torch.")):
            return builtins.__import__(name, globals, locals, fromlist, level)
        if not fromlist or name == "torch":
            return proxy
        if name.startswith("torch.testing"):
            if name == "torch.testing":
                return _SubstitutingModule(importlib.import_module(name), {"make_tensor": _make_tensor})
            return _SubstitutingModule(importlib.import_module(name), subs)
        obj: Any = proxy
        for part in name.split(".")[1:]:
            obj = getattr(obj, part)
        return obj

    return _import


def load_suite(path: str | Path, source: str | None = None, *, on_strided: bool = True) -> dict[str, Any]:
    """Execute a PyTorch test file with ``torch`` bound to strided (or, ``on_strided=False``, to
    real torch: the control run); return its namespace."""
    path = Path(path)
    source = path.read_text() if source is None else source
    bdict = dict(vars(builtins))
    if on_strided:
        bdict["__import__"] = _importer(TorchProxy(), _internal_substitutes())
    scope: dict[str, Any] = {"__name__": f"torch_suite_{path.stem}", "__file__": str(path), "__builtins__": bdict}
    _RUNNING["on"] = False
    exec(compile(source, str(path), "exec"), scope)
    return scope


def classify(test_id: str, outcome: str, text: str) -> tuple[str, str]:
    """(status, reason): status PASS, FAIL, ERROR, DIFF (a documented deliberate difference) or N/A
    (reason: the scope class, the difference or the skip reason).

    >>> classify("test_x_cpu_bfloat16", "error", "unsupported dtype torch.bfloat16; ...")
    ('N/A', 'dtype outside strided')
    >>> classify("test_y_cpu_float32", "fail", "AssertionError: Tensor-likes are not equal!")
    ('FAIL', '')
    """
    if outcome == "pass":
        return "PASS", ""
    if outcome == "skip":
        return "N/A", f"skipped by PyTorch's decorators: {text}"
    for pattern, reason in NOT_APPLICABLE:
        if re.search(pattern, test_id) or re.search(pattern, text):
            return "N/A", reason
    for pattern, reason in DELIBERATE:
        if re.search(pattern, test_id) or re.search(pattern, text):
            return "DIFF", reason
    for id_pattern, text_pattern, reason in DELIBERATE_IN_TEST:
        if re.search(id_pattern, test_id) and re.search(text_pattern, text):
            return "DIFF", reason
    return ("FAIL" if outcome == "fail" else "ERROR"), ""


class _Result(unittest.TestResult):
    def __init__(self) -> None:
        super().__init__()
        self.rows: list[tuple[str, str, str]] = []  # (test id, outcome, error text)

    def addSuccess(self, test: Any) -> None:  # noqa: N802
        self.rows.append((test._testMethodName, "pass", ""))

    def addFailure(self, test: Any, err: Any) -> None:  # noqa: N802
        self.rows.append((test._testMethodName, "fail", _error_text(err)))

    def addError(self, test: Any, err: Any) -> None:  # noqa: N802
        name = getattr(test, "_testMethodName", str(test))
        self.rows.append((name, "error", _error_text(err)))

    def addSkip(self, test: Any, reason: str) -> None:  # noqa: N802
        self.rows.append((test._testMethodName, "skip", reason))

    def addExpectedFailure(self, test: Any, err: Any) -> None:  # noqa: N802
        self.rows.append((test._testMethodName, "pass", ""))

    def addUnexpectedSuccess(self, test: Any) -> None:  # noqa: N802
        self.rows.append((test._testMethodName, "fail", "unexpected success"))


SHOW_TRACEBACK = {"on": False}


def _error_text(err: Any) -> str:
    exc_type, exc, tb = err
    if SHOW_TRACEBACK["on"]:
        import traceback

        print("".join(traceback.format_exception(exc_type, exc, tb)[-6:]), file=sys.stderr)
    return f"{exc_type.__name__}: {exc}"


def _timeout(signum: int, frame: Any) -> None:
    raise TimeoutError(f"test ran past {TEST_TIMEOUT_S} s")


def run_suite(scope: dict[str, Any], select: str = "") -> list[tuple[str, str, str]]:
    """Run the CPU instantiations in ``scope``; return (test id, status, reason or first error line)."""
    loader = unittest.TestLoader()
    suite = unittest.TestSuite()
    for name, obj in scope.items():
        if isinstance(obj, type) and issubclass(obj, unittest.TestCase) and name.endswith("CPU"):
            for test in loader.loadTestsFromTestCase(obj):
                if select in f"{name}.{test._testMethodName}":
                    suite.addTest(test)
    rows: list[tuple[str, str, str]] = []
    old = signal.signal(signal.SIGALRM, _timeout) if hasattr(signal, "SIGALRM") else None
    _RUNNING["on"] = True
    try:
        with warnings.catch_warnings():
            # Deprecation chatter is not printed; the filters stay as they are, since tests count
            # warnings with catch_warnings(record=True), which puts its own recorder in place.
            warnings.showwarning = lambda *args, **kwargs: None
            for test in suite:
                rows.extend(_run_one(test, alarm=old is not None))
    finally:
        _RUNNING["on"] = False
        if old is not None:
            signal.signal(signal.SIGALRM, old)
    return rows


def _run_one(test: Any, alarm: bool) -> list[tuple[str, str, str]]:
    result = _Result()
    if alarm:
        signal.alarm(TEST_TIMEOUT_S)
    try:
        test.run(result)
    finally:
        if alarm:
            signal.alarm(0)
    rows = []
    for test_id, outcome, text in result.rows:
        status, reason = classify(test_id, outcome, text)
        first = (reason or text).strip().splitlines()
        rows.append((f"{type(test).__name__}.{test_id}", status, first[0] if first else ""))
    return rows


def apply_control(rows: list[tuple[str, str, str]], control: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    """Mark N/A the tests that do not pass on real torch either (a test file older or newer than
    the installed torch expects other texts or behaviour: nothing strided could match)."""
    bad = {test_id: text for test_id, status, text in control if status != "PASS"}
    return [(test_id, "N/A", f"does not pass on torch {_torch_version()} either: {bad[test_id]}")
            if status in ("FAIL", "ERROR", "DIFF") and test_id in bad else (test_id, status, text) for test_id, status, text in rows]


def _torch_version() -> str:
    import torch

    return str(torch.__version__)


def summarize(rows: list[tuple[str, str, str]]) -> str:
    """The totals line: passed of applicable (PASS, FAIL, ERROR, DIFF), and the N/A count by reason."""
    counts = Counter(status for _id, status, _r in rows)
    applicable = counts["PASS"] + counts["FAIL"] + counts["ERROR"] + counts["DIFF"]
    na = Counter(reason.split(":")[0] for _id, status, reason in rows if status == "N/A")
    na_text = ", ".join(f"{n} {r}" for r, n in na.most_common())
    return (f"{counts['PASS']}/{applicable} applicable passed ({counts['FAIL']} FAIL, {counts['ERROR']} ERROR, "
            f"{counts['DIFF']} DIFF); {counts['N/A']} N/A ({na_text})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", help="a PyTorch test file, e.g. /tmp/torch_tests/test_view_ops.py")
    parser.add_argument("-k", default="", help="run only test ids containing this text")
    parser.add_argument("--quiet", action="store_true", help="print the totals only")
    parser.add_argument("--tb", action="store_true", help="print the end of each error's traceback to stderr")
    parser.add_argument("--no-control", action="store_true",
                        help="skip the control run of the same tests on real torch")
    ns = parser.parse_args(argv)
    SHOW_TRACEBACK["on"] = ns.tb
    start = time.perf_counter()
    rows = run_suite(load_suite(ns.file), ns.k)
    if not ns.no_control:
        tb, SHOW_TRACEBACK["on"] = SHOW_TRACEBACK["on"], False
        rows = apply_control(rows, run_suite(load_suite(ns.file, on_strided=False), ns.k))
        SHOW_TRACEBACK["on"] = tb
    if not ns.quiet:
        for test_id, status, text in rows:
            print(f"{status:5} {test_id}" + (f"  {text[:200]}" if text else ""))
    print(f"{Path(ns.file).name}: {summarize(rows)} in {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
