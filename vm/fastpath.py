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
import functools
import itertools
import struct
import threading
from typing import Any, Callable, Sequence

import numpy as np

from .device import Device
from .executable import Executable, VMFunction
from .kernel_signature import KernelSignature
from .ndarray import (
    ALIGN_FROM_BYTES, DATA_OFFSET, NDArray, aligned_empty, data_ptr, empty_array, intern_sig,
)
from .static_plan import ARENA_ALIGN, Buffer, StaticPlan, Sym, analyze

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


def _operand(b: Any, ll_type: str, arena: int | None, out_regs: list[str]) -> str:
    if isinstance(b, Sym):  # a symbolic shape var: the host's i64 parameter (compile_symbolic)
        return f"i64 %s{b.slot}"
    if not isinstance(b, Buffer):
        return _scalar(ll_type, b)
    if b.base is not None:  # a reshaped view: its base's memory
        b = b.base
    if b.kind == "arena" and arena is None:  # the arena is the host's last parameter
        return f"ptr %a{b.index}"
    if b.kind == "arena" and arena < 0:  # symbolic plan: the token's pointer, computed natively
        return f"ptr %tok{b.index}"
    if b.kind == "param":
        return f"ptr %p{b.index}"
    if b.kind == "out":
        return f"ptr {out_regs[b.index]}"
    addr = arena + b.index if b.kind == "arena" else b.index
    return f"ptr inttoptr (i64 {addr} to ptr)"


def emit_host(plan: StaticPlan, symbol: str, arena: int | None,
              prologue: Sequence[str] = (), arena_param: bool = False) -> str:
    """LLVM IR of the host function for `plan` with its arena at address `arena`.

    With `arena` None (or `arena_param`), the arena's address is the host's last parameter,
    `ptr %arena`: each call brings its own (see _ArenaPool). A symbolic plan passes `arena` < 0,
    and a `prologue` computing the arena token pointers (`%tokK`) from the shape-var parameters
    `i64 %sK` appended to the host's parameters."""
    decls = {_declare(s.sig) for s in plan.steps}
    params = [f"ptr %p{i}" for i in range(len(plan.params))]
    params += [f"ptr %o{i}" for i in range(len(plan.outputs))]
    params += [f"i64 %s{i}" for i in range(len(plan.slots))]
    body, out_regs = list(prologue), []
    if arena is None or arena_param:
        params.append("ptr %arena")
    if arena is None:
        offsets = sorted({b.index for b in plan.buffers if b.kind == "arena"})
        body += [f"  %a{k} = getelementptr i8, ptr %arena, i64 {k}" for k in offsets]
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
    if plan.slots:
        return compile_symbolic(ex, plan, device, slow, f"fast path of {fn.name!r}")
    touched = sum(b.nbytes for b in plan.params + plan.buffers)
    held = touched <= GIL_RELEASE_BYTES and not _reports_to_python(ex)
    arena, base = _new_arena(plan.arena_bytes)
    symbol = f"__tvmlite_host_{next(_COUNTER)}"
    lib = ex.kernels.load()
    what = f"fast path of {fn.name!r}"
    lib.add_ir(emit_host(plan, symbol, base), what)
    out_t = ctypes.py_object if DATA_OFFSET is not None else ctypes.c_void_p
    types = (ctypes.c_void_p, *([ctypes.c_void_p] * len(plan.params)),
             *([out_t] * len(plan.outputs)))
    proto = ctypes.PYFUNCTYPE if held else ctypes.CFUNCTYPE
    host = proto(*types)(lib.get_address(symbol))
    # NOTE: a host entered holding the GIL runs alone, so one arena per VM serves it. One that
    # releases the GIL may overlap with other threads' calls: the call that gets the VM's arena
    # lock (non-blocking, ~50 ns) uses the VM's arena; a call that finds it taken runs a second
    # host taking an arena from a pool (compiled at the first contention).
    contended = None if held else _contended_host(plan, lib, types, what)
    caller = _make_caller(plan, host, device, slow, contended)
    caller.fast_path = "static"  # type: ignore[attr-defined]  # which path runs (tests, bench)
    caller._keepalive = (arena, ex)  # type: ignore[attr-defined]  # the host bakes in addresses
    return caller


