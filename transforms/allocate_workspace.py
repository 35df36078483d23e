"""AllocateWorkspace (TVM's pass): external functions that need scratch memory get it passed in.

A BYOC function whose attributes ask for a `WorkspaceSize` (cutlass attention does) takes one
more parameter, `workspace: R.Tensor((size,), "uint8")`, sized for the largest request in the
module, and hands it on to its composite functions that asked for one; it is re-added under a
fresh name (`f` -> `f1`), as TVM's builder names it. Every other relax function that calls one
allocates the workspace once, `workspace_main = R.builtin.alloc_tensor(...)` at the start of its
first dataflow block, and passes it to each call.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..ir import expr as rx
from ..ir import struct_info as si
from ..ir.functor import ExprMutator, ExprVisitor
from ..ir.module import GlobalVar, IRModule
from ..ir.op import op_attr
from .pass_infra import Pass, PassContext

_SIZE = "WorkspaceSize"


def _requested(func: Any) -> int:
    value = func.attr_dict.get(_SIZE) if isinstance(func, rx.Function) else None
    return int(getattr(value, "value", value) or 0)


class _PassWorkspace(ExprMutator):
    """Inside an external function: its composite functions that asked for a workspace take
    one too, and each call of them passes `workspace` on."""

    def __init__(self, workspace: rx.Var) -> None:
        self.workspace = workspace
        self.remap: dict[rx.Var, rx.Var] = {}

    def visit_binding(self, binding: Any) -> Any:
        value = binding.value
        if isinstance(binding, rx.VarBinding) and _requested(value):
            inner = rx.Var(f"{self.workspace.name_hint}_1", self.workspace.struct_info)
            func = replace(value, params=value.params + (inner,),
                           attrs=tuple((k, v) for k, v in value.attrs if k != _SIZE))
            var = replace(binding.var, struct_info=func.struct_info)
            self.remap[binding.var] = var
            return replace(binding, var=var, value=func)
        return super().visit_binding(binding)

    def visit_Call(self, call: rx.Call) -> Any:
        new = self.generic_visit(call)
        if isinstance(call.op, rx.Var) and call.op in self.remap:
            return replace(new, op=self.remap[call.op], args=new.args + (self.workspace,))
        return new


class _ProvideWorkspace(ExprMutator):
    """In a calling function: allocate the workspace once and pass it to every call of a
    rewritten external function."""

    def __init__(self, renamed: dict[str, tuple[GlobalVar, rx.Function]], size: int) -> None:
        self.renamed = renamed
        self.size = size
        self.workspace: rx.Var | None = None

    def visit_block(self, block: rx.BindingBlock) -> rx.BindingBlock:
        first = self.workspace is None and isinstance(block, rx.DataflowBlock)
        if first:
            self.workspace = rx.DataflowVar("workspace_main", _workspace_sinfo(self.size))
        new = super().visit_block(block)
        if not first:
            return new
        alloc = op_attr("relax.builtin.alloc_tensor", "make")(
            rx.ShapeExpr((self.size,)), "uint8", 0)
        return replace(new, bindings=(rx.VarBinding(self.workspace, alloc),) + new.bindings)

    def visit_Call(self, call: rx.Call) -> Any:
        new = self.generic_visit(call)
        op = new.op
        if not isinstance(op, rx.GlobalVarRef) or op.gvar.name_hint not in self.renamed:
            return new
        if self.workspace is None:
            raise ValueError(f"AllocateWorkspace: {op.gvar.name_hint} is called outside a "
                             "dataflow block, where no workspace is allocated")
        gv, func = self.renamed[op.gvar.name_hint]
        return replace(new, op=rx.GlobalVarRef(gv, func.struct_info),
                       args=new.args + (self.workspace,))


def _calls_any(func: rx.Function, names: dict[str, Any]) -> bool:
    found = False

    class _Find(ExprVisitor):
        def visit_GlobalVarRef(self, ref: rx.GlobalVarRef) -> None:
            nonlocal found
            found = found or ref.gvar.name_hint in names

    _Find().visit(func)
    return found


def _workspace_sinfo(size: int) -> si.TensorStructInfo:
    return si.TensorStructInfo((size,), "uint8")


def _fresh_name(name: str, taken: set[str]) -> str:
    k = 1
    while f"{name}{k}" in taken:
        k += 1
    return f"{name}{k}"


def _with_workspace(func: rx.Function, size: int, name: str) -> rx.Function:
    workspace = rx.Var("workspace", _workspace_sinfo(size))
    body = _PassWorkspace(workspace).visit(func.body)
    attrs = {k: v for k, v in func.attrs if k != _SIZE}
    if "global_symbol" in attrs:
        attrs["global_symbol"] = name
    return replace(func, params=func.params + (workspace,), body=body,
                   attrs=tuple(attrs.items()))


def AllocateWorkspace() -> Pass:  # noqa: N802 (TVM's name)
    """Give external functions asking for a `WorkspaceSize` a workspace argument, allocated by
    their callers (see the module docstring)."""

    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        size = max((_requested(f) for f in mod.functions.values()), default=0)
        if size == 0:
            return mod
        taken = {gv.name_hint for gv in mod.functions}
        renamed: dict[str, tuple[GlobalVar, rx.Function]] = {}
        for gv, f in mod.items():
            if _requested(f):
                name = _fresh_name(gv.name_hint, taken)
                taken.add(name)
                renamed[gv.name_hint] = (GlobalVar(name), _with_workspace(f, size, name))
        funcs: dict[GlobalVar, Any] = {}
        for gv, f in mod.items():
            if gv.name_hint in renamed:
                new_gv, new_f = renamed[gv.name_hint]
                funcs[new_gv] = new_f
            elif isinstance(f, rx.Function) and _calls_any(f, renamed):
                funcs[gv] = _ProvideWorkspace(renamed, size).visit(f)
            else:
                funcs[gv] = f
        return IRModule(funcs, dict(mod.attrs), dict(mod.global_infos))

    return Pass(run, "AllocateWorkspace")


__all__ = ["AllocateWorkspace"]
