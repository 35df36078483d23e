"""The Relax dialect of the parser: `@R.function` bodies become `Function(params, SeqExpr)`.

Every assignment emits a `VarBinding` (its var carries the value's struct info, or the
annotation's); bindings inside `with R.dataflow()` form a `DataflowBlock` whose vars are
`DataflowVar`s except the names given to `R.output(...)` (found before the block is parsed, so
each var is created once with its final class). Nested calls are bound to fresh vars first
(A-normal form), as TVM's block builder does. A string dim in `R.Tensor(("n", 784))` is one
`tir.Var("n", "int64")` per function, also bound as the name `n` in the body.
"""

from __future__ import annotations

import operator

import ast
from dataclasses import dataclass, field, replace
from typing import Any

from ...ir import expr as rx
from ...ir import struct_info as si
from ...ir.op import with_inferred_struct_info
from ...ir.module import GlobalVar
from ...ir.ops.base import BINDING_LOOKUPS
from ...ir.type_analysis import is_base_of, seen_from_outside
from ...tir import expr as tx
from ...tir.function import PrimFunc
from .core import _MISSING, ArgError, Dialect, MetaValue, Parser, current
from .tir_parser import DType

LEAF = (rx.Var, rx.Constant, rx.GlobalVarRef, rx.ExternFunc, rx.Op, rx.ShapeExpr, rx.PrimValue,
        rx.StringImm, rx.DataTypeImm)


@dataclass(frozen=True)
class DataflowSpec:
    """`R.dataflow()`."""


@dataclass(frozen=True)
class MatchCastSpec:
    value: rx.Expr
    struct_info: si.StructInfo


@dataclass
class FunctionFrame:
    name: str
    sym_vars: dict[str, tx.Var] = field(default_factory=dict)
    blocks: list[rx.BindingBlock] = field(default_factory=list)
    bindings: list[rx.Binding] = field(default_factory=list)
    outputs: set[str] | None = None  # set while inside `with R.dataflow()`
    # output name -> the statement that binds it last: only that binding is a non-dataflow
    # Var (`y = f(x); y = g(y); R.output(y)`: the first y stays a DataflowVar, as in TVM)
    output_stmts: dict[str, ast.AST] = field(default_factory=dict)
    attrs: dict[str, Any] = field(default_factory=dict)
    ret: rx.Expr | None = None
    fresh: int = 0

    def flush(self, dataflow: bool = False) -> None:
        if self.bindings or dataflow:
            kind = rx.DataflowBlock if dataflow else rx.BindingBlock
            self.blocks.append(kind(tuple(self.bindings)))
        self.bindings = []


class _RelaxDialect(Dialect):
    def fallback_name(self, p: Parser, name: str) -> Any:
        # NOTE: old notebooks annotate with bare `Tensor(...)`, never imported.
        from .. import relax as R

        if name in ("Tensor", "Tuple", "Shape", "Object", "Prim", "Callable"):
            return getattr(R, name)
        return _MISSING

    def getitem(self, p: Parser, value: Any, index: Any) -> Any:
        if isinstance(value, rx.Expr) and isinstance(index, int):
            return tuple_get_item(value, index)
        return value[index]

    def call_global(self, p: Parser, gv: GlobalVar, args: list[Any], kwargs: dict) -> Any:
        if kwargs:
            raise ValueError(f"calls to module function {gv.name_hint!r} take no keywords")
        callee = p.module.function(gv.name_hint) if p.module is not None else None
        frame = function_frame(p)
        forced = frame is not None and _truthy(frame.attrs.get("relax.force_pure"))
        if isinstance(callee, PrimFunc) and forced:
            # `cls.add(x, y, out)`: an in-place kernel call, as TVM prints after CallTIRRewrite
            return rx.Call(rx.GlobalVarRef(gv, si.FuncStructInfo(None, _VOID, False)),
                           tuple(to_expr(a) for a in args), struct_info=_VOID)
        if isinstance(callee, PrimFunc) and len(args) == len(callee.params):
            # TVM takes a direct call given every parameter in any function: a pure call
            # whose result is the prim_func's return value (none: an empty tuple)
            ret = si.PrimStructInfo(callee.ret_dtype) if callee.ret_dtype != "void" else _VOID
            return rx.Call(rx.GlobalVarRef(gv, si.FuncStructInfo(None, ret, True)),
                           tuple(to_expr(a) for a in args), struct_info=ret)
        if isinstance(callee, PrimFunc):
            raise ValueError(f"{gv.name_hint!r} is a prim_func; call it with "
                             f"R.call_tir({gv.name_hint}, (args...), out_sinfo)")
        sinfo = callee.struct_info if callee is not None else \
            p.module.signatures.get(gv.name_hint) if p.module is not None else None
        ret = sinfo.ret if isinstance(sinfo, si.FuncStructInfo) else si.ObjectStructInfo()
        call_args = tuple(to_expr(a) for a in args)
        if isinstance(sinfo, si.FuncStructInfo) and sinfo.params is not None and \
                len(sinfo.params) != len(call_args):
            raise ValueError(f"{gv.name_hint!r} takes {len(sinfo.params)} arguments but "
                             f"{len(call_args)} were given")
        if isinstance(sinfo, si.FuncStructInfo):
            ret = si.call_ret_sinfo(sinfo, call_args)  # the callee's dims in our terms
        return rx.Call(rx.GlobalVarRef(gv, sinfo), call_args, struct_info=ret)

    def binop(self, p: Parser, op: Any, a: Any, b: Any) -> Any:
        if (isinstance(a, rx.Expr) or isinstance(b, rx.Expr)) and op not in _RELAX_OPERATORS:
            raise ValueError(f"operator {op.__name__} is not defined on relax values; use "
                             f"+ - * / // ** or call the operator (R.add, R.multiply, ...)")
        return op(a, b)  # relax.Expr's operators build R.add(a, b) and the like


