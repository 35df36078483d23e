"""The `T` namespace of TVMScript: `from tvmlite.script import tir as T`.

Inside a `@T.prim_func` body these functions run while the parser walks the source: scalar
functions (`T.max`, `T.exp`, `T.float32(0)`) build `tir` expressions, and declaration functions
(`T.match_buffer`, `T.alloc_buffer`, `T.reads`, `T.axis.remap`) record into the parser's
current frame. Both syntax generations are accepted (`T.Buffer[...]`/`T.Buffer(...)`,
`T.block`/`T.sblock`).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import Any

from ..tir import expr as tx
from ..tir import stmt as ts
from ..tir.attrs import Attrs
from ..tir.dtype import check_known, is_float
from .parser import entry
from .parser.core import ArgError, check_attrs, current
from .parser.core import Wrap
from .tir_intrin import dtype_first
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
    opts = {"private": private, "s_tir": s_tir}
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

    def __call__(self, shape: Any, dtype: str = "float32", **kwargs: Any) -> Any:
        try:
            spec = BufferSpec(_shape(shape), _dtype(dtype), tuple(kwargs.items()))
            return spec if current() is not None else _standalone(spec)
        except _BadValue as exc:
            if current() is not None:
                raise
            # Python evaluates a parameter annotation before the decorator runs: keep the
            # mistake for the parser, which reports it at the annotation's source position
            return BufferSpec((), "float32", (), exc)

    def __repr__(self) -> str:
        return "T.Buffer"

    def __getitem__(self, key: Any) -> BufferSpec:
        if not isinstance(key, tuple):
            return self(key)
        if len(key) == 2 and isinstance(key[1], (str, DType)):
            return self(key[0], key[1])
        return self(key)


Buffer = _BufferType()


def _standalone(spec: BufferSpec) -> Any:
    """`T.Buffer(...)` outside a function is a buffer, as in TVM (named "buffer"); Python's
    own evaluation of a parameter annotation that only the parser can read (`("n + 1",)`
    dims) stays a spec, which the parser reads again from the source."""
    try:
        return spec.make("buffer")
    except (TypeError, ValueError):
        return spec


def _shape(shape: Any, pos: int = 0) -> tuple[Any, ...]:
    """A buffer shape as a tuple; a negative dimension is blamed on its own element."""
    dims = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    for k, d in enumerate(dims):
        value = d.value if isinstance(d, tx.IntImm) else d
        if type(value) is int and value < 0:  # NOTE: `bool` here is T.bool
            raise _BadValue(f"buffer dimension {k} is {value}; a dimension cannot be negative",
                           (pos, k), ("shape", k), pos, "shape")
    # NOTE: a literal dimension is an int32 constant, as TVM's parser makes it
    return tuple(tx.const(d) if type(d) is int else d for d in dims)


class _BadValue(ArgError, ValueError):
    """A bad argument of a T. call: located by the parser, a ValueError outside it."""


def _dtype(dtype: Any, pos: int = 1) -> str:
    """A dtype string checked against the dtypes TVM knows (`"flaot32"` is a located error)."""
    if isinstance(dtype, DType):
        return dtype.dtype
    if not isinstance(dtype, str):
        raise _BadValue(f"a dtype is a string like \"float32\", not {dtype!r}", "dtype", pos)
    try:
        return check_known(dtype)
    except ValueError as exc:
        raise _BadValue(str(exc), "dtype", pos) from None


# -- function-level declarations ----------------------------------------------------------------


def func_attr(attrs: dict[str, Any]) -> None:
    func_frame(_parser()).attrs.update(check_attrs(attrs, "T.func_attr"))


def match_buffer(param: Any, shape: Any = None, dtype: Any = None, **kwargs: Any) -> ts.Buffer:
    """`T.match_buffer(handle, shape, dtype)`, or `T.match_buffer(A[8:16, 0:4])` in a block
    (shape and dtype default to the region's)."""
    p = _parser()
    is_region = isinstance(param, (ts.BufferRegion, tx.BufferLoad))
    if shape is None:
        if not is_region:
            raise ArgError("T.match_buffer of a handle needs the buffer's shape", 0)
        shape = tuple(r.extent.value if isinstance(r.extent, tx.IntImm) else r.extent
                      for r in region(param).region)  # as if written as numbers
    if dtype is None:
        dtype = region(param).buffer.dtype if is_region else "float32"
    name = p.pending_name or "buffer"
    buf = make_buffer(name, _shape(shape, 1), _dtype(dtype, 2), **kwargs)
    if is_region:
        buf = _with_offset_var(buf, kwargs)
        source = region(param)
        _check_region_shape(source, buf)
        block_frame(p, "T.match_buffer of a region").match_buffers.append(
            ts.MatchBufferRegion(buf, source))
        return buf
    frame = func_frame(p)
    if not isinstance(param, tx.Var) or param not in frame.params or param.dtype != "handle":
        raise ArgError("T.match_buffer expects a T.handle parameter of the prim_func", 0)
    if any(h is param for h, _ in frame.buffer_map):
        raise ArgError(f"parameter {param.name!r} is already matched to a buffer", 0)
    frame.buffer_map.append((param, buf))
    return buf


def _with_offset_var(buf: ts.Buffer, kwargs: dict[str, Any]) -> ts.Buffer:
    """A region matched with an `offset_factor` and no `elem_offset` starts where the region
    does, as TVM declares it: its element offset is a variable of its own (`A0.elem_offset`),
    bound to the region's start when the block is lowered."""
    factor = kwargs.get("offset_factor", 0)
    if not factor or kwargs.get("elem_offset") is not None:
        return buf
    return dataclasses.replace(buf, elem_offset=tx.Var("elem_offset", "int32"),
                               offset_factor=factor)


def _check_region_shape(source: ts.BufferRegion, buf: ts.Buffer) -> None:
    """A matched region has the buffer's shape, up to dimensions of extent 1 (both known)."""
    extents = [r.extent for r in source.region]
    if not all(isinstance(e, tx.IntImm) for e in extents + list(buf.shape)):
        return
    region_dims = [e.value for e in extents if e.value != 1]
    buffer_dims = [d.value for d in buf.shape if d.value != 1]
    if region_dims != buffer_dims:
        raise ArgError(f"the region has shape {tuple(e.value for e in extents)} but the buffer "
                       f"{tuple(d.value for d in buf.shape)}")  # both: the whole call


def alloc_buffer(shape: Any, dtype: Any = "float32", **kwargs: Any) -> ts.Buffer:
    """`T.alloc_buffer(...)`: a buffer of the enclosing block; outside every block, see
    parser/tir_root (a flat AllocBuffer, or a root-block buffer in a function with blocks)."""
    p = _parser()
    if kwargs.get("scope") == "":
        kwargs["scope"] = "global"  # TVM's empty scope means global
    buf = make_buffer(p.pending_name or "buffer", _shape(shape), _dtype(dtype), **kwargs)
    block = p.find_frame(BlockFrame)
    (block.allocs if block is not None else func_frame(p).root_allocs).append(buf)
    return buf


def sblock_alloc_buffer(shape: Any, dtype: Any = "float32", **kwargs: Any) -> ts.Buffer:
    """`T.sblock_alloc_buffer(...)`: always a block's buffer (outside every block, the root
    block's, which the function then has even without other blocks)."""
    buf = alloc_buffer(shape, dtype, **kwargs)
    p = _parser()
    if p.find_frame(BlockFrame) is None:
        func_frame(p).block_only.append(buf)
    return buf


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
          annotations: dict | None = None, step: Any = None) -> LoopSpec:
    lo, hi = (0, start) if stop is None else (start, stop)
    lo, hi = tx._as_operands(lo, hi)
    extent = hi if isinstance(lo, tx.IntImm) and lo.value == 0 else _sub(hi, lo)
    ann = Attrs((annotations or {}).items())  # readable as loop.annotations["key"]
    if step is not None:
        step = tx.const(step, extent.dtype) if isinstance(step, int) else step
        if isinstance(step, tx.IntImm) and step.value == 1:
            step = None  # a unit step is the plain loop
    return LoopSpec(kind, ((lo, extent),), thread, ann, step)


