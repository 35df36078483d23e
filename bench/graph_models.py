"""The high-level models of the graph tests and bench/graph.py, as TVMScript text that both
tvmlite and Apache TVM parse (only the import header differs): the lecture MLP written with
R.matmul / R.add / R.nn.relu, and VGG-11 as in seed 000 (conv3x3+bias+relu, 2x2 max pools,
three dense layers, softmax)."""

from __future__ import annotations

import numpy as np

VGG11_CFG = [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"]

MLP_SRC = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 784), "float32"), w0: R.Tensor((128, 784), "float32"),
             b0: R.Tensor((128,), "float32"), w1: R.Tensor((10, 128), "float32"),
             b1: R.Tensor((10,), "float32")) -> R.Tensor((1, 10), "float32"):
        with R.dataflow():
            lv0 = R.matmul(x, R.permute_dims(w0))
            lv1 = R.add(lv0, b0)
            lv2 = R.nn.relu(lv1)
            lv3 = R.matmul(lv2, R.permute_dims(w1))
            out = R.add(lv3, b1)
            R.output(out)
        return out
'''


def mlp_params(rng: np.random.Generator) -> list[np.ndarray]:
    shapes = [(1, 784), (128, 784), (128,), (10, 128), (10,)]
    return [(rng.standard_normal(s) * 0.05).astype("float32") for s in shapes]


def vgg11_src(size: int = 224, dense: int = 4096, classes: int = 1000) -> str:
    """VGG-11 (batch 1, `size` x `size` input) as TVMScript text."""
    params, body, c, hw, k = ["data: R.Tensor((1, 3, %d, %d), \"float32\")" % (size, size)], \
        [], 3, size, 0
    cur = "data"
    for item in VGG11_CFG:
        if item == "M":
            body.append(f"p{k} = R.nn.max_pool2d({cur}, pool_size=(2, 2), strides=(2, 2))")
            cur, hw, k = f"p{k}", hw // 2, k + 1
            continue
        params += [f"w{k}: R.Tensor(({item}, {c}, 3, 3), \"float32\")",
                   f"b{k}: R.Tensor((1, {item}, 1, 1), \"float32\")"]
        body += [f"c{k} = R.nn.conv2d({cur}, w{k}, padding=(1, 1))",
                 f"a{k} = R.add(c{k}, b{k})", f"r{k} = R.nn.relu(a{k})"]
        cur, c, k = f"r{k}", item, k + 1
    flat = c * hw * hw
    body.append(f"f = R.reshape({cur}, (1, {flat}))")
    cur = "f"
    for i, (n_in, n_out) in enumerate([(flat, dense), (dense, dense), (dense, classes)]):
        params += [f"fw{i}: R.Tensor(({n_out}, {n_in}), \"float32\")",
                   f"fb{i}: R.Tensor(({n_out},), \"float32\")"]
        body += [f"d{i} = R.matmul({cur}, R.permute_dims(fw{i}))", f"e{i} = R.add(d{i}, fb{i})"]
        cur = f"e{i}"
        if i < 2:
            body += [f"q{i} = R.nn.relu({cur})"]
            cur = f"q{i}"
    body += [f"out = R.nn.softmax({cur}, axis=-1)", "R.output(out)"]
    sig = ",\n             ".join(params)
    lines = "\n            ".join(body)
    return f'''
@I.ir_module
class Module:
    @R.function
    def main({sig}):
        with R.dataflow():
            {lines}
        return out
'''


def vgg11_params(size: int, dense: int, classes: int, rng: np.random.Generator
                 ) -> list[np.ndarray]:
    """Input and weights in parameter order, scaled (He init) so activations stay O(1)."""
    arrays = [rng.standard_normal((1, 3, size, size)).astype("float32")]
    c, hw = 3, size
    for item in VGG11_CFG:
        if item == "M":
            hw //= 2
            continue
        arrays.append((rng.standard_normal((item, c, 3, 3)) * np.sqrt(2 / (9 * c)))
                      .astype("float32"))
        arrays.append((rng.standard_normal((1, item, 1, 1)) * 0.01).astype("float32"))
        c = item
    n_in = c * hw * hw
    for n_out in (dense, dense, classes):
        arrays.append((rng.standard_normal((n_out, n_in)) * np.sqrt(2 / n_in)).astype("float32"))
        arrays.append((rng.standard_normal((n_out,)) * 0.01).astype("float32"))
        n_in = n_out
    return arrays


def vgg11_numpy(arrays: list[np.ndarray]) -> np.ndarray:
    """The reference: float64 numpy with im2col convolutions."""
    x, rest = arrays[0].astype("float64"), list(arrays[1:])
    for item in VGG11_CFG:
        if item == "M":
            n, c, h, w = x.shape
            x = x[:, :, :h // 2 * 2, :w // 2 * 2].reshape(n, c, h // 2, 2, w // 2, 2).max((3, 5))
            continue
        w, b = rest.pop(0), rest.pop(0)
        x = np.maximum(_conv3x3(x, w) + b, 0)
    x = x.reshape(1, -1)
    for i in range(3):
        w, b = rest.pop(0), rest.pop(0)
        x = x @ w.T.astype("float64") + b
        if i < 2:
            x = np.maximum(x, 0)
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _conv3x3(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    n, c, h, wd = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    cols = np.stack([xp[:, :, i:i + h, j:j + wd] for i in range(3) for j in range(3)], 2)
    wm = w.reshape(w.shape[0], c, 9).astype("float64")
    return np.einsum("nckhw,ock->nohw", cols, wm)
