"""Gradients of strided.nn.functional against torch.autograd: activations, losses, layers.

(F.gelu's rule is agmath's, beside its forward in ops/elementwise/special.py, and tested there.)

Every case builds the same non-contiguous float64 leaves in both libraries (a stepped slice,
permuted), evaluates one expression, and compares the node PyTorch names, the values, and each
leaf's gradient (atol 1e-10); ``strided.autograd.gradcheck`` checks the same expression against
finite differences.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import strided
import strided.autograd as ag
import strided.nn.functional as SF
from oracle_helpers import case

SHAPES = {"x": (4, 6), "w": (5, 6), "b": (5,), "x3": (2, 3, 6), "lw": (6,), "lb": (6,), "v": (6,)}


def _leaves(seed: int) -> tuple[dict, dict]:
    """The same non-contiguous float64 leaves in strided and torch: each is a stepped slice of a
    bigger array (every other row of its first dim), its dims then reversed."""
    rng = np.random.default_rng(seed)
    env_s, env_t = {}, {}
    for name, shape in SHAPES.items():
        rev = shape[::-1]
        base = rng.standard_normal((rev[0] * 2, *rev[1:]))
        order = tuple(range(len(shape) - 1, -1, -1))
        s = strided.from_numpy(base.copy())[::2].permute(order)
        t = torch.from_numpy(base.copy())[::2].permute(order)
        env_s[name], env_t[name] = s.requires_grad_(), t.requires_grad_()
    consts = {
        "t": np.array([0, 5, 2, 2]), "tig": np.array([0, -100, 3, 5]), "t3": np.array([[0, 2, 1, 1, 0, 2], [1, 1, 0, 2, 2, 0]]),
        "cw": rng.uniform(0.5, 2.0, 6), "cw3": rng.uniform(0.5, 2.0, 3),
        "p": rng.dirichlet(np.ones(6), 4), "y01": rng.uniform(0, 1, (4, 6)), "tgt": rng.standard_normal((4, 6)),
        "trow": rng.standard_normal(6), "ix": np.array([[0, 2, 4], [2, 2, 1]]), "pw": rng.uniform(0.5, 3, 6),
    }
    for name, value in consts.items():
        env_s[name], env_t[name] = strided.tensor(value), torch.tensor(value)
    env_s["F"], env_t["F"] = SF, TF
    return env_s, env_t


# (expression, torch's node name when strided's differs on purpose, else None)
CASES = [
    ("F.linear(x, w, b)", None), ("F.linear(x, w)", None), ("F.linear(x3, w, b)", None), ("F.linear(x3, w)", None),
    ("F.linear(x[0], w, b)", None), ("F.linear(x[1], w)", None), ("F.linear(x, v)", None), ("F.linear(x3, v)", None),
    ("F.relu(x)", None), ("F.silu(x)", None),
    ("F.sigmoid(x)", None), ("F.tanh(x)", None), ("F.softplus(x * 3)", None),
    ("F.softplus(x, beta=2.0, threshold=1.0)", None), ("F.elu(x, 0.7)", None), ("F.leaky_relu(x, 0.2)", None),
    ("F.hardtanh(x * 2, -1.5, 0.5)", None), ("F.softmax(x3, 1)", None), ("F.log_softmax(x, 0)", None),
    ("F.cross_entropy(x, t)", None), ("F.cross_entropy(x, t, reduction='none')", None),
    ("F.cross_entropy(x, t, reduction='sum', weight=cw)", None), ("F.cross_entropy(x, tig, weight=cw)", None),
    ("F.cross_entropy(x, tig, label_smoothing=0.2)", None),
    ("F.cross_entropy(x, tig, weight=cw, label_smoothing=0.1, reduction='none')", None),
    ("F.cross_entropy(x, t, weight=cw, label_smoothing=0.3, reduction='sum')", None),
    ("F.cross_entropy(x3, t3, weight=cw3)", None), ("F.cross_entropy(x, tig, weight=cw, label_smoothing=0.25)", None),
    ("F.cross_entropy(x3, t3, label_smoothing=0.1, reduction='none')", None),
    # Note: PyTorch names a tensor / number division DivBackward1; strided's div rule (agcore's) DivBackward0
    ("F.cross_entropy(x, p)", "DivBackward0"), ("F.cross_entropy(x, p, reduction='none', weight=cw)", None),
    ("F.cross_entropy(x, p, label_smoothing=0.2, reduction='sum')", None),
    ("F.nll_loss(F.log_softmax(x, 1), t)", None), ("F.nll_loss(x, tig, weight=cw, reduction='sum')", None),
    ("F.nll_loss(x3, t3, reduction='none')", None), ("F.nll_loss(x[0], t[1])", None),
    ("F.mse_loss(x, tgt)", None), ("F.mse_loss(x, tgt, reduction='none')", None),
    ("F.mse_loss(x, lw, reduction='sum')", None), ("F.l1_loss(x, tgt)", None),
    ("F.l1_loss(x, tgt, reduction='none')", None), ("F.smooth_l1_loss(x, tgt)", None),
    ("F.smooth_l1_loss(x, lw, beta=0.5, reduction='sum')", None),
    ("F.smooth_l1_loss(x, tgt, beta=0.0, reduction='none')", None),
    ("F.binary_cross_entropy(x.sigmoid(), y01)", None),
    ("F.binary_cross_entropy(x.sigmoid(), y01, weight=cw, reduction='none')", None),
    ("F.binary_cross_entropy_with_logits(x, y01)", None),
    ("F.binary_cross_entropy_with_logits(x, y01, weight=cw, pos_weight=pw, reduction='sum')", None),
    ("F.binary_cross_entropy(x[:, 0].sigmoid(), b[:4].sigmoid(), reduction='sum')", None),
    ("F.binary_cross_entropy_with_logits(x[0], lw.sigmoid(), pos_weight=pw)", None),
    ("F.binary_cross_entropy_with_logits(x[1], lb.sigmoid(), reduction='none')", None),
    ("F.cross_entropy(x[0:2], lw.softmax(0).expand(2, 6), reduction='sum')", None),
    ("F.layer_norm(x, (6,))", None), ("F.layer_norm(x, (6,), lw, lb)", None),
    ("F.layer_norm(x3, (3, 6), eps=1e-3)", None), ("F.embedding(ix, w)", None),
    ("F.embedding(ix, w, padding_idx=2)", None), ("F.normalize(x)", None), ("F.normalize(x3, p=3.0, dim=(0, 2))", None),
    ("F.normalize(x, p=1, dim=0)", None), ("F.embedding(ix, w, scale_grad_by_freq=True)", None),
]


def _scalar(y, env, lib, seed=7):
    """``y`` made a scalar by a fixed random weighting (so every output element's gradient counts)."""
    if y.ndim == 0:
        return y
    r = np.random.default_rng(seed).standard_normal(tuple(y.shape))
    return (y * (strided.tensor(r) if lib is strided else torch.tensor(r))).sum()


@pytest.mark.filterwarnings("ignore:Using a target size")
@pytest.mark.parametrize("expr,name", CASES, ids=[c[0] for c in CASES])
def test_gradient_and_node_match_torch(expr, name):
    env_s, env_t = _leaves(hash(expr) % 1000)
    ys, yt = eval(expr, env_s), eval(expr, env_t)
    assert ys.grad_fn.name() == (name or yt.grad_fn.name())
    assert ys.shape == tuple(yt.shape) and ys.dtype == strided.float64
    np.testing.assert_allclose(ys.detach().numpy(), yt.detach().numpy(), rtol=0, atol=1e-10)
    _scalar(ys, env_s, strided).backward()
    _scalar(yt, env_t, torch).backward()
    compared = 0
    for leaf in SHAPES:
        gt = env_t[leaf].grad
        if gt is None:
            assert env_s[leaf].grad is None, leaf
            continue
        np.testing.assert_allclose(env_s[leaf].grad.numpy(), gt.numpy(), rtol=0, atol=1e-10, err_msg=leaf)
        compared += 1
    assert compared


# (padding_idx and scale_grad_by_freq change the gradient on purpose: no finite-difference check)
GRADCHECK = [c[0] for c in CASES if "padding_idx" not in c[0] and "scale_grad" not in c[0]]


@pytest.mark.filterwarnings("ignore:Using a target size")
@pytest.mark.parametrize("expr", GRADCHECK, ids=GRADCHECK)
def test_gradcheck(expr):
    env, _ = _leaves(3)
    used = tuple(env[k] for k in SHAPES if re.search(rf"\b{k}\b", expr))
    assert ag.gradcheck(lambda *_: eval(expr, env), used)


def test_dropout_train_saves_its_mask_and_eval_is_identity():
    env, _ = _leaves(5)
    x = env["x"]
    strided.manual_seed(0)
    y = SF.dropout(x, 0.25)
    assert y.grad_fn.name() == "MulBackward0"  # PyTorch's: input * mask
    y.sum().backward()
    kept = y.detach().numpy() != 0
    np.testing.assert_array_equal(x.grad.numpy(), kept / 0.75)
    assert 0 < kept.sum() < kept.size
    assert SF.dropout(x, 0.25, training=False) is x
    assert ag.gradcheck(lambda t: (strided.manual_seed(1), SF.dropout(t, 0.5))[1], (x,))
    z = SF.dropout(x, 1.0)
    z.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), kept / 0.75)  # p=1: no gradient added


