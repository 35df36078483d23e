"""Statement-level names of the `T` namespace: attributes and GPU thread launches
(`T.attr`, `T.launch_thread`, `T.env_thread`), builder-style control flow (`T.If`, `T.Then`,
`T.Else`, `T.While`), and declarations (`T.var`, `T.buffer`, `T.ptr`, `T.target`, ...).
"""

from __future__ import annotations

from typing import Any

from ..tir import expr as tx
from ..tir import stmt as ts
from .parser.core import ArgError, MetaValue, Wrap, current
from .parser.tir_frames import AttrFrame, IfFrame, LaunchFrame, ThenFrame, WhileFrame
from .parser.tir_parser import DType, make_buffer


def _env_tags() -> dict[tx.Var, str]:
    """Thread tags of the `T.env_thread` variables of the function being parsed."""
    p = current()
    if p is None:
        raise RuntimeError("this T. function can only be used inside a @T.prim_func")
    if not hasattr(p, "env_thread_tags"):
        p.env_thread_tags = {}  # type: ignore[attr-defined]
    return p.env_thread_tags  # type: ignore[attr-defined]


def env_thread(thread_tag: str, dtype: str = "int32") -> tx.Var:
    """`tx = T.env_thread("threadIdx.x")`: a thread index, launched later by
    `with T.launch_thread(tx, extent):`."""
    p = current()
    var = tx.Var((p.pending_name if p else None) or thread_tag.replace(".", "_"), dtype)
    _env_tags()[var] = thread_tag
    return var


def launch_thread(thread: Any, extent: Any) -> LaunchFrame:
    """`bx = T.launch_thread("blockIdx.x", 64)`, or `with T.launch_thread(tx, 4):` for a
    `T.env_thread` variable: `extent` GPU threads along that thread axis."""
    extent = tx.const(extent)
    if isinstance(thread, str):
        tag, var = thread, tx.Var(thread.replace(".", "_"), extent.dtype)
    elif isinstance(thread, ts.IterVar):
        tag, var = thread.thread_tag, thread.var
    elif isinstance(thread, tx.Var) and thread in _env_tags():
        tag, var = _env_tags()[thread], thread
    else:
        raise ArgError("T.launch_thread takes a thread tag like \"blockIdx.x\" or a "
                       "T.env_thread variable", 0)
    dom = ts.Range(tx.IntImm(var.dtype, 0), tx.const(extent, var.dtype))
    iv = ts.IterVar(var, dom, ts.IterType.THREAD, tag)
    return LaunchFrame(iv, "thread_extent", extent, tag)


def attr(node: Any, attr_key: str | None = None, value: Any = None) -> AttrFrame:
    """`with T.attr(node, "key", value):` (or `T.attr({"key": value})`) over a body."""
    if isinstance(node, dict):
        if len(node) != 1 or attr_key is not None:
            raise ArgError("T.attr({key: value}) takes one attribute", 0)
        (attr_key, value), = node.items()
        node = 0
    if not isinstance(attr_key, str):
        raise ArgError("T.attr(node, key, value): the key is a string", 1)
    node = tx.StringImm(node) if isinstance(node, str) else \
        tx.const(node) if isinstance(node, (int, float)) else node
    value = tx.StringImm(value) if isinstance(value, str) else tx.const(value)
    return AttrFrame(node, attr_key, value)


def If(condition: Any) -> IfFrame:  # noqa: N802 (TVM's name)
    """`with T.If(cond):` + `with T.Then():` / `with T.Else():` (the builder's `if`)."""
    return IfFrame(tx.const(condition))


def Then() -> ThenFrame:  # noqa: N802 (TVM's name)
    return ThenFrame()


def Else() -> ThenFrame:  # noqa: N802 (TVM's name)
    return ThenFrame(else_branch=True)


def While(condition: Any) -> WhileFrame:  # noqa: N802 (TVM's name)
    """`with T.While(cond):` (the builder's `while`)."""
    return WhileFrame(tx.const(condition))


def Break() -> ts.Evaluate:  # noqa: N802 (TVM's name)
    """`T.Break()`: the statement `break` (`T.evaluate(T.break_loop())`)."""
    return ts.loop_jump("break")


