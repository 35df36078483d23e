"""LLVM codegen: lowered PrimFuncs to `llvmlite.ir` functions (one per kernel).

Input invariant: the body came out of `tir.lower.lower` (no blocks, every buffer access 1-d).
The ABI is docs/internals.md section 2: `void @name(ptr noalias %buf, ..., scalars, i64 %n)`.

Semantics follow TVM's CodeGenLLVM: `/` on ints truncates (sdiv), `%` (MOD) is srem, FLOORDIV /
FLOORMOD round toward -inf; float compares are ordered except `!=` (une, as in Python); signed
ints of 32+ bits get `nsw` on add/sub/mul (TVM does the same; it lets LLVM widen induction
variables). `AssertStmt` has nowhere to report to (kernels return void), so a failed assert frees
the kernel's heap allocations and returns early: the outputs are left unwritten.
"""

from __future__ import annotations

from typing import Any, Callable

from llvmlite import ir

from . import dtype as dt
from .alias_hazard import has_4k_row_hazard
from .codegen_intrin import SPECIAL_CALLS as INTRIN_CALLS
from .codegen_jumps import LoopJumps, continues
from .codegen_math import InlineMath
from .expr import BinaryOp, BinOp, BufferLoad, Call, Cast, FloatImm, IntImm, Let, Not, PrimExpr
from .expr import Select, StringImm, Var
from .function import PrimFunc, shape_vars
from .codegen_parallel import ParallelLoops
from .codegen_vector import VectorLoops, vectorizable
from .functor import Visitor, any_node, simplify
from .bf16_legalize import legalize_bf16
from .stmt import (
    Allocate, AssertStmt, BufferStore, DeclBuffer, Evaluate, For, ForKind, IfThenElse, LetStmt,
    SeqStmt, While, jump_of,
)

PTR = ir.PointerType()
I1, I8, I64 = ir.IntType(1), ir.IntType(8), ir.IntType(64)
STACK_ALLOC_LIMIT = 16 * 1024  # bytes: larger (or symbolic) Allocates go to the heap

_FLOATS = {"float16": ir.HalfType(), "float32": ir.FloatType(), "float64": ir.DoubleType()}


def llvm_type(dtype: str) -> ir.Type:
    """The register type of a TIR dtype (bool is i1)."""
    if dtype == "bool":
        return I1
    if dtype == "handle":
        return PTR
    if dtype in _FLOATS:
        return _FLOATS[dtype]
    if dt.is_int(dtype) or dt.is_uint(dtype):
        return ir.IntType(dt.bits(dtype))
    raise NotImplementedError(f"the llvm backend does not support dtype {dtype!r} yet")


def _as(e: PrimExpr, dtype: str) -> PrimExpr:
    if e.dtype == dtype:
        return e
    return IntImm(dtype, e.value) if isinstance(e, IntImm) else Cast(dtype, e)


def memory_type(dtype: str) -> ir.Type:
    """The in-memory type: bool is one byte, as in numpy."""
    return I8 if dtype == "bool" else llvm_type(dtype)


# Intrinsics: TIR op -> LLVM intrinsic (overloaded on the float type) or libm name (f32 gets
# the `f` suffix). TVM maps `round` to nearbyint (ties to even, like numpy).
_LLVM_MATH = {
    "exp": "llvm.exp", "exp2": "llvm.exp2", "log": "llvm.log", "log2": "llvm.log2",
    "log10": "llvm.log10", "sqrt": "llvm.sqrt", "fabs": "llvm.fabs", "floor": "llvm.floor",
    "ceil": "llvm.ceil", "round": "llvm.nearbyint", "nearbyint": "llvm.nearbyint",
    "trunc": "llvm.trunc", "sin": "llvm.sin", "cos": "llvm.cos", "pow": "llvm.pow",
    "copysign": "llvm.copysign", "fma": "llvm.fma",
}
LIBM_PREFIX = "tvmlite_libm_"  # vm/libm_aliases.py resolves these names to the C library's
_LIBM = {
    "tanh": "tanh", "erf": "erf", "tan": "tan", "atan": "atan", "asin": "asin", "acos": "acos",
    "sinh": "sinh", "cosh": "cosh", "atan2": "atan2", "exp10": "exp10", "log1p": "log1p",
    "expm1": "expm1", "asinh": "asinh", "acosh": "acosh", "atanh": "atanh", "fmod": "fmod",
    "hypot": "hypot", "nextafter": "nextafter",
}
_ICMP = {BinaryOp.EQ: "==", BinaryOp.NE: "!=", BinaryOp.LT: "<", BinaryOp.LE: "<=",
         BinaryOp.GT: ">", BinaryOp.GE: ">="}
