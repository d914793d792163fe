"""Random factories (``rand``, ``randn``, ``randint``, ``randperm``, ``normal``, ``bernoulli``,
``multinomial``, the ``*_like`` forms) and in-place samplers (``uniform_``, ``normal_``,
``random_``, ``bernoulli_``, ``exponential_``, ``geometric_``, ``log_normal_``, ``cauchy_``).

Every sampler takes ``generator=`` (a :class:`strided.ops.creation.generator.Generator`; the process-global
default one when left out) and draws through it under its lock. PyTorch's distributions,
shapes, dtypes and errors; NumPy's PCG64 streams:
# Note: the same seed gives other numbers than PyTorch's (its streams are Philox/Mersenne Twister
# and its kernels consume them in their own order); strided's numbers are reproducible among
# themselves.

The factories report as "alloc" (new memory read from no tensor's elements, as ``zeros``); the
in-place samplers as compute ops on their target. An in-place sampler checks everything (the
target's dtype, writability, arguments) before it draws or writes: a failed call changes
nothing, and writes through a view land in its base.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from operator import setitem
from typing import Any

import numpy as np

from ...args import int_arg, is_number, parse_sizes, sizes_or_size
from ...callsite import user_site
from ...creation import _plain_plan, flag_out, like_strides, sampled_out
from ...device import parse_device
from ...dispatch import OPEN, _result_plans, adopted, created, report, result, result_array
from ...dtypes import (
    _DEFAULT,
    C10_NAME,
    CPP_NAME,
    DEFAULT_INT,
    REDUCED_FLOATS,
    TORCH_NAME,
    DType,
    bool_,
    default_float,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    np_finfo,
    real_of,
    to_dtype,
    uint8,
)
from ...errors import StridedNotImplementedError, StridedRuntimeError, StridedTypeError, join_lines
from ...grad_mode import check_flag, leaf
from ...kernels import check_writable, native, write
from ...kernels.fpstate import quietly
from ...layout import Layout, contiguous_strides, has_internal_overlap
from ...layout import expand as expand_layout
from ...memory_format import MemoryFormat, preserve_format
from ...opdef import Kind, declare
from ...tensor import Tensor, tensor_arg
from ...writes import resize_
from .._support.operands import _cinfo, flat_run
from ..registry import method
from ..shape.broadcasting import broadcast_pair
from .generator import default_generator, resolve

__all__ = [
    "bernoulli", "bernoulli_", "cauchy_", "exponential_", "geometric_", "log_normal_", "multinomial", "normal",
    "normal_", "rand", "rand_like", "randint", "randint_like", "randn", "randn_like", "randperm", "random_",
    "uniform_",
]

Shape = tuple[int, ...]
# (a string: reading ``np.random`` here would load numpy.random at ``import strided``, ~12 ms; it loads on the first draw)
Sampler = Callable[["np.random.Generator"], np.ndarray]


# ---------------------------------------------------------------- shared pieces


def _g(x: float) -> str:
    """A number as PyTorch's C++ messages print it (``2`` for 2.0, ``1e+39``)."""
    return format(float(x), "g")


def _not_implemented(kernel: str, dtype: DType, op: str, fix: str) -> StridedNotImplementedError:
    return StridedNotImplementedError(
        join_lines(f'"{kernel}" not implemented for \'{TORCH_NAME[dtype.name]}\'',
                   f"{op} draws floating-point numbers, and the tensor is {dtype.name}", fix)
    )


def _no_kernel(target: Tensor, kernel: str, op: str, refused: bool) -> None:
    """PyTorch's NotImplementedError for a sampler whose CPU kernel lacks ``target``'s dtype
    (``refused``), after its argument checks; an empty target runs no kernel and is not refused."""
    if refused and target.numel():
        raise StridedNotImplementedError(
            join_lines(f'"{kernel}" not implemented for \'{TORCH_NAME[target._dtype.name]}\'',
                       f"{op} has no kernel for a {target._dtype.name} tensor",
                       "fix: sample into a real float or integer tensor, then convert"))


def _float_only(dtype: DType, kernel: str, op: str) -> None:
    if not dtype.is_floating_point:
        raise _not_implemented(kernel, dtype, op, f"fix: ask for a float dtype, e.g. dtype=strided.{default_float().name}")


def _empty_skip(dtype: DType, shape: Shape) -> bool:
    """Whether a normal draw of ``shape`` skips its kernel, and so its dtype check: PyTorch runs
    ``normal_kernel_cpu`` only on elements, so ``randn(0, dtype=torch.int64)``,
    ``randn_like(empty int tensor)`` and ``empty(0, dtype=int).normal_()`` give empty tensors."""
    return not (dtype.is_floating_point or dtype.is_complex) and 0 in shape


def _float_or_complex(dtype: DType, kernel: str, op: str) -> None:
    """rand/randn (and their ``_like`` forms) also draw complex numbers, as PyTorch's do."""
    if not dtype.is_complex:
        _float_only(dtype, kernel, op)


def _complex_parts(g: np.random.Generator, shape: Shape, dtype: DType, normal: bool,
                   scale: float = 1.0, shift: float = 0.0) -> np.ndarray:
    """A complex ``dtype`` sample of ``shape``: real and imaginary parts drawn independently, as
    PyTorch draws them: each uniform on [0, 1) (rand) or normal with variance 1/2 (randn, so the
    complex number has variance 1); then each part times ``scale`` plus ``shift`` (uniform_'s
    range, normal_'s std and mean: PyTorch adds a real mean to both parts)."""
    part = np.dtype(np.float64) if dtype.itemsize == 16 else np.dtype(np.float32)
    pairs = _standard_normal(g, (*shape, 2), part) * part.type(math.sqrt(0.5)) if normal \
        else g.random((*shape, 2), dtype=part)
    if scale != 1.0 or shift != 0.0:
        pairs = (pairs * scale + shift).astype(part)
    return pairs.view(dtype.numpy).reshape(shape)


def _compute(dtype: DType) -> np.dtype:
    """The NumPy dtype a float sampler draws in: float16 is drawn in float32 and rounded once."""
    return np.dtype(np.float64) if dtype.itemsize == 8 else np.dtype(np.float32)


def _uniform(g: np.random.Generator, shape: Shape, dtype: DType) -> np.ndarray:
    """Uniform on [0, 1) in ``dtype``'s precision (never 1.0 after rounding to ``dtype``)."""
    if dtype in REDUCED_FLOATS:  # multiples of 2**-11 (float16), 2**-8 (bfloat16): exact, so rounding cannot give 1.0
        bits = 11 if dtype is float16 else 8
        return g.integers(0, 2**bits, size=shape).astype(np.float32) * np.float32(2.0**-bits)
    return g.random(shape, dtype=_compute(dtype))


def _sizes(sizes: tuple[Any, ...], op: str) -> Shape:
    if not sizes:
        raise StridedTypeError(
            join_lines(
                f"{op}() received an invalid combination of arguments - got (), but expected one of:",
                " * (tuple of ints size, *, torch.Generator generator, torch.dtype dtype)",
                f"{op} needs the result's sizes: {op}(2, 3) or {op}((2, 3)); {op}(()) makes a 0-d tensor",
            )
        )
    return _nonnegative(parse_sizes(sizes, op))


def _nonnegative(shape: Shape) -> Shape:
    """``shape``, or PyTorch's error for a negative size (raised before anything is drawn)."""
    if any(s < 0 for s in shape):
        result(shape, default_float())  # raises "Trying to create tensor with negative dimension"
    return shape


def _fresh(shape: Shape, dtype: DType, values: np.ndarray | None, name: str, inputs: tuple = (),
           strides: Shape | None = None) -> Tensor:
    """A new ``dtype`` tensor of ``shape`` holding ``values`` (cast once), reported as an allocation."""
    if strides is None and values is not None and values.__class__ is np.ndarray and values.dtype == dtype.numpy \
            and values.shape == shape and values.flags.owndata and values.flags.c_contiguous:
        # (the samplers' values are a fresh array NumPy just drew or computed: already the result)
        t = adopted(values.reshape(-1), _cinfo[shape][2], dtype)
    elif strides is None:
        t, arr = result_array(shape, dtype)
        if values.__class__ is np.ndarray and values.shape == shape:
            arr[...] = values  # (np.copyto's unsafe cast and warnings, without its dispatch)
        elif values is not None:
            np.copyto(arr, values, casting="unsafe")
    else:
        t = result(shape, dtype, strides)
        if values is not None:
            write(t._storage, t._layout, values)
    if OPEN:
        created(name, inputs, t)
    return t


def _like_strides(input: Tensor, dtype: DType, memory_format: MemoryFormat) -> Shape | None:  # noqa: A002
    """The ``*_like`` samplers' result strides: None (contiguous, filled by ``_fresh``'s one
    ``copyto``) for a row-major input kept in its format, as :func:`like_strides` would give it,
    unless ``dtype`` is float16/bfloat16, whose casts ``write`` corrects."""
    lay = input._layout
    if memory_format is preserve_format and dtype not in REDUCED_FLOATS and \
            lay.strides == contiguous_strides(lay.shape):
        return None
    return like_strides(input, memory_format)


def _draws_in_place(input: Tensor, dtype: DType, memory_format: MemoryFormat) -> bool:  # noqa: A002
    """Whether ``rand_like``/``randn_like`` may draw straight into a fresh contiguous result: a
    float32/float64 ``dtype`` (drawn in itself, as ``_uniform`` and ``_compute`` draw it) and a
    result that is contiguous (a row-major input kept in its format). NumPy fills ``out=`` in the
    order it fills a new array: the same numbers, the same stream."""
    lay = input._layout
    return (dtype is float32 or dtype is float64) and memory_format is preserve_format and \
        lay.strides == contiguous_strides(lay.shape)


def _into(target: Tensor, op: str, generator: Any, sample: Callable[[np.random.Generator, Shape], Any],
          fill: Callable[[np.random.Generator, np.ndarray], Any] | None = None) -> Tensor:
    """Draw ``sample(numpy_generator, target.shape)`` and write it into ``target`` (every check done
    by the caller and here, before the draw): the in-place samplers' one write.

    A writable row-major target of a dtype NumPy casts to as PyTorch does (not float16/bfloat16,
    whose casts :func:`write` corrects) takes the flat path: the values are copied straight into
    its run of the storage. The draw is the same and so are the values written (``write`` ends in
    the same ``copyto`` cast, or in a blocked copy of the same values for large targets).

    ``fill`` (given only for a float32/float64 target, which the sample is drawn in): the same
    draw and arithmetic written straight into the flat path's row-major run (``out=``: NumPy fills
    it in the order it fills a new array), no sample array and no copy."""
    lay = target._layout
    shape = lay.shape
    if target._dtype not in REDUCED_FLOATS:
        info = _cinfo[shape]
        flat = flat_run(target, info)
        if flat is not None and flat.flags.writeable:
            g = default_generator if generator is None else resolve(generator, op)
            dest = flat.reshape(shape)
            if fill is not None and flat.flags.aligned:  # (NumPy's out= refuses memory at an odd
                return _filled(target, op, g, dest, fill)  # address: the sample, then its copy)
            with g._lock:
                values = sample(g._np, shape)
            _put(dest, values)
            if OPEN:
                report(op, (), target)
            return target
    check_writable(target._storage, target._layout, op)
    g = resolve(generator, op)
    shape = target._layout.shape
    values = g.draw(lambda n: sample(n, shape))
    write(target._storage, target._layout, values)
    if OPEN:
        report(op, (), target)
    return target


