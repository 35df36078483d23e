"""The `T` namespace of TVMScript: `from tvmlite.script import tir as T`.

Inside a `@T.prim_func` body these functions run while the parser walks the source: scalar
functions (`T.max`, `T.exp`, `T.float32(0)`) build `tir` expressions, and declaration functions
(`T.match_buffer`, `T.alloc_buffer`, `T.reads`, `T.axis.remap`) record into the parser's
current frame. Both syntax generations are accepted (`T.Buffer[...]`/`T.Buffer(...)`,
`T.block`/`T.sblock`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ..tir import expr as tx
from ..tir import stmt as ts
from ..tir.dtype import is_float
from .parser import entry
from .parser.core import ArgError, check_attrs, current
from .parser.core import Wrap
from .parser.tir_parser import (
    AllocateSpec,
    AxisSpec,
    BlockFrame,
    BufferSpec,
    DType,
    InitFrame,
    LoopSpec,
    block_frame,
    extent_of,
    func_frame,
    make_buffer,
    region,
)

# -- the decorator ------------------------------------------------------------------------------


def prim_func(func: Callable | None = None, *, private: bool = False, s_tir: bool = False,
              check_well_formed: bool = True) -> Any:
    """Parse a function as a TIR `PrimFunc` (or mark it for the enclosing `@I.ir_module`)."""
    __tracebackhide__ = True  # noqa: F841 (IPython and pytest hide this frame)
    opts = {"private": private}
    if func is None:
        return entry.DecoratorSpec("tir", opts)
    return entry.decorate("tir", func, opts, depth=2)


prim_func.__tvmscript_kind__ = "tir"  # type: ignore[attr-defined]


# -- types and literals -------------------------------------------------------------------------

bool = DType("bool")
handle = DType("handle")
int8, int16, int32, int64 = DType("int8"), DType("int16"), DType("int32"), DType("int64")
uint8, uint16 = DType("uint8"), DType("uint16")
uint32, uint64 = DType("uint32"), DType("uint64")
float16, float32, float64 = DType("float16"), DType("float32"), DType("float64")
bfloat16 = DType("bfloat16")


class _BufferType:
    """`T.Buffer((1, 128), "float32")` and the older `T.Buffer[(1, 128), "float32"]`."""

    def __call__(self, shape: Any, dtype: str = "float32", **kwargs: Any) -> BufferSpec:
        return BufferSpec(_shape(shape), _dtype(dtype), tuple(kwargs.items()))

    def __getitem__(self, key: Any) -> BufferSpec:
        if not isinstance(key, tuple):
            return self(key)
        if len(key) == 2 and isinstance(key[1], (str, DType)):
            return self(key[0], key[1])
        return self(key)


Buffer = _BufferType()


def _shape(shape: Any) -> tuple[Any, ...]:
    return tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)


def _dtype(dtype: Any) -> str:
    if isinstance(dtype, DType):
        return dtype.dtype
    if not isinstance(dtype, str):
        raise ValueError(f"a dtype is a string like \"float32\", not {dtype!r}")
    return dtype


# -- function-level declarations ----------------------------------------------------------------


def func_attr(attrs: dict[str, Any]) -> None:
    func_frame(_parser()).attrs.update(check_attrs(attrs, "T.func_attr"))


def match_buffer(param: Any, shape: Any, dtype: Any = "float32", **kwargs: Any) -> ts.Buffer:
    p = _parser()
    buf = make_buffer(p.pending_name or "buffer", _shape(shape), _dtype(dtype), **kwargs)
    if isinstance(param, (ts.BufferRegion, tx.BufferLoad)):
        block_frame(p, "T.match_buffer of a region").match_buffers.append(
            ts.MatchBufferRegion(buf, region(param)))
        return buf
    frame = func_frame(p)
    if not isinstance(param, tx.Var) or param not in frame.params or param.dtype != "handle":
        raise ArgError("T.match_buffer expects a T.handle parameter of the prim_func", 0)
    if any(h is param for h, _ in frame.buffer_map):
        raise ArgError(f"parameter {param.name!r} is already matched to a buffer", 0)
    frame.buffer_map.append((param, buf))
    return buf


def alloc_buffer(shape: Any, dtype: Any = "float32", **kwargs: Any) -> ts.Buffer:
    p = _parser()
    buf = make_buffer(p.pending_name or "buffer", _shape(shape), _dtype(dtype), **kwargs)
    block = p.find_frame(BlockFrame)
    (block.allocs if block is not None else func_frame(p).root_allocs).append(buf)
    return buf


sblock_alloc_buffer = alloc_buffer


def decl_buffer(shape: Any, dtype: Any = "float32", data: Any = None, **kwargs: Any) -> BufferSpec:
    """`X = T.decl_buffer(shape, dtype, data=Y.data)`: a buffer view visible in the rest of
    the body (a fresh allocation when `data` is left out)."""
    if data is not None:
        kwargs["data"] = data
    return BufferSpec(_shape(shape), _dtype(dtype), tuple(kwargs.items()))


def allocate(shape: Any, dtype: Any = "float32", scope: str = "global", **kwargs: Any) -> Any:
    """`X = T.allocate(shape, dtype, scope)`: storage that lives for the rest of the body."""
    return AllocateSpec(BufferSpec(_shape(shape), _dtype(dtype),
                                   tuple({**kwargs, "scope": scope}.items())))


def _parser() -> Any:
    p = current()
    if p is None:
        raise RuntimeError("this T. function can only be used inside a @T.prim_func")
    return p


# -- loops --------------------------------------------------------------------------------------


def _loop(kind: ts.ForKind, start: Any, stop: Any, thread: str | None = None,
          annotations: dict | None = None) -> LoopSpec:
    lo, hi = (0, start) if stop is None else (start, stop)
    lo, hi = tx._as_operands(lo, hi)
    extent = hi if isinstance(lo, tx.IntImm) and lo.value == 0 else _sub(hi, lo)
    ann = tuple((annotations or {}).items())
    return LoopSpec(kind, ((lo, extent),), thread, ann)


def _sub(hi: tx.PrimExpr, lo: tx.PrimExpr) -> tx.PrimExpr:
    if isinstance(hi, tx.IntImm) and isinstance(lo, tx.IntImm):
        return tx.IntImm(hi.dtype, hi.value - lo.value)
    return extent_of(lo, hi)


def serial(start: Any, stop: Any = None, *, annotations: dict | None = None) -> LoopSpec:
    return _loop(ts.ForKind.SERIAL, start, stop, annotations=annotations)


def parallel(start: Any, stop: Any = None, *, annotations: dict | None = None) -> LoopSpec:
    return _loop(ts.ForKind.PARALLEL, start, stop, annotations=annotations)


def vectorized(start: Any, stop: Any = None, *, annotations: dict | None = None) -> LoopSpec:
    return _loop(ts.ForKind.VECTORIZED, start, stop, annotations=annotations)


def unroll(start: Any, stop: Any = None, *, annotations: dict | None = None) -> LoopSpec:
    return _loop(ts.ForKind.UNROLLED, start, stop, annotations=annotations)


def thread_binding(start: Any, stop: Any = None, thread: str | None = None, *,
                   annotations: dict | None = None) -> LoopSpec:
    if isinstance(stop, str) and thread is None:
        stop, thread = None, stop
    if thread is None:
        raise ValueError('T.thread_binding needs thread="threadIdx.x" (or another thread tag)')
    return _loop(ts.ForKind.THREAD_BINDING, start, stop, thread, annotations)


def grid(*extents: Any) -> LoopSpec:
    ranges = tuple(_loop(ts.ForKind.SERIAL, e, None).ranges[0] for e in extents)
    return LoopSpec(ts.ForKind.SERIAL, ranges)


# -- blocks -------------------------------------------------------------------------------------


def block(name: str = "", no_realize: bool = False) -> BlockFrame:
    if not isinstance(name, str):
        raise TypeError(f"a block name must be a string, got {type(name).__name__}")
    return BlockFrame(name, no_realize)


sblock = block


def init() -> InitFrame:
    return InitFrame()


def reads(*regions: Any) -> None:
    block_frame(_parser(), "T.reads").reads = [region(r) for r in _flatten(regions)]


def writes(*regions: Any) -> None:
    block_frame(_parser(), "T.writes").writes = [region(r) for r in _flatten(regions)]


def where(cond: Any) -> None:
    block_frame(_parser(), "T.where").predicate = tx.const(cond)


def block_attr(attrs: dict[str, Any]) -> None:
    frame = block_frame(_parser(), "T.block_attr")
    frame.annotations.update(check_attrs(attrs, "T.block_attr"))


def _flatten(items: Any) -> list[Any]:
    out: list[Any] = []
    for x in items:
        out.extend(_flatten(x) if isinstance(x, (list, tuple)) else [x])
    return out


class axis:
    """`T.axis.spatial/reduce/scan/opaque(dom, value)` and `T.axis.remap(kinds, loop_vars)`."""

    @staticmethod
    def _make(kind: ts.IterType, dom: Any, value: Any) -> AxisSpec:
        value = tx.const(value)
        if isinstance(dom, (tuple, list)):
            lo, hi = tx._as_operands(dom[0], dom[1])
            rng = ts.Range(lo, _sub(hi, lo))
        elif isinstance(dom, ts.Range):
            rng = dom
        else:
            rng = ts.Range(tx.IntImm(value.dtype, 0), tx.const(dom, value.dtype))
        return AxisSpec(kind, rng, value)

    @staticmethod
    def spatial(dom: Any, value: Any) -> AxisSpec:
        return axis._make(ts.IterType.SPATIAL, dom, value)

    @staticmethod
    def reduce(dom: Any, value: Any) -> AxisSpec:
        return axis._make(ts.IterType.REDUCE, dom, value)

    @staticmethod
    def opaque(dom: Any, value: Any) -> AxisSpec:
        return axis._make(ts.IterType.OPAQUE, dom, value)

    scan = opaque
    S = spatial
    R = reduce

    @staticmethod
    def remap(kinds: str, bindings: Any) -> list[AxisSpec]:
        bindings = list(bindings) if isinstance(bindings, (list, tuple)) else [bindings]
        if len(kinds) != len(bindings):
            raise ArgError(f"T.axis.remap got {len(kinds)} iterator kinds {kinds!r} but "
                           f"{len(bindings)} loop variables", 1)
        dom = func_frame(_parser()).loop_dom
        out = []
        for k, v in zip(kinds, bindings):
            if k not in "SRO":
                raise ArgError(f"unknown iterator kind {k!r}; use 'S' (spatial) or 'R' "
                               "(reduce)", 0)
            if not isinstance(v, tx.Var) or v not in dom:
                raise ArgError(f"T.axis.remap binds loop variables, and {v!r} is not one", 1)
            out.append(AxisSpec(ts.IterType(k), dom[v], v))
        return out


# -- scalar functions ---------------------------------------------------------------------------


def max(a: Any, b: Any) -> tx.PrimExpr:
    return tx.binop(tx.BinaryOp.MAX, a, b)


def min(a: Any, b: Any) -> tx.PrimExpr:
    return tx.binop(tx.BinaryOp.MIN, a, b)


def floordiv(a: Any, b: Any) -> tx.PrimExpr:
    return tx.binop(tx.BinaryOp.FLOORDIV, a, b)


def floormod(a: Any, b: Any) -> tx.PrimExpr:
    return tx.binop(tx.BinaryOp.FLOORMOD, a, b)


def truncdiv(a: Any, b: Any) -> tx.PrimExpr:
    return tx.binop(tx.BinaryOp.DIV, a, b)


def truncmod(a: Any, b: Any) -> tx.PrimExpr:
    return tx.binop(tx.BinaryOp.MOD, a, b)


Div, Mod, FloorDiv, FloorMod = truncdiv, truncmod, floordiv, floormod


def ceildiv(a: Any, b: Any) -> tx.PrimExpr:
    a, b = tx._as_operands(a, b)
    return floordiv(a + b - 1, b)


def abs(x: Any) -> tx.PrimExpr:
    x = tx.const(x)
    if is_float(x.dtype):
        return tx.Call(x.dtype, "tir.fabs", (x,))
    return tx.Select(x >= 0, x, -x)


def Cast(dtype: Any, value: Any) -> tx.PrimExpr:
    return tx.Cast(_dtype(dtype), tx.const(value))


def cast(value: Any, dtype: Any) -> tx.PrimExpr:
    """`T.cast(x, "float16")`: x converted to dtype (no cast when it already has it)."""
    value = tx.const(value)
    return value if value.dtype == _dtype(dtype) else tx.Cast(_dtype(dtype), value)


def Select(cond: Any, t: Any, f: Any) -> tx.PrimExpr:
    t, f = tx._as_operands(t, f)
    return tx.Select(tx.const(cond), t, f)


def if_then_else(cond: Any, t: Any, f: Any, dtype: str | None = None) -> tx.PrimExpr:
    t, f = tx._as_operands(t, f)
    if dtype is not None and t.dtype != dtype:  # TVM's optional result dtype
        t, f = tx.Cast(dtype, t), tx.Cast(dtype, f)
    return tx.Call(t.dtype, "tir.if_then_else", (tx.const(cond), t, f))


def likely(cond: Any) -> tx.PrimExpr:
    return tx.Call("bool", "tir.likely", (tx.const(cond),))


def evaluate(value: Any) -> ts.Evaluate:
    return ts.Evaluate(tx.const(value))


def tvm_storage_sync(scope: str = "shared") -> tx.PrimExpr:
    """A barrier over `scope` ("shared": `__syncthreads()` in CUDA); a statement on its own."""
    return tx.Call("int32", "tir.tvm_storage_sync", (tx.StringImm(str(scope)),))


def let(var: Any, value: Any, body: Any) -> tx.PrimExpr:
    """`T.let(x, value, body)`: `x` is a `T.int32()`-style variable declared before."""
    if not isinstance(var, tx.Var):
        raise ArgError("T.let binds a variable declared like `x = T.int32()`", 0)
    return tx.Let(var, tx.const(value, var.dtype), tx.const(body))


def Assert(cond: Any, message: Any) -> Wrap:  # noqa: N802 (TVM's name)
    """`T.Assert(cond, "msg")`: like an `assert` statement, over the rest of the body."""
    c, msg, span = tx.const(cond), str(message), _parser().source.span(_parser().node)
    return Wrap(lambda body: ts.AssertStmt(c, msg, ts.seq(body), span))


def And(a: Any, b: Any) -> tx.PrimExpr:  # noqa: N802 (TVM's name)
    return tx.binop(tx.BinaryOp.AND, a, b)


def Or(a: Any, b: Any) -> tx.PrimExpr:  # noqa: N802 (TVM's name)
    return tx.binop(tx.BinaryOp.OR, a, b)


def Not(a: Any) -> tx.PrimExpr:  # noqa: N802 (TVM's name)
    return tx.Not(tx.const(a))


def call_intrin(dtype: Any, op: str, *args: Any) -> tx.PrimExpr:
    """An intrinsic by its full name: `T.call_intrin("float32", "tir.exp", x)`."""
    return tx.Call(_dtype(dtype), op, tuple(tx.const(a) for a in args))


def call_extern(dtype: Any, name: str, *args: Any) -> tx.PrimExpr:
    """A call of an external C function by name."""
    return tx.Call(_dtype(dtype), "tir.call_extern", (tx.StringImm(name),
                                                      *(tx.const(a) for a in args)))


def _unary(name: str) -> Callable[[Any], tx.PrimExpr]:
    def fn(x: Any) -> tx.PrimExpr:
        x = tx.const(x)
        return tx.Call(x.dtype, "tir." + name, (x,))
    fn.__name__ = name
    fn.__doc__ = f"`tir.{name}` of a scalar expression."
    return fn


_MATH = ["exp", "exp2", "exp10", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "tanh",
         "sigmoid", "erf", "sin", "cos", "tan", "sinh", "cosh", "asin", "acos", "atan",
         "floor", "ceil", "round", "trunc", "nearbyint", "fabs"]
for _name in _MATH:
    globals()[_name] = _unary(_name)
exp, log, sqrt, tanh, sigmoid, erf = (globals()[n] for n in
                                      ("exp", "log", "sqrt", "tanh", "sigmoid", "erf"))


def pow(a: Any, b: Any) -> tx.PrimExpr:
    a, b = tx._as_operands(a, b)
    return tx.Call(a.dtype, "tir.pow", (a, b))


def isnan(x: Any) -> tx.PrimExpr:
    return tx.Call("bool", "tir.isnan", (tx.const(x),))


def infinity(dtype: Any) -> tx.PrimExpr:
    return tx.FloatImm(_dtype(dtype), math.inf)


def max_value(dtype: Any) -> tx.PrimExpr:
    import numpy as np

    d = _dtype(dtype)
    info = np.finfo(d) if is_float(d) else np.iinfo(d)
    return tx.const(info.max.item(), d)


def min_value(dtype: Any) -> tx.PrimExpr:
    import numpy as np

    d = _dtype(dtype)
    info = np.finfo(d) if is_float(d) else np.iinfo(d)
    return tx.const(info.min.item(), d)


__all__ = [n for n in dir() if not n.startswith("_") and n not in (
    "annotations", "math", "Any", "Callable", "tx", "ts", "is_float", "entry", "ArgError",
    "current", "Wrap", "check_attrs")]
