"""strided.nn modules against torch.nn: the same module loaded from one state dict gives the same
values and gradients (float32 and float64, non-contiguous inputs); the Module machinery
(parameters, buffers, submodules, state dicts and their error texts, modes, hooks, conversions)
and reprs as PyTorch's."""

from __future__ import annotations

import copy
import pickle
from collections import OrderedDict

import numpy as np
import pytest
import torch

import strided as st
import strided.nn as nn
from nn_module_oracle import DTYPES, both, close, floats, forward_backward, load_from, rng, seeded, to_st

__all__ = ["seeded"]  # (the autouse fixture, imported: every test here is seeded)


# ---------------------------------------------------------------- layers: values and gradients

CASES = [
    ("Linear", (5, 3), {}, [(4, 5)]),
    ("Linear", (5, 3), {"bias": False}, [(2, 4, 5)]),
    ("LayerNorm", (6,), {}, [(3, 6)]),
    ("LayerNorm", ((2, 3),), {"elementwise_affine": False}, [(4, 2, 3)]),
    ("LayerNorm", (4,), {"bias": False, "eps": 1e-3}, [(2, 4)]),
    ("Identity", (7,), {"x": 1}, [(2, 3)]),
    ("Flatten", (), {}, [(2, 3, 4)]),
    ("Flatten", (0, 1), {}, [(2, 3, 4)]),
    ("Unflatten", (1, (2, 2)), {}, [(3, 4)]),
    ("ReLU", (), {}, [(3, 4)]),
    ("GELU", (), {"approximate": "tanh"}, [(3, 4)]),
    ("GELU", (), {}, [(3, 4)]),
    ("SiLU", (), {}, [(3, 4)]),
    ("Tanh", (), {}, [(3, 4)]),
    ("Sigmoid", (), {}, [(3, 4)]),
    ("Softmax", (1,), {}, [(3, 4)]),
    ("LogSoftmax", (0,), {}, [(3, 4)]),
    ("LeakyReLU", (0.2,), {}, [(3, 4)]),
    ("ELU", (0.5,), {}, [(3, 4)]),
    ("Softplus", (2.0, 1.0), {}, [(3, 4)]),
    ("Hardtanh", (-0.5, 0.5), {}, [(3, 4)]),
    ("Dropout", (0.3,), {}, [(3, 4)]),  # (in eval mode: the identity)
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(("name", "args", "kwargs", "shapes"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_layer_values_and_gradients(name, args, kwargs, shapes, dtype):
    t, s = both(name, *args, dtype=dtype, **kwargs)
    if name == "Dropout":
        t.eval(), s.eval()
    for transposed in (False, True):
        inputs = [floats(*shape, dtype=dtype, transposed=transposed) for shape in shapes]
        forward_backward(s, t, inputs, dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_embedding_padding_idx_gets_no_gradient(dtype):
    t, s = both("Embedding", 10, 4, padding_idx=-2, dtype=dtype)
    assert s.padding_idx == 8 and s.weight[8].abs().sum().item() == 0
    idx = np.array([[1, 8, 3], [8, 8, 9]])
    forward_backward(s, t, [idx], dtype)
    assert s.weight.grad[8].abs().sum().item() == 0


def test_sequential_mlp_trains_as_torch():
    torch.manual_seed(0)
    tm = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 3))
    sm = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3))
    assert repr(sm) == repr(tm)
    load_from(sm, tm)
    x, y = floats(5, 4), np.array([0, 2, 1, 1, 0])
    tl = torch.nn.CrossEntropyLoss()(tm(torch.from_numpy(x)), torch.from_numpy(y))
    sl = nn.CrossEntropyLoss()(sm(st.from_numpy(x)), st.from_numpy(y))
    close(sl, tl, "float32")
    tl.backward(), sl.backward()
    for (n, tp), (m, sp) in zip(tm.named_parameters(), sm.named_parameters()):
        assert n == m
        close(sp.grad, tp.grad, "float32")


# ---------------------------------------------------------------- losses