def _contended_host(plan: StaticPlan, lib: Any, types: tuple[Any, ...], what: str
                    ) -> tuple[Any, Callable[..., Any]]:
    """(the VM arena's lock, `f(*host_args)` running a host on an arena of the call's own)."""
    pool, built, lock = _ArenaPool(), [], threading.Lock()

    def call(*args: Any) -> Any:
        if not built:
            with lock:
                if not built:
                    symbol = f"__tvmlite_host_{next(_COUNTER)}"
                    lib.add_ir(emit_host(plan, symbol, None), what)
                    raw = ctypes.CFUNCTYPE(*types, ctypes.c_void_p)(lib.get_address(symbol))
                    built.append(pool.pooled(raw, plan.arena_bytes))
        return built[0](*args)

    return threading.Lock(), call


def _reports_to_python(ex: Executable) -> bool:
    """Kernels with run-time bounds checks call a Python callback, maybe from the parallel
    pool's threads: entered holding the GIL, such a host would deadlock with them."""
    from .bounds_runtime import SYMBOL

    return ex.kernels.mentions(SYMBOL)


def _new_arena(nbytes: int) -> tuple[np.ndarray, int]:
    """An arena of `nbytes` and its aligned base address."""
    arena = np.empty(nbytes + ARENA_ALIGN, np.uint8)
    return arena, -(-data_ptr(arena) // ARENA_ALIGN) * ARENA_ALIGN


class _ArenaPool:
    """Arenas for calls that run with the GIL released: each call takes one of its own.

    `list.pop` and `list.append` are atomic under the GIL, so the pool needs no lock; it holds
    as many arenas as calls have ever overlapped."""

    def __init__(self) -> None:
        self.free: list[tuple[np.ndarray, int]] = []

    def pooled(self, raw: Callable[..., Any], nbytes: int) -> Callable[..., Any]:
        """`raw(*args, arena_base)` as `f(*args)`, with an arena of at least `nbytes`."""
        free, need = self.free, nbytes + ARENA_ALIGN

        def call_with_arena(*args: Any) -> Any:
            try:
                slot = free.pop()
            except IndexError:
                slot = _new_arena(nbytes)
            if slot[0].size < need:
                slot = _new_arena(nbytes)
            try:
                return raw(*args, slot[1])
            finally:
                free.append(slot)

        return call_with_arena


def _make_caller(plan: StaticPlan, host: Any, device: Device,
                 slow: Callable[[tuple[Any, ...]], Any], contended: Any = None
                 ) -> Callable[..., Any]:
    sigs = [intern_sig((b.shape, b.dtype, device)) for b in plan.params]
    if len(plan.outputs) == 1 and plan.ret is plan.outputs[0] and DATA_OFFSET is not None:
        if contended is not None:  # NOTE: its kernels release the GIL and run long: one more
            host = functools.partial(_run_guarded, host, contended)  # call costs nothing there
        return _single_output_caller(sigs, plan.outputs[0], host, device, slow)
    return _general_caller(plan, sigs, host, device, slow, contended)


def _run_guarded(host: Any, contended: Any, *args: Any) -> Any:
    """`host(*args)` on the VM's arena if its lock is free, else the pooled host."""
    lock, other = contended
    if lock.acquire(False):
        try:
            return host(*args)
        finally:
            lock.release()
    return other(*args)


def _single_output_caller(sigs: list[Any], out: Buffer, host: Any, device: Device,
                          slow: Callable[[tuple[Any, ...]], Any]) -> Callable[..., Any]:
    """The common case, kept lean: every line here is on the per-call path."""
    n, new = len(sigs), object.__new__
    oshape, odtype = out.shape, np.dtype(out.dtype)
    # NOTE: decided once here: the size check would cost every call ~0.1 us
    empty = np.empty if out.nbytes < ALIGN_FROM_BYTES else aligned_empty
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
                    slow: Callable[[tuple[Any, ...]], Any], contended: Any = None
                    ) -> Callable[..., Any]:
    """Several outputs, tuples, or returning a parameter/constant."""
    n = len(sigs)
    outs = [(b.shape, np.dtype(b.dtype), (b.shape, b.dtype, device)) for b in plan.outputs]
    by_output = DATA_OFFSET is not None

    def call(*args: Any) -> Any:
        if len(args) != n or not all(type(a) is NDArray and a._sig == s
                                     for a, s in zip(args, sigs)):
            return slow(args)
        arrs = [empty_array(shape, dt) for shape, dt, _ in outs]
        ptrs = [data_ptr(o) for o in arrs]
        host_args = (*[a._ptr for a in args], *(arrs if by_output else ptrs))
        if contended is None:
            host(*host_args)
        else:
            _run_guarded(host, contended, *host_args)
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