def _put(dest: np.ndarray, values: np.ndarray) -> None:
    """The flat path's write of a sample (an array of ``dest``'s shape) into the target's
    row-major run ``dest``: NumPy's assignment, ``np.copyto(dest, values, casting="unsafe")``'s
    cast and warnings without its Python-level dispatch (~0.15 us against ~0.4; a ufunc writing
    into ``out=`` of another dtype costs more again)."""
    if values.dtype == dest.dtype or values.dtype.kind in "bi":
        # (no cast, or int64/bool into a float32/float64/int/bool/complex target: no cast of them
        # sets a floating-point flag, float16's overflow aside, and it never comes here)
        dest[...] = values
    else:  # (a cast that overflows, log_normal_'s float64 into float32, is quiet as write's)
        quietly(setitem, dest, Ellipsis, values)


def _filled(target: Tensor, op: str, g: Any, dest: np.ndarray, fill: Callable[..., Any], *args: Any) -> Tensor:
    """``fill(numpy_generator, dest, *args)`` under ``g``'s lock (``dest``: ``target``'s run, which
    :func:`_into`'s flat path or :func:`_plain_run` gave), reported as ``op``; ``target``."""
    with g._lock:
        fill(g._np, dest, *args)
    if OPEN:
        report(op, (), target)
    return target


def _sampled(target: Tensor, op: str, dest: np.ndarray, sample: Callable[..., np.ndarray], *args: Any) -> Tensor:
    """``sample(numpy_generator, dest.shape, *args)`` drawn under the default generator's lock and
    written into ``dest`` (``target``'s run, from :func:`_plain_run`), reported as ``op``: the
    in-place samplers' common call, :func:`_into`'s flat path without its checks (the caller made
    them). A sample of the run's 1-D shape is the sample of ``target``'s shape in row-major order:
    NumPy draws elements in that order whatever the shape, so the numbers and stream are the same."""
    with default_generator._lock:
        values = sample(default_generator._np, dest.shape, *args)
    _put(dest, values)
    if OPEN:
        report(op, (), target)
    return target


def _plain_run(self: Any, generator: Any) -> np.ndarray | None:
    """The in-place samplers' common call, before their argument checks (each has checked the
    arguments it takes as passing): the default generator and a plain row-major writable
    float32/float64 tensor, whose run (1-D: the fills write it in the order of ``self``'s
    row-major elements, as :func:`_into`'s flat path does the run shaped as ``self``) is what that
    path writes; None for anything else (the general path then checks and draws)."""
    if generator is not None or self.__class__ is not Tensor:
        return None
    dt = self._dtype
    if not (dt is float32 or dt is float64):
        return None
    shape = self._layout.shape
    flat = flat_run(self, _cinfo[shape])
    if flat is None or not flat.flags.writeable or not flat.flags.aligned:  # (NumPy's out= refuses
        return None  # memory at an odd address: the general path draws a sample and copies it)
    return flat


def _native_fill(self: Any, fill: Callable[..., bool], *args: Any) -> bool:
    """The in-place samplers' compiled common call, before their argument checks (each has
    checked the arguments it takes as passing): ``fill(capsule, run, *args)`` (a kernel of
    ``kernels._randdist``/``_randkernel``: the caller's Python fill step for step, the same numbers
    and stream) under the default generator's lock, where ``self`` is a plain float32/float64
    tensor whose row-major elements are its whole storage array (a fresh tensor's), ``run``;
    False with nothing drawn otherwise, or where the kernel refuses ``run`` (read-only,
    unaligned): the caller's paths then check, draw and refuse as before."""
    if self.__class__ is not Tensor:
        return False
    dt = self._dtype
    if dt is not float32 and dt is not float64:
        return False
    lay = self._layout
    info = _cinfo[lay.shape]
    run = self._storage.array
    if lay.strides != info[0] or lay.offset or len(run) != info[1]:
        return fill not in _GENERAL_FASTER and _native_fill_other(self, info, fill, args)
    return _compiled_draw(fill, run, *args)


def _general_faster() -> frozenset:
    """The compiled fills that :func:`_native_fill_other` leaves to the general path, which is
    faster for them: log_normal_fill (NumPy's lognormal into the sample, then the write: a
    transposed 2^20-element float32 target 10.5 ms, against 12.5 ms through the compiled fill;
    measured in thread time, the compiled fill is slower than NumPy's own there)."""
    k = native.randdist()
    return frozenset() if k is None else frozenset({k.log_normal_fill})


_GENERAL_FASTER = _general_faster()


# The fewest elements for which _native_fill_other draws into a sample and copies it: below it
# the general path's NumPy draw costs about as much and nothing is gained by a second path.
_OTHER_MIN = 1 << 12


def _native_fill_other(self: Tensor, info: tuple, fill: Callable[..., bool], args: tuple) -> bool:
    """:func:`_native_fill` of a float32/float64 target that is not its storage's whole row-major
    run (a transposed, permuted, sliced or offset view): the compiled draw into a fresh
    row-major sample, then :func:`write` of the sample into the target. The general path
    (:func:`_into`) draws the same numbers in the same row-major order (NumPy's sample of the
    target's shape) and writes them with the same ``write``, after ``check_writable``; this
    runs only where that check passes (no stride-0 element, writable memory), so nothing else
    differs but the speed (a permuted 2^20-element ``random_`` 5.1 ms -> 2.4 ms; ``geometric_``
    20 ms -> 6.3 ms: the sample's compiled draw and a blocked same-dtype copy instead of NumPy's
    int64 draw and a casting strided copy). False, nothing drawn: the caller's paths then run."""
    n = info[1]
    lay = self._layout
    if n < _OTHER_MIN or not self._storage.array.flags.writeable or has_internal_overlap(lay.shape, lay.strides):
        return False
    sample = np.empty(n, self._dtype.numpy)
    if not _compiled_draw(fill, sample, *args):
        return False  # (the kernel refused its arguments: nothing drawn)
    write(self._storage, lay, sample.reshape(lay.shape))
    return True


def _compiled_draw(fill: Callable[..., Any], out: Any, *args: Any) -> Any:
    """``fill(capsule, out, *args)``, a compiled draw from the default generator's stream, under
    its lock (acquire/release: ~0.08 us under a with block's); what ``fill`` returns."""
    g = default_generator
    lock = g._lock
    lock.acquire()
    try:
        return fill(g._capsule or g._np.bit_generator.capsule, out, *args)
    finally:
        lock.release()


def _target(self: Any, op: str) -> Tensor:
    return tensor_arg(self, op, "self")


def compiled_sampler(module: str, op: int, takes_arguments: bool = True) -> Callable[[Callable], Callable]:
    """Mark an in-place sampler's forward with ``__sampler__``, the spec its entry front
    (:func:`strided.grad_mode.track_inplace`; ``kernels/_front.h``, ``entry_sample``) draws the
    common call by, in C: sampler ``op`` of the compiled ``module`` ("rand": ``_randkernel``,
    "randdist": ``_randdist``; each module's ``sample`` documents its ops), given the forward's
    float parameters after ``self`` (names and defaults read off the forward; none where
    ``takes_arguments`` is False: ``random_()``).

    The front takes the call the forward's own compiled fast path takes (:func:`_native_fill`:
    the default generator, a plain row-major float32/float64 tensor owning its storage, float
    arguments the module's sample accepts; ``generator=None`` may be spelt out), nobody listening
    and outside autograd, and draws what it draws under the generator's lock: the same numbers,
    the same stream. Every other call, and every refusal, runs the forward unchanged. Without the
    compiled module (not built, ``STRIDED_NATIVE=0``) the forward is left unmarked."""
    def mark(fwd: Callable) -> Callable:
        kernel = native.rand() if module == "rand" else native.randdist()
        fn = getattr(kernel, "sampler", None)
        if fn is None:
            return fwd
        code = fwd.__code__
        names = code.co_varnames[1:code.co_argcount] if takes_arguments else ()
        given = fwd.__defaults__ or ()
        defaults = (None,) * (len(names) - len(given)) + given if takes_arguments else ()  # (None: required)
        fwd.__sampler__ = (fn, op, names, defaults, float32, float64, default_generator, native._open_blocks,
                           native._enabled, _FAST_N, _cinfo)
        return fwd
    return mark


# ---------------------------------------------------------------- factories


def rand(*sizes: Any, size: Any = None, generator: Any = None, dtype: Any = None, device: Any = None,
          requires_grad: bool = False, out: Any = None) -> Tensor:
    """Uniform samples on [0, 1): ``rand(2, 3)`` or ``rand((2, 3))``; float32 unless ``dtype=``.

    >>> _ = strided.manual_seed(0); strided.rand(2).shape
    (2,)

    # Note: PyTorch's distribution, NumPy's PCG64 stream: not torch.rand's numbers for the same seed.
    """
    if (dtype is None and size is None and generator is None and device is None and requires_grad is False
            and out is None and (plan := _plain_plan(sizes)) is not None and (dt := _DEFAULT[0]) in _DRAWN):
        return _drawn(plan, dt, _draw_uniform, "rand")
    if out is not None:  # (PyTorch's rand.out: resize_, uniform_; the same draw as rand's own)
        parse_device(device, "rand")
        return sampled_out("rand", out, dtype, requires_grad, lambda: _shape_of(sizes, size, "rand"),
                           lambda dt, shape: _float_or_complex(dt, "check_uniform_bounds", "rand"),
                           lambda dt: _rand(sizes, size, generator, dt, device))
    requires_grad = check_flag(requires_grad, "rand")  # (before a draw: no RNG step on a bad flag)
    t = _rand(sizes, size, generator, dtype, device)
    return leaf(t, requires_grad, "rand")


_new_empty = np.empty
_DRAWN = frozenset({float32, float64})  # (the default dtypes NumPy draws in directly)


def _draw_uniform(g: np.random.Generator, out: np.ndarray) -> None:
    if (k := native.rand()) is None or not k.uniform_fill(g.bit_generator.capsule, out):
        g.random(dtype=out.dtype, out=out)  # (uniform_fill: this call's loop compiled)


