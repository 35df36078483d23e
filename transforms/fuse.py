"""AnnotateTIROpPattern, FuseOps and FuseTIR (TVM's operator fusion, greedy form).

AnnotateTIROpPattern sets each prim_func's `op_pattern` (TVM's OpPatternKind: 0 elementwise,
1 broadcast, 2 injective, 3 reduction, 4 out-elementwise-fusable such as matmul/conv, 8 opaque).
FuseOps walks each dataflow block in order and lets a call_tir of pattern <= injective join the
group of the call that produced one of its arguments when that value has no other use and the
group admits it: injective into injective, elementwise/broadcast into a reduction or a
matmul/conv (its epilogue). Each group of two or more becomes a private relax function with
attribute `Primitive`, called from where the group's last member was. FuseTIR turns every call
of such a function into `call_tir` of one prim_func holding all members' blocks, intermediates
as root-block buffers.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..ir import expr as rx
from ..ir import struct_info as si
from ..ir.functor import ExprMutator, var_use_counts
from ..ir.module import GlobalVar, IRModule, fresh_name
from ..ir.op import CALL_TIR
from ..ir.ops.base import BROADCAST, INJECTIVE, OPAQUE, OUT_EWISE_FUSABLE, REDUCE
from ..tir import expr as tx
from ..tir.function import PrimFunc
from ..tir.functor import Mutator, Visitor
from ..tir.stmt import Block, BlockRealize, Buffer, IterType, make_buffer, seq
from .pass_infra import Pass, PassContext
from .simple_passes import remove_unused

# -- AnnotateTIROpPattern -------------------------------------------------------------------------


class _Blocks(Visitor):
    def __init__(self) -> None:
        self.blocks: list[Block] = []

    def visit_Block(self, b: Block) -> None:
        if b.iter_vars or b.name != "root":
            self.blocks.append(b)
        self.generic_visit(b)


def _loads(node: Any) -> list[tx.BufferLoad]:
    out: list[tx.BufferLoad] = []

    class _L(Visitor):
        def visit_BufferLoad(self, e: tx.BufferLoad) -> None:
            out.append(e)
            self.generic_visit(e)

    _L().visit(node)
    return out


def block_pattern(b: Block) -> int:
    store = b.body
    if not hasattr(store, "indices"):
        return OPAQUE
    if any(iv.iter_type is IterType.REDUCE for iv in b.iter_vars):
        others = {ld.buffer for ld in _loads(store.value) if ld.buffer is not store.buffer}
        value = store.value
        mul_add = isinstance(value, tx.BinOp) and value.op is tx.BinaryOp.ADD and \
            isinstance(value.b, tx.BinOp) and value.b.op is tx.BinaryOp.MUL
        return OUT_EWISE_FUSABLE if mul_add and len(others) == 2 else REDUCE
    out_idx = list(store.indices)
    kind = 0
    for ld in _loads(store.value):
        idx = list(ld.indices)
        if idx == out_idx and all(isinstance(i, tx.Var) for i in idx):
            continue
        if all(isinstance(i, tx.Var) or (isinstance(i, tx.IntImm) and i.value == 0)
               for i in idx) and _subsequence([i for i in idx if isinstance(i, tx.Var)],
                                              out_idx):
            kind = max(kind, BROADCAST)
        else:
            kind = INJECTIVE
    return kind


def _subsequence(xs: list[Any], ys: list[Any]) -> bool:
    it = iter(ys)
    return all(any(x is y for y in it) for x in xs)


def func_pattern(f: PrimFunc) -> int:
    finder = _Blocks()
    finder.visit(f.body)
    if not finder.blocks:
        return OPAQUE
    return max(block_pattern(b) for b in finder.blocks)


def AnnotateTIROpPattern() -> Pass:  # noqa: N802
    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        return mod.map_functions(lambda gv, f: f.with_attr("op_pattern", func_pattern(f))
                                 if isinstance(f, PrimFunc) else f)
    return Pass(run, "AnnotateTIROpPattern")


# -- FuseOps --------------------------------------------------------------------------------------


def _admits(group: int, consumer: int) -> bool:
    if consumer <= INJECTIVE and group <= INJECTIVE:
        return True
    return consumer <= BROADCAST and group in (REDUCE, OUT_EWISE_FUSABLE)


class _Fuser:
    def __init__(self, mod: IRModule) -> None:
        self.mod = mod
        self.new_funcs: dict[GlobalVar, Any] = {}
        self.names = set(mod.names())

    def pattern(self, call: rx.Expr) -> int | None:
        if not isinstance(call, rx.Call) or call.op != CALL_TIR:
            return None
        f = self.mod[call.args[0].gvar]  # type: ignore[attr-defined]
        return f.attr_dict.get("op_pattern", func_pattern(f))

    def fuse_function(self, func: rx.Function) -> rx.Function:
        counts = var_use_counts(func)
        blocks = tuple(self.fuse_block(b, counts) if isinstance(b, rx.DataflowBlock) else b
                       for b in func.body.blocks)
        return replace(func, body=replace(func.body, blocks=blocks))

    def fuse_block(self, block: rx.DataflowBlock, counts: dict[rx.Var, int]) -> rx.BindingBlock:
        group_of: dict[rx.Var, list[Any]] = {}  # var -> its group [pattern, bindings]
        for b in block.bindings:
            p = self.pattern(b.value) if isinstance(b, rx.VarBinding) else None
            if p is None:
                continue
            target = None
            if p <= INJECTIVE:
                for a in b.value.args[1].fields:  # type: ignore[union-attr]
                    g = group_of.get(a)  # type: ignore[arg-type]
                    if g is not None and counts.get(a, 0) == 1 and _admits(g[0], p):
                        target = g
                        break
            if target is None:
                target = [p, []]
            else:
                target[0] = max(target[0], p) if target[0] <= INJECTIVE else target[0]
            target[1].append(b)
            group_of[b.var] = target
        groups = {id(g): g for g in group_of.values() if len(g[1]) > 1}
        if not groups:
            return block
        return replace(block, bindings=self.rewrite(block, groups))

    def rewrite(self, block: rx.DataflowBlock, groups: dict[int, list[Any]]) -> tuple[Any, ...]:
        member = {id(b): g for g in groups.values() for b in g[1]}
        out = []
        for b in block.bindings:
            g = member.get(id(b))
            if g is None:
                out.append(b)
            elif b is g[1][-1]:
                out.append(self.make_group(g[1]))
        return tuple(out)

    def make_group(self, bindings: list[rx.VarBinding]) -> rx.VarBinding:
        bound = {b.var for b in bindings}
        inputs: list[rx.Expr] = []
        for b in bindings:
            for a in b.value.args[1].fields:  # type: ignore[attr-defined]
                if a not in bound and not any(a is x for x in inputs):
                    inputs.append(a)
        params = tuple(rx.Var(getattr(a, "name_hint", f"c{i}"), a.struct_info)
                       for i, a in enumerate(inputs))
        mapping = {id(a): p for a, p in zip(inputs, params)}
        inner: list[rx.VarBinding] = []
        local: dict[rx.Var, rx.Var] = {}
        for b in bindings:
            args = tuple(mapping.get(id(a), local.get(a, a))  # type: ignore[arg-type]
                         for a in b.value.args[1].fields)  # type: ignore[attr-defined]
            call = replace(b.value, args=(b.value.args[0], rx.Tuple(
                args, si.TupleStructInfo(tuple(x.struct_info for x in args)))))
            last = b is bindings[-1]
            var = (rx.Var if last else rx.DataflowVar)(b.var.name_hint, b.var.struct_info)
            local[b.var] = var
            inner.append(rx.VarBinding(var, call))
        names = [b.value.args[0].gvar.name_hint for b in bindings]  # type: ignore[attr-defined]
        name = self.fresh("fused_" + "_".join(names))
        fn = rx.Function(params, rx.SeqExpr((rx.DataflowBlock(tuple(inner)),), inner[-1].var),
                         inner[-1].var.struct_info, attrs=(("Primitive", True),))
        gv = GlobalVar(name)
        self.new_funcs[gv] = fn
        last = bindings[-1]
        return rx.VarBinding(last.var, rx.Call(rx.GlobalVarRef(gv, fn.struct_info),
                                               tuple(inputs), struct_info=last.var.struct_info),
                             last.span)

    def fresh(self, base: str) -> str:
        name = fresh_name(base, self.names)
        self.names.add(name)
        return name


def FuseOps(fuse_opt_level: int = -1) -> Pass:  # noqa: N802
    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        mod = AnnotateTIROpPattern()(mod)
        fuser = _Fuser(mod)
        funcs = {gv: fuser.fuse_function(f) if isinstance(f, rx.Function) else f
                 for gv, f in mod.items()}
        funcs.update(fuser.new_funcs)
        return IRModule(funcs, dict(mod.attrs), dict(mod.global_infos))
    return Pass(run, "FuseOps")


# -- FuseTIR --------------------------------------------------------------------------------------


class _Rebind(Mutator):
    def __init__(self, bufs: dict[Buffer, Buffer], vmap: dict[tx.Var, tx.PrimExpr]) -> None:
        self.bufs, self.vmap = bufs, vmap

    def visit_buffer(self, buf: Buffer) -> Buffer:
        if buf not in self.bufs:  # a member's own buffer: its dims in the fused function's vars
            shape = tuple(self.visit(d) for d in buf.shape)
            changed = any(a is not b for a, b in zip(shape, buf.shape))
            self.bufs[buf] = replace(buf, shape=shape) if changed else buf
        return self.bufs[buf]

    def visit_Var(self, v: tx.Var) -> tx.PrimExpr:
        return self.vmap.get(v, v)


def _root_parts(f: PrimFunc) -> tuple[Any, tuple[Buffer, ...]]:
    body = f.body
    if isinstance(body, BlockRealize) and body.block.name == "root" and not body.iter_values:
        return body.block.body, body.block.alloc_buffers
    return body, ()


def fuse_tir(mod: IRModule, fn: rx.Function, name: str) -> PrimFunc:
    """One prim_func computing the Primitive function `fn` (a chain of call_tir)."""
    buf_of: dict[rx.Var, Buffer] = {}
    for p in fn.params:
        s = p.struct_info
        buf_of[p] = make_buffer(p.name_hint, s.shape, s.dtype)  # type: ignore[union-attr]
    bindings = [b for blk in fn.body.blocks for b in blk.bindings]
    stmts, locals_ = [], []
    for b in bindings:
        s = b.var.struct_info
        buf_of[b.var] = make_buffer(b.var.name_hint, s.shape, s.dtype)  # type: ignore
        if b is not bindings[-1]:
            locals_.append(buf_of[b.var])
        prim = mod[b.value.args[0].gvar]  # type: ignore[attr-defined]
        actual = [buf_of[a] for a in b.value.args[1].fields] + [buf_of[b.var]]  # type: ignore
        formal = [prim.buffer_of(v) for v in prim.params if prim.buffer_of(v) is not None]
        bufs = dict(zip(formal, actual))
        vmap: dict[tx.Var, tx.PrimExpr] = {}
        for fb, ab in zip(formal, actual):
            for fd, ad in zip(fb.shape, ab.shape):
                if isinstance(fd, tx.Var) and fd is not ad:
                    vmap.setdefault(fd, ad)
        body, allocs = _root_parts(prim)
        rebind = _Rebind(bufs, vmap)
        stmts.append(rebind.visit(body))
        locals_.extend(rebind.visit_buffer(a) for a in allocs)
    root = Block("root", (), seq(stmts), alloc_buffers=tuple(locals_))
    outs = [bindings[-1].var]
    args = list(fn.params) + outs
    params = tuple(tx.Var(v.name_hint, "handle") for v in args)
    bmap = tuple((p, buf_of[v]) for p, v in zip(params, args))
    return PrimFunc(params, bmap, BlockRealize((), tx.IntImm("bool", 1), root),
                    (("global_symbol", name), ("tir.noalias", True)))


def FuseTIR() -> Pass:  # noqa: N802
    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        prims: dict[str, GlobalVar] = {}
        funcs: dict[GlobalVar, Any] = {}
        for gv, f in mod.items():
            if isinstance(f, rx.Function) and f.attr_dict.get("Primitive"):
                pgv = GlobalVar(gv.name_hint)
                funcs[pgv] = fuse_tir(mod, f, gv.name_hint)
                prims[gv.name_hint] = pgv
        for gv, f in mod.items():
            if isinstance(f, rx.Function) and not f.attr_dict.get("Primitive"):
                funcs[gv] = _CallFused(prims).visit(f)
            elif isinstance(f, PrimFunc):
                funcs[gv] = f
        out = IRModule(funcs, dict(mod.attrs), dict(mod.global_infos))
        from .simple_passes import eliminate_dead_code
        return eliminate_dead_code(out, keep_public_prim_funcs=False)
    return Pass(run, "FuseTIR")


class _CallFused(ExprMutator):
    def __init__(self, prims: dict[str, GlobalVar]) -> None:
        self.prims = prims

    def visit_Call(self, call: rx.Call) -> rx.Expr:
        if isinstance(call.op, rx.GlobalVarRef) and call.op.gvar.name_hint in self.prims:
            gv = self.prims[call.op.gvar.name_hint]
            args = rx.Tuple(call.args, si.TupleStructInfo(tuple(a.struct_info
                                                               for a in call.args)))
            return rx.Call(CALL_TIR, (rx.GlobalVarRef(gv, call.op.struct_info), args),
                           sinfo_args=(call.struct_info,), struct_info=call.struct_info,
                           span=call.span)
        return call


__all__ = ["AnnotateTIROpPattern", "FuseOps", "FuseTIR", "remove_unused"]
