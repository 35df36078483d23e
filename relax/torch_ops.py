"""Relax operators as PyTorch calls, for `RelaxToPyFuncConverter`: one entry per operator, the
torch function it becomes (the name `_get_op_map` reports) and how the call's attributes map
onto that function's arguments. Layouts other than PyTorch's own (NCHW, OIHW) are refused
rather than guessed."""

from __future__ import annotations

from typing import Any, Callable

Rule = Callable[..., Any]  # (torch, attrs: dict, *args) -> result


def _axes(v: Any) -> Any:
    if v is None:
        return None
    return [int(a) for a in v] if isinstance(v, (list, tuple)) else int(v)


def _reduce(name: str) -> Rule:
    def run(torch: Any, a: dict, x: Any) -> Any:
        axis, keep = _axes(a.get("axis")), bool(a.get("keepdims", False))
        fn = getattr(torch, name)
        if axis is None:
            out = fn(x)
            return out.reshape([1] * x.dim()) if keep else out
        return fn(x, dim=axis, keepdim=keep)
    return run


def _moment(correction: int, root: bool) -> Rule:
    def run(torch: Any, a: dict, x: Any) -> Any:
        axis, keep = _axes(a.get("axis")), bool(a.get("keepdims", False))
        out = torch.var(x, dim=axis, keepdim=keep, correction=correction)
        return torch.sqrt(out) if root else out
    return run


def _layout(a: dict, *keys_and_expected: tuple[str, str]) -> None:
    for key, expected in keys_and_expected:
        got = a.get(key)
        if got not in (None, expected):
            raise NotImplementedError(f"the PyTorch form takes {key}={expected!r}, got {got!r}")