_FCMP = {BinaryOp.EQ: "==", BinaryOp.LT: "<", BinaryOp.LE: "<=", BinaryOp.GT: ">",
         BinaryOp.GE: ">="}
_REDUCE_OPS = (BinaryOp.ADD, BinaryOp.MUL)
# Flags on a float reduction update `Y[i] = Y[i] + x * w`: reassoc lets LLVM vectorize and
# interleave the accumulator, contract lets it fuse the multiply-add (FMA).
REDUCTION_FLAGS = ("reassoc", "contract")


def _pow2_floor(n: int) -> int:
    return 1 << (n.bit_length() - 1)


class CodeGenLLVM(ParallelLoops, VectorLoops, InlineMath, LoopJumps, Visitor):
    """Emits kernels into one `ir.Module`; `fast_math="reduction"` flags float reductions."""

    def __init__(self, module: ir.Module, fast_math: str = "reduction", num_cores: int = 0
                 ) -> None:
        if fast_math not in ("none", "reduction"):
            raise ValueError(f"fast_math must be 'none' or 'reduction', not {fast_math!r}")
        self.module = module
        self.fast_math = fast_math
        self._flags: tuple[str, ...] = ()
        self.builder: ir.IRBuilder = ir.IRBuilder()
        self.num_cores = num_cores  # tasks per parallel loop; 0: one per pool thread
        self.parallel_depth = 0
        self.serial_loops: list[Var] = []  # enclosing scalar loops, innermost last
        self.loop_jumps: list[tuple[ir.Block, ir.Block]] = []  # (continue, break) targets
        self._int_constants: dict[tuple[str, int], ir.Constant] = {}
        self._numbered_block: ir.Block | None = None
        self._numbered: dict[tuple, tuple[ir.Value, tuple]] = {}

    # -- functions --------------------------------------------------------------------------

    def add_function(self, name: str, func: PrimFunc) -> ir.Function:
        """Emits `func` (already lowered) as `void @name(...)` with the kernel ABI."""
        func = legalize_bf16(func)  # bfloat16: 16-bit storage, float32 arithmetic
        params, binds = self._abi(func)
        fn = ir.Function(self.module, ir.FunctionType(ir.VoidType(), [t for _, t, _ in params]),
                         name=name)
        fn.attributes.add("nounwind")
        self.kernel_name, self.num_outlined = name, 0
        self.vars: dict[Var, ir.Value] = {}
        self._int_constants: dict[tuple[str, int], ir.Constant] = {}
        self._numbered_block: ir.Block | None = None
        self._numbered: dict[tuple, tuple[ir.Value, tuple]] = {}
        self.heap: list[ir.Value] = []  # live malloc'd buffers, freed on early return
        entry = fn.append_basic_block("entry")
        self.alloca_builder = ir.IRBuilder(entry)
        self.builder = ir.IRBuilder(fn.append_basic_block("body"))
        # NOTE: distinct buffers, except where promising it costs (tir/alias_hazard.py)
        self.noalias = not has_4k_row_hazard(func)
        for arg, (pname, ty, var) in zip(fn.args, params):
            arg.name = pname
            if isinstance(ty, ir.PointerType) and self.noalias:
                arg.add_attribute("noalias")
            self.vars[var] = arg
        for var, data in binds:
            self.vars[var] = self.vars[data]
        self._bind_shape_vars(func)
        self.visit(func.body)
        if not self.builder.block.is_terminated:
            self.builder.ret_void()
        self.alloca_builder.branch(fn.blocks[1])
        return fn

    def _abi(self, func: PrimFunc) -> tuple[list[tuple[str, ir.Type, Var]], list[tuple[Var, Var]]]:
        params: list[tuple[str, ir.Type, Var]] = []
        binds: list[tuple[Var, Var]] = []  # buffer.data var -> its handle param
        for p in func.params:
            buf = func.buffer_of(p)
            if buf is None:
                params.append((p.name, llvm_type(p.dtype), p))
                continue
            params.append((buf.name, PTR, p))
            if buf.data is not None and buf.data is not p:
                binds.append((buf.data, p))
        taken = set(func.params)
        for v in shape_vars(func):
            if v not in taken:
                params.append((v.name, I64, v))
        return params, binds

    def _bind_shape_vars(self, func: PrimFunc) -> None:
        """Shape vars arrive as i64; an int32 one (T.int32() dims) is truncated once here."""
        for v in shape_vars(func):
            val = self.vars[v]
            if val.type != llvm_type(v.dtype):
                self.vars[v] = self.cast(val, "int64", v.dtype)

    # -- statements -------------------------------------------------------------------------

    def visit_SeqStmt(self, s: SeqStmt) -> None:
        for st in s.seq:
            self.visit(st)

    def visit_Evaluate(self, s: Evaluate) -> None:
        jump = jump_of(s)
        if jump is not None:
            self.jump(jump)
            return
        if not isinstance(s.value, (IntImm, FloatImm, StringImm)):
            self.visit(s.value)

    def visit_AttrStmt(self, s: Any) -> None:
        if s.attr_key == "thread_extent":
            raise NotImplementedError("T.launch_thread launches GPU threads and needs a GPU: "
                                      "build for target \"cuda\"")
        self.visit(s.body)  # NOTE: other attributes are hints the CPU backend does not need

    def visit_LetStmt(self, s: LetStmt) -> None:
        self.vars[s.var] = self.visit(s.value)
        self.visit(s.body)

    def visit_BufferStore(self, s: BufferStore) -> None:
        # NOTE: a vector store takes its address from lane 0 (vector_store), not from here
        ptr = None if self.lanes else self._address(s.buffer, s.indices[0])
        if self._is_reduction_update(s):
            # A strided sum is not reassociated (see _strided_reduction). A scalar one is a
            # latency-bound chain, where a fused multiply-add (4 cycles on Zen 4) is slower
            # than mul + add (3 on the chain); vector tiles are throughput-bound and want FMA.
            strided = self._strided_reduction(s)
            self._flags = REDUCTION_FLAGS if not strided else ("contract",) if self.lanes else ()
        try:
            value = self.visit(s.value)
        finally:
            self._flags = ()
        if self.lanes:
            self.vector_store(s, value)
            return
        if s.buffer.dtype == "bool":
            value = self.builder.zext(value, I8)
        self.builder.store(value, ptr, align=dt.itemsize(s.buffer.dtype))

    def _is_reduction_update(self, s: BufferStore) -> bool:
        v = s.value
        return (
            self.fast_math == "reduction"
            and dt.is_float(s.buffer.dtype)
            and isinstance(v, BinOp)
            and v.op in _REDUCE_OPS
            and isinstance(v.a, BufferLoad)
            and v.a.buffer.data is s.buffer.data
            and v.a.indices == s.indices
        )

    def _strided_reduction(self, s: BufferStore) -> bool:
        """Is the innermost loop a reduction over `s` that walks some operand with a stride?

        NOTE: reassociating such a sum makes LLVM vectorize it with gathers, which is slower
        than the plain scalar chain (the naive matmul's walk down B's columns); contiguous
        reductions (the MLP's dot products) are where reassoc pays.
        """
        if not self.serial_loops:
            return False
        k = self.serial_loops[-1]
        if any(_stride(i, k) != 0 for i in s.indices):
            return False  # k indexes the output: a spatial loop, not a reduction
        return any_node(s.value, lambda n: isinstance(n, BufferLoad)
                        and any(_stride(i, k) not in (0, 1) for i in n.indices))

    def visit_For(self, loop: For) -> None:
        if loop.kind is ForKind.THREAD_BINDING:
            raise NotImplementedError("thread-bound loops need the CUDA backend")
        if loop.kind is ForKind.PARALLEL and self.parallel_depth == 0:
            self._emit_parallel_for(loop)  # nested parallel loops run serially, as in TVM
            return
        if loop.kind is ForKind.VECTORIZED and not self.lanes:
            lanes = vectorizable(loop)
            if lanes:
                self._emit_vector_for(loop, lanes)
                return
        dtype = loop.loop_var.dtype
        start = self.cast(self.visit(loop.min), loop.min.dtype, dtype)
        end = self.visit(simplify(_as(loop.min, dtype) + _as(loop.extent, dtype)))
        self.serial_loops.append(loop.loop_var)
        try:
            self._emit_loop(loop, start, end)
        finally:
            self.serial_loops.pop()

    def _emit_loop(self, loop: For, start: ir.Value, end: ir.Value) -> None:
        """`for (var = start; var < end; ++var) body`, with loop metadata for its kind."""
        b = self.builder
        pre = b.block
        header = b.append_basic_block("for_header")
        body = b.append_basic_block("for_body")
        exit_ = b.append_basic_block("for_end")
        b.branch(header)
        b.position_at_end(header)
        i = b.phi(start.type, name=loop.loop_var.name)
        i.add_incoming(start, pre)
        signed = not dt.is_uint(loop.loop_var.dtype)
        b.cbranch(b.icmp_signed("<", i, end) if signed else b.icmp_unsigned("<", i, end),
                  body, exit_)
        b.position_at_end(body)
        self.vars[loop.loop_var] = i
        # NOTE: a latch block of its own only where a `continue` needs one to jump to
        latch = b.append_basic_block("for_latch") if continues(loop.body) else None
        self._visit_loop_body(loop.body, latch, exit_)
        if latch is not None:
            if not b.block.is_terminated:
                b.branch(latch)
            b.position_at_end(latch)
        if not b.block.is_terminated:
            nxt = b.add(i, ir.Constant(i.type, 1), flags=("nsw",) if signed else ())
            i.add_incoming(nxt, b.block)
            br = b.branch(header)
            md = self._loop_metadata(loop)
            if md is not None:
                br.set_metadata("llvm.loop", md)
        b.position_at_end(exit_)

    def _loop_metadata(self, loop: For) -> ir.MDValue | None:
        # NOTE: LLVM wants a loop id whose first operand is itself; llvmlite cannot build a
        # cycle, and current LLVM also accepts the property list directly.
        if loop.kind is ForKind.UNROLLED:  # left when the extent is not a constant
            props = [self.module.add_metadata(["llvm.loop.unroll.enable"])]
        elif loop.kind is ForKind.VECTORIZED:
            props = [self.module.add_metadata(["llvm.loop.vectorize.enable", ir.Constant(I1, 1)])]
            extent = simplify(loop.extent)
            if isinstance(extent, IntImm) and 1 < extent.value <= 64:
                width = ir.Constant(ir.IntType(32), _pow2_floor(extent.value))
                props.append(self.module.add_metadata(["llvm.loop.vectorize.width", width]))
        else:
            return None
        return self.module.add_metadata(props)

    def visit_While(self, s: While) -> None:
        """`while (cond) body`: the condition is evaluated again before every turn."""
        b = self.builder
        header = b.append_basic_block("while_header")
        body = b.append_basic_block("while_body")
        exit_ = b.append_basic_block("while_end")
        b.branch(header)
        b.position_at_end(header)
        b.cbranch(self.visit(s.condition), body, exit_)
        b.position_at_end(body)
        self._visit_loop_body(s.body, header, exit_)
        if not b.block.is_terminated:
            b.branch(header)
        b.position_at_end(exit_)

    def visit_IfThenElse(self, s: IfThenElse) -> None:
        cond = self.visit(s.condition)
        if s.else_case is None:
            with self.builder.if_then(cond):
                self.visit(s.then_case)
            return
        with self.builder.if_else(cond) as (then, other):
            with then:
                self.visit(s.then_case)
            with other:
                self.visit(s.else_case)

    def visit_AssertStmt(self, s: AssertStmt) -> None:
        cond = self.visit(s.condition)
        with self.builder.if_then(self.builder.not_(cond), likely=False):
            self._free(self.heap)
            self.builder.ret_void()
        self.visit(s.body)

    def visit_Allocate(self, s: Allocate) -> None:
        from .lower import flat_size

        buf = s.buffer
        count = self.visit(flat_size(buf))
        nbytes = None
        if isinstance(count, ir.Constant):
            nbytes = count.constant * dt.itemsize(buf.dtype)
        if nbytes is not None and nbytes <= STACK_ALLOC_LIMIT:
            mem = memory_type(buf.dtype)
            ptr = self.alloca_builder.alloca(mem, size=ir.Constant(I64, count.constant),
                                             name=buf.name)
            ptr.align = 64
            ptr.type = PTR  # NOTE: llvmlite types allocas as `float*`; LLVM 20 wants `ptr`
            self._bind_data(buf, ptr)
            self.visit(s.body)
            return
        size = self.builder.mul(count, ir.Constant(I64, dt.itemsize(buf.dtype)))
        ptr = self.builder.call(self._libfunc("malloc", PTR, [I64]), [size], name=buf.name)
        self._bind_data(buf, ptr)
        self.heap.append(ptr)
        self.visit(s.body)
        self.heap.pop()
        if not self.builder.block.is_terminated:
            self._free([ptr])

    def visit_DeclBuffer(self, s: DeclBuffer) -> None:
        if s.buffer.data is None or s.buffer.data not in self.vars:
            raise ValueError(f"decl_buffer {s.buffer.name!r} views data that is not in scope")
        self.visit(s.body)

    def _bind_data(self, buf: Any, ptr: ir.Value) -> None:
        if buf.data is None:
            raise ValueError(f"allocated buffer {buf.name!r} has no data var")
        self.vars[buf.data] = ptr

    def _free(self, ptrs: list[ir.Value]) -> None:
        free = self._libfunc("free", ir.VoidType(), [PTR])
        for p in reversed(ptrs):
            self.builder.call(free, [p])

    def _libfunc(self, name: str, ret: ir.Type, args: list[ir.Type]) -> ir.Function:
        fn = self.module.globals.get(name)
        if fn is None:
            fn = ir.Function(self.module, ir.FunctionType(ret, args), name=name)
        return fn

    # -- expressions ------------------------------------------------------------------------

    def visit_IntImm(self, e: IntImm) -> ir.Value:
        key = (e.dtype, e.value)
        c = self._int_constants.get(key)
        if c is None:  # one object per constant, so the block's value numbering can match it
            c = self._int_constants[key] = ir.Constant(llvm_type(e.dtype), e.value)
        return c

    def visit_FloatImm(self, e: FloatImm) -> ir.Value:
        return ir.Constant(llvm_type(e.dtype), e.value)

    def visit_Var(self, v: Var) -> ir.Value:
        try:
            return self.vars[v]
        except KeyError:
            raise ValueError(f"variable {v.name!r} is used but not defined") from None

    def visit_Let(self, e: Let) -> ir.Value:
        self.vars[e.var] = self.visit(e.value)
        return self.visit(e.body)

    def visit_BufferLoad(self, e: BufferLoad) -> ir.Value:
        if self.lanes:
            return self.vector_load(e)
        ptr = self._address(e.buffer, e.indices[0])
        val = self.builder.load(ptr, typ=memory_type(e.buffer.dtype),
                                align=dt.itemsize(e.buffer.dtype))
        return self.builder.trunc(val, I1) if e.buffer.dtype == "bool" else val

    def _address(self, buf: Any, index: PrimExpr) -> ir.Value:
        if buf.ndim != 1:
            raise ValueError(f"buffer {buf.name!r} is not flattened; run tir.lower.lower first")
        base = self.visit(buf.data)
        idx = self.cast(self.visit(index), index.dtype, "int64")
        elem = memory_type(buf.dtype)
        return self.numbered(("gep", id(base), id(idx), elem), (base, idx),
                             lambda: self.builder.gep(base, [idx], inbounds=True,
                                                      source_etype=elem))

    def visit_Cast(self, e: Cast) -> ir.Value:
        return self.cast(self.visit(e.value), e.value.dtype, e.dtype)

    def visit_Not(self, e: Not) -> ir.Value:
        return self.builder.not_(self.visit(e.a))

    def visit_Select(self, e: Select) -> ir.Value:
        c, t, f = self.visit(e.condition), self.visit(e.true_value), self.visit(e.false_value)
        c, t, f = self.match_lanes(c, t, f)
        return self.builder.select(c, t, f)

    def visit_BinOp(self, e: BinOp) -> ir.Value:
        a, b = self.match_lanes(self.visit(e.a), self.visit(e.b))
        if not dt.is_float(e.a.dtype):
            return self.numbered(("binop", e.op, e.a.dtype, id(a), id(b)), (a, b),
                                 lambda: self._binop(e.op, a, b, e.a.dtype))
        return self._binop(e.op, a, b, e.a.dtype)

    def numbered(self, key: tuple, operands: tuple, emit: Callable[[], ir.Value]) -> ir.Value:
        """`emit()`, or the value an identical pure instruction already has in this basic block
        (local value numbering): the register tiles of unrolled loops recompute the same index
        arithmetic for every access, which made the IR text (and LLVM's parse and CSE) several
        times larger than the code it becomes."""
        block = self.builder.block
        if block is not self._numbered_block:
            self._numbered_block, self._numbered = block, {}
        hit = self._numbered.get(key)
        if hit is None:
            # NOTE: the operands are kept with the value: the key holds their ids
            hit = self._numbered[key] = (emit(), operands)
        return hit[0]

    def _binop(self, op: BinaryOp, a: ir.Value, b: ir.Value, dtype: str) -> ir.Value:
        if op.is_comparison:
            return self._compare(op, a, b, dtype)
        if op is BinaryOp.AND:
            return self.builder.and_(a, b)
        if op is BinaryOp.OR:
            return self.builder.or_(a, b)
        return self._arith(op, a, b, dtype)

    def _compare(self, op: BinaryOp, a: ir.Value, b: ir.Value, dtype: str) -> ir.Value:
        if dt.is_float(dtype):
            if op is BinaryOp.NE:
                return self.builder.fcmp_unordered("!=", a, b)
            return self.builder.fcmp_ordered(_FCMP[op], a, b)
        if dt.is_uint(dtype) or dtype == "bool":
            return self.builder.icmp_unsigned(_ICMP[op], a, b)
        return self.builder.icmp_signed(_ICMP[op], a, b)

    def _arith(self, op: BinaryOp, a: ir.Value, b: ir.Value, dtype: str) -> ir.Value:
        b_ = self.builder
        if dt.is_float(dtype):
            return _FLOAT_ARITH[op](self, a, b)
        unsigned = dt.is_uint(dtype) or dtype == "bool"
        nsw = ("nsw",) if not unsigned and dt.bits(dtype) >= 32 else ()
        if op is BinaryOp.ADD:
            return b_.add(a, b, flags=nsw)
        if op is BinaryOp.SUB:
            return b_.sub(a, b, flags=nsw)
        if op is BinaryOp.MUL:
            return b_.mul(a, b, flags=nsw)
        if op is BinaryOp.DIV:
            return b_.udiv(a, b) if unsigned else b_.sdiv(a, b)
        if op is BinaryOp.MOD:
            return b_.urem(a, b) if unsigned else b_.srem(a, b)
        if op is BinaryOp.FLOORDIV:
            return b_.udiv(a, b) if unsigned else self._floordiv(a, b)
        if op is BinaryOp.FLOORMOD:
            return b_.urem(a, b) if unsigned else self._floormod(a, b)
        if op in (BinaryOp.MIN, BinaryOp.MAX):
            cmp = b_.icmp_unsigned if unsigned else b_.icmp_signed
            return b_.select(cmp("<" if op is BinaryOp.MIN else ">", a, b), a, b)
        raise NotImplementedError(f"integer operator {op.value!r}")

    def _floordiv(self, a: ir.Value, b: ir.Value) -> ir.Value:
        """a // b rounding toward -inf: the truncated quotient, minus 1 when the signs differ
        and the division is inexact."""
        b_ = self.builder
        q, r = b_.sdiv(a, b), b_.srem(a, b)
        zero = ir.Constant(a.type, 0)
        fix = b_.and_(b_.icmp_signed("!=", r, zero),
                      b_.icmp_signed("!=", b_.icmp_signed("<", r, zero),
                                     b_.icmp_signed("<", b, zero)))
        return b_.sub(q, b_.zext(fix, a.type))

    def _floormod(self, a: ir.Value, b: ir.Value) -> ir.Value:
        b_ = self.builder
        r = b_.srem(a, b)
        zero = ir.Constant(a.type, 0)
        fix = b_.and_(b_.icmp_signed("!=", r, zero),
                      b_.icmp_signed("!=", b_.icmp_signed("<", r, zero),
                                     b_.icmp_signed("<", b, zero)))
        return b_.select(fix, b_.add(r, b), r)

    def _float_floordiv(self, a: ir.Value, b: ir.Value) -> ir.Value:
        return self._intrinsic("llvm.floor", [self.builder.fdiv(a, b, flags=self._flags)])

    def _float_floormod(self, a: ir.Value, b: ir.Value) -> ir.Value:
        q = self._float_floordiv(a, b)
        return self.builder.fsub(a, self.builder.fmul(q, b))

    def _fminmax(self, a: ir.Value, b: ir.Value, pred: str) -> ir.Value:
        # select(a < b, a, b) as TVM emits: NaN in `a` yields `b` (LLVM still forms minps/maxps)
        return self.builder.select(self.builder.fcmp_ordered(pred, a, b), a, b)

    # -- casts ------------------------------------------------------------------------------

    def cast(self, v: ir.Value, src: str, dst: str) -> ir.Value:
        """Converts `v` from TIR dtype `src` to `dst` (C semantics; to bool means `!= 0`)."""
        if src == dst:
            return v
        return self.numbered(("cast", id(v), src, dst), (v,), lambda: self._convert(v, src, dst))

    def _convert(self, v: ir.Value, src: str, dst: str) -> ir.Value:
        b = self.builder
        to = llvm_type(dst)
        elem = v.type.element if isinstance(v.type, ir.VectorType) else v.type
        width = getattr(elem, "width", 0)  # NOTE: float types have no width attribute
        if isinstance(v.type, ir.VectorType):
            to = ir.VectorType(to, v.type.count)
        if dst == "bool":
            if dt.is_float(src):
                return b.fcmp_unordered("!=", v, ir.Constant(v.type, 0.0))
            return b.icmp_unsigned("!=", v, ir.Constant(v.type, 0))
        if dt.is_float(src) and dt.is_float(dst):
            if dt.bits(src) < dt.bits(dst):
                return b.fpext(v, to)
            return b.fptrunc(v, to)
        if dt.is_float(src):
            return b.fptoui(v, to) if dt.is_uint(dst) else b.fptosi(v, to)
        unsigned = dt.is_uint(src) or src == "bool"
        if dt.is_float(dst):
            return b.uitofp(v, to) if unsigned else b.sitofp(v, to)
        to_width = to.width if not isinstance(to, ir.VectorType) else to.element.width
        if width == to_width:
            return v
        if width > to_width:
            return b.trunc(v, to)
        return b.zext(v, to) if unsigned else b.sext(v, to)

    # -- calls ------------------------------------------------------------------------------

    def visit_Call(self, e: Call) -> ir.Value:
        op = e.op[4:] if e.op.startswith("tir.") else e.op
        special = _SPECIAL_CALLS.get(op)
        if special is not None:
            return special(self, e)
        args = self.match_lanes(*[self.visit(a) for a in e.args])
        if op in _LLVM_MATH or op in _LIBM:
            return self._math(op, args, e.dtype)
        raise NotImplementedError(f"the llvm backend has no intrinsic {e.op!r}")

    def _math(self, op: str, args: list[ir.Value], dtype: str) -> ir.Value:
        if not dt.is_float(dtype):
            raise TypeError(f"tir.{op} needs a float argument, got {dtype}")
        if op in _LLVM_MATH:
            return self._intrinsic(_LLVM_MATH[op], args)
        # libm has no half versions: compute in float32
        work = "float64" if dtype == "float64" else "float32"
        wide = [self.cast(a, dtype, work) for a in args]
        # NOTE: by its alias (vm/libm_aliases.py): a kernel may be named like the function
        name = LIBM_PREFIX + _LIBM[op] + ("f" if work == "float32" else "")
        fn = self._libfunc(name, llvm_type(work), [llvm_type(work)] * len(wide))
        return self.cast(self.builder.call(fn, wide), work, dtype)

    def _intrinsic(self, name: str, args: list[ir.Value]) -> ir.Value:
        ty = args[0].type
        suffix = {"float": "f32", "double": "f64", "half": "f16"}
        if isinstance(ty, ir.VectorType):  # llvmlite only mangles scalar overloads
            fn = self._libfunc(f"{name}.v{ty.count}{suffix[str(ty.element)]}", ty,
                               [a.type for a in args])
        else:  # NOTE: declared by hand: llvmlite gives unknown intrinsics one parameter
            fn = self._libfunc(f"{name}.{suffix[str(ty)]}", ty, [a.type for a in args])
        return self.builder.call(fn, args)

    def _if_then_else(self, e: Call) -> ir.Value:
        """Lazy: only the taken side is evaluated (it may guard an out-of-bounds load)."""
        cond = self.visit(e.args[0])
        with self.builder.if_else(cond) as (then, other):
            with then:
                t, t_block = self.visit(e.args[1]), self.builder.block
            with other:
                f, f_block = self.visit(e.args[2]), self.builder.block
        phi = self.builder.phi(t.type)
        phi.add_incoming(t, t_block)
        phi.add_incoming(f, f_block)
        return phi

    def _rsqrt(self, e: Call) -> ir.Value:
        x = self.visit(e.args[0])
        return self.builder.fdiv(ir.Constant(x.type, 1.0), self._intrinsic("llvm.sqrt", [x]))

    def _abs(self, e: Call) -> ir.Value:
        x = self.visit(e.args[0])
        if dt.is_float(e.dtype):
            return self._intrinsic("llvm.fabs", [x])
        if dt.is_uint(e.dtype):
            return x
        neg = self.builder.icmp_signed("<", x, ir.Constant(x.type, 0))
        return self.builder.select(neg, self.builder.neg(x), x)

    def _isnan(self, e: Call) -> ir.Value:
        x = self.visit(e.args[0])
        return self.builder.fcmp_unordered("uno", x, x)

    def _bounds_fail(self, e: Call) -> ir.Value:
        """`tvmlite.bounds_fail("message", index)`: report a failed run-time bounds check
        (tir/bounds_instrument.py) to the runtime (vm/bounds_runtime.py)."""
        text = bytearray(e.args[0].value.encode() + b"\0")  # type: ignore[attr-defined]
        ty = ir.ArrayType(ir.IntType(8), len(text))
        msg = ir.GlobalVariable(self.module, ty, self.module.get_unique_name("bounds_msg"))
        msg.global_constant, msg.linkage, msg.initializer = True, "private", ir.Constant(ty, text)
        fail = self._libfunc("tvmlite_bounds_fail", ir.VoidType(), [PTR, I64])
        self.builder.call(fail, [self.builder.bitcast(msg, PTR), self.visit(e.args[1])])
        return ir.Constant(ir.IntType(32), 0)


