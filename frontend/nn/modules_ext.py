"""More layers, as TVM 0.27's `nn.modules` has them: 1-d / 3-d and transposed convolutions,
GroupNorm, and the diffusion models' Timesteps and TimestepEmbedding. Parameter shapes
follow TVM (and PyTorch): Conv1D weight OIW, ConvTranspose1D weight IOW, Conv3D OIDHW."""

from __future__ import annotations

from typing import Any

from ...tir import expr as tx
from . import op
from .core import Module, Parameter, Tensor
from .modules import Linear, SiLU


def _per_group(channels: Any, groups: int) -> Any:
    """channels // groups, for an int or a symbolic channel count."""
    if isinstance(channels, int):
        return channels // groups
    return tx.floordiv(channels, groups) if groups != 1 else channels


class Conv1D(Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int = 1,
                 padding: int = 0, dilation: int = 1, groups: int = 1, bias: bool = True,
                 dtype: str | None = None) -> None:
        self.in_channels, self.out_channels, self.kernel_size = in_channels, out_channels, \
            kernel_size
        self.stride, self.padding, self.dilation, self.groups = stride, padding, dilation, groups
        self.weight = Parameter((out_channels, _per_group(in_channels, groups), kernel_size),
                                dtype)
        self.bias = Parameter((out_channels,), dtype) if bias else None

    def forward(self, x: Tensor) -> Tensor:
        return op.conv1d(x, self.weight, self.bias, self.stride, self.padding, self.dilation,
                         self.groups)


class ConvTranspose1D(Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int = 1,
                 padding: int = 0, output_padding: int = 0, dilation: int = 1, groups: int = 1,
                 bias: bool = True, dtype: str | None = None) -> None:
        self.in_channels, self.out_channels, self.kernel_size = in_channels, out_channels, \
            kernel_size
        self.stride, self.padding, self.output_padding = stride, padding, output_padding
        self.dilation, self.groups = dilation, groups
        self.weight = Parameter((in_channels, _per_group(out_channels, groups), kernel_size),
                                dtype)
        self.bias = Parameter((out_channels,), dtype) if bias else None

    def forward(self, x: Tensor) -> Tensor:
        return op.conv1d_transpose(x, self.weight, self.bias, self.stride, self.padding,
                                   self.output_padding, self.dilation, self.groups)


class Conv3D(Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, dilation: int = 1, groups: int = 1, bias: bool = True,
                 dtype: str | None = None, data_layout: str = "NCDHW") -> None:
        self.in_channels, self.out_channels = in_channels, out_channels
        self.stride, self.padding, self.dilation, self.groups = stride, padding, dilation, groups
        self.data_layout = data_layout
        self.kernel_size = [kernel_size] * 3 if isinstance(kernel_size, int) else \
            list(kernel_size)
        # NOTE: TVM 0.27 keeps the full in_channels here, whatever the groups
        self.weight = Parameter([out_channels, in_channels, *self.kernel_size], dtype)
        self.bias = Parameter((out_channels,), dtype) if bias else None

    def forward(self, x: Tensor) -> Tensor:
        return op.conv3d(x, self.weight, self.bias, self.stride, self.padding, self.dilation,
                         self.groups, self.data_layout)


class GroupNorm(Module):
    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5,
                 affine: bool = True, dtype: str | None = None) -> None:
        self.num_groups, self.num_channels, self.eps = num_groups, num_channels, eps
        self.weight = Parameter((num_channels,), dtype) if affine else None
        self.bias = Parameter((num_channels,), dtype) if affine else None

    def forward(self, x: Tensor, channel_axis: int = 1, axes: list[int] | None = None
                ) -> Tensor:
        return op.group_norm(x, self.num_groups, self.weight, self.bias, self.eps, channel_axis,
                             axes)


