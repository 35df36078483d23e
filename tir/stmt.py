"""Statements, buffers and blocks of the loop IR (TIR).

`Buffer` compares by identity like `Var`: it is a named region of memory, not a value.
Blocks (`with T.block(...)`) are kept as written until `tir.lower` turns them into loops.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

from .expr import BufferLoad, IntImm, PrimExpr, Span, Var, const, node_script


@dataclass(frozen=True, slots=True, eq=False)
class Buffer:
    """A typed, shaped view of memory; `data` is the handle variable that holds its address."""
    script = node_script

    name: str
    shape: tuple[PrimExpr, ...]
    dtype: str = "float32"
    data: Var | None = None
    strides: tuple[PrimExpr, ...] = ()
    elem_offset: PrimExpr | None = None
    scope: str = "global"
    offset_factor: int = 0
    span: Span | None = field(default=None, compare=False, repr=False)

    def __getitem__(self, indices: Any) -> BufferLoad:
        if not isinstance(indices, tuple):
            indices = (indices,)
        return BufferLoad(self, tuple(const(i) for i in indices))

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def view(self, *shape_or_dtype: Any) -> Buffer:
        """TVM 0.27's `A.view(256, 256)` / `A.view("int32")`: a buffer over the same memory
        with another shape or another dtype."""
        if len(shape_or_dtype) == 1 and isinstance(shape_or_dtype[0], str):
            return Buffer(self.name, self.shape, shape_or_dtype[0], self.data, scope=self.scope)
        dims = shape_or_dtype[0] if len(shape_or_dtype) == 1 and \
            isinstance(shape_or_dtype[0], (tuple, list)) else shape_or_dtype
        return Buffer(self.name, tuple(const(d) for d in dims), self.dtype, self.data,
                      scope=self.scope)

    def access_ptr(self, access_mask: Any, ptr_type: str = "handle", content_lanes: int = 1,
                   offset: Any = 0, extent: Any = None) -> PrimExpr:
        """`B.access_ptr("r", extent=n)`: a `tvm_access_ptr` call naming the elements of B an
        opaque access touches ("r"=1, "w"=2, "rw"=3); extent defaults to the rest of B."""
        from .expr import Call, IntImm

        mask = access_mask if isinstance(access_mask, int) else _access_mask(access_mask)
        begin = const(offset)
        if self.elem_offset is not None:
            begin = self.elem_offset + begin
        if extent is None:
            count = _element_count(self.shape)
            extent = (IntImm("int32", count.value - begin.value)
                      if isinstance(count, IntImm) and isinstance(begin, IntImm)
                      else count - begin)
        args = (Call(self.dtype, "tir.type_annotation", ()), self.data, begin, const(extent),
                IntImm("int32", mask))
        return Call(ptr_type, "tir.tvm_access_ptr", args)

    def __repr__(self) -> str:
        return f"Buffer({self.name}, {[str(s) for s in self.shape]}, {self.dtype})"


def _access_mask(text: str) -> int:
    if not text or set(text) - {"r", "w"}:
        raise ValueError(f"access_ptr: access mask {text!r} must be 'r', 'w' or 'rw'")
    return ("r" in text) * 1 + ("w" in text) * 2


def _element_count(shape: tuple[PrimExpr, ...]) -> PrimExpr:
    """The number of elements; a constant shape gives an int32 constant, as TVM prints it."""
    if all(isinstance(d, IntImm) for d in shape):
        count = 1
        for d in shape:
            count *= d.value  # type: ignore[attr-defined]
        return IntImm("int32", count)
    total: PrimExpr = const(1)
    for d in shape:
        total = total * d
    return total


def make_buffer(name: str, shape: Any, dtype: str = "float32", **kwargs: Any) -> Buffer:
    """A buffer with its own data handle; int shapes become int64 immediates, as TVM does."""
    dims = tuple(const(s, "int64") if isinstance(s, int) else s for s in shape)
    data = kwargs.pop("data", None)
    if data is None:
        data = Var(name, "handle")
    return Buffer(name, dims, dtype, data, **kwargs)


def decl_buffer(shape: Any, dtype: str = "float32", name: str = "buffer", data: Var | None = None,
                strides: Any = None, elem_offset: Any = None, scope: str = "",
                offset_factor: int = 0, **_tvm_only: Any) -> Buffer:
    """`tir.decl_buffer(shape, dtype, name=...)`: TVM's buffer constructor (its layout and
    alignment options are accepted and have no effect here)."""
    kwargs: dict[str, Any] = {"scope": scope or "global", "offset_factor": offset_factor}
    if strides:
        kwargs["strides"] = tuple(const(s) for s in strides)
    if elem_offset is not None:
        kwargs["elem_offset"] = const(elem_offset)
    if isinstance(shape, (int, PrimExpr)):
        shape = (shape,)
    # NOTE: TVM's literal dimensions are int32 constants here (make_buffer's are int64)
    shape = tuple(const(s) if type(s) is int else s for s in shape)
    return make_buffer(name, shape, dtype, data=data, **kwargs)


class Stmt:
    __slots__ = ()
    script = node_script

    def same_as(self, other: object) -> bool:
        """TVM's reference identity: the very same node object."""
        return self is other