LOSSES = [
    ("CrossEntropyLoss", {}, "classes"),
    ("CrossEntropyLoss", {"label_smoothing": 0.1, "reduction": "sum", "ignore_index": 1}, "classes"),
    ("CrossEntropyLoss", {"weight": [1.0, 2.0, 0.5]}, "classes"),
    ("NLLLoss", {"reduction": "none"}, "logprobs"),
    ("NLLLoss", {"weight": [0.2, 1.0, 3.0]}, "logprobs"),
    ("MSELoss", {}, "same"),
    ("L1Loss", {"reduction": "sum"}, "same"),
    ("SmoothL1Loss", {"beta": 0.5}, "same"),
    ("BCELoss", {"weight": [1.0, 2.0, 0.5]}, "probs"),
    ("BCEWithLogitsLoss", {"pos_weight": [1.0, 3.0, 0.5]}, "binary"),
    ("MSELoss", {"size_average": False}, "same"),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(("name", "kwargs", "target"), LOSSES, ids=[f"{c[0]}-{i}" for i, c in enumerate(LOSSES)])
def test_loss_modules(name, kwargs, target, dtype):
    tk = {k: torch.tensor(v, dtype=DTYPES[dtype][0]) if isinstance(v, list) else v for k, v in kwargs.items()}
    sk = {k: st.tensor(v, dtype=DTYPES[dtype][1]) if isinstance(v, list) else v for k, v in kwargs.items()}
    t, s = getattr(torch.nn, name)(**tk), getattr(nn, name)(**sk)
    assert repr(s) == repr(t) and s.reduction == t.reduction
    load_from(s, t)
    x = floats(4, 3, dtype=dtype, transposed=True)
    if target == "logprobs":
        x = torch.log_softmax(torch.from_numpy(x), 1).numpy()
    elif target == "probs":
        x = torch.sigmoid(torch.from_numpy(x)).numpy()
    y = {"classes": np.array([0, 2, 1, 1]), "logprobs": np.array([0, 2, 1, 1]),
         "same": floats(4, 3, dtype=dtype), "probs": rng().uniform(size=(4, 3)).astype(dtype),
         "binary": (rng().uniform(size=(4, 3)) > 0.5).astype(dtype)}[target]
    tx, sx = torch.from_numpy(x.copy()).requires_grad_(), st.from_numpy(x.copy()).requires_grad_()
    tl, sl = t(tx, torch.from_numpy(y)), s(sx, st.from_numpy(y))
    close(sl, tl, dtype)
    tl.sum().backward(), sl.sum().backward()
    close(sx.grad, tx.grad, dtype)


def test_loss_reduction_is_checked_when_called():
    s, t = nn.MSELoss(reduction="avg"), torch.nn.MSELoss(reduction="avg")
    assert s.reduction == t.reduction == "avg"
    with pytest.raises(ValueError, match="avg is not a valid value for reduction"):
        s(st.zeros(2), st.zeros(2))


# ---------------------------------------------------------------- the Module machinery


def _net(nnmod):
    """The same nested network class, built on torch.nn or strided.nn."""

    class Block(nnmod.Module):
        def __init__(self):
            super().__init__()
            self.fc = nnmod.Linear(3, 3)
            self.register_buffer("scale", torch.ones(3) if nnmod is torch.nn else st.ones(3))
            self.register_buffer("cache", torch.zeros(2) if nnmod is torch.nn else st.zeros(2), persistent=False)

        def forward(self, x):
            return self.fc(x) * self.scale

    class Net(nnmod.Module):
        def __init__(self):
            super().__init__()
            self.alpha = nnmod.Parameter(torch.ones(()) if nnmod is torch.nn else st.ones(()))
            self.blocks = nnmod.ModuleList([Block(), Block()])
            self.head = nnmod.Sequential(OrderedDict(act=nnmod.ReLU(), out=nnmod.Linear(3, 2)))
            self.shared = self.head.out  # a module reachable twice
            self.extra = nnmod.ModuleDict({"norm": nnmod.LayerNorm(2)})

        def forward(self, x):
            for b in self.blocks:
                x = b(x)
            return self.extra["norm"](self.head(x) * self.alpha)

    return Net()


def test_walks_state_dict_and_repr_match_torch():
    t, s = _net(torch.nn), _net(nn)
    assert repr(s) == repr(t)
    assert [n for n, _ in s.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert [n for n, _ in s.named_buffers()] == [n for n, _ in t.named_buffers()]
    assert [n for n, _ in s.named_modules()] == [n for n, _ in t.named_modules()]
    assert [n for n, _ in s.named_modules(remove_duplicate=False)] == \
        [n for n, _ in t.named_modules(remove_duplicate=False)]
    assert [n for n, _ in s.named_children()] == [n for n, _ in t.named_children()]
    assert [n for n, _ in s.named_parameters(recurse=False)] == ["alpha"]
    assert len(list(s.parameters())) == len(list(t.parameters())) and len(list(s.modules())) == len(list(t.modules()))
    load_from(s, t)
    forward_backward(s, t, [floats(4, 3)], "float32")
    assert s.get_submodule("blocks.1.fc") is s.blocks[1].fc
    sd = s.state_dict()
    assert st.shares_memory(sd["blocks.0.fc.weight"], s.blocks[0].fc.weight)
    assert sd["blocks.0.fc.weight"].requires_grad is False
    assert s.state_dict(keep_vars=True)["alpha"] is s.alpha


def _load_error(module, state):
    with pytest.raises(RuntimeError) as info:
        module.load_state_dict(state)
    return info


def test_load_state_dict_errors_are_torchs():
    t, s = _net(torch.nn), _net(nn)
    tsd = t.state_dict()
    del tsd["blocks.1.fc.bias"], tsd["alpha"]
    tsd["blocks.0.fc.extra"] = torch.zeros(1)
    tsd["bogus"] = torch.zeros(1)
    tsd["head.out.weight"] = torch.zeros(3, 3)
    ssd = OrderedDict((k, to_st(v)) for k, v in tsd.items())
    t_info, s_info = _load_error(t, tsd), _load_error(s, ssd)
    assert isinstance(s_info.value, st.StridedError)
    assert str(s_info.value) == str(t_info.value)
    assert "Missing key(s)" in str(s_info.value) and "size mismatch for head.out.weight" in str(s_info.value)
    # strict=False: the same keys reported, the mismatch still refused
    del tsd["head.out.weight"], ssd["head.out.weight"]
    tr, sr = t.load_state_dict(tsd, strict=False), s.load_state_dict(ssd, strict=False)
    assert (sr.missing_keys, sr.unexpected_keys) == (tr.missing_keys, tr.unexpected_keys)
    assert repr(sr) == repr(tr)


def test_load_state_dict_copies_and_converts_and_assigns():
    t, s = torch.nn.Linear(3, 2), nn.Linear(3, 2)
    w = s.weight
    s.load_state_dict({"weight": st.ones(2, 3, dtype=st.float64), "bias": st.zeros(2)})
    assert s.weight is w and s.weight.dtype is st.float32 and s.weight.sum().item() == 6
    src = st.full((2, 3), 2.0)
    s.load_state_dict({"weight": src, "bias": st.zeros(2)}, assign=True)
    assert isinstance(s.weight, nn.Parameter) and s.weight.requires_grad and st.shares_memory(s.weight, src)
    with pytest.raises(TypeError, match="Expected state_dict to be dict-like"):
        s.load_state_dict([1])
    with pytest.raises(RuntimeError) as info:
        s.load_state_dict({"weight": np.ones((2, 3)), "bias": st.zeros(2)})
    with pytest.raises(RuntimeError) as t_info:
        t.load_state_dict({"weight": np.ones((2, 3)), "bias": torch.zeros(2)})
    assert str(info.value) == str(t_info.value)


def test_registering_errors_are_torchs():
    def calls(nnmod, lib):
        m = nnmod.Linear(2, 2)
        return [
            lambda: setattr(m, "weight", lib.ones(2, 2)),
            lambda: m.register_parameter("a.b", None),
            lambda: m.register_parameter("", None),
            lambda: m.register_parameter(3, None),
            lambda: m.register_parameter("in_features", None),
            lambda: m.register_parameter("x", lib.ones(2)),
            lambda: m.register_parameter("y", nnmod.Parameter(lib.ones(2)) * 2),
            lambda: m.register_buffer("b", 3),
            lambda: m.register_buffer("a.b", None),
            lambda: m.add_module("m", 3),
            lambda: m.add_module("a.b", None),
            lambda: m.nothing,
            lambda: m.train("yes"),
            lambda: nnmod.Module()(1),
            lambda: m.to(lib.int64),
            lambda: nnmod.Dropout(1.5),
            lambda: nnmod.Sequential(nnmod.ReLU())[3],
            lambda: nnmod.ModuleList([nnmod.ReLU()])[-2],
            lambda: nnmod.ModuleList().extend(3),
            lambda: nnmod.Module(3),
            lambda: nnmod.Module(k=3),
        ]

    class Early(torch.nn.Module):
        def __init__(self, nnmod, lib):
            self.w = nnmod.Parameter(lib.ones(1))

    tcalls, scalls = calls(torch.nn, torch), calls(nn, st)
    tcalls.append(lambda: Early(torch.nn, torch))
    scalls.append(lambda: type("Early", (nn.Module,), {"__init__": Early.__init__})(nn, st))
    for tc, sc in zip(tcalls, scalls):
        with pytest.raises(Exception) as t_info:
            tc()
        with pytest.raises(Exception) as s_info:
            sc()
        assert isinstance(s_info.value, type(t_info.value)), (s_info.value, t_info.value)
        # (a dtype in the text is strided's own: "strided.int64" where PyTorch writes "torch.int64")
        assert str(s_info.value) == str(t_info.value).replace("dtype=torch.", "dtype=strided.")


def test_parameter_is_a_marked_leaf_sharing_memory():
    data = st.arange(6.0).view(2, 3)
    p = nn.Parameter(data)
    assert isinstance(p, nn.Parameter) and isinstance(p, st.Tensor) and not isinstance(data, nn.Parameter)
    assert p.requires_grad and p.is_leaf and st.shares_memory(p, data)
    assert not nn.Parameter(data, requires_grad=False).requires_grad
    assert nn.Parameter().shape == (0,)
    assert not isinstance(p * 1, nn.Parameter) and not isinstance(p.detach(), nn.Parameter)
    from strided.nn.modules.parameter import parameter_repr

    t_text = repr(torch.nn.Parameter(torch.arange(6.0).view(2, 3)))
    assert parameter_repr(p).replace(", requires_grad=True", "") == t_text.replace(", requires_grad=True", "")


def test_train_eval_zero_grad_requires_grad_apply():
    s = _net(nn)
    assert s.eval() is s and not any(m.training for m in s.modules())
    s.train()
    assert all(m.training for m in s.modules())
    s(st.ones(2, 3)).sum().backward()
    assert all(p.grad is not None for p in s.parameters())
    s.zero_grad(set_to_none=False)
    assert all(p.grad is not None and p.grad.abs().sum().item() == 0 for p in s.parameters())
    s.zero_grad()
    assert all(p.grad is None for p in s.parameters())
    s.requires_grad_(False)
    assert not any(p.requires_grad for p in s.parameters())
    seen = []
    assert s.apply(lambda m: seen.append(type(m).__name__)) is s
    t_seen = []
    _net(torch.nn).apply(lambda m: t_seen.append(type(m).__name__))
    assert seen == t_seen


def test_to_double_keeps_parameter_objects_and_grads():
    s = nn.Sequential(nn.Linear(3, 2), nn.BatchNorm1d(2))
    w = s[0].weight
    s[0](st.ones(4, 3)).sum().backward()
    before = w.detach().numpy().copy()
    assert s.to(st.float64) is s and s.double() is s
    assert s[0].weight is w and w.dtype is st.float64 and w.grad.dtype is st.float64
    assert isinstance(w, nn.Parameter) and w.requires_grad
    np.testing.assert_array_equal(w.detach().numpy(), before)
    assert s[1].running_mean.dtype is st.float64 and s[1].num_batches_tracked.dtype is st.int64
    s.float()
    assert w.dtype is st.float32 and s[0](st.ones(4, 3)).dtype is st.float32
    assert s.to("cpu") is s and s.to(st.zeros(1, dtype=st.float64)) is s and w.dtype is st.float64


def test_hooks_run_change_and_remove():
    s = nn.Linear(3, 2)
    calls = []
    h1 = s.register_forward_pre_hook(lambda m, args: (args[0] * 0,))
    h2 = s.register_forward_hook(lambda m, args, out: calls.append(out.shape))
    h3 = s.register_forward_hook(lambda m, args, kwargs, out: out + 1, with_kwargs=True)
    out = s(st.ones(1, 3))
    np.testing.assert_allclose(out.detach().numpy(), s.bias.detach().numpy()[None] + 1, rtol=1e-6)
    assert calls == [(1, 2)]
    for h in (h1, h2, h3):
        h.remove()
    with s.register_forward_hook(lambda m, a, o: o * 0):
        assert s(st.ones(1, 3)).abs().sum().item() == 0
    assert s(st.ones(1, 3)).abs().sum().item() != 0
    order = []
    s.register_forward_pre_hook(lambda m, a: order.append(1))
    s.register_forward_pre_hook(lambda m, a: order.append(0), prepend=True)
    s(st.ones(1, 3))
    assert order == [0, 1]


def test_containers_index_slice_append_delete():
    a, b, c = nn.ReLU(), nn.Tanh(), nn.Sigmoid()
    seq = nn.Sequential(a, b)
    assert seq.append(c) is seq and len(seq) == 3 and seq[-1] is c and list(seq) == [a, b, c]
    assert isinstance(seq[1:], nn.Sequential) and list(seq[1:]) == [b, c] and list(seq[1:]._modules) == ["1", "2"]
    del seq[0]
    assert list(seq._modules) == ["0", "1"] and seq[0] is b
    seq[0] = a
    assert seq[0] is a
    ml = nn.ModuleList([a])
    ml += [b]
    ml.insert(0, c)
    assert list(ml) == [c, a, b] and ml[-1] is b and list(ml[:2]) == [c, a]
    md = nn.ModuleDict([("x", a)])
    md["y"] = b
    assert list(md) == ["x", "y"] and md.pop("x") is a and len(md) == 1
    assert repr(nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])) == \
        repr(torch.nn.ModuleList([torch.nn.Linear(2, 2) for _ in range(3)]))