_INPLACE_CALLS = [("silu", ()), ("elu", (0.7,)), ("leaky_relu", (0.2,)), ("hardtanh", (-0.5, 1.5)), ("relu", ()),
                  ("dropout", (1.0,))]


@pytest.mark.parametrize("name, args", _INPLACE_CALLS)
def test_inplace_activation_follows_pytorch_in_and_out_of_the_graph(name, args):
    """F.<act>(x, inplace=True) as PyTorch 2.13: on a non-leaf in the graph it writes x and its
    gradient is the activation's; on a leaf that requires grad it is refused before writing;
    under no_grad it writes the leaf and counts the write."""
    values = [-1.5, -0.2, 0.4, 2.0]
    results = {}
    for lib, F in ((strided, SF), (torch, TF)):
        x = lib.tensor(values, dtype=lib.float64, requires_grad=True)
        y = x * 3
        out = getattr(F, name)(y, *args, inplace=True)
        assert out is y and y._version == 1
        (out * lib.tensor([1.0, 2.0, 3.0, 4.0], dtype=lib.float64)).sum().backward()
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
            getattr(F, name)(x, *args, inplace=True)
        before = x._version
        with lib.no_grad():
            getattr(F, name)(x, *args, inplace=True)
        results[lib] = (y.detach().tolist(), x.grad.tolist(), x.detach().tolist(), x._version - before)
    s, t = results[strided], results[torch]
    np.testing.assert_allclose(s[0], t[0], rtol=1e-12)
    np.testing.assert_allclose(s[1], t[1], rtol=1e-12)
    np.testing.assert_allclose(s[2], t[2], rtol=1e-12)
    assert s[3] == t[3] == 1