@dataclass(frozen=True, slots=True)
class BufferStore(Stmt):
    buffer: Buffer
    value: PrimExpr
    indices: tuple[PrimExpr, ...]
    span: Span | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        # TVM's constructor takes Python numbers and a list: `BufferStore(A, 0.1, [0, i])`
        if not isinstance(self.value, PrimExpr):
            object.__setattr__(self, "value", const(self.value, self.buffer.dtype))
        if type(self.indices) is not tuple:
            object.__setattr__(self, "indices", tuple(const(i) for i in self.indices))


class ForKind(enum.Enum):
    SERIAL = "serial"
    PARALLEL = "parallel"
    VECTORIZED = "vectorized"
    UNROLLED = "unroll"
    THREAD_BINDING = "thread_binding"

    def __eq__(self, other: object) -> bool:  # NOTE: TVM code compares kinds with TVM's ints
        if isinstance(other, int) and not isinstance(other, bool):
            return _FOR_KIND_CODES[self.value] == other
        return self is other

    __hash__ = enum.Enum.__hash__


_FOR_KIND_CODES = {"serial": 0, "parallel": 1, "vectorized": 2, "unroll": 3, "thread_binding": 4}


class _ForMeta(type):
    """Accepts TVM's keywords too: `For(..., thread_binding=IterVar, annotations={...})`, and
    Python ints for `min` / `extent`."""

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        binding = kwargs.pop("thread_binding", None)
        if binding is not None:
            kwargs["thread_tag"] = binding.thread_tag
        if isinstance(kwargs.get("annotations"), dict):
            kwargs["annotations"] = tuple(kwargs["annotations"].items())
        for k, key in ((1, "min"), (2, "extent")):
            if len(args) > k and isinstance(args[k], int):
                args = (*args[:k], const(args[k], args[0].dtype), *args[k + 1:])
            elif isinstance(kwargs.get(key), int):
                kwargs[key] = const(kwargs[key], (args[0] if args else kwargs["loop_var"]).dtype)
        return super().__call__(*args, **kwargs)


@dataclass(frozen=True, slots=True)
class For(Stmt, metaclass=_ForMeta):
    loop_var: Var
    min: PrimExpr
    extent: PrimExpr
    kind: ForKind
    body: Stmt
    thread_tag: str | None = None  # "threadIdx.x" etc. for THREAD_BINDING
    annotations: tuple[tuple[str, Any], ...] = ()
    span: Span | None = field(default=None, compare=False, repr=False)
    # TVM 0.27's loop step (`T.serial(lo, hi, step=2)`): the values lo, lo + step, ... below
    # lo + extent; None is 1. `tir.lower` rewrites stepped loops to unit steps first.
    step: PrimExpr | None = field(default=None, kw_only=True)

    @property
    def thread_binding(self) -> IterVar | None:
        """TVM's view of a thread-bound loop: the thread's IterVar (None for other loops)."""
        if self.kind is not ForKind.THREAD_BINDING:
            return None
        return IterVar(self.loop_var, Range(self.min, self.extent), IterType.THREAD,
                       self.thread_tag or "")


