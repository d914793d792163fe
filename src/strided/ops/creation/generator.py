"""Random number generators: :class:`Generator`, the process-global default one, and seeding.

A :class:`Generator` wraps NumPy's ``numpy.random.Generator`` over a PCG64 bit generator.
# Note: the *distributions* strided draws from match PyTorch's (uniform on [0, 1), standard
# normal, ...), but the *streams* do not: ``strided.manual_seed(0); strided.rand(3)`` gives other
# numbers than ``torch.manual_seed(0); torch.rand(3)``. Same seed, same strided numbers, always.

The default generator (``default_generator``, what ``manual_seed`` seeds and every sampler uses
without ``generator=``) is process global, as PyTorch's is: every thread draws from the one
stream. Each generator holds a lock, and every draw, seeding and state change takes it, so
threads never corrupt a generator's state (which thread gets which numbers is up to the
scheduler). As in PyTorch, a new generator and the default one start from the seed
67280421310721.
"""

from __future__ import annotations

import _thread  # (threading's primitives, without importing threading: ~0.6 ms of the import)
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from ...dispatch import result_array
from ...dtypes import TORCH_NAME, uint8
from ...errors import StridedOverflowError, StridedRuntimeError, StridedTypeError, join_lines
from ...tensor import Tensor

__all__ = ["DEFAULT_SEED", "Generator", "default_generator", "get_rng_state", "initial_seed", "manual_seed", "resolve",
           "seed", "set_rng_state"]

T = TypeVar("T")

DEFAULT_SEED = 67280421310721  # PyTorch's default_rng_seed_val
_STATE_BYTES = 45  # initial seed (8) + PCG64 state (16) + increment (16) + has_uint32 (1) + uinteger (4)


def _seed_value(seed: Any) -> int:
    """A seed read as PyTorch reads it: ``int(seed)``, in [-2**63, 2**64); a negative one wraps
    to ``2**64 + seed``."""
    if isinstance(seed, Tensor):
        seed = seed.item()
    value = int(seed)  # as torch.manual_seed: floats truncate, '12' parses, 'a' is a ValueError
    if not -(2**63) <= value < 2**64:
        raise StridedOverflowError(
            join_lines(
                "Overflow when unpacking long long",
                f"the seed {value} is outside [-2**63, 2**64); a seed is a 64-bit number",
                "fix: reduce it, e.g. seed % 2**64",
            )
        )
    return value % 2**64


