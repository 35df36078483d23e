"""TIR intrinsics of the `T` namespace: math, bit, packed-call, tensor-core and warp calls.

Every name here builds one `tir.Call`. The table says how the call's dtype follows from its
arguments, so the printer (script/printer/common.py) can tell whether `T.<name>(args)` rebuilds
the very call it is printing. Tensor-core and warp intrinsics parse, print and round-trip on
any machine; the CPU backend refuses them with an error saying they need a GPU.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..tir import expr as tx
from ..tir.dtype import is_float
from ..tir.stmt import Buffer


@dataclass(frozen=True)
class Intrinsic:
    """One `T.<name>`: the op it calls and how the result dtype is found.

    `result` is a dtype ("bool", "handle", "int32", ...), "arg<N>" (the dtype of argument N),
    "first" (the caller passes the dtype as the first argument) or "last" (as the last one).
    `promote` makes the first two arguments meet at one dtype (binary arithmetic).
    """

    op: str
    result: str = "arg0"
    promote: bool = False


INTRINSICS: dict[str, Intrinsic] = {}


def _arg(x: Any) -> tx.PrimExpr:
    if isinstance(x, str):
        return tx.StringImm(x)
    if isinstance(x, Buffer) and x.data is not None:  # `T.call_packed("f", A)`: A's handle
        return x.data
    return tx.const(x)


def result_dtype(spec: Intrinsic, args: tuple[tx.PrimExpr, ...]) -> str | None:
    """The dtype `T.<name>(args)` gives (None when the caller names it)."""
    if spec.result in ("first", "last"):
        return None
    if spec.result.startswith("arg"):
        k = int(spec.result[3:])
        return args[k].dtype if k < len(args) else None
    return spec.result


def _make(name: str, spec: Intrinsic) -> Callable[..., tx.PrimExpr]:
    def fn(*args: Any, dtype: Any = None, span: Any = None) -> tx.PrimExpr:
        # NOTE: older TVMScript passes the dtype as a keyword (`dtype="handle"`) instead
        if dtype is not None:
            dtype = _dtype_of(dtype)
        elif spec.result == "first":
            dtype, args = _dtype_of(args[0]), args[1:]
        elif spec.result == "last":
            dtype, args = _dtype_of(args[-1]), args[:-1]
        if spec.promote and len(args) >= 2:
            a, b = tx._as_operands(args[0], args[1])
            values = (a, b, *(_arg(x) for x in args[2:]))
        else:
            values = tuple(_arg(x) for x in args)
        return tx.Call(dtype or result_dtype(spec, values) or "int32", spec.op, values)

    fn.__name__ = name
    fn.__doc__ = f"`T.{name}(...)`: a call of `{spec.op}`."
    return fn


def _dtype_of(x: Any) -> str:
    return getattr(x, "dtype", None) if not isinstance(x, str) else x  # type: ignore


def _register(names: str, result: str = "arg0", promote: bool = False, op: str = "") -> None:
    for name in names.split():
        spec = Intrinsic(op or "tir." + name, result, promote)
        INTRINSICS[name] = spec
        globals()[name] = _make(name, spec)


# -- math and bits (the CPU backend and the interpreter compute these) --------------------------
_register("acosh asinh atanh expm1 clz popcount bitwise_not")
_register("atan2 hypot fmod copysign nextafter bitwise_and bitwise_or bitwise_xor shift_left "
          "shift_right", promote=True)
_register("ldexp fma q_multiply_shift q_multiply_shift_per_axis")
_register("reinterpret", "first")
_register("call_extern call_pure_extern call_llvm_intrin call_llvm_pure_intrin", "first")
_register("type_annotation", "first")
_register("isnullptr assume ignore_loop_partition", "bool")
_register("masked_load", "first")
_register("masked_store", "void")
_register("dp4a", "int32")
_register("vscale", "int32")

# -- packed calls and the runtime's structures ---------------------------------------------------
_register("call_packed tvm_call_packed", "int32", op="tir.tvm_call_packed")
_register("call_cpacked tvm_call_cpacked", "int32", op="tir.tvm_call_cpacked")
_register("call_packed_lowered tvm_call_packed_lowered", "int32",
          op="tir.tvm_call_packed_lowered")
_register("call_cpacked_lowered tvm_call_cpacked_lowered", "int32",
          op="tir.tvm_call_cpacked_lowered")
_register("tvm_struct_get", "last")
_register("tvm_struct_set tvm_throw_last_error tvm_global_barrier_kinit", "int32")
_register("tvm_stack_alloca tvm_stack_make_shape tvm_stack_make_array tvm_tuple address_of "
          "tvm_access_ptr lookup_param handle_add_byte_offset undef", "handle")
_register("ptr_byte_offset", "handle")
_register("start_profile_intrinsic end_profile_intrinsic tvm_kernel_replace_point "
          "thread_return continue_loop break_loop", "void")
_register("tvm_thread_invariant")
_register("TVMBackendAllocWorkspace", "handle")
_register("TVMBackendFreeWorkspace", "int32")
_register("anylist_getitem", "handle")
_register("anylist_resetitem anylist_setitem_call_packed anylist_setitem_call_cpacked", "int32")
_register("print_buffer", "int32")
_register("vectorhigh vectorlow vectorcombine get_active_lane_mask", "first")

# -- GPU only: tensor cores (WMMA) and warp shuffles ---------------------------------------------
_register("tvm_fill_fragment tvm_load_matrix_sync tvm_mma_sync tvm_bmma_sync "
          "tvm_store_matrix_sync", "handle")
_register("tvm_warp_shuffle tvm_warp_shuffle_up tvm_warp_shuffle_down tvm_warp_shuffle_xor",
          "arg1")
_register("tvm_warp_activemask", "uint32")
_register("tvm_thread_allreduce", "handle")

_reinterpret_call = globals()["reinterpret"]


def dtype_first(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Also accept the result dtype as a keyword after the operands (`T.reinterpret(x,
    dtype="handle")`, as TVM's printer writes it): it moves to the front."""
    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        if "dtype" in kwargs:
            args = (kwargs.pop("dtype"), *args)
        return fn(*args, **kwargs)
    return call


