"""Prints a `tir.PrimFunc` as TVMScript that our parser reads back to an equal function.

Style follows TVM 0.27 (`@T.prim_func(s_tir=True)`, `T.sblock`, `# with T.sblock("root"):`,
`T.alloc_buffer((1, 128))` without the default dtype, `T.float32(0.0)`), restricted to the
forms the parser rebuilds exactly: block iterators print as one `T.axis.remap` only when every
iterator is a plain loop variable over that loop's domain.
"""

from __future__ import annotations

from typing import Any

from ...tir import expr as tx
from ...tir import stmt as ts
from ...tir.expr_nodes import CommReducer
from ...tir.function import PrimFunc
from .common import ExprPrinter, Namer, decorator_options, q, value_text
from .source_marks import WATCHED, mark_lines

IND = "    "


class TIRPrinter:
    def __init__(self, namer: Namer | None = None, marks: dict[int, str] | None = None) -> None:
        self.namer = namer or Namer()
        self.expr = ExprPrinter(self.name_of)
        self.lines: list[str] = []
        self.depth = 0
        self.loops: dict[tx.Var, ts.For] = {}
        # statements to point at (by id): each prints under a `# label` comment, every line
        # underlined; TVM then prints without sugar (no T.grid, an explicit root block)
        self.marks = marks or {}
        self.sugar = not self.marks

    # -- names ------------------------------------------------------------------------------

    def name_of(self, obj: Any) -> str:
        hint = obj.name if isinstance(obj, (tx.Var, ts.Buffer)) else "v"
        return self.namer.get(obj, hint)

    def define_buffer(self, buf: ts.Buffer) -> str:
        name = self.namer.define(buf, buf.name)
        if buf.data is not None and not self.namer.has(buf.data):
            self.namer.alias(buf.data, f"{name}.data", owner=buf)
        return name

    def emit(self, text: str) -> None:
        self.lines.append(IND * self.depth + text)

    def body(self, stmt: ts.Stmt | None) -> None:
        """Print `stmt` one level deeper, in its own scope."""
        self.depth += 1
        with self.namer.scope():
            n = len(self.lines)
            if stmt is not None:
                self.stmt(stmt)
            if len(self.lines) == n:
                self.emit("pass")
        self.depth -= 1

    # -- the function -----------------------------------------------------------------------

    def function(self, f: PrimFunc, name: str, in_module: bool) -> list[str]:
        attrs, opts = decorator_options(f.attrs, name)
        if attrs.pop("s_tir", False) or _has_blocks(f.body):
            opts.append("s_tir=True")
        deco = "@T.prim_func" + (f"({', '.join(opts)})" if opts else "")
        with self.namer.scope():
            handles = [h for h, buf in f.buffer_map if _needs_handle(buf)]
            params = [self._param(f, v, v in handles) for v in f.params]
            ret = f" -> T.{f.ret_dtype}" if f.ret_dtype != "void" else ""
            self.emit(deco)
            self.emit(f"def {name}({', '.join(params)}){ret}:")
            self.depth += 1
            start = len(self.lines)
            if attrs:
                self.emit(f"T.func_attr({value_text(attrs, self.expr)})")
            for v in _free_vars(f):
                if not self.namer.has(v):
                    self.emit(f"{self.namer.define(v, v.name)} = T.{v.dtype}()")
            self.env_threads = _shared_thread_vars(f.body)
            for v, tag in self.env_threads.items():
                self.emit(f"{self.namer.define(v, v.name)} = T.env_thread({q(tag)})")
            for h in handles:
                buf = f.buffer_of(h)
                bname = self.define_buffer(buf)
                self.emit(f"{bname} = T.match_buffer({self.name_of(h)}, "
                          f"{self._buffer_args(buf, True)})")
            self._func_body(f.body)
            if len(self.lines) == start:
                self.emit("pass")
            self.depth -= 1
        return self.lines

    def _param(self, f: PrimFunc, v: tx.Var, as_handle: bool) -> str:
        buf = f.buffer_of(v)
        if buf is None or as_handle:
            return f"{self.namer.define(v, v.name)}: T.{v.dtype}"
        self.namer.keep.append(v)
        name = self.define_buffer(buf)
        return f"{name}: T.Buffer({self._buffer_args(buf, True)})"

    def _alias_own_offset(self, buf: ts.Buffer, name: str) -> None:
        """A matched region's offset variable (made by `offset_factor=`) prints as
        `A0.elem_offset`, as its `data` prints as `A0.data`."""
        off = buf.elem_offset
        if isinstance(off, tx.Var) and buf.offset_factor and not self.namer.has(off):
            self.namer.alias(off, f"{name}.elem_offset")

    def _is_own_offset(self, buf: ts.Buffer) -> bool:
        off = buf.elem_offset
        return (isinstance(off, tx.Var) and self.namer.has(off)
                and self.name_of(off).endswith(".elem_offset"))

    def _buffer_args(self, buf: ts.Buffer, with_dtype: bool) -> str:
        shape = ", ".join(self.expr(d) for d in buf.shape)
        parts = [f"({shape},)" if len(buf.shape) == 1 else f"({shape})"]
        if with_dtype or buf.dtype != "float32":
            parts.append(f'"{buf.dtype}"')
        if buf.strides:
            parts.append(f"strides=({', '.join(self.expr(s) for s in buf.strides)},)")
        if buf.elem_offset is not None and not self._is_own_offset(buf):
            parts.append(f"elem_offset={self.expr(buf.elem_offset)}")
        if buf.scope != "global":
            parts.append(f'scope="{buf.scope}"')
        if buf.offset_factor:
            parts.append(f"offset_factor={buf.offset_factor}")
        return ", ".join(parts)

    def _func_body(self, body: ts.Stmt) -> None:
        root = body.block if isinstance(body, ts.BlockRealize) else None
        # NOTE: a root block with nothing of its own (create_prim_func's) prints as TVM's
        # comment, as TVM prints it; reading the text back gives an equal function
        implicit = (root is not None and root.name == "root" and not root.iter_vars
                    and not (root.reads or root.writes or root.init or root.match_buffers
                             or root.annotations)
                    and _is_true(body.predicate))  # type: ignore[union-attr]
        implicit = implicit and self.sugar  # TVM's unsugared form shows the root block
        if not implicit:
            if _has_blocks(body) and root is None:  # an explicit root block prints itself
                self.emit('# with T.sblock("root"):')
            self.stmt(body)
            return
        self.emit('# with T.sblock("root"):')
        for buf in root.alloc_buffers:  # type: ignore[union-attr]
            self._alloc(buf)
        self.stmt(root.body)  # type: ignore[union-attr]

    def _alloc(self, buf: ts.Buffer) -> None:  # a block's buffer, as TVM 0.27 names it
        name = self.define_buffer(buf)
        self.emit(f"{name} = T.sblock_alloc_buffer({self._buffer_args(buf, False)})")

    # -- statements -------------------------------------------------------------------------

    def stmt(self, s: ts.Stmt) -> None:
        label = self.marks.get(id(s))
        if label is None:
            start = len(self.lines)
            getattr(self, "_" + type(s).__name__)(s)
            if WATCHED:
                mark_lines(s, self.lines, start)
            return
        self.emit(f"# {label}")
        start = len(self.lines)
        getattr(self, "_" + type(s).__name__)(s)
        marked, self.lines[start:] = self.lines[start:], []
        comments = {f"# {m}" for m in self.marks.values()}
        for k, line in enumerate(marked):
            text = line.lstrip(" ")
            self.lines.append(line)
            underlined = k + 1 < len(marked) and not marked[k + 1].strip(" ^")
            if text in comments or not text.strip("^") or underlined:
                continue  # a nested mark's comment or carets, or a line it underlines
            self.lines.append(" " * (len(line) - len(text)) + "^" * len(text))

    def _SeqStmt(self, s: ts.SeqStmt) -> None:
        for x in s.seq:
            self.stmt(x)

    def _BufferStore(self, s: ts.BufferStore) -> None:
        lhs = f"{self.name_of(s.buffer)}[{self.expr.indices(s.indices)}]"
        self.emit(f"{lhs} = {self.expr(s.value, s.buffer.dtype)}")

    def _Evaluate(self, s: ts.Evaluate) -> None:
        jump = ts.jump_of(s)
        if jump is not None:  # TVM 0.27 prints `break` as the intrinsic's bare call
            self.emit(f"T.{jump}_loop()")
            return
        v = s.value
        if isinstance(v, tx.Call) and v.op == "tir.ret" and len(v.args) == 1 \
                and v.dtype == v.args[0].dtype:
            self.emit(f"return {self.expr(v.args[0])}")
            return
        self.emit(f"T.evaluate({self.expr(v)})")

    def _LetStmt(self, s: ts.LetStmt | ts.Bind) -> None:
        # TVM 0.27 prints its (flat) Bind so; a bare `x: T.int32 = v` is a local scalar there
        value = self.expr(s.value)
        self.emit(f"{self.namer.define(s.var, s.var.name)}: T.let[T.{s.var.dtype}] = {value}")
        if isinstance(s, ts.LetStmt):
            self.stmt(s.body)

    _Bind = _LetStmt

    def _AssertStmt(self, s: ts.AssertStmt) -> None:
        self.emit(f"assert {self.expr(s.condition)}, ({q(s.kind)}, [{q(s.message)}])")
        self.stmt(s.body)

    def _DeclBuffer(self, s: ts.DeclBuffer) -> None:
        buf = s.buffer
        view = self._view_of(buf)
        data = ""
        if buf.data is not None and self.namer.has(buf.data):
            data = f", data={self.name_of(buf.data)}"
        name = self.define_buffer(buf)
        self.emit(f"{name} = {view}" if view else
                  f"{name} = T.decl_buffer({self._buffer_args(buf, False)}{data})")
        if s.body is not None:  # TVM 0.27's flat form has none
            self.stmt(s.body)

    def _view_of(self, buf: ts.Buffer) -> str | None:
        """TVM 0.27's `A.view(256, 256)` / `A.view("int32")`: a buffer over the whole data of
        a buffer `A` in scope, differing from it only in shape or only in dtype."""
        name = self.namer.names.get(id(buf.data)) if buf.data is not None else None
        if name is None or not name.endswith(".data") or buf.strides or \
                buf.elem_offset is not None or buf.offset_factor:
            return None
        base = self.namer.owner_of(buf.data)
        if not isinstance(base, ts.Buffer) or base.scope != buf.scope or base.strides or \
                base.elem_offset is not None:
            return None
        same_shape = len(base.shape) == len(buf.shape) and all(
            _same_dim(a, b) for a, b in zip(base.shape, buf.shape))
        if same_shape == (base.dtype == buf.dtype):  # the same buffer, or both changed
            return None
        args = q(buf.dtype) if same_shape else ", ".join(self.expr(d) for d in buf.shape)
        return f"{name[:-len('.data')]}.view({args})"

    def _Allocate(self, s: ts.Allocate) -> None:
        name = self.define_buffer(s.buffer)
        self.emit(f"{name} = T.allocate({self._buffer_args(s.buffer, True)})")
        self.stmt(s.body)

    def _AllocBuffer(self, s: ts.AllocBuffer) -> None:
        name = self.define_buffer(s.buffer)
        self.emit(f"{name} = T.alloc_buffer({self._buffer_args(s.buffer, False)})")

    def _AttrStmt(self, s: ts.AttrStmt) -> None:
        node = s.node
        if isinstance(node, ts.IterVar) and s.attr_key == "thread_extent":
            if node.var in getattr(self, "env_threads", {}):  # launched more than once
                self.emit(f"with T.launch_thread({self.name_of(node.var)}, "
                          f"{self.expr(s.value)}):")
                self.body(s.body)
                return
            with self.namer.scope():
                name = self.namer.define(node.var, node.var.name)
                self.emit(f"with T.launch_thread({q(node.thread_tag)}, {self.expr(s.value)}) "
                          f"as {name}:")
                self.body(s.body)
            return
        what = self._comm_reducer(node) if isinstance(node, CommReducer) else \
            self.name_of(node) if isinstance(node, (tx.Var, ts.Buffer)) else \
            self.expr(node) if isinstance(node, tx.PrimExpr) else value_text(node, self.expr)
        self.emit(f"with T.attr({what}, {q(s.attr_key)}, {self.expr(s.value)}):")
        self.body(s.body)

    def _comm_reducer(self, r: CommReducer) -> str:
        """`T.comm_reducer(lambda x, y: x + y, [T.float32(0.0)])`."""
        with self.namer.scope():
            params = ", ".join(self.namer.define(v, v.name) for v in r.lhs + r.rhs)
            result = [self.expr(e) for e in r.result]
        body = result[0] if len(result) == 1 else f"({', '.join(result)})"
        ident = ", ".join(self.expr(e) for e in r.identity_element)
        return f"T.comm_reducer(lambda {params}: {body}, [{ident}])"

    def _IfThenElse(self, s: ts.IfThenElse) -> None:
        self.emit(f"if {self.expr(s.condition)}:")
        self.body(s.then_case)
        if s.else_case is not None:
            self.emit("else:")
            self.body(s.else_case)

    def _While(self, s: ts.While) -> None:
        self.emit(f"while {self.expr(s.condition)}:")
        self.body(s.body)

    def _For(self, s: ts.For) -> None:
        loops = [s]
        while self.sugar and _grid_next(loops[-1]) is not None:
            loops.append(_grid_next(loops[-1]))  # type: ignore[arg-type]
        with self.namer.scope():
            names = [self.namer.define(f.loop_var, f.loop_var.name) for f in loops]
            for f in loops:
                self.loops[f.loop_var] = f
            if len(loops) > 1:
                extents = ", ".join(self.expr(f.extent) for f in loops)
                self.emit(f"for {', '.join(names)} in T.grid({extents}):")
            else:
                self.emit(f"for {names[0]} in {self._loop_iter(s)}:")
            self.body(loops[-1].body)

    def _loop_iter(self, s: ts.For) -> str:
        zero = isinstance(s.min, tx.IntImm) and s.min.value == 0 and s.min.dtype == s.extent.dtype
        bounds = self.expr(s.extent) if zero and s.step is None else \
            f"{self.expr(s.min)}, {self.expr(_loop_end(s))}"
        extra = ""
        if s.kind is ts.ForKind.THREAD_BINDING:
            extra = f", thread={q(s.thread_tag or '')}"
        if s.annotations:
            extra += f", annotations={value_text(dict(s.annotations), self.expr)}"
        if s.kind is ts.ForKind.SERIAL and not extra:  # TVM 0.27: range(lo, hi, step)
            step = f", {self.expr(s.step)}" if s.step is not None else ""
            return f"range({bounds}{step})"
        if s.step is not None:
            extra = f", step={self.expr(s.step)}" + extra
        return f"T.{s.kind.value}({bounds}{extra})"

    def _BlockRealize(self, s: ts.BlockRealize) -> None:
        self.emit(f"with T.sblock({q(s.block.name)}):")
        self._block(s.block, s.iter_values, s.predicate)

    def _Block(self, b: ts.Block) -> None:
        """A block on its own (no binding of its iterators), as TVM prints one."""
        self.emit(f"with T.sblock({q(b.name)}, no_realize=True):")
        self._block(b, (None,) * len(b.iter_vars), None)

    def _block(self, b: ts.Block, values: tuple[Any, ...], predicate: Any) -> None:
        self.depth += 1
        with self.namer.scope():
            self._iter_vars(b, values)
            if predicate is not None and not _is_true(predicate):
                self.emit(f"T.where({self.expr(predicate)})")
            loads, stores = _touched(b)
            if b.reads or not loads:  # TVM prints the (inferred) lists, empty ones too
                self.emit(f"T.reads({self._regions(b.reads)})")
            if b.writes or not stores:
                self.emit(f"T.writes({self._regions(b.writes)})")
            if b.annotations:
                self.emit(f"T.block_attr({value_text(dict(b.annotations), self.expr)})")
            for buf in b.alloc_buffers:
                self._alloc(buf)
            for m in b.match_buffers:
                name = self.define_buffer(m.buffer)
                self._alias_own_offset(m.buffer, name)
                self.emit(f"{name} = T.match_buffer({self._region(m.source)}, "
                          f"{self._buffer_args(m.buffer, True)})")
            if b.init is not None:
                self.emit("with T.init():")
                self.body(b.init)
            n = len(self.lines)
            self.stmt(b.body)
            if len(self.lines) == n:
                self.emit("T.evaluate(0)")
        self.depth -= 1

    def _iter_vars(self, b: ts.Block, values: tuple[tx.PrimExpr, ...]) -> None:
        """Runs of two or more remappable iterators print as one `T.axis.remap`, as in TVM."""
        run: list[tuple[ts.IterVar, tx.PrimExpr]] = []
        for iv, v in zip(b.iter_vars, values):
            if self._remappable(iv, v):
                run.append((iv, v))
                continue
            self._remap(run)
            run = []
            self._axis([(iv, v)])
        self._remap(run)

    def _remap(self, pairs: list[tuple[ts.IterVar, tx.PrimExpr]]) -> None:
        if len(pairs) < 2:
            return self._axis(pairs)
        names = [self.namer.define(iv.var, iv.var.name) for iv, _ in pairs]
        kinds = "".join(iv.iter_type.value for iv, _ in pairs)
        loops = ", ".join(self.expr(v) for _, v in pairs)
        self.emit(f'{", ".join(names)} = T.axis.remap("{kinds}", [{loops}])')
        return None

    def _axis(self, pairs: list[tuple[ts.IterVar, tx.PrimExpr]]) -> None:
        kinds = {"S": "spatial", "R": "reduce", "O": "opaque"}
        for iv, v in pairs:
            value = "" if v is None else ", " + self.expr(v)
            zero = isinstance(iv.dom.min, tx.IntImm) and iv.dom.min.value == 0
            dom = self.expr(iv.dom.extent, iv.var.dtype) if zero else \
                f"({self.expr(iv.dom.min)}, {self.expr(iv.dom.min + iv.dom.extent)})"
            name = self.namer.define(iv.var, iv.var.name)
            self.emit(f"{name} = T.axis.{kinds[iv.iter_type.value]}({dom}{value})")

    def _remappable(self, iv: ts.IterVar, value: tx.PrimExpr) -> bool:
        loop = self.loops.get(value) if isinstance(value, tx.Var) else None
        return (loop is not None and iv.iter_type.value in "SR" and iv.var.dtype == value.dtype
                and iv.dom == ts.Range(loop.min, loop.extent))

    def _regions(self, regions: tuple[ts.BufferRegion, ...]) -> str:
        return ", ".join(self._region(r) for r in regions)

    def _region(self, r: ts.BufferRegion) -> str:
        parts = []
        for rng in r.region:
            one = isinstance(rng.extent, tx.IntImm) and rng.extent.value == 1 and \
                rng.extent.dtype == rng.min.dtype
            end = rng.min + rng.extent
            if isinstance(rng.min, tx.IntImm) and isinstance(rng.extent, tx.IntImm):
                end = tx.IntImm(rng.extent.dtype, rng.min.value + rng.extent.value)
            if one:
                parts.append(self.expr(rng.min))
            else:
                parts.append(f"{self.expr(rng.min)}:{self.expr(end)}")
        return f"{self.name_of(r.buffer)}[{', '.join(parts) if parts else '()'}]"


