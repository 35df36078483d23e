"""A C-family expression and statement printer: the base the CUDA backend specializes.

Input invariant: lowered TIR (`tir.lower.lower`: no blocks, 1-d buffer accesses). The printer
keeps one name per `Var` (sanitized, unique within a kernel) and writes lines with indentation.
Dialect differences (type names, literal spellings, the kernel prefix, half-precision helpers)
are class attributes and dicts, so a backend is a subclass that overrides tables (STYLE habit 7).

Semantics follow the LLVM backend: `/` on ints truncates, FLOORDIV/FLOORMOD round toward -inf
(plain `/`, `%` where both sides are provably non-negative), min/max are `a < b ? a : b`.
"""

from __future__ import annotations

import math
import re
from typing import Any, Callable

from . import dtype as dt
from .expr import (
    BinaryOp, BinOp, BufferLoad, Call, Cast, FloatImm, IntImm, Let, Not, PrimExpr, Select,
    StringImm, Var,
)
from .functor import Visitor, substitute
from .stmt import (
    Allocate, AssertStmt, BufferStore, DeclBuffer, Evaluate, For, ForKind, IfThenElse, LetStmt,
    SeqStmt, While,
)


class CodegenError(ValueError):
    """A program the C/CUDA backend cannot express (the message says what to change)."""


_C_TYPES = {
    "bool": "bool", "int8": "int8_t", "int16": "int16_t", "int32": "int", "int64": "int64_t",
    "uint8": "uint8_t", "uint16": "uint16_t", "uint32": "uint32_t", "uint64": "uint64_t",
    "float32": "float", "float64": "double",
}
_INFIX = {BinaryOp.ADD: "+", BinaryOp.SUB: "-", BinaryOp.MUL: "*", BinaryOp.DIV: "/",
          BinaryOp.MOD: "%", BinaryOp.EQ: "==", BinaryOp.NE: "!=", BinaryOp.LT: "<",
          BinaryOp.LE: "<=", BinaryOp.GT: ">", BinaryOp.GE: ">=", BinaryOp.AND: "&&",
          BinaryOp.OR: "||"}
# TIR math intrinsic -> C function for double; float32 adds the `f` suffix (expf, sqrtf, ...).
_MATH = {name: name for name in (
    "exp", "exp2", "exp10", "log", "log2", "log10", "log1p", "expm1", "sqrt", "rsqrt", "tanh",
    "erf", "sin", "cos", "tan", "sinh", "cosh", "asin", "acos", "atan", "asinh", "acosh",
    "atanh", "floor", "ceil", "trunc", "nearbyint", "fabs", "pow", "atan2", "fmod", "hypot",
    "copysign", "fma")}
_MATH["round"] = "rint"  # ties to even, like numpy and the LLVM backend
_RESERVED = frozenset("""auto break case char const continue default do double else enum extern
float for goto if inline int long register return short signed sizeof static struct switch
typedef union unsigned void volatile while bool true false half threadIdx blockIdx blockDim
gridDim warpSize max min abs exp log sqrt""".split())


