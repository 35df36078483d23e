"""The `R` namespace of TVMScript: `from tvmlite.script import relax as R`.

Struct-info constructors (`R.Tensor`, `R.Tuple`, `R.Shape`, `R.Prim`, `R.Object`) return
`ir.struct_info` objects; call constructors (`R.call_tir`, `R.call_dps_packed`,
`R.call_packed`, `R.call_pure_packed`) return `ir.expr.Call`s with their struct info set, in the
forms of docs/internals.md section 1. `R.call_tir` checks its arguments against the prim_func
it calls when that function is in the module being parsed.
"""

from __future__ import annotations

import ast
import numbers
from collections.abc import Callable as _Fn  # NOTE: `R.Callable` is struct info
from typing import Any, TypeVar

import numpy as np

from ..ir import expr as rx
from ..ir import op as ops
from ..ir import struct_info as si
from ..ir.call_tir_check import call_tir_mismatch
from ..ir.ops import linalg_stats as _linalg
from ..ir.ops import runtime_ops as _runtime_ops
from ..ir.module import GlobalVar
from ..tir import expr as tx
from ..tir.dtype import check_known
from ..tir.function import PrimFunc
from ..vm import device as _device
from .parser import entry
from .parser.core import ArgError, check_attrs, current
from .parser.relax_parser import (
    DataflowSpec,
    MatchCastSpec,
    as_sinfo,
    check_output,
    function_frame,
    sym_var,
    to_expr,
    tuple_get_item,
)

# -- the decorator ------------------------------------------------------------------------------


def function(func: _Fn | None = None, *, private: bool = False, pure: bool = True,
             check_well_formed: bool = True) -> Any:
    """Parse a function as a relax `Function` (or mark it for the enclosing `@I.ir_module`).
    `check_well_formed` is accepted for TVM's signature; the parser checks scoping either
    way and leaves TVM's stricter rules to `relax.analysis.well_formed`."""
    __tracebackhide__ = True  # noqa: F841 (IPython and pytest hide this frame)
    opts = {"private": private, "pure": pure}
    if func is None:
        return entry.DecoratorSpec("relax", opts)
    return entry.decorate("relax", func, opts, depth=2)


function.__tvmscript_kind__ = "relax"  # type: ignore[attr-defined]


# -- struct info --------------------------------------------------------------------------------


class _SInfoType:
    """A struct-info constructor usable bare (`x: R.Object`), called, or subscripted (old)."""

    __tvmscript_sinfo__ = True

    def __init__(self, make: _Fn[..., si.StructInfo]) -> None:
        self._make = make
        self.__doc__ = make.__doc__
        self.__name__ = make.__name__.strip("_").capitalize()  # what TVM's proxy classes show

    def __call__(self, *args: Any, **kwargs: Any) -> si.StructInfo:
        return self._make(*args, **kwargs)

    def __getitem__(self, key: Any) -> si.StructInfo:
        return self._make(*key) if isinstance(key, tuple) else self._make(key)

    def as_ty(self) -> si.StructInfo:
        """The struct info the bare constructor stands for (TVM's `TypeProxy.as_ty`)."""
        return self._make()


def _dim(d: Any) -> tx.PrimExpr:
    if isinstance(d, str):
        return sym_var(d) if d.isidentifier() else _dim_expr(d)
    if isinstance(d, TypeVar):  # TVM 0.27 prints `n = TypeVar("n")`, then R.Tensor((n,), ...)
        return sym_var(d.__name__)
    if isinstance(d, bool) or not isinstance(d, (int, tx.PrimExpr)):
        raise ValueError(f"a tensor dimension is an int, a name string like \"n\" or a TIR "
                         f"expression, not {d!r}")
    return tx.const(d, "int64") if isinstance(d, int) else d


_DIM_OPS = {ast.Add: tx.BinaryOp.ADD, ast.Sub: tx.BinaryOp.SUB, ast.Mult: tx.BinaryOp.MUL,
            ast.FloorDiv: tx.BinaryOp.FLOORDIV, ast.Mod: tx.BinaryOp.FLOORMOD}


_DIM_CALLS = {"max": tx.BinaryOp.MAX, "min": tx.BinaryOp.MIN}


