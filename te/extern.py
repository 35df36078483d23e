"""`te.extern`: a tensor computed by a TIR statement the user writes over the input and output
buffers (TVM's ExternOp); create_prim_func gives it one opaque block."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from ..tir import expr as tx
from ..tir.stmt import Buffer, Stmt, make_buffer
from .tensor import Tensor, _dims


@dataclass(eq=False)
class ExternOp:
    name: str
    inputs: list[Tensor]
    input_placeholders: list[Buffer]
    output_placeholders: list[Buffer]
    body: Stmt
    tag: str = ""
    attrs: dict[str, Any] = field(default_factory=dict)


def extern(shape: Any, inputs: list[Tensor], fcompute: Callable[[list[Buffer], list[Buffer]],
                                                                 Any],
           name: str = "extern", dtype: Any = None, in_buffers: Any = None,
           out_buffers: Any = None, tag: str = "", attrs: dict[str, Any] | None = None) -> Any:
    """`te.extern(shape, [A, B], lambda ins, outs: <Stmt>)`: output(s) of `shape` (a list of
    shapes for several) computed by the statement `fcompute` returns."""
    many = bool(shape) and isinstance(shape[0], (tuple, list))
    shapes = list(shape) if many else [shape]
    dtypes = list(dtype) if isinstance(dtype, (list, tuple)) else [dtype] * len(shapes)
    dtypes = [d or (inputs[0].dtype if inputs else "float32") for d in dtypes]
    if in_buffers is not None or out_buffers is not None:
        raise NotImplementedError("te.extern: in_buffers / out_buffers (buffers bound to the "
                                  "tensors with other strides) are not supported")
    ins = [t.buffer for t in inputs]
    outs = [
        make_buffer(name if len(shapes) == 1 else f"{name}_{k}", _dims(s), str(d))
        for k, (s, d) in enumerate(zip(shapes, dtypes))]
    body = fcompute(ins, outs)
    if isinstance(body, tx.PrimExpr):  # a call such as tir.call_packed(...): evaluate it
        from ..tir.stmt import Evaluate

        body = Evaluate(body)
    if not isinstance(body, Stmt):
        raise TypeError(f"te.extern: fcompute must return a TIR statement, got "
                        f"{type(body).__name__}")
    op = ExternOp(name, list(inputs), ins, outs, body, tag, dict(attrs or {}))
    tensors = [Tensor(b, op) for b in outs]  # type: ignore[arg-type]
    return tensors if many else tensors[0]
