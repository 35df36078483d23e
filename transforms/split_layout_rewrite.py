"""SplitLayoutRewritePreproc (TVM's pass): a kernel whose weights are repacked by its own leading
loop nests splits in two, a prepack kernel and the kernel computing on the repacked weights.

MetaSchedule's layout rewrite marks the blocks that copy a weight into its tuned layout with
`meta_schedule.layout_rewrite_preproc`. Each top-level statement of the kernel's root block that
holds such a block moves to `<name>_weight_prepack`, whose parameters are the weights it reads
then the repacked buffers it writes; the rest stays in `<name>_prepacked`, which takes each
repacked buffer where the kernel took the weight. Every `call_tir` of the kernel becomes a call
of the prepack kernel followed by a call of the compute kernel, so that a later pass
(LiftTransformParams) can hoist the repacking out of inference.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from ..ir import expr as rx
from ..ir import struct_info as si
from ..ir.module import GlobalVar, IRModule, fresh_name
from ..ir.op import CALL_TIR
from ..tir.expr import BufferLoad, IntImm, Var
from ..tir.function import PrimFunc
from ..tir.functor import Mutator, Visitor, any_node
from ..tir.renew_defs import renew_defs
from ..tir.stmt import Block, BlockRealize, Buffer, BufferStore, SeqStmt, Stmt
from .layout_free_buffers import called_global_names
from .pass_infra import Pass, PassContext

PREPROC_ATTR = "meta_schedule.layout_rewrite_preproc"


def SplitLayoutRewritePreproc() -> Pass:  # noqa: N802
    """Split each prim_func's layout-rewrite preprocessing into a kernel of its own."""
    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        names = {gv.name_hint for gv in mod.functions}
        splits: dict[str, _Split] = {}
        for gv, func in mod.items():
            if isinstance(func, PrimFunc):
                split = _split_prim_func(func)
                if split is not None:
                    splits[gv.name_hint] = split.named(gv.name_hint, names)
        if not splits:
            return mod
        rewriter = _CallRewriter(splits)
        funcs: dict[GlobalVar, Any] = {}
        for gv, func in mod.items():
            funcs[gv] = rewriter.function(func) if isinstance(func, rx.Function) else func
        for split in splits.values():
            funcs[split.prepack_gv] = split.prepack
            funcs[split.compute_gv] = split.compute
        called = called_global_names(funcs)  # the two halves replace the kernel where called
        funcs = {gv: f for gv, f in funcs.items()
                 if gv.name_hint not in splits or gv.name_hint in called}
        return IRModule(funcs, dict(mod.attrs), dict(mod.global_infos))
    return Pass(run, "SplitLayoutRewritePreproc")


@dataclass
class _Split:
    """The two kernels one prim_func splits into, and how the call's arguments map to them."""

    prepack: PrimFunc
    compute: PrimFunc
    weight_args: list[int]  # the call arguments the prepack kernel reads, in its order
    rewritten: dict[int, int]  # call argument -> index of the prepack output replacing it
    prepack_gv: GlobalVar | None = None
    compute_gv: GlobalVar | None = None

    def named(self, base: str, taken: set[str]) -> _Split:
        for attr, suffix in (("prepack", "_weight_prepack"), ("compute", "_prepacked")):
            name = fresh_name(base + suffix, taken)
            taken.add(name)
            func = getattr(self, attr)
            if "global_symbol" in func.attr_dict:  # an exported kernel keeps a unique symbol
                setattr(self, attr, func.with_attr("global_symbol", name))
            setattr(self, attr + "_gv", GlobalVar(name))
        return self


def _is_preproc(node: Any) -> bool:
    return isinstance(node, Block) and PREPROC_ATTR in dict(node.annotations)


class _DropPreprocAttr(Mutator):
    def visit_Block(self, block: Block) -> Block:  # noqa: N802
        block = self.generic_visit(block)
        if not _is_preproc(block):
            return block
        return replace(block, annotations=tuple(
            (k, v) for k, v in block.annotations if k != PREPROC_ATTR))


def _preproc_copies(stmt: Stmt) -> list[tuple[Buffer, Buffer]]:
    """(source, destination) buffers of each preprocessing block under `stmt`: its body must be
    one store of a buffer into another, as MetaSchedule's layout rewrite writes it."""
    found: list[tuple[Buffer, Buffer]] = []

    class _Find(Visitor):
        def visit_Block(self, block: Block) -> None:  # noqa: N802
            if _is_preproc(block):
                body = block.body
                if not (isinstance(body, BufferStore) and isinstance(body.value, BufferLoad)):
                    raise ValueError(f"layout-rewrite block '{block.name}' must copy one "
                                     "buffer into another")
                found.append((body.value.buffer, body.buffer))
            self.generic_visit(block)

    _Find().visit(stmt)
    return found


def _seq(stmts: list[Stmt]) -> Stmt:
    return stmts[0] if len(stmts) == 1 else SeqStmt(tuple(stmts))


