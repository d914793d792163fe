"""``strided.optim``: PyTorch's optimizers and learning-rate schedulers over strided tensors.

``import strided.optim as optim`` and a PyTorch training loop's ``optim.Adam(params, lr=...)``,
``opt.zero_grad()``, ``loss.backward()``, ``opt.step()`` run unchanged; each update is PyTorch
2.13's single-tensor (``foreach=False``) formula, op for op, written into the parameters in place.

>>> import strided
>>> from strided import optim
>>> w = strided.tensor([3.0], requires_grad=True)
>>> opt = optim.SGD([w], lr=0.25)
>>> sched = optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
>>> for _ in range(3):
...     opt.zero_grad(); (w * w).sum().backward(); opt.step(); sched.step()
>>> round(w.item(), 6), sched.get_last_lr()
(0.984375, [0.03125])
"""

from . import lr_scheduler
from .adam import Adam
from .adamw import AdamW
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["Adam", "AdamW", "Optimizer", "RMSprop", "SGD", "lr_scheduler"]
