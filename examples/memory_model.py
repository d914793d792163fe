"""The memory model of strided, in ten short scenes.

A tensor is ONE flat storage plus a layout: shape, strides and a storage offset, counted in
elements. Element (i, j) lives at storage[offset + i*strides[0] + j*strides[1]]. Every
operation either makes a new layout over the same storage (a view: free, shares memory) or
fills new storage (a copy: costs bytes, and strided tells you).

Run:  .venv/bin/python examples/memory_model.py
"""

import numpy as np

import strided


def scene(title: str) -> None:
    print(f"\n== {title} " + "=" * max(0, 72 - len(title)))


def layout(name: str, t: strided.Tensor) -> None:
    print(f"{name:>6}: shape {t.shape}, strides {t.stride()}, offset {t.storage_offset()}, "
          f"contiguous={t.is_contiguous()}")


scene("1. A tensor is a flat storage plus a layout")
base = strided.arange(12, dtype=strided.float32)
x = base.view(3, 4)
print("base = strided.arange(12, dtype=strided.float32); x = base.view(3, 4)")
print(x)
layout("base", base)
layout("x", x)
print("storage:", x.untyped_storage().array.tolist())
print(f"x[2, 1] lives at storage[0 + 2*{x.stride(0)} + 1*{x.stride(1)}] =",
      x.untyped_storage().array[2 * x.stride(0) + 1 * x.stride(1)])

scene("2. Views share memory: a write through a view shows in the base")
row = x[1]
row[0] = 100.0
print("row = x[1]; row[0] = 100")
layout("row", row)
print("x[1, 0] is now", x[1, 0].item(), "| same storage:", row.untyped_storage() is x.untyped_storage())
print("x.base is base:", x.base is base, "| row.base is base (the root, not x):", row.base is base,
      "| base.base:", base.base)

scene("3. permute changes the strides, not the data")
xt = x.permute(1, 0)
layout("xt", xt)
print("same storage, nothing moved:", xt.untyped_storage() is x.untyped_storage())
print(xt.describe())

scene("4. view() after permute fails, and says why")
try:
    xt.view(12)
except RuntimeError as err:
    print(f"{type(err).__name__}: {err}")

scene("5. reshape() copies when it must, and the copy ledger says so")
with strided.record_copies() as copies:
    flat = xt.reshape(12)  # cannot be a view: copies
    same = x.reshape(2, 6)  # can be a view: copies nothing
print("flat = xt.reshape(12)   shares memory with x:", strided.shares_memory(flat, x))
print("same = x.reshape(2, 6)  shares memory with x:", strided.shares_memory(same, x))
print(f"copies made: {len(copies)}")
for c in copies:
    print(f"  {c.nbytes} bytes, reason {c.reason!r}, shape {c.shape}, {c.dtype}")

scene("6. expand() repeats an element with stride 0: no memory")
col = strided.tensor([1.0, 2.0, 3.0]).view(3, 1)
big = col.expand(3, 1000)
layout("big", big)
print(f"big addresses {big.numel()} elements; its storage holds {big.untyped_storage().size()}")
try:
    big.fill_(5.0)
except RuntimeError as err:
    print("big.fill_(5.0) is refused (1000 entries of a row share one element):")
    print(f"{type(err).__name__}: {err}")

scene("7. contiguous() copies only when the layout is not already contiguous")
with strided.record_copies() as copies:
    a = x.contiguous()
    b = xt.contiguous()
print("x.contiguous() is x:", a is x, "| xt.contiguous() is xt:", b is xt)
layout("b", b)
print("ledger:", [(c.nbytes, c.reason) for c in copies])

scene("8. Negative steps walk memory backwards (NumPy allows them; PyTorch not)")
r = x[::-1, ::2]
layout("r", r)
print(r)
print("still a view:", r.base is base, "| its first element sits at storage offset", r.storage_offset())

scene("9. from_numpy shares memory with NumPy, negative strides included")
arr = np.arange(6, dtype=np.float32)[::-1]
t = strided.from_numpy(arr)
layout("t", t)
t[0] = -1.0
print(f"arr strides {arr.strides} bytes; after t[0] = -1, arr = {arr.tolist()}")
back = t.numpy()
print("t.numpy() is zero-copy too:", np.shares_memory(back, arr))

scene("10. Summary")
print("view ops (view, permute, transpose, slicing, expand, unsqueeze, select, ...) make a new")
print("layout over the same storage in O(ndim) time; copies (contiguous, clone, reshape when")
print("it must) allocate new storage and show up in strided.record_copies().")
