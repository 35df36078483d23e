"""AnnotateTIROpPattern and FuseTIR (FuseOps lives in fuse_ops.py).

AnnotateTIROpPattern sets each prim_func's `op_pattern` (TVM's OpPatternKind: 0 elementwise,
1 broadcast, 2 injective, 3 reduction, 4 out-elementwise-fusable such as matmul/conv, 8
opaque; see op_pattern.py). FuseTIR turns every call of a `Primitive` function into `call_tir`
of one prim_func holding all members' blocks, intermediates as root-block buffers.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..ir import expr as rx
from ..ir import struct_info as si
from ..ir.functor import ExprMutator
from ..ir.module import GlobalVar, IRModule
from ..ir.op import CALL_TIR
from ..tir import expr as tx
from ..tir.function import PrimFunc
from ..tir.functor import Mutator
from ..tir.stmt import Block, BlockRealize, Buffer, make_buffer, seq
from .pass_infra import Pass, PassContext
from .fuse_ops import FuseOps
from .op_pattern import func_pattern
from .simple_passes import remove_unused

# -- AnnotateTIROpPattern -------------------------------------------------------------------------


def AnnotateTIROpPattern() -> Pass:  # noqa: N802
    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        return mod.map_functions(lambda gv, f: f.with_attr("op_pattern", func_pattern(f))
                                 if isinstance(f, PrimFunc) else f)
    return Pass(run, "AnnotateTIROpPattern")


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
