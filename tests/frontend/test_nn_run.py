"""Exported nn models compile and run on the VM, against numpy (and torch where installed)."""

import math
import os
import sys

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax
from tvmlite.relax.frontend import nn

sys.path.insert(0, os.path.dirname(__file__))
from nn_models import build_models, specs  # noqa: E402

MODELS = build_models(nn)
SPECS = specs(nn)
RNG = np.random.default_rng(7)


def _compile(key, pipeline="zero"):
    cls, spec = SPECS[key]
    mod, params = MODELS[cls]().export_tvm(spec)
    if pipeline:
        mod = relax.get_pipeline(pipeline)(mod)
    return relax.VirtualMachine(relax.build(mod, "llvm"), tvm.cpu()), params


def _weights(params):
    return [RNG.standard_normal(p.shape).astype(p.dtype) for _, p in params]


def _run(vm, *args, method="forward"):
    out = vm[method](*[tvm.nd.array(a) for a in args])
    return tuple(o.numpy() for o in out) if isinstance(out, (tuple, list)) else out.numpy()


def test_quick_start_runs_verbatim(capsys):
    """TVM's Quick Start (docs/get_started/tutorials/quick_start.py), imports changed."""
    from tvmlite.relax.frontend import nn as qs_nn

    class MLPModel(qs_nn.Module):
        def __init__(self):
            super(MLPModel, self).__init__()
            self.fc1 = qs_nn.Linear(784, 256)
            self.relu1 = qs_nn.ReLU()
            self.fc2 = qs_nn.Linear(256, 10)

        def forward(self, x):
            x = self.fc1(x)
            x = self.relu1(x)
            x = self.fc2(x)
            return x

    mod, param_spec = MLPModel().export_tvm(
        spec={"forward": {"x": qs_nn.spec.Tensor((1, 784), "float32")}})
    mod.show()
    mod = relax.get_pipeline("zero")(mod)
    target = tvm.target.Target("llvm")
    ex = relax.build(mod, target)
    device = tvm.cpu()
    vm = relax.VirtualMachine(ex, device)
    data = np.random.rand(1, 784).astype("float32")
    tvm_data = tvm.nd.array(data, device=device)
    params = [np.random.rand(*param.shape).astype("float32") for _, param in param_spec]
    params = [tvm.nd.array(param, device=device) for param in params]
    out = vm["forward"](tvm_data, *params).numpy()
    print(out)

    w1, b1, w2, b2 = (p.numpy() for p in params)
    np.testing.assert_allclose(out, np.maximum(data @ w1.T + b1, 0) @ w2.T + b2, rtol=1e-4)
    assert "R.func_attr({\"num_input\": 1})" in capsys.readouterr().out


@pytest.mark.parametrize("n", [1, 5])
def test_symbolic_batch_runs_at_any_n(n):
    vm, params = _compile("mlp_sym")
    ws = _weights(params)
    x = RNG.standard_normal((n, 784)).astype("float32")
    w1, b1, w2, b2 = ws
    np.testing.assert_allclose(_run(vm, x, *ws), np.maximum(x @ w1.T + b1, 0) @ w2.T + b2,
                               rtol=1e-4, atol=1e-3)


def _conv_ref(x, w, stride=1, pad=0):
    x = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    win = np.lib.stride_tricks.sliding_window_view(x, w.shape[2:], axis=(2, 3))
    win = win[:, :, ::stride, ::stride]
    return np.einsum("nchwij,ocij->nohw", win, w)


def _softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def test_conv_net_matches_numpy():
    vm, params = _compile("conv")
    c1w, c1b, c2w, fw, fb = ws = _weights(params)
    x = RNG.standard_normal((1, 3, 16, 16)).astype("float32")
    h = np.maximum(_conv_ref(x, c1w, pad=1) + c1b[None, :, None, None], 0)
    h = _conv_ref(h, c2w, stride=2).reshape(1, -1)
    np.testing.assert_allclose(_run(vm, x, *ws), _softmax(h @ fw.T + fb), rtol=1e-4, atol=1e-6)


def _layer_norm(x, g, b, eps=1e-5):
    mu, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * g + b


