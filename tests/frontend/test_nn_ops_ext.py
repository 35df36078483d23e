"""The nn.op functions beyond the basics, run through export + build, against numpy."""

import math

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax
from tvmlite.relax.frontend import nn
from tvmlite.relax.frontend.nn import op


def run(fn, *arrays):
    class M(nn.Module):
        def test(self, x):
            return fn(x)

    spec = {"test": {"x": nn.spec.Tensor(arrays[0].shape, str(arrays[0].dtype))}}
    mod, _ = M().export_tvm(spec)
    vm = relax.VirtualMachine(tvm.compile(mod, "llvm"), tvm.cpu())
    return vm["test"](*(tvm.nd.array(a) for a in arrays)).numpy()


X = np.random.default_rng(0).standard_normal((2, 3, 4, 4)).astype("float32")
_NEAREST = np.minimum(np.rint(np.arange(8) / 2).astype(int), 3)


@pytest.mark.parametrize("fn, ref", [
    (lambda x: op.repeat(x, 2, axis=1), lambda x: np.repeat(x, 2, axis=1)),
    (lambda x: op.relu6(x), lambda x: np.clip(x, 0, 6)),
    (lambda x: op.softplus(x), lambda x: np.log1p(np.exp(x))),
    (lambda x: op.triu(x, 1), lambda x: np.triu(x, 1)),
    (lambda x: op.cumsum(x, axis=2), lambda x: np.cumsum(x, axis=2)),
    (lambda x: op.sort(x, axis=-1), lambda x: np.sort(x, axis=-1)),
    (lambda x: op.pad(x, [0, 0, 0, 0, 1, 1, 2, 0]),
     lambda x: np.pad(x, [(0, 0), (0, 0), (1, 1), (2, 0)])),
    # nearest, asymmetric, rounding ties to even (TVM's form): source index rint(o / 2)
    (lambda x: op.interpolate(x, scale_factor=2.0),
     lambda x: x[:, :, _NEAREST][:, :, :, _NEAREST]),
    (lambda x: op.group_norm(x, 1, op.ones([3]), op.zeros([3])),
     lambda x: (x - x.mean(axis=(1, 2, 3), keepdims=True))
     / np.sqrt(x.var(axis=(1, 2, 3), keepdims=True) + 1e-5)),
])
def test_op_matches_numpy(fn, ref):
    np.testing.assert_allclose(run(fn, X), ref(X), rtol=1e-4, atol=1e-4)


def test_timestep_embedding_is_sin_then_cos_of_scaled_steps():
    t = np.array([0.0, 1.0, 7.0], "float32")
    got = run(lambda x: op.get_timestep_embedding(x, 10), t)
    freqs = np.exp(-math.log(10000) * np.arange(5) / 4)
    arg = t[:, None] * freqs[None, :]
    np.testing.assert_allclose(got, np.concatenate([np.sin(arg), np.cos(arg)], -1),
                               rtol=1e-5, atol=1e-5)


def test_a_call_used_twice_is_bound_once():
    class M(nn.Module):
        def test(self, x):
            return op.get_timestep_embedding(x, 10)

    mod, _ = M().export_tvm({"test": {"x": nn.spec.Tensor([3], "float32")}})
    calls = [b.value.op.name for b in mod["test"].body.blocks[0].bindings
             if hasattr(b.value, "op") and hasattr(b.value.op, "name")]
    assert calls.count("relax.exp") == 1 and calls.count("relax.arange") == 1


def test_relax_comparison_operators_build_the_compare_ops():
    from tvmlite.script import ir as I
    from tvmlite.script import relax as R

    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((3,), "float32"), y: R.Tensor((3,), "float32")):
            return (x > y, x <= y)

    a, b = np.array([1, 2, 3], "float32"), np.array([2, 2, 2], "float32")
    vm = relax.VirtualMachine(tvm.compile(Mod, "llvm"), tvm.cpu())
    gt, le = vm["main"](tvm.nd.array(a), tvm.nd.array(b))
    np.testing.assert_array_equal(gt.numpy(), a > b)
    np.testing.assert_array_equal(le.numpy(), a <= b)


def test_conv1d_and_group_norm_modules_match_numpy():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((1, 4, 9)).astype("float32")
    w = rng.standard_normal((6, 4, 3)).astype("float32")
    b = rng.standard_normal(6).astype("float32")

    class M(nn.Module):
        def __init__(self):
            self.conv = nn.Conv1D(4, 6, 3)
            self.norm = nn.GroupNorm(2, 6, affine=False)

        def forward(self, x):
            return self.norm(self.conv(x))

    mod, _ = M().export_tvm({"forward": {"x": nn.spec.Tensor([1, 4, 9], "float32")}})
    vm = relax.VirtualMachine(tvm.compile(mod, "llvm"), tvm.cpu())
    got = vm["forward"](*(tvm.nd.array(a) for a in (x, w, b))).numpy()
    conv = np.stack([sum(np.convolve(x[0, c], w[o, c][::-1], "valid") for c in range(4))
                     for o in range(6)])[None] + b[None, :, None]
    g = conv.reshape(1, 2, 3, 7)
    ref = ((g - g.mean(axis=(2, 3), keepdims=True))
           / np.sqrt(g.var(axis=(2, 3), keepdims=True) + 1e-5)).reshape(1, 6, 7)
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4)


def test_attention_module_matches_numpy():
    rng = np.random.default_rng(4)
    b, s, dim, heads, dh = 1, 3, 8, 2, 4
    x = rng.standard_normal((b, s, dim)).astype("float32")
    wq, wk, wv, wo = (rng.standard_normal((dim, dim)).astype("float32") * 0.3 for _ in range(4))
    bo = rng.standard_normal(dim).astype("float32")
    mod, _ = nn.Attention(dim, heads=heads, dim_head=dh).export_tvm(
        {"forward": {"hidden_states": nn.spec.Tensor([b, s, dim], "float32")}})
    vm = relax.VirtualMachine(tvm.compile(mod, "llvm"), tvm.cpu())
    got = vm["forward"](*(tvm.nd.array(a) for a in (x, wq, wk, wv, wo, bo))).numpy()

    def split(t):
        return t.reshape(b, s, heads, dh).transpose(0, 2, 1, 3)

    q, k, v = split(x @ wq.T), split(x @ wk.T), split(x @ wv.T)
    logits = q @ k.transpose(0, 1, 3, 2) / np.sqrt(dh)
    p = np.exp(logits - logits.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    out = (p @ v).transpose(0, 2, 1, 3).reshape(b, s, dim)
    np.testing.assert_allclose(got, out @ wo.T + bo, rtol=1e-4, atol=1e-4)
