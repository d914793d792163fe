"""``print(w)``'s summary, ``w.summary()`` and ``w.table(limit=...)``: what should I fix?

The summary groups a watch's steps per source line (and ``nn.Module`` path), over a loop's
iterations, ranked by bytes; copies are told apart as layout copies (the hidden cost to hunt)
and new results (``cat``, ``X[idx]``, ``topk``: the op's job). Byte counts are checked against
the tensors' own sizes, and PyTorch's watch against PyTorch's own ops.
"""

from __future__ import annotations

import inspect

import pytest

import strided as st
from strided import explain, watch
from strided.diagnose.summary import (
    ALLOC,
    BILATERAL,
    LAYOUT_COPY,
    NEW_RESULT,
    REGROUP,
    SummaryRow,
    strided_copy_category,
    torch_category,
)


def _line(fn, marker: str) -> int:
    """The line number of the first source line of ``fn`` containing ``marker``."""
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, text in enumerate(lines) if marker in text)


def script(n: int):
    """A script-like function: a loop body run ``n`` times, each line one kind of memory event."""
    x = st.arange(24.0).reshape(4, 6)
    idx = st.tensor([0, 2, 3])
    for _ in range(n):
        flat = x.t().reshape(24)            # reshape-copy
        rows = x[idx]                       # X[idx]
        both = st.cat([x, x])               # cat
        dense = x.t().contiguous()          # contiguous
    return flat, rows, both, dense


# ---------------------------------------------------------------- grouping over a loop


@pytest.mark.parametrize("n", [1, 5, 25])
def test_a_loop_gives_one_row_per_line_with_its_count(n):
    with watch() as w:
        script(n)
    rows = {r.where.rsplit(":", 1)[1]: r for r in w.summary() if r.category in (LAYOUT_COPY, NEW_RESULT)}
    lines = {str(_line(script, m)) for m in ("reshape-copy", "X[idx]", "# cat", "# contiguous")}
    assert set(rows) == lines
    # the index tensor, made once before the loop from the user's data: an allocation, not a copy to fix
    tensor_line = str(_line(script, "st.tensor("))
    made = [r for r in w.summary() if r.where.endswith(":" + tensor_line)]
    assert [(r.op, r.category, r.count) for r in made] == [("tensor", "alloc", 1)]
    for r in rows.values():
        assert r.count == n and len(r.steps) == n
        assert r.nbytes == n * w.steps[r.steps[0]].bytes_copied
    # one row per (line, op, category): the summary never repeats a group
    keys = [(r.where, r.module, r.op, r.category) for r in w.summary()]
    assert len(keys) == len(set(keys))
    # the summed bytes of the copy rows are the ledger's bytes
    assert sum(r.nbytes for r in w.summary() if r.category in (LAYOUT_COPY, NEW_RESULT)) + sum(
        r.nbytes for r in made) == w.bytes_copied


def test_bytes_are_the_tensors_own_sizes():
    with watch() as w:
        flat, rows, both, dense = script(3)
    by_op = {r.op: r for r in w.summary()}
    itemsize = flat.element_size()
    assert by_op["reshape"].nbytes == 3 * flat.numel() * itemsize
    assert by_op["getitem"].nbytes == 3 * rows.numel() * itemsize
    assert by_op["cat"].nbytes == 3 * both.numel() * itemsize
    assert by_op["contiguous"].nbytes == 3 * dense.numel() * itemsize


def test_rows_are_ranked_by_bytes():
    x = st.zeros(64, 32)
    with watch() as w:
        for _ in range(2):
            small = x[:4].t().contiguous()        # 512 bytes, twice
        big = x.t().contiguous()                  # 8,192 bytes, once
        st.zeros(3)                               # 12 bytes
    rows = w.summary()
    assert [r.nbytes for r in rows] == sorted((r.nbytes for r in rows), reverse=True)
    assert rows[0].where.endswith(f":{_line(test_rows_are_ranked_by_bytes, 'big = ')}")
    assert (rows[0].nbytes, rows[1].nbytes, rows[1].count) == (big.nbytes, 2 * small.nbytes, 2)
    assert rows[-1].category == ALLOC and rows[-1].nbytes == 12


def test_ties_put_the_fixable_first():
    with watch() as w:
        z = st.zeros(4, 6)                        # 96 bytes allocated
        z.t().contiguous()                        # 96 bytes copied: the one to look at
    assert [(r.op, r.category) for r in w.summary()] == [("contiguous", LAYOUT_COPY), ("zeros", ALLOC)]


