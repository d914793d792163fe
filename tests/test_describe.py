"""describe(): the layout summary states true numbers about memory."""

from __future__ import annotations

import re

import numpy as np
from hypothesis import given, settings

from layouts import build_numpy, build_strided, specs


def _distinct_addresses(a: np.ndarray) -> int:
    """Distinct element addresses a NumPy view touches, counted from its data directly."""
    if a.size == 0:
        return 0
    offsets = np.zeros((), dtype=np.int64)
    for size, stride in zip(a.shape, a.strides):
        offsets = np.add.outer(offsets, np.arange(size) * stride)
    return len(np.unique(offsets))


@settings(max_examples=150, deadline=None)
@given(specs(negative=True))
def test_describe_counts_elements_and_distinct_locations(spec):
    t = build_strided(spec)
    text = t.describe()
    assert f"shape {t.shape}, strides {t.stride()}, storage offset {t.storage_offset()}" in text
    assert f"storage: {t.untyped_storage().size()} elements" in text
    distinct = _distinct_addresses(build_numpy(spec))
    named = re.search(r"names (\d+) elements at (\d+) distinct locations", text)
    if named:
        assert int(named.group(1)) == t.numel()
        assert int(named.group(2)) == distinct < t.numel()
    else:
        assert f"addresses {t.numel()} of them" in text
        assert distinct == t.numel()
    assert ("view of a tensor" in text) == t.is_view()
