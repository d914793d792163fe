"""``nn.BatchNorm1d`` and ``nn.BatchNorm2d``: per-channel normalization with PyTorch's running
statistics (buffers ``running_mean`` zeros, ``running_var`` ones, ``num_batches_tracked`` an
int64 0-d counter), ``bias=False`` (no shift), ``momentum`` (None: the cumulative average) and train/eval behaviour;
``forward`` calls ``F.batch_norm(input, running_mean, running_var, weight, bias, training,
momentum, eps)``, which updates the running statistics in training mode.

>>> import strided.nn as nn
>>> bn = nn.BatchNorm2d(4)
>>> bn, [name for name, _ in bn.named_buffers()]
(BatchNorm2d(4, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True), ['running_mean', 'running_var', 'num_batches_tracked'])
"""

from __future__ import annotations

from typing import Any

from ...creation import tensor as make_tensor
from ...dtypes import int64
from ...errors import StridedValueError
from ...tensor import Tensor
from .. import functional as F
from .. import init
from .._grad import no_grad
from ._factory import new_parameter, new_tensor
from .module import Module

__all__ = ["BatchNorm1d", "BatchNorm2d"]


class _BatchNorm(Module):
    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, device: Any = None, dtype: Any = None, *, bias: bool = True
                 ) -> None:
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = new_parameter(num_features, device=device, dtype=dtype)
            if bias:
                self.bias = new_parameter(num_features, device=device, dtype=dtype)
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", new_tensor(num_features, device=device, dtype=dtype).zero_())
            self.register_buffer("running_var", new_tensor(num_features, device=device, dtype=dtype).fill_(1))
            self.register_buffer("num_batches_tracked", make_tensor(0, dtype=int64))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        if self.track_running_stats:
            with no_grad():
                self.running_mean.zero_()
                self.running_var.fill_(1)
                self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def _check_input_dim(self, input: Tensor) -> None:
        raise NotImplementedError

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            with no_grad():
                self.num_batches_tracked.add_(1)
            factor = 1.0 / float(self.num_batches_tracked) if self.momentum is None else self.momentum
        bn_training = True if self.training else (self.running_mean is None and self.running_var is None)
        keep = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if keep else None, self.running_var if keep else None,
                            self.weight, self.bias, bn_training, factor, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    """Over (N, C) or (N, C, L) inputs."""

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() != 2 and input.dim() != 3:
            raise StridedValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class BatchNorm2d(_BatchNorm):
    """Over (N, C, H, W) inputs."""

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() != 4:
            raise StridedValueError(f"expected 4D input (got {input.dim()}D input)")
