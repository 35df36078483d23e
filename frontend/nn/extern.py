"""`nn.extern`, `nn.tensor_expr_op`, `nn.tensor_ir_op`: calls of code beyond the relax ops.

`extern` calls a registered function, `tensor_expr_op` a tensor expression (made into a
prim_func), `tensor_ir_op` a TIR prim_func.

`out` is an `nn.Tensor.placeholder(shape, dtype)` (or a tuple of them): only its shape and
dtype matter, they are the call's destination.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from ...ir import expr as rx
from ...ir import struct_info as si
from ...ir.op import CALL_DPS_PACKED, CALL_TIR
from ...ir.ops.base import as_expr, shape_expr
from ...tir import expr as tx
from ...tir.function import PrimFunc
from .core import Tensor
from .exporter import current

_OPAQUE_FUNC = si.FuncStructInfo(None, si.ObjectStructInfo())


def _out_sinfo(out: Any, where: str) -> si.StructInfo:
    if isinstance(out, (tuple, list)) and len(out) == 1:
        out = out[0]  # as TVM: a one-item list is that tensor
    if isinstance(out, Tensor):
        return out._expr.struct_info  # type: ignore[return-value]
    if isinstance(out, (tuple, list)) and out and all(isinstance(o, Tensor) for o in out):
        return si.TupleStructInfo(tuple(o._expr.struct_info for o in out))
    raise TypeError(f"{where}: out is nn.Tensor.placeholder(shape, dtype) or a tuple of them, "
                    f"got {out!r}")


def _args_tuple(args: Sequence[Any]) -> rx.Tuple:
    from .op import _x

    fields = tuple(as_expr(_x(a)) for a in args)
    return rx.Tuple(fields, si.TupleStructInfo(tuple(f.struct_info for f in fields)))


def extern(name: str, args: Sequence[Any], out: Any) -> Any:
    """Call the registered function `name` (destination-passing: it fills `out`)."""
    sinfo = _out_sinfo(out, f"nn.extern({name!r})")
    call = rx.Call(CALL_DPS_PACKED, (rx.ExternFunc(name), _args_tuple(args)),
                   sinfo_args=(sinfo,), struct_info=sinfo)
    return current().wrap(call, name)


def tensor_expr_op(tensor_expr_func: Callable[..., Any], name_hint: str, args: Sequence[Any],
                   *, attrs: dict[str, Any] | None = None) -> Any:
    """Call the prim_func `te.create_prim_func` makes from `tensor_expr_func(*args)`.

    `attrs` (TVM puts them on the prim_func) are not supported: anything but None is refused.
    """
    if attrs:
        raise NotImplementedError(f"nn.tensor_expr_op({name_hint!r}): attrs are not supported "
                                  f"by tvmlite, got {attrs}")
    from .op import _x

    exporter = current()
    call = exporter.builder.call_te(tensor_expr_func, *(_x(a) for a in args),
                                    primfunc_name_hint=name_hint)
    return exporter.wrap(call, "lv")


def tensor_ir_op(func: PrimFunc, name_hint: str, args: Any, out: Any) -> Any:
    """Call the prim_func `func` (added to the module as `name_hint`) on `args`; symbolic
    integers among the args are passed as the prim_func's extra scalar arguments."""
    if not isinstance(func, PrimFunc):
        raise TypeError(f"nn.tensor_ir_op: func must be a T.prim_func, got {type(func).__name__}")
    exporter = current()
    items = list(args) if isinstance(args, (list, tuple)) else [args]
    tensors = [a for a in items if not isinstance(a, (int, tx.PrimExpr))]
    dims = [tx.const(a, "int64") if isinstance(a, int) else a for a in items
            if isinstance(a, (int, tx.PrimExpr))]
    gv = exporter.prim_func_var(func, name_hint)
    call_args: tuple[rx.Expr, ...] = (rx.GlobalVarRef(gv, _OPAQUE_FUNC), _args_tuple(tensors))
    if dims:
        call_args += (shape_expr(dims),)
    sinfo = _out_sinfo(out, f"nn.tensor_ir_op({name_hint!r})")
    call = rx.Call(CALL_TIR, call_args, sinfo_args=(sinfo,), struct_info=sinfo)
    return exporter.wrap(call, "lv")

