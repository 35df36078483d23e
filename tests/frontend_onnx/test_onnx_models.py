"""Small ResNet-, MobileNetV2- and BERT-style models exported by torch.onnx.export: import,
compile, and match ONNX Runtime."""

import io
import warnings

import numpy as np
import pytest

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")
torch = pytest.importorskip("torch")

import onnx  # noqa: E402
from onnx_check import run_ort, run_tvmlite  # noqa: E402

nn = torch.nn


class _ResBlock(nn.Module):
    def __init__(self, c: int) -> None:
        super().__init__()
        self.conv1, self.bn1 = nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c)
        self.conv2, self.bn2 = nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c)

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(x + self.bn2(self.conv2(y)))


class TinyResNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.BatchNorm2d(8),
                                  nn.ReLU(), nn.MaxPool2d(3, 2, 1))
        self.block = _ResBlock(8)
        self.fc = nn.Linear(8, 10)

    def forward(self, x):
        y = self.block(self.stem(x))
        return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(y, 1), 1))


class InvertedResidual(nn.Module):
    """MobileNetV2's block: 1x1 expand, 3x3 depthwise, 1x1 project, residual."""

    def __init__(self, c: int = 8, expand: int = 4) -> None:
        super().__init__()
        h = c * expand
        self.body = nn.Sequential(
            nn.Conv2d(c, h, 1, bias=False), nn.BatchNorm2d(h), nn.ReLU6(),
            nn.Conv2d(h, h, 3, padding=1, groups=h, bias=False), nn.BatchNorm2d(h), nn.ReLU6(),
            nn.Conv2d(h, c, 1, bias=False), nn.BatchNorm2d(c))

    def forward(self, x):
        return x + self.body(x)


class EncoderLayer(nn.Module):
    """A BERT-style post-norm encoder layer written out (multi-head attention, GELU FFN)."""

    def __init__(self, d: int = 16, heads: int = 2) -> None:
        super().__init__()
        self.heads = heads
        self.qkv, self.out = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.ff1, self.ff2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x):
        b, s, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=-1)
        q, k, v = (t.reshape(b, s, self.heads, d // self.heads).transpose(1, 2)
                   for t in (q, k, v))
        att = torch.softmax(q @ k.transpose(-1, -2) / (d // self.heads) ** 0.5, dim=-1)
        ctx = (att @ v).transpose(1, 2).reshape(b, s, d)
        x = self.ln1(x + self.out(ctx))
        return self.ln2(x + self.ff2(nn.functional.gelu(self.ff1(x))))


def _export(module: nn.Module, shape: tuple) -> onnx.ModelProto:
    torch.manual_seed(0)
    module = module.eval()
    for m in module.modules():  # non-trivial batch-norm statistics
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.5, 1.5)
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(module, (torch.randn(shape),), buffer, dynamo=False,
                          opset_version=17, input_names=["x"])
    return onnx.load_from_string(buffer.getvalue())


@pytest.mark.parametrize("make,shape", [(TinyResNet, (2, 3, 16, 16)),
                                        (InvertedResidual, (1, 8, 8, 8)),
                                        (EncoderLayer, (2, 5, 16))],
                         ids=["resnet", "mobilenetv2", "bert"])
def test_model_matches_onnxruntime(make, shape):
    torch.manual_seed(0)
    model = _export(make(), shape)
    x = np.random.default_rng(3).standard_normal(shape).astype("float32")
    expected = run_ort(model, {"x": x})[0]
    got = run_tvmlite(model, {"x": x})[0]
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)
