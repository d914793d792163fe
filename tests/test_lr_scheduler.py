"""strided.optim.lr_scheduler against torch.optim.lr_scheduler: the same learning rates step after
step (PyTorch's chained formulas, floats equal to the bit), with two param groups, a user's own
change to ``lr`` carried on, the closed form for ``step(epoch)``, state dicts and the order warning."""

from __future__ import annotations

import warnings

import pytest
import torch

import strided as st
from strided import optim

SCHEDULES = [
    ("StepLR", {"step_size": 3, "gamma": 0.5}),
    ("MultiStepLR", {"milestones": [2, 5, 5, 9], "gamma": 0.3}),
    ("ExponentialLR", {"gamma": 0.9}),
    ("CosineAnnealingLR", {"T_max": 4, "eta_min": 0.001}),
    ("CosineAnnealingLR", {"T_max": 7}),
    ("LambdaLR", {"lr_lambda": lambda epoch: 0.95**epoch / (1 + epoch % 3)}),
]


def _pair(lib, opt_module):
    a, b = lib.zeros(2, requires_grad=True), lib.zeros(1, requires_grad=True)
    return opt_module.SGD([{"params": [a]}, {"params": [b], "lr": 0.3}], lr=0.1, momentum=0.9)


def _run(lib, opt_module, name, kw):
    opt = _pair(lib, opt_module)
    sched = getattr(opt_module.lr_scheduler, name)(opt, **kw)
    seen = [sched.get_last_lr()]
    for epoch in range(15):
        opt.step()
        sched.step()
        if epoch == 6:  # a user's own change: the chained formulas carry it on
            opt.param_groups[1]["lr"] *= 0.5
        seen.append(sched.get_last_lr() + [g["lr"] for g in opt.param_groups])
    return seen, sched


@pytest.mark.parametrize("name,kw", SCHEDULES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(SCHEDULES)])
def test_rates_equal_torch(name, kw):
    trates, tsched = _run(torch, torch.optim, name, kw)
    srates, ssched = _run(st, optim, name, kw)
    assert trates == srates
    tsd, ssd = tsched.state_dict(), ssched.state_dict()
    assert tsd.keys() - {"_get_lr_called_within_step", "_is_initial"} <= ssd.keys()
    for key in ("base_lrs", "last_epoch", "_step_count", "_last_lr"):
        assert tsd[key] == ssd[key], key


@pytest.mark.parametrize("name,kw", SCHEDULES[:4], ids=[n for n, _ in SCHEDULES[:4]])
def test_step_with_epoch_uses_the_closed_form(name, kw):
    out = []
    for lib, mod in ((torch, torch.optim), (st, optim)):
        opt = _pair(lib, mod)
        sched = getattr(mod.lr_scheduler, name)(opt, **kw)
        opt.step()
        with pytest.warns(UserWarning, match="The epoch parameter in `scheduler.step\\(\\)` was not necessary"):
            sched.step(7)
        out.append(sched.get_last_lr())
    assert out[0] == out[1]


def test_state_dict_round_trip_resumes():
    opt = _pair(st, optim)
    sched = optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    for _ in range(3):
        opt.step()
        sched.step()
    saved = sched.state_dict()
    assert "optimizer" not in saved and saved["last_epoch"] == 3
    opt2 = _pair(st, optim)
    opt2.load_state_dict(opt.state_dict())
    sched2 = optim.lr_scheduler.StepLR(opt2, step_size=99, last_epoch=-1)
    sched2.load_state_dict(saved)
    for s, o in ((sched, opt), (sched2, opt2)):
        o.step()
        s.step()
    assert sched.get_last_lr() == sched2.get_last_lr() == [0.025, 0.075]


def test_warnings_and_errors_as_torch():
    opt = _pair(st, optim)
    sched = optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
    with pytest.warns(UserWarning, match="Detected call of `lr_scheduler.step\\(\\)` before `optimizer.step\\(\\)`"):
        sched.step()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt.step()
        sched.step()
    with pytest.raises(TypeError, match="^SGD is not an Optimizer$"):  # (a torch optimizer is not strided's)
        optim.lr_scheduler.StepLR(torch.optim.SGD([torch.zeros(1, requires_grad=True)]), 1)
    with pytest.raises(KeyError, match="param 'initial_lr' is not specified in param_groups\\[0\\]"):
        optim.lr_scheduler.StepLR(optim.SGD([st.zeros(1, requires_grad=True)]), 1, last_epoch=3)
    with pytest.raises(ValueError, match="^Expected 2 lr_lambdas, but got 1$"):
        optim.lr_scheduler.LambdaLR(_pair(st, optim), [lambda e: 1.0])


def test_a_user_optimizer_whose_step_skips_the_base_is_tracked():
    class Plain(optim.Optimizer):
        def __init__(self, params):
            super().__init__(params, {"lr": 0.5})

        def step(self, closure=None):
            return None

    opt = Plain([st.zeros(1, requires_grad=True)])
    sched = optim.lr_scheduler.StepLR(opt, step_size=1)
    optim.lr_scheduler.StepLR(opt, step_size=1)  # (a second scheduler does not wrap twice)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt.step()
        sched.step()
    assert sched.get_last_lr() == [0.05] and opt.step.__wrapped__ is Plain.step