_VOID = si.TupleStructInfo(())


def _truthy(value: Any) -> bool:
    return bool(getattr(value, "value", value))


RELAX = _RelaxDialect("relax")
_RELAX_OPERATORS = {operator.add, operator.sub, operator.mul, operator.truediv,
                    operator.floordiv, operator.pow}


def tuple_get_item(value: rx.Expr, index: int) -> rx.TupleGetItem:
    sinfo = value.struct_info
    if isinstance(sinfo, si.TupleStructInfo):
        if not -len(sinfo.fields) <= index < len(sinfo.fields):
            raise IndexError(f"index {index} out of range for a tuple of {len(sinfo.fields)}")
        index %= len(sinfo.fields)
        return rx.TupleGetItem(value, index, sinfo.fields[index])
    if sinfo is not None and not isinstance(sinfo, si.ObjectStructInfo):
        from ..printer.relax_printer import RelaxPrinter

        raise ValueError(f"cannot index a value of struct info {RelaxPrinter(None).sinfo(sinfo)}"
                         "; only tuples can be indexed")
    return rx.TupleGetItem(value, index, si.ObjectStructInfo())


def to_expr(value: Any) -> rx.Expr:
    """A Python value as a relax expression (tuples, numbers, strings, TIR scalars)."""
    if isinstance(value, rx.Expr):
        return value
    if isinstance(value, GlobalVar):
        return rx.GlobalVarRef(value)
    if isinstance(value, (tuple, list)):
        fields = tuple(to_expr(v) for v in value)
        sinfo = si.TupleStructInfo(tuple(f.struct_info or si.ObjectStructInfo() for f in fields))
        return rx.Tuple(fields, sinfo)
    if isinstance(value, (bool, int, float, tx.PrimExpr)):
        e = tx.const(value, "int64" if isinstance(value, int) and
                     not isinstance(value, bool) else None)
        return rx.PrimValue(e, si.PrimStructInfo(e.dtype, e))
    if isinstance(value, str):
        return rx.StringImm(value)
    raise TypeError(f"{value!r} ({type(value).__name__}) is not a relax value")


def function_frame(p: Parser | None = None) -> FunctionFrame | None:
    p = p or current()
    return p.find_frame(FunctionFrame) if p is not None else None


def _bound_in_open_frames(var: rx.Var) -> rx.Expr | None:
    """The value `var` is bound to in the function being parsed (for ops.base.bound_value)."""
    frame = function_frame()
    if frame is None:
        return None
    for bindings in (frame.bindings, *(b.bindings for b in frame.blocks)):
        for b in bindings:
            if b.var is var and isinstance(b, rx.VarBinding):
                return b.value
    return None


