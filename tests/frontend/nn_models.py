"""Models written against the `nn` API, shared by the frontend tests.

The same code runs on Apache TVM 0.27 (`build_models(tvm.relax.frontend.nn)`) and on tvmlite:
`tvm027_nn_export.txt` holds what TVM 0.27 printed (`mod.script()`) for each entry of
`specs(nn)`, one `===== <key>` section each. To regenerate it, run under TVM:

    for key, (cls, spec) in specs(nn).items():
        mod, _ = build_models(nn)[cls]().export_tvm(spec)
        print(f"===== {key}"); print(mod.script())
"""


def build_models(nn):
    op = nn.op

    class MLPModel(nn.Module):  # the Quick Start's model, verbatim
        def __init__(self):
            super(MLPModel, self).__init__()
            self.fc1 = nn.Linear(784, 256)
            self.relu1 = nn.ReLU()
            self.fc2 = nn.Linear(256, 10)

        def forward(self, x):
            x = self.fc1(x)
            x = self.relu1(x)
            x = self.fc2(x)
            return x

    class ConvNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2D(3, 8, 3, padding=1)
            self.conv2 = nn.Conv2D(8, 4, 3, stride=2, bias=False)
            self.fc = nn.Linear(4 * 7 * 7, 10)

        def forward(self, x):
            x = op.relu(self.conv1(x))
            x = self.conv2(x)
            x = op.reshape(x, (1, -1))
            return op.softmax(self.fc(x), axis=-1)

    class TextModel(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(100, 16)
            self.ln = nn.LayerNorm(16)
            self.proj = nn.Linear(16, 16, bias=False)
            self.act = nn.GELU()
            self.silu = nn.SiLU()

        def forward(self, ids):
            h = self.ln(self.emb(ids))
            h = self.act(self.proj(h))
            h = self.silu(h) + h * 2.0 - h / 3
            return h, op.softmax(h, axis=-1)

    class Stack(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleList([nn.Linear(4, 4), nn.Linear(4, 2)])

        def forward(self, x):
            for layer in self.layers:
                x = layer(x)
            return x

        def combine(self, x, y):
            return op.maximum(x + y, x * y)

    class OpZoo(nn.Module):
        def __init__(self):
            super().__init__()
            self.table = nn.Parameter((4, 6))

        def forward(self, x, idx):
            a, b = op.split(x, 2, axis=1)
            c = op.reshape(op.concat([a, b], dim=0), (2, -1))
            e = op.permute_dims(c)
            g = op.gelu(op.take(self.table, idx, axis=0), approximate="tanh")
            h = op.squeeze(op.unsqueeze(op.sum(g, axis=1, keepdims=True), 0), 0)
            k = op.astype(op.softmax(h, axis=0) + 1, "float16")
            n = op.matmul(x, op.permute_dims(x, [1, 0]))
            s = op.sigmoid(op.exp(n) - op.negative(n)) * op.tanh(n)
            t = x.reshape(2, 2, 2).permute_dims(2, 0, 1)
            w = op.broadcast_to(op.ones((1, 3)), (4, 3)) + op.full((4, 3), 1.0)
            z = op.where(x < 0.5, x, op.zeros((2, 4)))
            p, _ = op.chunk(x, 2, dim=1)
            ln = op.layer_norm(op.sqrt(op.square(x)), 4, op.ones((4,)), op.zeros((4,)))
            return (e, k, s, t, w, z, p, op.max(x, axis=1),
                    op.min(x, axis=[0, 1], keepdims=True), ln)

    return {"MLPModel": MLPModel, "ConvNet": ConvNet, "TextModel": TextModel, "Stack": Stack,
            "OpZoo": OpZoo}


def specs(nn):
    """key -> (model class name, export spec)."""
    T = nn.spec.Tensor
    return {
        "mlp": ("MLPModel", {"forward": {"x": T((1, 784), "float32")}}),
        "mlp_sym": ("MLPModel", {"forward": {"x": T(("n", 784), "float32")}}),
        "conv": ("ConvNet", {"forward": {"x": T((1, 3, 16, 16), "float32")}}),
        "text": ("TextModel", {"forward": {"ids": T(("n",), "int32")}}),
        "stack": ("Stack", {"forward": {"x": T(("n", 4), "float32")},
                            "combine": {"x": T(("n", 4), "float32"),
                                        "y": T(("n", 4), "float32")}}),
        "zoo": ("OpZoo", {"forward": {"x": T((2, 4), "float32"), "idx": T((3,), "int64")}}),
    }
