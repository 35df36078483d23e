"""The native fast path: a static VMFunction compiled into ONE host function.

`analyze` (static_plan.py) fixes every buffer; here we emit an LLVM function that calls the
kernels directly (declared external, compiled into the kernel library's JIT engine) on the
parameters, the constants, a per-VM arena for intermediates, and the outputs. Per call, Python
only checks each argument (`type(a) is NDArray and a._sig == expected`), allocates the outputs
with numpy and enters the host function once through ctypes with the data pointers.

Host ABI: `ptr @host(ptr %p0, ..., ptr %o0, ...)`: parameters as data addresses (ints from
`NDArray._ptr`), outputs as numpy array *objects*, whose data field (at `DATA_OFFSET`) the host
reads itself, saving Python a slow pointer lookup; it returns output 0's data address.
"""

from __future__ import annotations

import ctypes
import itertools
import struct
from typing import Any, Callable

import numpy as np

from .device import Device
from .executable import Executable, VMFunction
from .kernel_signature import KernelSignature
from .ndarray import DATA_OFFSET, NDArray, data_ptr, intern_sig
from .static_plan import ARENA_ALIGN, Buffer, StaticPlan, analyze

_LL_SCALAR = {"int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64", "uint8": "i8",
              "uint16": "i16", "uint32": "i32", "uint64": "i64", "bool": "i1",
              "float32": "float", "float64": "double"}
# NOTE: below this many bytes touched, kernels finish faster than a GIL release/re-acquire
# (~0.1 us), so the host function is entered holding the GIL.
GIL_RELEASE_BYTES = 256 * 1024
_COUNTER = itertools.count()
_MISSING = object()  # marks "no argument given" in the one-parameter caller


def _declare(sig: KernelSignature) -> str:
    types = ["ptr" if p.kind == "buffer" else _LL_SCALAR[p.dtype] for p in sig.params]
    types += ["i64"] * len(sig.shape_vars)
    return f"declare void @{_sym(sig.name)}({', '.join(types)})"


def _sym(name: str) -> str:
    return name if name.replace("_", "a").replace(".", "a").isalnum() else '"' + name + '"'


def _scalar(ll_type: str, v: Any) -> str:
    if ll_type in ("float", "double"):
        bits = struct.unpack("<Q", struct.pack("<d", float(np.float32(v)) if ll_type == "float"
                                               else float(v)))[0]
        return f"{ll_type} 0x{bits:016X}"
    return f"{ll_type} {int(v)}"


def _operand(b: Any, ll_type: str, arena: int, out_regs: list[str]) -> str:
    if not isinstance(b, Buffer):
        return _scalar(ll_type, b)
    if b.kind == "param":
        return f"ptr %p{b.index}"
    if b.kind == "out":
        return f"ptr {out_regs[b.index]}"
    addr = arena + b.index if b.kind == "arena" else b.index
    return f"ptr inttoptr (i64 {addr} to ptr)"


def emit_host(plan: StaticPlan, symbol: str, arena: int) -> str:
    """LLVM IR of the host function for `plan` with its arena at address `arena`."""
    decls = {_declare(s.sig) for s in plan.steps}
    params = [f"ptr %p{i}" for i in range(len(plan.params))]
    params += [f"ptr %o{i}" for i in range(len(plan.outputs))]
    body, out_regs = [], []
    for i in range(len(plan.outputs)):
        if DATA_OFFSET is None:  # outputs came as data addresses already
            out_regs.append(f"%o{i}")
            continue
        body.append(f"  %of{i} = getelementptr i8, ptr %o{i}, i64 {DATA_OFFSET}")
        body.append(f"  %od{i} = load ptr, ptr %of{i}")
        out_regs.append(f"%od{i}")
    for step in plan.steps:
        types = ["ptr" if p.kind == "buffer" else _LL_SCALAR[p.dtype] for p in step.sig.params]
        types += ["i64"] * len(step.sig.shape_vars)
        ops = ", ".join(_operand(b, t, arena, out_regs) for b, t in zip(step.operands, types))
        body.append(f"  call void @{_sym(step.name)}({ops})")
    body.append(f"  ret ptr {out_regs[0] if out_regs else 'null'}")
    return "\n".join(sorted(decls) + [f"define ptr @{symbol}({', '.join(params)}) {{",
                                      "entry:"] + body + ["}", ""])