def test_zero_size_and_0d_inputs():
    for lib, F in ((strided, SF), (torch, TF)):
        x = lib.zeros(0, 3, dtype=lib.float64, requires_grad=True)
        w = lib.ones(2, 3, dtype=lib.float64, requires_grad=True)
        F.linear(x, w).sum().backward()
        assert tuple(w.grad.shape) == (2, 3) and float(w.grad.abs().sum()) == 0
        s = lib.tensor(0.5, dtype=lib.float64, requires_grad=True)
        F.silu(s).backward()
        assert float(s.grad) == pytest.approx(float(torch.sigmoid(torch.tensor(0.5)) * (1 + 0.5 * (
            1 - torch.sigmoid(torch.tensor(0.5))))))


def test_new_forwards_match_torch_values_and_errors():
    rng = np.random.default_rng(2)
    a = rng.standard_normal((3, 4)).astype(np.float32)
    for f in (lambda F, x: F.elu(x, 0.5), lambda F, x: F.leaky_relu(x), lambda F, x: F.hardtanh(x, -0.5, 0.5),
              lambda F, x: F.smooth_l1_loss(x, x * 0.3, beta=0.7), lambda F, x: F.l1_loss(x, x.t().t() * 2),
              lambda F, x: F.binary_cross_entropy_with_logits(x, (x > 0).float())):
        np.testing.assert_allclose(f(SF, strided.tensor(a)).numpy(), f(TF, torch.tensor(a)).numpy(), rtol=1e-6,
                                   atol=1e-6)
    with pytest.raises(RuntimeError, match="all elements of input should be between 0 and 1"):
        SF.binary_cross_entropy(strided.tensor([1.5]), strided.tensor([1.0]))
    with pytest.raises(ValueError, match="Using a target size"):
        SF.binary_cross_entropy(strided.tensor([0.5, 0.5]), strided.tensor([1.0]))
    with pytest.raises(IndexError, match="index out of range in self"):
        SF.embedding(strided.tensor([3]), strided.ones(3, 2))
    ix, w = strided.tensor([0, 2, 2]), strided.ones(3, 2)
    with strided.record_copies() as copies:
        SF.embedding(ix, w)
    assert copies[0].reason.startswith("embedding: 3 rows") and copies[0].nbytes == 24