@dtype_first
def reinterpret(dtype: Any, value: Any, span: Any = None) -> tx.PrimExpr:
    """`T.reinterpret("int32", x)`: x's bits as `dtype`; to its own dtype, x itself."""
    value = tx.const(value)
    target = getattr(dtype, "dtype", dtype)
    return value if value.dtype == target else _reinterpret_call(target, value)


_address_of_call = globals()["address_of"]


def address_of(obj: Any, span: Any = None, dtype: Any = None) -> tx.PrimExpr:
    """`T.address_of(A[i, j])`; of a whole buffer, the address of its first element."""
    from ..tir import stmt as ts

    if isinstance(obj, ts.Buffer):
        obj = tx.BufferLoad(obj, tuple(tx.IntImm("int32", 0) for _ in obj.shape))
    return _address_of_call(obj)


# The op each printed name stands for, first registration first (`call_packed` before
# `tvm_call_packed`): the printer writes this name for a call of that op.
PRINT_NAME: dict[str, str] = {}
for _name, _spec in INTRINSICS.items():
    PRINT_NAME.setdefault(_spec.op, _name)


# -- intrinsics TVM expands when building (as TVM's own T.isinf / T.isfinite do) ------------------


def isinf(x: Any) -> tx.PrimExpr:
    """True where x is +-infinity (always False for integers)."""
    x = tx.const(x)
    if not is_float(x.dtype):
        return tx.IntImm("bool", 0)
    inf = tx.FloatImm(x.dtype, float("inf"))
    fabs = tx.Call(x.dtype, "tir.fabs", (x,))
    return tx.binop(tx.BinaryOp.AND, tx.eq(fabs, inf), tx.Not(tx.Call("bool", "tir.isnan", (x,))))


def isfinite(x: Any) -> tx.PrimExpr:
    """True where x is neither infinite nor NaN (always True for integers)."""
    x = tx.const(x)
    if not is_float(x.dtype):
        return tx.IntImm("bool", 1)
    nan = tx.Call("bool", "tir.isnan", (x,))
    return tx.binop(tx.BinaryOp.AND, tx.Not(isinf(x)), tx.Not(nan))


def llvm_lookup_intrinsic_id(name: str) -> str:
    """tvmlite names LLVM intrinsics by their names, so the id of one is its name."""
    return name


__all__ = [*INTRINSICS, "isinf", "isfinite", "llvm_lookup_intrinsic_id"]
