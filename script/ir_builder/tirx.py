"""`tvm.script.ir_builder.tirx`: the TIR frames and statements of the IRBuilder.

Each frame is a context manager: entering it opens a statement list in the current IRBuilder,
leaving it builds its statement from that list (`For`, `While`, `IfThenElse`, `AttrStmt`,
`AssertStmt`, a block, or a PrimFunc) and emits it into the enclosing frame.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ...tir import expr as tx
from ...tir import stmt as ts
from ...tir.function import PrimFunc
from ..tir_nodes import comm_reducer  # noqa: F401 (a value, built the same way as in T)
from .base import IRBuilder, IRBuilderFrame
from .ir import enclosing_module


class _Frame(IRBuilderFrame):
    """A TIR frame: collects the statements emitted while it is open."""

    label = "T.frame"  # how users open it, for error messages

    def __enter__(self) -> Any:
        self.stmts: list[ts.Stmt] = []
        super().__enter__()
        return self.value()

    def value(self) -> Any:
        return self

    def body_of(self, stmts: list[Any]) -> ts.Stmt:
        if not stmts:
            raise ValueError(f"the `with {self.label}(...)` frame has an empty body")
        return ts.seq(stmts)

    def finish(self, builder: IRBuilder) -> None:
        self.build(self.stmts)

    def build(self, stmts: list[Any]) -> None:
        raise NotImplementedError


def _frame(kind: type) -> Any:
    """The innermost open frame of class `kind`."""
    for f in reversed(IRBuilder.current().frames):
        if isinstance(f, kind):
            return f
    raise ValueError(f"this call must be inside a `with {kind.label}(...)` frame")


def _emit(stmt: ts.Stmt) -> None:
    """Into the innermost TIR frame; outside every frame, into the builder's result. Under
    `ib.with_source_span(span)`, a statement without a span takes that one."""
    builder = IRBuilder.current()
    if builder.span is not None and getattr(stmt, "span", False) is None:
        stmt = dataclasses.replace(stmt, span=builder.span)  # type: ignore[type-var]
    for f in reversed(builder.frames):
        if isinstance(f, _Frame):
            f.stmts.append(stmt)
            return
    if builder.result is None:
        builder.result = stmt
    elif isinstance(builder.result, ts.Stmt):
        builder.result = ts.seq([builder.result, stmt])
    else:
        raise ValueError("the IRBuilder already holds a function; open a frame for statements")


# -- functions and blocks ----------------------------------------------------------------------


class _PrimFuncFrame(_Frame):
    label = "T.prim_func"

    def __init__(self, is_private: bool, s_tir: bool) -> None:
        self.attrs: dict[str, Any] = {"s_tir": True} if s_tir else {}
        self.private = is_private
        self.params: list[tx.Var] = []
        self.buffer_map: list[tuple[tx.Var, ts.Buffer]] = []
        self.ret_dtype = "void"

    def build(self, stmts: list[Any]) -> None:
        body = self.body_of(stmts) if stmts else ts.Evaluate(0)  # TVM's empty function body
        module = enclosing_module()
        attrs = dict(self.attrs)
        if module is not None:  # in a module the function's name is its GlobalVar's
            name = str(attrs.pop("global_symbol", f"func_{len(module.functions)}"))
            if not self.private:
                attrs["global_symbol"] = name
        func = PrimFunc(tuple(self.params), tuple(self.buffer_map), body,
                        tuple(attrs.items()), self.ret_dtype)
        if module is not None:
            module.add(name, func)
        else:
            IRBuilder.current().result = func


def prim_func(is_private: bool = False, s_tir: bool = False) -> _PrimFuncFrame:
    """`with T.prim_func():` a PrimFunc without parameters (private: no global symbol)."""
    return _PrimFuncFrame(is_private, s_tir)


def func_attr(attrs: dict[str, Any]) -> None:
    _frame(_PrimFuncFrame).attrs.update(attrs)


def func_name(name: str) -> None:
    """`T.func_name("main")`: the function's global symbol."""
    _frame(_PrimFuncFrame).attrs["global_symbol"] = name


