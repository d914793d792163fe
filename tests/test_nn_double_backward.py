"""Double backward of every ``nn.functional`` rule (R3-06), against PyTorch 2.13 and finite differences.

The ops swept are read from the registry: every op with a backward rule spelt ``"F.<name>"``
(:data:`strided.opdef.OPDEFS`); a rule without a sample here fails :func:`test_every_nn_rule_has_a_sample`.
The composites built from other ops' rules (``cross_entropy``, ``l1_loss``, ``gelu``, the softmax
wrappers, ``dropout``) are swept too.

Each case, in float64, on its differentiable inputs laid out contiguous, permuted, sliced (a
step of 2) and expanded (a stride-0 dim) where the input has the dims for it:

1. first derivatives ``g1 = grad(out, inputs, v, create_graph=True)`` for a random cotangent
   ``v`` that itself requires grad, compared with ``torch.autograd.grad``'s;
2. second derivatives of ``phi = sum_i <g1_i, w_i>`` (random ``w_i``) with respect to the inputs
   *and* ``v`` (a rule must be differentiable in its incoming gradient too, as PyTorch's
   ``gradgradcheck`` checks), compared with torch's (None read as zeros);
3. the same second derivatives against central finite differences of ``phi`` computed from
   strided's first-order backward alone (a check of our own: no torch in it).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import strided
import strided.nn.functional as SF
from strided.opdef import OPDEFS

NN_RULES = sorted({op.name for op in OPDEFS.values() if op.backward is not None and op.name.startswith("F.")})

R, U, P = "real", "unit", "positive"  # values: uniform in (-2, 2), (0.1, 0.9), (0.5, 2)


def _idx(classes: int) -> str:
    return f"idx:{classes}"


# (rule swept, case id, call(F, *inputs), [(shape, values, requires grad), ...])
CASES = [
    ("F.silu", "silu", lambda F, x: F.silu(x), [((3, 4), R, True)]),
    ("F.softplus", "softplus", lambda F, x: F.softplus(x), [((3, 4), R, True)]),
    ("F.softplus", "softplus_beta_threshold", lambda F, x: F.softplus(x, beta=2.0, threshold=1.5), [((3, 4), R, True)]),
    ("F.elu", "elu", lambda F, x: F.elu(x, 0.7), [((3, 4), R, True)]),
    ("F.leaky_relu", "leaky_relu", lambda F, x: F.leaky_relu(x, 0.2), [((3, 4), R, True)]),
    ("F.hardtanh", "hardtanh", lambda F, x: F.hardtanh(x, -1.0, 1.5), [((3, 4), R, True)]),
    ("F.selu", "selu", lambda F, x: F.selu(x), [((3, 4), R, True)]),
    ("F.celu", "celu", lambda F, x: F.celu(x, 0.7), [((3, 4), R, True)]),
    ("F.hardswish", "hardswish", lambda F, x: F.hardswish(x * 2), [((3, 4), R, True)]),
    ("F.hardshrink", "hardshrink", lambda F, x: F.hardshrink(x, 0.3), [((3, 4), R, True)]),
    ("F.softshrink", "softshrink", lambda F, x: F.softshrink(x, 0.3), [((3, 4), R, True)]),
    ("F.threshold", "threshold", lambda F, x: F.threshold(x, 0.1, 2.0), [((3, 4), R, True)]),
    ("F.mish", "mish", lambda F, x: F.mish(x), [((3, 4), R, True)]),
    ("F.logsigmoid", "logsigmoid", lambda F, x: F.logsigmoid(x), [((3, 4), R, True)]),
    ("F.rrelu", "rrelu_eval", lambda F, x: F.rrelu(x, 0.1, 0.3), [((3, 4), R, True)]),
    ("F.layer_norm", "layer_norm_affine", lambda F, x, w, b: F.layer_norm(x, (4,), w, b),
     [((3, 4), R, True), ((4,), R, True), ((4,), R, True)]),
    ("F.layer_norm", "layer_norm_two_dims", lambda F, x: F.layer_norm(x, (3, 4)), [((2, 3, 4), R, True)]),
    ("F.layer_norm", "layer_norm_weight_only", lambda F, x, w: F.layer_norm(x, (4,), w, eps=0.1),
     [((3, 4), R, True), ((4,), R, True)]),
    ("F.normalize", "normalize_p2", lambda F, x: F.normalize(x), [((3, 4), R, True)]),
    ("F.normalize", "normalize_p1_dim0", lambda F, x: F.normalize(x, 1.0, 0), [((3, 4), R, True)]),
    ("F.normalize", "normalize_p3", lambda F, x: F.normalize(x, 3.0, -1), [((3, 4), R, True)]),
    ("F.nll_loss", "nll_loss_mean", lambda F, x, t: F.nll_loss(x, t), [((4, 5), R, True), ((4,), _idx(5), False)]),
    ("F.nll_loss", "nll_loss_weight_ignore_none",
     lambda F, x, t, w: F.nll_loss(x, t, w, ignore_index=1, reduction="none"),
     [((4, 5), R, True), ((4,), _idx(5), False), ((5,), P, False)]),
    ("F.nll_loss", "nll_loss_spatial_sum", lambda F, x, t: F.nll_loss(x, t, reduction="sum"),
     [((2, 3, 4), R, True), ((2, 4), _idx(3), False)]),
    ("F.binary_cross_entropy", "bce", lambda F, x, y: F.binary_cross_entropy(x, y),
     [((3, 4), U, True), ((3, 4), U, True)]),
    ("F.binary_cross_entropy", "bce_weight_sum", lambda F, x, y, w: F.binary_cross_entropy(x, y, w, reduction="sum"),
     [((3, 4), U, True), ((3, 4), U, True), ((4,), P, False)]),
    ("F.binary_cross_entropy_with_logits", "bce_logits",
     lambda F, x, y: F.binary_cross_entropy_with_logits(x, y), [((3, 4), R, True), ((3, 4), U, True)]),
    ("F.binary_cross_entropy_with_logits", "bce_logits_pos_weight_none",
     lambda F, x, y, w, pw: F.binary_cross_entropy_with_logits(x, y, w, reduction="none", pos_weight=pw),
     [((3, 4), R, True), ((3, 4), U, True), ((4,), P, False), ((4,), P, False)]),
    ("F.embedding", "embedding", lambda F, i, w: F.embedding(i, w), [((2, 3), _idx(5), False), ((5, 4), R, True)]),
    ("F.embedding", "embedding_padding_freq",
     lambda F, i, w: F.embedding(i, w, padding_idx=1, scale_grad_by_freq=True),
     [((2, 3), _idx(3), False), ((5, 4), R, True)]),
    ("F.mse_loss", "mse_loss", lambda F, x, y: F.mse_loss(x, y), [((3, 4), R, True), ((3, 4), R, True)]),
    ("F.mse_loss", "mse_loss_none", lambda F, x, y: F.mse_loss(x, y, reduction="none"),
     [((3, 4), R, True), ((3, 4), R, True)]),
    ("F.smooth_l1_loss", "smooth_l1_loss", lambda F, x, y: F.smooth_l1_loss(x, y, beta=0.5),
     [((3, 4), R, True), ((3, 4), R, True)]),
    ("F.smooth_l1_loss", "smooth_l1_loss_sum", lambda F, x, y: F.smooth_l1_loss(x, y, reduction="sum", beta=2.0),
     [((3, 4), R, True), ((3, 4), R, True)]),
    ("F.huber_loss", "huber_loss", lambda F, x, y: F.huber_loss(x, y, delta=0.5),
     [((3, 4), R, True), ((3, 4), R, True)]),
    ("F.huber_loss", "huber_loss_weight_sum", lambda F, x, y, w: F.huber_loss(x, y, reduction="sum", weight=w),
     [((3, 4), R, True), ((4,), R, True), ((3, 4), P, True)]),
    ("F.soft_margin_loss", "soft_margin_loss", lambda F, x, y: F.soft_margin_loss(x, y),
     [((3, 4), R, True), ((3, 4), R, False)]),
    ("F.soft_margin_loss", "soft_margin_loss_none", lambda F, x, y: F.soft_margin_loss(x, y, reduction="none"),
     [((3, 4), R, True), ((4,), R, False)]),
    ("F.glu", "glu", lambda F, x: F.glu(x, 1), [((3, 4, 2), R, True)]),
    ("F.prelu", "prelu_channels", lambda F, x, w: F.prelu(x, w), [((2, 3, 2), R, True), ((3,), R, True)]),
    ("F.prelu", "prelu_one", lambda F, x, w: F.prelu(x, w), [((4,), R, True), ((1,), R, True)]),
    ("F.linear", "linear_bias", lambda F, x, w, b: F.linear(x, w, b), [((3, 4), R, True), ((5, 4), R, True),
                                                                       ((5,), R, True)]),
    ("F.linear", "linear_batched", lambda F, x, w: F.linear(x, w), [((2, 3, 4), R, True), ((5, 4), R, True)]),
    ("F.linear", "linear_vector", lambda F, x, w, b: F.linear(x, w, b), [((4,), R, True), ((5, 4), R, True),
                                                                         ((5,), R, True)]),
    ("F.conv2d", "conv2d_groups_pad", lambda F, x, w, b: F.conv2d(x, w, b, padding=1, groups=2),
     [((1, 2, 3, 3), R, True), ((2, 1, 2, 2), R, True), ((2,), R, True)]),
    ("F.conv1d", "conv1d_stride_dilation", lambda F, x, w: F.conv1d(x, w, stride=2, padding=1, dilation=2),
     [((2, 2, 5), R, True), ((3, 2, 2), R, True)]),
    ("F.max_pool2d", "max_pool2d_overlapping", lambda F, x: F.max_pool2d(x, 2, stride=1, padding=1),
     [((2, 1, 2, 3), R, True)]),
    ("F.max_pool1d", "max_pool1d", lambda F, x: F.max_pool1d(x, 2), [((2, 2, 4), R, True)]),
    ("F.avg_pool2d", "avg_pool2d_exclude_pad",
     lambda F, x: F.avg_pool2d(x, 2, stride=1, padding=1, count_include_pad=False), [((1, 2, 3, 3), R, True)]),
    ("F.avg_pool1d", "avg_pool1d_ceil", lambda F, x: F.avg_pool1d(x, 2, ceil_mode=True), [((2, 2, 5), R, True)]),
    ("F.batch_norm", "batch_norm_training", lambda F, x, w, b: F.batch_norm(x, None, None, w, b, training=True),
     [((4, 3), R, True), ((3,), R, True), ((3,), R, True)]),
    # composites: the rules of the ops they are built from
    ("cross_entropy", "cross_entropy", lambda F, x, t: F.cross_entropy(x, t),
     [((4, 5), R, True), ((4,), _idx(5), False)]),
    ("cross_entropy", "cross_entropy_smoothing_weight",
     lambda F, x, t, w: F.cross_entropy(x, t, w, label_smoothing=0.2, reduction="sum"),
     [((4, 5), R, True), ((4,), _idx(5), False), ((5,), P, False)]),
    ("cross_entropy", "cross_entropy_probabilities", lambda F, x, p: F.cross_entropy(x, p),
     [((4, 5), R, True), ((4, 5), U, True)]),
    ("l1_loss", "l1_loss", lambda F, x, y: F.l1_loss(x, y), [((3, 4), R, True), ((3, 4), R, True)]),
    ("gelu", "gelu", lambda F, x: F.gelu(x), [((3, 4), R, True)]),
    ("gelu", "gelu_tanh", lambda F, x: F.gelu(x, approximate="tanh"), [((3, 4), R, True)]),
    ("softmax", "softmax", lambda F, x: F.softmax(x, 1), [((3, 4), R, True)]),
    ("log_softmax", "log_softmax", lambda F, x: F.log_softmax(x, 0), [((3, 4), R, True)]),
    ("relu", "relu", lambda F, x: F.relu(x), [((3, 4), R, True)]),
    ("sigmoid", "sigmoid", lambda F, x: F.sigmoid(x), [((3, 4), R, True)]),
]
LAYOUTS = ("contiguous", "permuted", "sliced", "expanded")
# Note: PyTorch's double backward of embedding ignores scale_grad_by_freq (derivatives.yaml:
# embedding_dense_double_backward(grad, indices, padding_idx)), so its second derivative w.r.t. the
# incoming gradient is not the derivative of its own first derivative (g / count). strided's is
# (the finite differences agree): for these cases the second derivative w.r.t. v is checked
# against finite differences and test_embedding_scale_grad_by_freq_double_backward, not torch.
TORCH_UNSCALED = {"embedding_padding_freq"}


def _values(rng: np.random.Generator, shape: tuple[int, ...], kind: str) -> np.ndarray:
    if kind.startswith("idx:"):
        return rng.integers(0, int(kind[4:]), size=shape)
    low, high = {R: (-2.0, 2.0), U: (0.1, 0.9), P: (0.5, 2.0)}[kind]
    return rng.uniform(low, high, size=shape)


def _leaf_values(rng: np.random.Generator, shape: tuple[int, ...], kind: str, layout: str) -> np.ndarray:
    """The values of an input's leaf: its own shape, or (1, ...) for an expanded one."""
    return _values(rng, (1,) + shape[1:] if layout == "expanded" else shape, kind)