# ---------------------------------------------------------------------------------------------


def _is_true(e: tx.PrimExpr) -> bool:
    return isinstance(e, tx.IntImm) and e.dtype == "bool" and e.value == 1


def _loop_end(s: ts.For) -> tx.PrimExpr:
    if isinstance(s.min, tx.IntImm) and isinstance(s.extent, tx.IntImm):
        return tx.IntImm(s.extent.dtype, s.min.value + s.extent.value)
    return s.min + s.extent


def _grid_next(f: ts.For) -> ts.For | None:
    """The loop that joins `f` in one `T.grid(...)` line, if any."""
    inner = f.body
    if not isinstance(inner, ts.For):
        return None
    plain = all(x.kind is ts.ForKind.SERIAL and not x.annotations and x.step is None
                and isinstance(x.min, tx.IntImm)
                and x.min.value == 0 and x.min.dtype == x.extent.dtype for x in (f, inner))
    # NOTE: `for j in range(i)` inside `for i` cannot join it in one T.grid
    return inner if plain and f.loop_var not in _vars_of(inner.extent) else None


def _touched(b: ts.Block) -> tuple[bool, bool]:
    """Whether the block's body or init (nested blocks included) loads / stores a buffer."""
    from ...tir.functor import Visitor

    found = [False, False]

    class _Touch(Visitor):
        def visit_BufferLoad(self, e: tx.BufferLoad) -> None:
            found[0] = True
            self.generic_visit(e)

        def visit_BufferStore(self, st: ts.BufferStore) -> None:
            found[1] = True
            self.generic_visit(st)

    for part in (b.body, b.init):
        if part is not None:
            _Touch().visit(part)
    return found[0], found[1]


