"""``strided.nn``'s modules, one file per job: the base class (:mod:`.module`), parameters
(:mod:`.parameter`), containers, and the layers (linear, flatten, embedding, layer norm,
dropout, activations, losses, convolutions, pooling, batch norm, attention)."""

from .activation import (
    CELU,
    ELU,
    GELU,
    GLU,
    SELU,
    Hardshrink,
    Hardsigmoid,
    Hardswish,
    Hardtanh,
    LeakyReLU,
    LogSigmoid,
    LogSoftmax,
    Mish,
    PReLU,
    ReLU,
    ReLU6,
    RReLU,
    Sigmoid,
    SiLU,
    Softmax,
    Softplus,
    Softshrink,
    Softsign,
    Tanh,
    Tanhshrink,
    Threshold,
)
from .attention import MultiheadAttention
from .batchnorm import BatchNorm1d, BatchNorm2d
from .container import ModuleDict, ModuleList, Sequential
from .conv import Conv1d, Conv2d
from .distance import CosineSimilarity
from .dropout import Dropout
from .flatten import Flatten, Unflatten
from .linear import Identity, Linear
from .loss import (
    BCELoss,
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    GaussianNLLLoss,
    HingeEmbeddingLoss,
    HuberLoss,
    KLDivLoss,
    L1Loss,
    MSELoss,
    NLLLoss,
    PoissonNLLLoss,
    SmoothL1Loss,
    SoftMarginLoss,
)
from .module import Module
from .normalization import LayerNorm
from .parameter import Parameter
from .pooling import AvgPool2d, MaxPool2d
from .sparse import Embedding

__all__ = [
    "ELU", "GELU", "AvgPool2d", "BCELoss", "BCEWithLogitsLoss", "BatchNorm1d", "BatchNorm2d", "Conv1d", "Conv2d",
    "CrossEntropyLoss", "Dropout", "Embedding", "Flatten", "Hardtanh", "Identity", "L1Loss", "LayerNorm", "LeakyReLU",
    "Linear", "LogSoftmax", "MSELoss", "MaxPool2d", "Module", "ModuleDict", "ModuleList", "MultiheadAttention",
    "NLLLoss", "Parameter", "ReLU", "SiLU", "Sequential", "Sigmoid", "SmoothL1Loss", "Softmax", "Softplus", "Tanh",
    "Unflatten", "GLU", "PReLU", "CosineSimilarity", "HuberLoss", "SoftMarginLoss", "KLDivLoss", "PoissonNLLLoss", "GaussianNLLLoss", "HingeEmbeddingLoss",
    "CELU", "Hardshrink", "Hardsigmoid", "Hardswish", "LogSigmoid", "Mish", "RReLU", "ReLU6", "SELU", "Softshrink", "Softsign", "Tanhshrink", "Threshold",
]