def _sub(hi: tx.PrimExpr, lo: tx.PrimExpr) -> tx.PrimExpr:
    if isinstance(hi, tx.IntImm) and isinstance(lo, tx.IntImm):
        return tx.IntImm(hi.dtype, hi.value - lo.value)
    return extent_of(lo, hi)


def serial(start: Any, stop: Any = None, step: Any = None, *,
           annotations: dict | None = None) -> LoopSpec:
    return _loop(ts.ForKind.SERIAL, start, stop, annotations=annotations, step=step)


def parallel(start: Any, stop: Any = None, step: Any = None, *,
             annotations: dict | None = None) -> LoopSpec:
    return _loop(ts.ForKind.PARALLEL, start, stop, annotations=annotations, step=step)


def vectorized(start: Any, stop: Any = None, step: Any = None, *,
               annotations: dict | None = None) -> LoopSpec:
    return _loop(ts.ForKind.VECTORIZED, start, stop, annotations=annotations, step=step)


def unroll(start: Any, stop: Any = None, step: Any = None, *,
           annotations: dict | None = None) -> LoopSpec:
    return _loop(ts.ForKind.UNROLLED, start, stop, annotations=annotations, step=step)


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
    frame = block_frame(_parser(), "T.reads")
    _once(frame.reads, "T.reads")
    frame.reads = [region(r) for r in _flatten(regions)]