def func_ret(ret_type: Any) -> Any:
    """`T.func_ret(ir.PrimType("int64"))`: what the function returns."""
    _frame(_PrimFuncFrame).ret_dtype = str(getattr(ret_type, "dtype", ret_type))
    return ret_type


def arg(name: str, obj: Any) -> Any:
    """`T.arg("A", T.Buffer(...))` or `T.arg("n", T.int32())`: the next parameter, named
    `name`; a buffer parameter is passed as a handle mapped to the buffer."""
    frame = _frame(_PrimFuncFrame)
    if isinstance(obj, ts.Buffer):
        obj = IRBuilder.name(name, obj)
        handle = tx.Var(name, "handle")
        frame.params.append(handle)
        frame.buffer_map.append((handle, obj))
        return obj
    if not isinstance(obj, tx.Var):
        raise TypeError(f"T.arg takes a buffer or a variable, not {type(obj).__name__}")
    if not isinstance(obj.dtype, str):  # a typed pointer: a parameter passes a plain handle
        obj = tx.Var(obj.name, "handle")
    frame.params.append(IRBuilder.name(name, obj))
    return obj


def Buffer(shape: Any, dtype: str = "float32", data: Any = None, strides: Any = None,  # noqa: N802
           elem_offset: Any = None, scope: str = "global", offset_factor: int = 0,
           **tvm_only: Any) -> ts.Buffer:
    """`T.Buffer((m, n), "float32")`: a buffer declaration (TVM's layout options ignored)."""
    return ts.decl_buffer(shape, dtype, "buffer", data, strides, elem_offset, scope,
                          offset_factor, **tvm_only)


def match_buffer(param: Any, shape: Any, dtype: str = "float32", **kwargs: Any) -> ts.Buffer:
    """`T.match_buffer(handle, shape, dtype)`: the buffer a handle parameter points to."""
    frame = _frame(_PrimFuncFrame)
    if not any(param is p for p in frame.params):
        raise ValueError("T.match_buffer takes a handle parameter declared with T.arg")
    buf = ts.decl_buffer(shape, dtype, param.name, **kwargs)
    frame.buffer_map.append((param, buf))
    return buf


class _SBlockFrame(_Frame):
    label = "T.sblock"

    def __init__(self, name: str, no_realize: bool) -> None:
        self.name, self.no_realize = name, no_realize
        self.iter_vars: list[ts.IterVar] = []
        self.values: list[tx.PrimExpr] = []
        self.reads: tuple[ts.BufferRegion, ...] = ()
        self.writes: tuple[ts.BufferRegion, ...] = ()
        self.alloc_buffers: list[ts.Buffer] = []

    def build(self, stmts: list[Any]) -> None:
        block = ts.Block(self.name, tuple(self.iter_vars), self.body_of(stmts),
                         self.reads, self.writes, alloc_buffers=tuple(self.alloc_buffers))
        _emit(ts.BlockRealize(tuple(self.values), tx.const(True), block))


def sblock(name: str = "", no_realize: bool = False) -> _SBlockFrame:
    """`with T.sblock("name"):` a block; its iterators come from `T.axis.*` inside it."""
    return _SBlockFrame(name, no_realize)


def _axis(kind: ts.IterType, dom: Any, binding: Any, dtype: str) -> tx.Var:
    frame = _frame(_SBlockFrame)
    value = tx.const(binding, dtype) if binding is not None else None
    var = tx.Var("v", value.dtype if value is not None else dtype)
    if isinstance(dom, (tuple, list)):
        lo, hi = (tx.const(d, var.dtype) for d in dom)
        rng = ts.Range(lo, hi - lo)
    else:
        rng = ts.Range(tx.IntImm(var.dtype, 0), tx.const(dom, var.dtype))
    frame.iter_vars.append(ts.IterVar(var, rng, kind))
    frame.values.append(value if value is not None else tx.IntImm(var.dtype, 0))
    return var


