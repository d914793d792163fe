"""``strided.nn``: PyTorch's ``torch.nn`` for small models: ``Module`` and ``Parameter``, the
containers, the layers and losses (:mod:`.modules`), ``nn.functional``, ``nn.init`` and
``nn.utils``.

It sits at the ops level: it builds on the ops (``matmul``, ``log_softmax``, ...) and the random
samplers (``dropout``, the initializers), and nothing below imports it.

>>> import strided.nn as nn
>>> model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
>>> model(strided.ones(2, 4)).shape, sum(p.numel() for p in model.parameters())
((2, 3), 67)
"""

from . import functional, init, utils
from .modules import (
    CELU,
    ELU,
    GELU,
    GLU,
    SELU,
    AvgPool2d,
    BatchNorm1d,
    BatchNorm2d,
    BCELoss,
    BCEWithLogitsLoss,
    Conv1d,
    Conv2d,
    CosineSimilarity,
    CrossEntropyLoss,
    Dropout,
    Embedding,
    Flatten,
    GaussianNLLLoss,
    Hardshrink,
    Hardsigmoid,
    Hardswish,
    Hardtanh,
    HingeEmbeddingLoss,
    HuberLoss,
    Identity,
    KLDivLoss,
    L1Loss,
    LayerNorm,
    LeakyReLU,
    Linear,
    LogSigmoid,
    LogSoftmax,
    MaxPool2d,
    Mish,
    Module,
    ModuleDict,
    ModuleList,
    MSELoss,
    MultiheadAttention,
    NLLLoss,
    Parameter,
    PoissonNLLLoss,
    PReLU,
    ReLU,
    ReLU6,
    RReLU,
    Sequential,
    Sigmoid,
    SiLU,
    SmoothL1Loss,
    SoftMarginLoss,
    Softmax,
    Softplus,
    Softshrink,
    Softsign,
    Tanh,
    Tanhshrink,
    Threshold,
    Unflatten,
)

__all__ = [
    "ELU", "GELU", "AvgPool2d", "BCELoss", "BCEWithLogitsLoss", "BatchNorm1d", "BatchNorm2d", "Conv1d", "Conv2d",
    "CrossEntropyLoss", "Dropout", "Embedding", "Flatten", "Hardtanh", "Identity", "L1Loss", "LayerNorm", "LeakyReLU",
    "Linear", "LogSoftmax", "MSELoss", "MaxPool2d", "Module", "ModuleDict", "ModuleList", "MultiheadAttention",
    "NLLLoss", "Parameter", "ReLU", "SiLU", "Sequential", "Sigmoid", "SmoothL1Loss", "Softmax", "Softplus", "Tanh",
    "Unflatten", "GLU", "PReLU", "CosineSimilarity", "HuberLoss", "SoftMarginLoss", "KLDivLoss", "PoissonNLLLoss", "GaussianNLLLoss", "HingeEmbeddingLoss", "functional", "init", "utils",
    "CELU", "Hardshrink", "Hardsigmoid", "Hardswish", "LogSigmoid", "Mish", "RReLU", "ReLU6", "SELU", "Softshrink", "Softsign", "Tanhshrink", "Threshold",
]
