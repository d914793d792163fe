"""Tests' helper: the elementwise fast paths' recording forced back to the old path."""

from __future__ import annotations

import pytest

import strided
import strided.gradients as gradients
from strided import grad_mode
from strided.opdef import OPDEFS
from strided.ops.elementwise import binary as binary_mod
from strided.ops.elementwise import unary as unary_mod


def force_rerun_recording(monkeypatch: pytest.MonkeyPatch) -> None:
    """The unary/binary fast paths' tracked results recorded as before those paths handed them to
    the fresh recorder themselves: ``record()`` runs the op again, inside. (The fast paths call
    ``_RECORDER["fresh"](t, rule, args)``; each module's ``_RECORDER`` is replaced by a copy whose
    "fresh" reruns the op named by the rule.)"""
    names: dict = {}
    for name, op in OPDEFS.items():
        if op.backward is not None and hasattr(strided, name):
            names.setdefault(op.backward, name)

    def rerun(t: object, maker: object, args: tuple) -> object:
        name = names[maker]
        return gradients.record(name, lambda *a: getattr(strided, name)(*a), args, {})

    table = dict(grad_mode._RECORDER)
    table["fresh"] = rerun
    monkeypatch.setattr(binary_mod, "_RECORDER", table)
    monkeypatch.setattr(unary_mod, "_RECORDER", table)