class axis:  # noqa: N801 (TVM's name)
    """`T.axis.spatial(dom, binding)`, `T.axis.reduce(...)`, `T.axis.opaque(...)`."""

    @staticmethod
    def spatial(dom: Any, binding: Any = None, dtype: str = "int32") -> tx.Var:
        return _axis(ts.IterType.SPATIAL, dom, binding, dtype)

    @staticmethod
    def reduce(dom: Any, binding: Any = None, dtype: str = "int32") -> tx.Var:
        return _axis(ts.IterType.REDUCE, dom, binding, dtype)

    @staticmethod
    def opaque(dom: Any, binding: Any = None, dtype: str = "int32") -> tx.Var:
        return _axis(ts.IterType.OPAQUE, dom, binding, dtype)


def _regions(items: tuple[Any, ...]) -> tuple[ts.BufferRegion, ...]:
    out = []
    for r in items:
        if isinstance(r, tx.BufferLoad):
            r = ts.BufferRegion(r.buffer, tuple(ts.Range(i, tx.IntImm(i.dtype, 1))
                                                for i in r.indices))
        if not isinstance(r, ts.BufferRegion):
            raise TypeError(f"T.reads/T.writes take buffer regions, not {type(r).__name__}")
        out.append(r)
    return tuple(out)


def reads(*regions: Any) -> None:
    _frame(_SBlockFrame).reads = _regions(regions)


def writes(*regions: Any) -> None:
    _frame(_SBlockFrame).writes = _regions(regions)


# -- loops and control flow -------------------------------------------------------------------


class _ForFrame(_Frame):
    label = "T.grid"

    def __init__(self, extents: tuple[Any, ...], kind: ts.ForKind,
                 thread: str | None = None) -> None:
        ext = [tx.const(e) for e in extents]
        self.loops = [(tx.Var("v", e.dtype), e) for e in ext]
        self.kind, self.thread = kind, thread

    def value(self) -> Any:
        vars_ = [v for v, _ in self.loops]
        return vars_[0] if len(vars_) == 1 else vars_

    def build(self, stmts: list[Any]) -> None:
        body = self.body_of(stmts)
        for var, extent in reversed(self.loops):
            body = ts.For(var, tx.IntImm(extent.dtype, 0), extent, self.kind, body,
                          self.thread)
        _emit(body)


def grid(*extents: Any) -> _ForFrame:
    """`with T.grid(8, 4) as (i, j):` serial loops nested in order."""
    return _ForFrame(extents, ts.ForKind.SERIAL)


def _loop(kind: ts.ForKind) -> Any:
    def make(extent: Any) -> _ForFrame:
        return _ForFrame((extent,), kind)
    make.__doc__ = f"`with T.{kind.value}(n) as i:` one {kind.value} loop over [0, n)."
    return make


serial = _loop(ts.ForKind.SERIAL)
parallel = _loop(ts.ForKind.PARALLEL)
vectorized = _loop(ts.ForKind.VECTORIZED)
unroll = _loop(ts.ForKind.UNROLLED)


def thread_binding(extent: Any, thread: str) -> _ForFrame:
    """`with T.thread_binding(n, thread="threadIdx.x") as i:` a loop over [0, n) run by GPU
    threads along `thread`."""
    return _ForFrame((extent,), ts.ForKind.THREAD_BINDING, thread)


def env_thread(thread_tag: str, dtype: str = "int32") -> ts.IterVar:
    """`T.env_thread("blockIdx.x")`: a GPU thread axis (its extent comes with launch_thread)."""
    return ts.IterVar(tx.Var(thread_tag.replace(".", "_"), dtype), None, ts.IterType.THREAD,
                      thread_tag)