def writes(*regions: Any) -> None:
    frame = block_frame(_parser(), "T.writes")
    _once(frame.writes, "T.writes")
    frame.writes = [region(r) for r in _flatten(regions)]


def where(cond: Any) -> None:
    frame = block_frame(_parser(), "T.where")
    _once(frame.predicate, "T.where")
    frame.predicate = tx.const(cond)


def _once(previous: Any, what: str) -> None:
    """A block states its reads, writes and predicate once (TVM refuses a second one)."""
    if previous is not None:
        raise ValueError(f"{what} is given twice in this block")


def block_attr(attrs: dict[str, Any]) -> None:
    """`T.block_attr({...})` / `T.sblock_attr`: several calls merge (dict values merge key
    by key); one key given two different values is an error, as in TVM."""
    frame = block_frame(_parser(), "T.block_attr")
    _merge_attrs(frame.annotations, check_attrs(attrs, "T.block_attr"), "")


def _merge_attrs(into: dict[str, Any], new: dict[str, Any], path: str) -> None:
    for key, value in new.items():
        old = into.get(key)
        if isinstance(old, dict) and isinstance(value, dict):
            merged = dict(old)
            _merge_attrs(merged, value, f"{path}{key}.")
            into[key] = merged
        elif key in into and not _same_value(old, value):
            raise ArgError(f"block attribute {path + key!r} is set twice, to {old!r} and "
                           f"{value!r}", 0)
        else:
            into[key] = value


def _same_value(a: Any, b: Any) -> bool:
    from ..ir.structural import structural_equal

    return a is b or (type(a) is type(b) and (a == b if not isinstance(a, tx.PrimExpr)
                                              else structural_equal(a, b)))


sblock_attr = block_attr


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
        if is_float(value.dtype) or value.dtype == "bool":
            raise _BadValue(f"a block iterator is bound to an integer, not a {value.dtype} "
                            "value", 1)
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
                           f"{len(bindings)} loop variables")  # both arguments: the whole call
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


# TVM's node classes: calling one builds the node, isinstance checks the operator
from ..tir.expr_nodes import And, Div, FloorDiv, FloorMod, Mod, Or  # noqa: E402,F401


def ceildiv(a: Any, b: Any) -> tx.PrimExpr:
    a, b = tx._as_operands(a, b)
    return floordiv(a + b - 1, b)


def abs(x: Any) -> tx.PrimExpr:
    x = tx.const(x)
    if is_float(x.dtype):
        return tx.Call(x.dtype, "tir.fabs", (x,))
    return tx.Select(x >= 0, x, -x)


def Cast(dtype: Any, value: Any) -> tx.PrimExpr:
    return tx.Cast(_dtype(dtype, 0), tx.const(value))


def cast(value: Any, dtype: Any) -> tx.PrimExpr:
    """`T.cast(x, "float16")`: x converted to dtype (no cast when it already has it)."""
    value = tx.const(value)
    return value if value.dtype == _dtype(dtype) else tx.Cast(_dtype(dtype), value)


def Select(cond: Any, t: Any, f: Any) -> tx.PrimExpr:
    """`T.Select(c, t, f)`: both values must have one dtype, as TVM checks (a literal takes
    the other side's dtype). `T.if_then_else` instead promotes, as TVM does."""
    if isinstance(t, tx.PrimExpr) and isinstance(f, tx.PrimExpr) and t.dtype != f.dtype:
        raise _BadValue(f"T.Select needs values of one dtype, got {t.dtype} (true value) and "
                       f"{f.dtype} (false value); cast one with T.Cast", 2)
    t, f = tx._as_operands(t, f)
    return tx.Select(tx.const(cond), t, f)


def if_then_else(cond: Any, t: Any, f: Any, dtype: Any = None) -> tx.PrimExpr:
    """`T.if_then_else(c, t, f)`: only the taken side is evaluated; values of different
    dtypes meet at the wider one (TVM 0.27 casts the narrower side the same way)."""
    t, f = tx._as_operands(t, f)
    if dtype is not None and t.dtype != dtype:  # TVM's optional result dtype
        t, f = tx.Cast(dtype, t), tx.Cast(dtype, f)
    return tx.Call(t.dtype, "tir.if_then_else", (tx.const(cond), t, f))


