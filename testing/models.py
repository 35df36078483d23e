"""Model workloads for tests, tutorials and benchmarks (`tvm.testing.vgg11`, ...).

`vgg11(...)` writes VGG-11 (the network of seed 000's BYOC demo) as TVMScript text with
high-level Relax operators, parses it, and returns the module with random weights. Dropout is
left out: at inference it is the identity.
"""

from __future__ import annotations

from typing import Any

import numpy as np

VGG11_LAYERS = [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"]


def vgg11_source(batch: int = 1, image_size: int = 224, num_classes: int = 1000,
                 hidden: int = 4096, class_name: str = "VGG11") -> str:
    """TVMScript for VGG-11: conv3x3+bias+relu blocks, max pools, three dense layers, softmax."""
    params = [f"data: R.Tensor(({batch}, 3, {image_size}, {image_size}), \"float32\")"]
    lines, x, channels, size, conv = [], "data", 3, image_size, 0
    for layer in VGG11_LAYERS:
        if layer == "M":
            lines.append(f"{x}_p = R.nn.max_pool2d({x}, pool_size=(2, 2), strides=(2, 2))")
            x, size = f"{x}_p", size // 2
            continue
        conv += 1
        w, b = f"conv{conv}_weight", f"conv{conv}_bias"
        params += [f"{w}: R.Tensor(({layer}, {channels}, 3, 3), \"float32\")",
                   f"{b}: R.Tensor((1, {layer}, 1, 1), \"float32\")"]
        lines += [f"c{conv} = R.nn.conv2d({x}, {w}, padding=(1, 1))",
                  f"c{conv}_b = R.add(c{conv}, {b})",
                  f"c{conv}_r = R.nn.relu(c{conv}_b)"]
        x, channels = f"c{conv}_r", layer
    features = channels * size * size
    lines.append(f"flat = R.reshape({x}, ({batch}, {features}))")
    x, width = "flat", features
    for i, units in enumerate([hidden, hidden, num_classes], start=1):
        params += [f"fc{i}_weight: R.Tensor(({units}, {width}), \"float32\")",
                   f"fc{i}_bias: R.Tensor(({units},), \"float32\")"]
        lines += [f"fc{i}_t = R.permute_dims(fc{i}_weight)",
                  f"fc{i} = R.matmul({x}, fc{i}_t)",
                  f"fc{i}_b = R.add(fc{i}, fc{i}_bias)"]
        x, width = f"fc{i}_b", units
        if i < 3:
            lines.append(f"fc{i}_r = R.nn.relu({x})")
            x = f"fc{i}_r"
    lines += [f"prob = R.nn.softmax({x}, axis=-1)", "R.output(prob)"]
    body = "\n".join(" " * 12 + line for line in lines)
    signature = (",\n" + " " * 13).join(params)
    return (f"@I.ir_module\nclass {class_name}:\n    @R.function\n    def main({signature}):\n"
            f"        with R.dataflow():\n{body}\n        return prob\n")


def vgg11_param_shapes(image_size: int = 224, num_classes: int = 1000, hidden: int = 4096
                       ) -> dict[str, tuple[int, ...]]:
    """The weights' names and shapes, in `main`'s parameter order (after `data`)."""
    shapes: dict[str, tuple[int, ...]] = {}
    channels, size, conv = 3, image_size, 0
    for layer in VGG11_LAYERS:
        if layer == "M":
            size //= 2
            continue
        conv += 1
        shapes[f"conv{conv}_weight"] = (int(layer), channels, 3, 3)
        shapes[f"conv{conv}_bias"] = (1, int(layer), 1, 1)
        channels = int(layer)
    width = channels * size * size
    for i, units in enumerate([hidden, hidden, num_classes], start=1):
        shapes[f"fc{i}_weight"], shapes[f"fc{i}_bias"] = (units, width), (units,)
        width = units
    return shapes


def vgg11_params(image_size: int = 224, num_classes: int = 1000, hidden: int = 4096,
                 seed: int = 0) -> dict[str, np.ndarray]:
    """Random float32 weights, He-scaled so activations stay O(1) through the network."""
    rng = np.random.default_rng(seed)
    params = {}
    for name, shape in vgg11_param_shapes(image_size, num_classes, hidden).items():
        fan_in = int(np.prod(shape[1:])) if "weight" in name else 1
        scale = np.sqrt(2.0 / fan_in) if "weight" in name else 0.01
        params[name] = (rng.standard_normal(shape) * scale).astype("float32")
    return params


def vgg11(batch: int = 1, image_size: int = 224, num_classes: int = 1000, hidden: int = 4096,
          seed: int = 0) -> tuple[Any, dict[str, np.ndarray]]:
    """(IRModule, {param name: random float32 weights}) for VGG-11 at this input size."""
    from ..script import from_source

    mod = from_source(vgg11_source(batch, image_size, num_classes, hidden))
    return mod, vgg11_params(image_size, num_classes, hidden, seed)


def numpy_vgg11(data: np.ndarray, params: dict[str, np.ndarray], dtype: str = "float64"
                ) -> np.ndarray:
    """The same network in plain numpy (float64 by default), the reference for tests."""
    from ..backend.numpy_eval import conv2d_im2col

    x, conv = data.astype(dtype), 0
    for layer in VGG11_LAYERS:
        if layer == "M":
            n, c, h, w = x.shape
            x = x.reshape(n, c, h // 2, 2, w // 2, 2).max(axis=(3, 5))
            continue
        conv += 1
        w = params[f"conv{conv}_weight"].astype(dtype)
        x = np.maximum(conv2d_im2col(x, w, (1, 1), (1, 1, 1, 1)) + params[f"conv{conv}_bias"], 0)
    x = x.reshape(x.shape[0], -1)
    for i in (1, 2, 3):
        x = x @ params[f"fc{i}_weight"].T.astype(dtype) + params[f"fc{i}_bias"]
        if i < 3:
            x = np.maximum(x, 0)
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True)).astype("float32")
