"""Gradients of the indexing, joining and reordering ops against torch.autograd.

Each case is an expression over float64 leaves (non-contiguous: transposed, stepped views of a
bigger array) and fixed index tensors / masks, evaluated in strided and in PyTorch: the gradient
of every leaf must match (``atol=1e-10``) and the result's ``grad_fn.name()`` must be PyTorch's;
``strided.autograd.gradcheck`` checks the same expressions against finite differences.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import strided
import strided.autograd as ag

# (expression, {leaf name: shape}); in the expression ``L`` is the library (strided or torch),
# ``i([...])`` an int64 index tensor and ``b([...])`` a bool mask, both fixed (no gradient).
CASES = [
    # advanced indexing: IndexBackward0 (repeated indices accumulate)
    ("x[i([0, 2, 2])]", {"x": (4, 5)}),
    ("x[b([[1, 0, 1, 0, 1]] * 4)]", {"x": (4, 5)}),
    ("x[1:, i([0, 1, 1, 4])]", {"x": (4, 5)}),
    ("x[i([0, 1, 1]), i([2, 2, 4])]", {"x": (4, 5)}),
    ("x[..., i([[4, 0], [0, 4]])]", {"x": (4, 5)}),
    ("x.index_put((i([0, 3, 2]),), v)", {"x": (4, 5), "v": (5,)}),
    ("x.index_put((i([0, 2, 2]), i([1, 1, 1])), v, accumulate=True)", {"x": (4, 5), "v": (3,)}),
    # index_*
    ("x.index_select(1, i([0, 2, 2, 4]))", {"x": (4, 5)}),
    ("L.index_select(x, 0, i([3, 0]))", {"x": (4, 5)}),
    ("x.index_add(1, i([0, 2, 2]), s, alpha=2)", {"x": (4, 5), "s": (4, 3)}),
    ("x.index_copy(1, i([0, 3, 1]), s)", {"x": (4, 5), "s": (4, 3)}),
    ("x.index_fill(1, i([0, 2, 2]), 2.0)", {"x": (4, 5)}),
    ("x.index_fill(0, i([1, 3, 1]), v)", {"x": (4, 5), "v": ()}),
    # gather / scatter
    ("x.gather(1, i([[0, 0], [4, 1], [2, 2], [3, 0]]))", {"x": (4, 5)}),
    ("L.gather(x, 0, i([[3, 0, 3]]))", {"x": (4, 5)}),
    ("L.take_along_dim(x, i([[0, 4], [1, 1]]), 1)", {"x": (1, 5)}),
    ("L.take_along_dim(x.contiguous(), i([[2, 19, 2]]))", {"x": (4, 5)}),
    ("x.take(i([[0, -1], [7, 7]]))", {"x": (4, 5)}),
    ("x.scatter(1, i([[0, 1], [2, 3]]), s)", {"x": (4, 5), "s": (2, 2)}),
    ("x.scatter(0, i([[0, 1, 3]]), 1.5)", {"x": (4, 5)}),
    ("x.scatter_add(1, i([[0, 0], [2, 3]]), s)", {"x": (4, 5), "s": (2, 2)}),
    ("x.scatter_reduce(1, i([[0, 0], [2, 3]]), s, 'sum', include_self=False)", {"x": (4, 5), "s": (2, 2)}),
    ("x.scatter_reduce(0, i([[0, 0, 1], [0, 2, 1]]), s, 'mean')", {"x": (3, 3), "s": (2, 3)}),
    ("x.scatter_reduce(0, i([[0, 0, 1], [0, 2, 1]]), s, 'mean', include_self=False)", {"x": (3, 3), "s": (2, 3)}),
    ("x.scatter_reduce(0, i([[0, 0, 1], [0, 2, 1]]), s, 'amax')", {"x": (3, 3), "s": (2, 3)}),
    ("x.scatter_reduce(0, i([[0, 0, 1], [0, 2, 1]]), s, 'amin', include_self=False)", {"x": (3, 3), "s": (2, 3)}),
    ("x.scatter_reduce(0, i([[0, 0, 1], [0, 2, 1]]), s, 'prod')", {"x": (3, 3), "s": (2, 3)}),
    ("x.scatter_reduce(0, i([[0, 0, 1], [0, 2, 1]]), s, 'prod', include_self=False)", {"x": (3, 3), "s": (2, 3)}),
    # masked ops and where
    ("x.masked_fill(b([[1, 0, 0, 1, 1]]), -1.0)", {"x": (4, 5)}),
    ("x.masked_fill(b([[1], [0], [1]]), v)", {"x": (5,), "v": ()}),
    ("x.masked_select(b([[1, 0, 0, 1, 1], [0, 1, 0, 0, 1]]))", {"x": (5,)}),
    ("L.masked_select(x, b([[1], [0], [1], [1]]))", {"x": (4, 5)}),
    ("x.masked_scatter(b([[1, 0, 0, 1, 1]]), s)", {"x": (4, 5), "s": (3, 5)}),
    ("L.where(b([[1, 0, 0, 1, 1]]), x, y)", {"x": (4, 5), "y": (4, 1)}),
    ("L.where(b([1, 0, 0, 1, 1]), x, 2.0)", {"x": (4, 5)}),
    ("L.where(b([1, 0, 0, 1, 1]), 0.5, y)", {"y": (5,)}),
    ("x.where(b([[1, 0, 0, 1, 1]]), y)", {"x": (4, 5), "y": ()}),
    # joining
    ("L.cat([x, y, x], 1)", {"x": (4, 2), "y": (4, 3)}),
    ("L.cat([x, y.float(), L.zeros(0)])", {"x": (2, 3), "y": (1, 3)}),
    ("L.concat((x, y), -1)", {"x": (3,), "y": (2,)}),
    ("L.concatenate([x, x.exp()], 0)", {"x": (2, 3)}),
    ("L.stack([x, y, x], 1)", {"x": (2, 3), "y": (2, 3)}),
    ("L.stack([x, y], -1)", {"x": (2, 3), "y": (2, 3)}),
    ("L.hstack([x, y])", {"x": (3,), "y": ()}),
    ("L.hstack([x, y])", {"x": (3, 2), "y": (3, 1)}),
    ("L.vstack([x, y])", {"x": (2, 3), "y": (3,)}),
    ("L.row_stack([x, y])", {"x": (3,), "y": (3,)}),
    ("L.dstack([x, y])", {"x": (2, 3), "y": (2, 3, 2)}),
    ("L.column_stack([x, y, z])", {"x": (3,), "y": (3, 2), "z": (3,)}),
    ("L.column_stack([x])", {"x": ()}),
    ("L.tensor_split(x, 3)", {"x": (4, 5)}),
    ("x.tensor_split([1, 4, 2], 1)", {"x": (3, 5)}),
    ("L.hsplit(x, [2])", {"x": (2, 5)}),
    ("x.vsplit(2)", {"x": (4, 3)}),
    ("L.dsplit(x, [1, 1])", {"x": (2, 2, 3)}),
    ("L.broadcast_tensors(x, y, z)", {"x": (4, 1), "y": (3,), "z": ()}),
    ("L.atleast_1d(x)", {"x": ()}),
    ("L.atleast_2d(x, y)", {"x": (), "y": (3,)}),
    ("L.atleast_3d([x, y, z])", {"x": (2, 3), "y": (3,), "z": (1, 2, 1, 2)}),
    # reordering
    ("x.flip(0, 2)", {"x": (2, 3, 2)}),
    ("L.flip(x, (1,)) * 2", {"x": (2, 3)}),
    ("L.fliplr(x)", {"x": (2, 3)}),
    ("x.flipud()", {"x": (2, 3)}),
    ("x.roll(1, 0)", {"x": (3, 4)}),
    ("L.roll(x, (2, -1), (1, 0))", {"x": (3, 4)}),
    ("x.roll(5)", {"x": (3, 4)}),
    ("x.rot90()", {"x": (2, 3)}),
    ("L.rot90(x, 2, (1, 2))", {"x": (2, 3, 2)}),
    ("x.rot90(-1, (0, 2))", {"x": (2, 3, 2)}),
    ("x.rot90(4)", {"x": (2, 3)}),
    ("x.repeat(2, 1, 3)", {"x": (2, 3)}),
    ("x.repeat((2, 2))", {"x": ()}),
    ("x.tile((2,))", {"x": (2, 3)}),
    ("L.tile(x, (3, 1, 2))", {"x": (2, 3)}),
    ("x.repeat_interleave(2)", {"x": (2, 3)}),
    ("L.repeat_interleave(x, 3, 1)", {"x": (2, 3)}),
    ("x.repeat_interleave(i([1, 0, 3]), 1)", {"x": (2, 3)}),
    ("L.repeat_interleave(x, i([2, 1, 0, 1, 1, 2]))", {"x": (2, 3)}),
    # triangles, diagonals, grids
    ("x.tril()", {"x": (3, 4)}),
    ("L.tril(x, -1)", {"x": (2, 3, 3)}),
    ("x.triu(1)", {"x": (4, 3)}),
    ("L.diag(x)", {"x": (3,)}),
    ("x.diag(-1)", {"x": (3,)}),
    ("x.diag(1)", {"x": (3, 4)}),
    ("L.diagflat(x, 1)", {"x": (2, 2)}),
    ("x.diag_embed()", {"x": (2, 3)}),
    ("L.diag_embed(x, -1, 0, 2)", {"x": (2, 3)}),
    ("L.block_diag(x, y, z)", {"x": (2, 3), "y": (), "z": (2,)}),
    ("L.meshgrid(x, y, indexing='ij')", {"x": (3,), "y": (2,)}),
    ("L.meshgrid(x, y, z, indexing='xy')", {"x": (3,), "y": (2,), "z": ()}),
    ("L.cartesian_prod(x, y)", {"x": (3,), "y": (2,)}),
    # the *_copy forms: the view's gradient, under PyTorch's "<node>_copy" names
    ("L.permute_copy(x, (1, 0))", {"x": (2, 3)}),
    ("L.t_copy(x)", {"x": (2, 3)}),
    ("L.view_copy(x, (6,))", {"x": (2, 3)}),
    ("L.select_copy(x, 1, -1)", {"x": (2, 3)}),
    ("L.expand_copy(x, (2, 2, 3))", {"x": (1, 3)}),
    ("L.diagonal_copy(x, 1)", {"x": (3, 3)}),
    ("L.narrow_copy(x, 1, 1, 2)", {"x": (2, 3)}),
    ("x.narrow_copy(0, 1, 1)", {"x": (2, 3)}),
    ("L.slice_copy(x, 1, 0, 3, 2)", {"x": (2, 3)}),
    ("L.split_copy(x, 2, 1)", {"x": (2, 3)}),
    ("L.split_with_sizes_copy(x, [1, 2], 1)", {"x": (2, 3)}),
    ("L.unbind_copy(x, 1)", {"x": (2, 3)}),
    ("L.squeeze_copy(x, 0)", {"x": (1, 3)}),
    ("L.unsqueeze_copy(x, 1)", {"x": (2, 3)}),
    ("L.transpose_copy(x, 0, 1)", {"x": (2, 3)}),
    ("L.unfold_copy(x, 1, 2, 1)", {"x": (2, 3)}),
    ("L.as_strided_copy(x, (2, 2), (1, 1))", {"x": (2, 3)}),
    ("L.alias_copy(x)", {"x": (2, 3)}),
    # conversions: ToCopyBackward0 casts the gradient back
    ("x.float() * 3", {"x": (2, 3)}),
    ("x.to(L.float32).double()", {"x": (2, 3)}),
    ("x.type(L.float32)", {"x": (2, 3)}),
    # zero-size and 0-d inputs
    ("x[i([])]", {"x": (4, 5)}),
    ("x.index_select(0, i([]))", {"x": (0, 3)}),
    ("x.index_select(0, i([0]))", {"x": ()}),
    ("L.cat([x, y], 1)", {"x": (2, 0), "y": (2, 3)}),
    ("L.stack([x, y])", {"x": (0, 2), "y": (0, 2)}),
    ("x.gather(0, i(0))", {"x": ()}),
    ("x.gather(1, i([[], []]))", {"x": (2, 3)}),
    ("x.flip(0).repeat(0, 2)", {"x": (2, 3)}),
    ("x.masked_fill(b(True), 1.0)", {"x": ()}),
    ("L.where(b([True, False]), x, y)", {"x": (), "y": ()}),
    ("x.take(i([0, 0]))", {"x": ()}),
    ("x.roll(1, 0)", {"x": (0, 3)}),
    ("L.tril(x)", {"x": (0, 3)}),
    # repeated positions and ties: the gradients accumulate / are shared
    ("x.index_select(0, i([1, 1, 1]))", {"x": (2, 3)}),
    ("x.take(i([[5, 5], [-1, 0]]))", {"x": (2, 3)}),
]

# scatter_reduce with zeros (prod) and ties (amax, amin): the inputs are fixed, not random
TIES = [
    ("x.scatter_reduce(0, i([[0, 0, 1], [0, 2, 1]]), s, 'prod')", [[0.0, 2.0, 3.0], [4.0, 0.0, 1.0], [1.0, 2.0, 3.0]],
     [[5.0, 0.0, 0.0], [0.0, 3.0, 2.0]]),
    ("x.scatter_reduce(0, i([[0, 0, 1], [0, 2, 1]]), s, 'prod', include_self=False)",
     [[0.0, 2.0, 3.0], [4.0, 0.0, 1.0], [1.0, 2.0, 3.0]], [[5.0, 0.0, 0.0], [0.0, 3.0, 2.0]]),
    ("x.scatter_reduce(0, i([[0, 0, 1], [0, 2, 1]]), s, 'amax')", [[2.0, 2.0, 3.0], [4.0, 0.0, 1.0], [1.0, 2.0, 3.0]],
     [[2.0, 2.0, 1.0], [2.0, 2.0, 1.0]]),
    ("x.scatter_reduce(0, i([[0, 0, 1], [0, 2, 1]]), s, 'amin', include_self=False)",
     [[2.0, 2.0, 3.0], [4.0, 0.0, 1.0], [1.0, 2.0, 3.0]], [[2.0, 2.0, 1.0], [2.0, 2.0, 1.0]]),
]


@pytest.mark.parametrize(("expr", "x", "s"), TIES, ids=[c[0] + str(k) for k, c in enumerate(TIES)])
def test_scatter_reduce_zeros_and_ties(expr, x, s):
    grads = []
    for lib in (strided, torch):
        xs = lib.tensor(x, dtype=lib.float64, requires_grad=True)
        ss = lib.tensor(s, dtype=lib.float64, requires_grad=True)
        y = eval(expr, {**_namespace(lib), "x": xs, "s": ss})
        (y * lib.tensor([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0], [2.0, 1.0, 1.5]], dtype=lib.float64)).sum().backward()
        grads.append((np.array(xs.grad.tolist()), np.array(ss.grad.tolist())))
    np.testing.assert_allclose(grads[0][0], grads[1][0], rtol=0, atol=1e-12)
    np.testing.assert_allclose(grads[0][1], grads[1][1], rtol=0, atol=1e-12)


def _leaf(shape, rng):
    """The same non-contiguous float64 leaf in both libraries: a stepped slice of a bigger
    array, transposed back to ``shape`` (a 0-d leaf is plain)."""
    rev = tuple(reversed(shape))
    big = rng.standard_normal(((rev[0] * 2,) + rev[1:]) if rev else ())
    view = (lambda a: a[::2].permute(*reversed(range(len(shape))))) if shape else (lambda a: a)
    s = view(strided.from_numpy(big.copy()))
    t = view(torch.from_numpy(big.copy()))
    assert s.shape == tuple(t.shape) == shape
    return s.requires_grad_(), t.requires_grad_()


def _namespace(lib):
    return {"L": lib, "i": lambda v: lib.tensor(v, dtype=lib.int64), "b": lambda v: lib.tensor(v, dtype=lib.bool)}


def _outputs(y):
    return [y] if isinstance(y, (strided.Tensor, torch.Tensor)) else [o for o in y]


def _leaves(shapes, seed):
    rng = np.random.default_rng(seed)
    return {name: _leaf(shape, rng) for name, shape in shapes.items()}


@pytest.mark.parametrize(("expr", "shapes"), CASES, ids=[c[0] for c in CASES])
def test_gradient_and_node_match_torch(expr, shapes):
    leaves = _leaves(shapes, 0)
    ys = _outputs(eval(expr, {**_namespace(strided), **{k: v[0] for k, v in leaves.items()}}))
    yt = _outputs(eval(expr, {**_namespace(torch), **{k: v[1] for k, v in leaves.items()}}))
    rng = np.random.default_rng(1)
    total_s, total_t = 0, 0
    for a, b in zip(ys, yt, strict=True):
        assert a.shape == tuple(b.shape)
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=0, atol=1e-12)
        if b.grad_fn is None:
            assert a.grad_fn is None
            continue
        assert a.grad_fn.name() == b.grad_fn.name()
        w = rng.standard_normal(tuple(b.shape))
        total_s = total_s + (a * strided.from_numpy(w.copy())).sum()
        total_t = total_t + (b * torch.from_numpy(w.copy())).sum()
    total_s.backward()
    total_t.backward()
    for name, (s, t) in leaves.items():
        if t.grad is None:
            assert s.grad is None, name
            continue
        np.testing.assert_allclose(s.grad.numpy(), t.grad.numpy(), rtol=0, atol=1e-10, err_msg=name)


# (float32 steps lose the finite differences' precision)
CHECKED = [c for c in CASES if ".float()" not in c[0] and "float32" not in c[0]]


@pytest.mark.parametrize(("expr", "shapes"), CHECKED, ids=[c[0] for c in CHECKED])
def test_gradcheck(expr, shapes):
    leaves = _leaves(shapes, 2)
    names = list(leaves)
    ns = _namespace(strided)

    def fn(*args):
        return eval(expr, {**ns, **dict(zip(names, args))})

    inputs = tuple(s for s, _ in leaves.values())
    if any(0 in s.shape and 0 in s.stride() for s in inputs):
        # (an empty leaf viewed from NumPy has stride 0 along a dim of several elements: PyTorch's
        # gradcheck refuses it before fn runs, and so does strided's, with its text)
        tns = _namespace(torch)
        with pytest.raises(RuntimeError) as want:
            torch.autograd.gradcheck(lambda *a: eval(expr, {**tns, **dict(zip(names, a))}),
                                     tuple(t for _, t in leaves.values()))
        with pytest.raises(strided.StridedError) as got:
            ag.gradcheck(fn, inputs)
        assert isinstance(got.value, RuntimeError)
        assert str(got.value).splitlines()[0] == str(want.value).splitlines()[0]
        return
    assert ag.gradcheck(fn, inputs)


def test_joins_and_turns_pass_views_of_the_gradient():
    """cat, stack, flip, rot90 and diag_embed give their inputs views of the incoming gradient:
    the backward copies nothing (the copy ledger stays empty) and every gradient shares its memory."""
    x = strided.from_numpy(np.arange(6.0).reshape(2, 3)).requires_grad_()
    y = strided.from_numpy(np.arange(3.0).reshape(1, 3)).requires_grad_()
    v = strided.from_numpy(np.arange(3.0)).requires_grad_()
    for out, inputs in [(strided.cat([x, y]), (x, y)), (strided.stack([x, x * 2], 1), (x,)),
                        (x.flip(0, 1), (x,)), (x.rot90(1), (x,)), (strided.diag_embed(v), (v,)),
                        (strided.hstack([v, x[0]]), (v,)), (strided.block_diag(x, v), (x, v))]:
        g = strided.from_numpy(np.random.default_rng(0).standard_normal(out.shape))
        with strided.record_copies() as copies:
            grads = ag.grad(out, inputs, g, retain_graph=True)
        assert [c.reason for c in copies] == [], out.grad_fn.name()
        if out.grad_fn.name() not in ("StackBackward0",):  # (stack's x * 2 adds a MulBackward0)
            assert all(gi._storage is g._storage for gi in grads), out.grad_fn.name()


def test_cat_backward_is_narrow_views():
    x = strided.from_numpy(np.zeros((2, 3))).requires_grad_()
    y = strided.from_numpy(np.zeros((2, 4))).requires_grad_()
    g = strided.from_numpy(np.arange(14.0).reshape(2, 7))
    gx, gy = ag.grad(strided.cat([x, y], 1), (x, y), g)
    assert gx._storage is g._storage and gy._storage is g._storage
    assert gx.stride() == gy.stride() == (7, 1)
    assert gy.tolist() == [[3.0, 4.0, 5.0, 6.0], [10.0, 11.0, 12.0, 13.0]]


def test_advanced_index_backward_scatters_with_accumulation():
    """x[idx] with repeated indices: IndexBackward0 adds each repetition (index_put accumulate)."""
    x = strided.from_numpy(np.zeros((3, 2))).requires_grad_()
    y = x[strided.tensor([2, 0, 2, 2])]
    assert y.grad_fn.name() == "IndexBackward0"
    assert [type(n).__name__ if n else None for n, _ in y.grad_fn.next_functions] == ["AccumulateGrad"]
    y.sum().backward()
    assert x.grad.tolist() == [[1.0, 1.0], [0.0, 0.0], [3.0, 3.0]]


def test_index_ops_have_no_edge_for_the_index():
    """The index is not differentiable: the nodes have edges to the float operands only (as PyTorch's)."""
    for lib in (strided, torch):
        x = lib.zeros(3, 4, dtype=lib.float64, requires_grad=True)
        s = lib.ones(3, 2, dtype=lib.float64, requires_grad=True)
        idx = lib.tensor([0, 3])
        node = x.index_add(1, idx, s).grad_fn
        assert len(node.next_functions) == 2
        node = x.gather(1, lib.tensor([[0], [1], [2]])).grad_fn
        assert len(node.next_functions) == 1


def test_scatter_source_larger_than_the_index_gets_zeros():
    """# Note: PyTorch raises for a source larger than the index; strided's unread elements get 0."""
    x = strided.from_numpy(np.zeros((2, 3))).requires_grad_()
    s = strided.from_numpy(np.ones((3, 3))).requires_grad_()
    y = x.scatter_add(1, strided.tensor([[0, 2], [1, 1]]), s)
    (y * strided.from_numpy(np.arange(6.0).reshape(2, 3))).sum().backward()
    assert s.grad.tolist() == [[0.0, 2.0, 0.0], [4.0, 4.0, 0.0], [0.0, 0.0, 0.0]]


def test_legacy_scatter_reduce_has_no_derivative():
    for lib in (strided, torch):
        x = lib.zeros(2, 3, dtype=lib.float64, requires_grad=True)
        y = x.scatter(1, lib.tensor([[0], [1]]), 2.0, reduce="add")
        with pytest.raises(RuntimeError, match="derivative for aten::scatter is not implemented"):
            y.sum().backward()


def test_split_pieces_share_one_node_and_overlap():
    """tensor_split at decreasing indices gives overlapping pieces: their gradients add up."""
    for lib in (strided, torch):
        x = lib.zeros(5, dtype=lib.float64, requires_grad=True)
        a, b, c = x.tensor_split([3, 1])
        (a.sum() + 2 * c.sum()).backward()
        assert x.grad.tolist() == [1.0, 3.0, 3.0, 2.0, 2.0]


@pytest.mark.parametrize("idx", [[0], [0, 0], [2, 0]])
@pytest.mark.parametrize("inplace", [False, True])
def test_index_put_self_gradient_differentiable_as_torch(idx, inplace):
    # (red team) index_put's self gradient was a recorded clone zeroed by an unrecorded write:
    # under create_graph the zeros at the written positions still depended on g (and so on v and
    # the incoming gradient): silently wrong second derivatives
    def run(L):
        x = L.tensor([0.5, -0.7, 0.9], dtype=L.float64, requires_grad=True)
        v = L.tensor([0.3, 0.8][:len(idx)], dtype=L.float64, requires_grad=True)
        if inplace:
            y = (x * 1).index_put_((L.tensor(idx),), v)
        else:
            y = x.index_put((L.tensor(idx),), v)
        u = L.tensor([1.0, 10.0, 100.0], dtype=L.float64, requires_grad=True)
        gx, gv = L.autograd.grad(y ** 2, (x, v), u, create_graph=True)
        w = L.tensor([1.0, 3.0, 5.0], dtype=L.float64)
        second = L.autograd.grad((gx * w).sum() + (gv * gv).sum(), (x, v, u), create_graph=True)
        third = L.autograd.grad(sum((t ** 2).sum() for t in second), (x, v, u))
        return [t.detach().numpy() for t in (gx, gv, *second, *third)]

    for a, b in zip(run(strided), run(torch)):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
