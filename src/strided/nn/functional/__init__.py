"""``strided.nn.functional``: activations, losses and layers of small models, as ``torch.nn.functional``.

One module per job; this package re-exports their public names, so ``import
strided.nn.functional as F`` and every ``F.<name>`` spelling (early-bound imports included:
each name is, or calls, its op's recording entry) work as before:

- activations (:mod:`.activations`): ``relu``, ``sigmoid``, ``tanh``, ``gelu``, ``silu``,
  ``softplus``, ``elu``, ``leaky_relu``, ``hardtanh``, ``softmax``, ``log_softmax``, ``relu6``, ``selu``,
  ``celu``, ``hardsigmoid``, ``hardswish``, ``mish``, ``threshold``, ``rrelu``, ``logsigmoid``, ``softsign``,
  ``tanhshrink``, ``softshrink``, ``hardshrink`` — unary rows of
  the ops layer (:mod:`strided.ops.elementwise.activations` and friends), with PyTorch's ``inplace=``;
- losses (:mod:`.losses`): ``cross_entropy``, ``nll_loss``, ``mse_loss``, ``l1_loss``,
  ``smooth_l1_loss``, ``binary_cross_entropy``, ``binary_cross_entropy_with_logits``;
- layers (:mod:`.layers`): ``linear``, ``dropout``, ``layer_norm``, ``normalize``, ``embedding``;
- convolutions (:mod:`.conv`): ``conv1d``, ``conv2d``, over one window view of the input;
- ``batch_norm`` (with PyTorch's in-place running statistics) and ``group_norm`` (:mod:`.norms`);
- attention (:mod:`.attention`): ``scaled_dot_product_attention``, ``multi_head_attention_forward``;
- compositions of recorded ops (:mod:`.composed_losses`, :mod:`.composed_layers`): ``huber_loss``,
  ``soft_margin_loss``, ``kl_div``, ``poisson_nll_loss``, ``gaussian_nll_loss``,
  ``hinge_embedding_loss``; ``glu``, ``prelu``, ``cosine_similarity``;
- pooling (:mod:`.pooling`): ``max_pool1d``, ``max_pool2d``, ``avg_pool1d``, ``avg_pool2d``, over the same views, and ``adaptive_avg_pool2d``;
- ``one_hot`` and ``pad`` (constant mode), ops of :mod:`strided.ops.shape.padding`.

Every backward rule is written with strided's recording ops: ``create_graph=True`` gives
PyTorch's second derivatives.

>>> import strided.nn.functional as F
>>> logits = strided.tensor([[2.0, 0.5, -1.0], [0.1, 0.2, 3.0]])
>>> F.cross_entropy(logits, strided.tensor([0, 2])).shape
()
"""

from ...ops.shape.padding import one_hot, pad
from .activations import (
    celu,
    celu_,
    elu,
    elu_,
    gelu,
    hardshrink,
    hardsigmoid,
    hardswish,
    hardtanh,
    hardtanh_,
    leaky_relu,
    leaky_relu_,
    log_softmax,
    logsigmoid,
    mish,
    relu,
    relu6,
    relu_,
    rrelu,
    rrelu_,
    selu,
    selu_,
    sigmoid,
    silu,
    softmax,
    softplus,
    softshrink,
    softsign,
    tanh,
    tanhshrink,
    threshold,
    threshold_,
)
from .attention import multi_head_attention_forward, scaled_dot_product_attention
from .composed_layers import cosine_similarity, glu, prelu
from .composed_losses import (
    gaussian_nll_loss,
    hinge_embedding_loss,
    huber_loss,
    kl_div,
    poisson_nll_loss,
    soft_margin_loss,
)
from .conv import conv1d, conv2d
from .layers import dropout, embedding, layer_norm, linear, normalize
from .losses import (
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    cross_entropy,
    l1_loss,
    mse_loss,
    nll_loss,
    smooth_l1_loss,
)
from .norms import batch_norm, group_norm
from .pooling import adaptive_avg_pool2d, avg_pool1d, avg_pool2d, max_pool1d, max_pool2d

__all__ = [
    "adaptive_avg_pool2d", "avg_pool1d", "avg_pool2d", "batch_norm", "group_norm", "max_pool1d", "max_pool2d", "multi_head_attention_forward",
    "scaled_dot_product_attention",
    "binary_cross_entropy", "binary_cross_entropy_with_logits", "conv1d", "conv2d", "cross_entropy", "dropout", "elu", "elu_", "embedding",
    "gelu", "hardtanh", "hardtanh_", "l1_loss", "layer_norm", "leaky_relu", "leaky_relu_", "linear", "log_softmax", "mse_loss", "nll_loss",
    "normalize", "one_hot", "pad", "relu", "relu_", "sigmoid", "silu", "smooth_l1_loss", "softmax", "softplus", "tanh",
    "cosine_similarity", "gaussian_nll_loss", "glu", "hinge_embedding_loss", "huber_loss", "kl_div", "poisson_nll_loss",
    "prelu", "soft_margin_loss",
    "celu", "celu_", "hardshrink", "hardsigmoid", "hardswish", "logsigmoid", "mish", "relu6", "rrelu", "rrelu_", "selu", "selu_",
    "softshrink", "softsign", "tanhshrink", "threshold", "threshold_",
]
