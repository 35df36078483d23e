"""The high-level models of the graph tests and bench/graph.py, as TVMScript text that both
tvmlite and Apache TVM parse (only the import header differs): the lecture MLP written with
R.matmul / R.add / R.nn.relu, and VGG-11 as in seed 000 (conv3x3+bias+relu, 2x2 max pools,
three dense layers, softmax)."""

from __future__ import annotations

import numpy as np

from tvmlite.testing import numpy_vgg11, vgg11_param_shapes, vgg11_source
from tvmlite.testing import vgg11_params as testing_vgg11_params

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
    """VGG-11 (batch 1, `size` x `size` input) as TVMScript text: tvmlite.testing's, the one
    definition the tests, the tutorial and every bench share."""
    return vgg11_source(1, size, classes, dense, class_name="Module")


def vgg11_params(size: int, dense: int, classes: int, rng: np.random.Generator
                 ) -> list[np.ndarray]:
    """Input and weights in parameter order."""
    data = rng.standard_normal((1, 3, size, size)).astype("float32")
    seed = int(rng.integers(1 << 31))
    return [data, *testing_vgg11_params(size, classes, dense, seed).values()]


def vgg11_numpy(arrays: list[np.ndarray]) -> np.ndarray:
    """The reference: float64 numpy (tvmlite.testing.numpy_vgg11)."""
    data, *weights = arrays
    size = data.shape[-1]
    names = vgg11_param_shapes(size, weights[-1].shape[0], weights[-4].shape[0])
    return numpy_vgg11(data, dict(zip(names, weights)))