def _dim_call_name(node: ast.Call) -> str:
    f = node.func
    return f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")


def _dim_expr(text: str) -> tx.PrimExpr:
    """A computed dim written as a string, `R.Tensor(("n * 2",))`, as TVM prints signatures."""
    try:
        tree = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        raise ValueError(f"{text!r} is not a dimension expression") from None

    def walk(node: ast.expr) -> tx.PrimExpr:
        if isinstance(node, ast.Name):
            return sym_var(node.id)
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return tx.const(node.value, "int64")
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(
                node.operand, ast.Constant) and type(node.operand.value) is int:
            return tx.const(-node.operand.value, "int64")  # "b % -3", as TVM prints ceil
        if isinstance(node, ast.BinOp) and type(node.op) in _DIM_OPS:
            return tx.binop(_DIM_OPS[type(node.op)], walk(node.left), walk(node.right))
        if isinstance(node, ast.Call) and _dim_call_name(node) in _DIM_CALLS and \
                len(node.args) == 2 and not node.keywords:  # "T.max(n - m, 1)", as TVM prints
            return tx.binop(_DIM_CALLS[_dim_call_name(node)], *map(walk, node.args))
        raise ValueError(f"dimension {text!r}: only names, ints, + - * // % and T.max / "
                         "T.min are allowed")

    return walk(tree)


def _shape(shape: Any) -> tuple[tx.PrimExpr, ...]:
    if isinstance(shape, rx.ShapeExpr):
        return shape.values
    items = shape if isinstance(shape, (tuple, list)) else (shape,)
    return tuple(_dim(d) for d in items)


def _tensor(shape: Any = None, dtype: str | None = None, ndim: int = -1,
            vdevice: str | None = None) -> si.TensorStructInfo:
    """`R.Tensor((1, 784), "float32")`, `R.Tensor(("n", 784), "float32")`, `R.Tensor(ndim=2)`."""
    if not isinstance(ndim, int):  # TVM's third parameter is the vdevice: a name or a VDevice
        vdevice, ndim = ndim, -1
    if isinstance(shape, str) and dtype is None:
        shape, dtype = None, shape
        _check_known_dtype(dtype, 0)
    elif dtype:
        _check_known_dtype(dtype, 1)
    dtype = _dtype_str(dtype) if dtype else ""
    if shape is None:
        return si.TensorStructInfo(None, dtype, ndim, vdevice)
    dims = _shape(shape)
    if ndim not in (-1, len(dims)):
        raise ValueError(f"R.Tensor has {len(dims)} dimensions but ndim={ndim}")
    return si.TensorStructInfo(dims, dtype, len(dims), vdevice)


def _tuple(*fields: Any) -> si.TupleStructInfo:
    """`R.Tuple(R.Tensor(...), R.Tensor(...))`."""
    if len(fields) == 1 and isinstance(fields[0], (list, tuple)):
        fields = tuple(fields[0])
    return si.TupleStructInfo(tuple(_sinfo(f) for f in fields))


def _shape_sinfo(shape: Any = None, ndim: int = -1) -> si.ShapeStructInfo:
    """`R.Shape((n, 4))` or `R.Shape(ndim=2)`."""
    return si.ShapeStructInfo(None if shape is None else _shape(shape), ndim)


def _prim(dtype: str = "int64", value: Any = None) -> si.PrimStructInfo:
    """`R.Prim("int64")` or `R.Prim(value=n)`."""
    if isinstance(value, str):
        value = sym_var(value)  # R.Prim(value="n"), as the printer writes it
    if value is not None:
        value = tx.const(value, "int64" if isinstance(value, int) else None)
        return si.PrimStructInfo(value.dtype, value)
    return si.PrimStructInfo(_dtype_str(dtype))


def _check_known_dtype(dtype: Any, pos: int) -> None:
    """A misspelled dtype (`"flaot32"`) is a located error. Python evaluates a parameter's
    annotation before the decorator runs, so outside the parser this says nothing: the parser
    reads the annotation again from the source and reports it there."""
    dtype = getattr(dtype, "dtype", dtype)
    if isinstance(dtype, str) and current() is not None:
        try:
            check_known(dtype)
        except ValueError as exc:
            raise ArgError(str(exc), "dtype", pos) from None