def _draw_normal(g: np.random.Generator, out: np.ndarray) -> None:
    """``g.standard_normal(dtype=out.dtype, out=out)`` for a C-contiguous float32/float64 ``out``:
    the compiled ``normal_fill`` (NumPy's ziggurat step for step: the same numbers and the same
    stream afterwards, ~3.7x faster: no sign branch, PCG64's step inlined where its layout was
    checked), else NumPy's call (no kernel, or ``out`` unaligned)."""
    kernel = native.rand()
    if kernel is None:
        g.standard_normal(dtype=out.dtype, out=out)
        return
    bits = g.bit_generator
    pcg = _PCG[0]
    if pcg is None:
        pcg = _check_pcg(kernel)
    if not kernel.normal_fill(bits.capsule, out, pcg and bits.__class__ is _PCG[1]):
        g.standard_normal(dtype=out.dtype, out=out)


def _check_pcg(kernel: Any) -> bool:
    """Once per process (numpy.random loaded): whether ``kernel`` (``_randkernel``) may step NumPy's
    PCG64 itself, its layout checked on a throwaway generator (which the kernel then remembers:
    its samplers and ``normal_tensor_fill`` inline the step for every PCG64 from then on)."""
    _PCG[1] = np.random.PCG64
    _PCG[0] = kernel.pcg64_layout_ok(_PCG[1](12345).capsule)
    return _PCG[0]


def _standard_normal(g: np.random.Generator, shape: Shape, dtype: Any = np.float64) -> np.ndarray:
    """``g.standard_normal(shape, dtype=dtype)`` (float32 or float64): a new array, drawn by
    :func:`_draw_normal` (the same numbers, the same stream)."""
    out = np.empty(shape, dtype)
    _draw_normal(g, out)
    return out


# whether PCG64 keeps its state as the compiled ziggurat reads it (NumPy's layout with native
# 128-bit words), checked on a throwaway generator at the first draw, and the PCG64 class; None
# until then (import strided does not load numpy.random: the default stream is made on first use)
_PCG: list[Any] = [None, None]


def _drawn(plan: tuple[int, Layout], dt: DType, draw: Callable[[np.random.Generator, np.ndarray], None],
           op: str, inputs: tuple = ()) -> Tensor:
    """``rand``/``randn``'s common call (plain int sizes of a layout made before, the default
    float32/float64 dtype and generator, nothing else given): a fresh row-major result of ``plan``
    (:func:`strided.creation._plain_plan`) drawn straight into, under the default generator's lock.
    The general path's draw exactly: the same call into the same memory (NumPy fills ``out=`` in
    row-major order whatever its shape), so the same numbers and the same stream."""
    arr = _new_empty(plan[0], dt.numpy)
    g, k = default_generator, native.rand()
    lock = g._lock
    lock.acquire()  # (acquire/release: ~0.08 us under a with block's)
    try:
        # the draws' compiled kernel straight on the stream's capsule (made with its NumPy
        # generator: None before the first draw since a seed), without the NumPy generator's
        # attributes the draw functions read: uniform_fill is _draw_uniform's call, normal_fill
        # with the inlined step _draw_normal's once that step is checked (the default stream is
        # always a PCG64: Generator._np and set_state make one); else the draw function itself
        cap = g._capsule
        if k is None or cap is None or not (k.uniform_fill(cap, arr) if draw is _draw_uniform else
                                            _PCG[0] and k.normal_fill(cap, arr, True)):
            draw(g._np, arr)
    finally:
        lock.release()
    t = adopted(arr, plan[1], dt)
    if OPEN:
        created(op, inputs, t)
    return t


def _like_plan(input: Any) -> tuple[int, Layout] | None:  # noqa: A002
    """``rand_like``/``randn_like``'s common call: for a plain row-major float32/float64 tensor
    whose result layout was made before, that layout's remembered plan (the general path's
    in-place draw, :func:`_draws_in_place`, with nothing else given); else None."""
    if input.__class__ is not Tensor or input._dtype not in _DRAWN:
        return None
    lay = input._layout
    plan = _result_plans.get((lay.shape, None))
    return plan if plan is not None and plan[1].strides == lay.strides else None


def _shape_of(sizes: Any, size: Any, op: str) -> tuple[int, ...]:
    """``rand``/``randn``'s sizes (ints, one tuple, or ``size=``) parsed, with PyTorch's checks."""
    return _sizes(sizes if size is None else (sizes_or_size(sizes, size, op),), op)


def _rand(sizes: Any, size: Any, generator: Any, dtype: Any, device: Any) -> Tensor:
    parse_device(device, "rand")
    shape = _shape_of(sizes, size, "rand")
    dt = default_float() if dtype is None else to_dtype(dtype)
    _float_or_complex(dt, "check_uniform_bounds", "rand")
    g = resolve(generator, "rand")
    if dt.is_complex:
        return _fresh(shape, dt, g.draw(lambda n: _complex_parts(n, shape, dt, normal=False)), "rand")
    if dt in REDUCED_FLOATS:
        return _fresh(shape, dt, g.draw(lambda n: _uniform(n, shape, dt)), "rand")
    t = result(shape, dt)  # (its remembered plan is rand's fast path from the next call on)
    arr = t._storage.array
    g.draw(lambda n: n.random(dtype=arr.dtype, out=arr))  # straight into the result's memory (row-major order)
    if OPEN:
        created("rand", (), t)
    return t


def randn(*sizes: Any, size: Any = None, generator: Any = None, dtype: Any = None, device: Any = None,
          requires_grad: bool = False, out: Any = None) -> Tensor:
    """Standard normal samples (mean 0, variance 1): ``randn(2, 3)``; float32 unless ``dtype=``.

    # Note: PyTorch's distribution, NumPy's PCG64 stream (ziggurat): not torch.randn's numbers.

    >>> _ = strided.manual_seed(0)
    >>> x = strided.randn(10000)
    >>> x.shape, abs(x.mean().item()) < 0.05, abs(x.std().item() - 1) < 0.05
    ((10000,), True, True)
    """
    if (dtype is None and size is None and generator is None and device is None and requires_grad is False
            and out is None and (plan := _plain_plan(sizes)) is not None and (dt := _DEFAULT[0]) in _DRAWN):
        return _drawn(plan, dt, _draw_normal, "randn")
    if out is not None:  # (PyTorch's randn.out: resize_ (its grad refusal), normal_; randn's own draw)
        parse_device(device, "randn")
        return sampled_out("randn", out, dtype, requires_grad, lambda: _shape_of(sizes, size, "randn"),
                           lambda dt, shape: _empty_skip(dt, shape) or _float_or_complex(dt, "normal_kernel_cpu", "randn"),
                           lambda dt: _randn(sizes, size, generator, dt, device), resizes=True)
    requires_grad = check_flag(requires_grad, "randn")  # (before a draw: no RNG step on a bad flag)
    t = _randn(sizes, size, generator, dtype, device)
    return leaf(t, requires_grad, "randn")


def _randn(sizes: Any, size: Any, generator: Any, dtype: Any, device: Any) -> Tensor:
    parse_device(device, "randn")
    shape = _shape_of(sizes, size, "randn")
    dt = default_float() if dtype is None else to_dtype(dtype)
    if _empty_skip(dt, shape):
        return _fresh(shape, dt, np.empty(shape, dt.numpy), "randn")
    _float_or_complex(dt, "normal_kernel_cpu", "randn")
    g = resolve(generator, "randn")
    if dt.is_complex:
        return _fresh(shape, dt, g.draw(lambda n: _complex_parts(n, shape, dt, normal=True)), "randn")
    if dt in REDUCED_FLOATS:
        return _fresh(shape, dt, g.draw(lambda n: _standard_normal(n, shape, np.float32)), "randn")
    t = result(shape, dt)  # (its remembered plan is randn's fast path from the next call on)
    arr = t._storage.array
    g.draw(lambda n: _draw_normal(n, arr))  # straight into the result's memory (row-major order)
    if OPEN:
        created("randn", (), t)
    return t


def _int_bounds(dtype: DType) -> tuple[int, int]:
    """The inclusive range random_ draws integers from for ``dtype`` (floats: the exact integers)."""
    bounds = _INT_BOUNDS.get(dtype)
    if bounds is None:  # (finfo/iinfo cost a microsecond a call: each dtype's range is worked out once)
        bounds = _INT_BOUNDS[dtype] = _int_bounds_of(dtype)
    return bounds


_INT_BOUNDS: dict[DType, tuple[int, int]] = {}  # (keyed by the dtypes, immutable singletons: a few entries)


def _int_bounds_of(dtype: DType) -> tuple[int, int]:
    if dtype is bool_:
        return 0, 1
    if dtype.is_floating_point:
        digits = np_finfo(dtype.numpy).nmant + 1
        return -(2**digits), 2**digits
    info = np.iinfo(dtype.numpy)
    return int(info.min), int(info.max)


def _check_range(low: int, high: int | None, dtype: DType, op: str = "random_") -> None:
    """PyTorch's ``random_from_to`` checks: from < to, both within the dtype (floats: within the
    integers the dtype holds exactly; float32/float64 warn, float16 refuses)."""
    if high is not None and low >= high:
        raise StridedRuntimeError(
            join_lines(
                f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}",
                f"{op} draws integers from [from, to): the range [{low}, {high}) is empty",
                f"fix: give to > from, e.g. {op.rstrip('_')}({low}, {low + 1}{', ...' if op == 'randint' else ''})",
            )
        )
    lo, hi = _int_bounds(dtype)
    if lo <= low <= hi and (high is None or lo <= high - 1 <= hi):  # (the common call: in range)
        return
    name = CPP_NAME[dtype.name]
    for what, value in (("from", low), ("to - 1", None if high is None else high - 1)):
        if value is None or lo <= value <= hi:
            continue
        if dtype.is_floating_point and dtype is not float16:
            digits = int(math.log2(hi))
            warnings.warn(
                f"{what} is out of bounds [-(2^{digits}), 2^{digits}]. Due to precision limitations "
                f"{name} can support discrete uniform distribution only within this range.",
                UserWarning, stacklevel=user_site()[1],
            )
            continue
        raise StridedRuntimeError(
            join_lines(
                f"{what} is out of bounds for {name}",
                f"{op} on {dtype.name} draws integers in [{lo}, {hi}]; {what} is {value}",
                "fix: narrow the range, or use a wider dtype (dtype=strided.int64)",
            )
        )


def _integers(low: int, high_inclusive: int) -> Callable[[np.random.Generator, Shape], np.ndarray]:
    return lambda g, shape: _draw_integers(g, shape, low, high_inclusive)


def _draw_integers(g: np.random.Generator, shape: Shape, low: int, top: int) -> np.ndarray:
    """``g.integers(low, top, size=shape, dtype=np.int64, endpoint=True)``: a new int64 array of
    integers uniform on [low, top], the numbers and stream NumPy's call gives.

    With the compiled kernel (built, and on in this context) and bounds NumPy would accept
    (int64 Python ints, low <= top) the kernel draws them, NumPy's loop without its ~3 us of
    argument handling; anything else (no kernel, ``native.disabled()``, bounds NumPy refuses:
    its own error) is NumPy's call itself."""
    kernel = native.rand()
    if kernel is None or low.__class__ is not int or top.__class__ is not int or \
            not -_INT64_TOP - 1 <= low <= top <= _INT64_TOP:
        return g.integers(low, top, size=shape, dtype=np.int64, endpoint=True)
    out = np.empty(shape, np.int64)
    kernel.bounded_int64(g.bit_generator.capsule, out, low, top - low)
    return out


