"""Module-level passes TVM's pipelines use around parameters and purity: BundleModelParams,
RemovePurityChecking and MetaScheduleTuneIRMod (TVM's passes of those names)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..ir import expr as rx
from ..ir import struct_info as si
from ..ir.functor import ExprMutator, var_use_counts
from ..ir.module import IRModule
from ..ir.op import CALL_PURE_PACKED
from .pass_infra import Pass, PassContext


# -- BundleModelParams -----------------------------------------------------------------------


def _first_use(func: rx.Function, params: list[rx.Var]) -> dict[rx.Var, tuple[int, int]]:
    """Where each parameter is first read: (block index, binding index); the body counts as
    the end of the last block."""
    where: dict[rx.Var, tuple[int, int]] = {}
    for i, blk in enumerate(func.body.blocks):
        for j, b in enumerate(blk.bindings):
            for v in var_use_counts(b.value):
                if v in params and v not in where:
                    where[v] = (i, j)
    end = (max(len(func.body.blocks) - 1, 0), 1 << 30)
    for v in var_use_counts(func.body.body):
        if v in params and v not in where:
            where[v] = end
    return where


def _bundle(func: rx.Function, name: str) -> rx.Function:
    n = int(func.attr_dict["num_input"])
    weights = list(func.params[n:])
    bundle = rx.Var(name, si.TupleStructInfo(tuple(p.struct_info or si.ObjectStructInfo()
                                                   for p in weights)))
    where = _first_use(func, weights)
    kinds = [type(b) for b in func.body.blocks] or [rx.BindingBlock]
    mapping: dict[rx.Var, rx.Var] = {}
    for p, (i, _) in where.items():
        make = rx.DataflowVar if kinds[i] is rx.DataflowBlock else rx.Var
        mapping[p] = make(p.name_hint, p.struct_info, p.span)
    seq = _RenameUses(mapping).visit(func.body)
    blocks = [list(b.bindings) for b in seq.blocks] or [[]]
    for p in sorted(where, key=lambda v: where[v], reverse=True):
        i, j = where[p]
        item = rx.TupleGetItem(bundle, weights.index(p), p.struct_info)
        blocks[i].insert(min(j, len(blocks[i])), rx.VarBinding(mapping[p], item))
    new_blocks = tuple(k(tuple(bs)) for k, bs in zip(kinds, blocks) if bs)
    return replace(func, params=tuple(func.params[:n]) + (bundle,),
                   body=replace(seq, blocks=new_blocks))


class _RenameUses(ExprMutator):
    def __init__(self, mapping: dict[rx.Var, rx.Var]) -> None:
        self.mapping = dict(mapping)

    def visit_Var(self, v: rx.Var) -> rx.Expr:
        return self.mapping.get(v, v)

    visit_DataflowVar = visit_Var


def BundleModelParams(param_tuple_name: str | None = None) -> Pass:  # noqa: N802
    """The parameters after `num_input` (the weights) become one tuple parameter; each is
    read out of it where it is first used."""
    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        def one(gv: Any, f: Any) -> Any:
            if not isinstance(f, rx.Function) or "num_input" not in f.attr_dict:
                return f
            return _bundle(f, param_tuple_name or "model_params")
        return mod.map_functions(one)
    return Pass(run, "BundleModelParams")


# -- RemovePurityChecking --------------------------------------------------------------------


class _Unwrap(ExprMutator):
    def visit_Call(self, call: rx.Call) -> rx.Expr:
        call = self.generic_visit(call)
        if call.op == CALL_PURE_PACKED and call.args and isinstance(call.args[0], rx.ExternFunc):
            return rx.Call(call.args[0], call.args[1:], sinfo_args=call.sinfo_args,
                           struct_info=call.struct_info, span=call.span)
        return call


def RemovePurityChecking() -> Pass:  # noqa: N802
    """Pure functions get `relax.force_pure` (their impure calls are trusted), and
    `R.call_pure_packed(f, ...)` becomes the plain `R.call_packed(f, ...)` it wraps."""
    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        def one(gv: Any, f: Any) -> Any:
            if not isinstance(f, rx.Function):
                return f
            f = _Unwrap().visit(f)
            return f.with_attr("relax.force_pure", True) if f.is_pure else f
        return mod.map_functions(one)
    return Pass(run, "RemovePurityChecking")


# -- MetaScheduleTuneIRMod -------------------------------------------------------------------


def MetaScheduleTuneIRMod(params: dict[str, Any] | None = None, work_dir: str = "tuning_logs",  # noqa: N802
                          max_trials_global: int = 64, max_trials_per_task: int | None = None,
                          op_names: list[str] | None = None) -> Pass:
    """Tune the module for MetaScheduleApplyDatabase, recording into `work_dir`; the module
    itself is returned unchanged, as in TVM. A module whose graph functions still hold
    high-level operators has its matmuls tuned as the build will make them (the whole-model
    tuner, meta_schedule/relax_integration.py); otherwise its prim_funcs (those named in
    `op_names`, if given) are tuned for the target in scope. `params` are accepted for
    TVM's signature (bind them first with BindParams)."""
    from ..meta_schedule import MetaScheduleTuneTIR, relax_integration
    from ..tir.function import PrimFunc

    tune = MetaScheduleTuneTIR(work_dir, max_trials_global, max_trials_per_task)

    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        if relax_integration.extract_tasks(mod):
            relax_integration.tune_relax(mod, params, "llvm", work_dir, max_trials_global,
                                         max_trials_per_task)
            return mod
        if op_names is None:
            return tune(mod)
        chosen = IRModule({gv: f for gv, f in mod.items() if isinstance(f, PrimFunc) and any(
            name in gv.name_hint for name in op_names)})
        tune(chosen)
        return mod
    return Pass(run, "MetaScheduleTuneIRMod")


