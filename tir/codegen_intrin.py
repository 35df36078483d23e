"""LLVM lowering of the bit, bit-cast, extern and named-LLVM intrinsics (`T.popcount`,
`T.shift_left`, `T.reinterpret`, `T.call_pure_extern`, `T.call_llvm_pure_intrin`, ...), and
the refusal of GPU-only ones (tensor cores, warp shuffles) with an error that says so.

Each entry takes the code generator and the `Call` and returns the LLVM value.
"""

from __future__ import annotations

from typing import Any, Callable

from llvmlite import ir

from . import dtype as dt
from .expr import Call, StringImm

# Tensor-core (WMMA) and warp intrinsics: GPU hardware features with no CPU lowering.
GPU_ONLY = frozenset(
    "tvm_fill_fragment tvm_load_matrix_sync tvm_mma_sync tvm_bmma_sync tvm_store_matrix_sync "
    "tvm_warp_shuffle tvm_warp_shuffle_up tvm_warp_shuffle_down tvm_warp_shuffle_xor "
    "tvm_warp_activemask tvm_global_barrier_kinit tvm_thread_allreduce".split())


def _gpu_only(g: Any, e: Call) -> ir.Value:
    raise NotImplementedError(
        f"T.{e.op[4:]} is a GPU intrinsic (tensor cores / warp shuffles) and needs a GPU: "
        "build this function for target \"cuda\"; the CPU backend cannot run it")


def _int_args(g: Any, e: Call) -> list[ir.Value]:
    if dt.is_float(e.args[0].dtype):
        raise TypeError(f"{e.op} needs integer operands, got {e.args[0].dtype}")
    return g.match_lanes(*[g.visit(a) for a in e.args])


def _bitwise(method: str) -> Callable[[Any, Call], ir.Value]:
    def lower(g: Any, e: Call) -> ir.Value:
        a, b = _int_args(g, e)
        return getattr(g.builder, method)(a, b)
    return lower


def _shift_right(g: Any, e: Call) -> ir.Value:
    a, b = _int_args(g, e)
    unsigned = dt.is_uint(e.args[0].dtype)
    return g.builder.lshr(a, b) if unsigned else g.builder.ashr(a, b)


def _bitwise_not(g: Any, e: Call) -> ir.Value:
    (a,) = _int_args(g, e)
    return g.builder.not_(a)


def _count(name: str) -> Callable[[Any, Call], ir.Value]:
    """`llvm.ctpop` / `llvm.ctlz` (ctlz of 0 is the bit width, as TVM defines clz)."""
    def lower(g: Any, e: Call) -> ir.Value:
        (a,) = _int_args(g, e)
        extra = [ir.Constant(ir.IntType(1), 0)] if name == "llvm.ctlz" else []
        width = (a.type.element if isinstance(a.type, ir.VectorType) else a.type).width
        lanes = f"v{a.type.count}" if isinstance(a.type, ir.VectorType) else ""
        fn = g._libfunc(f"{name}.{lanes}i{width}", a.type, [a.type] + [e.type for e in extra])
        return g.builder.call(fn, [a, *extra])
    return lower


def _reinterpret(g: Any, e: Call) -> ir.Value:
    from .codegen_llvm import llvm_type

    src, dst = e.args[0].dtype, e.dtype
    if dt.bits(src) != dt.bits(dst):
        raise TypeError(f"T.reinterpret from {src} to {dst}: the sizes differ")
    return g.builder.bitcast(g.visit(e.args[0]), llvm_type(dst))


def _ldexp(g: Any, e: Call) -> ir.Value:
    """`x * 2**n` through libm's ldexp (float32 math for halves, as the other libm calls)."""
    from .codegen_llvm import llvm_type

    work = "float64" if e.dtype == "float64" else "float32"
    x = g.cast(g.visit(e.args[0]), e.args[0].dtype, work)
    n = g.cast(g.visit(e.args[1]), e.args[1].dtype, "int32")
    fn = g._libfunc("ldexp" + ("f" if work == "float32" else ""), llvm_type(work),
                    [llvm_type(work), ir.IntType(32)])
    return g.cast(g.builder.call(fn, [x, n]), work, e.dtype)


def _named_call(g: Any, e: Call) -> ir.Value:
    """`T.call_llvm_pure_intrin(dtype, "llvm.x", ...)`, `T.call_pure_extern(dtype, "f", ...)`:
    a function declared by name with the argument and result types of the call."""
    from .codegen_llvm import llvm_type

    if not e.args or not isinstance(e.args[0], StringImm):
        raise ValueError(f"{e.op} takes the function name as its first argument")
    args = [g.visit(a) for a in e.args[1:]]
    fn = g._libfunc(e.args[0].value, llvm_type(e.dtype), [a.type for a in args])
    return g.builder.call(fn, args)


SPECIAL_CALLS: dict[str, Callable[[Any, Call], ir.Value]] = {
    "bitwise_and": _bitwise("and_"), "bitwise_or": _bitwise("or_"),
    "bitwise_xor": _bitwise("xor"), "shift_left": _bitwise("shl"),
    "shift_right": _shift_right, "bitwise_not": _bitwise_not,
    "popcount": _count("llvm.ctpop"), "clz": _count("llvm.ctlz"),
    "reinterpret": _reinterpret, "ldexp": _ldexp,
    "assume": lambda g, e: ir.Constant(ir.IntType(1), 1),  # a hint; nothing to compute
    "call_llvm_intrin": _named_call, "call_llvm_pure_intrin": _named_call,
    "call_extern": _named_call, "call_pure_extern": _named_call,
    **{name: _gpu_only for name in GPU_ONLY},
}