# -- symbolic dims ------------------------------------------------------------------------------
# Host ABI: `ptr @host(ptr %p0.., ptr %o0.., i64 %s0..)`: as above, plus one i64 per shape-var
# slot. The arena base is read from an 8-byte cell (its address baked in), so growing the arena
# costs the hot path nothing; the host computes each token's offset from the slot values. The
# host for calls that release the GIL takes the arena base as a last parameter (threads).
# Per call, Python checks the arguments and looks the symbolic parameters' shapes up in a small
# cache (by the id of their interned signature) that holds everything derived from a binding:
# slot values, output shapes and signatures, and the host entry (GIL held or released).

_CACHE_MAX = 256  # bindings remembered per function; a process of endless shapes starts over
# (slot values, outputs [(shape, sig)], host, keep-alive sigs, pooled host of a released call)
_SymEntry = tuple[Any, ...]


def _token_prologue(plan: StaticPlan, cell: int | None) -> list[str]:
    """IR computing `%tokK` = arena base + sum of the aligned sizes of tokens before K.

    The base is read from `cell`, or with `cell` None is the host's parameter `%arena`."""
    body = [f"  %base = load ptr, ptr inttoptr (i64 {cell} to ptr)" if cell is not None
            else "  %base = getelementptr i8, ptr %arena, i64 0"]
    offset = "0"
    for k, (itemsize, dims) in enumerate(plan.tokens):
        body.append(f"  %tok{k} = getelementptr i8, ptr %base, i64 {offset}")
        size = str(itemsize * int(np.prod([d for d in dims if isinstance(d, int)], dtype=np.int64)))
        for j, d in enumerate(d for d in dims if isinstance(d, Sym)):
            body.append(f"  %t{k}m{j} = mul i64 {size}, %s{d.slot}")
            size = f"%t{k}m{j}"
        body.append(f"  %t{k}a = add i64 {size}, {ARENA_ALIGN - 1}")
        body.append(f"  %t{k}z = and i64 %t{k}a, {-ARENA_ALIGN}")
        body.append(f"  %off{k + 1} = add i64 {offset}, %t{k}z")
        offset = f"%off{k + 1}"
    return body


def _value(d: Any, vals: Sequence[int]) -> int:
    return vals[d.slot] if isinstance(d, Sym) else d


def _bind_slots(plan: StaticPlan, args: tuple[Any, ...]) -> list[int]:
    """The slot values for `args` (whose ranks are checked already), in definition order."""
    from .builtins import compile_shape_program  # NOTE: postfix programs, never eval'ed

    vals: list[int] = []
    for slot in plan.slots:
        if slot[0] == "dim":
            vals.append(args[slot[1]]._sig[0][slot[2]])
        else:
            vals.append(compile_shape_program(slot[1])(*[_value(d, vals) for d in slot[2]]))
    return vals