class CEmitter(Visitor):
    """Prints one function body as C; `emit_function` wraps it with a signature."""

    kernel_prefix = 'extern "C" void'
    restrict = "__restrict__"
    func_qualifier = "static inline"  # of the helper functions in the preamble
    c_types: dict[str, str] = _C_TYPES
    # low-precision floats: dtype -> (C type, to-float function, from-float function)
    lowp: dict[str, tuple[str, str, str]] = {}

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.indent = 1
        self.names: dict[Var, str] = {}
        self.taken: set[str] = set()
        self.nonneg: set[Var] = set()  # vars known to be >= 0 (loop indices, shape vars)
        self.dtypes_used: set[str] = set()

    # -- names and types --------------------------------------------------------------------

    def ctype(self, dtype: str) -> str:
        self.dtypes_used.add(dtype)
        if dtype in self.lowp:
            return self.lowp[dtype][0]
        if dtype not in self.c_types:
            raise CodegenError(f"the {type(self).__name__} backend does not support dtype "
                               f"{dtype!r}")
        return self.c_types[dtype]

    def bind_name(self, var: Var, hint: str | None = None) -> str:
        """A fresh C identifier for `var` (sanitized, unique in this function)."""
        base = re.sub(r"\W", "_", hint or var.name) or "v"
        if base[0].isdigit() or base in _RESERVED:
            base = "v_" + base
        name, k = base, 1
        while name in self.taken:
            name, k = f"{base}_{k}", k + 1
        self.taken.add(name)
        self.names[var] = name
        return name

    def line(self, text: str) -> None:
        self.lines.append("  " * self.indent + text)

    def block(self, open_line: str, body: Callable[[], None]) -> None:
        self.line(open_line + " {")
        self.indent += 1
        body()
        self.indent -= 1
        self.line("}")

    # -- statements -------------------------------------------------------------------------

    def visit_SeqStmt(self, s: SeqStmt) -> None:
        for st in s.seq:
            self.visit(st)

    def visit_Evaluate(self, s: Evaluate) -> None:
        if isinstance(s.value, (IntImm, FloatImm, StringImm)):
            return
        if isinstance(s.value, Call) and self.statement_call(s.value):
            return
        self.line(self.expr(s.value) + ";")

    def statement_call(self, call: Call) -> bool:
        """Emit `call` as a statement if the dialect has one for it (e.g. a barrier)."""
        return False

    def visit_LetStmt(self, s: LetStmt) -> None:
        value = self.expr(s.value)
        self.line(f"const {self.ctype(s.var.dtype)} {self.bind_name(s.var)} = {value};")
        if self.is_nonneg(s.value):
            self.nonneg.add(s.var)
        self.visit(s.body)

    def visit_BufferStore(self, s: BufferStore) -> None:
        self.line(f"{self.access(s.buffer, s.indices)} = {self.expr(s.value)};")

    def visit_For(self, loop: For) -> None:
        if loop.kind is ForKind.THREAD_BINDING:
            self.thread_loop(loop)
            return
        if loop.kind in (ForKind.UNROLLED, ForKind.VECTORIZED):
            # NOTE: unrolled scalar code; the CUDA emitter first tries one float4 access
            self.line("#pragma unroll")
        ty, lo = self.ctype(loop.loop_var.dtype), self.expr(loop.min)
        hi = self.expr(loop.min + loop.extent) if not _is_zero(loop.min) else self.expr(
            loop.extent)
        if self.is_nonneg(loop.min):
            self.nonneg.add(loop.loop_var)
        v = self.bind_name(loop.loop_var)
        self.block(f"for ({ty} {v} = {lo}; {v} < {hi}; ++{v})", lambda: self.visit(loop.body))

    def thread_loop(self, loop: For) -> None:
        raise CodegenError(f"loop {loop.loop_var.name!r} is bound to {loop.thread_tag!r}: "
                           f"thread-bound loops need the CUDA backend (target='cuda')")

    def visit_While(self, s: While) -> None:
        self.block(f"while ({_strip(self.expr(s.condition))})", lambda: self.visit(s.body))

    def visit_IfThenElse(self, s: IfThenElse) -> None:
        self.block(f"if ({_strip(self.expr(s.condition))})", lambda: self.visit(s.then_case))
        if s.else_case is not None:
            self.lines[-1] += " else {"
            self.indent += 1
            self.visit(s.else_case)
            self.indent -= 1
            self.line("}")

    def visit_AssertStmt(self, s: AssertStmt) -> None:
        # NOTE: a kernel has no error channel (as in the LLVM backend): a failed check returns
        self.line(f"if (!({_strip(self.expr(s.condition))})) return;  // {s.message[:60]}")
        self.visit(s.body)

    def visit_Allocate(self, s: Allocate) -> None:
        self.line(self.declare_array(s.buffer) + ";")
        self.visit(s.body)

    def declare_array(self, buf: Any, qualifier: str = "") -> str:
        from .lower import flat_size

        size = flat_size(buf)
        if not isinstance(size, IntImm):
            raise CodegenError(f"buffer {buf.name!r} allocated inside a kernel needs a static "
                               f"size, got {size}")
        if buf.data is None:
            raise CodegenError(f"allocated buffer {buf.name!r} has no data var")
        name = self.bind_name(buf.data, buf.name)
        return f"{qualifier}{self.ctype(buf.dtype)} {name}[{max(1, size.value)}]"

    def visit_DeclBuffer(self, s: DeclBuffer) -> None:
        if s.buffer.data is None or s.buffer.data not in self.names:
            raise CodegenError(f"decl_buffer {s.buffer.name!r} views data that is not in scope")
        self.visit(s.body)

    # -- expressions ------------------------------------------------------------------------

    def expr(self, e: PrimExpr) -> str:
        return self.visit(e)

    def visit_IntImm(self, e: IntImm) -> str:
        if e.dtype == "bool":
            return "true" if e.value else "false"
        if e.dtype == "int32":
            return str(e.value) if e.value >= 0 else f"({e.value})"
        if e.dtype == "int64":
            if e.value == -(2**63):
                return "((int64_t)(-9223372036854775807LL - 1))"
            return f"(int64_t){e.value}LL" if e.value >= 0 else f"((int64_t)({e.value}LL))"
        return f"(({self.ctype(e.dtype)}){e.value})"

    def visit_FloatImm(self, e: FloatImm) -> str:
        work = "float32" if e.dtype in self.lowp else e.dtype
        text = self.float_literal(e.value, work)
        if e.dtype in self.lowp:
            return f"{self.lowp[e.dtype][2]}({text})"
        return text

    def float_literal(self, v: float, dtype: str) -> str:
        suffix = "f" if dtype == "float32" else ""
        if math.isfinite(v):
            return repr(float(v)) + suffix
        if math.isnan(v):
            return f"(0.0{suffix} / 0.0{suffix})"
        return f"({'-' if v < 0 else ''}1.0{suffix} / 0.0{suffix})"

    def visit_Var(self, v: Var) -> str:
        try:
            return self.names[v]
        except KeyError:
            raise CodegenError(f"variable {v.name!r} is used but not defined in this kernel"
                               ) from None

    def visit_StringImm(self, e: StringImm) -> str:
        raise CodegenError(f"a string ({e.value!r}) cannot be used as a value in C")

    def visit_Let(self, e: Let) -> str:
        return self.expr(substitute(e.body, {e.var: e.value}))  # pure: substituting is exact

    def visit_BufferLoad(self, e: BufferLoad) -> str:
        return self.access(e.buffer, e.indices)

    def access(self, buf: Any, indices: tuple[PrimExpr, ...]) -> str:
        if len(indices) != 1:
            raise CodegenError(f"buffer {buf.name!r} is not flattened; run tir.lower first")
        self.ctype(buf.dtype)
        return f"{self.visit(buf.data)}[{_strip(self.expr(indices[0]))}]"

    def visit_Not(self, e: Not) -> str:
        return f"(!{self.expr(e.a)})"

    def visit_Select(self, e: Select) -> str:
        c, t, f = self.expr(e.condition), self.expr(e.true_value), self.expr(e.false_value)
        return f"({c} ? {t} : {f})"

    def visit_Cast(self, e: Cast) -> str:
        src, dst, x = e.value.dtype, e.dtype, self.expr(e.value)
        if src == dst:
            return x
        if src in self.lowp:  # through float: half has no direct conversions to every type
            x, src = f"{self.lowp[src][1]}({x})", "float32"
            if dst == "float32":
                return x
        if dst in self.lowp:
            return f"{self.lowp[dst][2]}((float)({x}))"
        if dst == "bool":
            return f"({x} != 0)"
        return f"(({self.ctype(dst)})({x}))"

    def visit_BinOp(self, e: BinOp) -> str:
        a, b, dtype = self.expr(e.a), self.expr(e.b), e.a.dtype
        if e.op in (BinaryOp.MIN, BinaryOp.MAX):
            fn = "tl_min" if e.op is BinaryOp.MIN else "tl_max"
            return f"{fn}<{self.ctype(dtype)}>({_strip(a)}, {_strip(b)})"
        if e.op in (BinaryOp.FLOORDIV, BinaryOp.FLOORMOD):
            return self.floor_op(e, a, b)
        if e.op is BinaryOp.MOD and dt.is_float(dtype):
            return self.math_call("fmod", [a, b], dtype)
        return f"({a} {_INFIX[e.op]} {b})"

    def floor_op(self, e: BinOp, a: str, b: str) -> str:
        dtype, div = e.a.dtype, e.op is BinaryOp.FLOORDIV
        if dt.is_float(dtype):
            q = self.math_call("floor", [f"({a} / {b})"], dtype)
            return q if div else f"({a} - {q} * {b})"
        if self.is_nonneg(e.a) and _is_positive_const(e.b) or dt.is_uint(dtype):
            return f"({a} {'/' if div else '%'} {b})"
        fn = "tl_floordiv" if div else "tl_floormod"
        return f"{fn}<{self.ctype(dtype)}>({_strip(a)}, {_strip(b)})"

    def is_nonneg(self, e: PrimExpr) -> bool:
        """A cheap proof that `e >= 0` (lets floordiv/floormod print as plain `/` and `%`)."""
        if isinstance(e, IntImm):
            return e.value >= 0
        if isinstance(e, Var):
            return e in self.nonneg
        if isinstance(e, Cast):
            return not dt.is_float(e.dtype) and self.is_nonneg(e.value)
        if isinstance(e, BinOp) and e.op in (BinaryOp.ADD, BinaryOp.MUL, BinaryOp.FLOORDIV,
                                             BinaryOp.FLOORMOD, BinaryOp.DIV, BinaryOp.MOD,
                                             BinaryOp.MIN, BinaryOp.MAX):
            return not dt.is_float(e.dtype) and self.is_nonneg(e.a) and self.is_nonneg(e.b)
        return False

    # -- calls ------------------------------------------------------------------------------

    def visit_Call(self, e: Call) -> str:
        op = e.op[4:] if e.op.startswith("tir.") else e.op
        special = _SPECIAL.get(op)
        if special is not None:
            return special(self, e)
        if op in _MATH:
            if not dt.is_float(e.dtype):
                raise CodegenError(f"tir.{op} needs a float argument, got {e.dtype}")
            return self.math_call(op, [self.expr(a) for a in e.args], e.dtype)
        raise CodegenError(f"the {type(self).__name__} backend has no intrinsic {e.op!r}")

    def math_call(self, op: str, args: list[str], dtype: str) -> str:
        """`op(args)` in `dtype`; low-precision floats compute in float32 and round back."""
        fn = _MATH.get(op, op)
        if dtype in self.lowp:
            _, to_f, from_f = self.lowp[dtype]
            inner = ", ".join(f"{to_f}({_strip(a)})" for a in args)
            return f"{from_f}({fn}f({inner}))"
        suffix = "f" if dtype == "float32" else ""
        return f"{fn}{suffix}({', '.join(_strip(a) for a in args)})"

    def _if_then_else(self, e: Call) -> str:
        c, t, f = (self.expr(a) for a in e.args)  # C's ?: evaluates only the taken side
        return f"({c} ? {t} : {f})"

    def _sigmoid(self, e: Call) -> str:
        x = self.expr(e.args[0])
        if e.dtype in self.lowp:
            _, to_f, from_f = self.lowp[e.dtype]
            return f"{from_f}(1.0f / (1.0f + expf(-{to_f}({x}))))"
        one = self.float_literal(1.0, e.dtype)
        return f"({one} / ({one} + {self.math_call('exp', [f'(-{x})'], e.dtype)}))"

    def _abs(self, e: Call) -> str:
        x = self.expr(e.args[0])
        if dt.is_float(e.dtype):
            return self.math_call("fabs", [x], e.dtype)
        return x if dt.is_uint(e.dtype) else f"tl_abs<{self.ctype(e.dtype)}>({_strip(x)})"

    def _isnan(self, e: Call) -> str:
        x, src = self.expr(e.args[0]), e.args[0].dtype
        if src in self.lowp:
            x = f"{self.lowp[src][1]}({x})"
        return f"isnan({_strip(x)})"


