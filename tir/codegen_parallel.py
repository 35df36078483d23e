"""Parallel loops for the LLVM backend: outline the body, launch it on the native pool.

`for i in T.parallel(n): body` becomes, in the kernel,

    %closure = { captured values }                  ; every outer value the body uses
    call void @tvmlite_parallel_launch(ptr @<kernel>_parallel_<k>, ptr %closure, i32 num_tasks)

and the outlined `void @<kernel>_parallel_<k>(i32 task, i32 num_tasks, ptr closure)` runs the
static chunk `[min + task * c, min + min((task + 1) * c, extent))`, `c = ceil(extent / tasks)`,
as TVM's static schedule does. The pool (vm/parallel_runtime.py) runs tasks on persistent native
threads; the kernel ABI is unchanged. A failed `AssertStmt` inside a parallel body ends only its
task (there is no channel to stop the others).
"""

from __future__ import annotations

from typing import Any

from llvmlite import ir

from .expr import Let, Var
from .functor import Visitor
from .stmt import Allocate, BufferStore, For, LetStmt

_I32 = ir.IntType(32)
_PTR = ir.PointerType()
LAUNCH = "tvmlite_parallel_launch"


class _Uses(Visitor):
    """Vars a statement reads (buffer data handles included) and the vars it binds itself."""

    def __init__(self) -> None:
        self.used: list[Var] = []
        self._seen: set[Var] = set()  # NOTE: `used` as a set: asked at every Var of the body
        self.bound: set[Var] = set()

    def visit_Var(self, v: Var) -> None:
        if v not in self._seen:
            self._seen.add(v)
            self.used.append(v)

    def visit_buffer(self, buf: Any) -> None:
        if buf.data is not None:
            self.visit_Var(buf.data)
        for d in buf.shape:
            self.visit(d)

    def visit_For(self, s: For) -> None:
        self.bound.add(s.loop_var)
        self.generic_visit(s)

    def visit_LetStmt(self, s: LetStmt) -> None:
        self.bound.add(s.var)
        self.generic_visit(s)

    def visit_Let(self, e: Let) -> None:
        self.bound.add(e.var)
        self.generic_visit(e)

    def visit_Allocate(self, s: Allocate) -> None:
        if s.buffer.data is not None:
            self.bound.add(s.buffer.data)
        self.generic_visit(s)

    def visit_BufferStore(self, s: BufferStore) -> None:
        self.generic_visit(s)


_LAST_USES: list[tuple[For, _Uses]] = []  # the last loop walked, and what it uses


def _uses_of(loop: For) -> _Uses:
    """`_Uses` of `loop`; `aliases` asks right after `captured_vars` for the same loop, whose
    walk (the whole parallel body) is reused."""
    if _LAST_USES and _LAST_USES[0][0] is loop:
        return _LAST_USES[0][1]
    uses = _Uses()
    uses.visit(loop)
    _LAST_USES[:] = [(loop, uses)]
    return uses


def captured_vars(loop: For, in_scope: dict[Var, ir.Value]) -> list[Var]:
    """The outer values the loop uses, in first-use order (its own binders excluded). Vars
    holding the same LLVM value (a handle param and its buffer's data var) share one slot:
    the slots become `noalias` parameters, so no memory may reach the body twice."""
    uses = _uses_of(loop)
    out: list[Var] = []
    for v in uses.used:
        if v not in uses.bound and v in in_scope and all(in_scope[o] is not in_scope[v]
                                                          for o in out):
            out.append(v)
    return out


def aliases(loop: For, captured: list[Var], in_scope: dict[Var, ir.Value]) -> dict[Var, Var]:
    """Used vars left out of `captured` because an earlier one holds the same value."""
    uses = _uses_of(loop)
    _LAST_USES.clear()  # NOTE: the walk is not kept alive past the loop's outlining
    out = {}
    for v in uses.used:
        if v in in_scope and v not in captured and v not in uses.bound:
            out[v] = next(c for c in captured if in_scope[c] is in_scope[v])
    return out