def _dtype_str(dtype: Any) -> str:
    dtype = getattr(dtype, "dtype", dtype)
    if not isinstance(dtype, str):
        raise ValueError(f"a dtype is a string like \"float32\", not {dtype!r}")
    return dtype


def _object() -> si.ObjectStructInfo:
    """`R.Object`: any value."""
    return si.ObjectStructInfo()


def _callable(params: Any = None, ret: Any = None, purity: bool | None = None,
              derive_func: str | None = None) -> si.FuncStructInfo:
    """`R.Callable((R.Tensor(...),), R.Tensor(...))`; `derive_func` names the rule that gives
    a call's struct info (`R.Callable(derive_func="tvm.relax.type.infer_view_ty")`). As TVM,
    a function is pure unless said otherwise, except an opaque one (bare `R.Callable`)."""
    if purity is None:
        purity = params is not None
    ps = None if params is None else tuple(_sinfo(x) for x in params)
    return si.FuncStructInfo(ps, _sinfo(ret) if ret is not None else si.ObjectStructInfo(), purity,
                             derive_func)


Tensor = _SInfoType(_tensor)
Tuple = _SInfoType(_tuple)
Shape = _SInfoType(_shape_sinfo)
Prim = _SInfoType(_prim)
Object = _SInfoType(_object)
Any = Object  # noqa: F811 (TVM 0.27's R.Any; the `Any` hints in this file are strings)
Callable_ = _SInfoType(_callable)


def _sinfo(x: Any) -> si.StructInfo:
    if isinstance(x, si.StructInfo):
        return x
    if isinstance(x, _SInfoType):
        return x()
    sinfo = as_sinfo(x)  # `T.int64` as a field of R.Tuple, TVM 0.27's PrimType
    if sinfo is not None:
        return sinfo
    raise ValueError(f"expected struct info such as R.Tensor(...), got {x!r}")


# -- function-level -----------------------------------------------------------------------------


def dataflow() -> Any:
    """`with R.dataflow():` in a parsed function, or a block frame under TVM's IRBuilder."""
    if _building():
        from .ir_builder import relax as builder

        return builder.dataflow()
    return DataflowSpec()


def output(*vars_: Any) -> None:
    if _building():
        from .ir_builder import relax as builder

        return builder.output(*vars_)
    check_output(vars_)


def _building() -> bool:
    """Whether the R.* call comes from Python code driving an IRBuilder (not the parser)."""
    from .ir_builder.base import IRBuilder

    return current() is None and IRBuilder.is_in_scope()


def func_attr(attrs: dict[str, Any]) -> None:
    frame = function_frame()
    if frame is None:
        raise ValueError("R.func_attr must be used inside an @R.function")
    frame.attrs.update(check_attrs(attrs, "R.func_attr"))


def match_cast(value: Any, struct_info: Any) -> MatchCastSpec:
    return MatchCastSpec(to_expr(value), _sinfo(struct_info))


# -- calls --------------------------------------------------------------------------------------


def _out_sinfo(out: Any, dtype: Any, where: tuple[Any, ...]) -> si.StructInfo:
    """`R.Tensor(...)`, a list of them, or the old `(1, 128), dtype="float32"` form."""
    if out is None:
        raise ArgError("the output struct info is missing: pass R.Tensor(shape, dtype) or "
                       "out_sinfo=...", *where)
    if isinstance(out, (si.StructInfo, _SInfoType)):
        return _sinfo(out)
    if isinstance(out, list) and all(isinstance(o, (si.StructInfo, _SInfoType)) for o in out):
        outs = tuple(_sinfo(o) for o in out)
        return outs[0] if len(outs) == 1 else si.TupleStructInfo(outs)
    if isinstance(out, (tuple, list, rx.ShapeExpr)) and dtype is not None:
        if isinstance(out, list) and out and isinstance(out[0], (tuple, list)):
            dts = dtype if isinstance(dtype, (list, tuple)) else [dtype] * len(out)
            return si.TupleStructInfo(tuple(_tensor(s, d) for s, d in zip(out, dts)))
        return _tensor(out, dtype)
    raise ArgError(f"cannot use {out!r} as output struct info; pass R.Tensor(shape, dtype)",
                   *where)