def _pads(a: dict, dims: int) -> list[int]:
    """Relax's (begin..., end...) padding as torch's symmetric padding (equal sides only)."""
    pad = list(a.get("padding", (0,) * dims))
    pad = pad * (2 * dims // len(pad)) if len(pad) < 2 * dims else pad
    begin, end = pad[:dims], pad[dims:]
    if begin != end:
        raise NotImplementedError(f"asymmetric padding {pad} has no PyTorch form")
    return begin


def _conv(dims: int, transpose: bool) -> Rule:
    def run(torch: Any, a: dict, x: Any, w: Any) -> Any:
        data = "NCW NCHW NCDHW".split()[dims - 1]
        _layout(a, ("data_layout", data), ("kernel_layout", ("IOW", "IOHW", "IODHW")[dims - 1]
                                            if transpose else data.replace("N", "O")
                                            .replace("C", "I")))
        fn = getattr(torch.nn.functional, f"conv{'_transpose' if transpose else ''}{dims}d")
        kw = dict(stride=list(a.get("strides", (1,) * dims)), padding=_pads(a, dims),
                  dilation=list(a.get("dilation", (1,) * dims)), groups=int(a.get("groups", 1)))
        if transpose:
            kw["output_padding"] = list(a.get("output_padding", (0,) * dims))
        return fn(x, w, **kw)
    return run


def _pool(kind: str, dims: int) -> Rule:
    def run(torch: Any, a: dict, x: Any) -> Any:
        _layout(a, ("layout", "NCW NCHW NCDHW".split()[dims - 1]))
        fn = getattr(torch.nn.functional, f"{kind}_pool{dims}d")
        kw = dict(kernel_size=list(a["pool_size"]), stride=list(a.get("strides") or a["pool_size"]),
                  padding=_pads(a, dims), ceil_mode=bool(a.get("ceil_mode", False)))
        if kind == "max":
            kw["dilation"] = list(a.get("dilation", (1,) * dims))
        else:
            kw["count_include_pad"] = bool(a.get("count_include_pad", False))
        return fn(x, **kw)
    return run


def _adaptive(dims: int) -> Rule:
    def run(torch: Any, a: dict, x: Any) -> Any:
        size = a.get("output_size")
        size = list(x.shape[2:]) if size is None else list(size)
        return getattr(torch.nn.functional, f"adaptive_avg_pool{dims}d")(x, size)
    return run


def _norm_axes_last(a: dict, x: Any) -> list[int]:
    axes = [int(ax) % x.dim() for ax in a.get("axes", (-1,))]
    if axes != list(range(x.dim() - len(axes), x.dim())):
        raise NotImplementedError(f"normalizing over axes {axes} (not the last ones)")
    return list(x.shape[x.dim() - len(axes):])


def _layer_norm(torch: Any, a: dict, x: Any, gamma: Any, beta: Any) -> Any:
    shape = _norm_axes_last(a, x)
    return torch.nn.functional.layer_norm(x, shape, gamma, beta, float(a.get("epsilon", 1e-5)))


def _rms_norm(torch: Any, a: dict, x: Any, weight: Any) -> Any:
    shape = _norm_axes_last(a, x)
    dims = list(range(x.dim() - len(shape), x.dim()))
    scale = torch.rsqrt(torch.mean(x * x, dim=dims, keepdim=True) + float(a.get("epsilon", 1e-5)))
    return x * scale * weight


def _batch_norm(torch: Any, a: dict, x: Any, gamma: Any, beta: Any, mean: Any, var: Any) -> Any:
    if int(a.get("axis", 1)) != 1:
        raise NotImplementedError("batch_norm over an axis other than 1")
    out = torch.nn.functional.batch_norm(x, mean, var, gamma, beta, training=False,
                                         eps=float(a.get("epsilon", 1e-5)))
    return (out, mean, var)


def _group_norm(torch: Any, a: dict, x: Any, gamma: Any, beta: Any) -> Any:
    return torch.nn.functional.group_norm(x, int(a["num_groups"]), gamma, beta,
                                          float(a.get("epsilon", 1e-5)))


def _instance_norm(torch: Any, a: dict, x: Any, gamma: Any, beta: Any) -> Any:
    return torch.nn.functional.instance_norm(x, weight=gamma, bias=beta,
                                             eps=float(a.get("epsilon", 1e-5)))


def _attention(torch: Any, a: dict, q: Any, k: Any, v: Any, *bias: Any) -> Any:
    """Relax's (batch, seq, heads, dim) layout around torch's (batch, heads, seq, dim)."""
    q, k, v = (t.permute(0, 2, 1, 3) for t in (q, k, v))
    out = torch.nn.functional.scaled_dot_product_attention(
        q, k, v, attn_mask=bias[0] if bias else None, scale=a.get("scale"),
        is_causal=a.get("causal_mask") == "TopLeft")
    return out.permute(0, 2, 1, 3)


def _split(torch: Any, a: dict, x: Any) -> Any:
    axis, parts = int(a.get("axis", 0)), a["indices_or_sections"]
    if isinstance(parts, (list, tuple)):
        bounds = [0, *[int(p) for p in parts], x.shape[axis]]
        return tuple(x.narrow(axis, lo, hi - lo) for lo, hi in zip(bounds, bounds[1:]))
    return tuple(torch.chunk(x, int(parts), dim=axis))


def _strided_slice(torch: Any, a: dict, x: Any) -> Any:
    index = [slice(None)] * x.dim()
    strides = a.get("strides") or [1] * len(a["axes"])
    for ax, lo, hi, step in zip(a["axes"], a["begin"], a["end"], strides):
        index[int(ax)] = slice(int(lo), int(hi), int(step))
    return x[tuple(index)]


def _dtype(torch: Any, name: str) -> Any:
    return {"bool": torch.bool}.get(name) or getattr(torch, name)


def _pad(torch: Any, a: dict, x: Any, *_: Any) -> Any:
    widths = [int(w) for w in a["pad_width"]]  # (before, after) per axis, first axis first
    torch_pad = [w for ax in reversed(range(x.dim())) for w in widths[2 * ax:2 * ax + 2]]
    return torch.nn.functional.pad(x, torch_pad, mode=a.get("pad_mode", "constant"),
                                   value=float(a.get("pad_value", 0.0)))


def _elementwise(name: str) -> tuple[str, Rule]:
    return f"torch.{name}", lambda torch, a, *xs: getattr(torch, name)(*xs)


def _functional(name: str, **fixed: Any) -> tuple[str, Rule]:
    return f"F.{name}", lambda torch, a, *xs: getattr(torch.nn.functional, name)(*xs, **fixed)


_F = "F."
RULES: dict[str, tuple[str, Rule]] = {
    **{f"relax.{r}": _elementwise(t) for r, t in [
        ("add", "add"), ("subtract", "sub"), ("multiply", "mul"), ("divide", "div"),
        ("power", "pow"), ("maximum", "maximum"), ("minimum", "minimum"),
        ("floor_divide", "floor_divide"), ("floor_mod", "remainder"), ("mod", "fmod"),
        ("log_add_exp", "logaddexp"), ("atan2", "atan2"), ("bitwise_and", "bitwise_and"),
        ("bitwise_or", "bitwise_or"), ("bitwise_xor", "bitwise_xor"),
        ("left_shift", "bitwise_left_shift"), ("right_shift", "bitwise_right_shift"),
        ("equal", "eq"), ("not_equal", "ne"), ("greater", "gt"), ("greater_equal", "ge"),
        ("less", "lt"), ("less_equal", "le"), ("logical_and", "logical_and"),
        ("logical_or", "logical_or"), ("logical_xor", "logical_xor"),
        ("logical_not", "logical_not"), ("bitwise_not", "bitwise_not"), ("abs", "abs"),
        ("negative", "neg"), ("exp", "exp"), ("log", "log"), ("sqrt", "sqrt"),
        ("rsqrt", "rsqrt"), ("sin", "sin"), ("cos", "cos"), ("tan", "tan"), ("tanh", "tanh"),
        ("sinh", "sinh"), ("cosh", "cosh"), ("asin", "asin"), ("acos", "acos"),
        ("atan", "atan"), ("asinh", "asinh"), ("acosh", "acosh"), ("atanh", "atanh"),
        ("sigmoid", "sigmoid"), ("square", "square"), ("sign", "sign"), ("floor", "floor"),
        ("ceil", "ceil"), ("round", "round"), ("trunc", "trunc"), ("erf", "erf"),
        ("isfinite", "isfinite"), ("isinf", "isinf"), ("isnan", "isnan"),
        ("matmul", "matmul"), ("outer", "outer"), ("where", "where"),
    ]},
    "relax.clip": ("torch.clamp", lambda torch, a, x, lo, hi: torch.clamp(x, lo, hi)),
    "relax.ewise_fma": ("torch.addcmul", lambda torch, a, x, y, z: torch.addcmul(z, x, y)),
    "relax.sum": ("torch.sum", _reduce("sum")),
    "relax.mean": ("torch.mean", _reduce("mean")),
    "relax.prod": ("torch.prod", _reduce("prod")),
    "relax.max": ("torch.amax", _reduce("amax")),
    "relax.min": ("torch.amin", _reduce("amin")),
    "relax.variance": ("torch.var", _moment(0, False)),
    "relax.std": ("torch.std", _moment(0, True)),
    "relax.argmax": ("torch.argmax", lambda torch, a, x: torch.argmax(
        x, dim=_axes(a.get("axis")), keepdim=bool(a.get("keepdims", False)))),
    "relax.argmin": ("torch.argmin", lambda torch, a, x: torch.argmin(
        x, dim=_axes(a.get("axis")), keepdim=bool(a.get("keepdims", False)))),
    "relax.cumsum": ("torch.cumsum", lambda torch, a, x: torch.cumsum(
        x if a.get("axis") is not None else x.flatten(), dim=int(a.get("axis") or 0))),
    "relax.cumprod": ("torch.cumprod", lambda torch, a, x: torch.cumprod(
        x if a.get("axis") is not None else x.flatten(), dim=int(a.get("axis") or 0))),
    "relax.reshape": ("torch.reshape", lambda torch, a, x, shape: torch.reshape(x, shape)),
    "relax.permute_dims": ("torch.permute", lambda torch, a, x: torch.permute(
        x, a["axes"] if a.get("axes") is not None else list(reversed(range(x.dim()))))),
    "relax.expand_dims": ("torch.unsqueeze", lambda torch, a, x: _unsqueeze(x, a["axis"])),
    "relax.squeeze": ("torch.squeeze", lambda torch, a, x: x.squeeze() if a.get("axis") is None
                      else x.squeeze(tuple(int(ax) for ax in _listed(a["axis"])))),
    "relax.concat": ("torch.cat", lambda torch, a, xs: torch.cat(list(xs), int(a.get("axis", 0)))),
    "relax.stack": ("torch.stack", lambda torch, a, xs: torch.stack(list(xs),
                                                                    int(a.get("axis", 0)))),
    "relax.split": ("torch.split", _split),
    "relax.take": ("torch.index_select", lambda torch, a, x, i: _take(torch, a, x, i)),
    "relax.flip": ("torch.flip", lambda torch, a, x: torch.flip(x, [int(a["axis"])])),
    "relax.tile": ("torch.tile", lambda torch, a, x: torch.tile(x, tuple(a["repeats"]))),
    "relax.repeat": ("torch.repeat_interleave", lambda torch, a, x: torch.repeat_interleave(
        x if a.get("axis") is not None else x.flatten(), int(a["repeats"]),
        dim=int(a.get("axis") or 0))),
    "relax.broadcast_to": ("torch.broadcast_to",
                           lambda torch, a, x, shape: torch.broadcast_to(x, shape)),
    "relax.flatten": ("torch.flatten", lambda torch, a, x: torch.flatten(x)),
    "relax.strided_slice": ("torch.narrow", _strided_slice),
    "relax.astype": ("torch.Tensor.to", lambda torch, a, x: x.to(_dtype(torch, a["dtype"]))),
    "relax.zeros": ("torch.zeros", lambda torch, a, s: torch.zeros(s, dtype=_dtype(torch,
                                                                                 a["dtype"]))),
    "relax.ones": ("torch.ones", lambda torch, a, s: torch.ones(s, dtype=_dtype(torch,
                                                                              a["dtype"]))),
    "relax.zeros_like": ("torch.zeros_like", lambda torch, a, x: torch.zeros_like(x)),
    "relax.ones_like": ("torch.ones_like", lambda torch, a, x: torch.ones_like(x)),
    "relax.full": ("torch.full", lambda torch, a, s, v: torch.full(
        s, v.item() if hasattr(v, "item") else v, dtype=_dtype(torch, a["dtype"]))),
    "relax.tril": ("torch.tril", lambda torch, a, x, k=0: torch.tril(x, int(k))),
    "relax.triu": ("torch.triu", lambda torch, a, x, k=0: torch.triu(x, int(k))),
    "relax.nn.relu": _functional("relu"),
    "relax.nn.relu6": _functional("relu6"),
    "relax.nn.gelu": _functional("gelu"),
    "relax.nn.gelu_tanh": _functional("gelu", approximate="tanh"),
    "relax.nn.silu": _functional("silu"),
    "relax.nn.selu": _functional("selu"),
    "relax.nn.softplus": ("F.softplus", lambda torch, a, x: torch.nn.functional.softplus(
        x, beta=float(a.get("beta", 1.0)), threshold=float(a.get("threshold", 20.0)))),
    "relax.nn.leakyrelu": ("F.leaky_relu", lambda torch, a, x: torch.nn.functional.leaky_relu(
        x, float(a.get("alpha", 0.01)))),
    "relax.nn.prelu": ("F.prelu", lambda torch, a, x, alpha: torch.nn.functional.prelu(x, alpha)),
    "relax.nn.softmax": ("F.softmax", lambda torch, a, x: torch.nn.functional.softmax(
        x, dim=int(a.get("axis", -1)))),
    "relax.nn.log_softmax": ("F.log_softmax", lambda torch, a, x: torch.nn.functional
                             .log_softmax(x, dim=int(a.get("axis", -1)))),
    "relax.nn.dropout": ("F.dropout", lambda torch, a, x: (x, torch.ones_like(x))),  # inference
    "relax.nn.layer_norm": ("F.layer_norm", _layer_norm),
    "relax.nn.rms_norm": ("torch.rsqrt", _rms_norm),
    "relax.nn.batch_norm": ("F.batch_norm", _batch_norm),
    "relax.nn.group_norm": ("F.group_norm", _group_norm),
    "relax.nn.instance_norm": ("F.instance_norm", _instance_norm),
    "relax.nn.attention": ("F.scaled_dot_product_attention", _attention),
    "relax.nn.pad": ("F.pad", _pad),
    "relax.nn.pixel_shuffle": ("F.pixel_shuffle", lambda torch, a, x: torch.nn.functional
                               .pixel_shuffle(x, int(a["upscale_factor"]))),
    **{f"relax.nn.conv{d}d": (f"F.conv{d}d", _conv(d, False)) for d in (1, 2, 3)},
    **{f"relax.nn.conv{d}d_transpose": (f"F.conv_transpose{d}d", _conv(d, True))
       for d in (1, 2, 3)},
    **{f"relax.nn.{k}_pool{d}d": (f"F.{k}_pool{d}d", _pool(k, d))
       for k in ("max", "avg") for d in (1, 2, 3)},
    **{f"relax.nn.adaptive_avg_pool{d}d": (f"F.adaptive_avg_pool{d}d", _adaptive(d))
       for d in (1, 2, 3)},
}


def _listed(v: Any) -> list[Any]:
    return list(v) if isinstance(v, (list, tuple)) else [v]


def _unsqueeze(x: Any, axis: Any) -> Any:
    rank = x.dim() + len(_listed(axis))
    for ax in sorted(int(a) % rank for a in _listed(axis)):
        x = x.unsqueeze(ax)
    return x


def _take(torch: Any, a: dict, x: Any, indices: Any) -> Any:
    axis = a.get("axis")
    if axis is None:
        return x.flatten()[indices]
    return torch.index_select(x, int(axis), indices.flatten().long()).reshape(
        *x.shape[:int(axis) % x.dim()], *indices.shape, *x.shape[int(axis) % x.dim() + 1:])