class _SymbolicBinder:
    """The slow half of a symbolic call: validate a new binding and derive its cache entry."""

    def __init__(self, plan: StaticPlan, hosts: tuple[Any, Any], device: Device) -> None:
        self.plan, self.hosts, self.device = plan, hosts, device
        self.sym = [k for k, b in enumerate(plan.params) if not _is_static(b.shape)]
        self.arena = np.empty(0, np.uint8)
        self.cell = np.zeros(1, np.uint64)  # the arena base the host reads
        self.pool = _ArenaPool()  # arenas of the released calls that find the shared one taken
        self.released = _new_arena(0)  # (arena, base) the uncontended released calls share
        self.released_lock = threading.Lock()
        self.lock = threading.Lock()
        self.reports = False  # kernels call back into Python (see _reports_to_python)

    def bind(self, args: tuple[Any, ...]) -> _SymEntry | None:
        """The entry for `args`, or None when the reference path must run (it raises)."""
        plan, dev = self.plan, self.device
        for k in self.sym:
            b, sig = plan.params[k], args[k]._sig
            if len(sig[0]) != len(b.shape) or sig[1] != b.dtype or sig[2] != dev:
                return None
        try:
            vals = _bind_slots(plan, args)
        except ArithmeticError:  # eval_shape dividing by zero: the reference says so
            return None
        for k in self.sym:
            if tuple(_value(d, vals) for d in plan.params[k].shape) != args[k]._sig[0]:
                return None
        if any(_value(d, vals) < 0 for b in plan.buffers for d in b.shape):
            return None  # alloc_tensor raises on a negative dim
        arena_bytes = sum(-(-_nbytes(it, dims, vals) // ARENA_ALIGN) * ARENA_ALIGN
                          for it, dims in plan.tokens)
        touched = sum(_nbytes(np.dtype(b.dtype).itemsize, b.shape, vals)
                      for b in plan.params + plan.buffers)
        outs = []
        for b in plan.outputs:
            shape = tuple(_value(d, vals) for d in b.shape)
            outs.append((shape, intern_sig((shape, b.dtype, dev))))
        keep = tuple(args[k]._sig for k in self.sym)
        if touched <= GIL_RELEASE_BYTES and not self.reports:  # runs alone: one arena serves
            self._reserve(arena_bytes)
            return tuple(vals), outs, self.hosts[0], keep, None
        # NOTE: may overlap with other threads' calls: the caller runs `host` on the shared
        # released-call arena if its lock is free, else the pooled host (an arena per call)
        host = self._released_host()
        self._reserve_released(arena_bytes)
        return tuple(vals), outs, host, keep, self.pool.pooled(host, arena_bytes)

    def _released_host(self) -> Any:
        with self.lock:
            if not isinstance(self.hosts[1], ctypes._CFuncPtr):  # still its factory
                self.hosts = (self.hosts[0], self.hosts[1]())
        return self.hosts[1]

    def _reserve_released(self, nbytes: int) -> None:
        """Grow the released calls' shared arena; waits for a call using it to finish."""
        with self.released_lock:
            if nbytes + ARENA_ALIGN > self.released[0].size:
                self.released = _new_arena(nbytes)

    def _reserve(self, nbytes: int) -> None:
        """Grow the arena (never shrink: the largest binding seen sets its size).

        Under the lock, and the cell moves before the old arena is dropped: a host entered by
        another thread between two bytecodes here must never see a smaller or freed arena."""
        with self.lock:
            if nbytes + ARENA_ALIGN <= self.arena.size:
                return
            arena, self.cell[0] = _new_arena(nbytes)
            self.arena = arena


def _is_static(shape: tuple[Any, ...]) -> bool:
    return not any(isinstance(d, Sym) for d in shape)


def _nbytes(itemsize: int, dims: tuple[Any, ...], vals: Sequence[int]) -> int:
    n = itemsize
    for d in dims:
        n *= _value(d, vals)
    return n


def compile_symbolic(ex: Executable, plan: StaticPlan, device: Device,
                     slow: Callable[[tuple[Any, ...]], Any], what: str) -> Callable[..., Any]:
    """The fast callable of a plan with symbolic dims (see the ABI note above)."""
    held, free = (f"__tvmlite_host_{next(_COUNTER)}" for _ in range(2))
    lib = ex.kernels.load()
    binder = _SymbolicBinder(plan, (None, None), device)
    binder.reports = _reports_to_python(ex)
    lib.add_ir(emit_host(plan, held, -1, _token_prologue(plan, data_ptr(binder.cell))), what)
    out_t = ctypes.py_object if DATA_OFFSET is not None else ctypes.c_void_p
    types = (ctypes.c_void_p, *([ctypes.c_void_p] * len(plan.params)),
             *([out_t] * len(plan.outputs)), *([ctypes.c_int64] * len(plan.slots)))

    def released_host() -> Any:  # compiled at the first binding that needs it
        lib.add_ir(emit_host(plan, free, -1, _token_prologue(plan, None), arena_param=True), what)
        return ctypes.CFUNCTYPE(*types, ctypes.c_void_p)(lib.get_address(free))

    binder.hosts = (ctypes.PYFUNCTYPE(*types)(lib.get_address(held)), released_host)
    caller = _symbolic_caller(plan, binder, device, slow)
    caller.fast_path = "symbolic"  # type: ignore[attr-defined]
    caller.binder = binder  # type: ignore[attr-defined]  # arena and cache, for tests
    caller._keepalive = ex  # type: ignore[attr-defined]  # the JIT code lives in its library
    return caller


def _symbolic_caller(plan: StaticPlan, binder: _SymbolicBinder, device: Device,
                     slow: Callable[[tuple[Any, ...]], Any]) -> Callable[..., Any]:
    n, empty, new = len(plan.params), empty_array, object.__new__
    sigs = [intern_sig((b.shape, b.dtype, device)) if _is_static(b.shape) else None
            for b in plan.params]
    sym, cache = binder.sym, {}
    first = sym[0]
    single = len(sym) == 1
    odtypes = [np.dtype(b.dtype) for b in plan.outputs]
    lean = len(plan.outputs) == 1 and plan.ret is plan.outputs[0] and DATA_OFFSET is not None
    odtype = odtypes[0] if lean else None
    acquire, release = binder.released_lock.acquire, binder.released_lock.release

    def entry(args: tuple[Any, ...]) -> _SymEntry | None:
        key = id(args[first]._sig) if single else tuple(id(args[k]._sig) for k in sym)
        e = cache.get(key)
        if e is None:
            e = binder.bind(args)
            if e is not None:  # NOTE: e keeps the sigs alive, so their ids stay theirs
                if len(cache) >= _CACHE_MAX:
                    cache.clear()
                cache[key] = e
        return e

    def call(*args: Any) -> Any:
        if len(args) != n:
            return slow(args)
        for a, s in zip(args, sigs):
            if type(a) is not NDArray or (s is not None and a._sig is not s and a._sig != s):
                return slow(args)
        e = entry(args)
        if e is None:
            return slow(args)
        vals, outs, host, other = e[0], e[1], e[2], e[4]
        if lean:
            o = empty(outs[0][0], odtype)
            r = new(NDArray)
            if other is None:
                r._ptr = host(*[a._ptr for a in args], o, *vals)
            elif acquire(False):
                try:
                    r._ptr = host(*[a._ptr for a in args], o, *vals, binder.released[1])
                finally:
                    release()
            else:
                r._ptr = other(*[a._ptr for a in args], o, *vals)
            r._arr, r._sig = o, outs[0][1]
            return r
        arrs = [empty(shape, dt) for (shape, _), dt in zip(outs, odtypes)]
        ptrs = [data_ptr(o) for o in arrs]
        host_args = (*[a._ptr for a in args], *(arrs if DATA_OFFSET is not None else ptrs), *vals)
        if other is None:
            host(*host_args)
        elif acquire(False):
            try:
                host(*host_args, binder.released[1])
            finally:
                release()
        else:
            other(*host_args)
        res = [NDArray._wrap(o, s, p) for o, (_, s), p in zip(arrs, outs, ptrs)]
        return _pick(plan.ret, args, res)

    return call