class ParallelLoops:
    """Mixin for CodeGenLLVM: `_emit_parallel_for` (see the module docstring)."""

    module: ir.Module
    builder: ir.IRBuilder
    alloca_builder: ir.IRBuilder
    vars: dict[Var, ir.Value]
    heap: list[ir.Value]
    kernel_name: str
    num_outlined: int
    num_cores: int
    parallel_depth: int

    def _emit_parallel_for(self, loop: For) -> None:
        captured = captured_vars(loop, self.vars)
        values = [self.vars[v] for v in captured]
        struct = ir.LiteralStructType([v.type for v in values] or [_I32])
        closure = self.alloca_builder.alloca(struct, name="closure")
        closure.type = _PTR  # NOTE: llvmlite types allocas as `T*`; LLVM 20 wants `ptr`
        for k, value in enumerate(values):
            slot = self.builder.gep(closure, [ir.Constant(_I32, 0), ir.Constant(_I32, k)],
                                    inbounds=True, source_etype=struct)
            self.builder.store(value, slot)
        body_fn = self._outline(loop, captured, struct)
        launch = self.module.globals.get(LAUNCH)
        if launch is None:
            launch = ir.Function(self.module, ir.FunctionType(ir.VoidType(), [_PTR, _PTR, _I32]),
                                 name=LAUNCH)
        self.builder.call(launch, [body_fn, closure, ir.Constant(_I32, self.num_cores)])

    def _outline(self, loop: For, captured: list[Var], struct: ir.Type) -> ir.Function:
        """The task entry `void fn(i32 task, i32 ntasks, ptr closure)`: it unpacks the closure
        and calls the body function, whose buffer pointers are `noalias` parameters again
        (loaded from memory they would not be; LLVM keeps that as alias scopes when it
        inlines the body back)."""
        name = f"{self.kernel_name}_parallel_{self.num_outlined}"
        self.num_outlined += 1
        types = [self.vars[v].type for v in captured]
        body_fn = self._outline_body(name + "_body", loop, captured, types)
        fn = ir.Function(self.module, ir.FunctionType(ir.VoidType(), [_I32, _I32, _PTR]),
                         name=name)
        fn.linkage = "internal"
        fn.attributes.add("nounwind")
        task, ntasks, closure = fn.args
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        values = []
        for k, ty in enumerate(types):
            slot = b.gep(closure, [ir.Constant(_I32, 0), ir.Constant(_I32, k)], inbounds=True,
                         source_etype=struct)
            values.append(b.load(slot, typ=ty))
        b.call(body_fn, values + [task, ntasks])
        b.ret_void()
        return fn

    def _outline_body(self, name: str, loop: For, captured: list[Var], types: list[ir.Type]
                      ) -> ir.Function:
        fn = ir.Function(self.module, ir.FunctionType(ir.VoidType(), types + [_I32, _I32]),
                         name=name)
        fn.linkage = "internal"
        fn.attributes.add("nounwind")
        fn.attributes.add("alwaysinline")
        saved = (self.builder, self.alloca_builder, self.vars, self.heap)
        entry = fn.append_basic_block("entry")
        self.alloca_builder = ir.IRBuilder(entry)
        self.builder = ir.IRBuilder(fn.append_basic_block("body"))
        self.vars, self.heap = dict(self.vars), []
        same = aliases(loop, captured, saved[2])
        for v, arg in zip(captured, fn.args):
            if isinstance(arg.type, ir.PointerType) and self.noalias:
                arg.add_attribute("noalias")  # distinct buffers, as in the kernel's own ABI
            self.vars[v] = arg
        for v, c in same.items():
            self.vars[v] = self.vars[c]
        task, ntasks = fn.args[-2], fn.args[-1]
        self.parallel_depth += 1
        try:
            start, end = self._chunk(loop, task, ntasks)
            self._emit_loop(loop, start, end)  # type: ignore[attr-defined]
            if not self.builder.block.is_terminated:
                self.builder.ret_void()
            self.alloca_builder.branch(fn.blocks[1])
        finally:
            self.parallel_depth -= 1
            self.builder, self.alloca_builder, self.vars, self.heap = saved
        return fn

    def _chunk(self, loop: For, task: ir.Value, ntasks: ir.Value) -> tuple[ir.Value, ir.Value]:
        """This task's [start, end) of the loop: contiguous, as even as possible."""
        b, dtype = self.builder, loop.loop_var.dtype
        cast = self.cast  # type: ignore[attr-defined]
        lo = cast(self.visit(loop.min), loop.min.dtype, dtype)  # type: ignore[attr-defined]
        ext = cast(self.visit(loop.extent), loop.extent.dtype, dtype)  # type: ignore[attr-defined]
        t, n = cast(task, "int32", dtype), cast(ntasks, "int32", dtype)
        one = ir.Constant(ext.type, 1)
        per = b.sdiv(b.sub(b.add(ext, n), one), n)  # ceil(extent / ntasks)
        first = b.mul(t, per)
        last = b.add(first, per)
        last = b.select(b.icmp_signed("<", last, ext), last, ext)
        first = b.select(b.icmp_signed("<", first, ext), first, ext)
        return b.add(lo, first), b.add(lo, last)
