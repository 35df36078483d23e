"""`te.extern`: a tensor computed by a TIR statement the user writes over the input and output
buffers (TVM's ExternOp); create_prim_func gives it one opaque block."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from ..tir import expr as tx
from ..tir.stmt import Buffer, Stmt, make_buffer
from .tensor import Operation, Tensor, _dims


@dataclass(eq=False)
class ExternOp(Operation):
    name: str
    inputs: list[Tensor]
    input_placeholders: list[Buffer]
    output_placeholders: list[Buffer]
    body: Stmt
    tag: str = ""
    attrs: dict[str, Any] = field(default_factory=dict)
    tensors: list[Tensor] = field(default_factory=list)  # its outputs

    def results(self) -> list[Tensor]:
        return self.tensors

    @property
    def input_tensors(self) -> list[Tensor]:
        return self.inputs


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
    op.tensors = [Tensor(b, op, k) for k, b in enumerate(outs)]
    return list(op.tensors) if many else op.tensors[0]


def extern_primfunc(input_tensors: list[Tensor], primfunc: Any, **kwargs: Any) -> Any:
    """`te.extern_primfunc([A, B], func)`: the outputs of a TIR PrimFunc (its buffer
    parameters after the inputs) as te tensors; the function's body runs over the tensors'
    buffers. One output gives a Tensor, several a list."""
    from ..tir.functor import Mutator

    params = [buf for _, buf in primfunc.buffer_map]
    if len(params) <= len(input_tensors):
        raise ValueError(f"te.extern_primfunc: the PrimFunc has {len(params)} buffer "
                         f"parameters, so no outputs after {len(input_tensors)} inputs")
    outputs = params[len(input_tensors):]

    class _Rebind(Mutator):
        def __init__(self, mapping: dict[Buffer, Buffer]) -> None:
            self.mapping = mapping

        def visit_buffer(self, buf: Buffer) -> Buffer:  # type: ignore[override]
            return self.mapping.get(buf, buf)

    def body(ins: list[Buffer], outs: list[Buffer]) -> Stmt:
        return _Rebind(dict(zip(params, [*ins, *outs]))).visit(primfunc.body)

    name = str(dict(primfunc.attrs).get("global_symbol", kwargs.pop("name", "extern_primfunc")))
    shapes = [tuple(b.shape) for b in outputs]
    return extern(shapes if len(outputs) > 1 else shapes[0], input_tensors, body, name=name,
                  dtype=[b.dtype for b in outputs] if len(outputs) > 1 else outputs[0].dtype,
                  **kwargs)
