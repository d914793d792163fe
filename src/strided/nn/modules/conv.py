"""``nn.Conv1d`` and ``nn.Conv2d``: a weight (out_channels, in_channels / groups, *kernel_size)
and a bias, initialized as PyTorch's (kaiming_uniform_(a=sqrt(5)); the bias U(-1/sqrt(fan_in),
1/sqrt(fan_in))); ``forward`` calls ``F.conv1d`` / ``F.conv2d(input, weight, bias, stride,
padding, dilation, groups)``.

``padding_mode`` 'reflect', 'replicate' or 'circular' pads the input first with ``F.pad`` in that
mode (by ``_reversed_padding_repeated_twice``, as PyTorch's), then convolves with padding 0.

>>> import strided.nn as nn
>>> nn.Conv2d(3, 8, 3, stride=2, padding=1, bias=False)
Conv2d(3, 8, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1), bias=False)
"""

from __future__ import annotations

from typing import Any

from ...errors import StridedValueError
from ...tensor import Tensor
from .. import functional as F
from ._factory import new_parameter
from .linear import reset_like_linear
from .module import Module

__all__ = ["Conv1d", "Conv2d"]

_PADDING_STRINGS = {"same", "valid"}


def _ntuple(value: Any, n: int) -> tuple:
    """``value`` repeated ``n`` times, or as a tuple if it is already a sequence (PyTorch's _pair)."""
    if isinstance(value, (list, tuple)):
        return tuple(value)
    return (value,) * n


class _ConvNd(Module):
    _dims = 0

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 dilation: Any = 1, groups: int = 1, bias: bool = True, padding_mode: str = "zeros",
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        n = self._dims
        if groups <= 0:
            raise StridedValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise StridedValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise StridedValueError("out_channels must be divisible by groups")
        stride = _ntuple(stride, n)
        if isinstance(padding, str):
            if padding not in _PADDING_STRINGS:
                raise StridedValueError(f"Invalid padding string {padding!r}, should be one of {_PADDING_STRINGS}")
            if padding == "same" and any(s != 1 for s in stride):
                raise StridedValueError("padding='same' is not supported for strided convolutions")
        else:
            padding = _ntuple(padding, n)
        valid_modes = {"zeros", "reflect", "replicate", "circular"}
        if padding_mode not in valid_modes:
            raise StridedValueError(f"padding_mode must be one of {valid_modes}, but got padding_mode='{padding_mode}'")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = _ntuple(kernel_size, n)
        self.stride = stride
        self.padding = padding
        self.dilation = _ntuple(dilation, n)
        self.transposed = False
        self.output_padding = (0,) * n
        self.groups = groups
        self.padding_mode = padding_mode
        self._reversed_padding_repeated_twice = _reversed_padding(padding, self.kernel_size, self.dilation)
        self.weight = new_parameter(out_channels, in_channels // groups, *self.kernel_size, device=device, dtype=dtype)
        if bias:
            self.bias = new_parameter(out_channels, device=device, dtype=dtype)
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        reset_like_linear(self.weight, self.bias)

    def extra_repr(self) -> str:
        n = self._dims
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0,) * (n if not isinstance(self.padding, str) else len(self.padding)):
            s += f", padding={self.padding}"
        if self.dilation != (1,) * n:
            s += f", dilation={self.dilation}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


def _reversed_padding(padding: Any, kernel_size: tuple, dilation: tuple) -> list[int]:
    """PyTorch's ``_reversed_padding_repeated_twice``: ``F.pad``'s amounts (last dim first) for
    ``padding`` (ints, or "same": the total ``dilation * (kernel - 1)``, the extra one on the right;
    "valid": none)."""
    n = len(kernel_size)
    if isinstance(padding, str):
        out = [0, 0] * n
        if padding == "same":
            for d, k, i in zip(dilation, kernel_size, range(n - 1, -1, -1)):
                total = d * (k - 1)
                out[2 * i], out[2 * i + 1] = total // 2, total - total // 2
        return out
    return [p for p in reversed(padding) for _ in range(2)]


class Conv1d(_ConvNd):
    """A 1-D convolution over (N, C_in, L) (or unbatched (C_in, L)) inputs."""

    _dims = 1

    def forward(self, input: Tensor) -> Tensor:
        if self.padding_mode != "zeros":
            return F.conv1d(F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode),
                            self.weight, self.bias, self.stride, 0, self.dilation, self.groups)
        return F.conv1d(input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)


class Conv2d(_ConvNd):
    """A 2-D convolution over (N, C_in, H, W) (or unbatched (C_in, H, W)) inputs."""

    _dims = 2

    def forward(self, input: Tensor) -> Tensor:
        if self.padding_mode != "zeros":
            return F.conv2d(F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode),
                            self.weight, self.bias, self.stride, 0, self.dilation, self.groups)
        return F.conv2d(input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)
