"""The words of ``strided tour``, English and Chinese side by side, one entry per template.

Templates only: every number in them is a ``{placeholder}`` that :mod:`.tour` fills from values
strided computes while the tour runs (strides, ``data_ptr`` comparisons, bytes copied, ...).
Each entry holds the same placeholders in both languages (``tests/test_tour.py`` checks).
Chinese: the usual technical terms — 张量 tensor, 存储 storage, 步长 stride, 偏移 offset,
形状 shape, 视图 view, 拷贝 copy, 广播 broadcasting, 连续 contiguous; API names stay in English.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

__all__ = ["LANGS", "README_SECTIONS", "TEXTS", "ZH_HEADS", "ZH_LINES", "ZH_WORDS", "text", "translate", "words"]

LANGS = ("en", "zh")

TEXTS: dict[str, dict[str, str]] = {
    # ------------------------------------------------------------ the frame of every screen
    "step": {
        "en": "Step {n}/{total}",
        "zh": "第 {n}/{total} 步",
    },
    "prompt": {
        "en": "[Enter: next step · q then Enter: quit] ",
        "zh": "[回车：下一步 · 输入 q 再回车：退出] ",
    },
    "bye": {
        "en": "Tour ended. Run `strided tour` to start again.",
        "zh": "导览结束。再次运行 `strided tour` 可以从头开始。",
    },
    "view": {"en": "a view", "zh": "视图"},
    "copy": {"en": "a copy", "zh": "拷贝"},
    "col.call": {"en": "call", "zh": "调用"},
    "col.rules": {"en": "rules", "zh": "规则"},
    "col.outcome": {"en": "outcome", "zh": "结果"},
    "rules.strided": {"en": "strided (PyTorch rules)", "zh": "strided（PyTorch 规则）"},
    "rules.numpy": {"en": "NumPy", "zh": "NumPy"},
    "outcome.view": {"en": "view, {nbytes} bytes", "zh": "视图，{nbytes} 字节"},
    "outcome.copy": {"en": "copy, {nbytes} bytes", "zh": "拷贝，{nbytes} 字节"},
    # ------------------------------------------------------------ 1. a 3×4 arange
    "arange.title": {
        "en": "A 3×4 arange: shape, strides, offset",
        "zh": "3×4 的 arange：形状、步长与偏移",
    },
    "arange.layout": {
        "en": (
            "x is one flat storage of {numel} elements ({nbytes} bytes, {itemsize} bytes each) plus a\n"
            "layout that reads the storage as a grid:\n"
            "  shape    {shape}\n"
            "  strides  {strides}  counted in elements: the next row starts {s0} elements further on,\n"
            "                   the next column {s1}\n"
            "  offset   {offset}       where element (0, 0) sits in the storage\n"
            "Element (i, j) lives at storage position offset + i*{s0} + j*{s1}: x[2, 1] = {x21} sits at\n"
            "{offset} + 2*{s0} + 1*{s1} = {off21}. The picture shows every element with its position."
        ),
        "zh": (
            "x 由一块扁平的存储（{numel} 个元素，共 {nbytes} 字节，每个元素 {itemsize} 字节）和一个布局组成，\n"
            "布局规定如何把这块存储读成一个网格：\n"
            "  形状 shape     {shape}\n"
            "  步长 strides   {strides}  以元素为单位：下一行从 {s0} 个元素之后开始，下一列相隔 {s1} 个\n"
            "  偏移 offset    {offset}       元素 (0, 0) 在存储中的位置\n"
            "元素 (i, j) 位于存储位置 offset + i*{s0} + j*{s1}：x[2, 1] = {x21}，位置是\n"
            "{offset} + 2*{s0} + 1*{s1} = {off21}。下图标出了每个元素及其在存储中的位置。"
        ),
    },
    # ------------------------------------------------------------ 2. permute
    "permute.title": {
        "en": "permute(1, 0): a new layout over the same memory",
        "zh": "permute(1, 0)：同一块内存上的新布局",
    },
    "permute.layout": {
        "en": (
            "permute(1, 0) swaps the two dims by swapping their sizes and their strides: y has shape\n"
            "{shape} and strides {strides}. Not one element moved:\n"
            "  x.data_ptr() = {px}, y.data_ptr() = {py}; equal: {same}\n"
            "y is a view: a second layout over x's storage, made in O(ndim) time whatever the size.\n"
            "Read in y's own order (row by row, last index fastest) the elements come out as\n"
            "  {order}\n"
            "each step along y's last dim jumping {s1} positions in memory. So y.is_contiguous() is\n"
            "{contiguous}: its logical order is not its memory order."
        ),
        "zh": (
            "permute(1, 0) 交换两个维度，也就是交换它们的大小和步长：y 的形状是 {shape}，\n"
            "步长是 {strides}。没有任何元素被移动：\n"
            "  x.data_ptr() = {px}，y.data_ptr() = {py}；二者相等：{same}\n"
            "y 是一个视图：x 的同一块存储上的第二个布局。无论张量多大，创建它都只需 O(ndim) 的时间。\n"
            "按 y 自己的顺序（逐行读取，最后一个下标变化最快）读出的元素依次是\n"
            "  {order}\n"
            "沿 y 的最后一维每走一步，在内存中跳过 {s1} 个位置。所以 y.is_contiguous() 为\n"
            "{contiguous}：它的逻辑顺序不是内存中的顺序。"
        ),
    },
    # ------------------------------------------------------------ 3. view fails, reshape copies
    "view.title": {
        "en": "view(-1) fails; reshape and contiguous() copy",
        "zh": "view(-1) 失败；reshape 与 contiguous() 会拷贝",
    },
    "view.fails": {
        "en": (
            "y has shape {shape}, strides {strides}. view(-1) asks for one dim over the same memory,\n"
            "reading y's elements in y's order — but in that order they are not evenly spaced in\n"
            "memory (step 2), and a single stride cannot describe them. So view refuses:"
        ),
        "zh": (
            "y 的形状是 {shape}，步长是 {strides}。view(-1) 要求在同一块内存上用一个维度、按 y 的顺序\n"
            "读出所有元素——但按这个顺序，元素在内存中并不是等间距排列的（见第 2 步），\n"
            "一个步长描述不了它们。所以 view 拒绝了："
        ),
    },
    "view.explained": {
        "en": (
            "The first line is PyTorch's own message (a web search still finds it); the lines after it\n"
            "say why, in y's own numbers, and name the fix. strided.explain(y, \"view\", -1) predicts\n"
            "the same without running anything: outcome \"{outcome}\", a {error_class} ({error} here)."
        ),
        "zh": (
            "第一行与 PyTorch 自己的报错一致（照样能在网上搜到）；后面几行用 y 自己的数字解释原因，\n"
            "并给出修正办法。strided.explain(y, \"view\", -1) 不运行任何操作就能预测同样的结果：\n"
            "outcome 为 \"{outcome}\"，即 {error_class}（这里是 {error}）。"
        ),
    },
    "reshape.copies": {
        "en": (
            "reshape(-1) does what view cannot: it copies. z = {values}\n"
            "  z.data_ptr() = {pz}, y.data_ptr() = {py}; equal: {same}\n"
            "The copy ledger (strided.record_copies) recorded copies: {ncopies}, {nbytes} bytes in all:\n"
            "  \"{reason}\""
        ),
        "zh": (
            "view 做不到的，reshape(-1) 用拷贝来做。z = {values}\n"
            "  z.data_ptr() = {pz}，y.data_ptr() = {py}；二者相等：{same}\n"
            "拷贝记录（strided.record_copies）记下了 {ncopies} 次拷贝，共 {nbytes} 字节：\n"
            "  \"{reason}\""
        ),
    },
    "contiguous.copies": {
        "en": (
            "y.contiguous() copies as well, into a row-major layout of the same shape {shape}: strides\n"
            "{strides}, new memory at c.data_ptr() = {pc}; the same as y's: {same_y}. After that\n"
            "view(-1) works and is free: v shares c's memory ({same_v}), strides {vstrides}.\n"
            "The picture: reshape(-1) on y, before and after; the copy writes y's elements in y's order."
        ),
        "zh": (
            "y.contiguous() 同样会拷贝，得到形状仍为 {shape} 的按行优先布局：步长 {strides}，\n"
            "新内存位于 c.data_ptr() = {pc}；与 y 的相同：{same_y}。之后 view(-1) 就能成功，而且不花\n"
            "任何代价：v 与 c 共享内存（{same_v}），步长 {vstrides}。\n"
            "下图是对 y 做 reshape(-1) 的前后对比：拷贝按 y 的逻辑顺序写出元素。"
        ),
    },
    # ------------------------------------------------------------ 4. flatten
    "flatten.title": {
        "en": "flatten(start_dim=1), and NumPy's flatten vs ravel",
        "zh": "flatten(start_dim=1)，以及 NumPy 的 flatten 与 ravel",
    },
    "flatten.view": {
        "en": (
            "A batch of images as (B, C, H, W) = {shape}, strides {strides}. flatten(start_dim=1)\n"
            "merges C, H and W into one dim: shape {fshape}, strides {fstrides} — {kind}\n"
            "(feats.data_ptr() == imgs.data_ptr(): {same}), because C, H and W follow one another in\n"
            "memory: each one's stride is the next one's size times its stride."
        ),
        "zh": (
            "一批图像，布局为 (B, C, H, W) = {shape}，步长 {strides}。flatten(start_dim=1) 把 C、H、W\n"
            "合并成一个维度：形状 {fshape}，步长 {fstrides}——这是{kind}\n"
            "（feats.data_ptr() == imgs.data_ptr()：{same}），因为 C、H、W 在内存中首尾相接：\n"
            "每一维的步长都等于下一维的大小乘以下一维的步长。"
        ),
    },
    "flatten.copy": {
        "en": (
            "Permute the same batch to (B, H, W, C): shape {shape}, strides {strides}. Now\n"
            "flatten(start_dim=1) gives {kind} (flat.data_ptr() == nhwc.data_ptr(): {same});\n"
            "strided.explain says why:\n"
            "  {reason}"
        ),
        "zh": (
            "把同一批图像换成 (B, H, W, C) 的顺序：形状 {shape}，步长 {strides}。这时\n"
            "flatten(start_dim=1) 得到的是{kind}（flat.data_ptr() == nhwc.data_ptr()：{same}）；\n"
            "strided.explain 给出原因：\n"
            "  {reason}"
        ),
    },
    "flatten.table_intro": {
        "en": (
            "The same question for NumPy's flatten and ravel, answered by strided.explain on a NumPy\n"
            "array (NumPy's rules; PyTorch is not needed):"
        ),
        "zh": "对 NumPy 的 flatten 和 ravel 问同样的问题，用 strided.explain 作用于 NumPy 数组来回答\n（按 NumPy 的规则，不需要 PyTorch）：",
    },
    "flatten.summary": {
        "en": (
            "PyTorch's flatten (and strided's, which follows it) is a reshape: a view when one is\n"
            "possible, a copy otherwise. NumPy's ndarray.flatten() always copies, even when a view was\n"
            "possible; np.ravel() is NumPy's flatten-as-view-when-possible — PyTorch's rule."
        ),
        "zh": (
            "PyTorch 的 flatten（以及遵循它的 strided 的 flatten）本质上是 reshape：能做成视图就返回视图，\n"
            "否则拷贝。NumPy 的 ndarray.flatten() 总是拷贝，即使本可以返回视图；np.ravel() 才是 NumPy\n"
            "里“能返回视图就返回视图”的展平——与 PyTorch 的规则相同。"
        ),
    },
    # ------------------------------------------------------------ 5. resize_
    "resize.title": {
        "en": "resize_: shrink, regrow, grow past the storage",
        "zh": "resize_：缩小、恢复、超出存储后重新分配",
    },
    "resize.shrink": {
        "en": (
            "resize_(2, 2) makes t a (2, 2) tensor over the first elements of its storage. The storage\n"
            "keeps all {size} elements, at the same address: t.data_ptr() = {pt}; equal to start: {same}."
        ),
        "zh": (
            "resize_(2, 2) 把 t 变成一个 (2, 2) 张量，只用到存储开头的几个元素。存储本身保留全部\n"
            "{size} 个元素，地址也不变：t.data_ptr() = {pt}；与 start 相等：{same}。"
        ),
    },
    "resize.regrow": {
        "en": (
            "resize_(6) regrows t inside the storage it kept, so the old values come back: {values}\n"
            "(t.data_ptr() == start: {same}). resize_ never clears memory."
        ),
        "zh": (
            "resize_(6) 在保留下来的存储内重新变大，于是原来的值又回来了：{values}\n"
            "（t.data_ptr() == start：{same}）。resize_ 从不清空内存。"
        ),
    },
    "resize.grow": {
        "en": (
            "resize_(3, 4) needs 12 elements and the storage holds {old}: strided allocates a new buffer\n"
            "of {size} elements and copies the old {old} into it ({nbytes} bytes; the ledger's reason:\n"
            "\"{reason}\"). The address changes:\n"
            "  start = {pstart}, t.data_ptr() = {pt}; equal: {same}\n"
            "Positions {first} to {last} of the new storage are uninitialized — whatever bytes the\n"
            "allocator handed over, shown as ? above. Every strided view of t's storage\n"
            "follows it to the new buffer; a NumPy array over the old buffer would not, which is why\n"
            "strided refuses to grow a storage it has lent to NumPy."
        ),
        "zh": (
            "resize_(3, 4) 需要 12 个元素，而存储只有 {old} 个：strided 分配一块 {size} 个元素的新缓冲区，\n"
            "把原来的 {old} 个元素拷贝过去（{nbytes} 字节；拷贝记录给出的原因：\n"
            "\"{reason}\"）。地址变了：\n"
            "  start = {pstart}，t.data_ptr() = {pt}；二者相等：{same}\n"
            "新存储的第 {first} 到第 {last} 个位置未初始化——内容是分配器留下的任意字节，\n"
            "上面用 ? 表示。t 的存储上的所有 strided 视图都会跟着换到新缓冲区；但指向旧缓冲区的 NumPy\n"
            "数组不会，所以 strided 拒绝扩大已经借给 NumPy 的存储。"
        ),
    },
    # ------------------------------------------------------------ 6. order='F' vs 'C', copy=False
    "order.title": {
        "en": "NumPy's order='C' vs order='F', and copy=False",
        "zh": "NumPy 的 order='C' 与 order='F'，以及 copy=False",
    },
    "order.values": {
        "en": (
            "strided.reshape follows numpy.reshape. order='C' reads x's elements row by row (last index\n"
            "fastest) and fills the new shape row by row; order='F' reads and fills column by column\n"
            "(first index fastest), so the same twelve values land in other places.\n"
            "  order='C': strides {cstrides}, {ckind} (c.data_ptr() == x.data_ptr(): {csame})\n"
            "  order='F': strides {fstrides}, {fkind} (f.data_ptr() == x.data_ptr(): {fsame})"
        ),
        "zh": (
            "strided.reshape 遵循 numpy.reshape。order='C' 逐行读取 x 的元素（最后一个下标变化最快），\n"
            "再逐行填入新形状；order='F' 则逐列读取、逐列填入（第一个下标变化最快），\n"
            "所以同样的十二个值落在了不同的位置。\n"
            "  order='C'：步长 {cstrides}，{ckind}（c.data_ptr() == x.data_ptr()：{csame}）\n"
            "  order='F'：步长 {fstrides}，{fkind}（f.data_ptr() == x.data_ptr()：{fsame}）"
        ),
    },
    "order.copy_false": {
        "en": (
            "copy=False means \"a view, or an error\": the way NumPy 2 makes sure a reshape never copies\n"
            "behind your back. y (shape {shape}, strides {strides}) read in C order is not one evenly\n"
            "spaced run, so:"
        ),
        "zh": (
            "copy=False 的意思是“要么视图，要么报错”：这是 NumPy 2 保证 reshape 不会偷偷拷贝的办法。\n"
            "y（形状 {shape}，步长 {strides}）按 C 顺序读取时，元素并不等间距，所以："
        ),
    },
    "order.f_view": {
        "en": (
            "Read in F order it is: y's elements, first index fastest, are exactly its memory order, so\n"
            "order='F' gives {kind}: {values} (g.data_ptr() == y.data_ptr(): {same})."
        ),
        "zh": (
            "按 F 顺序读就可以：y 的元素在第一个下标变化最快时，恰好就是它在内存中的顺序，所以\n"
            "order='F' 得到的是{kind}：{values}（g.data_ptr() == y.data_ptr()：{same}）。"
        ),
    },
    # ------------------------------------------------------------ 7. broadcasting
    "broadcast.title": {
        "en": "Broadcasting (8, 1, 6, 1) + (7, 1, 5): three rules, stride 0",
        "zh": "广播 (8, 1, 6, 1) + (7, 1, 5)：三条规则与步长 0",
    },
    "broadcast.rules": {
        "en": (
            "a {ashape} + b {bshape} gives {rshape}, by NumPy's three rules (PyTorch and strided\n"
            "follow them too):\n"
            "  1. line the shapes up on the right; the shorter one gets size-1 dims on the left:\n"
            "     b {bshape} is read as {padded};\n"
            "  2. along each dim the sizes must be equal, or one of them 1;\n"
            "  3. a size-1 dim is stretched to the other size.\n"
            "{aligned}"
        ),
        "zh": (
            "a {ashape} + b {bshape} 得到 {rshape}，依据的是 NumPy 的三条广播规则（PyTorch 和 strided\n"
            "也遵循它们）：\n"
            "  1. 形状靠右对齐；较短的形状在左边补大小为 1 的维度：b {bshape} 被当作 {padded}；\n"
            "  2. 每个维度上，两边的大小必须相等，或者其中一个为 1；\n"
            "  3. 大小为 1 的维度被拉伸到另一边的大小。\n"
            "{aligned}"
        ),
    },
    "broadcast.stride0": {
        "en": (
            "Stretching copies nothing: a stretched dim gets stride 0, so the same element is read\n"
            "again and again. broadcast_to shows the layouts the addition reads:\n"
            "  a: strides {astrides} -> {eastrides}  (ea.data_ptr() == a.data_ptr(): {asame})\n"
            "  b: strides {bstrides} -> {ebstrides}  (eb.data_ptr() == b.data_ptr(): {bsame})\n"
            "Only the result r is new memory, contiguous: strides {rstrides}."
        ),
        "zh": (
            "拉伸不拷贝任何数据：被拉伸的维度步长为 0，同一个元素被反复读取。broadcast_to 展示了\n"
            "加法实际读取的布局：\n"
            "  a：步长 {astrides} -> {eastrides}（ea.data_ptr() == a.data_ptr()：{asame}）\n"
            "  b：步长 {bstrides} -> {ebstrides}（eb.data_ptr() == b.data_ptr()：{bsame}）\n"
            "只有结果 r 占用新内存，并且是连续的：步长 {rstrides}。"
        ),
    },
    "broadcast.pictures": {
        "en": (
            "One 2-D slice of each stretched operand: ea[0, 0] (shape {sa}, strides {sta}) and\n"
            "eb[0, 0] (shape {sb}, strides {stb}). A stride-0 dim re-reads the same storage cells:"
        ),
        "zh": (
            "每个被拉伸的操作数各取一个二维切片：ea[0, 0]（形状 {sa}，步长 {sta}）和\n"
            "eb[0, 0]（形状 {sb}，步长 {stb}）。步长为 0 的维度反复读取同样的存储单元："
        ),
    },
    "broadcast.mismatch": {
        "en": "Rule 2 broken (6 against 5 in dim 2) is an error:",
        "zh": "违反第 2 条规则（第 2 维是 6 对 5）就会报错：",
    },
    "broadcast.bilateral": {
        "en": (
            "Here both operands stretch: a along dims {stretched_a}, b along dims {stretched_b}\n"
            "(strided.explain(a, \"add\", b).broadcast.bilateral: {bilateral}). That is what an outer\n"
            "sum like this one wants — and exactly the shape of the bug in the next step."
        ),
        "zh": (
            "这里两个操作数都被拉伸了：a 沿维度 {stretched_a}，b 沿维度 {stretched_b}\n"
            "（strided.explain(a, \"add\", b).broadcast.bilateral：{bilateral}）。对这种“外和”来说\n"
            "这正是想要的——但它也正是下一步那个错误的形状。"
        ),
    },
    # ------------------------------------------------------------ 8. the (B, 1) - (B,) bug
    "bug.title": {
        "en": "The silent (B, 1) − (B,) bug, caught",
        "zh": "悄无声息的 (B, 1) − (B,) 错误，以及如何抓住它",
    },
    "bug.silent": {
        "en": (
            "pred {pshape} is a model's output, one column; target {tshape} holds the labels.\n"
            "pred - target is {dshape}: every prediction minus every label. No error and no warning\n"
            "(nor in PyTorch or NumPy); the loss is just wrong: {loss}, where {meant} was meant."
        ),
        "zh": (
            "pred {pshape} 是模型的输出，只有一列；target {tshape} 是标签。\n"
            "pred - target 的形状是 {dshape}：每个预测减去每个标签。没有报错，也没有警告\n"
            "（PyTorch 和 NumPy 里也一样）；损失就这样错了：得到 {loss}，本应是 {meant}。"
        ),
    },
    "bug.caught": {
        "en": (
            "strided can make it loud. Inside a with strided.broadcasting(\"raise\") block, an op that\n"
            "stretches both operands raises {error} (issubclass({error}, ValueError): {is_value_error});\n"
            "\"warn\" gives a BroadcastWarning instead. The block ended with the error and put back the mode it found:\n"
            "the mode is \"{mode}\" again, nothing leaks out of the with block."
        ),
        "zh": (
            "strided 可以让这种错误不再悄无声息。在 with strided.broadcasting(\"raise\") 块里，拉伸两个操作数的运算\n"
            "会抛出 {error}（issubclass({error}, ValueError)：{is_value_error}）；用 \"warn\" 则给出 BroadcastWarning。\n"
            "这个块随着错误结束，并恢复了进入时的模式：现在又是 \"{mode}\"，with 块之外不受影响。"
        ),
    },
    "bug.fixed": {
        "en": "The fix lines the dims up (pred.squeeze(1) is a view): loss = {loss}, as meant.",
        "zh": "修正办法是把维度对齐（pred.squeeze(1) 是视图）：loss = {loss}，与预期一致。",
    },
    # ------------------------------------------------------------ 9. attention heads
    "attention.title": {
        "en": "Attention heads: split, merge, and the one copy",
        "zh": "注意力头的拆分与合并：唯一的一次拷贝",
    },
    "attention.table": {
        "en": (
            "Multi-head attention splits the model dim into heads and merges them back; watch records\n"
            "every op of the block: {nsteps} steps, {nviews} of them views (steps {views}: 0 bytes\n"
            "each), the matmuls and the softmax compute new results, and copies: {ncopies} (step\n"
            "{copy_steps}: {copy_names}, {nbytes} bytes). Why that copy: out.transpose(1, 2) is a view of shape\n"
            "{mshape} with strides {mstrides} — the heads interleave in memory, so its last two dims\n"
            "do not chain and view cannot merge them:"
        ),
        "zh": (
            "多头注意力先把模型维度拆成多个头，最后再合并回来；watch 记下了这个块里的每一个操作：\n"
            "共 {nsteps} 步，其中 {nviews} 步是视图（第 {views} 步，每步 0 字节），矩阵乘法和 softmax\n"
            "计算出新的结果，另有 {ncopies} 次拷贝：第 {copy_steps} 步（{copy_names}），{nbytes} 字节。为什么要拷贝：\n"
            "out.transpose(1, 2) 是形状 {mshape}、步长 {mstrides} 的视图——各个头在内存中交错存放，\n"
            "最后两维接不上，view 无法把它们合并："
        ),
    },
    "watch.narrow": {
        "en": "steps (w.table() without its inputs and where columns):",
        "zh": "各步（w.table()，省去 inputs 和 where 两列）：",
    },
    "attention.why": {
        "en": (
            "So .contiguous() copies first (the one COPY in the table) and the final view is free;\n"
            "reshape(2, 8, 64) would make the same copy in one call. Either way, watch shows it."
        ),
        "zh": (
            "所以先用 .contiguous() 拷贝（表中唯一的 COPY），之后的 view 不花任何代价；\n"
            "reshape(2, 8, 64) 会在一次调用里做同样的拷贝。无论哪种写法，watch 都会把它显示出来。"
        ),
    },
    "attention.torch_intro": {
        "en": "The same five lines in PyTorch, under strided.watch_torch(), which records every aten op:",
        "zh": "同样的五行代码在 PyTorch 里运行，用 strided.watch_torch() 记下每一个 aten 操作：",
    },
    "attention.torch": {
        "en": (
            "PyTorch runs them as {nsteps} aten ops and copies {ncopies} times, {nbytes} bytes in all. Only\n"
            "{nasked} of those copies is the contiguous() you asked for; the other {nhidden} ({hidden_bytes} bytes)\n"
            "are clones that matmul makes by itself: its batched kernel (bmm) wants each operand\n"
            "contiguous, and heads and heads.transpose(-2, -1) are transposed views, so matmul\n"
            "copies them first (lines {hidden_lines} of the snippet). Nothing in the code says so;\n"
            "watch_torch does."
        ),
        "zh": (
            "PyTorch 把它们拆成 {nsteps} 个 aten 操作，共拷贝 {ncopies} 次，{nbytes} 字节。其中只有 {nasked} 次\n"
            "是你写下的 contiguous()；另外 {nhidden} 次（{hidden_bytes} 字节）是 matmul 自己做的 clone：\n"
            "它的批量内核（bmm）要求每个操作数连续，而 heads 和 heads.transpose(-2, -1) 都是转置过的\n"
            "视图，所以 matmul 先把它们拷贝一份（代码片段的第 {hidden_lines} 行）。代码里看不出这些拷贝，\n"
            "watch_torch 能看出来。"
        ),
    },
    "attention.no_torch": {
        "en": (
            "(PyTorch is not installed, so the tour skips what these lines do in PyTorch: there\n"
            "matmul makes hidden clones of transposed operands, and strided.watch_torch() shows\n"
            "them. PyTorch is optional: pip install torch to see it.)"
        ),
        "zh": (
            "（没有安装 PyTorch，导览跳过这几行在 PyTorch 中的表现：在那里 matmul 会悄悄 clone\n"
            "转置过的操作数，strided.watch_torch() 能把它们显示出来。PyTorch 是可选依赖：\n"
            "pip install torch 之后即可看到。）"
        ),
    },
    # ------------------------------------------------------------ 10. what to read next
    "next.title": {
        "en": "What to read next",
        "zh": "接下来读什么",
    },
    "next.intro": {
        "en": (
            "That is the memory model: one flat storage, a layout (shape, strides, offset) that reads\n"
            "it, and every operation either a view (a new layout, the same memory) or a copy (new\n"
            "memory, said out loud). Read next, in the README:"
        ),
        "zh": (
            "这就是内存模型：一块扁平的存储，一个读取它的布局（形状、步长、偏移），而每个操作要么是\n"
            "视图（新的布局，同一块内存），要么是拷贝（新的内存，并且明确告诉你）。接下来请读 README 的\n"
            "这些章节："
        ),
    },
    "readme.what": {
        "en": "What strided is — views, copies, and errors that explain themselves",
        "zh": "What strided is——视图、拷贝，以及会自我解释的报错",
    },
    "readme.arith": {
        "en": "Arithmetic, and broadcasting that can be made loud",
        "zh": "Arithmetic, and broadcasting that can be made loud——运算，以及可以“出声”的广播",
    },
    "readme.plans": {
        "en": "Plans: what an operation will do, without doing it",
        "zh": "Plans——不执行操作就知道它会做什么",
    },
    "readme.diagnose": {
        "en": "Diagnostics: explain, watch, watch_torch — on the arrays you already use",
        "zh": "Diagnostics——explain、watch、watch_torch，直接用在你已有的数组上",
    },
    "readme.refs": {
        "en": "Two reference libraries — where strided follows PyTorch and where NumPy",
        "zh": "Two reference libraries——strided 在哪些地方遵循 PyTorch，哪些地方遵循 NumPy",
    },
    "next.commands": {
        "en": (
            "And try the command line on your own expressions:\n"
            "  strided show \"arange(12).reshape(3,4).permute(1,0).flatten()\"   every step drawn, view or copy\n"
            "  strided explain \"arange(12).reshape(3,4).t().view(12)\"          why a step is a view, a copy or an error\n"
            "  strided watch your_script.py                                     the shape flow of a whole program"
        ),
        "zh": (
            "也可以在命令行里试试你自己的表达式：\n"
            "  strided show \"arange(12).reshape(3,4).permute(1,0).flatten()\"   画出每一步，标明视图或拷贝\n"
            "  strided explain \"arange(12).reshape(3,4).t().view(12)\"          解释某一步为何是视图、拷贝或错误\n"
            "  strided watch your_script.py                                     整个程序的形状流"
        ),
    },
}

# The README sections step 10 points to (keys of TEXTS, in reading order).
README_SECTIONS = ("readme.what", "readme.arith", "readme.plans", "readme.diagnose", "readme.refs")


def text(key: str, lang: str, **values: Any) -> str:
    """The template ``key`` in ``lang`` ("en" or "zh"), filled with ``values``.

    >>> text("step", "zh", n=1, total=10)
    '第 1/10 步'
    """
    entry = TEXTS.get(key)
    if entry is None:
        raise KeyError(f"tour text: no template {key!r}")
    if lang not in LANGS:
        raise ValueError(f"tour text: lang must be one of {', '.join(map(repr, LANGS))}, not {lang!r}")
    return entry[lang].format(**values)


# ---------------------------------------------------------------- the pictures' and errors' words
# The pictures (strided.diagnose.pictures) and strided's error explanations speak English; the
# Chinese tour puts their lines through these patterns, in order (a line no pattern matches stays
# as it is). An error's first line is never translated: it is the peer library's own message,
# which a web search must still find.

_ORIGIN = r"(the transpose of a contiguous \(.*?\)|a permute\(.*?\) of a contiguous \(.*?\)|contiguous|expanded along dim \d+ with stride 0|.+)"

ZH_LINES: tuple[tuple[str, str], ...] = (
    # pictures: titles, headers, captions, storage labels, legends
    (r"^before: (.+)$", r"之前：\1"),
    (r"^after: (.+)$", r"之后：\1"),
    (r"^(.+): view, 0 bytes copied — a new layout over (.+)'s storage$", r"\1：视图，拷贝 0 字节——\2 的存储上的一个新布局"),
    (r"^(.+): copy, ([\d,]+) bytes — a new storage, in the order shown$", r"\1：拷贝 \2 字节——一块新存储，按图中顺序"),
    (r"^copies ([\d,]+) bytes \((\d+) elements\): (.+)$", r"拷贝 \1 字节（\2 个元素）：\3"),
    (r"^values: from running (.+) \((.+) unchanged\); layout: as explain predicts$",
     r"值：运行 \1 得到（\2 不变）；布局：与 explain 的预测一致"),
    (r"^colours: each element keeps its colour from (.+)'s storage; the \"copied from\" row gives its offset there$",
     r"颜色：每个元素保留它在 \1 的存储中的颜色；“拷贝自”一行给出它在那里的偏移"),
    (r"^shape (\(.*?\)), strides (\(.*?\)), offset (-?\d+), (\w+) \((\d+) bytes? each\)$",
     r"形状 \1，步长 \2，偏移 \3，\4（每个元素 \5 字节）"),
    (r"^contiguous: none — (.+)$", r"连续：否——\1"),
    (r"^contiguous: (.+?) — (.+)$", r"连续：\1——\2"),
    (r"^view of: a strided tensor of shape (\(.*?\)), strides (\(.*?\))$", r"视图，底层是形状 \1、步长 \2 的 strided 张量"),
    (r"^a view of (.+): the same storage, 0 bytes copied$", r"\1 的视图：同一块存储，拷贝 0 字节"),
    (r"^new storage: a copy of ([\d,]+) bytes$", r"新存储：拷贝了 \1 字节"),
    (r"^owns its memory \(not a view\)$", r"拥有自己的内存（不是视图）"),
    (r"^(\w+) storage of (.+?) \(the same\)$", r"\2 的 \1 存储（同一块）"),
    (r"^(\w+) storage of (.+?)$", r"\2 的 \1 存储"),
    (r"^new storage$", r"新存储"),
    (r"^(.+), elements (\S+) \((\d+) touched\):$", r"\1，元素 \2（涉及 \3 个）："),
    (r"^(.+), elements (\S+) \((\d+) touched\): offset / value / read by / copied from$",
     r"\1，元素 \2（涉及 \3 个）：偏移 / 值 / 读取者 / 拷贝自"),
    (r"^(.+), elements (\S+) \((\d+) touched\): offset / value / read by$", r"\1，元素 \2（涉及 \3 个）：偏移 / 值 / 读取者"),
    (r"^(.+): none touched$", r"\1：没有涉及任何元素"),
    (r"\+n: read by n more indices \(stride 0 or overlap\)", r"+n：另有 n 个下标读取它（步长 0 或重叠）"),
    (r"·: skipped, no index reads it", r"·：跳过，没有下标读取它"),
    (r"\?: too many elements to tell who reads it", r"?：元素太多，无法列出读取者"),
    # error explanations (the lines after the first)
    (r"^tensor: shape (\(.*?\)), strides (\(.*?\)) — (.+)$", r"张量：形状 \1，步长 \2——\3"),
    (r"^(view\(.*?\)) must merge dims (\d+) and (\d+) into its dim (\d+), which needs (.+?), but (stride\[\d+\]) is (-?\d+): (.+)$",
     r"\1 要把第 \2、\3 维合并成它的第 \4 维，这需要 \5，但 \6 是 \7：\8"),
    (r"walking dim (\d+) jumps back through memory instead of past the end of dim (\d+)\.",
     r"沿第 \1 维前进会在内存中往回跳，而不是越过第 \2 维的末尾。"),
    (r"dim (\d+) steps over a gap: the merged entries are not one evenly spaced run\.",
     r"第 \1 维跨过了一段空隙：合并后的元素不是一段等间距的序列。"),
    (r"^fix: (\.reshape\(.*?\)) copies (\d+) bytes into a new contiguous tensor; or (.+)\.$",
     r"修正：\1 把 \2 字节拷贝到一个新的连续张量；或者 \3。"),
    (r"^shape (\(.*?\)) with strides (\(.*?\)) cannot be read in (\w) order as (\(.*?\)) with fixed strides$",
     r"形状 \1、步长 \2 的张量无法以固定步长按 \3 顺序读成 \4"),
    (r"^fix: pass copy=None \(copy when needed\) or make it contiguous first \((.+)\)$",
     r"修正：传入 copy=None（需要时拷贝），或先把它变为连续（\1）"),
    (r"^aligned from the right, their sizes (\d+) and (\d+) differ and neither is 1$",
     r"从右对齐后，它们的大小 \1 与 \2 不同，且都不是 1"),
    (r"^(\w+) (\(.*?\)) is stretched along dim (\d+) \(missing -> (\d+)\)$", r"\1 \2 沿第 \3 维被拉伸（原本没有 -> \4）"),
    (r"^(\w+) (\(.*?\)) is stretched along dim (\d+) \((\d+) -> (\d+)\)$", r"\1 \2 沿第 \3 维被拉伸（\4 -> \5）"),
    (r"^at (<.+>:\d+|\S+:\d+)$", r"位置：\1"),
    (r"^each operand grows along a dim the other supplies, as in (.+?); if you meant it, make it explicit with (.+?); "
     r"if not, line the dims up \(e\.g\. (.+)\)$",
     r"每个操作数都沿着对方提供的维度增长，如 \1；如果这正是你想要的，请用 \2 明确写出；如果不是，请把维度对齐（例如 \3）"),
    (r"(\w+\(.*?\)): dims (\d+) and (\d+) cannot merge: (.+?), but (stride\[\d+\]) is (-?\d+)",
     r"\1：第 \2、\3 维无法合并：\4，但 \5 是 \6"),
    (r"（例如 (.+?) or (.+?)）", r"（例如 \1 或 \2）"),
    # copy reasons (the copy ledger's, explain's and the watches'), in the layout's own numbers
    (r"^contiguous\(\) of (\(.*?\)) strides (\(.*?\)): dim (\d+) has stride 0 \(expanded\), row-major needs (\d+)$",
     r"contiguous()：形状 \1、步长 \2 的张量第 \3 维步长为 0（扩展），按行优先应为 \4"),
    (r"^contiguous\(\) of (\(.*?\)) strides (\(.*?\)): dim (\d+) has stride (-?\d+), row-major needs (\d+)$",
     r"contiguous()：形状 \1、步长 \2 的张量第 \3 维步长为 \4，按行优先应为 \5"),
    (r"^resize_ grew storage to (\d+) elements$", r"resize_ 把存储扩大到 \1 个元素"),
    (r"(\w+) makes (\(.*?\)) strides (\(.*?\)) contiguous", r"\1 把形状 \2、步长 \3 的张量拷贝成连续的"),
    (r"contiguous\(\) on a non-contiguous tensor (\(.*?\)) strides (\(.*?\))", r"对形状 \1、步长 \2 的非连续张量调用 contiguous()"),
    (r"; materializes an expanded tensor \(stride 0 in dims (\(.*?\))\)", r"；把扩展的张量实体化（维度 \1 的步长为 0）"),
    (r"^inside (\w+)\(\): (.+)$", r"在 \1() 内部：\2"),
    # the watches' summary: its heading, an empty summary, the rows left out, a fix, the totals
    (r"^(watch|watch_torch): (\d+) steps; what to look at, by source line \(largest first\):$",
     r"\1：共 \2 步；值得关注的操作，按源代码行、字节数从大到小："),
    (r"^nothing: no copies, allocations, bilateral broadcasts or regrouping reshapes$",
     r"无：没有拷贝、分配、双边广播，也没有重组维度的 reshape"),
    (r"^… (\d+) more rows: w\.summary\(\)$", r"… 另有 \1 行：w.summary()"),
    (r"(\d+) layout, ([\d,]+) bytes", r"布局拷贝 \1 次 \2 字节"),
    (r"(\d+) new results, ([\d,]+) bytes", r"新结果 \1 个 \2 字节"),
    (r"(\d+) from data, ([\d,]+) bytes", r"来自数据 \1 次 \2 字节"),
    (r"^total: (\d+) copies \((.+)\), ([\d,]+) bytes copied; ([\d,]+) bytes allocated, peak ([\d,]+); "
     r"(\d+) bilateral broadcasts; (\d+) regrouping reshapes$",
     r"合计：拷贝 \1 次（\2），共 \3 字节；分配 \4 字节，峰值 \5；双边广播 \6 次；重组维度的 reshape \7 次"),
    (r"^total: (\d+) copies, ([\d,]+) bytes copied; ([\d,]+) bytes allocated, peak ([\d,]+); "
     r"(\d+) bilateral broadcasts; (\d+) regrouping reshapes$",
     r"合计：拷贝 \1 次，共 \2 字节；分配 \3 字节，峰值 \4；双边广播 \5 次；重组维度的 reshape \6 次"),
    (r"^fix: (.+)$", r"修正：\1"),
    # layout origins, wherever they appear
    (r"the transpose of a contiguous (\(.*?\))", r"连续的 \1 的转置"),
    (r"a permute(\(.*?\)) of a contiguous (\(.*?\))", r"连续的 \2 经 permute\1 所得"),
    (r"expanded along dim (\d+) with stride 0", r"沿第 \1 维以步长 0 扩展"),
    (r"——contiguous$", r"——连续"),
)
_ZH_COMPILED = tuple((re.compile(p), r) for p, r in ZH_LINES)

# the storage strip's row heads: translated in place, padded to the width the English took
# single words of the watches' summary and step table: column heads, categories, kinds
ZH_WORDS = {
    "where": "位置", "module": "模块", "op": "操作", "category": "类别", "count": "次数", "bytes": "字节",
    "kind": "类型", "output": "输出", "strides": "步长", "marks": "标记",
    "layout copy": "布局拷贝", "new result": "新结果", "alloc": "分配", "bilateral broadcast": "双边广播",
    "regroup": "重组", "view": "视图", "compute": "计算", "copy": "拷贝", "write": "写入", "new": "新建",
}

ZH_HEADS = {"offset": "偏移", "value": "值", "read by": "读取者", "copied from": "拷贝自"}


def words(lang: str) -> Callable[[str], str] | None:
    """A summary's or step table's text in ``lang``: None for English (as it is); for Chinese a
    single word through :data:`ZH_WORDS`, any other line through :func:`translate`.

    >>> words("zh")("layout copy"), words("en") is None
    ('布局拷贝', True)
    """
    if lang != "zh":
        return None
    return lambda s: ZH_WORDS.get(s) or translate(s, lang)


def translate(line: str, lang: str) -> str:
    """A line of a picture or of an error explanation in ``lang`` (English: as it is; Chinese:
    through :data:`ZH_LINES`). Indentation is kept; a line no pattern knows stays English.

    >>> translate("  before: y", "zh")
    '  之前：y'
    """
    if lang != "zh":
        return line
    body = line.lstrip(" ")
    for pattern, repl in _ZH_COMPILED:
        body = pattern.sub(repl, body)
    return line[: len(line) - len(line.lstrip(" "))] + body