class Generator:
    """A seedable source of random numbers, passed to samplers as ``generator=``.

    >>> g = strided.Generator().manual_seed(0)
    >>> a = strided.rand(3, generator=g); _ = g.manual_seed(0); (strided.rand(3, generator=g) == a).all()
    tensor(True)

    ``get_state()`` returns the state as a strided ``uint8`` tensor of 45 bytes (the initial seed
    and NumPy's PCG64 state); ``set_state`` takes such a tensor, or ``bytes``.
    # Note: PyTorch's CPU state is a 5056-byte Mersenne Twister state; the two do not mix.
    """

    # (``_numpy``: NumPy's generator, made on the first draw or state read: ``numpy.random`` is
    # not loaded by ``import numpy``, and loading it for the default generator was ~12 ms of
    # ``import strided``; None until then, its stream is PCG64(_seed) from the start)
    # (``_capsule``: its bit generator's ``capsule``, the compiled samplers' handle on the stream,
    # kept beside ``_numpy``, None when that is)
    __slots__ = ("_numpy", "_capsule", "_seed", "_lock", "device")

    def __init__(self, device: Any = "cpu") -> None:
        if str(device) != "cpu":
            raise StridedRuntimeError(
                join_lines(
                    f"Cannot get {str(device).split(':')[0].upper()} generator: strided runs on the CPU only",
                    f"Generator(device={device!r}); strided tensors live in NumPy memory",
                    "fix: strided.Generator() (device='cpu')",
                )
            )
        self.device = "cpu"
        self._lock = _thread.allocate_lock()
        self._set_seed(DEFAULT_SEED)

    def __repr__(self) -> str:
        return f"<strided.Generator initial_seed={self._seed}>"

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle, ``copy`` and ``deepcopy``: a new generator with this one's state (its initial
        seed and where its stream stands), so the copy draws the numbers this one draws next, as
        PyTorch's generators do. The lock is not part of the state: each copy has its own."""
        return (Generator, (self.device,), self._state_bytes())

    def __setstate__(self, state: bytes) -> None:
        self.set_state(state)

    def _set_seed(self, value: int) -> None:
        self._seed = value
        self._numpy = self._capsule = None

    @property
    def _np(self) -> np.random.Generator:
        """NumPy's generator of this stream (callers hold the lock), made on first use."""
        numpy = self._numpy
        if numpy is None:
            numpy = self._numpy = np.random.Generator(np.random.PCG64(self._seed))
            self._capsule = numpy.bit_generator.capsule
        return numpy

    def manual_seed(self, seed: Any) -> Generator:
        """Restart the stream from ``seed`` (an int in [-2**63, 2**64)); returns this generator."""
        value = _seed_value(seed)
        with self._lock:
            self._set_seed(value)
        return self

    def seed(self) -> int:
        """Seed from the operating system's entropy (nondeterministic); returns the seed used.

        >>> g = strided.Generator()
        >>> g.seed() == g.initial_seed()
        True
        """
        import secrets  # (lazily: it loads hmac and OpenSSL's hashlib, ~15 ms of import strided)

        value = secrets.randbits(64)
        with self._lock:
            self._set_seed(value)
        return value

    def initial_seed(self) -> int:
        """The seed this generator's stream started from.

        >>> strided.Generator().manual_seed(7).initial_seed()
        7
        """
        return self._seed

    def get_state(self) -> Tensor:
        """The state as a new ``uint8`` tensor (45 bytes); ``set_state`` restores it."""
        t, arr = result_array((_STATE_BYTES,), uint8)
        arr[...] = np.frombuffer(self._state_bytes(), dtype=np.uint8)
        return t

    def _state_bytes(self) -> bytes:
        """The 45 bytes of the state: initial seed, PCG64 state and increment, the buffered draw."""
        with self._lock:
            state = self._np.bit_generator.state
            seed = self._seed
        return (
            seed.to_bytes(8, "little")
            + state["state"]["state"].to_bytes(16, "little")
            + state["state"]["inc"].to_bytes(16, "little")
            + bytes([state["has_uint32"]])
            + int(state["uinteger"]).to_bytes(4, "little")
        )

    def set_state(self, new_state: Any) -> Generator:
        """Restore a state from ``get_state()`` (a ``uint8`` tensor, or its ``bytes``); returns self."""
        if isinstance(new_state, Tensor):
            if new_state.dtype is not uint8:
                raise StridedTypeError(
                    join_lines(
                        f"expected a torch.ByteTensor, but got torch.{TORCH_NAME[new_state.dtype.name]}Tensor",
                        "set_state takes the uint8 tensor get_state() returned",
                    )
                )
            raw = new_state._np().tobytes()
        elif isinstance(new_state, (bytes, bytearray)):
            raw = bytes(new_state)
        else:
            raise StridedTypeError(
                join_lines(
                    f"expected a torch.ByteTensor, but got {type(new_state).__name__}",
                    "set_state takes the uint8 tensor get_state() returned (or its bytes)",
                )
            )
        if len(raw) != _STATE_BYTES:
            raise StridedRuntimeError(
                join_lines(
                    f"Expected a strided generator state of size {_STATE_BYTES}, but got {len(raw)} bytes",
                    "set_state takes what get_state() returned; PyTorch's 5056-byte states do not fit "
                    "strided's PCG64 generator",
                )
            )
        if not raw[24] & 1 or raw[40] > 1:
            raise StridedRuntimeError(
                join_lines(
                    "Invalid generator state: not a state get_state() returned",
                    "the PCG64 increment must be odd and the buffered-draw flag 0 or 1; these 45 bytes are "
                    f"neither (increment's low byte {raw[24]}, flag {raw[40]})",
                    "fix: pass a tensor from strided.get_rng_state() / Generator.get_state(), unchanged",
                )
            )
        bit_state = {
            "bit_generator": "PCG64",
            "state": {"state": int.from_bytes(raw[8:24], "little"), "inc": int.from_bytes(raw[24:40], "little")},
            "has_uint32": raw[40],
            "uinteger": int.from_bytes(raw[41:45], "little"),
        }
        with self._lock:
            bits = np.random.PCG64()
            bits.state = bit_state
            self._numpy = np.random.Generator(bits)
            self._capsule = bits.capsule
            self._seed = int.from_bytes(raw[:8], "little")
        return self

    def draw(self, sample: Callable[[np.random.Generator], T]) -> T:
        """``sample(numpy_generator)`` under this generator's lock (every sampler draws through it)."""
        with self._lock:
            return sample(self._np)