def _integers_into(g: np.random.Generator, low: int, top: int, out: np.ndarray) -> None:
    """:func:`_draw_integers` of ``out.shape`` written into ``out`` (a C-contiguous int64 array):
    the kernel draws straight into an aligned ``out``; otherwise (no kernel, or an unaligned
    ``out``, a ``from_numpy`` of an offset buffer, which the kernel refuses) the same draw is
    made into a new array and copied in."""
    kernel = native.rand()
    if kernel is None or not out.flags.aligned or low.__class__ is not int or top.__class__ is not int or \
            not -_INT64_TOP - 1 <= low <= top <= _INT64_TOP:
        np.copyto(out, _draw_integers(g, out.shape, low, top))
    else:
        kernel.bounded_int64(g.bit_generator.capsule, out, low, top - low)


def randint(*args: Any, low: Any = None, high: Any = None, size: Any = None, generator: Any = None,
            dtype: Any = None, device: Any = None, requires_grad: bool = False, out: Any = None) -> Tensor:
    """Integers uniform on [low, high): ``randint(high, size)`` or ``randint(low, high, size)``
    (``size`` a tuple); int64 unless ``dtype=``. ``requires_grad=True`` needs a floating-point
    ``dtype=`` (PyTorch's RuntimeError otherwise, raised after the draw, as PyTorch's).

    >>> strided.randint(3, 10, (2, 2)).dtype
    strided.int64
    """
    if out is not None or requires_grad is not False:
        return _randint_flagged(args, low, high, size, generator, dtype, device, requires_grad, out)
    if len(args) == 3 and low is None and high is None and size is None and dtype is None and device is None:
        shape = _plain_randint(*args)
        if shape is not None:  # (the general path's draw and result, its argument work skipped)
            low_i, high_i = args[0], args[1] - 1
            if generator is None and (k := native.rand()) is not None and (info := _cinfo[shape])[1] <= _FAST_N:
                # (_draw_integers' kernel call into the result's fresh memory, as _fresh adopts it)
                arr = _new_empty(info[1], np.int64)
                _compiled_draw(k.bounded_int64, arr, low_i, high_i - low_i)
                t = adopted(arr, info[2], DEFAULT_INT)
                if OPEN:
                    created("randint", (), t)
                return t
            values = resolve(generator, "randint").draw(lambda g: _integers(low_i, high_i)(g, shape))
            return _fresh(shape, DEFAULT_INT, values, "randint")
    parse_device(device, "randint")
    low_i, high_i, shape = _randint_args(args, low, high, size)
    dt = DEFAULT_INT if dtype is None else to_dtype(dtype)
    _check_randint(dt, low_i, high_i)
    values = resolve(generator, "randint").draw(lambda g: _integers(low_i, high_i - 1)(g, shape))
    return _fresh(shape, dt, values, "randint")


def _randint_flagged(args: tuple, low: Any, high: Any, size: Any, generator: Any, dtype: Any, device: Any,
                     requires_grad: Any, out: Any) -> Tensor:
    """``randint`` with ``out=`` or ``requires_grad=``: PyTorch's ``randint.out`` (see
    :func:`strided.creation.sampled_out`: the same draw as without ``out=``) or its result, then
    the flag (:func:`strided.creation.flag_out`: an integer dtype refuses it, after the draw)."""
    parse_device(device, "randint")
    if out is None:
        requires_grad = check_flag(requires_grad, "randint")
        t = randint(*args, low=low, high=high, size=size, generator=generator, dtype=dtype)
        return flag_out(t, requires_grad, "randint's result (dtype=)")
    low_i, high_i, shape = _randint_args(args, low, high, size)
    return sampled_out("randint", out, dtype, requires_grad, lambda: shape,
                       lambda dt, _: _check_randint(dt, low_i, high_i),
                       lambda dt: randint(low_i, high_i, shape, generator=generator, dtype=dt))


def _check_randint(dt: DType, low: int, high: int) -> None:
    """PyTorch's ``check_random_bounds`` for ``randint``: a real dtype, then the range checks."""
    if dt.is_complex:
        raise StridedRuntimeError(join_lines(
            "check_random_bounds handles only integral, floating-point and boolean types",
            f"randint draws integers, which {dt.name} does not hold as such",
            "fix: draw in a real dtype and convert: strided.randint(...).to(strided.complex64)"))
    _check_range(low, high, dt, "randint")


def _randint_args(args: tuple, low: Any, high: Any, size: Any) -> tuple[int, int, tuple[int, ...]]:
    """``randint``'s ``(low, high, size)`` from its positional and keyword forms, with PyTorch's
    TypeErrors for a missing or misplaced argument and its int parsing."""
    rest = list(args)
    if size is None:
        if not rest or not isinstance(rest[-1], (tuple, list)):
            if len(rest) == 2:
                raise StridedTypeError(
                    join_lines(
                        f"randint(): argument 'size' (position 2) must be tuple of ints, not {type(rest[-1]).__name__}",
                        "size is a tuple: randint(high, (n,)) or randint(low, high, (n,))",
                    )
                )
            raise StridedTypeError(
                join_lines(
                    "randint() received an invalid combination of arguments - got "
                    f"({', '.join(type(a).__name__ for a in rest)}), but expected one of:",
                    " * (int high, tuple of ints size, ...)  * (int low, int high, tuple of ints size, ...)",
                    "e.g. strided.randint(10, (3,)) or strided.randint(2, 10, (3,))",
                )
            )
        size = rest.pop()
    if high is None:
        if not rest:
            raise StridedTypeError("randint() missing required argument 'high'\n  e.g. strided.randint(10, (3,))")
        high = rest.pop()
    if low is None:
        low = rest.pop() if rest else 0
    if rest:
        raise StridedTypeError(f"randint() takes at most 3 positional arguments ({len(args)} given)")
    shape = _nonnegative(parse_sizes((size,), "randint"))
    return int_arg(low, "randint", "low", 1), int_arg(high, "randint", "high", 2), shape


def _plain_randint(low: Any, high: Any, size: Any) -> Shape | None:
    """The sizes of the common ``randint(low, high, (sizes))`` call, when every argument is what
    the general path's checks accept unchanged (Python ints, ``low < high`` within int64, a tuple
    of non-negative int sizes within int64); None otherwise (the general path decides)."""
    if low.__class__ is not int or high.__class__ is not int or size.__class__ is not tuple:
        return None
    if not -_INT64_TOP - 1 <= low < high <= _INT64_TOP:  # (2**63: the parser's overflow error)
        return None
    for s in size:
        if s.__class__ is not int or not 0 <= s <= _INT64_TOP:
            return None
    return size


_INT64_TOP = 2**63 - 1
_FAST_N = 1 << 16  # (the factories' compiled draws hold the GIL: small results only)


def randperm(n: Any, *, generator: Any = None, dtype: Any = None, device: Any = None) -> Tensor:
    """A random permutation of ``0 .. n-1`` (int64 unless ``dtype=``).

    >>> sorted(strided.randperm(5).tolist())
    [0, 1, 2, 3, 4]
    """
    if n.__class__ is int and generator is None and dtype is None and device is None and 0 <= n <= _INT64_TOP and \
            (k := native.rand()) is not None:  # (any n: the kernel shuffles a large one without the GIL)
        if _PCG[0] is None:  # (once per process: the stream's inlined step checked)
            _check_pcg(k)
        arr = _new_empty(n, np.int64)
        if _compiled_draw(k.randperm_fill, arr):  # (Generator.permutation(n)'s arange and shuffle, compiled)
            t = adopted(arr, _cinfo[(n,)][2], DEFAULT_INT)
            if OPEN:
                created("randperm", (), t)
            return t
    parse_device(device, "randperm")
    count = int_arg(n, "randperm", "n", 1)
    dt = DEFAULT_INT if dtype is None else to_dtype(dtype)
    if count < 0:
        result((count,), dt)  # PyTorch's negative-dimension error
    if dt is bool_:
        raise _not_implemented("randperm", dt, "randperm", "fix: use an integer dtype (the default, int64)")
    lo, hi = _int_bounds(dt)
    if count - 1 > hi:
        if dt.is_floating_point:
            message = f"n cannot be greater than {hi + 1} for {TORCH_NAME[dt.name]} type."
        else:
            message = f"value cannot be converted to type {C10_NAME[dt.name]} without overflow"
        raise StridedRuntimeError(
            join_lines(message, f"a permutation of {count} numbers does not fit in {dt.name}, which holds "
                                f"integers up to {hi}", "fix: dtype=strided.int64 (the default)")
        )
    values = resolve(generator, "randperm").draw(lambda g: g.permutation(count))
    return _fresh((count,), dt, values, "randperm")


def _check_std(std: Any) -> None:
    if isinstance(std, Tensor):
        arr = std._np()
        if arr.size and not (arr >= 0).all():
            raise StridedRuntimeError(
                join_lines("normal expects all elements of std >= 0.0",
                           f"std holds {int((~(arr >= 0)).sum())} negative (or NaN) element(s); a standard "
                           "deviation is never negative", "fix: std.abs(), or clamp it: std.clamp(min=0)")
            )
    elif not float(std) >= 0:
        raise StridedRuntimeError(
            join_lines(f"normal expects std >= 0.0, but found std {_g(std)}",
                       "a standard deviation is never negative", f"fix: normal(mean, {_g(abs(float(std)))}, ...)")
        )


