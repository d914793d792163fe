"""``strided.draw`` on PyTorch DTensors (fake process group, this process is rank 0): the global
grid's owners, each rank's local panel holding exactly the global elements PyTorch gives it (the
real run's local values on rank 0; every rank is checked against real gloo runs in
``tests/dtensor_cases.py``), replicated and partial cells marked, SVG and terminal forms."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
import torch
from torch.distributed.tensor import DTensor, Partial, Replicate, Shard, distribute_tensor

import strided
from dtensor_cases import fake_mesh


@pytest.fixture(scope="module")
def mesh():
    with fake_mesh(2) as m:
        yield m


def _x(mesh, placements, shape=(3, 4)):
    return distribute_tensor(torch.arange(float(torch.Size(shape).numel())).reshape(shape), mesh, placements)


def _cells(panel):
    return [c for g in panel.grids if g is not None for row in g.cells for c in row if c is not None]


@pytest.mark.parametrize("placements, shape", [([Shard(1)], (3, 4)), ([Shard(0)], (5, 2)), ([Shard(2)], (2, 1, 5))])
def test_owners_and_local_panels_match_pytorchs_split(mesh, placements, shape):
    x = _x(mesh, placements, shape)
    pic = strided.draw(x)
    glob, rank0, rank1 = pic.scene.panels
    local = x.to_local()  # rank 0's real values: the global flat index + 0.0
    own0 = {int(v) for v in local.reshape(-1).tolist()}
    for c in _cells(glob):
        assert c.value == ("r0" if c.offset in own0 else "r1")
    assert rank0.shape == tuple(local.shape) and rank0.strides == tuple(local.stride())
    flat = [sum(i * s for i, s in zip(c.index, torch.empty(shape).stride())) for c in _cells(rank0)]
    assert flat == [int(local[c.index]) for c in _cells(rank0)]
    assert all(c.value == ",".join(map(str, _unravel(f, shape))) for c, f in zip(_cells(rank0), flat))
    assert rank1.title == "rank 1 local"


def _unravel(flat, shape):
    out = []
    for s in reversed(shape):
        out.append(flat % s)
        flat //= s
    return tuple(reversed(out))


def test_strided_shard_after_a_flatten(mesh):
    pic = strided.draw(_x(mesh, [Shard(1)]), "view", 12)
    glob, rank0, _ = pic.scene.panels
    assert [c.value for c in _cells(glob)] == ["r0", "r0", "r1", "r1"] * 3
    assert [c.value for c in _cells(rank0)] == ["0", "1", "4", "5", "8", "9"]
    assert "local, no collective" in pic.scene.header[0]
    assert "_StridedShard(dim=0, sf=3)" in pic.text()


def test_replicated_and_partial_cells_are_marked(mesh):
    rep = strided.draw(_x(mesh, [Replicate()]))
    assert {c.value for c in _cells(rep.scene.panels[0])} == {"r0,1"}
    part = DTensor.from_local(torch.ones(2, 2), mesh, [Partial()], run_check=False)
    assert {c.value for c in _cells(strided.draw(part).scene.panels[0])} == {"Pr0,1"}
    assert "P: partial values, summed over those ranks" in strided.draw(part).scene.panels[0].caption[1]
    # the legend names the reduce op: a Partial("max") is not summed (nor "avg" averaged by a sum)
    for op, word in [("max", "the max"), ("avg", "the average"), ("min", "the min")]:
        other = DTensor.from_local(torch.ones(2, 2), mesh, [Partial(op)], run_check=False)
        legend = strided.draw(other).scene.panels[0].caption[1]
        assert f"P: partial values, the true value is {word} over those ranks" in legend and "summed" not in legend
    plain = strided.draw(_x(mesh, [Shard(0)])).scene.panels[0].caption[1]
    assert "P:" not in plain


def test_a_gathering_op_and_an_error(mesh):
    x = _x(mesh, [Shard(1)])
    pic = strided.draw(x, "view", 4, 3)
    assert "all_gather on mesh dim 0 (2 ranks): 24 bytes in, 48 bytes out per rank" in pic.scene.header[0]
    assert {c.value for c in _cells(pic.scene.panels[0])} == {"r0,1"}
    err = strided.draw(x, "view", 5, 3)
    assert err.scene.panels == () and err.scene.aside[0].startswith("error: RuntimeError: shape '[5, 3]' is invalid")


def test_svg_and_text_forms(mesh):
    x = _x(mesh, [Shard(0)], (5, 2))
    svg = strided.draw(x, format="svg")
    assert svg == strided.draw(x, format="svg")  # deterministic
    ET.fromstring(svg.split("?>", 1)[1])  # well-formed
    text = strided.draw(x, format="text")
    assert "global, by owning rank" in text and "rank 1 local" in text
    assert "\x1b[" not in text
