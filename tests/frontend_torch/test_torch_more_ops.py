"""Converters added for TVM's own frontend tests, each run against torch's result: the inverse
and hyperbolic math, predicates, expm1, div rounding modes, clamps, arange, full_like, flip,
var and bucketize."""

import os
import sys

import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402

from tvmlite.frontend.torch import from_exported_program  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
from torch_frontend_models import assert_close, export_model, run_relax, run_torch  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:.*LeafSpec:FutureWarning")


class MoreOps(torch.nn.Module):
    def forward(self, x, y):
        u = x.clamp(-0.9, 0.9)
        return (torch.asin(u) + torch.acos(u) + torch.atan(x) + torch.atanh(u),
                torch.sinh(x) + torch.cosh(x) + torch.tan(u) + torch.asinh(x),
                torch.acosh(x.abs() + 1) + torch.expm1(x) + torch.sign(x) + torch.trunc(3 * x),
                torch.isnan(x).float() + torch.isfinite(x).float(),
                torch.div(x, y, rounding_mode="trunc"), torch.div(x, y, rounding_mode="floor"),
                torch.clamp(x, min=-0.25), torch.clamp(x, max=0.5), torch.clamp(x, y, y + 1),
                torch.arange(1, 9, 2) * 2, torch.full_like(x, 2.5), torch.flip(x, [0, 1]),
                torch.var(x, dim=1), torch.var(x, dim=0, correction=0),
                torch.bucketize(x, torch.tensor([-0.5, 0.0, 0.5])))


def test_more_ops_match_torch():
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(3, 4, generator=gen)
    y = torch.rand(3, 4, generator=gen) + 0.5
    mod = from_exported_program(export_model(MoreOps(), (x, y)))
    assert_close(run_relax(mod, x, y), run_torch(MoreOps(), x, y))


class EvenMoreOps(torch.nn.Module):
    def forward(self, x, ids):
        return (torch.zeros_like(x) + torch.ones_like(x), F.leaky_relu(x, 0.02),
                torch.log1p(x.abs()), torch.logical_and(x, x > 0.5).float(),
                torch.logical_xor(x > 0, x < 0.5).float(), torch.fmod(x, 0.75),
                torch.index_select(x, 1, ids), x.repeat(2, 3), torch.topk(x, 2)[0],
                torch.gather(x, 1, ids.reshape(1, 2).expand(3, 2)),
                torch.bitwise_or(ids, 4))


def test_even_more_ops_match_torch():
    x = torch.randn(3, 4, generator=torch.Generator().manual_seed(1))
    ids = torch.tensor([3, 1])
    mod = from_exported_program(export_model(EvenMoreOps(), (x, ids)))
    assert_close(run_relax(mod, x, ids), run_torch(EvenMoreOps(), x, ids))


class SortsAndMaxes(torch.nn.Module):
    def forward(self, x):
        values, order = torch.sort(x, 1, descending=True)
        top, where = torch.max(x, 0)
        low = torch.min(x, 1, keepdim=True)[0]
        return (values, order, top, where, low, torch.empty_like(x) * 0,
                torch.where(x > 0, x, torch.scalar_tensor(0.5)))


def test_sorts_and_maxes_match_torch():
    x = torch.randn(4, 5, generator=torch.Generator().manual_seed(2))
    mod = from_exported_program(export_model(SortsAndMaxes(), (x,)))
    assert_close(run_relax(mod, x), run_torch(SortsAndMaxes(), x))


class Convs(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv1d(4, 6, 3, stride=2, padding=1)
        self.t1 = torch.nn.ConvTranspose1d(6, 4, 3, stride=2, output_padding=1, bias=False)
        self.t2 = torch.nn.ConvTranspose2d(2, 3, 3, padding=1)

    def forward(self, x, y):
        return self.t1(self.c1(x)), self.t2(y)


def test_conv1d_and_transposed_convs_match_torch():
    gen = torch.Generator().manual_seed(3)
    x, y = torch.randn(1, 4, 9, generator=gen), torch.randn(1, 2, 5, 5, generator=gen)
    model = Convs().eval()
    mod = from_exported_program(export_model(model, (x, y)))
    assert_close(run_relax(mod, x, y), run_torch(model, x, y))


def test_group_norm_matches_torch():
    model = torch.nn.GroupNorm(2, 4).eval()
    with torch.no_grad():
        model.weight.uniform_(0.5, 1.5)
        model.bias.uniform_(-0.5, 0.5)
    x = torch.randn(2, 4, 3, 3, generator=torch.Generator().manual_seed(4))
    mod = from_exported_program(export_model(model, (x,)))
    assert_close(run_relax(mod, x), run_torch(model, x))


class Attention(torch.nn.Module):
    def forward(self, q, k, v, mask, x):
        return (F.scaled_dot_product_attention(q, k, v),
                F.scaled_dot_product_attention(q, k, v, mask),
                F.scaled_dot_product_attention(q, k, v, is_causal=True),
                F.scaled_dot_product_attention(x, x, x))


def test_scaled_dot_product_attention_matches_torch():
    gen = torch.Generator().manual_seed(5)
    q, k, v = (torch.randn(1, 2, 4, 8, generator=gen) for _ in range(3))
    mask, x = torch.randn(1, 2, 4, 4, generator=gen), torch.randn(4, 8, generator=gen)
    args = (q, k, v, mask, x)
    mod = from_exported_program(export_model(Attention(), args), run_ep_decomposition=False)
    assert_close(run_relax(mod, *args), run_torch(Attention(), *args))