def _make(lib, values: np.ndarray, dtype, grad: bool, layout: str, shape: tuple[int, ...]):
    """(the leaf, the tensor the op is given), the same in both libraries. Permuted and sliced
    inputs are leaves laid out so (a transposed storage; every other element of a wider one);
    an expanded input is a stride-0 view of a (1, ...) leaf, its gradient summed by expand's rule."""
    if layout == "permuted":
        t = lib.tensor(np.swapaxes(values, -1, -2).tolist(), dtype=dtype).transpose(-1, -2)
    elif layout == "sliced":
        wide = np.zeros(values.shape[:-1] + (2 * values.shape[-1],), dtype=values.dtype)
        wide[..., ::2] = values
        t = lib.tensor(wide.tolist(), dtype=dtype)[..., ::2]
    else:
        t = lib.tensor(values.tolist(), dtype=dtype)
    if grad:
        t.requires_grad_()
    return t, (t.expand(shape) if layout == "expanded" else t)


def _applies(layout: str, specs: list) -> bool:
    grads = [shape for shape, _, grad in specs if grad]
    if layout == "permuted":
        return any(len(shape) >= 2 for shape in grads)
    if layout == "expanded":
        return any(shape and shape[0] > 1 for shape in grads)
    return True


def _layout_for(layout: str, shape: tuple[int, ...]) -> str:
    """The layout an input gets: the case's, where its dims allow it, else contiguous."""
    if layout == "permuted" and len(shape) < 2 or layout == "expanded" and not (shape and shape[0] > 1):
        return "contiguous"
    return layout