def normal(mean: Any, std: Any = 1.0, size: Any = None, *, generator: Any = None, dtype: Any = None,
           device: Any = None) -> Tensor:
    """Normal samples with ``mean`` and ``std``: numbers (then ``size`` is required) or tensors
    (broadcast together; the result has the broadcast shape and the dtype of ``mean``, or of
    ``std`` when only it is a tensor).

    >>> strided.normal(0.0, 2.0, (3,)).shape, strided.normal(strided.zeros(2, 1), strided.ones(3)).shape
    ((3,), (2, 3))
    """
    if mean.__class__ is Tensor and std.__class__ is float and size is None and generator is None and \
            dtype is None and device is None and (mean._dtype is float32 or mean._dtype is float64) and \
            (std == 0.0 or _SCALE_LO <= std <= _SCALE_HI) and (k := native.rand()) is not None:
        # normal(mean tensor, std)'s common call: the draw (the ziggurat of _draw_normal), * std and
        # + mean below compiled, into a fresh result, for a mean owning its row-major storage
        lay = mean._layout
        info = _cinfo[lay.shape]
        m = mean._storage.array
        if lay.strides == info[0] and not lay.offset and len(m) == info[1] <= _FAST_N:
            if _PCG[0] is None:  # (once per process: the stream's inlined step checked)
                _check_pcg(k)
            arr = _new_empty(info[1], m.dtype)
            if _compiled_draw(k.normal_tensor_fill, arr, m, std):
                t = adopted(arr, info[2], mean._dtype)
                if OPEN:
                    created("normal", (mean,), t)
                return t
    parse_device(device, "normal")
    mean_t, std_t = isinstance(mean, Tensor), isinstance(std, Tensor)
    if not (mean_t or std_t):
        if size is None:
            raise StridedTypeError(
                join_lines(
                    f"normal() received an invalid combination of arguments - got ({type(mean).__name__}, "
                    f"{type(std).__name__}), but expected one of:",
                    " * (float mean, float std, tuple of ints size, ...)  * (Tensor mean, Tensor std, ...)",
                    "with a number mean and std, give the size: strided.normal(0.0, 1.0, (3,))",
                )
            )
        shape = _nonnegative(parse_sizes((size,), "normal"))
        dt = default_float() if dtype is None else to_dtype(dtype)
        if _empty_skip(dt, shape):
            return _fresh(shape, dt, np.empty(shape, dt.numpy), "normal")
        _float_only(dt, "normal_kernel_cpu", "normal")
        _check_std(std)
        m, s = float(mean), float(std)
        values = resolve(generator, "normal").draw(lambda g: _standard_normal(g, shape, _compute(dt)) * s + m)
        return _fresh(shape, dt, values, "normal")
    if size is not None or dtype is not None:
        raise StridedTypeError(
            join_lines(
                "normal() received an invalid combination of arguments - got "
                f"({', '.join(type(x).__name__ for x in (mean, std, size) if x is not None)}), but expected one of:",
                " * (Tensor mean, Tensor std, *, torch.Generator generator)",
                "with a tensor mean or std the result takes their (broadcast) shape and dtype: leave size "
                "and dtype out",
            )
        )
    for x, name in ((mean, "mean"), (std, "std")):
        if not isinstance(x, Tensor) and not is_number(x):
            raise StridedTypeError(f"normal(): argument '{name}' must be Tensor or float, not {type(x).__name__}")
    dt = mean._dtype if mean_t else std._dtype
    if mean_t and std_t:
        shape = broadcast_pair(mean.shape, std.shape)
    else:
        shape = mean.shape if mean_t else std.shape
    if _empty_skip(dt, shape):
        return _fresh(shape, dt, np.empty(shape, dt.numpy), "normal", tuple(x for x in (mean, std) if isinstance(x, Tensor)))
    _float_only(dt, "normal_kernel_cpu", "normal")
    _check_std(std)
    m = mean._np() if mean_t else float(mean)
    s = std._np() if std_t else float(std)
    values = resolve(generator, "normal").draw(lambda g: _standard_normal(g, shape, _compute(dt)))
    values = values * s + m
    inputs = tuple(x for x in (mean, std) if isinstance(x, Tensor))
    return _fresh(shape, dt, values, "normal", inputs)


def _p_tensor_error(p: Tensor) -> StridedRuntimeError:
    arr = p._np()
    bad = int((~((arr >= 0) & (arr <= 1))).sum())
    return StridedRuntimeError(
        join_lines(
            "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message be improved?  "
            "If so, please report an enhancement request to PyTorch.)",
            f"the probabilities hold {bad} element(s) outside [0, 1] (or NaN)",
            "fix: clamp them: p.clamp(0, 1), or make them probabilities first (sigmoid, softmax)",
        )
    )


_min_reduce, _max_reduce = np.minimum.reduce, np.maximum.reduce


def _check_p_tensor(p: Tensor, arr: np.ndarray | None = None) -> None:
    """PyTorch's error unless every probability of ``p`` (its elements ``arr``, when the caller
    has them) lies in [0, 1]."""
    if arr is None:
        arr = p._np()
    # (two reductions, not three ufuncs and an all(): a NaN makes min or max NaN, which fails too;
    # the ufuncs' own reduce, without ndarray.min's Python wrapper)
    if arr.size and not (_min_reduce(arr, axis=None) >= 0 and _max_reduce(arr, axis=None) <= 1):
        raise _p_tensor_error(p)


def _float(value: Any, op: str, name: str, pos: int) -> float:
    """A sampler's number argument as a float, or PyTorch's TypeError naming what it accepts."""
    if value.__class__ is float:  # (the common call, before the general checks)
        return value
    if is_number(value) and not isinstance(value, complex):
        return float(value)
    if isinstance(value, Tensor) and value.numel() == 1 and not value._dtype.is_complex:
        return float(value.item())
    raise StridedTypeError(
        join_lines(f"{op}(): argument '{name}' (position {pos}) must be float, not {type(value).__name__}",
                   f"got {value!r:.60}; pass a number")
    )


def _check_p_number(p: Any, op: str = "bernoulli_") -> float:
    value = _float(p, op, "p", 1)
    if not 0 <= value <= 1:
        raise StridedRuntimeError(
            join_lines(f"bernoulli_ expects p to be in [0, 1], but got p={_g(value)}",
                       "p is the probability of drawing 1", "fix: a p between 0 and 1")
        )
    return value


@method("bernoulli")
def bernoulli(input: Any, p: Any = None, *, generator: Any = None, out: Any = None) -> Tensor:
    """0/1 samples, 1 with probability ``input`` (elementwise; a float tensor in [0, 1]), or with
    probability ``p`` (a number) everywhere; the result has ``input``'s shape and dtype.

    ``out=`` (probabilities ``input`` only, as PyTorch's ``bernoulli.out``): ``out`` is resized to
    ``input``'s shape (silently, ``resize_``) and filled in place, ``out.bernoulli_(input)``: any
    dtype ``bernoulli_`` fills (float, integer, bool), ``input`` a float tensor.

    >>> strided.bernoulli(strided.full((3,), 0.5)).dtype
    strided.float32
    >>> o = strided.empty(5, dtype=strided.int64)
    >>> strided.bernoulli(strided.ones(2), out=o) is o, o.tolist()
    (True, [1, 1])
    """
    if p is None and generator is None and out is None and not OPEN and input.__class__ is Tensor and (
            t := _fast_bernoulli(input)) is not None:
        return t
    if isinstance(p, Tensor) or (out is not None and p is not None):
        given = ", ".join(type(v).__name__ for v in (input, p)) + (", out=Tensor" if out is not None else "")
        raise StridedTypeError(join_lines(
            f"bernoulli() received an invalid combination of arguments - got ({given}), but expected one of:",
            " * (Tensor input, *, torch.Generator generator = None, Tensor out = None)",
            " * (Tensor input, float p, *, torch.Generator generator = None)",
            "fix: tensor probabilities are the input (bernoulli(probs)); a number p takes no out=: "
            "out.bernoulli_(p)"))
    tensor_arg(input, "bernoulli")
    if out is not None:
        target = tensor_arg(out, "bernoulli", "out")
        if target._layout.shape != input._layout.shape:
            # (PyTorch's bernoulli.out: resize_output, no warning, not counted in _version)
            resize_(target, input._layout.shape)
        return bernoulli_(target, input, generator=generator)
    shape, dt = input._layout.shape, input._dtype
    if p is None:
        if dt.is_complex and input.numel():  # (PyTorch: empty_like(input).bernoulli_(input), its self dtype first)
            raise _not_implemented("bernoulli_tensor_cpu_self_", dt, "bernoulli",
                                   "fix: give real float probabilities: strided.bernoulli(probs.real)")
        if not dt.is_floating_point:
            raise _not_implemented("bernoulli_tensor_cpu_p_", dt, "bernoulli",
                                   "fix: give float probabilities: strided.bernoulli(probs.float())")
        probs = input._np()
        _check_p_tensor(input, probs)
        values = resolve(generator, "bernoulli").draw(lambda g: _uniform(g, shape, dt) < probs)
    else:
        value = _check_p_number(p)
        _no_kernel(input, "bernoulli_scalar_cpu_", "bernoulli", dt.is_complex)  # (empty_like(input).bernoulli_(p))
        values = resolve(generator, "bernoulli").draw(lambda g: g.random(shape) < value)
    if dt is float32 or dt is float64:  # (the 0/1 cast into a fresh array _fresh adopts: no result to fill)
        values = values.astype(dt.numpy)
    return _fresh(shape, dt, values, "bernoulli", (input,))


def _fast_bernoulli(input: Tensor) -> Tensor | None:  # noqa: A002
    """bernoulli(probs)'s common call, a plain non-empty row-major float32/float64 ``input`` and
    the default generator: the compiled ``bernoulli_fill`` (the probabilities' check, then the
    draws and comparisons the general path makes, in its order: the same values and stream) into
    the fresh result; None, nothing drawn, when the kernel is off or refuses (a probability
    outside [0, 1] or NaN: the general path raises PyTorch's error)."""
    dt = input._dtype
    if dt is not float32 and dt is not float64:
        return None
    kernel = native.rand()
    info = _cinfo[input._layout.shape]
    flat = flat_run(input, info) if kernel is not None and info[1] else None
    if flat is None:
        return None
    out = np.empty(info[1], dt.numpy)
    # (_compiled_draw: the generator's lock by acquire/release, its cached capsule)
    return adopted(out, info[2], dt) if _compiled_draw(kernel.bernoulli_fill, flat, out) else None