def _has_blocks(s: Any) -> bool:
    if isinstance(s, (ts.BlockRealize, ts.Block)):
        return True
    if isinstance(s, ts.SeqStmt):
        return any(_has_blocks(x) for x in s.seq)
    for attr in ("body", "then_case", "else_case"):
        child = getattr(s, attr, None)
        if child is not None and _has_blocks(child):
            return True
    return False


def _shared_thread_vars(body: ts.Stmt) -> dict[tx.Var, str]:
    """Thread variables launched more than once (printed as one `T.env_thread`)."""
    from ...tir.functor import Visitor

    counts: dict[tx.Var, list[Any]] = {}

    class _Launches(Visitor):
        def visit_AttrStmt(self, s: ts.AttrStmt) -> None:
            if isinstance(s.node, ts.IterVar) and s.attr_key == "thread_extent":
                counts.setdefault(s.node.var, [0, s.node.thread_tag])[0] += 1
            self.visit(s.body)

    _Launches().visit(body)
    return {v: tag for v, (n, tag) in counts.items() if n > 1}


def _needs_handle(buf: ts.Buffer) -> bool:
    """A buffer whose shape names variables prints as `T.handle` + `T.match_buffer`."""
    exprs = list(buf.shape) + list(buf.strides) + [buf.elem_offset]
    return any(_vars_of(e) for e in exprs if e is not None)


def _vars_of(e: Any) -> list[tx.Var]:
    from ...tir.function import free_vars

    return free_vars(e) if isinstance(e, tx.PrimExpr) else []


def _same_dim(a: tx.PrimExpr, b: tx.PrimExpr) -> bool:
    if isinstance(a, tx.IntImm) and isinstance(b, tx.IntImm):
        return a.value == b.value
    return a is b


def _free_vars(f: PrimFunc) -> list[tx.Var]:
    """Variables the function uses but nothing in it binds: printed as `n = T.int64()`."""
    from .walk import tir_defs_and_uses

    defs, uses = tir_defs_and_uses(f)
    return [v for v in uses if v not in defs]


def print_prim_func(f: PrimFunc, name: str | None = None, in_module: bool = False,
                    namer: Namer | None = None, marks: dict[int, str] | None = None) -> str:
    """The function as TVMScript (no header); `marks` point at statements (see TIRPrinter)."""
    fname = name or dict(f.attrs).get("global_symbol") or "main"
    return "\n".join(TIRPrinter(namer, marks).function(f, fname, in_module))
