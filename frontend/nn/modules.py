"""The layers: `Linear`, `Conv2D`, `LayerNorm`, `Embedding` and the activations.

Parameter names and shapes follow TVM (and PyTorch): `Linear.weight` is (out, in) and is
transposed in the graph, `Conv2D.weight` is OIHW.
"""

from __future__ import annotations

from typing import Any, Sequence

from . import op
from .core import Module, Parameter, Tensor
from .exporter import current


class ReLU(Module):
    def forward(self, x: Tensor) -> Tensor:
        return op.relu(x)


class SiLU(Module):
    def forward(self, x: Tensor) -> Tensor:
        return op.silu(x)


class GELU(Module):
    def forward(self, x: Tensor) -> Tensor:
        return op.gelu(x)


class Identity(Module):
    def forward(self, x: Tensor) -> Tensor:
        return x


def _check_last_dim(layer: Module, x: Tensor, want: Any, what: str) -> None:
    """Say which layer got a wrong input, before the operator's own shape error would."""
    got = x.shape[-1] if x.ndim > 0 else None
    if isinstance(got, int) and isinstance(want, int) and got != want:
        name = current().path_of(layer)
        raise ValueError(f"{name} ({layer!r}) expects {what} {want} in the last dimension of "
                         f"its input, got an input of shape {tuple(x.shape)}")


class Linear(Module):
    """`y = x @ weight.T + bias`; weight (out_features, in_features)."""

    def __init__(self, in_features: Any, out_features: Any, bias: bool = True,
                 dtype: str | None = None, out_dtype: str | None = None) -> None:
        self.in_features = in_features
        self.out_features = out_features
        self.out_dtype = out_dtype
        self.weight = Parameter((out_features, in_features), dtype)
        # NOTE: with out_dtype the matmul accumulates in out_dtype, so the bias is stored in it
        self.bias = Parameter((out_features,), out_dtype or dtype) if bias else None

    def forward(self, x: Tensor) -> Tensor:
        _check_last_dim(self, x, self.in_features, "in_features =")
        y = op.matmul(x, op.permute_dims(self.weight), out_dtype=self.out_dtype)
        return y + self.bias if self.bias is not None else y

    def to(self, dtype: str | None = None) -> Module:
        self.weight.to(dtype)
        if self.bias is not None and self.out_dtype is None:  # the bias stays in out_dtype
            self.bias.to(dtype)
        return self

    def __repr__(self) -> str:
        return f"Linear({self.in_features}, {self.out_features})"


def _pair(v: Any) -> tuple[int, int]:
    return (v, v) if isinstance(v, int) else tuple(v)  # type: ignore[return-value]


class Conv2D(Module):
    """2-d convolution over NCHW input; weight (out_channels, in_channels // groups, kh, kw)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int | Sequence[int],
                 stride: Any = 1, padding: Any = 0, dilation: Any = 1, groups: int = 1,
                 bias: bool = True, dtype: str | None = None, data_layout: str = "NCHW") -> None:
        if isinstance(in_channels, int) and in_channels % groups:
            raise ValueError(f"Conv2D: in_channels ({in_channels}) must be divisible by groups "
                             f"({groups})")
        if data_layout != "NCHW":
            raise ValueError(f"Conv2D: tvmlite supports data_layout NCHW only, got "
                             f"{data_layout!r}")
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size = _pair(kernel_size)
        self.stride, self.padding, self.dilation, self.groups = stride, padding, dilation, groups
        self.data_layout = data_layout
        per_group = in_channels // groups if isinstance(in_channels, int) or groups != 1 else \
            in_channels  # NOTE: a symbolic in_channels (a tir.Var) stays the var itself
        self.weight = Parameter((out_channels, per_group, *self.kernel_size), dtype)
        self.bias = Parameter((out_channels,), dtype) if bias else None

    def forward(self, x: Tensor) -> Tensor:
        if x.ndim == 4 and isinstance(x.shape[1], int) and x.shape[1] != self.in_channels:
            raise ValueError(f"{current().path_of(self)} ({self!r}) expects {self.in_channels} "
                             f"input channels (NCHW), got an input of shape {tuple(x.shape)}")
        return op.conv2d(x, self.weight, self.bias, self.stride, self.padding, self.dilation,
                         self.groups, self.data_layout)

    def __repr__(self) -> str:
        return f"Conv2D({self.in_channels}, {self.out_channels}, {self.kernel_size})"


class LayerNorm(Module):
    """Normalize over the last dimension; `weight` and `bias` of shape (normalized_shape,)."""

    def __init__(self, normalized_shape: int, eps: float = 1e-5,
                 elementwise_affine: bool = True, dtype: str | None = None) -> None:
        self.normalized_shape = normalized_shape
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        self.weight = Parameter((normalized_shape,), dtype) if elementwise_affine else None
        self.bias = Parameter((normalized_shape,), dtype) if elementwise_affine else None

    def forward(self, x: Tensor) -> Tensor:
        _check_last_dim(self, x, self.normalized_shape, "normalized_shape =")
        return op.layer_norm(x, [self.normalized_shape], self.weight, self.bias, self.eps)

    def __repr__(self) -> str:
        return f"LayerNorm({self.normalized_shape})"


class RMSNorm(Module):
    """Root-mean-square normalization over `axes` with a learned `weight` (TVM's nn.RMSNorm)."""

    def __init__(self, hidden_size: int, axes: int | list[int] = -1, epsilon: float = 1e-5,
                 bias: bool = False, dtype: str | None = None) -> None:
        if bias:
            raise NotImplementedError("RMSNorm(bias=True) is not supported by tvmlite")
        self.hidden_size, self.axes, self.epsilon = hidden_size, axes, epsilon
        self.weight = Parameter((hidden_size,), dtype)

    def forward(self, x: Tensor) -> Tensor:
        _check_last_dim(self, x, self.hidden_size, "hidden_size =")
        return op.rms_norm(x, self.weight, self.axes, self.epsilon)

    def __repr__(self) -> str:
        return f"RMSNorm({self.hidden_size})"


class Embedding(Module):
    """Rows of `weight` (num, dim) picked by integer indices of any rank."""

    def __init__(self, num: int, dim: int, dtype: str | None = None) -> None:
        self.num, self.dim = num, dim
        self.weight = Parameter((num, dim), dtype)

    def forward(self, x: Tensor) -> Tensor:
        if x.ndim == 1:
            return op.take(self.weight, x, axis=0)
        # NOTE: TVM flattens the indices, takes rows, and restores the index shape
        rows = op.take(self.weight, op.reshape(x, [-1]), axis=0)
        return op.reshape(rows, [*x.shape, self.dim])

    def __repr__(self) -> str:
        return f"Embedding({self.num}, {self.dim})"


from .kv_cache import KVCache  # noqa: E402,F401 (TVM's nn.modules.KVCache)
from .modules_ext import (  # noqa: E402 (TVM keeps every layer in nn.modules)
    Attention, Conv1D, Conv3D, ConvTranspose1D, GroupNorm, TimestepEmbedding, Timesteps,
)

__all__ = ["ReLU", "SiLU", "GELU", "Identity", "Linear", "Conv2D", "LayerNorm", "RMSNorm",
           "Embedding", "Conv1D", "Conv3D", "ConvTranspose1D", "GroupNorm", "TimestepEmbedding",
           "Timesteps", "KVCache", "Attention"]