def _args_tuple(args: Any) -> rx.Tuple:
    if isinstance(args, rx.Tuple):
        return args
    items = args if isinstance(args, (tuple, list)) else (args,)
    fields = tuple(to_expr(a) for a in items)
    return rx.Tuple(fields, si.TupleStructInfo(tuple(f.struct_info or si.ObjectStructInfo()
                                                     for f in fields)))


def call_tir(gvar: Any, args: Any, out_sinfo: Any = None, tir_vars: Any = None, *,
             out_ty: Any = None, dtype: Any = None) -> rx.Call:
    """Destination-passing call of a prim_func: `R.call_tir(f, (x, w), R.Tensor(...))`."""
    out = _out_sinfo(out_sinfo if out_sinfo is not None else out_ty, dtype,
                     (2, "out_sinfo", "out_ty"))
    gv = _resolve_callee(gvar)
    if isinstance(gv, str):
        return call_dps_packed(gv, args, out)
    targs = _args_tuple(args)
    p = current()
    callee = p.module.function(gv.name_hint) if p is not None and p.module is not None else None
    if isinstance(callee, PrimFunc) and p.module.check_well_formed:
        _check_call_tir(gv.name_hint, callee, targs, out, tir_vars)
    call_args: tuple[rx.Expr, ...] = (rx.GlobalVarRef(gv, _OPAQUE_FUNC), targs)
    if tir_vars is not None:
        vals = tuple(_dim(v) for v in (tir_vars.values if isinstance(tir_vars, rx.ShapeExpr)
                                       else tir_vars))
        call_args += (rx.ShapeExpr(vals, si.ShapeStructInfo(vals)),)
    return rx.Call(ops.CALL_TIR, call_args, sinfo_args=(out,), struct_info=out)


_OPAQUE_FUNC = si.FuncStructInfo(None, si.ObjectStructInfo())


def call_tir_with_grad(gvar: Any, args: Any, out_sinfo: Any = None, te_grad_name: str = "",
                       te_grad_kwargs: Any = None, *, out_ty: Any = None) -> rx.Call:
    """`R.call_tir_with_grad(f, args, out, te_grad_name="g")`: call_tir whose gradient is the
    te function registered as `g` (relax.training.utils.register_te_gradient), called with
    `te_grad_kwargs`; the Gradient pass uses it, everything else sees call_tir."""
    plain = call_tir(gvar, args, out_sinfo, out_ty=out_ty)
    # a dict-like attribute (`call.attrs.te_grad_kwargs.items()`), frozen as attrs are
    from ..tir.attrs import Attrs

    kwargs = Attrs(sorted(dict(te_grad_kwargs or {}).items()))
    return rx.Call(ops.get_op("relax.call_tir_with_grad"), plain.args,
                   (("te_grad_name", str(te_grad_name)), ("te_grad_kwargs", kwargs)),
                   sinfo_args=plain.sinfo_args, struct_info=plain.struct_info)


