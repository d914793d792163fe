"""Issue 25's acceptance: two training programs written for PyTorch run on strided with only their
imports changed, and give PyTorch's losses, gradients and weights step for step.

Each program below is one text. It is run twice: as written (``import torch``, ...) and with its
import lines rewritten to strided's (``import strided as torch``, ``import strided.nn as nn``,
...); nothing else in it changes. Both runs start from the same state dict (PyTorch's initial
weights, handed to strided as NumPy arrays) and the same batches, and record after every step
the loss, every parameter's gradient and every parameter (float32: compared at float32
tolerance, since the two libraries' kernels round differently in the last bits).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided

MLP_PROGRAM = '''
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


class Classifier(nn.Module):
    def __init__(self, features=20, hidden=32, classes=5):
        super().__init__()
        self.fc1 = nn.Linear(features, hidden)
        self.drop = nn.Dropout(p=0.0)
        self.fc2 = nn.Linear(hidden, classes)

    def forward(self, x):
        return self.fc2(self.drop(F.relu(self.fc1(x))))


def train(state, images, labels, epochs=2, batch=16):
    model = Classifier(20, 32, 5)
    model.load_state_dict(state)
    opt = optim.Adam(model.parameters(), lr=1e-2, weight_decay=1e-4)
    loss_fn = nn.CrossEntropyLoss()
    history = []
    for epoch in range(epochs):
        model.train()
        for start in range(0, images.shape[0], batch):
            x, y = images[start:start + batch], labels[start:start + batch]
            opt.zero_grad(set_to_none=True)
            loss = loss_fn(model(x), y)
            loss.backward()
            grads = {name: p.grad.detach().clone() for name, p in model.named_parameters()}
            opt.step()
            weights = {name: p.detach().clone() for name, p in model.named_parameters()}
            history.append((loss.item(), grads, weights))
    model.eval()
    with torch.no_grad():
        accuracy = (model(images).argmax(dim=1) == labels).float().mean().item()
    return history, accuracy
'''

CNN_PROGRAM = '''
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 4, kernel_size=3, padding=1),
            nn.BatchNorm2d(4),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(4, 6, kernel_size=3, stride=1, padding=1, bias=False),
            nn.ReLU(),
            nn.AvgPool2d(2),
        )
        self.head = nn.Linear(6 * 2 * 2, 3)

    def forward(self, x):
        return self.head(torch.flatten(self.features(x), 1))


def train(state, images, labels, steps=4, batch=8):
    model = SmallCNN()
    model.load_state_dict(state)
    opt = optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    history = []
    model.train()
    for step in range(steps):
        x = images[step * batch:(step + 1) * batch]
        y = labels[step * batch:(step + 1) * batch]
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        grads = {name: p.grad.detach().clone() for name, p in model.named_parameters()}
        opt.step()
        weights = {name: p.detach().clone() for name, p in model.named_parameters()}
        weights.update({name: b.detach().clone() for name, b in model.named_buffers()})
        history.append((loss.item(), grads, weights))
    model.eval()
    with torch.no_grad():
        logits = model(images[:batch])
    return history, logits
'''

STRIDED_IMPORTS = {
    "import torch\n": "import strided as torch\n",
    "import torch.nn as nn\n": "import strided.nn as nn\n",
    "import torch.nn.functional as F\n": "import strided.nn.functional as F\n",
    "import torch.optim as optim\n": "import strided.optim as optim\n",
}


def _on_strided(program: str) -> str:
    """The program with only its import lines rewritten (each must be there: a test of the text)."""
    for old, new in STRIDED_IMPORTS.items():
        assert old in program
        program = program.replace(old, new)
    assert "torch." in program  # (the body still spells torch: it runs on strided through the alias)
    return program


def _load(program: str) -> dict:
    namespace: dict = {"__name__": "program"}
    exec(compile(program, "<program>", "exec"), namespace)
    return namespace


def _as_numpy(value):
    if isinstance(value, dict):
        return {k: _as_numpy(v) for k, v in value.items()}
    return np.asarray(value.numpy())


def _run_both(program: str, model_name: str, images: np.ndarray, labels: np.ndarray):
    peer = _load(program)
    ours = _load(_on_strided(program))
    torch.manual_seed(0)
    state = peer[model_name]().state_dict()
    state_np = {k: v.numpy().copy() for k, v in state.items()}
    peer_out = peer["train"](state, torch.tensor(images), torch.tensor(labels))
    our_state = {k: strided.tensor(v) for k, v in state_np.items()}
    our_out = ours["train"](our_state, strided.tensor(images), strided.tensor(labels))
    return peer_out, our_out


def _compare_histories(peer_history, our_history):
    assert len(peer_history) == len(our_history) > 0
    for step, ((pl, pg, pw), (sl, sg, sw)) in enumerate(zip(peer_history, our_history)):
        assert sl == pytest.approx(pl, rel=1e-5, abs=1e-6), f"loss at step {step}"
        assert sg.keys() == pg.keys() and sw.keys() == pw.keys()
        for name in pg:
            np.testing.assert_allclose(_as_numpy(sg[name]), _as_numpy(pg[name]), rtol=1e-4, atol=1e-6,
                                       err_msg=f"grad of {name} at step {step}")
        for name in pw:
            ours, theirs = _as_numpy(sw[name]), _as_numpy(pw[name])
            assert ours.dtype == theirs.dtype, name
            np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-6, err_msg=f"{name} at step {step}")


def test_an_mlp_classifier_trains_as_in_pytorch():
    rng = np.random.default_rng(7)
    images = rng.standard_normal((48, 20)).astype(np.float32)
    labels = rng.integers(0, 5, 48)
    (peer_history, peer_acc), (our_history, our_acc) = _run_both(MLP_PROGRAM, "Classifier", images, labels)
    _compare_histories(peer_history, our_history)
    assert our_acc == pytest.approx(peer_acc)


def test_a_small_cnn_trains_as_in_pytorch():
    rng = np.random.default_rng(11)
    images = rng.standard_normal((32, 1, 8, 8)).astype(np.float32)
    labels = rng.integers(0, 3, 32)
    (peer_history, peer_logits), (our_history, our_logits) = _run_both(CNN_PROGRAM, "SmallCNN", images, labels)
    _compare_histories(peer_history, our_history)
    # eval mode: the running statistics the four training steps left behind normalize the batch
    np.testing.assert_allclose(_as_numpy(our_logits), _as_numpy(peer_logits), rtol=1e-4, atol=1e-5)