PARAMS = [pytest.param(case, layout, id=f"{case[1]}-{layout}") for case in CASES for layout in LAYOUTS
          if _applies(layout, case[3])]


# the rules whose gradient PyTorch cannot differentiate again (its node raises "derivative for
# aten::hardsigmoid_backward is not implemented"; strided's too: tests/test_activations33.py)
NO_SECOND_DERIVATIVE = {"F.hardsigmoid"}


def test_every_nn_rule_has_a_sample():
    assert NN_RULES, "the registry lists no nn.functional rule"
    missing = set(NN_RULES) - {case[0] for case in CASES} - NO_SECOND_DERIVATIVE
    assert not missing, f"nn.functional rules without a double-backward sample: {sorted(missing)}"


def _zero(g) -> bool:
    """A second derivative that is none: None, or torch's efficient zero tensor (no storage)."""
    return g is None or (isinstance(g, torch.Tensor) and g._is_zerotensor())


class _Problem:
    """One case's numbers: the leaves (values, views), the cotangent ``v`` and the weights ``w``."""

    def __init__(self, case: tuple, layout: str, seed: int = 0) -> None:
        rng = np.random.default_rng(seed)
        _, _, self.call, specs = case
        self.inputs = []  # (leaf values, layout, requires grad, is an index, shape)
        for shape, kind, grad in specs:
            where = _layout_for(layout, shape) if grad else "contiguous"
            self.inputs.append((_leaf_values(rng, shape, kind, where), where, grad, kind.startswith("idx:"), shape))
        out = self.forward(strided, SF, [v for v, *_ in self.inputs])[1]
        self.v = rng.uniform(-1, 1, size=out.shape)
        self.w = [rng.uniform(-1, 1, size=values.shape) for values, _, grad, _, _ in self.inputs if grad]

    def forward(self, lib, F, leaf_values: list) -> tuple[list, object]:
        leaves, args = [], []
        for values, (_, where, grad, index, shape) in zip(leaf_values, self.inputs):
            leaf, arg = _make(lib, values, lib.int64 if index else lib.float64, grad, where, shape)
            if grad:
                leaves.append(leaf)
            args.append(arg)
        return leaves, self.call(F, *args)

    def first(self, lib, F, leaf_values: list, v_values: np.ndarray, create_graph: bool) -> tuple:
        leaves, out = self.forward(lib, F, leaf_values)
        v = lib.tensor(v_values.tolist(), dtype=lib.float64, requires_grad=create_graph)
        g1 = lib.autograd.grad(out, leaves, v, create_graph=create_graph)
        return leaves, v, g1

    def phi(self, lib, g1) -> object:
        total = None
        for g, w in zip(g1, self.w):
            term = (g * lib.tensor(w.tolist(), dtype=lib.float64)).sum()
            total = term if total is None else total + term
        return total

    def derivatives(self, lib, F) -> tuple[list, list]:
        """(first derivatives, second derivatives of phi w.r.t. the leaves and v) as arrays."""
        if lib is strided:
            strided.manual_seed(0)
        leaves, v, g1 = self.first(lib, F, [values for values, *_ in self.inputs], self.v, True)
        second = lib.autograd.grad(self.phi(lib, g1), [*leaves, v], allow_unused=True)
        arrays = [np.asarray(g.detach().tolist(), dtype=float) for g in g1]
        shapes = [t.shape for t in (*leaves, v)]
        return arrays, [np.zeros(tuple(s)) if _zero(g) else np.asarray(g.detach().tolist(), dtype=float)
                        for g, s in zip(second, shapes)]

    def numeric_second(self, h: float = 1e-6) -> list:
        """Central differences of phi (from strided's first-order backward alone), per leaf and v."""
        leaf_values = [values.astype(float) if not index else values for values, _, _, index, _ in self.inputs]
        targets = [k for k, (_, _, grad, _, _) in enumerate(self.inputs) if grad]

        def phi_at(values: list, v_values: np.ndarray) -> float:
            _, _, g1 = self.first(strided, SF, values, v_values, False)
            return float(self.phi(strided, g1).item())

        out = []
        for k in [*targets, None]:
            base = self.v if k is None else leaf_values[k]
            grad = np.zeros(base.shape)
            for i in np.ndindex(base.shape):
                sums = []
                for step in (h, -h):
                    moved = base.copy()
                    moved[i] += step
                    values = list(leaf_values)
                    if k is not None:
                        values[k] = moved
                    sums.append(phi_at(values, moved if k is None else self.v))
                grad[i] = (sums[0] - sums[1]) / (2 * h)
            out.append(grad)
        return out


