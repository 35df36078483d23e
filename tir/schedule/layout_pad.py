"""transform_layout with padding, for the case TVM rewrites the producer in place: a buffer
`B` of n elements split as `lambda i: [i // c, i % c]` (n not a multiple of c) grows to
`(ceil(n / c), c)`, and the one block writing `B[vi]` -- vi bound to a loop of its own over
[0, n) -- instead iterates the new layout row by row, storing `pad_value` in the padding:

    for i in range(14): B[vi] = A[vi]
becomes
    for i, j in T.grid(4, 4): B[vi, vj] = T.if_then_else(vi == 3 and 2 <= vj, 0, A[vi * 4 + vj])

Every other access goes through the map. Layouts this does not cover stay refused.
"""

from __future__ import annotations

import dataclasses
from math import prod
from typing import Any

from ..expr import BinaryOp, BinOp, BufferLoad, Call, IntImm, Not, PrimExpr, Var, const
from ..function import free_vars
from ..functor import Mutator, simplify, substitute
from ..index_map import IndexMap
from ..stmt import (
    Block, BlockRealize, Buffer, BufferStore, Evaluate, For, ForKind, IterType, IterVar, Range,
    SeqStmt, Stmt, seq,
)
from . import tree
from .analysis import accesses
from .state import ScheduleError


def pad_constant(pad_value: Any, buf: Buffer, at: tuple[PrimExpr, ...] = ()) -> PrimExpr:
    """The pad value as TVM converts it: a Python int (float) takes an integer (float)
    buffer's dtype; anything else must already have the buffer's dtype. An IndexMap (a
    function of the new indices) is evaluated `at` them; it may not read a buffer."""
    from ..dtype import is_float

    if isinstance(pad_value, IndexMap):
        if len(at) != pad_value.ndim or len(pad_value.final_indices) != 1:
            raise ScheduleError(f"transform_layout: pad_value must map the {len(at)} new "
                                f"indices of buffer {buf.name!r} to one value")
        value = pad_value.map_indices(list(at))[0]
        if _reads_buffer(value):
            raise ScheduleError(f"transform_layout: pad_value {value} of buffer {buf.name!r} "
                                f"may not read a buffer")
        pad_value = value
    if isinstance(pad_value, bool) or not isinstance(pad_value, (int, float, PrimExpr)):
        raise ScheduleError(f"transform_layout: pad_value must be a number or an expression "
                            f"of buffer {buf.name!r}'s dtype {buf.dtype}, got {pad_value!r}")
    if isinstance(pad_value, int) and not is_float(buf.dtype):
        return IntImm(buf.dtype, pad_value)
    if isinstance(pad_value, float) and is_float(buf.dtype):
        return const(pad_value, buf.dtype)
    value = const(pad_value)
    if value.dtype != buf.dtype:
        raise ScheduleError(f"transform_layout: pad_value {pad_value!r} has dtype {value.dtype} "
                            f"but buffer {buf.name!r} holds {buf.dtype}")
    return value


def _reads_buffer(e: PrimExpr) -> bool:
    from ..functor import Visitor

    class _Loads(Visitor):
        found = False

        def visit_BufferLoad(self, x: BufferLoad) -> None:
            self.found = True

    finder = _Loads()
    finder.visit(e)
    return finder.found