def call_tir_inplace(gvar: Any, args: Any, inplace_indices: Any, out_sinfo: Any = None,
                     tir_vars: Any = None, *, out_ty: Any = None) -> rx.Call:
    """`R.call_tir_inplace(f, (x, y), [0], R.Tensor(...))`: call_tir whose i-th output is
    argument `inplace_indices[i]` itself, written in place (-1: a freshly allocated output)."""
    out = _out_sinfo(out_sinfo if out_sinfo is not None else out_ty, None,
                     (3, "out_sinfo", "out_ty"))
    indices = [inplace_indices] if isinstance(inplace_indices, int) else list(inplace_indices)
    indices = [_as_int(i) for i in indices]
    gv = _resolve_callee(gvar)
    if isinstance(gv, str):
        raise ArgError("R.call_tir_inplace calls a prim_func of the module", 0)
    targs = _args_tuple(args)
    outs = out.fields if isinstance(out, si.TupleStructInfo) else (out,)
    if len(indices) != len(outs) or all(i == -1 for i in indices) or \
            any(not -1 <= i < len(targs.fields) for i in indices):
        raise ArgError(f"inplace_indices {indices} must give each of the {len(outs)} outputs an "
                       f"argument index (or -1), at least one of them an argument", 2)
    for field in targs.fields:
        if isinstance(field.struct_info, si.TupleStructInfo):
            raise ArgError("R.call_tir_inplace passes each argument to a prim_func, which "
                           "takes no tuples: write the arguments as one flat tuple", 1)
    for out_index, (i, sinfo) in enumerate(zip(indices, outs)):
        if i >= 0:
            _check_written_in_place(targs.fields[i], i, sinfo, out_index)
    call_args: tuple[rx.Expr, ...] = (rx.GlobalVarRef(gv, _OPAQUE_FUNC), targs)
    if tir_vars is not None:
        vals = tuple(_dim(v) for v in (tir_vars.values if isinstance(tir_vars, rx.ShapeExpr)
                                       else tir_vars))
        call_args += (rx.ShapeExpr(vals, si.ShapeStructInfo(vals)),)
    return rx.Call(ops.CALL_TIR_INPLACE, call_args, (("inplace_indices", tuple(indices)),),
                   sinfo_args=(out,), struct_info=out)


def _check_written_in_place(value: rx.Expr, index: int, out: Any, out_index: int) -> None:
    """An argument that an output is written into must be a tensor of that output's shape and
    dtype (a kernel handed other memory would write out of bounds)."""
    have = value.struct_info
    if not isinstance(have, si.TensorStructInfo):
        raise ArgError(f"R.call_tir_inplace writes output {out_index} into argument {index}, "
                       f"which must be a tensor, not {have}", 1)
    if not isinstance(out, si.TensorStructInfo):
        return
    if have.dtype and out.dtype and have.dtype != out.dtype:
        raise ArgError(f"R.call_tir_inplace writes output {out_index} ({out.dtype}) into "
                       f"argument {index}, a {have.dtype} tensor", 1)
    if isinstance(have.shape, tuple) and isinstance(out.shape, tuple) and (
            len(have.shape) != len(out.shape) or any(
                isinstance(a, tx.IntImm) and isinstance(b, tx.IntImm) and a.value != b.value
                for a, b in zip(have.shape, out.shape))):
        raise ArgError(f"R.call_tir_inplace writes output {out_index} of shape "
                       f"{_dims_text(out.shape)} into argument {index} of shape "
                       f"{_dims_text(have.shape)}", 1)


def _dims_text(shape: tuple[Any, ...]) -> str:
    return "(" + ", ".join(str(d.value if isinstance(d, tx.IntImm) else d) for d in shape) + ")"


def _as_int(i: Any) -> int:
    """An index written as an int, a TIR integer or an `R.prim_value`."""
    while not isinstance(i, int) and hasattr(i, "value"):
        i = i.value
    return int(i)


def _resolve_callee(gvar: Any) -> GlobalVar | str:
    p = current()
    module = p.module if p is not None else None
    if isinstance(gvar, str):
        return module.gvars[gvar] if module is not None and gvar in module.gvars else gvar
    if isinstance(gvar, rx.GlobalVarRef):
        return gvar.gvar
    if isinstance(gvar, GlobalVar):
        return gvar
    if isinstance(gvar, rx.ExternFunc):
        return gvar.global_symbol
    if isinstance(gvar, PrimFunc) and p is None:
        # NOTE: TVM's `relax.call_tir(prim_func, ...)` built by hand: the call names the
        # prim_func, which goes into the module under that name
        return GlobalVar(dict(gvar.attrs).get("global_symbol") or gvar.source_name or "main")
    if isinstance(gvar, PrimFunc):
        raise ArgError("R.call_tir needs a prim_func of the same module (a name, cls.name or "
                       "a string); this prim_func is not in the module", 0)
    raise ArgError(f"R.call_tir calls a prim_func of the module or a registered function "
                   f"name, not {gvar!r}", 0)