@method("multinomial")
def multinomial(input: Any, num_samples: Any, replacement: bool = False, *, generator: Any = None) -> Tensor:
    """Category indices drawn with weights ``input`` (1-D: one distribution, or 2-D: one per row;
    non-negative, not all zero), ``num_samples`` per distribution; int64 of shape
    ``(num_samples,)`` or ``(rows, num_samples)``. Without ``replacement`` each category is drawn
    at most once (zero-weight ones only after all the others).

    >>> strided.multinomial(strided.tensor([0.0, 1.0, 0.0]), 2, replacement=True).tolist()
    [1, 1]
    """
    tensor_arg(input, "multinomial")
    n = int_arg(num_samples, "multinomial", "num_samples", 2)
    shape = input._layout.shape
    if len(shape) not in (1, 2):
        raise StridedRuntimeError(
            join_lines("prob_dist must be 1 or 2 dim",
                       f"the weights have shape {shape}; give one distribution (1-D) or one per row (2-D)",
                       "fix: flatten the leading dims: weights.reshape(-1, weights.shape[-1])")
        )
    if not input._dtype.is_floating_point:
        raise StridedRuntimeError(
            join_lines(f"multinomial only supports floating-point dtypes for input, got: {TORCH_NAME[input._dtype.name]}",
                       "fix: weights.float()")
        )
    if n <= 0:
        raise StridedRuntimeError(join_lines("cannot sample n_sample <= 0 samples",
                                             f"num_samples is {n}; ask for 1 or more"))
    categories = shape[-1]
    if not replacement and n > categories:
        raise StridedRuntimeError(
            join_lines("cannot sample n_sample > prob_dist.size(-1) samples without replacement",
                       f"{n} samples from {categories} categories cannot all differ",
                       "fix: replacement=True, or num_samples <= the number of categories")
        )
    probs = input._np().astype(np.float64).reshape(-1, categories)
    rows = probs.shape[0]
    # (every weight finite and >= 0: the smallest >= 0 (a NaN is no number >= 0: np.minimum passes
    # it on) and the largest below inf; two reductions, where four calls tested each weight)
    if probs.size and not (_min_reduce(probs, None) >= 0 and _max_reduce(probs, None) < math.inf):
        raise StridedRuntimeError(
            join_lines("probability tensor contains either `inf`, `nan` or element < 0",
                       "multinomial's weights must be finite and non-negative (they need not sum to 1)",
                       "fix: weights from logits: logits.softmax(-1)")
        )
    totals = probs.sum(axis=1)
    if rows and categories and not _min_reduce(totals, None) > 0:  # (no NaN among them: every weight is a number)
        bad = int(np.argmax(~(totals > 0)))
        raise StridedRuntimeError(
            join_lines("invalid multinomial distribution (sum of probabilities <= 0)",
                       f"row {bad} of the weights sums to 0; at least one weight must be positive")
        )
    out_shape = (n,) if len(shape) == 1 else (rows, n)
    if rows == 0:
        return _fresh(out_shape, int64, None, "multinomial", (input,))
    g = resolve(generator, "multinomial")
    if replacement:
        # inverse CDF: each row's cumulative weights scaled to [0, 1], shifted by the row number so
        # one searchsorted serves every row
        cdf = np.cumsum(probs, axis=1) / totals[:, None]
        # from each row's last positive weight on, the cdf is exactly 1 (rounding may leave it
        # short, which would let u reach a zero-weight category)
        last = categories - 1 - np.argmax(probs[:, ::-1] > 0, axis=1)
        cdf[np.arange(categories) >= last[:, None]] = 1.0
        row = np.arange(rows, dtype=np.float64)[:, None]
        u = g.draw(lambda gen: gen.random((rows, n)))
        flat = np.searchsorted((cdf + 2 * row).ravel(), (u + 2 * row).ravel(), side="right")
        picks = flat.reshape(rows, n) - categories * np.arange(rows)[:, None]
        # a zero-weight last category has cdf == 1 and is never reached; clip rounding strays
        np.minimum(picks, categories - 1, out=picks)
    else:
        # PyTorch's algorithm: the n largest of weight / Exp(1) (an exponential race)
        q = g.draw(lambda gen: gen.standard_exponential((rows, categories)))
        np.divide(probs, q, out=q)  # (-(probs / q), written over the fresh draws)
        picks = _first_of_stable_order(np.negative(q, out=q), n)
    return _fresh(out_shape, int64, picks.reshape(out_shape), "multinomial", (input,))


_min_reduce, _max_reduce = np.minimum.reduce, np.maximum.reduce


def _first_of_stable_order(keys: np.ndarray, n: int) -> np.ndarray:
    """``np.argsort(keys, axis=1, kind="stable")[:, :n]`` for float64 ``keys`` (rows, categories).
    For a few picks, the compiled one-scan top-k (``stl_topk``: the ``n + 1`` smallest of each row
    kept), which answers only where each row's ``n + 1`` smallest are strictly increasing: then
    their order is the one answer, the stable sort's too (1M keys, n = 2: ~1.5 ms against ~60);
    rows with equal keys (zero weights, -inf), a NaN among them, or more picks: the sort itself."""
    rows, categories = keys.shape
    kernel = native.special() if 0 < n < min(categories, _SCAN_PICKS) else None
    if kernel is not None:
        picks, values = np.empty((rows, n), np.int64), np.empty((rows, n), np.float64)
        if kernel.stl_topk(keys.reshape(-1), picks.reshape(-1), values.reshape(-1), categories, n, 0):
            return picks
    return np.argsort(keys, axis=1, kind="stable")[:, :n]


_SCAN_PICKS = 16  # (stl_topk's one scan per row below this many picks: its TOP_SCAN_K)