def test_normalize_of_a_zero_row_matches_torch():
    a = np.array([[0.0, 0.0, 0.0], [1.0, -2.0, 2.0]])
    s, t = strided.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    r = np.random.default_rng(4).standard_normal((2, 3))
    ys, yt = SF.normalize(s, dim=1), TF.normalize(t, dim=1)
    np.testing.assert_allclose(ys.detach().numpy(), yt.detach().numpy(), rtol=0, atol=1e-15)
    (ys * strided.tensor(r)).sum().backward()
    (yt * torch.tensor(r)).sum().backward()
    np.testing.assert_allclose(s.grad.numpy(), t.grad.numpy(), rtol=1e-12)
    with pytest.raises(IndexError, match="Dimension out of range"):
        SF.normalize(s, dim=2)


@pytest.mark.parametrize("loss", ["mse_loss", "l1_loss", "smooth_l1_loss"])
def test_broadcast_target_warning_points_at_the_callers_line(loss):
    x = strided.ones(2, 3, requires_grad=True)
    for a in (x, x.detach()):  # through the autograd wrapper, and without it
        with pytest.warns(UserWarning, match="Using a target size") as caught:
            getattr(SF, loss)(a, strided.ones(3))
        assert caught[0].filename == __file__


def test_linear_records_one_node_and_copies_nothing_in_its_forward():
    """F.linear's forward (a matmul, then the bias added in place) runs below autograd: no inner
    nodes, and the in-place add on its own fresh result takes no history rewrite (no copy)."""
    env, _ = _leaves(9)
    h = env["x"] * 1.0  # a non-leaf input
    with strided.record_copies() as copies:
        y = SF.linear(h, env["w"], env["b"])
    assert len(copies) == 0
    assert y.grad_fn.name() == "AddmmBackward0"
    assert [n.name() for n, _ in y.grad_fn.next_functions] == [
        "MulBackward0", "torch::autograd::AccumulateGrad", "torch::autograd::AccumulateGrad"]


@pytest.mark.parametrize("expr", ["F.nll_loss(x, lib.tensor([-100] * 4))",
                                  "F.cross_entropy(x, lib.tensor([-100] * 4), label_smoothing=0.1)",
                                  "F.cross_entropy(x[0], lib.tensor(1), label_smoothing=0.2)",
                                  "F.cross_entropy(x[:0], lib.tensor([], dtype=lib.int64))"])
def test_every_target_ignored_1d_and_empty_inputs_match_torch(expr):
    a = np.random.default_rng(6).standard_normal((4, 6))
    got = []
    for lib, functional in ((strided, SF), (torch, TF)):
        x = lib.tensor(a, requires_grad=True)
        y = eval(expr, {"F": functional, "lib": lib, "x": x})
        y.backward()
        got.append((y.grad_fn.name(), y.item(), np.asarray(x.grad.tolist())))
    (ns, ys, gs), (nt, yt, gt) = got
    assert ns == nt
    np.testing.assert_allclose(ys, yt, rtol=0, atol=1e-12)  # (NaN where both are NaN)
    np.testing.assert_allclose(gs, gt, rtol=0, atol=1e-12)