def _check_call_tir(name: str, f: PrimFunc, args: rx.Tuple, out: si.StructInfo,
                    tir_vars: Any) -> None:
    outs = out.fields if isinstance(out, si.TupleStructInfo) else (out,)
    n_vars = 0 if tir_vars is None else len(getattr(tir_vars, "values", tir_vars))
    bad = call_tir_mismatch(name, f, tuple(args.fields), tuple(outs), n_vars)
    if bad is None:
        return
    if bad.part == "count":
        raise ArgError(bad.message, 1)
    if bad.part == "arg":
        raise ArgError(bad.message, (1, bad.index), 1)
    raise ArgError(bad.message, (2, bad.index), 2, "out_sinfo", "out_ty")


def call_dps_packed(func: Any, args: Any, out_sinfo: Any = None, *, out_ty: Any = None,
                    dtype: Any = None) -> rx.Call:
    """Destination-passing call of a registered function: `R.call_dps_packed("f", (x,), S)`."""
    out = _out_sinfo(out_sinfo if out_sinfo is not None else out_ty, dtype,
                     (2, "out_sinfo", "out_ty"))
    if isinstance(func, rx.Var) and isinstance(func.struct_info, si.FuncStructInfo):
        callee: rx.Expr = func  # a variable bound to `R.ExternFunc(...)` stays a variable
    else:
        name = _resolve_callee(func)
        if isinstance(name, GlobalVar):
            return call_tir(name, args, out)
        callee = rx.ExternFunc(name)
    return rx.Call(ops.CALL_DPS_PACKED, (callee, _args_tuple(args)), sinfo_args=(out,),
                   struct_info=out)


def _sinfo_args(sinfo_args: Any) -> tuple[si.StructInfo, ...]:
    if sinfo_args is None:
        return ()
    items = sinfo_args if isinstance(sinfo_args, (list, tuple)) else (sinfo_args,)
    return tuple(_sinfo(s) for s in items)


def call_packed(func: str, *args: Any, sinfo_args: Any = None, ty_args: Any = None,
                **attrs: Any) -> rx.Call:
    """Call a registered function; use its return value: `R.call_packed("f", x, sinfo_args=S)`
    (`ty_args=` is TVM 0.27's spelling of `sinfo_args=`; other keywords are the call's
    attributes, as TVM keeps them)."""
    sargs = _sinfo_args(sinfo_args if sinfo_args is not None else ty_args)
    ret = sargs[0] if len(sargs) == 1 else (si.TupleStructInfo(sargs) if sargs else
                                             si.ObjectStructInfo())
    return rx.Call(rx.ExternFunc(str(func)), tuple(to_expr(a) for a in args),
                   tuple(attrs.items()), sinfo_args=sargs, struct_info=ret)


def call_pure_packed(func: str, *args: Any, sinfo_args: Any = None, ty_args: Any = None
                     ) -> rx.Call:
    """`R.call_packed` that the compiler may treat as pure."""
    inner = call_packed(func, *args, sinfo_args=sinfo_args, ty_args=ty_args)
    return rx.Call(ops.CALL_PURE_PACKED, (inner.op, *inner.args), sinfo_args=inner.sinfo_args,
                   struct_info=inner.struct_info)


def call_py_func(func_name: Any, args: Any, out_ty: Any = None, *,  # noqa: F811 (TVM names)
                 out_sinfo: Any = None, ty_args: Any = None) -> rx.Call:
    """`R.call_py_func("f", (x,), out_ty=R.Tensor(...))`: call the Python function
    registered as `f` (the name may be a string or `R.str`; `ty_args=` is how it prints)."""
    name = func_name if isinstance(func_name, rx.StringImm) else rx.StringImm(str(func_name))
    return _runtime_ops.call_py_func(name, args, out_ty, out_sinfo=out_sinfo, ty_args=ty_args)


def print(*values: Any, format: Any = "") -> rx.Call:  # noqa: A001,A002 (TVM's names)
    """`R.print(x, format="x={}")`: print at run time (an impure call: `pure=False`)."""
    return _runtime_ops.print_values(*values, format=format)


def assert_op(condition: Any, format_args: Any = None, format: Any = "") -> rx.Call:  # noqa: A002
    """`R.assert_op(cond, args, format=...)`: fail at run time when `cond` is false."""
    return _runtime_ops.assert_op(condition, format_args, format)