default_generator = Generator()


def resolve(generator: Any, op: str) -> Generator:
    """``generator`` if it is a Generator, the default one for None; TypeError otherwise."""
    if generator is None:
        return default_generator
    if isinstance(generator, Generator):
        return generator
    raise StridedTypeError(
        join_lines(
            f"{op}(): argument 'generator' must be torch.Generator, not {type(generator).__name__}",
            "pass a strided.Generator (strided.Generator().manual_seed(0)) or leave it out for the default one",
        )
    )


def manual_seed(seed: Any) -> Generator:
    """Seed the default generator (process global, as PyTorch's); returns it.

    >>> strided.manual_seed(0)  # then strided.rand(3) gives the same numbers on every run
    <strided.Generator initial_seed=0>
    """
    return default_generator.manual_seed(seed)


def seed() -> int:
    """Seed the default generator from the operating system's entropy; returns the seed.

    >>> s = strided.seed()
    >>> s == strided.initial_seed()
    True
    >>> _ = strided.manual_seed(0)  # (back to a fixed stream)
    """
    return default_generator.seed()


def initial_seed() -> int:
    """The seed the default generator's stream started from.

    >>> _ = strided.manual_seed(7)
    >>> strided.initial_seed()
    7
    """
    return default_generator.initial_seed()


def get_rng_state() -> Tensor:
    """The default generator's state as a ``uint8`` tensor (45 bytes: strided's PCG64 state, not
    PyTorch's 5056-byte one); :func:`set_rng_state` of it repeats the draws that followed.

    >>> state = strided.get_rng_state(); a = strided.rand(2)
    >>> strided.set_rng_state(state); bool((strided.rand(2) == a).all())
    True
    """
    return default_generator.get_state()


def set_rng_state(new_state: Tensor) -> None:
    """Restore the default generator to ``new_state`` (a tensor :func:`get_rng_state` returned).
    A tensor of another dtype or size, or bytes that are no PCG64 state, raise and change nothing.

    >>> strided.set_rng_state(strided.zeros(3))
    Traceback (most recent call last):
    ...
    strided.errors.StridedTypeError: RNG state must be a torch.ByteTensor
    ...
    """
    if isinstance(new_state, Tensor) and new_state.dtype is not uint8:
        raise StridedTypeError(
            join_lines(
                "RNG state must be a torch.ByteTensor",
                f"got a {new_state.dtype.name} tensor; set_rng_state takes the uint8 tensor get_rng_state() returned",
            )
        )
    if not isinstance(new_state, Tensor):
        raise StridedTypeError(
            join_lines(
                f"expected a torch.ByteTensor, but got {type(new_state).__name__}",
                "set_rng_state takes the uint8 tensor get_rng_state() returned",
            )
        )
    default_generator.set_state(new_state)
