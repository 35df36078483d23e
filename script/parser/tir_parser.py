"""The TIR dialect of the parser: builder frames and statement handlers for `@T.prim_func`.

Frames collect what a `T.` call declares (`T.match_buffer`, `T.alloc_buffer`, `T.reads`,
block iterators) while the body is walked; a handler turns a frame and its body into a `Stmt`.

IR choices (see docs/internals.md section 1):
- a buffer parameter is a `Var(name, "handle")` in `params` and a `(handle, Buffer)` pair;
- loop vars take the dtype of their extent (int32 for Python ints), block iterators the dtype
  of the value bound to them;
- `T.alloc_buffer` outside every block goes to an implicit `Block("root")` wrapping the whole
  body (as TVM does); a body without such buffers gets no root block;
- `T.reads`/`T.writes` left out give empty regions (nothing downstream needs them inferred);
- `x = expr` binds a `LetStmt` over the rest of the body; `T.Buffer(...)` in a body a
  `DeclBuffer`; an `if` on a Python bool picks its branch while parsing.
"""

from __future__ import annotations

import ast
import dataclasses
from dataclasses import dataclass, field
from typing import Any

from ...tir import expr as tx
from ...tir import stmt as ts
from ...tir.dtype import element, lanes, promote
from ...tir.attrs import Attrs
from ...tir.function import PrimFunc
from .tir_root import root_alloc, with_root
from .core import _BINOPS, ArgError, Dialect, MetaValue, Parser, Wrap, _arg_node
from .tir_checks import (
    allocated_here, bind_loop_targets, bind_meta, block_name, check_no_opaque_access,
    check_not_loop_var, loop_names,
)
from .tir_frames import STMT_FRAMES, AttrFrame, LaunchFrame


class _TIRDialect(Dialect):
    def empty_body(self) -> list[Any]:
        return [ts.Evaluate(tx.IntImm("int32", 0))]  # as TVM makes an empty body

    def getitem(self, p: Parser, value: Any, index: Any) -> Any:
        if isinstance(value, ts.Buffer):
            return access(value, index)
        return value[index]

    def call_global(self, p: Parser, gv: Any, args: list[Any], kwargs: dict) -> Any:
        """`Module.helper(A.data, n)`: a call of another prim_func of the module (op
        `@helper`), with the callee's result dtype."""
        if kwargs:
            raise ValueError(f"calls to module function {gv.name_hint!r} take no keywords")
        callee = p.module.function(gv.name_hint) if p.module is not None else None
        dtype = callee.ret_dtype if isinstance(callee, PrimFunc) else "void"
        return tx.Call(dtype, "@" + gv.name_hint, tuple(tx.const(a) for a in args))


TIR = _TIRDialect("tir")
TRUE = tx.IntImm("bool", 1)


# ---------------------------------------------------------------------------------------------
# Values produced by the T namespace and consumed here


@dataclass(frozen=True)
class DType:
    """`T.float32`, `T.int64`, `T.handle`: a dtype usable as annotation, literal or new var."""

    dtype: str

    def __getitem__(self, shape: Any) -> LocalVectorAnnotation:
        return LocalVectorAnnotation(self.dtype, shape if isinstance(shape, tuple) else (shape,))

    def __call__(self, value: Any = None, storage_scope: str = "global", *,
                 is_size_var: bool = False) -> tx.PrimExpr:
        from .core import current

        p = current()
        if self.dtype == "handle" and isinstance(value, (str, DType)):
            if p is None:  # a standalone pointer keeps TVM's PointerType (printed, compared)
                from ...ir import PointerType, PrimType

                elem = value.dtype if isinstance(value, DType) else value
                return tx.Var("v", PointerType(PrimType(elem), storage_scope))
            value = None  # T.handle("float32", "global") in a function: a pointer (`handle`)
        if value is None:
            return tx.Var((p.pending_name if p else None) or "v", self.dtype)
        n = lanes(self.dtype)
        if n > 1 and (not isinstance(value, tx.PrimExpr) or lanes(value.dtype) == 1):
            from ...tir.expr_nodes import Broadcast

            return Broadcast(DType(element(self.dtype))(value), n)  # T.int8x4(0)
        if isinstance(value, tx.PrimExpr):
            return value if value.dtype == self.dtype else tx.Cast(self.dtype, value)
        if isinstance(value, str):
            value = float(value)
        return tx.const(value, self.dtype)


