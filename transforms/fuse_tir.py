"""FuseTIR: every call of a `Primitive` relax function becomes `call_tir` of one prim_func
that holds all its members' blocks (TVM's pass of that name).

The fused prim_func takes one buffer per tensor the function takes (tuples flattened field by
field), then a scalar per prim-value parameter and per symbolic dim of a `tir_vars` shape, then
one buffer per tensor it returns; tensors computed and used inside are root-block buffers. Each
member's body is copied with fresh loop and block variables (a prim_func used twice must not
bind one variable twice) and with its shape variables replaced by the caller's dims. The fused
function is private, with `tir.noalias`, named as the relax function was. Afterwards the
primitive functions go, and the members that nothing calls any more.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..ir import expr as rx
from ..ir import struct_info as si
from ..ir.functor import ExprMutator
from ..ir.module import GlobalVar, IRModule
from ..ir.op import CALL_TIR, CALL_TIR_INPLACE
from ..tir import expr as tx
from ..tir.function import PrimFunc
from ..tir.functor import Mutator
from ..tir.stmt import Block, BlockRealize, Buffer, For, IterVar, make_buffer, seq
from .pass_infra import Pass, Sequential


class _Copy(Mutator):
    """A member's body with its buffers and shape vars bound to the fused function's, and
    every variable it defines (loops, block iterators, allocations) made anew."""

    def __init__(self, bufs: dict[Buffer, Buffer], vmap: dict[tx.Var, tx.PrimExpr]) -> None:
        self.bufs, self.vmap = bufs, vmap

    def visit_buffer(self, buf: Buffer) -> Buffer:
        if buf not in self.bufs:
            shape = tuple(self.visit(d) for d in buf.shape)
            data = buf.data
            if data is not None:  # an allocation of its own, even when two members share one
                data = self.vmap[data] = tx.Var(data.name, data.dtype)
            self.bufs[buf] = replace(buf, shape=shape, data=data)
        return self.bufs[buf]

    def visit_Var(self, v: tx.Var) -> tx.PrimExpr:  # noqa: N802
        return self.vmap.get(v, v)

    def visit_For(self, f: For) -> Any:  # noqa: N802
        self.vmap[f.loop_var] = tx.Var(f.loop_var.name, f.loop_var.dtype)
        return self.generic_visit(f)

    def visit_Block(self, b: Block) -> Any:  # noqa: N802
        for iv in b.iter_vars:
            self.vmap[iv.var] = tx.Var(iv.var.name, iv.var.dtype)
        new = self.generic_visit(b)
        # two inputs bound to one buffer: TVM keeps that buffer's first access region only
        reads = _first_per_buffer(new.reads)
        return new if len(reads) == len(new.reads) else replace(new, reads=reads)

    def visit_IterVar(self, iv: IterVar) -> Any:  # noqa: N802
        return self.generic_visit(iv)


def _first_per_buffer(regions: tuple[Any, ...]) -> tuple[Any, ...]:
    seen: set[int] = set()
    out = []
    for r in regions:
        if id(r.buffer) not in seen:
            seen.add(id(r.buffer))
            out.append(r)
    return tuple(out)


def _root_parts(f: PrimFunc) -> tuple[Any, tuple[Buffer, ...]]:
    body = f.body
    if isinstance(body, BlockRealize) and body.block.name == "root" and not body.iter_values:
        return body.block.body, body.block.alloc_buffers
    return body, ()


def _tensors(sinfo: Any) -> list[si.TensorStructInfo]:
    if isinstance(sinfo, si.TupleStructInfo):
        return [t for f in sinfo.fields for t in _tensors(f)]
    return [sinfo] if isinstance(sinfo, si.TensorStructInfo) else []


class _Fuser:
    """Builds the fused prim_func of one primitive relax function."""

    def __init__(self, mod: IRModule, fn: rx.Function) -> None:
        self.mod, self.fn = mod, fn
        self.values: dict[int, list[Any]] = {}  # relax var -> its buffers or prim values
        self.in_params: list[tuple[tx.Var, Buffer | None]] = []  # buffers and scalars, in order
        self.stmts: list[Any] = []
        self.allocs: list[Buffer] = []
        self.inplace: list[int] = []  # per output: the argument it is written into, or -1

    def bind_params(self) -> None:
        for p in self.fn.params:
            s = p.struct_info
            if isinstance(s, (si.TensorStructInfo, si.TupleStructInfo)):
                tensors = _tensors(s)
                names = [p.name_hint] if len(tensors) == 1 and isinstance(
                    s, si.TensorStructInfo) else [f"{p.name_hint}_{i}"
                                                  for i in range(len(tensors))]
                bufs = [make_buffer(n, t.shape, t.dtype) for n, t in zip(names, tensors)]
                self.values[id(p)] = bufs
                self.in_params.extend((tx.Var(b.name, "handle"), b) for b in bufs)
            elif isinstance(s, si.PrimStructInfo):
                v = s.value if isinstance(s.value, tx.Var) else tx.Var(p.name_hint, s.dtype)
                self.values[id(p)] = [v]
                self.in_params.append((v, None))
            elif isinstance(s, si.ShapeStructInfo):
                self.values[id(p)] = list(s.values or ())
                self.in_params.extend((d, None) for d in s.values or ()
                                      if isinstance(d, tx.Var))

    def value_of(self, e: rx.Expr) -> list[Any]:
        if isinstance(e, rx.Tuple):
            return [x for f in e.fields for x in self.value_of(f)]
        if isinstance(e, rx.PrimValue):
            return [e.value]
        if isinstance(e, rx.ShapeExpr):
            return list(e.values)
        return self.values[id(e)]

    def visit_binding(self, b: rx.VarBinding) -> None:
        v = b.value
        if isinstance(v, rx.TupleGetItem):
            fields = v.tuple_value.struct_info.fields  # type: ignore[union-attr]
            start = sum(len(_tensors(f)) for f in fields[:v.index])
            self.values[id(b.var)] = self.value_of(v.tuple_value)[
                start:start + len(_tensors(fields[v.index]))]
        elif isinstance(v, rx.Call) and v.op in (CALL_TIR, CALL_TIR_INPLACE):
            self.visit_call(b.var, v)
        else:
            self.values[id(b.var)] = self.value_of(v)

    def visit_call(self, var: rx.Var, call: rx.Call) -> None:
        prim = self.mod[call.args[0].gvar]  # type: ignore[attr-defined]
        inputs = [x for a in call.args[1].fields for x in self.value_of(a)]  # type: ignore
        if call.op == CALL_TIR_INPLACE:
            idx = call.attrs.get("inplace_indices", ())
            outs = [inputs[int(i)] if int(i) >= 0 else None for i in idx]
        else:
            outs = [None] * len(_tensors(var.struct_info))
        made = []
        for i, t in enumerate(_tensors(var.struct_info)):
            if outs[i] is None:
                outs[i] = make_buffer(f"{var.name_hint}_{i}" if len(outs) > 1 else var.name_hint,
                                      t.shape, t.dtype)
                made.append(outs[i])
        self.values[id(var)] = outs
        extra = list(call.args[2].values) if len(call.args) > 2 else []  # type: ignore
        actual = inputs + (outs if call.op == CALL_TIR else []) + extra
        self.inline(prim, actual)
        self.allocs.extend(made)  # NOTE: after the callee's own allocations, as TVM orders them

    def inline(self, prim: PrimFunc, actual: list[Any]) -> None:
        bufs: dict[Buffer, Buffer] = {}
        vmap: dict[tx.Var, tx.PrimExpr] = {}
        for param, a in zip(prim.params, actual):
            fb = prim.buffer_of(param)
            if fb is None:
                vmap[param] = a
                continue
            bufs[fb] = a
            for fd, ad in zip(fb.shape, a.shape):
                if isinstance(fd, tx.Var) and fd is not ad:
                    vmap.setdefault(fd, ad)
        body, allocs = _root_parts(prim)
        copy = _Copy(bufs, vmap)
        self.stmts.append(copy.visit(body))
        self.allocs.extend(copy.visit_buffer(a) for a in allocs)

    def build(self, name: str) -> PrimFunc:
        self.bind_params()
        for blk in self.fn.body.blocks:
            for b in blk.bindings:
                self.visit_binding(b)
        outs = self.value_of(self.fn.body.body)
        out_ids = {id(b) for b in outs}
        allocs = [b for b in self.allocs if id(b) not in out_ids]
        root = Block("root", (), seq(self.stmts), alloc_buffers=tuple(allocs))
        # an output written in place is the input buffer itself: no parameter of its own
        in_pos = {id(b): i for i, (_, b) in enumerate(self.in_params) if b is not None}
        self.inplace = [in_pos.get(id(b), -1) for b in outs]
        outs = [b for b in outs if id(b) not in in_pos]
        out_params = [(tx.Var(b.name, "handle"), b) for b in outs]
        params = tuple(h for h, _ in self.in_params + out_params)
        bmap = tuple((h, b) for h, b in self.in_params + out_params if b is not None)
        return PrimFunc(params, bmap, BlockRealize((), tx.IntImm("bool", 1), root),
                        (("tir.noalias", True),))


def fuse_tir(mod: IRModule, fn: rx.Function, name: str) -> tuple[PrimFunc, list[int]]:
    """One prim_func computing the primitive function `fn`, and for each output the argument
    it is computed in (-1: a new tensor)."""
    fuser = _Fuser(mod, fn)
    return fuser.build(name), fuser.inplace


class _CallFused(ExprMutator):
    """Calls of primitive functions become call_tir of their fused prim_func; a tuple argument
    is passed field by field, each field bound to a variable first."""

    def __init__(self, prims: dict[str, GlobalVar], fns: dict[str, rx.Function],
                 inplace: dict[str, list[int]]) -> None:
        self.prims, self.fns, self.inplace = prims, fns, inplace
        self.pre: list[rx.VarBinding] = []
        self.items: dict[tuple[int, int], rx.Var] = {}  # (tuple, index) -> its variable
        self.dataflow = False

    def visit_block(self, block: rx.BindingBlock) -> rx.BindingBlock:
        self.dataflow = isinstance(block, rx.DataflowBlock)
        out: list[Any] = []
        for b in block.bindings:
            self.pre, self.items = [], {}
            nb = self.visit_binding(b)
            out.extend(self.pre)
            out.append(nb)
        return replace(block, bindings=tuple(out))

    def visit_Call(self, call: rx.Call) -> rx.Expr:  # noqa: N802
        call = self.generic_visit(call)
        if not (isinstance(call.op, rx.GlobalVarRef) and call.op.gvar.name_hint in self.prims):
            return call
        name = call.op.gvar.name_hint
        args: list[rx.Expr] = []
        for a, p in zip(call.args, self.fns[name].params):
            s = p.struct_info
            if isinstance(s, si.TupleStructInfo):
                args.extend(self.fields(a))
            elif isinstance(s, si.ShapeStructInfo) and _shape_values(a) is not None:
                # the kernel takes the shape's symbolic dims as scalars (bind_params)
                dims = [d for d, pd in zip(_shape_values(a), s.values or ())
                        if isinstance(pd, tx.Var)]
                args.extend(rx.PrimValue(d, si.PrimStructInfo(d.dtype, d)) for d in dims)
            else:
                args.append(self.bound(a))
        tup = rx.Tuple(tuple(args), si.TupleStructInfo(tuple(t.struct_info for t in args)))
        ref = rx.GlobalVarRef(self.prims[name], si.FuncStructInfo(None, si.ObjectStructInfo()))
        indices = self.inplace.get(name, [])
        if any(i >= 0 for i in indices):
            return rx.Call(CALL_TIR_INPLACE, (ref, tup), (("inplace_indices", tuple(indices)),),
                           sinfo_args=(call.struct_info,), struct_info=call.struct_info,
                           span=call.span)
        return rx.Call(CALL_TIR, (ref, tup),
                       sinfo_args=(call.struct_info,), struct_info=call.struct_info,
                       span=call.span)

    def bound(self, e: rx.Expr) -> rx.Expr:
        """A tuple field passed on its own is bound to a variable first (normal form), a
        field of a field after the field it is taken from, each field once per call."""
        if not isinstance(e, rx.TupleGetItem):
            return e
        inner = self.bound(e.tuple_value)
        key = (id(inner), e.index)
        if key not in self.items:
            var = (rx.DataflowVar if self.dataflow else rx.Var)("lv", e.struct_info)
            self.pre.append(rx.VarBinding(var, replace(e, tuple_value=inner)))
            self.items[key] = var
        return self.items[key]

    def fields(self, e: rx.Expr) -> list[rx.Expr]:
        sinfo = e.struct_info
        if not isinstance(sinfo, si.TupleStructInfo):
            return [e]
        if isinstance(e, rx.Tuple):
            return [x for f in e.fields for x in self.fields(f)]
        out: list[rx.Expr] = []
        for i, f in enumerate(sinfo.fields):
            var = (rx.DataflowVar if self.dataflow else rx.Var)("lv", f)
            self.pre.append(rx.VarBinding(var, rx.TupleGetItem(e, i, f)))
            out.extend(self.fields(var))
        return out


def _shape_values(e: rx.Expr) -> tuple[Any, ...] | None:
    """The dims a shape argument holds: a literal's, or what a shape variable is known to be."""
    if isinstance(e, rx.ShapeExpr):
        return tuple(e.values)
    sinfo = e.struct_info
    return tuple(sinfo.values) if isinstance(sinfo, si.ShapeStructInfo) and sinfo.values \
        is not None else None