_WEIGHT_GRAD_CASES = {
    "nll_loss": lambda F, lib, x, t, y, w, we: F.nll_loss(x.log_softmax(1), t, weight=w),
    "nll_loss_none_detached": lambda F, lib, x, t, y, w, we: F.nll_loss(x.detach(), t, weight=w, reduction="none"),
    "nll_loss_3d": lambda F, lib, x, t, y, w, we: F.nll_loss(x.unsqueeze(2), t.unsqueeze(1), weight=w),
    "cross_entropy": lambda F, lib, x, t, y, w, we: F.cross_entropy(x, t, weight=w),
    "cross_entropy_smooth": lambda F, lib, x, t, y, w, we: F.cross_entropy(x, t, weight=w, label_smoothing=0.1),
    "cross_entropy_3d": lambda F, lib, x, t, y, w, we: F.cross_entropy(x.unsqueeze(2), t.unsqueeze(1), weight=w),
    "bce_logits_weight": lambda F, lib, x, t, y, w, we: F.binary_cross_entropy_with_logits(x, y, weight=we),
    "bce_logits_pos_weight": lambda F, lib, x, t, y, w, we: F.binary_cross_entropy_with_logits(x, y, pos_weight=w),
    "bce_weight": lambda F, lib, x, t, y, w, we: F.binary_cross_entropy(x.sigmoid(), y, weight=we),
    "bce_weight_detached": lambda F, lib, x, t, y, w, we: F.binary_cross_entropy(x.detach().sigmoid(), y, weight=we),
}


@pytest.mark.parametrize("case", list(_WEIGHT_GRAD_CASES))
def test_loss_weights_that_require_grad_are_refused_like_torch(case):
    """torch 2.13 has no derivative for these losses' weights: a weight that requires grad is a
    RuntimeError at the forward call (grad mode on), not a silently missing gradient."""
    got = []
    for lib, F in ((strided, SF), (torch, TF)):
        x = lib.tensor([[0.2, -1.0, 0.5], [1.5, 0.3, -0.7]], requires_grad=True)
        t = lib.tensor([2, 0])
        y = lib.tensor([[0.0, 1.0, 0.5], [1.0, 0.0, 0.25]])
        w = lib.tensor([0.5, 1.0, 2.0], requires_grad=True)
        we = lib.tensor([[0.5, 1.0, 2.0], [1.0, 1.5, 0.5]], requires_grad=True)
        try:
            _WEIGHT_GRAD_CASES[case](F, lib, x, t, y, w, we)
            err = None
        except Exception as e:  # noqa: BLE001 - the class is compared below
            err = (issubclass(type(e), RuntimeError), str(e).splitlines()[0])
        with lib.no_grad():  # no refusal without grad mode: the same value as torch
            value = _WEIGHT_GRAD_CASES[case](F, lib, x, t, y, w, we).tolist()
        got.append((err, value))
    (err_s, value_s), (err_t, value_t) = got
    assert err_t is not None and err_s == err_t
    np.testing.assert_allclose(value_s, value_t, rtol=1e-6)


def _builtin_class(e):
    return next(c for c in type(e).__mro__ if c.__module__ == "builtins")


@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "int8", "uint8", "bool", "uint16", "uint64",
                                   "complex64"])
def test_hardtanh_of_non_float_tensors_matches_torch(dtype):
    """torch 2.13 runs hardtanh on integer tensors (the dtype kept, the limits truncated to
    integers) and refuses bool, uint8 with negative limits, limits that overflow the dtype,
    complex and uint16/32/64 with its own errors."""
    for bounds in [(), (-2, 2), (-2.5, 2.5), (0.5, 2.7), (-0.9, 2.0), (-1.0, 1000.0),
             (-1e19, 1.0), (2.5, 2.2)]:
        with case(bounds=bounds):
            _hardtanh_of_non_float_tensors_matches_torch(dtype, bounds)


def _hardtanh_of_non_float_tensors_matches_torch(dtype, bounds):
    got = []
    for lib, F in ((strided, SF), (torch, TF)):
        dt = getattr(lib, dtype)
        values = [0, 1, 2, 3, 1] if dtype.startswith("u") or dtype == "bool" else [-3, -1, 0, 1, 3]
        x = lib.tensor(values, dtype=dt)
        try:
            r = F.hardtanh(x, *bounds)
        except Exception as e:  # noqa: BLE001 - the class is compared below
            got.append((_builtin_class(e), str(e).splitlines()[0]))
            continue
        y = x.clone()
        same = F.hardtanh(y, *bounds, inplace=True) is y
        got.append((str(r.dtype).split(".")[-1], r.tolist(), same, y.tolist()))
    assert got[0] == got[1]