_FLOAT_ARITH: dict[BinaryOp, Callable[[CodeGenLLVM, ir.Value, ir.Value], ir.Value]] = {
    BinaryOp.ADD: lambda g, a, b: g.builder.fadd(a, b, flags=g._flags),
    BinaryOp.SUB: lambda g, a, b: g.builder.fsub(a, b, flags=g._flags),
    BinaryOp.MUL: lambda g, a, b: g.builder.fmul(a, b, flags=g._flags),
    BinaryOp.DIV: lambda g, a, b: g.builder.fdiv(a, b),
    BinaryOp.MOD: lambda g, a, b: g.builder.frem(a, b),
    BinaryOp.FLOORDIV: CodeGenLLVM._float_floordiv,
    BinaryOp.FLOORMOD: CodeGenLLVM._float_floormod,
    BinaryOp.MIN: lambda g, a, b: g._fminmax(a, b, "<"),
    BinaryOp.MAX: lambda g, a, b: g._fminmax(a, b, ">"),
}

_SPECIAL_CALLS: dict[str, Callable[[CodeGenLLVM, Call], ir.Value]] = {
    "if_then_else": CodeGenLLVM._if_then_else,
    "sigmoid": CodeGenLLVM._sigmoid,
    "erf": CodeGenLLVM._erf,
    "exp": CodeGenLLVM._exp,
    "rsqrt": CodeGenLLVM._rsqrt,
    "abs": CodeGenLLVM._abs,
    "isnan": CodeGenLLVM._isnan,
    "tvmlite.bounds_fail": CodeGenLLVM._bounds_fail,
    "likely": lambda g, e: g.visit(e.args[0]),
    **INTRIN_CALLS,
}



def _stride(e: PrimExpr, var: Var) -> int | None:
    """How much index `e` moves when `var` grows by one (None when that is not a constant)."""
    if e is var:
        return 1
    if isinstance(e, Cast):
        return _stride(e.value, var)
    if isinstance(e, BinOp) and e.op in (BinaryOp.ADD, BinaryOp.SUB):
        a, b = _stride(e.a, var), _stride(e.b, var)
        if a is None or b is None:
            return None
        return a + b if e.op is BinaryOp.ADD else a - b
    if isinstance(e, BinOp) and e.op is BinaryOp.MUL:
        a, b = _stride(e.a, var), _stride(e.b, var)
        if a == 0 and b == 0:
            return 0
        if a is not None and isinstance(e.b, IntImm):
            return a * e.b.value
        if b is not None and isinstance(e.a, IntImm):
            return b * e.a.value
        return None
    if e.__class__ is IntImm or e.__class__ is Var:
        return 0  # NOTE: most leaves of an index; `var` itself was matched above
    return None if any_node(e, lambda n: n is var) else 0
