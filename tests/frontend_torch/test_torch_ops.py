"""One model through many converters at once (elementwise math and dtype promotion,
addmm's alpha/beta, comparisons, reductions, creation, grouped convolution without bias,
batch/layer norm without affine parameters, pools, slicing), decomposed or not."""

import os
import sys

import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402

from tvmlite.frontend.torch import from_exported_program  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
from torch_frontend_models import assert_close, export_model, run_relax, run_torch  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:.*LeafSpec:FutureWarning")


class ManyOps(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(4, 4, 3, groups=2, bias=False, padding=(1, 2))
        self.bn = torch.nn.BatchNorm2d(4, affine=False)
        self.ln = torch.nn.LayerNorm([5, 5], elementwise_affine=False)
        self.register_buffer("scale", torch.tensor([1.5, -2.0, 0.5, 3.0]))

    def forward(self, x, w, ids):
        a = torch.addmm(w[0], x[0], w, beta=0.5, alpha=2.0)
        b = torch.maximum(a.abs().sqrt(), torch.exp(-a)).pow(2) + torch.clamp(a, -0.5, 0.5)
        c = torch.where(a > 0, torch.rsqrt(a.abs() + 1), 1 - a) * torch.sin(a) - \
            torch.cos(a).floor()
        d = (ids / 2 + ids * 3).log_softmax(-1) + ids.amax(-1, keepdim=True)
        e = torch.ones(5, 5) + torch.zeros_like(a) * torch.full((5,), 2.0) + a.prod(0) * 0.01
        f = F.gelu(a, approximate="tanh") + torch.erf(a) + torch.tanh(a).round() - torch.neg(a)
        g = self.bn(self.conv(x.reshape(1, 4, 5, 5))) * self.scale.view(1, 4, 1, 1)
        g = F.max_pool2d(g, 3, stride=2, padding=1)[:, :, :3, :3] + \
            F.avg_pool2d(g, 3, 2, 1)[..., :3]
        h = self.ln(x).transpose(0, 2).select(1, -2)
        mm = torch.mm(a, a.t()).unsqueeze(-1).squeeze()
        return b, c, d, e, f, g, h, ids.argmax(-1), (a >= 0.1).any(-1), mm


@pytest.mark.parametrize("decompose", [True, False])
def test_many_ops(decompose):
    torch.manual_seed(0)
    model = ManyOps()
    args = (torch.randn(4, 5, 5), torch.randn(5, 5), torch.randint(0, 9, (3, 6)))
    mod = from_exported_program(export_model(model, args), run_ep_decomposition=decompose)
    assert_close(run_relax(mod, *args), run_torch(model, *args))


class CeilAvgPool(torch.nn.Module):
    def __init__(self, kernel, stride, padding, include_pad):
        super().__init__()
        self.args = (kernel, stride, padding, include_pad)

    def forward(self, x):
        kernel, stride, padding, include_pad = self.args
        return F.avg_pool2d(x, kernel, stride=stride, padding=padding, ceil_mode=True,
                            count_include_pad=include_pad)


@pytest.mark.parametrize("kernel,stride,padding", [(2, 2, 0), (3, 2, 1), (3, 3, 1)])
@pytest.mark.parametrize("include_pad", [False, True])
def test_avg_pool_ceil_mode(kernel, stride, padding, include_pad):
    """ceil_mode windows hang past the input: torch divides by the part inside it (or inside
    the padded input, with count_include_pad)."""
    x = torch.randn(1, 2, 6, 7)
    model = CeilAvgPool(kernel, stride, padding, include_pad)
    mod = from_exported_program(export_model(model, (x,)))
    assert_close(run_relax(mod, x), run_torch(model, x))


class Clamps(torch.nn.Module):
    def forward(self, x):
        return (F.relu6(x), F.hardtanh(x), torch.clamp(x, min=-0.25),
                torch.clamp(x, -1.5, 2.5))


def test_clamps_with_two_bounds_are_one_clip():
    x = torch.linspace(-8, 8, 97).reshape(1, 97)
    mod = from_exported_program(export_model(Clamps(), (x,)))
    text = mod.script()
    # each is one R.clip, as TVM emits it; the missing side of a one-sided clamp is +inf
    assert text.count("R.clip(") == 4 and 'T.float64("inf")' in text, text
    assert_close(run_relax(mod, x), run_torch(Clamps(), x))