def _split_prim_func(func: PrimFunc) -> _Split | None:
    root = func.body
    if not (isinstance(root, BlockRealize) and any_node(root.block.body, _is_preproc)):
        return None
    stmts = root.block.body.seq if isinstance(root.block.body, SeqStmt) else (root.block.body,)
    preproc = [s for s in stmts if any_node(s, _is_preproc)]
    rest = [s for s in stmts if not any_node(s, _is_preproc)]
    copies = [c for s in preproc for c in _preproc_copies(s)]
    # the call argument (= parameter position) each buffer parameter takes
    position = {buf: next(i for i, p in enumerate(func.params) if p is var)
                for var, buf in func.buffer_map}
    for src, _ in copies:
        if src not in position:
            raise ValueError(f"layout-rewrite source '{src.name}' is not a parameter buffer")
    attrs = tuple((k, v) for k, v in func.attrs if k != "layout_free_buffers")
    sources = list(dict.fromkeys(src for src, _ in copies))
    outs = list(dict.fromkeys(dst for _, dst in copies))
    out_params = [Var(b.name, "handle") for b in outs]
    # the prepack kernel: weights in, repacked buffers out (on definitions of its own)
    pre_params = [func.params[position[b]] for b in sources] + out_params
    pre_root = replace(root, block=replace(
        root.block, body=_DropPreprocAttr().visit(_seq(preproc)), alloc_buffers=()))
    prepack = renew_defs(replace(func, params=tuple(pre_params), attrs=attrs, body=pre_root,
                                 buffer_map=tuple(zip(pre_params, sources + outs))))
    # the compute kernel: each weight's parameter takes its repacked buffer
    rewrite_of = dict(copies)
    params, bmap, rewritten = [], [], {}
    for i, var in enumerate(func.params):
        buf = func.buffer_of(var)
        if buf in rewrite_of:
            k = outs.index(rewrite_of[buf])
            var, buf, rewritten[i] = out_params[k], outs[k], k
        params.append(var)
        if buf is not None:
            bmap.append((var, buf))
    allocs = tuple(b for b in root.block.alloc_buffers if b not in outs)
    comp_root = replace(root, block=replace(root.block, body=_seq(rest), alloc_buffers=allocs))
    compute = replace(func, params=tuple(params), attrs=attrs, body=comp_root,
                      buffer_map=tuple(bmap))
    return _Split(prepack, compute, [position[b] for b in sources], rewritten)


class _CallRewriter:
    """Each binding of a call_tir of a split kernel becomes prepack + compute bindings."""

    def __init__(self, splits: dict[str, _Split]) -> None:
        self.splits = splits

    def function(self, func: rx.Function) -> rx.Function:
        body = func.body
        if not isinstance(body, rx.SeqExpr):
            return func
        blocks = tuple(self.block(b) for b in body.blocks)
        if all(a is b for a, b in zip(blocks, body.blocks)):
            return func
        return replace(func, body=replace(body, blocks=blocks))

    def block(self, block: rx.BindingBlock) -> rx.BindingBlock:
        out: list[Any] = []
        changed = False
        for b in block.bindings:
            split = self._split_of(b.value) if isinstance(b, rx.VarBinding) else None
            if split is None:
                out.append(b)
                continue
            changed = True
            make = rx.DataflowVar if isinstance(block, rx.DataflowBlock) else rx.Var
            out.extend(self._expand(b, split, make))
        return replace(block, bindings=tuple(out)) if changed else block

    def _split_of(self, value: Any) -> _Split | None:
        if not (isinstance(value, rx.Call) and isinstance(value.op, rx.Op)
                and value.op.name == CALL_TIR.name and isinstance(value.args[0], rx.GlobalVarRef)
                and isinstance(value.args[1], rx.Tuple) and len(value.args) == 2):
            return None  # a call passing symbolic dims (tir_vars) keeps the whole kernel
        return self.splits.get(value.args[0].gvar.name_hint)

    def _expand(self, binding: rx.VarBinding, split: _Split, make: type) -> list[rx.VarBinding]:
        call = binding.value
        args = call.args[1].fields
        outs = split.prepack.params[len(split.weight_args):]
        out_sinfo = [_tensor_sinfo(split.prepack.buffer_of(p)) for p in outs]
        ret = out_sinfo[0] if len(out_sinfo) == 1 else si.TupleStructInfo(tuple(out_sinfo))
        pre_args = tuple(args[i] for i in split.weight_args)
        pre_call = _call_tir(split.prepack_gv, pre_args, ret)
        packed = make("lv", ret)
        bindings = [rx.VarBinding(packed, pre_call)]
        items = [packed]
        if len(out_sinfo) > 1:
            items = [make("lv", s) for s in out_sinfo]
            bindings += [rx.VarBinding(v, rx.TupleGetItem(packed, k, s))
                         for k, (v, s) in enumerate(zip(items, out_sinfo))]
        new_args = tuple(items[split.rewritten[i]] if i in split.rewritten else a
                         for i, a in enumerate(args))
        comp_call = _call_tir(split.compute_gv, new_args, call.sinfo_args[0], call.args[2:])
        result = make("lv", binding.var.struct_info)
        bindings += [rx.VarBinding(result, comp_call), replace(binding, value=result)]
        return bindings


def _tensor_sinfo(buf: Buffer) -> si.TensorStructInfo:
    # relax shapes are int64; the buffer's constant dims may be int32
    dims = tuple(d.value if isinstance(d, IntImm) else d for d in buf.shape)
    return si.TensorStructInfo(dims, buf.dtype)


def _call_tir(gv: GlobalVar, args: tuple[rx.Expr, ...], out: si.StructInfo,
              extra: tuple[rx.Expr, ...] = ()) -> rx.Call:
    fields = rx.Tuple(args, si.TupleStructInfo(tuple(a.struct_info for a in args)))
    callee = rx.GlobalVarRef(gv, si.FuncStructInfo(None, si.ObjectStructInfo()))
    return rx.Call(CALL_TIR, (callee, fields, *extra), sinfo_args=(out,), struct_info=out)