class _LaunchFrame(_Frame):
    label = "T.launch_thread"

    def __init__(self, axis: ts.IterVar, extent: tx.PrimExpr) -> None:
        self.axis, self.extent = axis, extent

    def value(self) -> Any:
        return self.axis.var

    def build(self, stmts: list[Any]) -> None:
        _emit(ts.AttrStmt(self.axis, "thread_extent", self.extent, self.body_of(stmts)))


def launch_thread(thread: ts.IterVar | str, extent: Any) -> _LaunchFrame:
    """`with T.launch_thread(env_thread_axis_or_tag, n):` n GPU threads along the axis."""
    axis = env_thread(thread) if isinstance(thread, str) else thread
    value = tx.const(extent, axis.var.dtype)
    dom = ts.Range(tx.IntImm(value.dtype, 0), value)
    return _LaunchFrame(ts.IterVar(axis.var, dom, axis.iter_type, axis.thread_tag), value)


class _WhileFrame(_Frame):
    label = "T.While"

    def __init__(self, condition: Any) -> None:
        self.condition = tx.const(condition)

    def build(self, stmts: list[Any]) -> None:
        _emit(ts.While(self.condition, self.body_of(stmts)))


def While(condition: Any) -> _WhileFrame:  # noqa: N802 (TVM's name)
    return _WhileFrame(condition)


class _IfFrame(_Frame):
    label = "T.If"

    def __init__(self, condition: Any) -> None:
        self.condition = tx.const(condition)
        self.then_case: ts.Stmt | None = None
        self.else_case: ts.Stmt | None = None

    def build(self, stmts: list[Any]) -> None:
        if stmts or self.then_case is None:
            raise ValueError("the body of T.If holds one T.Then() frame (and one T.Else())")
        _emit(ts.IfThenElse(self.condition, self.then_case, self.else_case))


class _ThenFrame(_Frame):
    label = "T.Then"

    def build(self, stmts: list[Any]) -> None:
        _frame(_IfFrame).then_case = self.body_of(stmts)


class _ElseFrame(_Frame):
    label = "T.Else"

    def build(self, stmts: list[Any]) -> None:
        _frame(_IfFrame).else_case = self.body_of(stmts)


def If(condition: Any) -> _IfFrame:  # noqa: N802 (TVM's name)
    return _IfFrame(condition)


def Then() -> _ThenFrame:  # noqa: N802 (TVM's name)
    return _ThenFrame()


def Else() -> _ElseFrame:  # noqa: N802 (TVM's name)
    return _ElseFrame()


class _AttrFrame(_Frame):
    label = "T.attr"

    def __init__(self, node: Any, key: str, value: Any) -> None:
        self.node, self.key, self.value_ = node, key, tx.const(value)

    def build(self, stmts: list[Any]) -> None:
        _emit(ts.AttrStmt(self.node, self.key, self.value_, self.body_of(stmts)))


def attr(node: Any, attr_key: str, value: Any) -> _AttrFrame:
    """`with T.attr(node, key, value):` an attribute over the frame's body."""
    return _AttrFrame(node, attr_key, value)


class _AssertFrame(_Frame):
    label = "T.Assert"

    def __init__(self, condition: Any, message: str) -> None:
        self.condition, self.message = tx.const(condition), message

    def build(self, stmts: list[Any]) -> None:
        _emit(ts.AssertStmt(self.condition, self.message, self.body_of(stmts)))


def Assert(condition: Any, message: str) -> _AssertFrame:  # noqa: N802 (TVM's name)
    return _AssertFrame(condition, message)


# -- statements and scalars -------------------------------------------------------------------


def evaluate(value: Any) -> None:
    _emit(ts.Evaluate(tx.const(value)))


def buffer_store(buffer: ts.Buffer, value: Any, indices: Any) -> None:
    """`buffer[indices] = value`."""
    idx = tuple(tx.const(i) for i in indices)
    _emit(ts.BufferStore(buffer, tx.const(value, buffer.dtype), idx))