BINDING_LOOKUPS.append(_bound_in_open_frames)


def sym_var(name: str) -> tx.Var:
    """The function's symbolic dim `name` (made once, then shared)."""
    p = current()
    frame = function_frame(p)
    if frame is None:
        return tx.Var(name, "int64")
    if name not in frame.sym_vars:
        frame.sym_vars[name] = tx.Var(name, "int64")
        p.scopes[1 if len(p.scopes) > 1 else 0].setdefault(name, frame.sym_vars[name])
    return frame.sym_vars[name]


def as_sinfo(value: Any) -> si.StructInfo | None:
    if isinstance(value, si.StructInfo):
        return value
    if getattr(value, "__tvmscript_sinfo__", False):  # a bare R.Tensor / R.Object
        return value()
    if isinstance(value, DType) and value.dtype not in ("handle", "void"):
        return si.PrimStructInfo(value.dtype)  # `p: T.float32`, TVM 0.27's PrimType
    return None


# ---------------------------------------------------------------------------------------------
# The function


def parse_relax_function(p: Parser, node: ast.FunctionDef, opts: dict[str, Any]) -> rx.Function:
    """Parse an `@R.function` definition (see the module docstring for the IR it builds)."""
    outermost = function_frame(p) is None
    frame = FunctionFrame(node.name)
    a = node.args
    if a.posonlyargs or a.kwonlyargs or a.vararg or a.kwarg or a.defaults:
        p.error(node, "relax function parameters must be plain positional parameters")
    for stmt in node.body[:-1]:
        if isinstance(stmt, ast.Return):
            p.error(stmt, "return must be the last statement of a relax function")
    with p.active(), p.frame(frame), p.scope(), p.scope():
        params = tuple(_declare_param(p, arg) for arg in a.args)
        ret_sinfo = _annotation(p, node.returns) if node.returns is not None else None
        if outermost and p.module is not None:  # a recursive call sees this signature
            p.module.signatures[node.name] = si.FuncStructInfo(
                tuple(v.struct_info for v in params), ret_sinfo or si.ObjectStructInfo(),
                bool(opts.get("pure", True)))
        p.visit_body(node.body)
    if frame.ret is None:
        p.error(node, f"relax function {node.name!r} must end with a return statement")
    frame.flush()
    body = rx.SeqExpr(tuple(frame.blocks), frame.ret, p.source.span(node))
    ret = _return_sinfo(ret_sinfo, seen_from_outside(frame.ret.struct_info, params))
    return rx.Function(params, body, ret, opts.get("pure", True), tuple(frame.attrs.items()),
                       p.source.span(node))


def _return_sinfo(ann: si.StructInfo | None, body: si.StructInfo | None) -> si.StructInfo:
    """TVM's rule: the body's struct info replaces a coarser annotation (`-> R.Tensor`); an
    annotation the body does not refine stays, and the VM checks the value against it when the
    function returns (a contradiction is a run-time error, as in TVM)."""
    if ann is None:
        return body or si.ObjectStructInfo()
    if body is not None and is_base_of(ann, body) and not isinstance(ann, si.PrimStructInfo):
        return body  # NOTE: TVM 0.27's scalar types hold no value to refine `-> T.int64` with
    return ann


def _annotation(p: Parser, node: ast.expr) -> si.StructInfo:
    sinfo = as_sinfo(p.eval_annotation(node))
    if sinfo is None:
        p.error(node, "expected a struct info annotation such as R.Tensor((1, 784), "
                      "\"float32\"), R.Tuple(...), R.Shape(...), R.Prim(\"int64\") or R.Object")
    return sinfo


def _declare_param(p: Parser, arg: ast.arg) -> rx.Var:
    if arg.annotation is None:
        p.error(arg, f"parameter {arg.arg!r} needs an annotation such as "
                     "R.Tensor((1, 784), \"float32\")")
    var = rx.Var(arg.arg, _annotation(p, arg.annotation), p.source.span(arg))
    p.bind(arg.arg, var)
    return var


