"""`nn.extern`, `nn.tensor_expr_op`, `nn.tensor_ir_op` / `tensor_ir_inplace_op`: calls of code
beyond the relax ops.

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
from ...ir.ops.base import as_expr
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
    """The call's arguments: tensors, and Python numbers as TVM 0.27's prim values (a float
    is a float64 scalar)."""
    from .op import _x

    fields = tuple(as_expr(tx.const(a, "float64") if type(a) is float else _x(a))
                   for a in args)
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


def _call_items(args: Any) -> list[Any]:
    """A prim_func call's arguments in its parameter order: tensors, and symbolic integers (a
    shape's values one by one) as scalars; TVM 0.27 passes them all in one tuple."""
    items = list(args) if isinstance(args, (list, tuple)) else [args]
    out: list[Any] = []
    for a in items:
        if isinstance(a, rx.ShapeExpr):
            out.extend(a.values)
        else:
            out.append(tx.const(a, "int64") if isinstance(a, int) else a)
    return out


def tensor_ir_inplace_op(func: PrimFunc, name_hint: str, args: Any, inplace_indices: Any,
                         out: Any) -> Any:
    """Call the prim_func `func` (added as `name_hint`) in place: output i is argument
    `inplace_indices[i]` itself, written by the prim_func (-1: a fresh tensor)."""
    if not isinstance(func, PrimFunc):
        raise TypeError(f"nn.tensor_ir_inplace_op: func must be a T.prim_func, got "
                        f"{type(func).__name__}")
    from ...ir.op import CALL_TIR_INPLACE

    indices = [inplace_indices] if isinstance(inplace_indices, int) else list(inplace_indices)
    exporter = current()
    gv = exporter.prim_func_var(func, name_hint)
    sinfo = _out_sinfo(out, f"nn.tensor_ir_inplace_op({name_hint!r})")
    call = rx.Call(CALL_TIR_INPLACE,
                   (rx.GlobalVarRef(gv, _OPAQUE_FUNC), _args_tuple(_call_items(args))),
                   (("inplace_indices", tuple(int(i) for i in indices)),),
                   sinfo_args=(sinfo,), struct_info=sinfo)
    return exporter.wrap(call, "lv")


def tensor_ir_op(func: PrimFunc, name_hint: str, args: Any, out: Any) -> Any:
    """Call the prim_func `func` (added to the module as `name_hint`) on `args`; symbolic
    integers among the args are passed as the prim_func's extra scalar arguments."""
    if not isinstance(func, PrimFunc):
        raise TypeError(f"nn.tensor_ir_op: func must be a T.prim_func, got {type(func).__name__}")
    exporter = current()
    gv = exporter.prim_func_var(func, name_hint)
    # NOTE: as TVM 0.27, symbolic integers are arguments like the tensors (scalars in the
    # prim_func's parameter order), not trailing tir_vars
    call_args: tuple[rx.Expr, ...] = (rx.GlobalVarRef(gv, _OPAQUE_FUNC),
                                      _args_tuple(_call_items(args)))
    sinfo = _out_sinfo(out, f"nn.tensor_ir_op({name_hint!r})")
    call = rx.Call(CALL_TIR, call_args, sinfo_args=(sinfo,), struct_info=sinfo)
    return exporter.wrap(call, "lv")