def test_deepcopy_and_pickle_keep_parameters():
    s = nn.Sequential(nn.Linear(3, 2), nn.LayerNorm(2))
    for clone in (copy.deepcopy(s), pickle.loads(pickle.dumps(s))):
        names = [n for n, _ in clone.named_parameters()]
        assert names == [n for n, _ in s.named_parameters()]
        assert all(isinstance(p, nn.Parameter) and p.requires_grad for p in clone.parameters())
        assert not st.shares_memory(clone[0].weight, s[0].weight)
        np.testing.assert_array_equal(clone[0].weight.detach().numpy(), s[0].weight.detach().numpy())
        clone[0].weight = nn.Parameter(st.zeros(2, 3))  # still assignable as a parameter


def test_setattr_moves_names_between_kinds():
    m = nn.Module()
    m.x = nn.Parameter(st.ones(1))
    m.x = None
    assert "x" in m._parameters and m.x is None
    m.register_buffer("b", st.ones(1))
    m.b = st.zeros(2)
    assert m.b.shape == (2,) and "b" in m._buffers
    m.child = nn.ReLU()
    del m.child
    assert "child" not in m._modules
    assert "b" in dir(m)


def test_dropout_module_draws_as_functional_and_follows_the_mode():
    import strided.nn.functional as F

    x = st.ones(50, 40)
    d = nn.Dropout(0.4)
    st.manual_seed(11)
    a = d(x)
    st.manual_seed(11)
    b = F.dropout(x, 0.4, training=True)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    kept = a.numpy() != 0
    assert 0.5 < kept.mean() < 0.7 and np.allclose(a.numpy()[kept], 1 / 0.6)
    assert np.array_equal(d.eval()(x).numpy(), x.numpy())