def likely(cond: Any, dtype: Any = None) -> tx.PrimExpr:
    """`T.likely(c)`; the `dtype=` older TVMScript passes is accepted (it is always bool)."""
    return tx.Call("bool", "tir.likely", (tx.const(cond),))


def evaluate(value: Any) -> ts.Evaluate:
    return ts.Evaluate(tx.const(value))


def tvm_storage_sync(scope: str = "shared") -> tx.PrimExpr:
    """A barrier over `scope` ("shared": `__syncthreads()` in CUDA); a statement on its own."""
    return tx.Call("int32", "tir.tvm_storage_sync", (tx.StringImm(str(scope)),))


class _LetType:
    """`T.let(x, value, body)` (a Let expression; `x` declared like `x = T.int32()`), and the
    older annotation `x: T.let[T.int32] = value`."""

    def __call__(self, var: Any, value: Any, body: Any) -> tx.PrimExpr:
        if not isinstance(var, tx.Var):
            raise ArgError("T.let binds a variable declared like `x = T.int32()`", 0)
        return tx.Let(var, tx.const(value, var.dtype), tx.const(body))

    def __getitem__(self, dtype: Any) -> DType:
        if isinstance(dtype, tx.Var) and dtype.dtype == "handle":  # T.let[T.handle("int32")]
            return DType("handle")
        return dtype if isinstance(dtype, DType) else DType(_dtype(dtype, 0))


let = _LetType()
LetAnnotation = _LetType


def Assert(cond: Any, message: Any) -> Wrap:  # noqa: N802 (TVM's name)
    """`T.Assert(cond, "msg")`: like an `assert` statement, over the rest of the body."""
    c, msg, span = tx.const(cond), str(message), _parser().source.span(_parser().node)
    return Wrap(lambda body: ts.AssertStmt(c, msg, ts.seq(body), span))


def Not(a: Any) -> tx.PrimExpr:  # noqa: N802 (TVM's name)
    return tx.Not(tx.const(a))


@dtype_first
def call_intrin(dtype: Any, op: str, *args: Any) -> tx.PrimExpr:
    """An intrinsic by its full name: `T.call_intrin("float32", "tir.exp", x)`."""
    return tx.Call(_dtype(dtype, 0), op, tuple(tx.StringImm(a) if isinstance(a, str) else
                                               tx.const(a) for a in args))


def _unary(name: str) -> Callable[[Any], tx.PrimExpr]:
    def fn(x: Any, dtype: Any = None) -> tx.PrimExpr:
        x = tx.const(x, None if dtype is None else _dtype(dtype, 1))
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


def isnan(x: Any, dtype: Any = None) -> tx.PrimExpr:
    return tx.Call("bool", "tir.isnan", (tx.const(x),))


def infinity(dtype: Any) -> tx.PrimExpr:
    return tx.FloatImm(_dtype(dtype, 0), math.inf)


def max_value(dtype: Any) -> tx.PrimExpr:
    import numpy as np

    d = _dtype(dtype, 0)
    info = np.finfo(d) if is_float(d) else np.iinfo(d)
    return tx.const(getattr(info.max, "item", lambda: info.max)(), d)


def min_value(dtype: Any) -> tx.PrimExpr:
    import numpy as np

    d = _dtype(dtype, 0)
    info = np.finfo(d) if is_float(d) else np.iinfo(d)
    return tx.const(getattr(info.min, "item", lambda: info.min)(), d)


def index_map(mapping: Callable[..., Any], *, index_dtype: str = "int64") -> Any:
    """`T.index_map(lambda i, j: (i // 4, j, i % 4))`: a tir.IndexMap, as TVM prints the map of
    `R.layout_transform`."""
    from ..tir.index_map import IndexMap

    return IndexMap.from_func(mapping, index_dtype=index_dtype)


from .tir_dtypes import *  # noqa: E402,F401,F403 (T.i32, T.float32x4, T.float8_e4m3fn, ...)
from .tir_intrin import *  # noqa: E402,F401,F403 (T.atan2, T.popcount, T.tvm_mma_sync, ...)
from .tir_nodes import *  # noqa: E402,F401,F403 (T.Add, T.Ramp, T.IterVar, ...)
from .tir_stmts import *  # noqa: E402,F401,F403 (T.attr, T.launch_thread, T.If, T.var, ...)
from .tir_macro import inline, macro  # noqa: E402,F401
from .tir_jit import Optional, constexpr, jit  # noqa: E402,F401

__all__ = [n for n in dir() if not n.startswith("_") and n not in (
    "annotations", "math", "Any", "Callable", "tx", "ts", "is_float", "entry", "ArgError",
    "current", "Wrap", "check_attrs", "check_known", "Attrs")]