class Timesteps(Module):
    """The sinusoidal embedding of diffusion timesteps (`op.get_timestep_embedding`)."""

    def __init__(self, num_channels: int, flip_sin_to_cos: bool = False,
                 downscale_freq_shift: float = 1) -> None:
        self.num_channels = num_channels
        self.flip_sin_to_cos = flip_sin_to_cos
        self.downscale_freq_shift = downscale_freq_shift

    def forward(self, x: Tensor) -> Tensor:
        return op.get_timestep_embedding(x, self.num_channels, self.flip_sin_to_cos,
                                         self.downscale_freq_shift)


class TimestepEmbedding(Module):
    """linear_1 -> SiLU -> linear_2 (-> SiLU), with an optional condition projection."""

    def __init__(self, in_channels: int, time_embed_dim: int, act_fn: str = "silu",
                 out_dim: int | None = None, post_act_fn: str | None = None,
                 cond_proj_dim: int | None = None) -> None:
        for what, fn in (("act_fn", act_fn), ("post_act_fn", post_act_fn)):
            if fn not in ("silu", None):
                raise ValueError(f"TimestepEmbedding: {what} {fn!r}: only 'silu' is supported")
        self.linear_1 = Linear(in_channels, time_embed_dim)
        self.cond_proj = Linear(cond_proj_dim, in_channels, bias=False) \
            if cond_proj_dim is not None else None
        self.act = SiLU()
        self.linear_2 = Linear(time_embed_dim, out_dim if out_dim is not None else time_embed_dim)
        self.post_act = SiLU() if post_act_fn is not None else None

    def forward(self, sample: Tensor, condition: Tensor | None = None) -> Tensor:
        if condition is not None:
            sample = sample + self.cond_proj(condition)
        sample = self.linear_2(self.act(self.linear_1(sample)))
        return self.post_act(sample) if self.post_act is not None else sample


class Attention(Module):
    """Diffusion models' (cross-)attention block: optional GroupNorm, q/k/v projections,
    `scaled_dot_product_attention` over `heads`, and the output projection `to_out[0]`."""

    def __init__(self, query_dim: int, cross_attention_dim: int | None = None, heads: int = 8,
                 dim_head: int = 64, bias: bool = False, norm_num_groups: int | None = None,
                 out_bias: bool = True, scale_qk: bool = True) -> None:
        from .core import ModuleList

        self.query_dim = query_dim
        self.cross_attention_dim = cross_attention_dim or query_dim
        self.heads, self.dim_head, self.bias = heads, dim_head, bias
        self.norm_num_groups, self.out_bias, self.scale_qk = norm_num_groups, out_bias, scale_qk
        self.scale = dim_head ** -0.5 if scale_qk else 1.0
        self.inner_dim = dim_head * heads
        self.to_q = Linear(query_dim, self.inner_dim, bias=bias)
        self.to_k = Linear(self.cross_attention_dim, self.inner_dim, bias=bias)
        self.to_v = Linear(self.cross_attention_dim, self.inner_dim, bias=bias)
        self.group_norm = GroupNorm(norm_num_groups, query_dim) \
            if norm_num_groups is not None else None
        self.to_out = ModuleList([Linear(self.inner_dim, query_dim, bias=out_bias)])

    def forward(self, hidden_states: Tensor, encoder_hidden_states: Tensor | None = None,
                attention_mask: Tensor | None = None, **_: Any) -> Tensor:
        if attention_mask is not None:
            raise ValueError("nn.Attention: attention_mask is not supported")
        if self.group_norm is not None:
            hidden_states = self.group_norm(hidden_states, channel_axis=2, axes=[1])
        context = hidden_states if encoder_hidden_states is None else encoder_hidden_states
        head_dim = self.inner_dim // self.heads

        def heads(t: Tensor) -> Tensor:
            return op.reshape(t, [0, -1, self.heads, head_dim])

        # NOTE: all three projections first, then the reshapes: TVM's binding order
        query, key, value = (self.to_q(hidden_states), self.to_k(context),
                             self.to_v(context))
        out = op.scaled_dot_product_attention(heads(query), heads(key), heads(value))
        return self.to_out[0](op.reshape(out, (0, -1, self.heads * head_dim)))