@dataclass(frozen=True)
class LocalVectorAnnotation:
    """`T.float32[4]` / `T.float32[M, N]` in an annotation: a local buffer of that shape."""

    dtype: str
    shape: tuple[Any, ...]


@dataclass(frozen=True)
class BufferSpec:
    """`T.Buffer(shape, dtype, ...)` before it is given a name."""

    shape: tuple[Any, ...]
    dtype: str = "float32"
    kwargs: tuple[tuple[str, Any], ...] = ()
    # A mistake found while Python itself evaluated the annotation (before the parser ran),
    # kept to be reported, located, when the parser reads the annotation.
    error: ArgError | None = None

    def make(self, name: str) -> ts.Buffer:
        if self.error is not None:
            raise self.error
        return make_buffer(name, self.shape, self.dtype, **dict(self.kwargs))


@dataclass(frozen=True)
class AllocateSpec:
    """`T.allocate(...)`: an `Allocate` over the rest of the body."""

    buffer: BufferSpec


@dataclass(frozen=True)
class AxisSpec:
    kind: ts.IterType
    dom: ts.Range
    value: tx.PrimExpr


@dataclass(frozen=True)
class LoopSpec:
    kind: ts.ForKind
    ranges: tuple[tuple[tx.PrimExpr, tx.PrimExpr], ...]
    thread: str | None = None
    annotations: tuple[tuple[str, Any], ...] = ()
    step: tx.PrimExpr | None = None  # a single loop's step (None: 1)


def make_buffer(name: str, shape: Any, dtype: str = "float32", data: Any = None,
                strides: Any = None, elem_offset: Any = None, scope: str = "global",
                offset_factor: int = 0, **_ignored: Any) -> ts.Buffer:
    if isinstance(shape, (int, tx.PrimExpr)):
        shape = (shape,)
    # NOTE: a literal dimension is an int32 constant, as TVM's parser makes it
    dims = tuple(tx.const(d) if isinstance(d, int) else d for d in shape)
    for d in dims:
        if not isinstance(d, tx.PrimExpr):
            raise ValueError(f"a buffer dimension must be an integer or a T.int64() variable, "
                             f"not {d!r}")
    if type(elem_offset) is int and elem_offset == 0:
        elem_offset = None  # a literal 0 is TVM's default offset, not a distinct buffer
    if offset_factor == 1:
        offset_factor = 0  # TVM stores an offset factor of 0 as 1: the two are one buffer
    return ts.Buffer(name, dims, dtype, data if data is not None else tx.Var(name, "handle"),
                     tuple(strides or ()), elem_offset, scope, offset_factor)


# ---------------------------------------------------------------------------------------------
# Frames


@dataclass
class PrimFuncFrame:
    name: str
    params: list[tx.Var] = field(default_factory=list)
    buffer_map: list[tuple[tx.Var, ts.Buffer]] = field(default_factory=list)
    attrs: dict[str, Any] = field(default_factory=dict)
    root_allocs: list[ts.Buffer] = field(default_factory=list)
    block_only: list[ts.Buffer] = field(default_factory=list)  # T.sblock_alloc_buffer's
    loop_dom: dict[tx.Var, ts.Range] = field(default_factory=dict)
    ret_dtype: str = "void"
    block_names: dict[str, int] = field(default_factory=dict)


@dataclass
class BlockFrame:
    name: str
    no_realize: bool = False
    iter_vars: list[ts.IterVar] = field(default_factory=list)
    iter_values: list[tx.PrimExpr] = field(default_factory=list)
    reads: list[ts.BufferRegion] | None = None
    writes: list[ts.BufferRegion] | None = None
    init: ts.Stmt | None = None
    allocs: list[ts.Buffer] = field(default_factory=list)
    match_buffers: list[ts.MatchBufferRegion] = field(default_factory=list)
    predicate: tx.PrimExpr | None = None
    annotations: dict[str, Any] = field(default_factory=dict)

    def finish(self, p: Parser, body: list[ts.Stmt], node: ast.With) -> ts.Stmt:
        span = p.source.span(node)
        if self.reads is None or self.writes is None:
            check_no_opaque_access(p, self, body, node)
        block = ts.Block(block_name(p, self.name), tuple(self.iter_vars), _non_empty(body),
                         tuple(self.reads or ()), tuple(self.writes or ()), self.init,
                         tuple(self.allocs), tuple(self.match_buffers),
                         Attrs(self.annotations.items()), span)
        pred = self.predicate if self.predicate is not None else TRUE
        return ts.BlockRealize(tuple(self.iter_values), pred, block, span)