def emit_te(func: _Fn[..., Any], *args: Any, primfunc_name_hint: str | None = None,
            **kwargs: Any) -> rx.Call:
    """`R.emit_te(topi.exp, x)`: make a prim_func from a te compute, add it to the module
    being parsed, and call it (as `BlockBuilder.emit_te` does)."""
    from ..transforms.legalize.emit import TEEmitter

    p = current()
    ctx = p.module if p is not None else None
    if ctx is None or not hasattr(ctx, "add_function"):
        raise ValueError("R.emit_te adds a prim_func to the module: use it in a function of "
                         "an @I.ir_module class")
    funcs: dict[GlobalVar, Any] = {}
    emitter = TEEmitter(funcs)
    emitter.names |= set(ctx.gvars)
    exprs = [to_expr(a) if isinstance(a, (rx.Expr, tuple, list)) else a for a in args]
    call = emitter.call_te(func, exprs, kwargs, primfunc_name_hint or func.__name__)
    for gv, f in funcs.items():
        ctx.add_function(gv, f)
    return call


def TupleGetItem(tup: Any, index: int) -> rx.Expr:  # noqa: N802 (TVM's name)
    """`R.TupleGetItem(t, i)`: the same as `t[i]`."""
    return tuple_get_item(to_expr(tup), int(index))


# -- values -------------------------------------------------------------------------------------


def const(value: Any, dtype: str | None = None) -> rx.Constant:
    """A tensor constant from a numpy array or a Python number."""
    dtype = getattr(dtype, "dtype", dtype)  # the 2022 API passed a DynTensorType
    arr = np.asarray(value, dtype=dtype) if dtype is not None else np.asarray(value)
    if dtype is None and arr.dtype == np.float64 and not isinstance(value, np.ndarray):
        arr = arr.astype("float32")  # NOTE: TVM makes Python floats float32 constants
    if dtype is None and arr.dtype == np.int64 and not isinstance(value, np.ndarray):
        arr = arr.astype("int32")
    sinfo = si.tensor_sinfo(arr.shape, str(arr.dtype))
    return rx.Constant(_to_ndarray(arr), sinfo)


def _to_ndarray(arr: np.ndarray) -> Any:
    try:
        from ..vm import ndarray  # type: ignore[attr-defined]

        return ndarray.array(arr)
    except (ImportError, AttributeError):
        return arr


def _tuple_expr(*fields: Any) -> rx.Tuple:
    return _args_tuple(list(fields))


def prim_value(value: Any, dtype: str | None = None) -> Any:
    """TVM 0.27's `R.prim_value`: a scalar as a TIR expression (a Python int becomes an int64
    immediate, a float a float64 one, unless `dtype` says otherwise); TIR expressions and
    relax values of a primitive type come back as they are. Wherever it lands in relax IR (a
    call's argument, a tuple's field, a binding) it is held as a `relax.PrimValue`."""
    if isinstance(value, rx.Expr):
        if isinstance(value.struct_info, si.PrimStructInfo):
            return value
    elif isinstance(value, tx.PrimExpr):
        return value
    elif isinstance(value, (bool, np.bool_)):
        return tx.IntImm(dtype or "bool", int(value))
    elif isinstance(value, numbers.Integral):
        return tx.IntImm(dtype or "int64", int(value))
    elif isinstance(value, numbers.Real):
        return tx.FloatImm(dtype or "float64", float(value))
    raise TypeError(f"Cannot convert {value!r} with type {type(value).__name__} to a "
                    "primitive `Expr`")


def shape(values: Any) -> rx.ShapeExpr:
    vals = _shape(values)
    return rx.ShapeExpr(vals, si.ShapeStructInfo(vals))


def _str_expr(value: Any) -> rx.StringImm:
    return rx.StringImm(f"{value}")