def Continue() -> ts.Evaluate:  # noqa: N802 (TVM's name)
    """`T.Continue()`: the statement `continue` (`T.evaluate(T.continue_loop())`)."""
    return ts.loop_jump("continue")


def Return(value: Any) -> ts.Evaluate:  # noqa: N802 (TVM's name)
    """`T.Return(value)`: `return value` (in a prim_func with a result type)."""
    value = tx.const(value)
    return ts.Evaluate(tx.Call(value.dtype, "tir.ret", (value,)))


def var(dtype: Any, name: str = "") -> tx.Var:
    """`T.var("int32", "n")`: a new scalar variable."""
    p = current()
    dtype = dtype.dtype if isinstance(dtype, DType) else str(dtype)
    return tx.Var(name or (p.pending_name if p else None) or "v", dtype)


def buffer(shape: Any, dtype: Any = "float32", data: Any = None, strides: Any = None,
           elem_offset: Any = None, scope: str = "global", offset_factor: int = 0,
           name: str = "", **_: Any) -> ts.Buffer:
    """`T.buffer(shape, dtype, ...)`: a Buffer object (declared nowhere by itself)."""
    p = current()
    name = name or (p.pending_name if p else None) or "buffer"
    dtype = dtype.dtype if isinstance(dtype, DType) else dtype
    return make_buffer(name, shape, dtype, data, strides, elem_offset, scope, offset_factor)


buffer_decl = buffer


def ptr(dtype: Any, storage_scope: str = "global", is_size_var: bool = False) -> tx.Var:
    """`T.ptr("float32")`: a pointer variable (a `handle`; tvmlite keeps no pointee type)."""
    p = current()
    return tx.Var((p.pending_name if p else None) or "ptr", "handle")


buffer_var = ptr


class _PtrType:
    """`T.Ptr(T.float32)` / `T.Ptr[T.float32]` as an annotation: a pointer (`handle`)."""

    def __call__(self, dtype: Any = None, storage_scope: str = "global") -> DType:
        return DType("handle")

    def __getitem__(self, key: Any) -> DType:
        return DType("handle")


Ptr = _PtrType()


class _MetaVar:
    """`T.meta_var(x)`: a Python value bound to names as is (meta-programming); a TIR value
    so bound stays an expression instead of becoming a let-bound variable."""

    def __call__(self, value: Any) -> Any:
        return MetaValue(value) if current() is not None else value

    def __instancecheck__(self, obj: Any) -> bool:
        return isinstance(obj, MetaValue)


meta_var = _MetaVar()


def target(target_config: Any, host: Any = None) -> Any:
    """`T.target("llvm")` / `T.target({"kind": "cuda", ...})`: a `tvm.target.Target`."""
    from ..target import Target

    if isinstance(target_config, dict) and "host" in target_config:
        target_config = dict(target_config)
        host = host or target_config.pop("host")
    return Target(target_config, host)


def static_assert(x: Any, message: str = "") -> None:
    """`T.static_assert(cond, msg)`: a check on Python values, made while parsing."""
    if isinstance(x, tx.PrimExpr):
        x = bool(x.value) if isinstance(x, tx.IntImm) else None
        if x is None:
            raise ValueError("T.static_assert needs a condition known while parsing")
    if not x:
        raise ValueError(f"static assertion failed: {message}" if message else
                         "static assertion failed")


def bind(value: Any, type_annotation: Any = None, *, var: Any = None) -> Any:
    """`x = T.bind(value)`: bind `x` to a TIR value (a LetStmt over the rest of the body),
    even when the value is a Python number; `T.bind(value, var=x)` binds a variable declared
    before (`x = T.int32()`)."""
    dtype = type_annotation.dtype if isinstance(type_annotation, DType) else None
    if var is None:
        return tx.const(value, dtype)
    if not isinstance(var, tx.Var):
        raise ArgError("T.bind(value, var=x) binds a variable declared like x = T.int32()",
                       "var")
    bound = tx.const(value, var.dtype)
    return Wrap(lambda body: ts.LetStmt(var, bound, ts.seq(body)))


Bind = bind