def _non_empty(body: list[ts.Stmt]) -> ts.Stmt:
    """A body; an empty one is `T.evaluate(0)`, as TVM makes it."""
    return ts.seq(body) if body else ts.Evaluate(tx.IntImm("int32", 0))


@dataclass
class InitFrame:
    def finish(self, p: Parser, body: list[ts.Stmt], node: ast.With) -> None:
        block = p.find_frame(BlockFrame)
        if block is None:
            p.error(node, "T.init() must be inside a block")
        if block.init is not None:
            p.error(node, "a block has at most one T.init()")
        block.init = ts.seq(body)


FRAMES = (BlockFrame, InitFrame)


def block_frame(p: Parser, what: str) -> BlockFrame:
    frame = p.find_frame(BlockFrame)
    if frame is None:
        raise ValueError(f"{what} must be used inside a `with T.block(...)`")
    return frame


def func_frame(p: Parser) -> PrimFuncFrame:
    frame = p.find_frame(PrimFuncFrame)
    if frame is None:
        raise ValueError("this T. call must be used inside a prim_func")
    return frame


# ---------------------------------------------------------------------------------------------
# The function


def parse_prim_func(p: Parser, node: ast.FunctionDef) -> PrimFunc:
    """Parse a `@T.prim_func` definition into a `PrimFunc` (attrs from `T.func_attr`)."""
    frame = PrimFuncFrame(node.name)
    _check_signature(p, node)
    with p.active(), p.frame(frame), p.scope():
        p.bind("range", _serial_range())
        for arg in node.args.args:
            _declare_param(p, frame, arg)
        ret = p.eval_annotation(node.returns) if node.returns is not None else None
        frame.ret_dtype = ret.dtype if isinstance(ret, DType) else "void"
        body = _non_empty(p.visit_body(node.body))
    body = with_root(body, frame.root_allocs, frame.block_only)
    ret_dtype = ret.dtype if isinstance(ret, DType) else "void"
    # TVM's buffer_map is a map keyed by parameter: order it as the parameters, not as the
    # match_buffer calls happen to come
    order = {id(param): n for n, param in enumerate(frame.params)}
    buffer_map = sorted(frame.buffer_map, key=lambda hb: order.get(id(hb[0]), len(order)))
    return PrimFunc(tuple(frame.params), tuple(buffer_map), body,
                    tuple(frame.attrs.items()), ret_dtype, p.source.span(node))


def _serial_range() -> Any:
    from ..tir import serial

    return serial


def _check_signature(p: Parser, node: ast.FunctionDef) -> None:
    a = node.args
    extra = a.posonlyargs or a.kwonlyargs or a.vararg or a.kwarg or a.defaults
    if extra:
        p.error(node, "prim_func parameters must be plain positional parameters")


def _declare_param(p: Parser, frame: PrimFuncFrame, arg: ast.arg) -> None:
    if arg.annotation is None:
        p.error(arg, f"parameter {arg.arg!r} needs a type annotation such as "
                     "T.Buffer((128,), \"float32\") or T.handle")
    from ..tir_jit import unwrap_optional

    ann = unwrap_optional(p.eval_annotation(arg.annotation))  # T.Optional(...) of @T.jit
    if isinstance(ann, ts.Buffer):  # `A: T.buffer(shape, dtype)`, the lower-case spelling
        ann = BufferSpec(ann.shape, ann.dtype, (("scope", ann.scope),))
    if isinstance(ann, BufferSpec):
        try:
            buf = ann.make(arg.arg)
        except ArgError as exc:
            p.error(_arg_node(arg.annotation, exc.where), str(exc))
        except ValueError as exc:
            p.error(arg.annotation, str(exc))
        handle = tx.Var(arg.arg, "handle", p.source.span(arg))
        frame.params.append(handle)
        frame.buffer_map.append((handle, buf))
        p.bind(arg.arg, buf)
    elif isinstance(ann, DType) or (isinstance(ann, tx.Var) and ann.dtype == "handle"):
        # NOTE: T.handle("int32") is a typed pointer in TVM; tvmlite keeps it a handle
        var = tx.Var(arg.arg, ann.dtype, p.source.span(arg))
        frame.params.append(var)
        p.bind(arg.arg, var)
    else:
        p.error(arg.annotation, f"unsupported annotation for prim_func parameter {arg.arg!r}; "
                                "use T.Buffer(shape, dtype), T.handle or a dtype like T.int32")


