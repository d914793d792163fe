"""strided.nn.init and each layer's default initialization against PyTorch's distributions
(strided's random streams are not PyTorch's, so bounds, means and deviations are compared, not
numbers); nn.utils (clip_grad_norm_, clip_grad_value_, parameter vectors) against torch.nn.utils;
the convolution, pooling, batch-norm and attention modules' construction (parameters, buffers,
shapes, reprs, state dicts, errors) against torch.nn (their forwards: tests/test_nn_modules_conv.py)."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
import torch

import strided as st
import strided.nn as nn
from nn_module_oracle import close, load_from, seeded, to_st

__all__ = ["seeded"]  # (the autouse fixture, imported: every test here is seeded)


def _moments(t: st.Tensor) -> tuple[float, float]:
    a = t.detach().numpy().astype(np.float64).ravel()
    return float(a.mean()), float(a.std())


def _uniform_ok(t: st.Tensor, bound: float) -> None:
    a = t.detach().numpy().ravel()
    assert np.all(np.abs(a) <= bound * (1 + 1e-6))
    assert np.abs(a).max() > (0.9 if a.size >= 100 else 0.5) * bound  # (it spreads to the bound, not a smaller one)
    mean, std = _moments(t)
    spread = max(0.05, 3 / math.sqrt(a.size))  # (the sample deviation's own error shrinks as 1/sqrt(n))
    assert abs(mean) < 5 * bound / math.sqrt(3 * a.size) and abs(std - bound / math.sqrt(3)) < spread * bound


def _normal_ok(t: st.Tensor, std: float, mean: float = 0.0) -> None:
    m, s = _moments(t)
    assert abs(m - mean) < 5 * std / math.sqrt(t.numel()) and abs(s - std) < 0.05 * std


def test_calculate_gain_and_fans_as_torch():
    for name in ["linear", "conv2d", "sigmoid", "tanh", "relu", "leaky_relu", "selu"]:
        assert nn.init.calculate_gain(name) == torch.nn.init.calculate_gain(name)
    assert nn.init.calculate_gain("leaky_relu", 0.2) == torch.nn.init.calculate_gain("leaky_relu", 0.2)
    for sample in (torch.empty(3, 4, 5, 2), torch.empty(6, 2)):
        assert nn.init._calculate_fan_in_and_fan_out(to_st(sample)) == \
            torch.nn.init._calculate_fan_in_and_fan_out(sample)
    for t_call, s_call in [
        (lambda: torch.nn.init.calculate_gain("nope"), lambda: nn.init.calculate_gain("nope")),
        (lambda: torch.nn.init.calculate_gain("leaky_relu", True), lambda: nn.init.calculate_gain("leaky_relu", True)),
        (lambda: torch.nn.init.kaiming_uniform_(torch.empty(3)), lambda: nn.init.kaiming_uniform_(st.empty(3))),
        (lambda: torch.nn.init.kaiming_normal_(torch.empty(3, 3), mode="fan"),
         lambda: nn.init.kaiming_normal_(st.empty(3, 3), mode="fan")),
        (lambda: torch.nn.init.eye_(torch.empty(3)), lambda: nn.init.eye_(st.empty(3))),
        (lambda: torch.nn.init.orthogonal_(torch.empty(3)), lambda: nn.init.orthogonal_(st.empty(3))),
    ]:
        with pytest.raises(ValueError) as t_info:
            t_call()
        with pytest.raises(ValueError) as s_info:
            s_call()
        assert str(s_info.value) == str(t_info.value)


@pytest.mark.parametrize("dtype", [st.float32, st.float64])
def test_initializer_distributions(dtype):
    st.manual_seed(3)
    w = st.empty(40, 100, dtype=dtype)
    fan_in, fan_out = 100, 40
    _uniform_ok(nn.init.uniform_(w, -0.5, 0.5), 0.5)
    _normal_ok(nn.init.normal_(w, 1.0, 2.0), 2.0, 1.0)
    _uniform_ok(nn.init.xavier_uniform_(w, gain=2.0), 2.0 * math.sqrt(6 / (fan_in + fan_out)))
    _normal_ok(nn.init.xavier_normal_(w), math.sqrt(2 / (fan_in + fan_out)))
    _uniform_ok(nn.init.kaiming_uniform_(w, a=math.sqrt(5)), 1 / math.sqrt(fan_in))
    _uniform_ok(nn.init.kaiming_uniform_(w, mode="fan_out", nonlinearity="relu"), math.sqrt(6 / fan_out))
    _normal_ok(nn.init.kaiming_normal_(w, nonlinearity="relu"), math.sqrt(2 / fan_in))
    t = nn.init.trunc_normal_(w, mean=0.5, std=1.0, a=0.0, b=1.0)
    a = t.numpy()
    assert a.min() >= 0 and a.max() <= 1 and a.min() < 0.01 and a.max() > 0.99
    assert abs(a.mean() - 0.5) < 0.02  # (symmetric around the mean)
    assert nn.init.constant_(w, 0.25).numpy().tolist() == np.full((40, 100), 0.25).tolist()
    assert nn.init.zeros_(w).abs().sum().item() == 0 and nn.init.ones_(w).sum().item() == 4000
    assert w.dtype is dtype


def test_eye_and_orthogonal():
    for shape in [(3, 5), (4, 2)]:
        np.testing.assert_array_equal(nn.init.eye_(st.empty(*shape)).numpy(), torch.nn.init.eye_(torch.empty(*shape)))
        q = nn.init.orthogonal_(st.empty(*shape), gain=2.0).numpy().astype(np.float64)
        small = q @ q.T if shape[0] < shape[1] else q.T @ q
        np.testing.assert_allclose(small, 4 * np.eye(min(shape)), atol=1e-5)
    q = nn.init.orthogonal_(st.empty(2, 3, 2))
    assert q.shape == (2, 3, 2)


def test_initializers_write_in_place_without_a_graph():
    p = nn.Parameter(st.zeros(3, 4))
    view = p[:, :2]
    assert nn.init.uniform_(view, 1.0, 2.0) is view
    assert p.grad_fn is None and p.detach()[:, :2].min().item() >= 1.0 and p.detach()[:, 2:].abs().sum().item() == 0
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        nn.init.kaiming_uniform_(st.empty(0, 3))


def test_layer_defaults_draw_from_torchs_distributions():
    st.manual_seed(0)
    lin = nn.Linear(200, 30)
    _uniform_ok(lin.weight, 1 / math.sqrt(200))
    _uniform_ok(lin.bias, 1 / math.sqrt(200))
    conv = nn.Conv2d(8, 40, 3)
    _uniform_ok(conv.weight, 1 / math.sqrt(8 * 9))
    _uniform_ok(conv.bias, 1 / math.sqrt(8 * 9))
    emb = nn.Embedding(400, 10, padding_idx=3)
    assert emb.weight[3].abs().sum().item() == 0
    _normal_ok(emb.weight, 1.0)
    mha = nn.MultiheadAttention(40, 4)
    _uniform_ok(mha.in_proj_weight, math.sqrt(6 / (40 + 120)))
    assert mha.in_proj_bias.abs().sum().item() == 0 and mha.out_proj.bias.abs().sum().item() == 0
    _uniform_ok(mha.out_proj.weight, 1 / math.sqrt(40))
    ln, bn = nn.LayerNorm(5), nn.BatchNorm1d(5)
    assert ln.weight.tolist() == [1.0] * 5 and ln.bias.tolist() == [0.0] * 5
    assert bn.weight.tolist() == [1.0] * 5 and bn.bias.tolist() == [0.0] * 5
    assert nn.Linear(3, 2, dtype=st.float64).weight.dtype is st.float64


# ---------------------------------------------------------------- nn.utils


@pytest.mark.parametrize("norm_type", [2.0, 1, float("inf"), 3.5])
@pytest.mark.parametrize("max_norm", [0.5, 100.0])
def test_clip_grad_norm_as_torch(norm_type, max_norm):
    rng = np.random.default_rng(1)
    grads = [rng.standard_normal(s).astype("float32") for s in [(3, 4), (5,), (2, 2, 2)]]
    tps = [torch.zeros(g.shape, requires_grad=True) for g in grads] + [torch.zeros(2, requires_grad=True)]
    sps = [nn.Parameter(st.zeros(*g.shape)) for g in grads] + [nn.Parameter(st.zeros(2))]
    for tp, sp, g in zip(tps, sps, grads):
        tp.grad, sp.grad = torch.from_numpy(g.copy()), st.from_numpy(g.copy())
    tn = torch.nn.utils.clip_grad_norm_(tps, max_norm, norm_type)
    sn = nn.utils.clip_grad_norm_(iter(sps), max_norm, norm_type)
    close(sn, tn, "float32")
    for tp, sp in zip(tps[:3], sps[:3]):
        close(sp.grad, tp.grad, "float32")
    assert sps[3].grad is None


def test_clip_grad_norm_edge_cases():
    p = nn.Parameter(st.ones(2))
    out = nn.utils.clip_grad_norm_(p, 1.0)
    assert out.item() == 0.0 and out.dtype is st.float32 and p.grad is None
    p.grad = st.tensor([float("inf"), 1.0])
    tp = torch.nn.Parameter(torch.ones(2))
    tp.grad = torch.tensor([float("inf"), 1.0])
    with pytest.raises(RuntimeError) as t_info:
        torch.nn.utils.clip_grad_norm_(tp, 1.0, error_if_nonfinite=True)
    with pytest.raises(RuntimeError) as s_info:
        nn.utils.clip_grad_norm_(p, 1.0, error_if_nonfinite=True)
    assert str(s_info.value) == str(t_info.value)
    assert p.grad.tolist() == [float("inf"), 1.0]  # (refused before any write)
    d = nn.Parameter(st.ones(2, dtype=st.float64))
    d.grad = st.tensor([3.0, 4.0], dtype=st.float64)
    assert nn.utils.clip_grad_norm_([d], 1.0, foreach=True).item() == 5.0
    np.testing.assert_allclose(d.grad.numpy(), [0.6, 0.8], rtol=1e-6)


def test_clip_grad_value_and_parameter_vectors():
    tp, sp = torch.nn.Parameter(torch.zeros(4)), nn.Parameter(st.zeros(4))
    g = np.array([-3.0, -0.2, 0.4, 2.0], dtype="float32")
    tp.grad, sp.grad = torch.from_numpy(g.copy()), st.from_numpy(g.copy())
    torch.nn.utils.clip_grad_value_(tp, 0.5)
    nn.utils.clip_grad_value_(sp, 0.5)
    close(sp.grad, tp.grad, "float32")
    t, s = torch.nn.Linear(3, 2), nn.Linear(3, 2)
    load_from(s, t)
    close(nn.utils.parameters_to_vector(s.parameters()), torch.nn.utils.parameters_to_vector(t.parameters()),
          "float32")
    vec = st.arange(8.0)
    w = s.weight
    nn.utils.vector_to_parameters(vec, s.parameters())
    assert s.weight is w and st.shares_memory(s.weight, vec) and s.bias.tolist() == [6.0, 7.0]
    with pytest.raises(TypeError, match="expected torch.Tensor, but got: list"):
        nn.utils.vector_to_parameters([1.0], s.parameters())


# ---------------------------------------------------------------- conv, pool, batch norm, attention: construction

CONSTRUCTIONS = [
    ("Conv1d", (4, 6, 3), {}),
    ("Conv1d", (4, 6, 3), {"stride": 2, "padding": 1, "dilation": 2, "groups": 2, "bias": False}),
    ("Conv2d", (3, 8, 3), {}),
    ("Conv2d", (4, 8, (3, 2)), {"stride": (2, 1), "padding": "same", "groups": 4}),
    ("Conv2d", (4, 8, 3), {"padding": "valid", "dilation": (2, 1)}),
    ("Conv2d", (2, 4, 1), {"padding": (1, 0)}),
    ("MaxPool2d", (2,), {}),
    ("MaxPool2d", ((3, 2),), {"stride": 1, "padding": 1, "dilation": 2, "ceil_mode": True, "return_indices": True}),
    ("AvgPool2d", (3,), {"stride": 2, "padding": 1, "ceil_mode": True, "count_include_pad": False}),
    ("BatchNorm1d", (5,), {}),
    ("BatchNorm1d", (5,), {"affine": False, "momentum": None, "eps": 1e-3}),
    ("BatchNorm2d", (3,), {"track_running_stats": False, "bias": False}),
    ("MultiheadAttention", (8, 2), {}),
    ("MultiheadAttention", (8, 4), {"bias": False, "batch_first": True}),
    ("MultiheadAttention", (8, 2), {"kdim": 3, "vdim": 5, "add_bias_kv": True, "add_zero_attn": True}),
]


@pytest.mark.parametrize(("name", "args", "kwargs"), CONSTRUCTIONS, ids=[c[0] for c in CONSTRUCTIONS])
def test_construction_parameters_buffers_repr_as_torch(name, args, kwargs):
    if name == "Conv2d" and kwargs.get("padding") == "same":
        kwargs = {**kwargs, "stride": 1}
    t, s = getattr(torch.nn, name)(*args, **kwargs), getattr(nn, name)(*args, **kwargs)
    assert repr(s) == repr(t)
    for attr in ("kernel_size", "stride", "padding", "dilation", "groups", "momentum", "eps", "head_dim",
                 "_qkv_same_embed_dim", "batch_first"):
        if hasattr(t, attr):
            assert getattr(s, attr) == getattr(t, attr), attr
    assert [(n, tuple(p.shape), p.requires_grad) for n, p in t.named_parameters()] == \
        [(n, p.shape, p.requires_grad) for n, p in s.named_parameters()]
    assert [(n, str(b.dtype)[6:]) for n, b in t.named_buffers()] == [(n, b.dtype.name) for n, b in s.named_buffers()]
    load_from(s, t)


def _canon(text: str) -> str:
    """``text`` with the items of each printed set sorted (a set's print order is its hash table's)."""
    return re.sub(r"\{([^{}]*)\}", lambda m: "{" + ", ".join(sorted(m.group(1).split(", "))) + "}", text)


def test_conv_constructor_errors_as_torch():
    for args, kwargs in [((4, 6, 3), {"groups": 0}), ((4, 6, 3), {"groups": 3}), ((4, 6, 3), {"groups": 4}),
                         ((4, 6, 3), {"padding": "full"}), ((4, 6, 3), {"padding": "same", "stride": 2}),
                         ((4, 6, 3), {"padding_mode": "mirror"})]:
        with pytest.raises(ValueError) as t_info:
            torch.nn.Conv2d(*args, **kwargs)
        with pytest.raises(ValueError) as s_info:
            nn.Conv2d(*args, **kwargs)
        assert _canon(str(s_info.value)) == _canon(str(t_info.value))
    with pytest.raises(ValueError) as t_info:
        torch.nn.MultiheadAttention(0, 2)
    with pytest.raises(ValueError) as s_info:
        nn.MultiheadAttention(0, 2)
    assert str(s_info.value) == str(t_info.value)
    with pytest.raises(AssertionError, match="embed_dim must be divisible by num_heads"):
        nn.MultiheadAttention(6, 4)


def test_batch_norm_input_dims_and_modes():
    for module, t_module, shape in [(nn.BatchNorm1d(3), torch.nn.BatchNorm1d(3), (2, 3, 4, 5)),
                                    (nn.BatchNorm2d(3), torch.nn.BatchNorm2d(3), (2, 3))]:
        with pytest.raises(ValueError) as t_info:
            t_module(torch.zeros(shape))
        with pytest.raises(ValueError) as s_info:
            module(st.zeros(*shape))
        assert str(s_info.value) == str(t_info.value)
    bn = nn.BatchNorm1d(3)
    assert bn.num_batches_tracked.dtype is st.int64 and bn.num_batches_tracked.shape == ()
    assert bn.running_var.tolist() == [1.0] * 3 and not bn.eval().training
    bn.running_mean.fill_(2.0)
    bn.num_batches_tracked.fill_(7)
    bn.reset_running_stats()
    assert bn.running_mean.tolist() == [0.0] * 3 and bn.num_batches_tracked.item() == 0