@pytest.mark.parametrize("case, layout", PARAMS)
def test_first_and_second_derivatives_match_torch(case, layout):
    problem = _Problem(case, layout)
    s_first, s_second = problem.derivatives(strided, SF)
    t_first, t_second = problem.derivatives(torch, TF)
    for s, t in zip(s_first, t_first):
        np.testing.assert_allclose(s, t, rtol=1e-10, atol=1e-12)
    if case[1] in TORCH_UNSCALED:  # (the last: w.r.t. v)
        s_second, t_second = s_second[:-1], t_second[:-1]
    for s, t in zip(s_second, t_second):
        np.testing.assert_allclose(s, t, rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("case, layout", PARAMS)
def test_second_derivatives_match_finite_differences(case, layout):
    problem = _Problem(case, layout, seed=1)
    _, analytic = problem.derivatives(strided, SF)
    for a, n in zip(analytic, problem.numeric_second()):
        np.testing.assert_allclose(a, n, rtol=1e-5, atol=1e-6)


def test_dropout_second_derivative_is_its_mask():
    """dropout (a recorded ``input * mask``): its first derivative is the mask times v, so the
    second derivative w.r.t. v is the mask times w and none w.r.t. the input (torch's streams
    differ: the mask is read from strided's own output)."""
    strided.manual_seed(3)
    x = strided.tensor(np.linspace(0.5, 2.0, 12).reshape(3, 4).tolist(), dtype=strided.float64,
                       requires_grad=True)
    out = SF.dropout(x.mT, 0.5)
    mask = (out / x.mT).detach()
    v = strided.ones(4, 3, dtype=strided.float64, requires_grad=True)
    (g,) = strided.autograd.grad(out, x, v, create_graph=True)
    w = strided.tensor(np.arange(12.0).reshape(3, 4).tolist(), dtype=strided.float64)
    gx, gv = strided.autograd.grad((g * w).sum(), [x, v], allow_unused=True)
    assert gx is None
    np.testing.assert_allclose(g.detach().tolist(), mask.mT.tolist())
    np.testing.assert_allclose(gv.tolist(), (mask * w.mT).tolist())


def test_embedding_scale_grad_by_freq_double_backward():
    """The second derivative w.r.t. the incoming gradient is that gradient's own factor 1/count
    (0 at padding_idx); PyTorch's leaves the 1/count out (see TORCH_UNSCALED)."""
    index = [[1, 0, 2], [2, 2, 1]]
    results = {}
    for lib, F in ((strided, SF), (torch, TF)):
        w = lib.ones(5, 4, dtype=lib.float64, requires_grad=True)
        out = F.embedding(lib.tensor(index), w, padding_idx=1, scale_grad_by_freq=True)
        v = lib.ones(2, 3, 4, dtype=lib.float64, requires_grad=True)
        (g,) = lib.autograd.grad(out, w, v, create_graph=True)
        (gv,) = lib.autograd.grad(g.sum(), v)
        results[lib] = (g.detach().tolist(), gv[:, :, 0].tolist())
    assert results[strided][0] == results[torch][0]  # first order: the same (rows over their counts)
    assert results[strided][1] == [[0.0, 1.0, 1 / 3], [1 / 3, 1 / 3, 0.0]]
    assert results[torch][1] == [[0.0, 1.0, 1.0], [1.0, 1.0, 0.0]]


@pytest.mark.parametrize("spelling", ["F.relu", "relu", "Tensor.relu"])
def test_relu_gradient_is_differentiable_as_torchs(spelling):
    """relu's first gradient under create_graph is a node of its own (ThresholdBackwardBackward0),
    as PyTorch's: it requires grad, and a second grad through it alone gives zeros (and passes a
    NaN result's gradient on), not "does not require grad"."""
    results = []
    for lib, F in ((strided, SF), (torch, TF)):
        x = lib.tensor([-1.0, 2.0, float("nan"), 0.0], dtype=lib.float64, requires_grad=True)
        node = None
        for sq in (x, x * x):  # (relu of the leaf: its gradient's own node; of x*x: values through mul)
            y = F.relu(sq) if spelling == "F.relu" else lib.relu(sq) if spelling == "relu" else sq.relu()
            (g,) = lib.autograd.grad(y.sum(), x, create_graph=True)
            (h,) = lib.autograd.grad(g.sum(), x)
            node = node or (type(g.grad_fn).__name__ if lib is torch else g.grad_fn.name())
        results.append((g.requires_grad, node,
                        np.asarray(g.detach().tolist()), np.asarray(h.tolist())))
    (s_req, s_node, s_g, s_h), (t_req, t_node, t_g, t_h) = results
    assert (s_req, s_node) == (t_req, t_node) == (True, "ThresholdBackwardBackward0")
    np.testing.assert_array_equal(s_g, t_g)
    np.testing.assert_array_equal(s_h, t_h)
