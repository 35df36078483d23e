"""Converters of elementwise, shape and reduction ONNX ops."""

from __future__ import annotations

from typing import Any



from .common import axes_of, constant, dtype_of, make, ndim, static_value
from .registry import converts

_UNARY = {"Relu": "nn.relu", "Sigmoid": "sigmoid", "Tanh": "tanh", "Sqrt": "sqrt", "Exp": "exp",
          "Log": "log", "Erf": "erf", "Not": "logical_not", "Neg": "negative", "Abs": "abs",
          "Floor": "floor", "Ceil": "ceil"}
for _onnx, _op in _UNARY.items():
    converts(_onnx)(lambda node, ins, attrs, imp, op=_op: make(op, ins[0]))

_BINARY = {"Add": "add", "Sub": "subtract", "Mul": "multiply", "Div": "divide", "Pow": "power",
           "Equal": "equal", "Less": "less", "Greater": "greater", "And": "logical_and",
           "Or": "logical_or", "Max": "maximum", "Min": "minimum"}
for _onnx, _op in _BINARY.items():
    converts(_onnx)(lambda node, ins, attrs, imp, op=_op: make(op, ins[0], ins[1]))


@converts("Identity", "Dropout")
def _identity(node: Any, ins: list, attrs: dict, imp: Any) -> Any:
    return ins[0]


@converts("Constant")
def _constant(node: Any, ins: list, attrs: dict, imp: Any) -> Any:
    from onnx import numpy_helper

    if "value" in attrs:
        return constant(numpy_helper.to_array(attrs["value"]))
    for key, dtype in (("value_float", "float32"), ("value_int", "int64"),
                       ("value_floats", "float32"), ("value_ints", "int64")):
        if key in attrs:
            return constant(attrs[key], dtype)
    raise NotImplementedError(f"from_onnx: Constant with attributes {sorted(attrs)}")


@converts("Cast")
def _cast(node: Any, ins: list, attrs: dict, imp: Any) -> Any:
    from onnx import helper

    return make("astype", ins[0], str(helper.tensor_dtype_to_np_dtype(attrs["to"])))


@converts("Where")
def _where(node: Any, ins: list, attrs: dict, imp: Any) -> Any:
    return make("where", ins[0], ins[1], ins[2])


@converts("Clip")
def _clip(node: Any, ins: list, attrs: dict, imp: Any) -> Any:
    x = ins[0]
    lo = ins[1] if len(ins) > 1 and ins[1] is not None else attrs.get("min")
    hi = ins[2] if len(ins) > 2 and ins[2] is not None else attrs.get("max")
    dtype = dtype_of(x)
    if lo is not None:
        x = imp.emit(make("maximum", x, lo if not isinstance(lo, float) else
                          constant(lo, dtype)))
    if hi is not None:
        x = imp.emit(make("minimum", x, hi if not isinstance(hi, float) else
                          constant(hi, dtype)))
    return x


@converts("Softmax", "LogSoftmax")
def _softmax(node: Any, ins: list, attrs: dict, imp: Any) -> Any:
    op = "nn.softmax" if node.op_type == "Softmax" else "nn.log_softmax"
    axis = attrs.get("axis", -1 if imp.opset >= 13 else 1)
    shape = list(ins[0].struct_info.shape)
    if imp.opset < 13 and axis % len(shape) != len(shape) - 1:  # old: softmax of a 2-d view
        flat = imp.emit(make("reshape", ins[0], [*shape[:axis % len(shape)], -1]))
        return make("reshape", imp.emit(make(op, flat, axis=-1)), shape)
    return make(op, ins[0], axis=axis)


@converts("MatMul")
def _matmul(node: Any, ins: list, attrs: dict, imp: Any) -> Any:
    return make("matmul", ins[0], ins[1])


@converts("Gemm")
def _gemm(node: Any, ins: list, attrs: dict, imp: Any) -> Any:
    a, b = ins[0], ins[1]
    if attrs.get("transA", 0):
        a = imp.emit(make("permute_dims", a, [1, 0]))
    if attrs.get("transB", 0):
        b = imp.emit(make("permute_dims", b, [1, 0]))
    y = imp.emit(make("matmul", a, b))
    dtype = dtype_of(y)
    if attrs.get("alpha", 1.0) != 1.0:
        y = imp.emit(make("multiply", y, constant(attrs["alpha"], dtype)))
    if len(ins) > 2 and ins[2] is not None:
        c = ins[2]
        if attrs.get("beta", 1.0) != 1.0:
            c = imp.emit(make("multiply", c, constant(attrs["beta"], dtype)))
        y = make("add", y, c)
    return y


@converts("Flatten")
def _flatten(node: Any, ins: list, attrs: dict, imp: Any) -> Any:
    shape = list(ins[0].struct_info.shape)
    axis = attrs.get("axis", 1) % (len(shape) or 1)
    return make("reshape", ins[0], [_product(shape[:axis]), _product(shape[axis:])])


def _product(dims: list) -> Any:
    """The product of dims, symbolic ones included (1 for none)."""
    out: Any = 1
    for d in dims:
        out = d if isinstance(out, int) and out == 1 else out * d
    return out


@converts("Reshape")
def _reshape(node: Any, ins: list, attrs: dict, imp: Any) -> Any:
    target = [int(v) for v in static_value(ins[1], "Reshape's shape")]
    shape = list(ins[0].struct_info.shape)
    if not attrs.get("allowzero", 0):  # 0 copies the input's dim
        target = [shape[i] if v == 0 else v for i, v in enumerate(target)]
    return make("reshape", ins[0], target)


@converts("Transpose")
def _transpose(node: Any, ins: list, attrs: dict, imp: Any) -> Any:
    perm = attrs.get("perm")
    return make("permute_dims", ins[0], list(perm) if perm is not None else None)


@converts("Concat")
def _concat(node: Any, ins: list, attrs: dict, imp: Any) -> Any:

    return make("concat", [i for i in ins if i is not None], axis=attrs["axis"])


@converts("Unsqueeze")
def _unsqueeze(node: Any, ins: list, attrs: dict, imp: Any) -> Any:
    axes = axes_of(ins, attrs, 1, 13, imp)
    out_rank = ndim(ins[0]) + len(axes)
    x = ins[0]
    for a in sorted(a % out_rank for a in axes):
        x = imp.emit(make("expand_dims", x, a))
    return x


@converts("Squeeze")
def _squeeze(node: Any, ins: list, attrs: dict, imp: Any) -> Any:
    axes = axes_of(ins, attrs, 1, 13, imp)
    return make("squeeze", ins[0], axes)


def _reduce(op: str) -> Any:
    def convert(node: Any, ins: list, attrs: dict, imp: Any) -> Any:
        axes = axes_of(ins, attrs, 1, 18 if op != "sum" else 13, imp)
        if not axes and attrs.get("noop_with_empty_axes", 0):
            return ins[0]
        return make(op, ins[0], axes or None, keepdims=bool(attrs.get("keepdims", 1)))
    return convert


converts("ReduceMean")(_reduce("mean"))
converts("ReduceSum")(_reduce("sum"))
converts("ReduceMax")(_reduce("max"))
converts("ReduceMin")(_reduce("min"))
