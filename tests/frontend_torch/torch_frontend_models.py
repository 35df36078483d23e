"""Small PyTorch models the torch-frontend tests import, export and compare against."""

import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.export import export

import tvmlite as tvm
from tvmlite import relax


class TorchModel(nn.Module):
    """The MLP of TVM's "IRModule" getting-started tutorial."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(784, 256)
        self.relu1 = nn.ReLU()
        self.fc2 = nn.Linear(256, 10)

    def forward(self, x):
        x = self.fc1(x)
        x = self.relu1(x)
        x = self.fc2(x)
        return x


class SmallCNN(nn.Module):
    """conv + batch norm (eval) + pools + flatten + dropout + linear."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 16, 3, stride=2)
        self.drop = nn.Dropout(0.3)
        self.fc = nn.Linear(16 * 2 * 2, 10)
        with torch.no_grad():  # running statistics that are not the identity
            self.bn1.running_mean.uniform_(-1, 1)
            self.bn1.running_var.uniform_(0.5, 2)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.max_pool2d(x, 2)
        x = F.avg_pool2d(self.conv2(x), 2, stride=1)
        x = torch.flatten(F.adaptive_avg_pool2d(x, (2, 2)), 1)
        return self.fc(self.drop(x))


class TransformerBlock(nn.Module):
    """Embedding, pre-norm attention (softmax), GELU MLP, and a tail of split / cat /
    tanh / sigmoid / silu / scaled constants / mean / sum; two outputs."""

    def __init__(self, d=32, heads=4, vocab=50):
        super().__init__()
        self.heads = heads
        self.emb = nn.Embedding(vocab, d)
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fc1, self.fc2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, ids):
        x = self.emb(ids)
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).chunk(3, dim=-1)
        q, k, v = (z.reshape(b, t, self.heads, d // self.heads).transpose(1, 2)
                   for z in (q, k, v))
        att = torch.softmax((q @ k.transpose(-2, -1)) / math.sqrt(d // self.heads), dim=-1)
        y = (att @ v).permute(0, 2, 1, 3).reshape(b, t, d)
        x = x + self.proj(y)
        x = x + self.fc2(F.gelu(self.fc1(self.ln2(x))))
        a, c = torch.split(x, [16, 16], dim=-1)
        z = torch.cat([torch.tanh(a) * torch.sigmoid(c), F.silu(a) - c * 0.5], dim=-1)
        return z.mean(dim=1), x.sum(-1, keepdim=True)


class Attention(nn.Module):
    """torch's own attention: F.scaled_dot_product_attention and nn.MultiheadAttention
    (decomposed to bmm, masks with where / any, ...), plus slicing and hardswish."""

    def __init__(self):
        super().__init__()
        self.mha = nn.MultiheadAttention(16, 2, batch_first=True)

    def forward(self, q):
        sdpa = F.scaled_dot_product_attention(q, q, q)
        return sdpa + self.mha(q, q, q)[0], F.hardswish(q[:, 1:3]), q[0].unsqueeze(0)


def export_model(model, args, **kwargs):
    with torch.no_grad():
        return export(model.eval(), args, **kwargs)


def run_relax(mod, *args):
    """Build `mod` for the CPU and call main; outputs as a tuple of numpy arrays."""
    vm = relax.VirtualMachine(tvm.compile(mod, target="llvm"), tvm.cpu())
    out = vm["main"](*(a.numpy() if hasattr(a, "numpy") else a for a in args))
    return tuple(o.numpy() for o in out) if isinstance(out, (tuple, list)) else (out.numpy(),)


def run_torch(model, *args):
    with torch.no_grad():
        out = model(*args)
    return tuple(o.numpy() for o in out) if isinstance(out, tuple) else (out.numpy(),)


def assert_close(got, want, rtol=1e-4, atol=1e-5):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)