# -- AttachExternModules ---------------------------------------------------------------------


def AttachExternModules(extern_modules: list[Any]) -> Pass:  # noqa: N802
    """Load each external module (anything with `load()`, such as TVM's
    `nn.ExternModule`) and append it to the module's `external_mods` attribute."""
    for ext in extern_modules:
        if not callable(getattr(ext, "load", None)):
            raise TypeError(f"AttachExternModules: {ext!r} has no load() method; expected an "
                            "external module")

    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        attrs = dict(mod.attrs)
        attrs["external_mods"] = list(attrs.get("external_mods", [])) + [
            ext.load() for ext in extern_modules]
        return IRModule(dict(mod.functions), attrs, dict(mod.global_infos))
    return Pass(run, "AttachExternModules")


# -- AlterOpImpl -----------------------------------------------------------------------------


def AlterOpImpl(op_impl_map: dict[str, Any], op_buffer_transforms: dict[str, list[Any]],  # noqa: N802
                op_buffer_axis_separators: dict[str, Any] | None = None,
                op_buffer_input_axis_separators: dict[str, Any] | None = None) -> Pass:
    """Calls of kernels whose `operator_name` attribute is a key of `op_impl_map` call the
    replacement kernel instead (added as `<operator_name>_replacement`, dots as underscores).
    Replacements that change buffer layouts (non-empty `op_buffer_transforms`) need
    `R.layout_transform`, which tvmlite does not have yet: they are refused."""
    from ..ir.op import CALL_TIR
    from ..ir.module import GlobalVar
    from ..tir.function import PrimFunc

    for name, changes in (op_buffer_transforms or {}).items():
        if changes:
            raise NotImplementedError(f"AlterOpImpl: {name!r} changes buffer layouts, which "
                                      "needs R.layout_transform; tvmlite replaces kernels "
                                      "only where the layouts stay as they are")

    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        funcs = dict(mod.functions)
        replaced: dict[str, GlobalVar] = {}
        for gv, f in mod.items():
            op_name = f.attr_dict.get("operator_name") if isinstance(f, PrimFunc) else None
            if op_name in op_impl_map:
                new_gv = GlobalVar(str(op_name).replace(".", "_") + "_replacement")
                funcs[new_gv] = op_impl_map[op_name]
                replaced[gv.name_hint] = new_gv

        class _Swap(ExprMutator):
            def visit_Call(self, call: rx.Call) -> rx.Expr:
                call = self.generic_visit(call)
                callee = call.args[0] if call.op == CALL_TIR and call.args else None
                if isinstance(callee, rx.GlobalVarRef) and callee.gvar.name_hint in replaced:
                    new = replace(callee, gvar=replaced[callee.gvar.name_hint])
                    return replace(call, args=(new, *call.args[1:]))
                return call

        for gv, f in list(funcs.items()):
            if isinstance(f, rx.Function):
                funcs[gv] = _Swap().visit(f)
        return IRModule(funcs, dict(mod.attrs), dict(mod.global_infos))
    return Pass(run, "AlterOpImpl")