def rand_like(input: Any, *, dtype: Any = None, memory_format: MemoryFormat = preserve_format,
              generator: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """``rand`` shaped like ``input`` (its dtype unless ``dtype=``; its dense dim order).

    >>> strided.rand_like(strided.zeros(2, 3, dtype=strided.float64)).dtype
    strided.float64
    """
    if (dtype is None and memory_format is preserve_format and generator is None and device is None
            and requires_grad is False and (plan := _like_plan(input)) is not None):
        return _drawn(plan, input._dtype, _draw_uniform, "rand_like", (input,))
    requires_grad = check_flag(requires_grad, "rand_like")  # (before a draw: no RNG step on a bad flag)
    tensor_arg(input, "rand_like")
    parse_device(device, "rand_like")
    dt = input._dtype if dtype is None else to_dtype(dtype)
    _float_or_complex(dt, "check_uniform_bounds", "rand_like")
    shape = input._layout.shape
    if _draws_in_place(input, dt, memory_format):  # (the draw rand makes, straight into the result)
        t = result(shape, dt)  # (its remembered plan is the fast path's from the next call on)
        arr = t._storage.array
        resolve(generator, "rand_like").draw(lambda g: g.random(dtype=arr.dtype, out=arr))
        if OPEN:
            created("rand_like", (input,), t)
        return leaf(t, requires_grad, "rand_like")
    values = resolve(generator, "rand_like").draw(
        lambda g: _complex_parts(g, shape, dt, normal=False) if dt.is_complex else _uniform(g, shape, dt))
    t = _fresh(shape, dt, values, "rand_like", (input,), _like_strides(input, dt, memory_format))
    return leaf(t, requires_grad, "rand_like")


def randn_like(input: Any, *, dtype: Any = None, memory_format: MemoryFormat = preserve_format,
               generator: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """``randn`` shaped like ``input`` (its dtype unless ``dtype=``; its dense dim order).

    >>> strided.randn_like(strided.zeros(2, 3)).shape
    (2, 3)
    """
    if (dtype is None and memory_format is preserve_format and generator is None and device is None
            and requires_grad is False and (plan := _like_plan(input)) is not None):
        return _drawn(plan, input._dtype, _draw_normal, "randn_like", (input,))
    requires_grad = check_flag(requires_grad, "randn_like")  # (before a draw: no RNG step on a bad flag)
    tensor_arg(input, "randn_like")
    parse_device(device, "randn_like")
    dt = input._dtype if dtype is None else to_dtype(dtype)
    shape = input._layout.shape
    if _empty_skip(dt, shape):
        t = _fresh(shape, dt, np.empty(shape, dt.numpy), "randn_like", (input,), _like_strides(input, dt, memory_format))
        return leaf(t, requires_grad, "randn_like")
    _float_or_complex(dt, "normal_kernel_cpu", "randn_like")
    if _draws_in_place(input, dt, memory_format):  # (the draw randn makes, straight into the result)
        t = result(shape, dt)  # (its remembered plan is the fast path's from the next call on)
        arr = t._storage.array
        resolve(generator, "randn_like").draw(lambda g: _draw_normal(g, arr))
        if OPEN:
            created("randn_like", (input,), t)
        return leaf(t, requires_grad, "randn_like")
    values = resolve(generator, "randn_like").draw(
        lambda g: _complex_parts(g, shape, dt, normal=True) if dt.is_complex
        else _standard_normal(g, shape, _compute(dt)))
    t = _fresh(shape, dt, values, "randn_like", (input,), _like_strides(input, dt, memory_format))
    return leaf(t, requires_grad, "randn_like")


def randint_like(input: Any, low: Any = None, high: Any = None, *, dtype: Any = None,
                 memory_format: MemoryFormat = preserve_format, generator: Any = None,
                 device: Any = None, requires_grad: bool = False) -> Tensor:
    """``randint`` shaped like ``input``: ``randint_like(t, high)`` or ``randint_like(t, low, high)``
    (``requires_grad=True``: a leaf, for a float or complex dtype only, as PyTorch's).

    >>> y = strided.randint_like(strided.zeros(100, dtype=strided.int64), 3)
    >>> y.shape, bool(((y >= 0) & (y < 3)).all())
    ((100,), True)
    """
    if high is None and low.__class__ is int and 0 < low <= _INT64_TOP and dtype is None and device is None and (
            requires_grad is False and memory_format is preserve_format and input.__class__ is Tensor and
            input._dtype in _PLAIN_INT_LIKE):
        # the common randint_like(t, high): the general path's checks that can fail and its draw,
        # without its argument parsing (a flag, a device and a dtype left out need none)
        dt = input._dtype
        _check_range(0, low, dt, "randint_like")  # (from here: its warning's stacklevel is the general path's)
        lay = input._layout
        shape = lay.shape
        if generator is None and (k := native.rand()) is not None and lay.strides == (info := _cinfo[shape])[0] \
                and info[1] <= _FAST_N and (dt is float32 or dt is float64 or dt is int64):
            # (the draw below compiled into the fresh row-major result, cast as _fresh's copy casts it)
            arr = _new_empty(info[1], dt.numpy)
            if dt is int64:
                drawn = _compiled_draw(k.bounded_int64, arr, 0, low - 1) is None  # (it raises, or draws)
            else:
                drawn = _compiled_draw(k.bounded_float, arr, 0, low - 1)
            if drawn:
                t = adopted(arr, info[2], dt)
                if OPEN:
                    created("randint_like", (input,), t)
                return t
        strides = _like_strides(input, dt, memory_format)
        if strides is not None and generator is None and (dt is float32 or dt is float64) and \
                (k := native.rand()) is not None and (n := _cinfo[shape][1]) >= _OTHER_MIN:
            # (a permuted or strided input's layout: the draw below compiled into a row-major
            # sample of the result's dtype, cast as the write's copy casts it, then one same-dtype
            # blocked copy into the result's layout instead of a casting one)
            sample = np.empty(n, dt.numpy)
            if _compiled_draw(k.bounded_float, sample, 0, low - 1):
                return _fresh(shape, dt, sample.reshape(shape), "randint_like", (input,), strides)
        values = resolve(generator, "randint_like").draw(lambda g: _integers(0, low - 1)(g, shape))
        return _fresh(shape, dt, values, "randint_like", (input,), strides)
    requires_grad = check_flag(requires_grad, "randint_like")  # (before a draw: no RNG step on a bad flag)
    tensor_arg(input, "randint_like")
    parse_device(device, "randint_like")
    if high is None:
        if low is None:
            raise StridedTypeError("randint_like() missing required argument 'high'\n  e.g. strided.randint_like(t, 10)")
        low, high = 0, low
    low_i = 0 if low is None else int_arg(low, "randint_like", "low", 2)
    high_i = int_arg(high, "randint_like", "high", 3)
    dt = input._dtype if dtype is None else to_dtype(dtype)
    _check_range(low_i, high_i, dt, "randint_like")
    shape = input._layout.shape
    values = resolve(generator, "randint_like").draw(lambda g: _integers(low_i, high_i - 1)(g, shape))
    return leaf(_fresh(shape, dt, values, "randint_like", (input,), _like_strides(input, dt, memory_format)), requires_grad, "randint_like")


# the dtypes randint_like's fast path takes (real, NumPy-cast as PyTorch casts: _fresh's one copyto)
_PLAIN_INT_LIKE = frozenset({float32, float64, int64, int32, int16, int8, uint8})


# ---------------------------------------------------------------- in-place samplers


@method("uniform_")
@compiled_sampler("rand", 0)
def uniform_(self: Tensor, from_: float = 0.0, to: float = 1.0, *, generator: Any = None, **kw: Any) -> Tensor:
    """Fill with samples uniform on [from, to) (PyTorch's keywords ``from``/``to`` work too).

    >>> strided.zeros(2, 3).uniform_(-1, 1).shape
    (2, 3)
    """
    if not kw and from_.__class__ is float and to.__class__ is float and from_ == 0.0 and to == 1.0:
        if generator is None and (k := native.rand()) is not None and _native_fill(self, k.uniform_fill):
            if OPEN:
                report("uniform_", (), self)
            return self
        dest = _plain_run(self, generator)
        if dest is not None:  # (the [0, 1) draw below, its checks passing)
            k = native.rand()
            if k is not None:  # (_filled of _fill_uniform's kernel call, inlined: two calls of a 1 µs op)
                g = default_generator
                with g._lock:
                    drawn = k.uniform_fill(g._np.bit_generator.capsule, dest)
                if drawn:
                    if OPEN:
                        report("uniform_", (), self)
                    return self
            return _filled(self, "uniform_", default_generator, dest, _fill_uniform)
    from_ = kw.pop("from", from_)
    _no_extra(kw, "uniform_")
    self = _target(self, "uniform_")
    dt = self._dtype
    _float_or_complex(dt, "check_uniform_bounds", "uniform_")
    low, high = _float(from_, "uniform_", "from", 1), _float(to, "uniform_", "to", 2)
    if dt.is_complex and 0 in self._layout.shape:
        return self  # (PyTorch: an empty complex target skips the bounds checks a real one makes)
    if low == 0.0 and high == 1.0 and not dt.is_complex:
        # [0, 1): ``_uniform(...) * 1.0 + 0.0`` is ``_uniform(...)`` exactly (no -0.0 among its
        # values), so the sample is the draw itself, with nothing to check
        return _into(self, "uniform_", generator, lambda g, shape: _uniform(g, shape, dt),
                     _fill_uniform if dt is float32 or dt is float64 else None)
    limit = float(np_finfo(dt.numpy).max)
    for name, value in (("from", low), ("to", high)):
        if not -limit <= value <= limit:
            raise StridedRuntimeError(
                join_lines(f"{name} is out of bounds for {CPP_NAME[real_of(dt).name]}",  # (complex: its parts' type)
                           f"{name}={_g(value)} is beyond the largest {dt.name} ({_g(limit)})",
                           "fix: a finite range inside the dtype, or a wider dtype")
            )
    if low > high:
        raise StridedRuntimeError(
            join_lines(f"uniform_ expects to return a [from, to) range, but found from={_g(low)} > to={_g(high)}",
                       f"fix: uniform_({_g(high)}, {_g(low)})")
        )
    if high - low > limit:  # (PyTorch's check, the difference in double: the span must be a finite float of dt)
        raise StridedRuntimeError(
            join_lines(f"uniform_ expects to-from <= std::numeric_limits<{TORCH_NAME[real_of(dt).name]}>::max(), but found "
                       f"to={_g(high)} and from={_g(low)} which result in to-from to exceed the limit",
                       f"the span {_g(high - low)} is beyond the largest {real_of(dt).name} ({_g(limit)})",
                       "fix: a narrower range, or a wider dtype")
        )
    span = high - low
    if dt.is_complex:  # PyTorch: the real and imaginary parts each uniform on [from, to)
        return _into(self, "uniform_", generator,
                     lambda g, shape: _complex_parts(g, shape, dt, normal=False, scale=span, shift=low))
    return _into(self, "uniform_", generator, lambda g, shape: _uniform(g, shape, dt) * span + low)


def _fill_uniform(g: np.random.Generator, out: np.ndarray) -> None:
    """uniform_(0, 1)'s draw (:func:`_uniform` of a float32/float64 target) straight into ``out``
    (C-contiguous): the compiled ``uniform_fill`` (``Generator.random``'s loop, the same numbers
    and stream, without its argument handling), else NumPy's call (no kernel, or ``out``
    unaligned)."""
    kernel = native.rand()
    if kernel is None or not kernel.uniform_fill(g.bit_generator.capsule, out):
        g.random(dtype=out.dtype, out=out)


@method("normal_")
@compiled_sampler("rand", 1)
def normal_(self: Tensor, mean: float = 0.0, std: float = 1.0, *, generator: Any = None) -> Tensor:
    """Fill with normal samples of ``mean`` and ``std``.

    >>> _ = strided.manual_seed(0)
    >>> x = strided.empty(10000).normal_(2.0, 0.5)
    >>> abs(x.mean().item() - 2.0) < 0.05, abs(x.std().item() - 0.5) < 0.05
    (True, True)
    """
    if mean.__class__ is float and std.__class__ is float and std >= 0.0:
        # (no _randdist fill here: the plain run's draw is the compiled ziggurat, _draw_normal's,
        # the same numbers ~3.7x faster than NumPy's own fill at size)
        dest = _plain_run(self, generator)
        if dest is not None:  # (the checks below pass: the float32/float64 fill; _filled, inlined)
            with default_generator._lock:
                _fill_normal(default_generator._np, dest, mean, std)
            if OPEN:
                report("normal_", (), self)
            return self
    self = _target(self, "normal_")
    dt = self._dtype
    if _empty_skip(dt, self._layout.shape):
        return self
    _float_or_complex(dt, "normal_kernel_cpu", "normal_")
    m, s, c = _float(mean, "normal_", "mean", 1), _float(std, "normal_", "std", 2), _compute(dt)
    _check_std(s)
    if dt.is_complex:  # PyTorch: each part normal with std / sqrt(2) (as randn), ``mean`` added to both
        return _into(self, "normal_", generator,
                     lambda g, shape: _complex_parts(g, shape, dt, normal=True, scale=s, shift=m))
    fill = None
    if dt is float32 or dt is float64:  # (the sample's draw, product and sum, each written in place)
        def fill(g: np.random.Generator, out: np.ndarray) -> None:
            _fill_normal(g, out, m, s)
    return _into(self, "normal_", generator, lambda g, shape: _standard_normal(g, shape, c) * s + m, fill)


def _fill_normal(g: np.random.Generator, out: np.ndarray, m: float, s: float) -> None:
    """normal_'s sample of a float32/float64 target, ``standard_normal * s + m``, drawn and
    computed in ``out``."""
    dt = out.dtype
    _draw_normal(g, out)
    if s != 1.0:  # (x * 1.0 is x, bit for bit; the + m stays: it turns a -0.0 into +0.0)
        np.multiply(out, s, out=out)
    if m == 0.0 and _copysign(1.0, m) > 0.0:
        # + 0.0 in out's dtype: the compiled add_zero (the same addition), else as a 0-d array of
        # out's dtype (the same float32/float64 add as the Python float's, at half a scalar
        # operand's cost)
        kernel = native.rand()
        if kernel is None or not kernel.add_zero(out):
            np.add(out, _ZEROS[dt.char], out)
    else:  # (-0.0 is added as itself: it keeps a -0.0 draw)
        np.add(out, m, out)


_ZEROS = {"f": np.zeros((), np.float32), "d": np.zeros((), np.float64)}
_copysign = math.copysign

# The arguments the compiled fills (kernels/_randdist.c) take: scales and means under which no
# ufunc step of the Python fills can overflow, underflow or make a NaN of numbers (so NumPy would
# not have warned, or raised under an np.errstate), for a float32 target too (its operands
# rounded to float32: no overflow or underflow in that either). A ziggurat normal or exponential
# draw is 0 or within [1e-18, 50] in magnitude (float32's: [1e-8, 50]; the ziggurat's step is
# its table's x / 2**52), a standard Cauchy one (their quotient) 0, within [1e-20, 1e19], inf or
# NaN (0 / 0 in NumPy's C, no ufunc: no warning); anything else takes the Python fill, and its
# warnings.
_SCALE_LO, _SCALE_HI = 1e-20, 1e15


_MISSING: Any = object()
_MANTISSA_TOP = (2**53, 2**24)  # (random_()'s largest integer of float64, float32: _int_bounds's)


@method("random_")
@compiled_sampler("rand", 2, takes_arguments=False)
def random_(self: Tensor, from_: Any = None, to: Any = _MISSING, *, generator: Any = None, **kw: Any) -> Tensor:
    """Fill with integers uniform on [from, to): ``random_()`` (from 0 to the dtype's largest
    integer, inclusive; floats: to 2**mantissa bits), ``random_(to)``, ``random_(from, to)``,
    ``random_(from, None)`` (to the dtype's largest, inclusive). Any dtype, bool included.

    >>> strided.zeros(4, dtype=strided.int64).random_(3, 5).tolist()  # doctest: +SKIP
    [4, 3, 3, 4]
    """
    if from_ is None and to is _MISSING and not kw and generator is None:
        # (random_() of a float32/float64 tensor: integers on [0, 2**mantissa bits], as below, the
        # draws compiled and cast into the target as the copy casts them)
        if self.__class__ is Tensor and (k := native.rand()) is not None and \
                _native_fill(self, k.bounded_float, 0, _MANTISSA_TOP[self._dtype is float32]):
            if OPEN:
                report("random_", (), self)
            return self
        if (dest := _plain_run(self, generator)) is not None:
            return _sampled(self, "random_", dest, _draw_integers, 0, _int_bounds(self._dtype)[1])
    by_keyword = "from" in kw
    from_ = kw.pop("from", from_)
    _no_extra(kw, "random_")
    self = _target(self, "random_")
    dt = self._dtype
    top_of_dtype = _int_bounds(dt)[1]
    if from_ is None and to is _MISSING:
        low, top = 0, top_of_dtype
    elif to is _MISSING and not by_keyword:  # random_(to)
        high = int_arg(from_, "random_", "to", 1)
        _check_range(0, high, dt)
        low, top = 0, high - 1
    else:
        low = 0 if from_ is None else int_arg(from_, "random_", "from", 1)
        if to is None or to is _MISSING:
            _check_range(low, None, dt)
            top = top_of_dtype
        else:
            high = int_arg(to, "random_", "to", 2)
            _check_range(low, high, dt)
            top = high - 1
    fill = None
    if dt is int64:  # (the int64 draw written straight into the target's run: no sample array, no copy)
        def fill(g: np.random.Generator, out: np.ndarray) -> None:
            _integers_into(g, low, top, out)
    return _into(self, "random_", generator, _integers(low, top), fill)


@method("bernoulli_")
@compiled_sampler("rand", 3)
def bernoulli_(self: Tensor, p: Any = 0.5, *, generator: Any = None) -> Tensor:
    """Fill with 0/1, 1 with probability ``p`` (a number, or a tensor that expands to this shape).

    >>> sorted(set(strided.empty(100).bernoulli_(0.5).tolist())) in ([0.0, 1.0], [0.0], [1.0])
    True
    """
    if p.__class__ is float and 0.0 <= p <= 1.0 and generator is None and (k := native.rand()) is not None \
            and _native_fill(self, k.below_fill, p):  # (the draws and comparisons below compiled, 1/0 written)
        if OPEN:
            report("bernoulli_", (), self)
        return self
    if p.__class__ is float and 0.0 <= p <= 1.0 and (dest := _plain_run(self, generator)) is not None:
        return _sampled(self, "bernoulli_", dest, _below, p)  # (the checks below pass: the same draw)
    self = _target(self, "bernoulli_")
    shape = self._layout.shape
    if isinstance(p, Tensor):
        # (PyTorch's order: the expand, the kernel's dispatch on self's dtype, then on p's, then
        # the probabilities' range; an empty self runs no kernel)
        expand_layout(Layout._trusted(p.shape, (0,) * p.ndim, 0), shape)  # PyTorch's expand error
        _no_kernel(self, "bernoulli_tensor_cpu_self_", "bernoulli_", self._dtype.is_complex)
        if not p._dtype.is_floating_point and self.numel():
            raise _not_implemented("bernoulli_tensor_cpu_p_", p._dtype, "bernoulli_",
                                   "fix: give float probabilities: x.bernoulli_(p.float())")
        _check_p_tensor(p)
        probs = p._np()
        return _into(self, "bernoulli_", generator, lambda g, s: g.random(s) < probs)
    value = _check_p_number(p)
    _no_kernel(self, "bernoulli_scalar_cpu_", "bernoulli_", self._dtype.is_complex)
    return _into(self, "bernoulli_", generator, lambda g, s: _below(g, s, value))


def _below(g: np.random.Generator, shape: Shape, p: float) -> np.ndarray:
    """bernoulli_'s sample of a number ``p``: uniform draws below ``p`` (bool)."""
    return g.random(shape) < p


def _continuous(dtype: DType, distribution: str, cpp: bool = False) -> None:
    if not dtype.is_floating_point:
        name = CPP_NAME[dtype.name] if cpp else TORCH_NAME[dtype.name]
        raise StridedRuntimeError(
            join_lines(f"{distribution} distribution is a continuous probability distribution. dtype must be a "
                       f"floating point but you specified {name}",
                       "fix: sample into a float tensor (t.float())")
        )


def _positive(op: str, name: str, value: Any, shown: str | None = None, pos: int = 1) -> float:
    v = _float(value, op, "lambd" if name == "lambda" else name, pos)  # (Python's spelling of the argument)
    if not v > 0:
        raise StridedRuntimeError(
            join_lines(f"{op} expects {shown or name} > 0.0, but found {shown or name}={_g(v)}",
                       f"{name} must be positive")
        )
    return v


@method("exponential_")
@compiled_sampler("randdist", 0)
def exponential_(self: Tensor, lambd: float = 1.0, *, generator: Any = None) -> Tensor:
    """Fill with exponential samples of rate ``lambd`` (mean 1 / lambd).

    >>> bool((strided.empty(100).exponential_(2.0) >= 0).all())
    True
    """
    if lambd.__class__ is float and lambd > 0.0:
        if generator is None and _SCALE_LO <= lambd <= _SCALE_HI and (k := native.randdist()) is not None and \
                _native_fill(self, k.exponential_fill, lambd):  # (the fill below compiled)
            if OPEN:
                report("exponential_", (), self)
            return self
        dest = _plain_run(self, generator)
        if dest is not None:  # (the checks below pass: the float32/float64 fill)
            return _filled(self, "exponential_", default_generator, dest, _fill_exponential, lambd)
    self = _target(self, "exponential_")
    _continuous(self._dtype, "Exponential")
    rate = _positive("exponential_", "lambda", lambd)
    c = _compute(self._dtype)
    fill = None
    if self._dtype is float32 or self._dtype is float64:  # (the draw and the quotient, written in place)
        def fill(g: np.random.Generator, out: np.ndarray) -> None:
            _fill_exponential(g, out, rate)
    return _into(self, "exponential_", generator, lambda g, s: g.standard_exponential(s, dtype=c) / rate, fill)


def _fill_exponential(g: np.random.Generator, out: np.ndarray, rate: float) -> None:
    """exponential_'s sample of a float32/float64 target, drawn and divided in ``out``."""
    g.standard_exponential(dtype=out.dtype, out=out)
    if rate != 1.0:  # (x / 1.0 is x, bit for bit)
        np.divide(out, rate, out=out)


@method("geometric_")
@compiled_sampler("randdist", 1)
def geometric_(self: Tensor, p: float, *, generator: Any = None) -> Tensor:
    """Fill with geometric samples: the number of trials up to the first success (1, 2, ...).

    >>> bool((strided.empty(100).geometric_(0.5) >= 1).all())
    True
    """
    if p.__class__ is float and 0.0 < p < 1.0 and generator is None and (k := native.randdist()) is not None \
            and _native_fill(self, k.geometric_fill, p):  # (the draw and cast below compiled)
        if OPEN:
            report("geometric_", (), self)
        return self
    if p.__class__ is float and 0.0 < p < 1.0 and (dest := _plain_run(self, generator)) is not None:
        return _sampled(self, "geometric_", dest, _geometric, p)  # (the checks below pass: the same draw)
    self = _target(self, "geometric_")
    value = _float(p, "geometric_", "p", 1)
    if not 0 < value < 1:
        raise StridedRuntimeError(
            join_lines(f"geometric_ expects p to be in (0, 1), but got p={_g(value)}",
                       "p is the success probability of each trial")
        )
    _no_kernel(self, "geometric_cpu", "geometric_", self._dtype.is_complex or self._dtype is bool_)
    return _into(self, "geometric_", generator, lambda g, s: _geometric(g, s, value))


def _geometric(g: np.random.Generator, shape: Shape, p: float) -> np.ndarray:
    return g.geometric(p, shape)


@method("log_normal_")
@compiled_sampler("randdist", 3)
def log_normal_(self: Tensor, mean: float = 1.0, std: float = 2.0, *, generator: Any = None) -> Tensor:
    """Fill with exp(N(mean, std)) samples.

    >>> bool((strided.empty(100).log_normal_() > 0).all())
    True
    """
    if mean.__class__ is float and std.__class__ is float and generator is None and _SCALE_LO <= std and \
            abs(mean) + 15.0 * std <= 700.0 and (k := native.randdist()) is not None and \
            _native_fill(self, k.log_normal_fill, mean, std):
        # (the fill below compiled, NumPy's exp loop included: every draw is within +-15, so no
        # exp argument is outside [-700, 700], where np.exp would warn of an overflow or underflow)
        if OPEN:
            report("log_normal_", (), self)
        return self
    if mean.__class__ is float and std.__class__ is float and std > 0.0 and \
            (dest := _plain_run(self, generator)) is not None:  # (the checks below pass: the same fill)
        return _filled(self, "log_normal_", default_generator, dest, _fill_log_normal, mean, std)
    self = _target(self, "log_normal_")
    _continuous(self._dtype, "LogNormal")
    m = _float(mean, "log_normal_", "mean", 1)
    s = _positive("log_normal_", "std", std, pos=2)
    def fill(g: np.random.Generator, out: np.ndarray) -> None:
        _fill_log_normal(g, out, m, s)
    return _into(self, "log_normal_", generator, lambda g, shape: np.exp(_standard_normal(g, shape) * s + m), fill)


def _fill_log_normal(g: np.random.Generator, out: np.ndarray, m: float, s: float) -> None:
    """log_normal_'s sample written into ``out``: the sample's steps in one float64 array, then
    cast into ``out`` once (the values of ``exp(standard_normal * s + m)``)."""
    x = _standard_normal(g, out.shape)
    np.multiply(x, s, out=x)
    np.add(x, m, out=x)
    _put(out, np.exp(x, out=x))


@method("cauchy_")
@compiled_sampler("randdist", 2)
def cauchy_(self: Tensor, median: float = 0.0, sigma: float = 1.0, *, generator: Any = None) -> Tensor:
    """Fill with Cauchy samples of ``median`` and scale ``sigma``.

    >>> strided.empty(2, 3).cauchy_().shape
    (2, 3)
    """
    if median.__class__ is float and sigma.__class__ is float and generator is None and \
            _SCALE_LO <= sigma <= _SCALE_HI and (median == 0.0 or _SCALE_LO <= abs(median) <= _SCALE_HI) and \
            (k := native.randdist()) is not None and _native_fill(self, k.cauchy_fill, median, sigma):
        if OPEN:  # (the sample below compiled: NumPy's standard_cauchy, then * sigma + median)
            report("cauchy_", (), self)
        return self
    if median.__class__ is float and sigma.__class__ is float and sigma > 0.0 and \
            (dest := _plain_run(self, generator)) is not None:  # (the checks below pass: the same draw)
        return _sampled(self, "cauchy_", dest, _cauchy, median, sigma)
    self = _target(self, "cauchy_")
    _continuous(self._dtype, "Cauchy", cpp=True)
    m = _float(median, "cauchy_", "median", 1)
    s = _positive("cauchy_", "sigma", sigma, pos=2)
    return _into(self, "cauchy_", generator, lambda g, shape: _cauchy(g, shape, m, s))


def _cauchy(g: np.random.Generator, shape: Shape, m: float, s: float) -> np.ndarray:
    """cauchy_'s sample: ``standard_cauchy * s + m`` in float64."""
    x = g.standard_cauchy(shape)
    if s != 1.0:  # (x * 1.0 is x, bit for bit, inf and NaN too; the + m stays: -0.0 + 0.0 is +0.0)
        np.multiply(x, s, out=x)
    return np.add(x, m, out=x)


def _no_extra(kw: dict, op: str) -> None:
    if kw:
        raise StridedTypeError(f"{op}() got an unexpected keyword argument '{next(iter(kw))}'")


# the kinds of this module's ops, in the op registry: the samplers allocate their result; the
# in-place ones write their target
# (bernoulli and normal read their tensors' values: PyTorch records them, with zero gradients; not layout_only)
declare(Kind.ALLOC, "rand randn randint randperm normal bernoulli multinomial rand_like randn_like randint_like",
        layout_only="rand_like randn_like randint_like")
declare(Kind.WRITE, "uniform_ normal_ random_ bernoulli_ exponential_ geometric_ log_normal_ cauchy_")