@dataclass(frozen=True, slots=True)
class SeqStmt(Stmt):
    seq: tuple[Stmt, ...]
    span: Span | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if type(self.seq) is not tuple or any(type(x) is SeqStmt for x in self.seq):
            flat: list[Stmt] = []  # a list, or nested sequences: one flat tuple, as TVM keeps
            for x in self.seq:
                flat.extend(x.seq if type(x) is SeqStmt else (x,))
            object.__setattr__(self, "seq", tuple(flat))

    def __getitem__(self, i: int) -> Stmt:  # TVM users write func.body[0]
        return self.seq[i]

    def __len__(self) -> int:
        return len(self.seq)

    def __bool__(self) -> bool:  # NOTE: a statement is always "something", even when empty
        return True


@dataclass(frozen=True, slots=True)
class IfThenElse(Stmt):
    condition: PrimExpr
    then_case: Stmt
    else_case: Stmt | None = None
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class While(Stmt):
    """`while condition: body` (TVMScript's `while`); the condition is re-read every turn."""

    condition: PrimExpr
    body: Stmt
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class LetStmt(Stmt):
    var: Var
    value: PrimExpr
    body: Stmt
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Evaluate(Stmt):
    value: PrimExpr
    span: Span | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if isinstance(self.value, (bool, int, float)):  # `Evaluate(0)`, as TVM accepts
            object.__setattr__(self, "value", const(self.value))


@dataclass(frozen=True, slots=True)
class AssertStmt(Stmt):
    condition: PrimExpr
    message: str
    body: Stmt
    span: Span | None = field(default=None, compare=False, repr=False)
    kind: str = "RuntimeError"  # TVM 0.27's error kind; kept for printing (raised as an error)


@dataclass(frozen=True, slots=True)
class Allocate(Stmt):
    """Storage for `buffer` that lives while `body` runs (what alloc_buffer lowers to)."""

    buffer: Buffer
    body: Stmt
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class DeclBuffer(Stmt):
    """`T.decl_buffer` / a `T.Buffer` view over existing data, visible in `body`; without a
    body, TVM 0.27's flat form: visible in the statements after it (see `Bind`)."""

    buffer: Buffer
    body: Stmt | None = None
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Bind(Stmt):
    """TVM 0.27's flat `v: T.let[dtype] = value`: `var` holds `value` in the statements after
    it in the enclosing sequence. `tir.nest_flat` turns it into the `LetStmt` over them that
    the passes and codegen read."""

    var: Var
    value: PrimExpr
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class AllocBuffer(Stmt):
    """TVM 0.27's flat `B = T.alloc_buffer(...)` outside blocks: storage for `buffer` that
    lives for the statements after it (nested into an `Allocate` by `tir.nest_flat`)."""

    buffer: Buffer
    span: Span | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class AttrStmt(Stmt):
    """`with T.attr(node, key, value):` a hint about `node` over `body`; with key
    "thread_extent" and an IterVar node, a GPU thread launch (`T.launch_thread`)."""

    node: Any  # IterVar, Var, Buffer, StringImm or IntImm
    attr_key: str
    value: PrimExpr
    body: Stmt
    span: Span | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if isinstance(self.value, (bool, int, float)):  # `AttrStmt(iv, key, 1, body)`, as TVM
            object.__setattr__(self, "value", const(self.value))


# ---------------------------------------------------------------------------------------------
# Blocks


@dataclass(frozen=True, slots=True)
class Range:
    script = node_script
    min: PrimExpr
    extent: PrimExpr

    @staticmethod
    def from_extent(extent: Any) -> Range:
        e = const(extent)
        return Range(IntImm(e.dtype, 0), e)


class IterType(enum.Enum):
    SPATIAL = "S"
    REDUCE = "R"
    OPAQUE = "O"
    THREAD = "T"  # a GPU thread index (`T.env_thread`, `T.launch_thread`)


# TVM's IterVar kinds by code (`tirx.IterVar.DataPar` is 0, ...); the ones tvmlite models
_ITER_TYPE_CODES = {0: IterType.SPATIAL, 1: IterType.THREAD, 2: IterType.REDUCE,
                    4: IterType.OPAQUE}