def emit(p: Parser, name: str, value: Any, node: ast.AST,
         ann: si.StructInfo | None = None, temporary: bool = False) -> rx.Var:
    """Bind `value` to a new var `name` in the current block."""
    frame = function_frame(p)
    span = p.source.span(node)
    if isinstance(value, MatchCastSpec):
        var = _new_var(frame, name, value.struct_info, span, node=node)
        frame.bindings.append(rx.MatchCast(var, normalize(p, value.value), value.struct_info,
                                           span))
        return var
    raw = to_expr(value)
    expr = normalize(p, raw)
    if isinstance(expr, rx.Call) and expr.struct_info is None and isinstance(expr.op, rx.Op):
        expr = with_inferred_struct_info(expr)  # `relax.Call(op, args)` written in the script
    sinfo = expr.struct_info or si.ObjectStructInfo()
    if ann is not None:
        if p.module is None or p.module.check_well_formed:  # else well_formed judges it
            _check_annotation(ann, sinfo)
        # NOTE: as in TVM, the annotation becomes the var's struct info unless normalizing
        # rebuilt the call (nested calls bound first): then the derived one stays
        if not _has_nested_call(raw):
            sinfo = ann
    var = _new_var(frame, name, sinfo, span, temporary, node)
    frame.bindings.append(rx.VarBinding(var, expr, span))
    return var


def _has_nested_call(e: Any) -> bool:
    return isinstance(e, rx.Call) and any(
        isinstance(a, rx.Call) or (isinstance(a, rx.Tuple) and
                                   any(isinstance(f, rx.Call) for f in a.fields))
        for a in e.args)


def _new_var(frame: FunctionFrame, name: str, sinfo: si.StructInfo, span: Any,
             temporary: bool = False, node: ast.AST | None = None) -> rx.Var:
    # NOTE: a temporary (a nested call's value) is never an output, whatever name it gets
    dataflow = frame.outputs is not None and (
        temporary or name not in frame.outputs
        or frame.output_stmts.get(name, node) is not node)
    return (rx.DataflowVar if dataflow else rx.Var)(name, sinfo, span)


def _check_annotation(ann: si.StructInfo, got: si.StructInfo) -> None:
    if isinstance(ann, si.TupleStructInfo) and isinstance(got, si.TupleStructInfo):
        if len(ann.fields) != len(got.fields):
            raise ValueError(f"the annotation says a tuple of {len(ann.fields)} but the value "
                             f"has {len(got.fields)} fields")
        for a_field, g_field in zip(ann.fields, got.fields):
            _check_annotation(a_field, g_field)
        return
    if isinstance(ann, si.TensorStructInfo) and isinstance(got, si.TensorStructInfo):
        if ann.dtype and got.dtype and ann.dtype != got.dtype:
            raise ValueError(f"the annotation says dtype {ann.dtype} but the value has "
                             f"{got.dtype}")
        if ann.ndim >= 0 and got.ndim >= 0 and ann.ndim != got.ndim:
            raise ValueError(f"the annotation says rank {ann.ndim} but the value has rank "
                             f"{got.ndim}")
        a, g = ann.static_shape, got.static_shape
        if a is not None and g is not None and a != g:
            raise ValueError(f"the annotation says shape {a} but the value has shape {g}")


def normalize(p: Parser, expr: rx.Expr) -> rx.Expr:
    """Bind nested calls (and other non-leaf arguments) to fresh vars, TVM's A-normal form."""
    if isinstance(expr, rx.Call):
        args = tuple(_leaf(p, a) for a in expr.args)
        return replace(expr, args=args) if args != expr.args else expr
    if isinstance(expr, rx.Tuple):
        fields = tuple(_leaf(p, f) for f in expr.fields)
        return replace(expr, fields=fields) if fields != expr.fields else expr
    if isinstance(expr, rx.TupleGetItem):
        inner = _leaf(p, expr.tuple_value)
        return replace(expr, tuple_value=inner) if inner is not expr.tuple_value else expr
    return expr


def _leaf(p: Parser, expr: rx.Expr) -> rx.Expr:
    if isinstance(expr, LEAF):
        return expr
    if isinstance(expr, GlobalVar):  # `relax.Call(op, [cls.f, args])`: a function is a leaf
        return rx.GlobalVarRef(expr, si.FuncStructInfo(None, si.ObjectStructInfo()))
    if isinstance(expr, rx.Tuple):
        return normalize(p, expr)  # tuples of leaves stay inline (call_tir's argument tuple)
    expr = normalize(p, expr)  # NOTE: inner calls first, so they get the earlier names
    frame = function_frame(p)
    name = "lv" if frame.fresh == 0 else f"lv{frame.fresh}"  # TVM's builder names: lv, lv1..
    frame.fresh += 1
    return emit(p, name, expr, p.node, temporary=True)