# ---------------------------------------------------------------- categories


def test_categories_tell_layout_copies_from_new_results():
    with watch() as w:
        script(1)
        x = st.arange(12.0).reshape(3, 4)
        x.topk(2)
        x.sort()
        x.gather(1, st.zeros(3, 1, dtype=st.int64))
        x.masked_select(x > 5)
        x.to(st.float64)
        x.t().clone()
    cats = {c.name: c.category for c in w.copies}
    assert cats["reshape"] == cats["contiguous"] == cats["to"] == cats["clone"] == LAYOUT_COPY
    for name in ("getitem", "cat", "topk", "sort", "gather", "masked_select"):
        assert cats[name] == NEW_RESULT, name
    # each step carries it, and the copy ledger's other fields are as before
    assert all(s.category == c.category for s in w.steps for c in w.copies if c.step == s.index)
    c = next(c for c in w.copies if c.name == "getitem")
    assert (c.nbytes, c.shape, c.asked) == (3 * 6 * 4, (3, 6), False) and "advanced indexing" in c.reason


def test_the_category_rule_follows_the_registry():
    from strided.ops.table import OPS

    for name, op in OPS.items():
        if op.kind.value != "copy":
            continue
        layout = op.home in ("strided.ops.copies", "strided.ops.conversions", "strided.ops.views",
                             "strided.ops.elementwise.complex_ops")
        assert strided_copy_category(name) == (LAYOUT_COPY if layout else NEW_RESULT), name
    # a copy made behind a computing op (a kernel's own copy) is a layout copy
    assert strided_copy_category("matmul") == strided_copy_category("no-such-op") == LAYOUT_COPY


def test_torch_categories_by_aten_name():
    assert torch_category("clone", "copy") == torch_category("_to_copy", "copy") == LAYOUT_COPY
    assert torch_category("index", "alloc") == torch_category("cat", "alloc") == NEW_RESULT
    assert torch_category("topk", "compute") == torch_category("gather", "alloc") == NEW_RESULT
    assert torch_category("zeros", "alloc") == ALLOC
    assert torch_category("add", "compute") == torch_category("view", "view") == ""


def test_bilateral_broadcasts_and_regroups_get_rows():
    q = st.zeros(2, 5, 12)
    with watch() as w:
        for _ in range(4):
            d = st.zeros(3, 1) - st.zeros(3)
            heads = q.view(2, 3, 5, 4)
    cats = {r.category: r for r in w.summary()}
    assert cats[BILATERAL].count == 4 and cats[BILATERAL].nbytes == 4 * d.nbytes
    assert "bilateral broadcast: sub" in cats[BILATERAL].reason
    assert cats[REGROUP].count == 4 and cats[REGROUP].nbytes == 0 and heads.shape == (2, 3, 5, 4)
    assert "regroups input dims 1, 2" in cats[REGROUP].reason


# ---------------------------------------------------------------- reasons and fixes


def test_copy_rows_carry_their_reason_and_explains_fix():
    x = st.zeros(4, 6)
    with watch() as w:
        x.t().reshape(24)
        x.t().contiguous()
    reshape, contiguous = sorted(w.summary(), key=lambda r: r.steps[0])
    want = explain(x.t(), "reshape", 24)
    assert want.outcome == "copy" and want.fixes
    assert reshape.fix == str(want.fixes[0]) and reshape.reason == w.copies[0].reason
    assert contiguous.fix == ""  # explain has no fix for it: none is invented
    table = w.table()
    assert f"layout copy: {reshape.reason}" in table and f"fix: {reshape.fix}" in table
    assert table.count("fix:") == 1


def test_no_fix_where_explain_predicts_a_view_fix_does_not_exist():
    x = st.zeros(2, 3, 4)
    with watch() as w:
        x.transpose(1, 2).reshape(2, 12)    # not flat: explain has no fix here
    (row,) = w.summary()
    assert row.category == LAYOUT_COPY and row.fix == "" and not explain(x.transpose(1, 2), "reshape", 2, 12).fixes


# ---------------------------------------------------------------- print(w) and the table limit