def _op_call(name: str) -> _Fn[..., rx.Call]:
    make = ops.op_attr(name, "make")
    if make is not None:  # ir.ops builders: TVM's signatures, struct info inferred
        return make

    def call(*args: Any, **attrs: Any) -> rx.Call:
        exprs = tuple(to_expr(a) for a in args)
        infer = ops.op_attr(name, "infer_struct_info")
        call = rx.Call(ops.get_op(name), exprs, tuple(attrs.items()))
        sinfo = infer(call) if infer is not None else si.ObjectStructInfo()
        return rx.Call(call.op, call.args, call.attrs, struct_info=sinfo)
    call.__name__ = name
    return call


class _OpNamespace:
    """`R.nn.relu(x)`: operators registered in `ir.op` under `relax.nn.<name>`."""

    def __init__(self, prefix: str) -> None:
        self._prefix = prefix

    def __getattr__(self, attr: str) -> Any:
        name = f"{self._prefix}.{attr}"
        if name not in ops.list_ops():
            raise AttributeError(f"R.{name[len('relax.'):]} is not a known relax operator")
        return _op_call(name)


nn = _OpNamespace("relax.nn")
image = _OpNamespace("relax.image")
vision = _OpNamespace("relax.vision")
grad = _OpNamespace("relax.grad")  # R.grad.* (gradient operators)
builtin = _OpNamespace("relax.builtin")  # R.builtin.stop_lift_params, as TVM prints it
memory = _OpNamespace("relax.memory")  # R.memory.alloc_storage, ... (memory planning)
vm = _OpNamespace("relax.vm")  # R.vm.alloc_storage, R.vm.call_tir_dyn (VM lowering)

# -- devices and IR classes TVMScript names (R.cpu() in R.hint_on_device, R.ExternFunc) ---------

cpu, cuda, opencl = _device.cpu, _device.cuda, _device.opencl
ExternFunc = rx.ExternFunc
ShapeExpr = rx.ShapeExpr


def dtype(value: Any) -> rx.DataTypeImm:
    """`R.dtype("float32")`: a dtype as a relax value."""
    text = str(getattr(value, "dtype", value))
    check_known(text)
    return rx.DataTypeImm(text)


def device(device_type: Any, index: int | None = None) -> Any:
    """`R.device(device_type=1, index=0)`, as TVM prints a device: a `tvm.device`."""
    return _device.device(device_type, 0 if index is None else index)
_SPECIAL = {"tuple": _tuple_expr, "str": _str_expr, "Callable": Callable_,
            "linear": _linalg.linear, "masked_fill": _linalg.masked_fill,
            "stop_lift_params": _runtime_ops.stop_lift_params}


def __getattr__(attr: str) -> Any:
    # NOTE: R.tuple / R.str would shadow the builtins inside this module, so they live here;
    # registered operators (R.add, ...) are found by name in the op registry.
    if attr in _SPECIAL:
        return _SPECIAL[attr]
    if f"relax.{attr}" in ops.list_ops():
        return _op_call(f"relax.{attr}")
    raise AttributeError(f"module 'R' has no attribute {attr!r}")


# `x: R.Any` is struct info. NOTE: this replaces typing.Any, which this module only names in
# annotations, and those stay strings (PEP 563)
globals()["Any"] = Object

from .relax_macro import macro  # noqa: E402,F401 (R.macro: Relax TVMScript pasted in)


def rewriter(rewriter_mod: Any) -> Any:
    """`@R.rewriter`: a module (or a TVMScript class, parsed as `@I.ir_module`) with `pattern`
    and `replacement` functions, as a `relax.dpl.PatternMatchingRewriter`."""
    import sys

    from ..ir.module import IRModule
    from ..transforms.pattern_rewriter import PatternMatchingRewriter
    from .parser.entry import _parse_class

    __tracebackhide__ = True  # noqa: F841
    if not isinstance(rewriter_mod, IRModule):
        # NOTE: parsed in the caller's frame, whose names the class's functions use
        rewriter_mod = _parse_class(rewriter_mod, sys._getframe(1))
    return PatternMatchingRewriter.from_module(rewriter_mod)


from .ir_builder.relax import (  # noqa: E402,F401 (TVM's R.* builder statements)
    Else, If, Then, arg, emit, emit_match_cast, emit_var_binding, emit_with_ty, emit_with_type,
    func_name, func_ret_ty, func_ret_type, func_ret_value,
)