# ---------------------------------------------------------------------------------------------
# Statements


@RELAX.register("Assign")
def visit_assign(p: Parser, node: ast.Assign) -> None:
    if len(node.targets) != 1:
        p.error(node, "chained assignment `a = b = ...` is not supported")
    target = node.targets[0]
    with p.naming(target.id if isinstance(target, ast.Name) else None):
        value = p.eval(node.value)
    if isinstance(target, ast.Name):
        _assign_name(p, target.id, value, node)
    elif isinstance(target, ast.Tuple) and all(isinstance(t, ast.Name) for t in target.elts):
        if not isinstance(value, (tuple, list)) or len(value) != len(target.elts):
            p.error(node, "tuple assignment in relax unpacks Python values only; bind the "
                          "tuple to a name and index it (t[0]) instead")
        made = _fresh_var_calls(node.value, len(target.elts))
        for t, v, fresh in zip(target.elts, value, made):
            if fresh and isinstance(v, tx.Var):  # m, n = T.int64(), T.int64(): dims "m", "n"
                v = function_frame(p).sym_vars.setdefault(t.id, tx.Var(t.id, v.dtype))
            _assign_name(p, t.id, v, t)  # type: ignore[attr-defined]
    else:
        p.error(target, "a relax assignment binds a single name")


def _fresh_var_calls(value: ast.expr, n: int) -> list[bool]:
    """Which items of `a, b = T.int64(), T.int64()` are argument-less calls (new variables)."""
    if not isinstance(value, ast.Tuple) or len(value.elts) != n:
        return [False] * n
    return [isinstance(e, ast.Call) and not e.args and not e.keywords for e in value.elts]


def _assign_name(p: Parser, name: str, value: Any, node: ast.AST) -> None:
    if isinstance(value, MetaValue):  # I.meta_var(x) / T.meta_var(x): the value itself
        value = value.value
    if isinstance(value, tx.Var) and value.name == name:  # n = T.int64(): the dim "n"
        frame = function_frame(p)
        value = frame.sym_vars.setdefault(name, value)
    if _is_relax_value(value):
        p.bind(name, emit(p, name, value, node))
    else:
        p.bind(name, value)  # `cls = Module`, Python ints, helpers: plain Python names


def _is_relax_value(value: Any) -> bool:
    if isinstance(value, (rx.Expr, MatchCastSpec)):
        return True
    if isinstance(value, (tuple, list)):
        return bool(value) and all(_is_relax_value(v) for v in value)
    return False


@RELAX.register("AnnAssign")
def visit_ann_assign(p: Parser, node: ast.AnnAssign) -> None:
    if node.value is None or not isinstance(node.target, ast.Name):
        p.error(node, "an annotated relax binding looks like `lv: R.Tensor(...) = value`")
    ann = _annotation(p, node.annotation)
    p.bind(node.target.id, emit(p, node.target.id, p.eval(node.value), node, ann))


@RELAX.register("With")
def visit_with(p: Parser, node: ast.With) -> None:
    frame = function_frame(p)
    if len(node.items) != 1 or node.items[0].optional_vars is not None or \
            not isinstance(p.eval(node.items[0].context_expr), DataflowSpec):
        p.error(node, "a relax `with` statement is `with R.dataflow():`")
    if frame.outputs is not None:
        p.error(node, "dataflow blocks cannot be nested")
    frame.flush()
    frame.outputs = _output_names(node)
    frame.output_stmts = _last_bindings(node.body, frame.outputs)
    with p.scope() as inner:
        p.visit_body(node.body)
    frame.flush(dataflow=True)
    for name in frame.outputs:
        p.bind(name, inner[name])
    frame.outputs = None


def _last_bindings(body: list[ast.stmt], names: set[str]) -> dict[str, ast.AST]:
    """For each name, the last top-level statement of the block that assigns it."""
    last: dict[str, ast.AST] = {}
    for stmt in body:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else \
            [stmt.target] if isinstance(stmt, ast.AnnAssign) else []
        for t in targets:
            for n in ast.walk(t):
                if isinstance(n, ast.Name) and n.id in names:
                    last[n.id] = stmt
    return last