def compile_static(ex: Executable, fn: VMFunction, device: Device,
                   slow: Callable[[tuple[Any, ...]], Any]) -> Callable[..., Any] | None:
    """A fast callable for `fn`, or None when `fn` is not a static region.

    `slow(args)` runs the reference path: it is used for any argument that is not already an
    NDArray of the expected signature (it converts numpy arrays, or raises the precise error).
    """
    from .static_plan import NotStatic

    try:
        plan = analyze(ex, fn)
    except NotStatic:
        return None
    arena = np.empty(plan.arena_bytes + ARENA_ALIGN, np.uint8)
    base = -(-data_ptr(arena) // ARENA_ALIGN) * ARENA_ALIGN
    symbol = f"__tvmlite_host_{next(_COUNTER)}"
    lib = ex.kernels.load()
    lib.add_ir(emit_host(plan, symbol, base), f"fast path of {fn.name!r}")
    touched = sum(b.nbytes for b in plan.params + plan.buffers)
    proto = ctypes.PYFUNCTYPE if touched <= GIL_RELEASE_BYTES else ctypes.CFUNCTYPE
    out_t = ctypes.py_object if DATA_OFFSET is not None else ctypes.c_void_p
    host = proto(ctypes.c_void_p, *([ctypes.c_void_p] * len(plan.params)),
                 *([out_t] * len(plan.outputs)))(lib.get_address(symbol))
    caller = _make_caller(plan, host, device, slow)
    caller._keepalive = (arena, ex)  # type: ignore[attr-defined]  # the host bakes in addresses
    return caller


def _make_caller(plan: StaticPlan, host: Any, device: Device,
                 slow: Callable[[tuple[Any, ...]], Any]) -> Callable[..., Any]:
    sigs = [intern_sig((b.shape, b.dtype, device)) for b in plan.params]
    if len(plan.outputs) == 1 and plan.ret is plan.outputs[0] and DATA_OFFSET is not None:
        return _single_output_caller(sigs, plan.outputs[0], host, device, slow)
    return _general_caller(plan, sigs, host, device, slow)


def _single_output_caller(sigs: list[Any], out: Buffer, host: Any, device: Device,
                          slow: Callable[[tuple[Any, ...]], Any]) -> Callable[..., Any]:
    """The common case, kept lean: every line here is on the per-call path."""
    n, empty, new = len(sigs), np.empty, object.__new__
    oshape, odtype = out.shape, np.dtype(out.dtype)
    osig = intern_sig((oshape, out.dtype, device))
    if n == 1:
        s0 = intern_sig(sigs[0])

        # NOTE: named parameters instead of *args save a tuple, and `is` on the interned
        # signature saves a tuple comparison; together ~0.1 us of a ~0.8 us call.
        def call1(a: Any = _MISSING, *rest: Any) -> Any:
            if rest or type(a) is not NDArray or (a._sig is not s0 and a._sig != s0):
                return slow(tuple(x for x in (a, *rest) if x is not _MISSING))
            o = empty(oshape, odtype)
            r = new(NDArray)
            r._ptr = host(a._ptr, o)
            r._arr = o
            r._sig = osig
            return r

        return call1

    def call(*args: Any) -> Any:
        if len(args) != n:
            return slow(args)
        ptrs = []
        for a, s in zip(args, sigs):
            if type(a) is not NDArray or (a._sig is not s and a._sig != s):
                return slow(args)
            ptrs.append(a._ptr)
        o = empty(oshape, odtype)
        r = new(NDArray)
        r._ptr = host(*ptrs, o)
        r._arr, r._sig = o, osig
        return r

    return call


def _general_caller(plan: StaticPlan, sigs: list[Any], host: Any, device: Device,
                    slow: Callable[[tuple[Any, ...]], Any]) -> Callable[..., Any]:
    """Several outputs, tuples, or returning a parameter/constant."""
    n = len(sigs)
    outs = [(b.shape, np.dtype(b.dtype), (b.shape, b.dtype, device)) for b in plan.outputs]
    by_output = DATA_OFFSET is not None

    def call(*args: Any) -> Any:
        if len(args) != n or not all(type(a) is NDArray and a._sig == s
                                     for a, s in zip(args, sigs)):
            return slow(args)
        arrs = [np.empty(shape, dt) for shape, dt, _ in outs]
        ptrs = [data_ptr(o) for o in arrs]
        host(*[a._ptr for a in args], *(arrs if by_output else ptrs))
        res = [NDArray._wrap(o, s, p) for o, (_, _, s), p in zip(arrs, outs, ptrs)]
        return _pick(plan.ret, args, res)

    return call


def _pick(value: Any, args: tuple[Any, ...], outs: list[NDArray]) -> Any:
    if isinstance(value, tuple):
        return tuple(_pick(v, args, outs) for v in value)
    if value.kind == "param":
        return args[value.index]
    if value.kind == "out":
        return outs[value.index]
    raise AssertionError("static plans only return parameters and outputs")