# ---------------------------------------------------------------------------------------------
# Subscripts: loads, stores and regions


def access(buf: ts.Buffer, index: Any) -> tx.PrimExpr | ts.BufferRegion:
    idx = tuple(index) if isinstance(index, (tuple, list)) else (index,)
    if len(idx) != len(buf.shape):
        raise ValueError(f"buffer {buf.name!r} has {len(buf.shape)} dimensions but is indexed "
                         f"with {len(idx)}")
    if any(isinstance(i, slice) for i in idx):
        return ts.BufferRegion(buf, tuple(_range(i, d) for i, d in zip(idx, buf.shape)))
    return tx.BufferLoad(buf, tuple(tx.const(i) for i in idx))


def _range(i: Any, dim: tx.PrimExpr) -> ts.Range:
    if not isinstance(i, slice):
        e = tx.const(i)
        return ts.Range(e, tx.IntImm(e.dtype, 1))
    if i.step not in (None, 1):
        raise ValueError("buffer regions take no step")
    lo = tx.const(0 if i.start is None else i.start)
    hi = dim if i.stop is None else tx.const(i.stop)
    return ts.Range(lo, _simplify_sub(hi, lo))


def _simplify_sub(hi: tx.PrimExpr, lo: tx.PrimExpr) -> tx.PrimExpr:
    if isinstance(lo, tx.IntImm) and lo.value == 0:
        return hi
    if isinstance(hi, tx.IntImm) and isinstance(lo, tx.IntImm):
        return tx.IntImm(promote(hi.dtype, lo.dtype), hi.value - lo.value)
    return extent_of(lo, hi)


def extent_of(lo: tx.PrimExpr, hi: tx.PrimExpr) -> tx.PrimExpr:
    """`hi - lo`, with `(lo + e) - lo` folded to `e`: the printer writes a range starting at
    `lo` with extent `e` as `lo, lo + e`, and must read back the same extent."""
    if isinstance(hi, tx.BinOp) and hi.op is tx.BinaryOp.ADD and _same(hi.a, lo):
        return hi.b
    from ...tir.arith import constant_difference

    # TVM's parser simplifies the extent: `x[v * 2 - 3:v * 2 + 3]` has extent 6
    d = constant_difference(hi, lo)
    return tx.IntImm(promote(hi.dtype, lo.dtype), d) if d is not None else hi - lo


def _same(a: tx.PrimExpr, b: tx.PrimExpr) -> bool:
    from ...ir.structural import structural_equal

    return a is b or structural_equal(a, b)


def region(x: Any) -> ts.BufferRegion:
    if isinstance(x, ts.BufferRegion):
        return x
    if isinstance(x, tx.BufferLoad):
        return ts.BufferRegion(x.buffer, tuple(_range(i, i) for i in x.indices))
    if isinstance(x, ts.Buffer):
        return ts.BufferRegion(x, tuple(ts.Range(tx.IntImm(d.dtype, 0), d) for d in x.shape))
    raise ValueError(f"expected a buffer region like A[i, 0:128], got {x!r}")




# ---------------------------------------------------------------------------------------------
# Statements