def _output_names(node: ast.With) -> set[str]:
    last = node.body[-1]
    if isinstance(last, ast.Expr) and isinstance(last.value, ast.Call):
        func = last.value.func
        if (isinstance(func, ast.Attribute) and func.attr == "output") or \
                (isinstance(func, ast.Name) and func.id == "output"):
            return {a.id for a in last.value.args if isinstance(a, ast.Name)}
    return set()


@RELAX.register("Expr")
def visit_expr(p: Parser, node: ast.Expr) -> None:
    if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
        return  # a docstring
    value = p.eval(node.value)
    if isinstance(value, rx.Expr):
        emit(p, "_", value, node)
    elif value is not None:
        p.error(node, "this expression statement has no effect")


@RELAX.register("Return")
def visit_return(p: Parser, node: ast.Return) -> None:
    frame = function_frame(p)
    if frame.outputs is not None:
        p.error(node, "return inside a dataflow block; R.output(...) the values and return "
                      "after the block")
    if node.value is None:
        p.error(node, "a relax function returns a value")
    expr = _void_inline(to_expr(p.eval(node.value)))
    if not isinstance(expr, LEAF):
        expr = normalize(p, expr) if isinstance(expr, rx.Tuple) else emit(p, "gv", expr, node)
    frame.ret = expr


def _void_inline(expr: rx.Expr) -> rx.Expr:
    """A variable holding the empty tuple is used as an in-line `R.tuple()`, as TVM's
    normalizer writes every use of a void value."""
    sinfo = expr.struct_info if isinstance(expr, rx.Var) else None
    if isinstance(sinfo, si.TupleStructInfo) and not sinfo.fields:
        return rx.Tuple((), si.TupleStructInfo(()))
    return expr


@RELAX.register("FunctionDef")
def visit_function_def(p: Parser, node: ast.FunctionDef) -> None:
    """`@R.function def inner(...)` inside a relax function: a local function (a closure over
    the names around it), bound to a variable named `inner`."""
    from .entry import _decorator_kind

    kind, opts = _decorator_kind(p, node)
    if kind != "relax":
        p.error(node, "a function nested in a relax function must be an @R.function")
    if not _calls_itself(node):
        p.bind(node.name, emit(p, node.name, parse_relax_function(p, node, opts), node))
        return
    # a recursive local function: its variable (typed by the signature) exists in its body
    var = rx.Var(node.name, _signature(p, node), p.source.span(node))
    p.bind(node.name, var)
    func = parse_relax_function(p, node, opts)
    function_frame(p).bindings.append(rx.VarBinding(var, func, p.source.span(node)))


def _calls_itself(node: ast.FunctionDef) -> bool:
    return any(isinstance(n, ast.Name) and n.id == node.name
               for stmt in node.body for n in ast.walk(stmt))


def _signature(p: Parser, node: ast.FunctionDef) -> si.FuncStructInfo:
    if node.returns is None or any(a.annotation is None for a in node.args.args):
        p.error(node, f"the recursive function {node.name!r} needs annotated parameters and a "
                      "return annotation")
    with p.scope():
        params = tuple(_annotation(p, a.annotation) for a in node.args.args)
        return si.FuncStructInfo(params, _annotation(p, node.returns))


@RELAX.register("Pass")
def visit_pass(p: Parser, node: ast.Pass) -> None:
    return None


@RELAX.register("Nonlocal")
def visit_nonlocal(p: Parser, node: ast.Nonlocal) -> None:
    return None  # `nonlocal dtype`: Python closure variables are read as they are


def check_output(vars_: tuple[Any, ...]) -> None:
    """`R.output(a, b)`: each must be a var of this block named as an output (the last stmt)."""
    frame = function_frame()
    if frame is None or frame.outputs is None:
        raise ValueError("R.output(...) must be inside `with R.dataflow():`")
    for i, v in enumerate(vars_):
        if not isinstance(v, rx.Var) or isinstance(v, rx.DataflowVar) or \
                v.name_hint not in frame.outputs:
            raise ArgError("R.output(...) takes variables bound in this dataflow block and must "
                           "be its last statement", i)


