"""tools/torch_suites.py, the harness that runs PyTorch's own test files against strided, on a tiny
test file of our own: the file's ``torch`` is strided, PyTorch's infrastructure instantiates and
names the tests, strided tensors compare through TestCase.assertEqual, and every outcome lands in
its class (PASS, FAIL, ERROR, N/A by scope or by the control run on real torch)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch

import strided as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import torch_suites  # noqa: E402

SUITE = '''
import torch
from torch.testing import make_tensor
from torch.testing._internal.common_utils import TestCase
from torch.testing._internal.common_device_type import instantiate_device_type_tests, dtypes, onlyCUDA


class TestTiny(TestCase):
    @dtypes(torch.float32, torch.float64, torch.bfloat16)
    def test_transpose_is_a_view(self, device, dtype):
        x = make_tensor((3, 4), dtype=dtype, device=device, noncontiguous=True)
        y = x.t()
        self.assertTrue(y._is_view() and y.dtype == dtype)
        self.assertEqual(y.stride(), tuple(reversed(x.stride())))
        self.assertEqual(y.contiguous(), x.t())

    def test_torch_is_strided(self, device):
        self.assertTrue(isinstance(torch.zeros(1), torch.Tensor) and torch.Tensor.__module__.startswith("strided"))

    def test_fails_on_strided_only(self, device):
        self.assertEqual(type(torch.arange(3)).__module__, "torch")

    def test_negative_step(self, device):
        with self.assertRaisesRegex(ValueError, "step must be greater than zero"):
            torch.arange(4)[::-1]

    def test_missing_name(self, device):
        torch.histogramdd(torch.zeros(4, 2), bins=2)  # multi-dim histograms: strided has none

    def test_private_api(self, device):
        torch._C._get_tracing_state()

    def test_stale_expectation(self, device):
        with self.assertRaisesRegex(RuntimeError, "a message no torch ever gave"):
            torch.zeros(2).view(-1, -1)

    @onlyCUDA
    def test_needs_cuda(self, device):
        pass


instantiate_device_type_tests(TestTiny, globals())
'''


@pytest.fixture(scope="module")
def rows():
    strided_rows = torch_suites.run_suite(torch_suites.load_suite("tiny.py", SUITE))
    control = torch_suites.run_suite(torch_suites.load_suite("tiny.py", SUITE, on_strided=False))
    return {test_id.split(".")[1]: (status, text) for test_id, status, text in
            torch_suites.apply_control(strided_rows, control)}


def test_each_outcome_lands_in_its_class(rows):
    assert rows["test_transpose_is_a_view_cpu_float32"] == ("PASS", "")
    assert rows["test_transpose_is_a_view_cpu_float64"] == ("PASS", "")
    assert rows["test_torch_is_strided_cpu"] == ("PASS", "")
    assert rows["test_transpose_is_a_view_cpu_bfloat16"] == ("N/A", "dtype outside strided")
    assert rows["test_fails_on_strided_only_cpu"][0] == "FAIL"
    assert rows["test_negative_step_cpu"] == ("DIFF", "negative slice steps (strided allows them, as NumPy)")
    assert rows["test_missing_name_cpu"] == ("ERROR", "AttributeError: strided has no torch.histogramdd")
    assert rows["test_private_api_cpu"] == ("N/A", "torch private API")
    assert rows["test_stale_expectation_cpu"][0] == "N/A"
    assert rows["test_stale_expectation_cpu"][1].startswith(f"does not pass on torch {torch.__version__} either")
    assert rows["test_needs_cuda_cpu"][0] == "N/A" and "skipped by PyTorch's decorators" in rows["test_needs_cuda_cpu"][1]
    assert torch_suites.summarize(list((k, *v) for k, v in rows.items())).startswith("3/6 applicable passed (1 FAIL, 1 ERROR, 1 DIFF)")


def test_make_tensor_and_conversions_keep_layout_values_and_grad():
    t = torch.arange(24.0).reshape(2, 3, 4).permute(2, 0, 1)[1:]
    t.requires_grad_(True)
    s = torch_suites.from_torch(t)
    assert isinstance(s, st.Tensor) and (s.shape, s.stride(), s.requires_grad) == (tuple(t.shape), t.stride(), True)
    back = torch_suites.to_torch([s, st.float16, (s[0],)])
    assert torch.equal(back[0], t.detach()) and back[1] is torch.float16 and torch.equal(back[2][0], t[0].detach())
    assert torch_suites.to_torch(st.tensor(2.5)).shape == () and torch_suites.to_torch(st.tensor(7)).dtype is torch.int64


def test_proxy_resolves_to_strided_and_refuses_what_strided_lacks():
    proxy = torch_suites.TorchProxy()
    assert proxy.reshape is st.reshape and proxy.Tensor is st.Tensor and proxy.inf == float("inf")
    with pytest.raises(AttributeError, match="strided has no torch.sparse_coo_tensor"):
        proxy.sparse_coo_tensor  # noqa: B018
    with pytest.raises(AttributeError, match=r"torch\.ops \(torch private API\)"):
        proxy.ops  # noqa: B018