@TIR.register("For")
def visit_for(p: Parser, node: ast.For) -> ts.Stmt:
    if node.orelse:
        p.error(node, "`for ... else` is not supported in TIR")
    spec = p.eval(node.iter)
    if not isinstance(spec, LoopSpec):
        p.error(node.iter, "a TIR loop iterates over range(...), T.grid(...), T.serial(...), "
                           "T.parallel(...), T.vectorized(...), T.unroll(...) or "
                           "T.thread_binding(...)")
    names = loop_names(p, node.target, len(spec.ranges))
    frame = func_frame(p)
    loop_vars: list[tx.Var] = []
    with p.scope():
        for (name, t), (lo, extent) in zip(names, spec.ranges):
            var = tx.Var(name, promote(lo.dtype, extent.dtype), p.source.span(t))
            frame.loop_dom[var] = ts.Range(lo, extent)
            loop_vars.append(var)
        bind_loop_targets(p, node.target, loop_vars)
        body = ts.seq(_loop_body(p, node.body))
    span = p.source.span(node)
    for var, (lo, extent) in reversed(list(zip(loop_vars, spec.ranges))):
        body = ts.For(var, lo, extent, spec.kind, body, spec.thread, spec.annotations, span,
                      step=spec.step)
    return body


@TIR.register("With")
def visit_with(p: Parser, node: ast.With) -> ts.Stmt | None:
    if len(node.items) != 1:
        p.error(node, "a TIR `with` takes exactly one frame (T.block, T.sblock or T.init)")
    target = node.items[0].optional_vars
    frame = p.eval(node.items[0].context_expr)
    if not isinstance(frame, FRAMES + STMT_FRAMES):
        p.error(node.items[0].context_expr, "expected T.block(...), T.sblock(...), T.init(), "
                                            "T.attr(...), T.launch_thread(...) or T.If(...)")
    if target is not None and not (isinstance(frame, LaunchFrame)
                                   and isinstance(target, ast.Name)):
        p.error(target, "only `with T.launch_thread(...) as name:` takes an `as` name")
    with p.frame(frame), p.scope():
        if target is not None:
            frame = frame.named(target.id)  # type: ignore[union-attr]
            p.frames[-1] = frame
            p.bind(target.id, frame.node.var)  # type: ignore[union-attr]
        body = p.visit_body(node.body)
    return frame.finish(p, body, node)


@TIR.register("If")
def visit_if(p: Parser, node: ast.If) -> ts.Stmt | None:
    cond = p.eval(node.test)
    if not isinstance(cond, tx.PrimExpr):  # a Python value: choose the branch now
        return _block_of(p, node.body if cond else node.orelse)
    then = _block_of(p, node.body) or ts.SeqStmt(())
    other = _block_of(p, node.orelse) if node.orelse else None
    return ts.IfThenElse(cond, then, other, p.source.span(node))


@TIR.register("While")
def visit_while(p: Parser, node: ast.While) -> ts.Stmt:
    if node.orelse:
        p.error(node, "`while ... else` is not supported in TVMScript")
    cond = p.eval(node.test)
    if not isinstance(cond, tx.PrimExpr):
        p.error(node.test, "a TIR `while` needs a condition on TIR values (e.g. i[0] < n)")
    with p.scope():
        body = _loop_body(p, node.body)
    return ts.While(cond, ts.seq(body) if body else ts.SeqStmt(()), p.source.span(node))


def _loop_body(p: Parser, stmts: list[ast.stmt]) -> list[ts.Stmt]:
    """A loop's body, where `break` and `continue` may appear."""
    p.loop_depth = getattr(p, "loop_depth", 0) + 1  # type: ignore[attr-defined]
    try:
        return p.visit_body(stmts)
    finally:
        p.loop_depth -= 1  # type: ignore[attr-defined]


def _block_of(p: Parser, stmts: list[ast.stmt]) -> ts.Stmt | None:
    with p.scope():
        body = p.visit_body(stmts)
    return ts.seq(body) if body else None


@TIR.register("Assign")
def visit_assign(p: Parser, node: ast.Assign) -> Any:
    if len(node.targets) != 1:
        p.error(node, "chained assignment `a = b = ...` is not supported in TIR")
    target = node.targets[0]
    if _is_parallel_unpack(target, node.value):  # n, m = T.int64(), T.int64()
        values = []
        for t, v in zip(target.elts, node.value.elts):  # type: ignore[attr-defined]
            with p.naming(t.id if isinstance(t, ast.Name) else None):
                values.append(p.eval(v))
        return assign(p, target, tuple(values), node)
    with p.naming(target.id if isinstance(target, ast.Name) else None):
        value = p.eval(node.value)
    return assign(p, target, value, node)