@RELAX.register("If")
def visit_if(p: Parser, node: ast.If) -> None:
    """`if c: ... y = a  else: ... y = b` binds `y` to a relax `If` (both branches end by
    assigning the same name); a Python-level condition picks its branch while parsing."""
    cond = p.eval(node.test)
    if isinstance(cond, tx.PrimExpr) and not isinstance(cond, tx.IntImm):
        cond = to_expr(cond)  # `if N == 16:` over symbolic dims: a run-time R.prim_value
    if not isinstance(cond, rx.Expr):
        p.visit_body(node.body if cond else node.orelse)
        return
    frame = function_frame(p)
    if frame.outputs is not None:
        p.error(node, "`if` is not allowed inside a dataflow block")
    if not node.orelse:
        p.error(node, "an `if` in a relax function needs an `else` branch")
    name, then = _branch(p, frame, node.body, node, "then")
    other_name, other = _branch(p, frame, node.orelse, node, "else")
    if name != other_name:
        p.error(node.orelse[-1], f"both branches must end by assigning the same name; the "
                                 f"first assigns {name!r}, this one {other_name!r}")
    sinfo = _join(then.struct_info, other.struct_info)
    expr = rx.If(cond, then, other, sinfo, p.source.span(node))
    var = _new_var(frame, name, sinfo or si.ObjectStructInfo(), p.source.span(node))
    frame.bindings.append(rx.VarBinding(var, expr, p.source.span(node)))
    p.bind(name, var)


def _branch(p: Parser, frame: FunctionFrame, stmts: list[ast.stmt], node: ast.If,
            side: str) -> tuple[str, rx.SeqExpr]:
    last = stmts[-1]
    target = last.targets[0] if isinstance(last, ast.Assign) and len(last.targets) == 1 else \
        last.target if isinstance(last, ast.AnnAssign) and last.value is not None else None
    output = _dataflow_output(last)
    if not isinstance(target, ast.Name) and output is None:
        # `y = ...`, as TVM prints `y: R.Tensor = ...`, or a dataflow block ending `R.output(y)`
        p.error(last, "a branch of a relax `if` ends by assigning its result to a name")
    saved = frame.blocks, frame.bindings
    frame.blocks, frame.bindings = [], []
    try:
        with p.scope():
            if output is not None:
                p.visit_body(stmts)
                name, body = output.id, normalize(p, to_expr(p.eval(output)))
            else:
                p.visit_body(stmts[:-1])
                name, value = target.id, p.eval(last.value)
                if isinstance(value, MatchCastSpec):  # `y = R.match_cast(...)` ends the branch
                    value = emit(p, f"{name}_{side}", value, last)
                body = normalize(p, to_expr(value))
                if isinstance(body, (rx.Call, rx.If, rx.TupleGetItem)):
                    # as TVM 0.27: a computed result is bound in the branch (`y_then = ...`)
                    # and the branch returns that variable
                    var = _new_var(frame, f"{name}_{side}", body.struct_info or
                                   si.ObjectStructInfo(), p.source.span(last))
                    frame.bindings.append(rx.VarBinding(var, body, p.source.span(last)))
                    body = var
        frame.flush()
        return name, rx.SeqExpr(tuple(frame.blocks), body, p.source.span(node))
    finally:
        frame.blocks, frame.bindings = saved


def _dataflow_output(stmt: ast.stmt) -> ast.Name | None:
    """The one name a `with R.dataflow(): ... R.output(y)` block ending a branch outputs."""
    if not isinstance(stmt, ast.With) or not stmt.body:
        return None
    out = stmt.body[-1]
    call = out.value if isinstance(out, ast.Expr) else None
    if isinstance(call, ast.Call) and getattr(call.func, "attr", None) == "output" and \
            len(call.args) == 1 and isinstance(call.args[0], ast.Name):
        return call.args[0]
    return None


def _join(a: si.StructInfo | None, b: si.StructInfo | None) -> si.StructInfo:
    """The struct info both branches of an `If` satisfy."""
    if a == b and a is not None:
        return a
    if isinstance(a, si.TensorStructInfo) and isinstance(b, si.TensorStructInfo):
        return si.TensorStructInfo(None, a.dtype if a.dtype == b.dtype else "",
                                   a.ndim if a.ndim == b.ndim else -1)
    return si.ObjectStructInfo()
