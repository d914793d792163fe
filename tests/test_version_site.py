"""The modified-saved-tensor error names the user's line of the last in-place write, on every
path that counts a write (the version bump keeps the site lazily: code object and instruction
offset, turned into ``file:line`` only when the error is raised), with PyTorch's own first line."""

import sys

import pytest
import torch

import strided as s

HERE = __file__


def _line() -> int:
    return sys._getframe(1).f_lineno


def _error_of(lib, backward) -> str:
    with pytest.raises(RuntimeError) as info:
        backward()
    return str(info.value)


def _site(message: str) -> str:
    return message.split("the last write: ", 1)[1].split(")", 1)[0]


def _recorded(lib):  # a write recorded in the graph (the rewrite path)
    w = lib.ones(3, requires_grad=True)
    y = w.exp()
    z = y * 2
    y.mul_(2); at = _line()  # noqa: E702
    return (lambda: z.sum().backward()), "mul_", at


def _through_view(lib):  # a write through a view (CopySlices)
    w = lib.ones(3, requires_grad=True)
    y = w.exp()
    y[1:].add_(1); at = _line()  # noqa: E702
    return (lambda: y.sum().backward()), "add_", at


def _outside_graph(lib):  # grad mode on, the written tensor outside the graph (only counted)
    w = lib.ones(3, requires_grad=True)
    x = lib.ones(3)
    y = w * x
    x.add_(1); at = _line()  # noqa: E702
    return (lambda: y.sum().backward()), "add_", at


def _under_no_grad(lib):  # an optimizer's kind of write
    w = lib.ones(3, requires_grad=True)
    y = w.exp()
    with lib.no_grad():
        y.add_(1); at = _line()  # noqa: E702
    return (lambda: y.sum().backward()), "add_", at


def _by_strided_code(lib):  # the write made inside the library: the user's line is the call's
    w = lib.ones(3, requires_grad=True)
    y = w * w
    lib.nn.init.constant_(w, 2.0); at = _line()  # noqa: E702
    return (lambda: y.sum().backward()), "fill_", at


@pytest.mark.parametrize("case", [_recorded, _through_view, _outside_graph, _under_no_grad, _by_strided_code])
def test_the_error_names_the_users_line_of_the_last_write(case):
    backward, op, at = case(s)
    message = _error_of(s, backward)
    assert _site(message) == f"{op} at {HERE}:{at}"
    torch_backward, _, _ = case(torch)
    assert message.splitlines()[0] == _error_of(torch, torch_backward).splitlines()[0]

