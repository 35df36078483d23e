"""One Visitor / Mutator base for TIR expressions and statements.

`visit(node)` dispatches to `visit_<ClassName>` (like `ast.NodeVisitor`); a missing method falls
back to `generic_visit`, which walks the node's dataclass fields. The Mutator rebuilds a node only
when one of its children changed, so untouched subtrees keep their identity (cheap `is` checks
downstream). Buffers and Vars are leaves: a Mutator that wants to replace them overrides
`visit_Var` / `visit_buffer`.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Mapping

from .expr import BinaryOp, BinOp, Cast, FloatImm, IntImm, PrimExpr, StringImm, Var
from .stmt import Buffer, ForKind, IterType, Stmt

# Classes whose fields the generic walk descends into: every IR dataclass except the leaves.
_LEAVES = (Var, Buffer, str, int, float, bool, type(None))


_FIELDS: dict[type, tuple[str, ...]] = {}
_CHILDREN: dict[type, tuple[str, ...]] = {}
# Field values the generic walk does not visit: no visitor has a `visit_str` or the like, and
# the one `generic_visit` override (codegen_vector._Check) accepts all of them.
_SCALARS = frozenset([str, int, float, bool, type(None), BinaryOp, ForKind, IterType])
_CONSTANTS = (IntImm, FloatImm, StringImm)  # nodes whose fields are all scalars


def fields_of(node: Any) -> tuple[str, ...]:
    """The child field names of an IR node (every dataclass field but `span`)."""
    cls = type(node)
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(
            f.name for f in dataclasses.fields(cls) if f.name != "span"
        )
    return names


def _children_of(cls: type) -> tuple[str, ...]:
    """The fields the generic walk visits for a node of class `cls` (none for leaves)."""
    names = _CHILDREN.get(cls)
    if names is None:
        walked = dataclasses.is_dataclass(cls) and not issubclass(cls, _LEAVES + _CONSTANTS)
        names = tuple(f.name for f in dataclasses.fields(cls) if f.name != "span") if walked else ()
        _CHILDREN[cls] = names
    return names


_INIT_FIELDS: dict[type, tuple[str, ...] | None] = {}


def _rebuilt(node: Any, changes: dict[str, Any]) -> Any:
    """`dataclasses.replace(node, **changes)`, with the class's constructor fields looked up
    once per class (replace walks them per call; Mutators rebuild ~10^5 nodes per model)."""
    cls = node.__class__
    names = _INIT_FIELDS.get(cls, ())
    if names == ():
        plain = all(f._field_type is dataclasses._FIELD  # type: ignore[attr-defined]
                    for f in cls.__dataclass_fields__.values())
        names = _INIT_FIELDS[cls] = (tuple(f.name for f in dataclasses.fields(cls) if f.init)
                                     if plain else None)
    if names is None:  # NOTE: InitVar / ClassVar pseudo-fields: replace's own rules
        return dataclasses.replace(node, **changes)
    for name in names:
        if name not in changes:
            changes[name] = getattr(node, name)
    return cls(**changes)


class Visitor:
    """Read-only walk over exprs and stmts; override `visit_<ClassName>` for the nodes you need."""

    # NOTE: per visitor class, node class -> its visit method; saves building the method name
    # and a bound method per node (the walk makes millions of calls when compiling a model)
    _dispatch: dict[type, Callable[[Any, Any], Any]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._dispatch = {}

    def visit(self, node: Any) -> Any:
        fn = self._dispatch.get(node.__class__)
        if fn is None:
            cls = type(self)
            fn = getattr(cls, "visit_" + node.__class__.__name__, None) or cls.generic_visit
            cls._dispatch[node.__class__] = fn
        return fn(self, node)

    def generic_visit(self, node: Any) -> None:
        if isinstance(node, tuple):
            for c in node:
                self.visit(c)
        elif isinstance(node, Buffer):
            self.visit_buffer(node)
        else:
            for name in _children_of(node.__class__):
                child = getattr(node, name)
                if child.__class__ not in _SCALARS:
                    self.visit(child)

    def visit_buffer(self, buf: Buffer) -> None:
        """Buffers are leaves by default (their shapes are not walked)."""


class Mutator(Visitor):
    """Rewriting walk: each `visit_*` returns the replacement node (or the same object)."""

    def generic_visit(self, node: Any) -> Any:
        if isinstance(node, tuple):
            new = [self.visit(c) for c in node]
            for a, b in zip(new, node):
                if a is not b:
                    return tuple(new)
            return node
        if isinstance(node, Buffer):
            return self.visit_buffer(node)
        changes = None
        for name in _children_of(node.__class__):
            old = getattr(node, name)
            if old.__class__ in _SCALARS:
                continue
            new = self.visit(old)
            if new is not old:
                if changes is None:
                    changes = {}
                changes[name] = new
        return _rebuilt(node, changes) if changes else node

    def visit_buffer(self, buf: Buffer) -> Buffer:  # type: ignore[override]
        return buf


class Substituter(Mutator):
    """Replaces Vars by expressions, also inside buffer shapes when `buffers=True`."""

    def __init__(self, vmap: Mapping[Var, PrimExpr], buffers: bool = False) -> None:
        self.vmap = vmap
        self.buffers = buffers
        self._buf_cache: dict[Buffer, Buffer] = {}

    def visit_Var(self, v: Var) -> PrimExpr:
        return self.vmap.get(v, v)

    def visit_buffer(self, buf: Buffer) -> Buffer:
        if not self.buffers:
            return buf
        if buf not in self._buf_cache:
            shape = tuple(self.visit(s) for s in buf.shape)
            changed = any(a is not b for a, b in zip(shape, buf.shape))
            self._buf_cache[buf] = dataclasses.replace(buf, shape=shape) if changed else buf
        return self._buf_cache[buf]


def substitute(node: Any, vmap: Mapping[Var, PrimExpr]) -> Any:
    """`node` (an expr or stmt) with every Var of `vmap` replaced by its value."""
    if not vmap:
        return node
    return Substituter(vmap).visit(node)


class _PostOrder(Visitor):
    def __init__(self, fn: Callable[[Any], None]) -> None:
        self.fn = fn

    def visit(self, n: Any) -> Any:
        super().visit(n)
        if isinstance(n, (PrimExpr, Stmt)):
            self.fn(n)


def post_order_visit(node: Any, fn: Callable[[Any], None]) -> None:
    """Calls `fn` on every PrimExpr / Stmt below `node` (children first), as TVM's helper does."""
    _PostOrder(fn).visit(node)