def test_embedding_from_pretrained_and_pre_hook_with_kwargs():
    w = st.arange(12.0).view(4, 3)
    t = torch.nn.Embedding.from_pretrained(torch.arange(12.0).view(4, 3), padding_idx=1)
    s = nn.Embedding.from_pretrained(w, padding_idx=1)
    assert repr(s) == repr(t) and not s.weight.requires_grad and st.shares_memory(s.weight, w)
    close(s(st.tensor([3, 1])), t(torch.tensor([3, 1])), "float32")
    assert nn.Embedding.from_pretrained(w, freeze=False).weight.requires_grad

    class Scale(nn.Module):
        def forward(self, x, *, k=1.0):
            return x * k

    m = Scale()
    m.register_forward_pre_hook(lambda mod, args, kwargs: (args, {"k": 3.0}), with_kwargs=True)
    assert m(st.ones(2)).tolist() == [3.0, 3.0]
    m2 = Scale()
    m2.register_forward_pre_hook(lambda mod, args, kwargs: 5, with_kwargs=True)
    with pytest.raises(RuntimeError, match="forward pre-hook must return None or a tuple of"):
        m2(st.ones(2))


def test_parameters_take_part_in_every_op_as_tensors():
    """A Parameter is an operand like any tensor: arithmetic with numbers and tensors on either
    side, reductions, views, in-place updates under no_grad; gradients as torch's."""
    x = floats(3, 4)
    tp, sp = torch.nn.Parameter(torch.from_numpy(x.copy())), nn.Parameter(st.from_numpy(x.copy()))
    tb = torch.from_numpy(floats(4))
    sb = st.from_numpy(tb.numpy().copy())

    def f(lib, p, b):
        return ((2 - p) * b + p ** 2 - b / (p.abs() + 1) + lib.maximum(p, b).relu() + p.T.sum(1).exp()).mean()

    tl, sl = f(torch, tp, tb), f(st, sp, sb)
    close(sl, tl, "float32")
    tl.backward(), sl.backward()
    close(sp.grad, tp.grad, "float32")
    with torch.no_grad(), st.no_grad():
        tp.add_(tp.grad, alpha=-0.5)
        sp.add_(sp.grad, alpha=-0.5)
    close(sp, tp, "float32")
    assert isinstance(sp, nn.Parameter) and sp.is_leaf