def _is_parallel_unpack(target: ast.expr, value: ast.expr) -> bool:
    return (isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple)
            and len(target.elts) == len(value.elts))


@TIR.register("AnnAssign")
def visit_ann_assign(p: Parser, node: ast.AnnAssign) -> Any:
    from .tir_stmts import local_vector

    ann = p.eval_annotation(node.annotation)
    if isinstance(ann, LocalVectorAnnotation) and isinstance(node.target, ast.Name):
        return local_vector(p, node.target.id, ann, node)
    if node.value is None or not isinstance(node.target, ast.Name) or not isinstance(ann, DType):
        p.error(node, "an annotated TIR assignment looks like `x: T.int32 = value`")
    value = ann(p.eval(node.value))
    return _let(p, node.target.id, value, node)


@TIR.register("AugAssign")
def visit_aug_assign(p: Parser, node: ast.AugAssign) -> Any:
    if not isinstance(node.target, ast.Subscript):
        p.error(node.target, "augmented assignment in TIR needs a buffer element target")
    load = p.eval(node.target)
    value = _BINOPS[type(node.op)](load, p.eval(node.value))
    return _store(p, node.target, value)


def assign(p: Parser, target: ast.expr, value: Any, node: ast.AST) -> Any:
    if isinstance(value, MetaValue):
        return bind_meta(p, target, value.value, node)
    if isinstance(target, ast.Subscript):
        return _store(p, target, value)
    if isinstance(target, ast.Name):
        return _bind_name(p, target.id, value, node)
    if isinstance(target, (ast.Tuple, ast.List)):
        values = list(value) if isinstance(value, (tuple, list)) else None
        if values is None or len(values) != len(target.elts):
            p.error(node, f"cannot unpack {value!r} into {len(target.elts)} names")
        wraps = [assign(p, t, v, t) for t, v in zip(target.elts, values)]
        return _compose([w for w in wraps if w is not None])
    p.error(target, "unsupported assignment target in TIR")


def _compose(wraps: list[Any]) -> Any:
    if not wraps:
        return None
    if any(not isinstance(w, Wrap) for w in wraps):
        raise ValueError("a buffer store cannot be part of a tuple assignment")
    first, rest = wraps[0], _compose(wraps[1:])
    return first if rest is None else Wrap(lambda body: first.fn([rest.fn(body)]))


def _store(p: Parser, target: ast.Subscript, value: Any) -> ts.Stmt:
    buf = p.eval(target.value)
    if not isinstance(buf, ts.Buffer):
        p.error(target.value, "only buffer elements can be assigned to")
    index = p.eval(target.slice)
    load = access(buf, index)
    if not isinstance(load, tx.BufferLoad):
        p.error(target, "stores write one element; slices are not supported")
    value = tx.const(value, buf.dtype) if not isinstance(value, tx.PrimExpr) else value
    if value.dtype != buf.dtype and "x" not in value.dtype + buf.dtype:
        value = tx.Cast(buf.dtype, value)  # TVM 0.27 casts a scalar to the buffer's dtype
    if value.dtype != buf.dtype:
        p.error(p.node, f"cannot store a {value.dtype} value into {buf.dtype} buffer "
                        f"{buf.name!r}; cast it with T.Cast({buf.dtype!r}, ...)")
    return ts.BufferStore(buf, value, load.indices, p.source.span(p.node))