class _IterVarMeta(type):
    """Accepts TVM's constructor too: `IterVar(dom, var, iter_type, thread_tag="")`, where
    `dom` is a Range, a (begin, end) pair or None, `var` a Var or a name, `iter_type` a code."""

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        if args and not isinstance(args[0], Var):
            return super().__call__(**_iter_var_from_tvm(*args, **kwargs))
        return super().__call__(*args, **kwargs)


def _iter_var_from_tvm(dom: Any, var: Any, iter_type: Any, thread_tag: str = "",
                       span: Any = None) -> dict[str, Any]:
    if isinstance(dom, (tuple, list)):
        lo, hi = (const(d) for d in dom)
        both = isinstance(lo, IntImm) and isinstance(hi, IntImm)
        dom = Range(lo, IntImm(hi.dtype, hi.value - lo.value) if both else hi - lo)
    if not isinstance(var, Var):
        var = Var(str(var), dom.extent.dtype if dom is not None else "int32")
    if not isinstance(iter_type, IterType):
        if iter_type not in _ITER_TYPE_CODES:
            raise ValueError(f"IterVar: iter_type {iter_type} (TVM's code) is not modelled "
                             "in tvmlite (DataPar, ThreadIndex, CommReduce and Opaque are)")
        iter_type = _ITER_TYPE_CODES[iter_type]
    return {"var": var, "dom": dom, "iter_type": iter_type, "thread_tag": thread_tag}


@dataclass(frozen=True, slots=True)
class IterVar(metaclass=_IterVarMeta):
    script = node_script
    var: Var
    dom: Range | None
    iter_type: IterType
    thread_tag: str = ""
    # TVM's kind codes, for `IterVar(dom, var, IterVar.DataPar)`
    DataPar, ThreadIndex, CommReduce, Opaque = 0, 1, 2, 4


@dataclass(frozen=True, slots=True)
class BufferRegion:
    script = node_script
    buffer: Buffer
    region: tuple[Range, ...]


@dataclass(frozen=True, slots=True)
class MatchBufferRegion:
    buffer: Buffer
    source: BufferRegion


@dataclass(frozen=True, slots=True)
class Block(Stmt):
    name: str
    iter_vars: tuple[IterVar, ...]
    body: Stmt
    reads: tuple[BufferRegion, ...] = ()
    writes: tuple[BufferRegion, ...] = ()
    init: Stmt | None = None
    alloc_buffers: tuple[Buffer, ...] = ()
    match_buffers: tuple[MatchBufferRegion, ...] = ()
    annotations: tuple[tuple[str, Any], ...] = ()
    span: Span | None = field(default=None, compare=False, repr=False)

    @property
    def name_hint(self) -> str:
        """TVM's name of the block's name (`sch.get(block_rv).name_hint`)."""
        return self.name


@dataclass(frozen=True, slots=True)
class BlockRealize(Stmt):
    """A block instance: `iter_values[i]` binds `block.iter_vars[i]`; runs when `predicate`."""

    iter_values: tuple[PrimExpr, ...]
    predicate: PrimExpr
    block: Block
    span: Span | None = field(default=None, compare=False, repr=False)


SBlock, SBlockRealize = Block, BlockRealize  # TVM 0.27's names


def loop_jump(word: str, span: Span | None = None) -> Evaluate:
    """`break` / `continue` as TVM 0.27 writes them: `T.evaluate(T.break_loop())`."""
    from .expr import Call

    return Evaluate(Call("void", f"tir.{word}_loop", ()), span)


def jump_of(s: Any) -> str | None:
    """"break" / "continue" when `s` is that statement (see loop_jump), else None."""
    if type(s) is Evaluate:
        v = s.value
        if getattr(v, "op", None) in ("tir.break_loop", "tir.continue_loop") and not v.args:
            return v.op[4:-5]
    return None


def seq(stmts: list[Stmt]) -> Stmt:
    """One statement for a list: a lone statement stays itself, nested sequences flatten."""
    flat: list[Stmt] = []
    for s in stmts:
        flat.extend(s.seq if isinstance(s, SeqStmt) else (s,))
    return flat[0] if len(flat) == 1 else SeqStmt(tuple(flat))