def any_node(root: Any, pred: Callable[[Any], bool]) -> bool:
    """Whether `pred` holds for `root` or a node below it: the values a Visitor walks (tuple
    items, IR fields; buffers are leaves). Stops at the first hit; a loop, not a visitor, as
    codegen asks it of whole kernels (several times cheaper per node)."""
    stack = [root]
    pop, push = stack.pop, stack.append
    while stack:
        node = pop()
        if pred(node):
            return True
        if isinstance(node, tuple):
            stack.extend(node)
        elif not isinstance(node, Buffer):
            for name in _children_of(node.__class__):
                child = getattr(node, name)
                if child.__class__ not in _SCALARS:
                    push(child)
    return False


# ---------------------------------------------------------------------------------------------
# A small constant folder for index arithmetic: the lowering produces `0 * 784 + k` and friends.


def _int(e: PrimExpr) -> int | None:
    return e.value if isinstance(e, IntImm) and e.dtype != "bool" else None


def _fold_ints(op: BinaryOp, a: int, b: int) -> int | None:
    if op is BinaryOp.ADD:
        return a + b
    if op is BinaryOp.SUB:
        return a - b
    if op is BinaryOp.MUL:
        return a * b
    if b == 0:
        return None
    if op is BinaryOp.FLOORDIV:
        return a // b
    if op is BinaryOp.FLOORMOD:
        return a % b
    if op is BinaryOp.DIV:  # truncating
        q = abs(a) // abs(b)
        return q if (a >= 0) == (b > 0) else -q
    if op is BinaryOp.MOD:
        return a - b * _fold_ints(BinaryOp.DIV, a, b)  # type: ignore[operator]
    return None


def _wrap(value: int, dtype: str) -> int:
    """Wraps a folded value into `dtype`'s range, as the hardware would."""
    if dtype == "int32" and -0x80000000 <= value <= 0x7FFFFFFF:
        return value  # NOTE: nearly every folded index
    from .dtype import bits, is_uint

    n = bits(dtype)
    value &= (1 << n) - 1
    return value if is_uint(dtype) or value < (1 << (n - 1)) else value - (1 << n)