def _callees(f: Any) -> set[str]:
    found: set[str] = set()

    def walk(x: Any) -> None:
        if isinstance(x, rx.GlobalVarRef):
            found.add(x.gvar.name_hint)
        elif isinstance(x, rx.Call):
            walk(x.op)
            for a in x.args:
                walk(a)
        elif isinstance(x, rx.Tuple):
            for a in x.fields:
                walk(a)
        elif isinstance(x, rx.SeqExpr):
            for blk in x.blocks:
                for b in blk.bindings:
                    walk(b.value)
            walk(x.body)
        elif isinstance(x, rx.Function):
            walk(x.body)
        elif isinstance(x, rx.If):
            walk(x.true_branch)
            walk(x.false_branch)

    walk(f)
    return found


def run_fuse_tir(mod: IRModule) -> IRModule:
    prims: dict[str, GlobalVar] = {}
    fns: dict[str, rx.Function] = {}
    inplace: dict[str, list[int]] = {}
    funcs: dict[GlobalVar, Any] = {}
    for gv, f in mod.items():
        if isinstance(f, rx.Function) and f.attr_dict.get("Primitive") and \
                not f.attr_dict.get("Codegen"):
            prims[gv.name_hint] = GlobalVar(gv.name_hint)
            fns[gv.name_hint] = f
            funcs[prims[gv.name_hint]], inplace[gv.name_hint] = fuse_tir(mod, f, gv.name_hint)
    members = set().union(*(_callees(f) for f in fns.values())) if fns else set()
    for gv, f in mod.items():
        if gv.name_hint in fns:
            continue
        funcs[gv] = _CallFused(prims, fns, inplace).visit(f) if isinstance(f, rx.Function) else f
    used = set().union(*(_callees(f) for f in funcs.values() if isinstance(f, rx.Function)))
    kept = {gv: f for gv, f in funcs.items()
            if not (gv.name_hint in members and gv.name_hint not in used
                    and gv.name_hint not in prims)}
    return IRModule(kept, dict(mod.attrs), dict(mod.global_infos))


def FuseTIR() -> Pass:  # noqa: N802
    """As in TVM: tuple parameters are expanded and unused ones dropped first (with the
    binding clean-up those passes do), and dead code is removed after."""
    from .function_passes import ExpandTupleArguments, RemoveUnusedParameters
    from .simple_passes import CanonicalizeBindings, DeadCodeElimination

    inner = Pass(lambda mod, ctx: run_fuse_tir(mod), "FuseTIRInner")
    return Sequential([ExpandTupleArguments(), CanonicalizeBindings(), DeadCodeElimination(),
                       RemoveUnusedParameters(), inner, DeadCodeElimination()], name="FuseTIR")


__all__ = ["FuseTIR", "fuse_tir"]