def test_print_opens_with_the_summary_and_limits_the_table():
    x = st.zeros(4, 6)
    with watch() as w:
        for _ in range(50):
            x.t()
        x.t().contiguous()
    text = str(w)
    head = text.splitlines()
    assert head[0].startswith("watch: 52 steps; what to look at")
    assert head[2].split()[:4] == [f"test_watch_summary.py:{_line(test_print_opens_with_the_summary_and_limits_the_table, 'contiguous()')}",
                                   "contiguous", "layout", "copy"]
    assert "… 12 more rows: w.table(limit=None)" in text
    assert text.index("total: 1 copies") < text.index("steps (w.table()):")
    step_rows = [ln for ln in text.split("steps (w.table()):", 1)[1].splitlines()[2:] if ln[:1].isdigit()]
    assert len(step_rows) == 40
    full = w.table()
    assert len([ln for ln in full.splitlines() if ln[:1].isdigit()]) == 52 and "more rows" not in full
    assert w.table(limit=None) == full
    five = w.table(limit=5)
    assert "… 47 more rows: w.table(limit=None)" in five and five.splitlines()[-1].startswith("total: 1 copies")


def test_the_summary_is_limited_too():
    with watch() as w:
        for i in range(30):
            st.zeros(i + 1)
            st.zeros(i + 1)
    # one line, one op: a single row however many iterations and shapes
    assert len(w.summary()) == 2 and {r.count for r in w.summary()} == {30}


def test_printing_inside_an_open_block_records_nothing():
    x = st.zeros(4, 6)
    with watch() as w:
        x.t().reshape(24)
        before = len(w.steps)
        text = str(w)  # works out explain's fix on a stand-in: no op of the block's
        assert len(w.steps) == before == 2 and "fix: x.permute(1, 0).view(-1)" in text


def test_an_empty_summary():
    with watch() as w:
        pass
    assert w.summary() == [] and "nothing: no copies" in str(w)


def test_summary_rows_are_plain_data():
    with watch() as w:
        script(2)
    r = w.summary()[0]
    assert isinstance(r, SummaryRow)
    assert set(r.__dataclass_fields__) == {"where", "module", "op", "category", "count", "nbytes", "reason", "fix",
                                           "steps"}
    with pytest.raises(AttributeError):
        r.count = 3  # type: ignore[misc]


# ---------------------------------------------------------------- watch_torch


torch = pytest.importorskip("torch")


class Block(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = torch.nn.Linear(4, 6)

    def forward(self, x):
        h = self.proj(x.transpose(1, 2))        # linear of a transposed input
        s = h.transpose(1, 2) @ h               # matmul of a transposed operand
        return s.reshape(2, 36), h.transpose(1, 2).reshape(2, 18)


class Net(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.block = Block()

    def forward(self, x):
        return self.block(x)


def test_watch_torch_rows_carry_module_paths():
    model = Net()
    x = torch.randn(2, 4, 3)
    idx = torch.tensor([0, 1, 1])
    with st.watch_torch() as w:
        for _ in range(3):
            a, b = model(x)
            rows = x[idx]
            (a.sum() + b.sum()).backward()
    summary = w.summary()
    assert [r.nbytes for r in summary] == sorted((r.nbytes for r in summary), reverse=True)
    by = {(r.module, r.where.rsplit(":", 1)[1], r.category): r for r in summary}
    merge = by[("block", str(_line(Block.forward, "h.transpose(1, 2).reshape")), LAYOUT_COPY)]
    assert merge.count == 3 and merge.nbytes == 3 * b.nbytes and "reshape of a non-contiguous input" in merge.reason
    gather = by[("", str(_line(test_watch_torch_rows_carry_module_paths, "x[idx]")), NEW_RESULT)]
    assert gather.op == "index" and gather.count == 3 and gather.nbytes == 3 * rows.nbytes
    assert all(c.category == LAYOUT_COPY for c in w.copies)  # torch's index is not in the copy ledger
    assert not any(c.name == "index" for c in w.copies)
    # the Linear's own copy of its transposed input is under its path
    assert any(r.module == "block.proj" and r.category == LAYOUT_COPY for r in summary)
    text = str(w)
    assert text.splitlines()[1].split()[:2] == ["where", "module"] and " block " in text
    assert len(w.steps) > 40 and f"… {len(w.steps) - 40} more rows: w.table(limit=None)" in text


def test_watch_torch_fix_matches_explain_on_torch():
    x = torch.zeros(4, 6)
    with st.watch_torch() as w:
        x.t().reshape(24)
    (row,) = [r for r in w.summary() if r.category == LAYOUT_COPY]
    want = explain(x.t(), "reshape", 24)
    assert want.outcome == "copy" and row.fix == str(want.fixes[0])