class Simplifier(Mutator):
    """Folds integer constants and the identities x+0, x-0, x*1, x*0, x//1, x%1, and
    multiplies integer sums out by constants."""

    def visit(self, node: Any) -> Any:
        cls = node.__class__
        if cls is IntImm or cls is Var:
            return node  # leaves, and nearly half of all nodes in index arithmetic
        return self.visit_BinOp(node) if cls is BinOp else Mutator.visit(self, node)

    def visit_BinOp(self, e: BinOp) -> PrimExpr:
        return self._fold(e, self.visit(e.a), self.visit(e.b))

    def _fold(self, e: BinOp, a: PrimExpr, b: PrimExpr) -> PrimExpr:
        """`e` simplified, given its operands simplified (`a`, `b`)."""
        ia = a.value if a.__class__ is IntImm and a.dtype != "bool" else None
        ib = b.value if b.__class__ is IntImm and b.dtype != "bool" else None
        if ia is None and ib is None:  # NOTE: most nodes (float math, var arithmetic)
            return e if a is e.a and b is e.b else BinOp(e.op, a, b, e.span)
        if ia is not None and ib is not None and not e.op.bool_result:
            v = _fold_ints(e.op, ia, ib)
            if v is not None:
                return IntImm(e.dtype, _wrap(v, e.dtype))
        if ib is not None:
            if ib == 0 and e.op in (BinaryOp.ADD, BinaryOp.SUB):
                return a
            if ib == 1 and e.op in (BinaryOp.MUL, BinaryOp.FLOORDIV, BinaryOp.DIV):
                return a
            if ib == 1 and e.op in (BinaryOp.FLOORMOD, BinaryOp.MOD):
                return IntImm(e.dtype, 0)
            if ib == 0 and e.op is BinaryOp.MUL:
                return IntImm(e.dtype, 0)
        if ia is not None:
            if ia == 0 and e.op is BinaryOp.ADD:
                return b
            if ia == 1 and e.op is BinaryOp.MUL:
                return b
            if ia == 0 and e.op is BinaryOp.MUL:
                return IntImm(e.dtype, 0)
        if e.op is BinaryOp.MUL and e.dtype.startswith("int"):
            scaled = self._scale(a, ib) if ib is not None else None
            if scaled is None and ia is not None:
                scaled = self._scale(b, ia)
            if scaled is not None:
                return scaled
        if a is e.a and b is e.b:
            return e
        return BinOp(e.op, a, b, e.span)

    def _scale(self, x: PrimExpr, k: int) -> PrimExpr | None:
        """`x * k` in TVM's canonical form: constants distributed over sums and folded into
        products (`(i * 8 + j) * 4` -> `i * 32 + j * 4`), as TVM prints split loops."""
        if not isinstance(x, BinOp):
            return None
        # NOTE: x is simplified, so are its operands: they are folded with k as they are, not
        # simplified again (simplified expressions are fixed points of the simplifier)
        if x.op in (BinaryOp.ADD, BinaryOp.SUB):
            return BinOp(x.op, self._times(x.a, k), self._times(x.b, k), x.span)
        if x.op is BinaryOp.MUL and _int(x.b) is not None:
            return self._times(x.a, _int(x.b) * k)  # type: ignore[operator]
        if x.op is BinaryOp.MUL and _int(x.a) is not None:  # `(2 * m) * 16` -> `m * 32`
            return self._times(x.b, _int(x.a) * k)  # type: ignore[operator]
        return None

    def _times(self, x: PrimExpr, k: int) -> PrimExpr:
        """Simplified `x * k` for a simplified `x`."""
        factor = IntImm(x.dtype, k)
        return self._fold(BinOp(BinaryOp.MUL, x, factor), x, factor)

    def visit_Cast(self, e: Cast) -> PrimExpr:
        v = self.visit(e.value)
        if v.dtype == e.dtype:
            return v
        iv = _int(v)
        if iv is not None and e.dtype.startswith(("int", "uint")):
            return IntImm(e.dtype, _wrap(iv, e.dtype))
        if iv is not None and e.dtype.startswith("float"):
            return FloatImm(e.dtype, float(iv))
        return e if v is e.value else Cast(e.dtype, v, e.span)


def simplify(node: Any) -> Any:
    """`node` with constant integer arithmetic folded (floats are left alone: no reassociation)."""
    return Simplifier().visit(node)