def _dtype(name: str) -> Any:
    def make(value: Any = None) -> tx.PrimExpr:
        return tx.Var("v", name) if value is None else tx.const(value, name)
    make.__doc__ = f"`T.{name}()`: a new {name} variable; `T.{name}(x)`: a {name} constant."
    make.__name__ = name
    return make


def handle(dtype: Any = None, storage_scope: str = "global") -> tx.Var:
    """`T.handle()`: a new handle variable; `T.handle("float32", "shared")` a pointer typed
    by what it points to (TVM's PointerType, kept for printing)."""
    if dtype is None or str(dtype) == "void":
        return tx.Var("v", "handle")
    from ...ir import PointerType, PrimType

    return tx.Var("v", PointerType(PrimType(str(getattr(dtype, "dtype", dtype))),
                                   storage_scope))


ptr = handle


# -- TVM 0.27's flat scope statements: each holds for the statements after it in its frame ----


def bind(value: Any, type_annotation: Any = None) -> tx.Var:
    """`v = T.bind(value)`: a new variable holding `value` (a flat `Bind` statement)."""
    value = tx.const(value)
    dtype = str(getattr(type_annotation, "dtype", type_annotation or value.dtype))
    var = tx.Var("v", dtype)
    _emit(ts.Bind(var, value))
    return var


def alloc_buffer(shape: Any, dtype: str = "float32", data: Any = None, strides: Any = None,
                 elem_offset: Any = None, scope: str = "global", offset_factor: int = 0,
                 **tvm_only: Any) -> ts.Buffer:
    """`buf = T.alloc_buffer(shape, dtype)`: storage for the statements after it (a flat
    `AllocBuffer`, also inside a block, as in TVM 0.27)."""
    buf = Buffer(shape, dtype, data, strides, elem_offset, scope, offset_factor, **tvm_only)
    _emit(ts.AllocBuffer(buf))
    return buf


def sblock_alloc_buffer(shape: Any, dtype: str = "float32", **kwargs: Any) -> ts.Buffer:
    """`buf = T.sblock_alloc_buffer(shape, dtype)`: one of the enclosing block's buffers."""
    buf = Buffer(shape, dtype, **kwargs)
    _frame(_SBlockFrame).alloc_buffers.append(buf)
    return buf


def decl_buffer(shape: Any, dtype: str = "float32", data: Any = None, strides: Any = None,
                elem_offset: Any = None, scope: str = "global", offset_factor: int = 0,
                **tvm_only: Any) -> ts.Buffer:
    """`buf = T.decl_buffer(shape, dtype, data=ptr)`: a buffer over existing memory for the
    statements after it (a flat `DeclBuffer`); without `data`, new storage (`AllocBuffer`)."""
    buf = Buffer(shape, dtype, data, strides, elem_offset, scope, offset_factor, **tvm_only)
    _emit(ts.DeclBuffer(buf) if data is not None else ts.AllocBuffer(buf))
    return buf


class MetaVar:
    """`T.meta_var(x)`: a Python value carried as is (`.value`); a list unpacks into one
    MetaVar per element."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def __iter__(self) -> Any:
        return (MetaVar(v) for v in self.value)


def meta_var(value: Any) -> MetaVar:
    return MetaVar(value)


_DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
           "float16", "float32", "float64", "bfloat16")
globals().update({name: _dtype(name) for name in _DTYPES})

__all__ = ["prim_func", "func_attr", "func_name", "func_ret", "arg", "Buffer", "match_buffer",
           "thread_binding", "env_thread", "launch_thread", "handle", "ptr", "meta_var", "MetaVar",
           "bind", "alloc_buffer", "sblock_alloc_buffer", "decl_buffer",
           "sblock", "axis", "reads", "writes", "grid", "serial",
           "parallel", "vectorized", "unroll", "While", "If", "Then", "Else", "attr", "Assert",
           "evaluate", "buffer_store", "comm_reducer", *_DTYPES]
