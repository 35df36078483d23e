"""`PrimFunc.ty`: the type TVM 0.27 infers for a prim_func, as the graph IR sees a callee.

Scalar params are `PrimType`s, buffer params `TensorType`s of the buffer's shape and dtype; the
result is `PrimType(ret)` or the empty tuple; the function is pure unless it writes into a
buffer it received (writes into its own allocations are not visible to callers).
"""

from __future__ import annotations

from typing import Any

from .expr import IntImm
from .functor import Visitor
from .stmt import BufferStore


def inferred_type(func: Any) -> Any:
    from ..ir import struct_info as si  # the graph IR's types live above tir

    params = []
    for p in func.params:
        buf = func.buffer_of(p)
        params.append(si.TensorStructInfo(_graph_dims(buf.shape), buf.dtype) if buf is not None
                      else si.PrimStructInfo(p.dtype))
    ret = si.PrimStructInfo(func.ret_dtype) if func.ret_dtype != "void" \
        else si.TupleStructInfo(())
    return si.FuncStructInfo(tuple(params), ret, purity=not _writes_params(func))


def _graph_dims(shape: Any) -> tuple[Any, ...]:
    """A buffer's dims as the graph IR's: constant dims are int64 there (an int32 literal
    dim of a TVMScript buffer included)."""
    return tuple(IntImm("int64", d.value) if isinstance(d, IntImm) else d for d in shape)


def _writes_params(func: Any) -> bool:
    """Whether the body stores into memory of a buffer parameter."""
    param_data = {id(buf.data) for _, buf in func.buffer_map if buf.data is not None}
    param_data |= {id(p) for p in func.params if p.dtype == "handle"}
    found = [False]

    class _Stores(Visitor):
        def visit_BufferStore(self, s: BufferStore) -> None:
            if id(s.buffer.data) in param_data:
                found[0] = True
            self.generic_visit(s)

    _Stores().visit(func.body)
    return found[0]