@dataclasses.dataclass(frozen=True)
class _SplitForm:
    """A 1-d map `lambda i: [..., (i + b) // c, ..., (i + b) % c, ...]`, other outputs
    constants: `slots` holds "q", "r" or the constant for each output."""

    c: int
    b: int
    slots: tuple[Any, ...]

    def outer(self, n: int) -> int:
        return -(-(n + self.b) // self.c)

    def extents(self, n: int) -> list[int]:
        return [self.outer(n) if x == "q" else self.c if x == "r" else 1 for x in self.slots]

    def recover(self, new: list[Var]) -> PrimExpr:
        """The old index the new indices stand for: `q * c + r - b`."""
        q, r = new[self.slots.index("q")], new[self.slots.index("r")]
        dtype = q.dtype
        out: PrimExpr = BinOp(BinaryOp.ADD, BinOp(BinaryOp.MUL, q, const(self.c, dtype)), r)
        return BinOp(BinaryOp.SUB, out, const(self.b, dtype)) if self.b else out

    def padding(self, new: list[Var], n: int) -> PrimExpr:
        """Whether the new indices fall in the padding: before the offset in the first row,
        past the end in the last one (TVM's form)."""
        q, r = new[self.slots.index("q")], new[self.slots.index("r")]
        dtype = q.dtype
        terms: list[PrimExpr] = []
        if self.b:
            terms.append(BinOp(BinaryOp.AND, BinOp(BinaryOp.EQ, q, const(0, dtype)),
                               BinOp(BinaryOp.LT, r, const(self.b, dtype))))
        if (n + self.b) % self.c:
            terms.append(BinOp(BinaryOp.AND,
                               BinOp(BinaryOp.EQ, q, const(self.outer(n) - 1, dtype)),
                               BinOp(BinaryOp.GE, r, const((n + self.b) % self.c, dtype))))
        out = terms[0]
        for t in terms[1:]:
            out = BinOp(BinaryOp.OR, out, t)
        return out


def _split_form(index_map: IndexMap) -> _SplitForm | None:
    if index_map.ndim != 1:
        return None
    (i,) = index_map.initial_indices
    slots: list[Any] = []
    found: dict[str, tuple[int, int]] = {}
    for e in index_map.final_indices:
        e = simplify(e)
        if isinstance(e, IntImm):
            slots.append(e.value)
            continue
        kind = {BinaryOp.FLOORDIV: "q", BinaryOp.DIV: "q", BinaryOp.FLOORMOD: "r",
                BinaryOp.MOD: "r"}.get(e.op) if isinstance(e, BinOp) else None
        if kind is None or kind in found or not isinstance(e.b, IntImm) or e.b.value <= 0:
            return None
        offset = 0 if e.a is i else _offset(e.a, i)
        if offset is None:
            return None
        found[kind] = (e.b.value, offset)
        slots.append(kind)
    if set(found) != {"q", "r"} or found["q"] != found["r"]:
        return None
    c, b = found["q"]
    return _SplitForm(c, b, tuple(slots))


def _offset(e: PrimExpr, i: Var) -> int | None:
    """b when `e` is `i + b` (b >= 0 a constant)."""
    if isinstance(e, BinOp) and e.op is BinaryOp.ADD and e.a is i and isinstance(e.b, IntImm) \
            and e.b.value >= 0:
        return e.b.value
    return None


@dataclasses.dataclass(frozen=True)
class _SymbolicSplit:
    """`lambda i: [i // c, i % c]` with a symbolic c, in TVM's written forms: the outer
    extent `(-n % c + n) // c`, the padding `-n % c != 0 and x // c == n // c and n % c <=
    x % c` for the recovered index x = `r + q * c`."""

    c: PrimExpr
    slots: tuple[Any, ...] = ("q", "r")

    def extents(self, n: int) -> list[PrimExpr]:
        nn = IntImm(self.c.dtype, n)
        rem = BinOp(BinaryOp.FLOORMOD, IntImm(self.c.dtype, -n), self.c)
        return [BinOp(BinaryOp.FLOORDIV, BinOp(BinaryOp.ADD, rem, nn), self.c), self.c]

    def recover(self, new: list[Var]) -> PrimExpr:
        return BinOp(BinaryOp.ADD, new[1], BinOp(BinaryOp.MUL, new[0], self.c))

    def padding(self, new: list[Var], n: int) -> PrimExpr:
        dt = self.c.dtype
        x, nn = self.recover(new), IntImm(dt, n)
        some = BinOp(BinaryOp.NE, BinOp(BinaryOp.FLOORMOD, IntImm(dt, -n), self.c),
                     IntImm(dt, 0))
        last = BinOp(BinaryOp.EQ, BinOp(BinaryOp.FLOORDIV, x, self.c),
                     BinOp(BinaryOp.FLOORDIV, nn, self.c))
        tail = BinOp(BinaryOp.LE, BinOp(BinaryOp.FLOORMOD, nn, self.c),
                     BinOp(BinaryOp.FLOORMOD, x, self.c))
        return BinOp(BinaryOp.AND, BinOp(BinaryOp.AND, some, last), tail)


def symbolic_split(index_map: IndexMap) -> _SymbolicSplit | None:
    """The form of `lambda i: [i // c, i % c]` when c is not a constant."""
    if index_map.ndim != 1 or len(index_map.final_indices) != 2:
        return None
    (i,), (q, r) = index_map.initial_indices, index_map.final_indices
    if isinstance(q, BinOp) and q.op is BinaryOp.FLOORDIV and q.a is i and \
            isinstance(r, BinOp) and r.op is BinaryOp.FLOORMOD and r.a is i and \
            q.b is r.b and not isinstance(q.b, IntImm):
        return _SymbolicSplit(q.b)
    return None


def _split_factor(index_map: IndexMap) -> int | None:
    """c when the map is `lambda i: [i // c, i % c]`."""
    form = _split_form(index_map)
    return form.c if form is not None and form.b == 0 and form.slots == ("q", "r") else None


class _PadStores(Mutator):
    """In the producer: `B[vi]` becomes `B'[vo, vin]`, stores guarded by the padding."""

    def __init__(self, old: Buffer, new: Buffer, vi: Var, new_idx: tuple[Var, ...],
                 pad: PrimExpr, pad_value: PrimExpr) -> None:
        self.old, self.new, self.vi, self.idx = old, new, vi, new_idx
        self.pad, self.pad_value = pad, pad_value

    def _is_point(self, idx: tuple[PrimExpr, ...]) -> bool:
        return len(idx) == 1 and idx[0] is self.vi

    def visit_BufferLoad(self, e: BufferLoad) -> PrimExpr:
        if e.buffer is self.old and self._is_point(e.indices):
            return BufferLoad(self.new, self.idx, e.span)
        return self.generic_visit(e)

    def visit_BufferStore(self, s: BufferStore) -> Stmt:
        value = self.visit(s.value)
        if s.buffer is not self.old:
            return dataclasses.replace(s, value=value, indices=self.visit(s.indices))
        guarded = Call(value.dtype, "tir.if_then_else", (self.pad, self.pad_value, value))
        return BufferStore(self.new, guarded, self.idx, s.span)


def padded_producer(func: Any, buf: Buffer, new: Buffer, index_map: IndexMap,
                    pad_value: Any) -> tuple[Stmt, BlockRealize] | None:
    """The function body with `buf`'s producer rewritten over the padded layout (and that
    producer's new BlockRealize), or None when the pattern does not apply."""
    form: Any = _split_form(index_map) or symbolic_split(index_map)
    n = buf.shape[0] if len(buf.shape) == 1 else None
    if form is None or not isinstance(n, IntImm) or (
            isinstance(form, _SplitForm) and prod(form.extents(n.value)) == n.value):
        return None
    writers = [p for p in tree.walk(func.body) if isinstance(p[-1], BlockRealize)
               and any(b is buf for b, _ in accesses(p[-1].block)[1])]
    if len(writers) != 1:
        return None
    path = writers[0]
    br: BlockRealize = path[-1]  # type: ignore[assignment]
    stores = [idx for b, idx in accesses(br.block)[1] if b is buf]
    vi = stores[0][0] if stores and len(stores[0]) == 1 else None
    if not isinstance(vi, Var) or any(len(s) != 1 or s[0] is not vi for s in stores):
        return None
    k = next((k for k, iv in enumerate(br.block.iter_vars) if iv.var is vi), None)
    if k is None or br.block.iter_vars[k].iter_type is not IterType.SPATIAL:
        return None
    loop_var = br.iter_values[k]
    lpath = tree.find(func.body, lambda s: isinstance(s, For) and s.loop_var is loop_var)
    if lpath is None:
        return None
    loop: For = lpath[-1]  # type: ignore[assignment]
    others = [v for j, v in enumerate(br.iter_values) if j != k]
    if not (isinstance(loop.min, IntImm) and loop.min.value == 0 and loop.extent == n) or \
            any(loop_var in free_vars(v) for v in others) or \
            any(loop_var in free_vars(v) for v in [br.predicate]):
        return None
    # only the producer under the loop (a perfect nest), and it has no other effect
    nest = path[len(lpath) - 1:-1]
    if any(not isinstance(s, For) or s.body is not nxt for s, nxt in zip(nest, nest[1:] +
                                                                          [br])):
        return None
    if any(b is not buf for b, _ in accesses(br.block)[1]) or br.block.alloc_buffers:
        return None
    dtype = vi.dtype
    extents = form.extents(n.value)
    names = [vi.name] + [f"{vi.name}_{j}" for j in range(1, len(extents))]
    lnames = [loop_var.name] + [f"{loop_var.name}_{j}" for j in range(1, len(extents))]
    new_ivs = [Var(name, dtype) for name in names]
    new_loops = [Var(name, dtype) for name in lnames]
    pad = form.padding(new_ivs, n.value)
    value = pad_constant(pad_value, buf, tuple(new_ivs))
    rewrite = _PadStores(buf, new, vi, tuple(new_ivs), pad, value)
    recover = {vi: form.recover(new_ivs)}
    block = br.block
    ivs = list(block.iter_vars)
    ivs[k:k + 1] = [IterVar(v, Range(const(0, dtype), _dim(e, dtype)), IterType.SPATIAL)
                    for v, e in zip(new_ivs, extents)]
    body = substitute(rewrite.visit(block.body), recover)
    init = None if block.init is None else substitute(rewrite.visit(block.init), recover)
    new_block = dataclasses.replace(block, iter_vars=tuple(ivs), body=body, init=init,
                                    reads=(), writes=())
    values = list(br.iter_values)
    values[k:k + 1] = new_loops
    new_br = dataclasses.replace(br, iter_values=tuple(values), block=new_block)
    out: Stmt = tree.replace(path[len(lpath) - 1:], new_br).body  # type: ignore[attr-defined]
    for v, e in reversed(list(zip(new_loops, extents))):
        out = For(v, const(0, dtype), _dim(e, dtype), loop.kind, out)
    return tree.replace(lpath, out), new_br


def _dim(e: Any, dtype: str) -> PrimExpr:
    return e if isinstance(e, PrimExpr) else const(e, dtype)


def padding_block(body: Stmt, buf: Buffer, new: Buffer, index_map: IndexMap,
                  pad_value: Any) -> Stmt | None:
    """After the loop nest of `buf`'s one producer (its accesses already remapped), a block
    storing `pad_value` into the padding of `new`, as TVM adds when the producer cannot be
    rewritten in place (it has other effects)."""
    c = _split_factor(index_map)
    n = buf.shape[0] if len(buf.shape) == 1 else None
    if c is None or not isinstance(n, IntImm) or n.value % c == 0:
        return None
    writers = [p for p in tree.walk(body) if isinstance(p[-1], BlockRealize)
               and any(b is new for b, _ in accesses(p[-1].block)[1])]
    if len(writers) != 1:
        return None
    path = writers[0]
    name = path[-1].block.name  # type: ignore[attr-defined]
    top = tree.exclusive_top(path)
    dtype = n.dtype
    outer = -(-n.value // c)
    i, j = Var("i", dtype), Var("j", dtype)
    vi, vj = Var("vi", dtype), Var("vj", dtype)
    where = BinOp(BinaryOp.AND, BinOp(BinaryOp.EQ, i, const(outer - 1, dtype)),
                  BinOp(BinaryOp.GE, j, const(n.value % c, dtype)))
    ivs = (IterVar(vi, Range(const(0, dtype), const(outer, dtype)), IterType.SPATIAL),
           IterVar(vj, Range(const(0, dtype), const(c, dtype)), IterType.SPATIAL))
    store = BufferStore(new, pad_constant(pad_value, buf, (vi, vj)), (vi, vj))
    pad: Stmt = BlockRealize((i, j), where, Block(f"{name}_pad_{buf.name}", ivs, store))
    pad = For(i, const(0, dtype), const(outer, dtype), ForKind.SERIAL,
              For(j, const(0, dtype), const(c, dtype), ForKind.SERIAL, pad))
    parent = path[top - 1]
    if isinstance(parent, SeqStmt):
        items = list(parent.seq)
        at = next(k for k, x in enumerate(items) if x is path[top]) + 1
        return tree.replace(path[:top], seq(items[:at] + [pad] + items[at:]))
    return tree.replace(path[:top + 1], seq([path[top], pad]))


class _PadLoopWriter(_PadStores):
    """In a loop writing `B[i]` directly by its loop var (no block iter var between): stores
    and loads of `B[i]` go to `B'[io, ii]`, and the blocks inside re-derive their regions."""

    def _is_point(self, idx: tuple[PrimExpr, ...]) -> bool:
        return len(idx) == 1 and idx[0] is self.vi

    def visit_Block(self, b: Block) -> Stmt:
        return dataclasses.replace(self.generic_visit(b), reads=(), writes=())


def padded_loop_writer(func: Any, buf: Buffer, new: Buffer, index_map: IndexMap,
                       pad_value: Any) -> Stmt | None:
    """The function body with the loop that writes `buf[i]` by its own loop var `i` over
    [0, n) rewritten over the padded layout (TVM's form for opaque writers), or None."""
    c = _split_factor(index_map)
    n = buf.shape[0] if len(buf.shape) == 1 else None
    if c is None or not isinstance(n, IntImm) or n.value % c == 0:
        return None
    stores = [p[-1].indices for p in tree.walk(func.body)
              if isinstance(p[-1], BufferStore) and p[-1].buffer is buf]
    lv = stores[0][0] if stores and len(stores[0]) == 1 else None
    if not isinstance(lv, Var) or any(len(s) != 1 or s[0] is not lv for s in stores):
        return None
    lpath = tree.find(func.body, lambda s: isinstance(s, For) and s.loop_var is lv)
    if lpath is None:
        return None
    loop: For = lpath[-1]  # type: ignore[assignment]
    if not (isinstance(loop.min, IntImm) and loop.min.value == 0 and loop.extent == n):
        return None
    dtype = lv.dtype
    outer = -(-n.value // c)
    lo, lin = Var(lv.name, dtype), Var(f"{lv.name}_1", dtype)
    pad = BinOp(BinaryOp.AND, BinOp(BinaryOp.EQ, lo, const(outer - 1, dtype)),
                BinOp(BinaryOp.GE, lin, const(n.value % c, dtype)))
    value = pad_constant(pad_value, buf, (lo, lin))
    body = _PadLoopWriter(buf, new, lv, (lo, lin), pad, value).visit(loop.body)
    body = substitute(body, {lv: BinOp(BinaryOp.ADD, BinOp(BinaryOp.MUL, lo, const(c, dtype)),
                                       lin)})
    nest = For(lo, const(0, dtype), const(outer, dtype), loop.kind,
               For(lin, const(0, dtype), const(c, dtype), loop.kind, body))
    return tree.replace(lpath, nest)


def input_assumption(body: Stmt, buf: Buffer, new: Buffer, index_map: IndexMap,
                     pad_value: Any) -> Stmt | None:
    """Before `body`, a block "buffer_<B>_assumption" stating (`T.assume`) that the padding
    of the input `new` holds `pad_value`: TVM's form when the padded buffer has no writer."""
    c = _split_factor(index_map)
    n = buf.shape[0] if len(buf.shape) == 1 else None
    if c is None or not isinstance(n, IntImm) or n.value % c == 0:
        return None
    dtype = n.dtype
    outer = -(-n.value // c)
    i, j = Var("i", dtype), Var("j", dtype)
    vi, vj = Var("vi", dtype), Var("vj", dtype)
    in_pad = BinOp(BinaryOp.AND, BinOp(BinaryOp.EQ, vi, const(outer - 1, dtype)),
                   BinOp(BinaryOp.GE, vj, const(n.value % c, dtype)))
    holds = BinOp(BinaryOp.EQ, BufferLoad(new, (vi, vj)), pad_constant(pad_value, buf, (vi, vj)))
    fact = BinOp(BinaryOp.OR, Not(in_pad), holds)
    ivs = (IterVar(vi, Range(const(0, dtype), const(outer, dtype)), IterType.SPATIAL),
           IterVar(vj, Range(const(0, dtype), const(c, dtype)), IterType.SPATIAL))
    stmt = Evaluate(Call("bool", "tir.assume", (fact,)))
    block: Stmt = BlockRealize((i, j), IntImm("bool", 1),
                               Block(f"buffer_{buf.name}_assumption", ivs, stmt))
    block = For(i, const(0, dtype), const(outer, dtype), ForKind.SERIAL,
                For(j, const(0, dtype), const(c, dtype), ForKind.SERIAL, block))
    if isinstance(body, BlockRealize) and body.block.name == "root" and not body.iter_values:
        root = dataclasses.replace(body.block, body=seq([block, body.block.body]))
        return dataclasses.replace(body, block=root)  # first thing inside the root block
    return seq([block, body])