def buffer_store(buffer: ts.Buffer, value: Any, indices: Any) -> ts.BufferStore:
    """`T.buffer_store(A, value, [i, j])`: the statement `A[i, j] = value`."""
    idx = tuple(tx.const(i) for i in (indices if isinstance(indices, (list, tuple))
                                      else [indices]))
    return ts.BufferStore(buffer, tx.const(value, buffer.dtype), idx)


def add_to_parent(stmt: ts.Stmt) -> ts.Stmt:
    """`T.add_to_parent(stmt)`: a statement built in Python, placed here in the body."""
    if not isinstance(stmt, ts.Stmt):
        raise ArgError(f"T.add_to_parent takes a TIR statement, not {type(stmt).__name__}", 0)
    return stmt


def func_name(name: str) -> None:
    """`T.func_name("f")`: the function's global symbol."""
    _func_frame().attrs["global_symbol"] = str(name)


def func_ret(ret_type: Any) -> Any:
    """`T.func_ret(T.int32)`: the function's result type."""
    _func_frame().ret_dtype = ret_type.dtype if isinstance(ret_type, DType) else str(ret_type)
    return ret_type


def arg(name: str, obj: Any) -> Any:
    """`A = T.arg("A", T.buffer(...))` / `n = T.arg("n", T.int32())`: one more parameter."""
    frame = _func_frame()
    if isinstance(obj, ts.Buffer):
        handle = tx.Var(str(name), "handle")
        frame.params.append(handle)
        frame.buffer_map.append((handle, obj))
    elif isinstance(obj, tx.Var):
        frame.params.append(obj)
    else:
        raise ArgError("T.arg takes a buffer or a variable", 1)
    return obj


def _func_frame() -> Any:
    from .parser.tir_parser import func_frame

    p = current()
    if p is None:
        raise RuntimeError("this T. function can only be used inside a @T.prim_func")
    return func_frame(p)


def meta_class(cls: type) -> type:
    """`@T.meta_class`: a Python helper class usable inside a prim_func (kept as is)."""
    return cls


def _scalar(dtype: Any, scope: str) -> ts.Buffer:
    from . import tir as T

    return T.alloc_buffer((), dtype, scope=scope)


def alloc_scalar(dtype: Any, scope: str = "global") -> ts.Buffer:
    """`x = T.alloc_scalar("float32")`: a zero-dimensional buffer."""
    return _scalar(dtype, scope)


def local_scalar(dtype: Any) -> ts.Buffer:
    return _scalar(dtype, "local")


def shared_scalar(dtype: Any) -> ts.Buffer:
    return _scalar(dtype, "shared")


def alloc_local(shape: Any, dtype: Any = "float32", **kwargs: Any) -> ts.Buffer:
    """`T.alloc_buffer(..., scope="local")`."""
    from . import tir as T

    return T.alloc_buffer(shape, dtype, scope="local", **kwargs)


def alloc_shared(shape: Any, dtype: Any = "float32", **kwargs: Any) -> ts.Buffer:
    """`T.alloc_buffer(..., scope="shared")`."""
    from . import tir as T

    return T.alloc_buffer(shape, dtype, scope="shared", **kwargs)


def decl_scalar(dtype: Any, data: Any, scope: str = "global", elem_offset: Any = None,
                byte_offset: Any = None) -> Any:
    """`x = T.decl_scalar("float32", ptr, "local")`: a zero-dimensional view of `data`."""
    from . import tir as T

    return T.decl_buffer((), dtype, data=data, scope=scope, elem_offset=elem_offset)


class CallEffectKind:
    """Possible kinds of Call effects (TVM's values)."""

    ExprAnnotation = 0
    Pure = 1
    ReadState = 2
    UpdateState = 3
    Opaque = 3


__all__ = ["Break", "Continue", "Return", "bind", "Bind", "buffer_store", "add_to_parent",
           "func_name", "func_ret", "arg", "meta_class", "alloc_scalar", "local_scalar",
           "shared_scalar", "alloc_local",
           "alloc_shared", "decl_scalar", "CallEffectKind", "buffer_var",
           "env_thread", "launch_thread", "attr", "If", "Then", "Else", "While", "var",
           "buffer", "buffer_decl", "ptr", "Ptr", "meta_var", "target", "static_assert"]