def test_text_model_matches_numpy():
    """Embedding, LayerNorm, bias-free Linear, GELU, SiLU, scalars and a tuple result."""
    vm, params = _compile("text", pipeline="default")
    emb, g, b, proj = ws = _weights(params)
    ids = np.array([3, 0, 99, 41], dtype="int32")
    h = _layer_norm(emb[ids], g, b) @ proj.T
    h = h * 0.5 * (1 + np.vectorize(math.erf)(h / math.sqrt(2)))
    h = h / (1 + np.exp(-h)) + h * 2.0 - h / 3
    got_h, got_p = _run(vm, ids, *ws)
    np.testing.assert_allclose(got_h, h, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(got_p, _softmax(h), rtol=1e-4, atol=1e-6)


def test_two_methods_share_the_parameters():
    vm, params = _compile("stack")
    w0, b0, w1, b1 = ws = _weights(params)
    x, y = (RNG.standard_normal((3, 4)).astype("float32") for _ in range(2))
    np.testing.assert_allclose(_run(vm, x, *ws), (x @ w0.T + b0) @ w1.T + b1, rtol=1e-4,
                               atol=1e-5)
    np.testing.assert_allclose(_run(vm, x, y, *ws, method="combine"), np.maximum(x + y, x * y))


def test_op_zoo_matches_numpy():
    vm, params = _compile("zoo", pipeline="default")
    (table,) = ws = _weights(params)
    x = RNG.random((2, 4)).astype("float32")
    idx = np.array([3, 1, 1], dtype="int64")
    got = _run(vm, x, idx, *ws)

    a, b = np.split(x, 2, axis=1)
    g = table[idx]
    g = 0.5 * g * (1 + np.tanh(math.sqrt(2 / math.pi) * (g + 0.044715 * g ** 3)))
    n = x @ x.T
    want = [
        np.concatenate([a, b], 0).reshape(2, -1).T,
        (_softmax(g.sum(1, keepdims=True), axis=0) + 1).astype("float16"),
        1 / (1 + np.exp(-(np.exp(n) + n))) * np.tanh(n),
        x.reshape(2, 2, 2).transpose(2, 0, 1),
        np.full((4, 3), 2.0),
        np.where(x < 0.5, x, 0),
        a,
        x.max(1),
        x.min((0, 1), keepdims=True),
        _layer_norm(x, 1, 0),
    ]
    assert len(got) == len(want)
    for i, (g_, w_) in enumerate(zip(got, want)):
        assert g_.dtype == w_.dtype or w_.dtype == np.float64, i
        np.testing.assert_allclose(g_, w_, rtol=2e-3, atol=1e-4, err_msg=f"output {i}")


def test_layer_norm_without_weights_uses_constants():
    class Norm(nn.Module):
        def __init__(self):
            self.ln = nn.LayerNorm(6, elementwise_affine=False)

        def forward(self, x):
            return self.ln(x)

    mod, params = Norm().export_tvm({"forward": {"x": nn.spec.Tensor((2, 6), "float32")}})
    assert params == []
    vm = relax.VirtualMachine(relax.build(mod, "llvm"), tvm.cpu())
    x = RNG.standard_normal((2, 6)).astype("float32")
    np.testing.assert_allclose(_run(vm, x), _layer_norm(x, 1, 0), rtol=1e-4, atol=1e-5)


def test_extern_te_and_tir_calls_run():
    """The NNModuleWithTIR of TVM's Relax Creation tutorial: nn.extern, nn.tensor_expr_op and
    nn.tensor_ir_op in one model."""
    from tvmlite import topi
    from tvmlite.script import tir as T

    @T.prim_func(s_tir=True)
    def tir_linear(x: T.handle, w: T.handle, b: T.handle, z: T.handle):
        M = T.int64()
        N = T.int64()
        K = T.int64()
        X = T.match_buffer(x, (M, K), "float32")
        W = T.match_buffer(w, (N, K), "float32")
        B = T.match_buffer(b, (N,), "float32")
        Z = T.match_buffer(z, (M, N), "float32")
        for i, j, k in T.grid(M, N, K):
            with T.sblock("linear"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Z[vi, vj] = 0
                Z[vi, vj] = Z[vi, vj] + X[vi, vk] * W[vj, vk]
        for i, j in T.grid(M, N):
            with T.sblock("add"):
                vi, vj = T.axis.remap("SS", [i, j])
                Z[vi, vj] = Z[vi, vj] + B[vj]

    class NNModuleWithTIR(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(784, 128)
            self.fc2 = nn.Linear(128, 10)

        def forward(self, x):
            n = x.shape[0]
            x = nn.extern("env.nn_test_linear", [x, self.fc1.weight, self.fc1.bias],
                          out=nn.Tensor.placeholder((n, 128), "float32"))
            x = nn.tensor_expr_op(topi.nn.relu, "relu", [x])
            x = nn.tensor_ir_op(tir_linear, "tir_linear", [x, self.fc2.weight, self.fc2.bias],
                                out=nn.Tensor.placeholder((n, 10), "float32"))
            return x

    @tvm.register_func("env.nn_test_linear", override=True)
    def _linear(x, w, b, out):
        out.copyfrom(x.numpy() @ w.numpy().T + b.numpy())

    mod, params = NNModuleWithTIR().export_tvm(
        {"forward": {"x": nn.spec.Tensor(("n", 784), "float32")}})
    text = mod.script(show_all_struct_info=False)
    assert 'env_nn_test_linear = R.call_dps_packed("env.nn_test_linear"' in text
    assert "lv = R.call_tir(cls.relu," in text and "lv1 = R.call_tir(cls.tir_linear," in text
    vm = relax.VirtualMachine(relax.build(mod, "llvm"), tvm.cpu())
    w1, b1, w2, b2 = ws = _weights(params)
    x = RNG.standard_normal((3, 784)).astype("float32")
    np.testing.assert_allclose(_run(vm, x, *ws), np.maximum(x @ w1.T + b1, 0) @ w2.T + b2,
                               rtol=1e-4, atol=1e-3)


def test_weights_from_torch_give_torch_results():
    """Parameter.data takes torch tensors (DLPack); torch's Linear/Conv2d/LayerNorm/Embedding
    weights have nn's layout, so a state_dict carries over by name."""
    torch = pytest.importorskip("torch")
    tnn = torch.nn

    class TorchText(tnn.Module):
        def __init__(self):
            super().__init__()
            self.emb = tnn.Embedding(100, 16)
            self.ln = tnn.LayerNorm(16)
            self.proj = tnn.Linear(16, 16, bias=False)

        def forward(self, ids):
            h = tnn.functional.gelu(self.proj(self.ln(self.emb(ids))))
            h = tnn.functional.silu(h) + h * 2.0 - h / 3
            return h, torch.softmax(h, -1)

    class TorchConv(tnn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = tnn.Conv2d(3, 8, 3, padding=1)
            self.conv2 = tnn.Conv2d(8, 4, 3, stride=2, bias=False)
            self.fc = tnn.Linear(4 * 7 * 7, 10)

        def forward(self, x):
            x = self.conv2(torch.relu(self.conv1(x))).reshape(1, -1)
            return torch.softmax(self.fc(x), -1)

    torch.manual_seed(0)
    cases = [("text", TorchText(), torch.tensor([5, 17, 99], dtype=torch.int32)),
             ("conv", TorchConv(), torch.randn(1, 3, 16, 16))]
    for key, tmodel, x in cases:
        cls, spec = SPECS[key]
        model = MODELS[cls]()
        model.load_state_dict({k: v.detach().contiguous() for k, v in
                               tmodel.state_dict().items()})
        mod, params = model.export_tvm(spec)
        vm = relax.VirtualMachine(relax.build(mod, "llvm"), tvm.cpu())
        out = vm["forward"](tvm.nd.array(x.numpy()), *[p.data for _, p in params])
        with torch.no_grad():
            want = tmodel(x)
        outs = out if isinstance(out, (tuple, list)) else [out]
        wants = want if isinstance(want, tuple) else [want]
        for o, w in zip(outs, wants):
            np.testing.assert_allclose(o.numpy(), w.numpy(), rtol=1e-4, atol=1e-5)
