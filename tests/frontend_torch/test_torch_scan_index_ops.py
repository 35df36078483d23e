"""The scan, norm, einsum, median, squeeze and index-write converters (ops_extra.py), each run
against torch's own result."""

import os
import sys

import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402

from tvmlite.frontend.torch import from_exported_program  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
from torch_frontend_models import assert_close, export_model, run_relax, run_torch  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:.*LeafSpec:FutureWarning")


class ScanOps(torch.nn.Module):
    def forward(self, x, y):
        return (torch.cumsum(x, 1), torch.cumprod(x, 0), torch.atan2(x, y),
                torch.einsum("ij,kj->ik", x, y), x.median(-1).values,
                torch.linalg.vector_norm(x, 2.0, dim=1), (x > 0).any(1), F.elu(x, 0.5),
                x.unsqueeze(-1), x.unsqueeze(-1).squeeze(-1), x.squeeze(0),
                torch.eye(3, 4))


def test_scan_and_norm_ops_match_torch():
    gen = torch.Generator().manual_seed(0)
    x, y = torch.randn(3, 4, generator=gen), torch.randn(3, 4, generator=gen)
    mod = from_exported_program(export_model(ScanOps(), (x, y)))
    assert_close(run_relax(mod, x, y), run_torch(ScanOps(), x, y))


class IndexWrites(torch.nn.Module):
    def forward(self, x, index, rows, cols, values, src):
        out = x.scatter(1, index, 0.5)
        out2 = torch.slice_scatter(x, src, dim=1, start=1, end=3)
        out3 = x.index_put((rows, cols), values)
        return out, out2, out3, x[rows], x[rows, cols]


def test_index_writes_match_torch():
    gen = torch.Generator().manual_seed(1)
    x = torch.randn(4, 5, generator=gen)
    index = torch.tensor([[0, 2], [1, 3], [4, 0], [2, 2]])
    rows, cols = torch.tensor([0, 3]), torch.tensor([1, 4])
    values, src = torch.tensor([9.0, -9.0]), torch.randn(4, 2, generator=gen)
    args = (x, index, rows, cols, values, src)
    mod = from_exported_program(export_model(IndexWrites(), args))
    assert_close(run_relax(mod, *args), run_torch(IndexWrites(), *args))