_SPECIAL: dict[str, Callable[[CEmitter, Call], str]] = {
    "if_then_else": CEmitter._if_then_else,
    "sigmoid": CEmitter._sigmoid,
    "abs": CEmitter._abs,
    "isnan": CEmitter._isnan,
    "likely": lambda g, e: g.expr(e.args[0]),
}

# Helpers every kernel source starts with (templates: one definition serves every int type).
HELPERS = """\
template <typename T> __device__ __forceinline__ T tl_min(T a, T b) { return a < b ? a : b; }
template <typename T> __device__ __forceinline__ T tl_max(T a, T b) { return a > b ? a : b; }
template <typename T> __device__ __forceinline__ T tl_abs(T a) { return a < 0 ? -a : a; }
template <typename T> __device__ __forceinline__ T tl_floordiv(T a, T b) {
  T q = a / b, r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? q - 1 : q;
}
template <typename T> __device__ __forceinline__ T tl_floormod(T a, T b) {
  T r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
"""


def _is_zero(e: PrimExpr) -> bool:
    return isinstance(e, IntImm) and e.value == 0


def _is_positive_const(e: PrimExpr) -> bool:
    return isinstance(e, IntImm) and e.value > 0


def _strip(text: str) -> str:
    """`(a + b)` -> `a + b` where the context already delimits it (an index, an argument)."""
    if not (text.startswith("(") and text.endswith(")")):
        return text
    depth = 0
    for i, ch in enumerate(text):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0 and i < len(text) - 1:
            return text  # `(a) + (b)`: the outer parens do not match each other
    return text[1:-1]
