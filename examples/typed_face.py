"""A small typed script over strided's face, as a PyTorch user writes it: ``pyright`` (and
Pylance) pass on it (tests/test_typing.py). ``strided.tensor`` is the factory, not the module
``strided/tensor.py``; the dtype aliases, ``finfo`` and the module-level view functions resolve.

Run:  python examples/typed_face.py
"""

from __future__ import annotations

import strided
from strided import Tensor


def standardize(x: Tensor) -> Tensor:
    """Zero mean, unit variance per column, with the machine epsilon of x's dtype as the floor."""
    eps = strided.finfo(x.dtype).eps
    return (x - x.mean(dim=0, keepdim=True)) / (x.std(dim=0, keepdim=True) + eps)


def main() -> None:
    x: Tensor = strided.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 7.0]], dtype=strided.float, requires_grad=True)
    y = strided.transpose(standardize(x), 0, 1)
    z: Tensor = strided.swapaxes(strided.unsqueeze(y, 0), 0, 2)
    w = x.new_zeros(2, 3).type_as(x) + strided.ones(2, 3, dtype=strided.double).float()
    loss = (z.sum() + w.sum()) * 0.5
    loss.backward()
    biggest: int = strided.iinfo(strided.long).max
    print(repr(loss), x.grad is not None, strided.numel(z), biggest > 0, strided.get_default_dtype())


if __name__ == "__main__":
    main()