def _bind_name(p: Parser, name: str, value: Any, node: ast.AST) -> Any:
    if isinstance(value, list) and len(value) == 1 and isinstance(value[0], AxisSpec):
        value = value[0]  # vi = T.axis.remap("S", [i])
    if isinstance(value, AxisSpec):  # a block iterator may take its loop's name (`i = ...`)
        return _bind_axis(p, name, value, node)
    check_not_loop_var(p, name, node)
    if isinstance(value, LaunchFrame):  # bx = T.launch_thread("blockIdx.x", 64)
        value = value.named(name)
        p.bind(name, value.node.var)
        return value.wrap(p, node)
    if isinstance(value, BufferSpec):
        buf = value.make(name)
        p.bind(name, buf)
        return Wrap(lambda body: ts.DeclBuffer(buf, ts.seq(body), p.source.span(node)))
    if isinstance(value, ts.Buffer) and _is_view_call(node):  # C = B.view(256, 256)
        view = dataclasses.replace(value, name=name)
        p.bind(name, view)
        return Wrap(lambda body: ts.DeclBuffer(view, ts.seq(body), p.source.span(node)))
    if isinstance(value, AllocateSpec):
        alloc = value.buffer.make(name)
        p.bind(name, alloc)
        return Wrap(lambda body: ts.Allocate(alloc, ts.seq(body), p.source.span(node)))
    if isinstance(value, tx.Var) and value.name == name:  # n = T.int64()
        p.bind(name, value)
        return None
    if isinstance(value, tx.PrimExpr):
        return _let(p, name, value, node)
    if isinstance(value, ts.Buffer) and allocated_here(p, value):
        old = p.scopes[-1].get(name)
        if isinstance(old, ts.Buffer) and old is not value:
            p.error(node, f"buffer {name!r} is defined twice; give the second one another name")
        p.bind(name, value)
        return root_alloc(p, value, p.source.span(node))  # see tir_root
    p.bind(name, value)  # a Python value: buffers, ints, meta-programming helpers
    return None


def _is_view_call(node: ast.AST) -> bool:
    value = getattr(node, "value", None)
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and \
        value.func.attr == "view"


def _let(p: Parser, name: str, value: tx.PrimExpr, node: ast.AST) -> Wrap:
    var = tx.Var(name, value.dtype, p.source.span(node))
    p.bind(name, var)
    span = p.source.span(node)
    return Wrap(lambda body: ts.LetStmt(var, value, ts.seq(body), span))


def _bind_axis(p: Parser, name: str, axis: AxisSpec, node: ast.AST) -> None:
    frame = block_frame(p, "T.axis")
    if any(iv.var.name == name for iv in frame.iter_vars):
        p.error(node, f"block iterator {name!r} is defined twice in this block")
    var = tx.Var(name, axis.value.dtype, p.source.span(node))
    frame.iter_vars.append(ts.IterVar(var, axis.dom, axis.kind))
    frame.iter_values.append(axis.value)
    p.bind(name, var)


@TIR.register("Expr")
def visit_expr(p: Parser, node: ast.Expr) -> ts.Stmt | None:
    if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
        return None  # a docstring
    value = p.eval(node.value)
    if value is None:
        return None
    if isinstance(value, (ts.Stmt, Wrap)):
        return value
    if isinstance(value, AttrFrame):  # T.attr(...) as a statement: over the rest of the body
        return value.wrap(p, node)
    if isinstance(value, tx.PrimExpr):
        return ts.Evaluate(value, p.source.span(node))
    p.error(node, "this expression statement has no effect in TIR")


def _assert_message(p: Parser, node: ast.Assert, msg: tuple[Any, ...]) -> tuple[str, str]:
    """(error kind, message) of TVM 0.27's `("ValueError", ["part", ...])`; the parts join."""
    if len(msg) != 2 or not isinstance(msg[0], str) or not isinstance(msg[1], (list, tuple)):
        p.error(node.msg, 'an assert message is a string or ("RuntimeError", ["part", ...])')
    return msg[0], "".join(str(part) for part in msg[1])


@TIR.register("Assert")
def visit_assert(p: Parser, node: ast.Assert) -> Wrap:
    cond = tx.const(p.eval(node.test))  # `assert 0 == 1` folds to a Python bool
    msg = p.eval(node.msg) if node.msg is not None else "assertion failed"
    kind = "RuntimeError"
    if isinstance(msg, tuple):  # TVM 0.27's form: ("RuntimeError", ["part", ...])
        kind, msg = _assert_message(p, node, msg)
    span = p.source.span(node)
    return Wrap(lambda body: ts.AssertStmt(cond, str(msg), ts.seq(body), span, kind))


@TIR.register("Pass")
def visit_pass(p: Parser, node: ast.Pass) -> None:
    return None


from . import tir_stmts as _more  # noqa: E402,F401 (registers its statement handlers)
