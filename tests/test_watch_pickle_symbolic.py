"""Watch reports leave the process: a finished ``watch()`` / ``watch_torch()`` report pickles and
reports the same after unpickling; an open block refuses (TypeError). And a ``watch_torch`` block
around dynamic-shape tracing (``make_fx(tracing_mode="symbolic")``: fake tensors whose sizes are
``SymInt``) gives a report whose ``str()`` works, shows the symbolic sizes by name, and pickles.
"""

from __future__ import annotations

import pickle

import pytest
import torch
from torch.fx.experimental.proxy_tensor import make_fx

import strided
from strided.diagnose.flow import SymbolicDim
from strided.diagnose.watch import watch
from strided.diagnose.watch_torch import watch_torch
from torch_gpt import GPT, batch


def _round_trip(w):  # noqa: ANN001, ANN202
    return pickle.loads(pickle.dumps(w))


def _same_report(a, b, exact: bool = True) -> None:  # noqa: ANN001
    """``exact``: the objects compare equal too, not only as printed (a SymInt equals no name)."""
    assert str(a) == str(b)
    assert a.table(limit=None) == b.table(limit=None)
    assert repr(a.summary()) == repr(b.summary()) and repr(a.copies) == repr(b.copies)
    if exact:
        assert a.summary() == b.summary() and a.copies == b.copies and a.broadcasts == b.broadcasts
    assert (a.bytes_copied, a.allocated_bytes, a.peak_bytes) == (b.bytes_copied, b.allocated_bytes, b.peak_bytes)
    assert a.memory.timeline == b.memory.timeline
    assert len(a.steps) == len(b.steps)


def test_watch_torch_gpt_report_pickles() -> None:
    torch.manual_seed(0)
    model = GPT(vocab=32, C=16, heads=4, T=8, layers=2)
    idx, targets = batch(model, B=2, T=8, vocab=32)
    with watch_torch() as w:
        model(idx, targets).backward()
        y = torch.ones(4, 3).t().reshape(12)
    copy = _round_trip(w)
    _same_report(w, copy)
    assert copy.copies and copy.copies[-1].name == "clone" and copy.copies[-1].nbytes == y.nbytes
    with pytest.raises(ValueError):
        copy.__enter__()  # a report, not a block


def test_watch_torch_pickled_before_steps_were_read() -> None:
    """The steps are built from the raw records when first read: pickling builds them first."""
    with watch_torch() as w:
        torch.ones(3, 1) - torch.ones(3)
    copy = _round_trip(w)
    assert copy._steps and len(copy.steps) == len(w.steps)
    assert copy.broadcasts[0].bilateral
    _same_report(w, copy)


def test_strided_watch_report_pickles() -> None:
    with watch() as w:
        a = strided.ones((4, 3)).t().reshape(12)
        b = strided.zeros((4, 1)) - strided.zeros(4)
    copy = _round_trip(w)
    _same_report(w, copy)
    assert copy.bytes_copied == a.nbytes and b.shape == (4, 4) and copy.broadcasts[0].bilateral
    with pytest.raises(ValueError):
        copy.__enter__()


@pytest.mark.parametrize("make", [watch, watch_torch])
def test_open_block_refuses_pickling(make) -> None:  # noqa: ANN001
    with make() as w:
        with pytest.raises(TypeError, match="open"):
            pickle.dumps(w)
    pickle.dumps(w)  # after the block it does


def _traced(x):  # noqa: ANN001, ANN202
    return (x.t().reshape(-1) * 2).sum()


def test_symbolic_sizes_report() -> None:
    with watch_torch() as w:
        make_fx(_traced, tracing_mode="symbolic")(torch.ones(4, 3))
    text = str(w)  # (a SymInt has no hash: the copy's reason used to crash here)
    clone = next(s for s in w.steps if s.name == "clone")
    assert clone.kind == "copy" and clone.bytes_copied == 0
    assert clone.reason == "clone of a tensor with symbolic sizes or strides"
    assert all(isinstance(d, torch.SymInt) for d in clone.output.shape)  # as read
    names = [str(d) for d in clone.output.shape]
    assert f"({names[0]}, {names[1]})" in text  # shown by name, without quotes
    assert "'" not in text.split("steps (w.table())")[1]
    # the concrete ones: the ones(4, 3) made before tracing
    ones = next(s for s in w.steps if s.name == "ones")
    assert ones.output.shape == (4, 3) and ones.bytes_allocated == 48
    copy = _round_trip(w)
    _same_report(w, copy, exact=False)  # (printed alike: a SymInt and its SymbolicDim name)
    clone = next(s for s in copy.steps if s.name == "clone")
    assert [type(d) for d in clone.output.shape] == [SymbolicDim, SymbolicDim]
    assert all(isinstance(d, (int, SymbolicDim)) for s in copy.steps for t in (*s.inputs, s.output) if t
               for d in (*t.shape, *t.strides))


def test_symbolic_dim_is_a_plain_string() -> None:
    d = SymbolicDim("2*s0")
    assert d == "2*s0" and repr((d, 3)) == "(2*s0, 3)"
    assert pickle.loads(pickle.dumps(d)) == d
