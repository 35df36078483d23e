"""`tvm.script.ir_builder.relax`: relax functions built with frames, as TVM's IRBuilder builds
them (`with R.function(): R.func_name("f"); x = R.arg("x", ty); y = R.emit(...);
R.func_ret_value(y)`), with dataflow blocks and `If` / `Then` / `Else`.

The operator builders (`R.add`, `R.call_dps_packed`, ...) are the script namespace's own.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from ....ir import expr as rx
from ....ir import struct_info as si
from ....ir.functor import ExprMutator
from ....ir.ops.base import as_expr
from ..base import IRBuilder, IRBuilderFrame
from ..ir import enclosing_module


def _frames(kind: type) -> list[Any]:
    return [f for f in IRBuilder.current().frames if isinstance(f, kind)]


def _innermost(kind: type, what: str) -> Any:
    found = _frames(kind)
    if not found:
        raise RuntimeError(f"{what} must be used inside `with R.{kind.__name__.lower()[:-5]}()`")
    return found[-1]


def _bindings_owner() -> Any:
    """The frame new bindings go to: the innermost function, block or branch."""
    for f in reversed(IRBuilder.current().frames):
        if isinstance(f, (FunctionFrame, BlockFrame, BranchFrame)):
            return f
    raise RuntimeError("R.emit must be used inside `with R.function()`")


@dataclass
class FunctionFrame(IRBuilderFrame):
    is_pure: bool = True
    is_private: bool = False
    name: str | None = None
    params: list[rx.Var] = field(default_factory=list)
    attrs: dict[str, Any] = field(default_factory=dict)
    ret_sinfo: si.StructInfo | None = None
    blocks: list[rx.BindingBlock] = field(default_factory=list)
    bindings: list[rx.Binding] = field(default_factory=list)
    ret_value: rx.Expr | None = None

    def flush(self) -> None:
        if self.bindings:
            self.blocks.append(rx.BindingBlock(tuple(self.bindings)))
            self.bindings = []

    def finish(self, builder: IRBuilder) -> None:
        if self.ret_value is None:
            raise RuntimeError("R.function: call R.func_ret_value(value) before the frame ends")
        self.flush()
        attrs = dict(self.attrs)
        if self.name and not self.is_private:
            attrs.setdefault("global_symbol", self.name)
        body = rx.SeqExpr(tuple(self.blocks), self.ret_value)
        ret = self.ret_value.struct_info
        if self.ret_sinfo is not None and (ret is None or not self.ret_sinfo.is_base_of(ret)):
            ret = self.ret_sinfo  # NOTE: TVM keeps the body's when it refines the annotation
        func = rx.Function(tuple(self.params), body, ret, self.is_pure, tuple(attrs.items()))
        module = enclosing_module()
        if module is None:
            builder.result = func
        else:  # inside `with I.ir_module():` the function joins the module under its name
            module.add(self.name or f"func_{len(module.functions)}", func)


@dataclass
class BlockFrame(IRBuilderFrame):
    """`with R.dataflow() as df:`; after it, `df.output_vars` are the outputs as plain Vars."""

    bindings: list[rx.Binding] = field(default_factory=list)
    outputs: list[rx.Var] = field(default_factory=list)
    output_vars: list[rx.Var] = field(default_factory=list)

    def finish(self, builder: IRBuilder) -> None:
        mapping = {v: rx.Var(v.name_hint, v.struct_info) for v in self.outputs}
        sub = _Substitute(mapping)
        bindings = tuple(sub.rebind(b) for b in self.bindings)
        self.output_vars = [mapping[v] for v in self.outputs]
        owner = _bindings_owner()
        if isinstance(owner, FunctionFrame):
            owner.flush()
            owner.blocks.append(rx.DataflowBlock(bindings))
        else:
            raise RuntimeError("R.dataflow() blocks must be directly inside R.function()")


class _Substitute(ExprMutator):
    def __init__(self, mapping: dict[rx.Var, rx.Var]) -> None:
        self.mapping = mapping

    def visit_DataflowVar(self, v: rx.DataflowVar) -> rx.Expr:  # noqa: N802
        return self.mapping.get(v, v)

    def rebind(self, b: rx.Binding) -> rx.Binding:
        value = self.visit(b.value)
        var = self.mapping.get(b.var, b.var)
        if isinstance(b, rx.MatchCast):
            return rx.MatchCast(var, value, b.struct_info)
        return rx.VarBinding(var, value)


@dataclass
class BranchFrame(IRBuilderFrame):
    """`with R.Then():` / `with R.Else():` inside `with R.If(cond):`; the branch's value is
    its last bound variable."""

    bindings: list[rx.Binding] = field(default_factory=list)
    is_then: bool = True
    result_name: str = "v"

    def finish(self, builder: IRBuilder) -> None:
        if not self.bindings:
            raise RuntimeError("a branch of R.If must bind at least one value")
        last = self.bindings[-1]
        # NOTE: as the parser builds a branch (TVM 0.27): every value bound in the branch,
        # the last variable its result
        seq = rx.SeqExpr((rx.BindingBlock(tuple(self.bindings)),), last.var)
        self.result_name = last.var.name_hint
        frame = _innermost(IfFrame, "R.Then / R.Else")
        frame.name = self.result_name
        if self.is_then:
            frame.then_seq = seq
        else:
            frame.else_seq = seq


@dataclass
class IfFrame(IRBuilderFrame):
    cond: rx.Expr | None = None
    then_seq: rx.SeqExpr | None = None
    else_seq: rx.SeqExpr | None = None
    var: rx.Var | None = None
    name: str = "v"

    def finish(self, builder: IRBuilder) -> None:
        if self.then_seq is None or self.else_seq is None:
            raise RuntimeError("R.If needs both `with R.Then():` and `with R.Else():`")
        a, b = self.then_seq.struct_info, self.else_seq.struct_info
        sinfo = a if a == b else si.ObjectStructInfo()
        self.var = rx.Var(self.name, sinfo)
        value = rx.If(self.cond, self.then_seq, self.else_seq, sinfo)  # type: ignore[arg-type]
        _append(rx.VarBinding(self.var, value))


def _append(binding: rx.Binding) -> None:
    _bindings_owner().bindings.append(binding)


# -- the frame constructors and statements -------------------------------------------------------


def function(is_pure: bool = True, is_private: bool = False) -> FunctionFrame:
    return FunctionFrame(is_pure=is_pure, is_private=is_private)


def dataflow() -> BlockFrame:
    return BlockFrame()


def If(condition: Any) -> IfFrame:  # noqa: N802 (TVM's name)
    return IfFrame(cond=as_expr(condition))


def Then() -> BranchFrame:  # noqa: N802 (TVM's name)
    return BranchFrame(is_then=True)


def Else() -> BranchFrame:  # noqa: N802 (TVM's name)
    return BranchFrame(is_then=False)


def func_name(name: str) -> None:
    _innermost(FunctionFrame, "R.func_name").name = name


def func_attr(attrs: dict[str, Any]) -> None:
    _innermost(FunctionFrame, "R.func_attr").attrs.update(attrs)


def func_ret_ty(ty: si.StructInfo) -> None:
    _innermost(FunctionFrame, "R.func_ret_ty").ret_sinfo = ty


func_ret_type = func_ret_struct_info = func_ret_ty


def func_ret_value(value: Any) -> None:
    _innermost(FunctionFrame, "R.func_ret_value").ret_value = as_expr(value)


def arg(name: str, ty: si.StructInfo) -> rx.Var:
    """A new parameter of the function being built."""
    v = rx.Var(name, ty)
    _innermost(FunctionFrame, "R.arg").params.append(v)
    return v


def _new_var(sinfo: si.StructInfo | None) -> rx.Var:
    in_dataflow = isinstance(_bindings_owner(), BlockFrame)
    return (rx.DataflowVar if in_dataflow else rx.Var)("v", sinfo)


def emit(value: Any, ty: si.StructInfo | None = None) -> rx.Var:
    """Bind `value` to a new variable (named by `IRBuilder.name`, "v" until then); calls
    nested in it are bound first (A-normal form, as TVM's builder normalizes)."""
    expr = _flattened(as_expr(value))
    var = _new_var(ty or expr.struct_info)
    _append(rx.VarBinding(var, expr))
    return var


def _flattened(e: rx.Expr) -> rx.Expr:
    """`e` with the calls among its operands (`batch_norm(...)[0]`, `f(g(x))`) emitted."""
    def leaf(a: rx.Expr) -> rx.Expr:
        if isinstance(a, rx.Call):
            return emit(a)
        if isinstance(a, rx.Tuple) and any(isinstance(f, rx.Call) for f in a.fields):
            return rx.Tuple(tuple(leaf(f) for f in a.fields))
        return a

    if isinstance(e, rx.TupleGetItem) and isinstance(e.tuple_value, rx.Call):
        return rx.TupleGetItem(emit(e.tuple_value), e.index)
    if isinstance(e, rx.Call):
        args = tuple(leaf(a) for a in e.args)
        if any(x is not y for x, y in zip(args, e.args)):
            return replace(e, args=args)
    return e


def emit_with_type(op: str, args: Any, ty_args: Any = None) -> rx.Call:
    """TVM's `R.emit_with_ty("relax.builtin.alloc_tensor", (shape, dtype, ...), (ty,))`: a
    call of the named operator with type arguments (bound by the assignment it stands in)."""
    from ....ir.op import get_op, with_inferred_struct_info

    fields = tuple(args) if isinstance(args, (tuple, list)) else (args,)
    tys = () if ty_args is None else tuple(ty_args) if isinstance(ty_args, (tuple, list)) \
        else (ty_args,)
    call = rx.Call(get_op(op), tuple(as_expr(a) for a in fields), sinfo_args=tys)
    call = with_inferred_struct_info(call)
    if call.struct_info is None and len(tys) == 1:
        call = replace(call, struct_info=tys[0])
    return call


emit_with_ty = emit_with_struct_info = emit_with_type


def emit_match_cast(value: Any, ty: si.StructInfo) -> rx.Var:
    var = _new_var(ty)
    _append(rx.MatchCast(var, as_expr(value), ty))
    return var


def emit_var_binding(binding: rx.VarBinding) -> rx.Var:
    _append(binding)
    return binding.var


def output(*vars_: rx.Var) -> None:
    _innermost(BlockFrame, "R.output").outputs.extend(vars_)


def __getattr__(attr: str) -> Any:
    # the operator builders and struct info of the script namespace (R.add, R.Tensor, ...)
    from ... import relax as script_relax

    return getattr(script_relax, attr)


__all__ = ["function", "dataflow", "If", "Then", "Else", "func_name", "func_attr",
           "func_ret_ty", "func_ret_type", "func_ret_value", "arg", "emit", "emit_with_ty",
           "emit_with_type", "emit_match_cast", "emit_var_binding", "output", "IRBuilder"]
