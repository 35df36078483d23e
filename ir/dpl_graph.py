"""Graph patterns over a dataflow block (`relax.dpl.PatternContext`), and `rewrite_bindings`.

Inside `with PatternContext() as ctx:` each `a.used_by(b)` (`a ^ b`) or `a.only_used_by(b)`
(`a >> b`) records an edge: the variable `a` matches is an operand of the binding `b` matches
(at operand position `index` when one is given; operands are the variables a value uses, in
order, so the fields of `R.call_dps_packed("f", (x, y))` are positions 0 and 1), and for `>>`
that binding is its only user. A call pattern made inside a context records an edge from each
argument (TVM's implicit graph). `ctx.match_dfb(block)` maps every pattern of the graph to a
distinct variable (a binding of the block or a variable it uses) so that each pattern matches
its variable and every edge holds; it searches with backtracking.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable, Iterator

from .dpl import DFPattern, Matcher
from .dpl_rewrite import Emitter
from .expr import Call, DataflowBlock, Expr, Function, MatchCast, Tuple, TupleGetItem, Var


@dataclass(frozen=True)
class _Edge:
    producer: DFPattern
    consumer: DFPattern
    only: bool
    index: int


class PatternContext:
    """The graph constraints recorded while it is the current context."""

    _stack: list[PatternContext] = []

    def __init__(self, incremental: bool = False) -> None:
        self.incremental = incremental
        self.parent: PatternContext | None = None
        self.edges: list[_Edge] = []
        self.same_shapes: list[tuple[DFPattern, ...]] = []  # `a.same_shape_as(b)`

    def __enter__(self) -> PatternContext:
        self.parent = PatternContext.current()
        PatternContext._stack.append(self)
        return self

    def __exit__(self, *_: Any) -> None:
        PatternContext._stack.remove(self)

    @staticmethod
    def current() -> PatternContext | None:
        return PatternContext._stack[-1] if PatternContext._stack else None

    def constraints(self) -> list[_Edge]:
        """This context's edges, after the enclosing context's when it is incremental."""
        inherited = self.parent.constraints() if self.incremental and self.parent else []
        return inherited + self.edges

    def shape_groups(self) -> list[tuple[DFPattern, ...]]:
        inherited = self.parent.shape_groups() if self.incremental and self.parent else []
        return inherited + self.same_shapes

    def match_dfb(self, dfb: DataflowBlock) -> dict[DFPattern, Var] | None:
        """The first assignment of the graph's patterns to the block's variables, or None."""
        return next(iter(_solutions(self.constraints(), dfb, self.shape_groups())), None)


class PatternSeq:
    """A chain of patterns joined by used-by edges (`a >> b >> c`)."""

    def __init__(self, patterns: list[DFPattern], only_use: bool = False) -> None:
        self.patterns = list(patterns)
        self.only_use = only_use

    def used_by(self, other: Any, index: int = -1) -> PatternSeq:
        return used_by(self, other, index)

    def only_used_by(self, other: Any, index: int = -1) -> PatternSeq:
        return only_used_by(self, other, index)

    def __xor__(self, other: Any) -> PatternSeq:
        return self.used_by(other)

    def __rshift__(self, other: Any) -> PatternSeq:
        return self.only_used_by(other)

    def __getitem__(self, index: int) -> DFPattern:
        return self.patterns[index]

    def dup(self) -> PatternSeq:
        """The same chain made of new pattern objects (a second, distinct copy to match)."""
        ctx = _context("dup")
        twins = [p.dup() for p in self.patterns]
        twin_of = dict(zip(map(id, self.patterns), twins))
        for e in list(ctx.constraints()):
            if id(e.producer) in twin_of and id(e.consumer) in twin_of:
                ctx.edges.append(_Edge(twin_of[id(e.producer)], twin_of[id(e.consumer)],
                                       e.only, e.index))
        return PatternSeq(twins, self.only_use)


def _context(what: str) -> PatternContext:
    ctx = PatternContext.current()
    if ctx is None:
        raise ValueError(f"{what}: graph constraints need a PatternContext (use `with "
                         f"PatternContext() as ctx:`)")
    return ctx


def _chain(a: Any, b: Any, index: int, only: bool) -> PatternSeq:
    first = a.patterns if isinstance(a, PatternSeq) else [a]
    second = b.patterns if isinstance(b, PatternSeq) else [b]
    _context("used_by").edges.append(_Edge(first[-1], second[0], only, index))
    return PatternSeq(first + second, only)


def same_shape_as(*patterns: DFPattern) -> None:
    """Require the values these patterns match to have the same shape (TVM's
    SameShapeConstraint)."""
    _context("same_shape_as").same_shapes.append(tuple(patterns))


def used_by(a: Any, b: Any, index: int = -1) -> PatternSeq:
    return _chain(a, b, index, only=False)


def only_used_by(a: Any, b: Any, index: int = -1) -> PatternSeq:
    return _chain(a, b, index, only=True)


# -- matching ---------------------------------------------------------------------------------


def operands(value: Expr) -> list[Var]:
    """The variables `value` uses, in order (tuple fields in place; nested functions skipped)."""
    out: list[Var] = []

    def walk(e: Any) -> None:
        if isinstance(e, Var):
            out.append(e)
        elif isinstance(e, Call):
            for a in e.args:
                walk(a)
        elif isinstance(e, Tuple):
            for f in e.fields:
                walk(f)
        elif isinstance(e, TupleGetItem):
            walk(e.tuple_value)

    walk(value)
    return out


class _Block:
    """What matching needs of a dataflow block: values, operands, users, candidate vars."""

    def __init__(self, dfb: DataflowBlock) -> None:
        self.var2val = {b.var: b.value for b in dfb.bindings}
        self.operands = {v: operands(e) for v, e in self.var2val.items()}
        self.users: dict[Var, list[Var]] = {}
        for v, ops in self.operands.items():
            for o in dict.fromkeys(ops):
                self.users.setdefault(o, []).append(v)
        free = [o for ops in self.operands.values() for o in ops if o not in self.var2val]
        self.candidates = list(dict.fromkeys(free)) + list(self.var2val)
        self.shape_groups: list[tuple[DFPattern, ...]] = []

    def edge_holds(self, e: _Edge, producer: Var, consumer: Var) -> bool:
        ops = self.operands.get(consumer)
        if ops is None or producer not in ops:
            return False
        if e.index >= 0 and (e.index >= len(ops) or ops[e.index] is not producer):
            return False
        return not e.only or self.users.get(producer, []) == [consumer]


def _solutions(edges: list[_Edge], dfb: DataflowBlock,
               shape_groups: list[tuple[DFPattern, ...]] = ()
               ) -> Iterator[dict[DFPattern, Var]]:
    block = _Block(dfb)
    nodes = list(dict.fromkeys([n for e in edges for n in (e.producer, e.consumer)]
                               + [n for g in shape_groups for n in g]))
    if not nodes:
        return
    block.shape_groups = list(shape_groups)
    yield from _search(block, edges, nodes, {})


def _search(block: _Block, edges: list[_Edge], todo: list[DFPattern],
            done: dict[DFPattern, Var]) -> Iterator[dict[DFPattern, Var]]:
    if not todo:
        yield dict(done)
        return
    node = _next_node(edges, todo, done)
    rest = [n for n in todo if n is not node]
    taken = set(done.values())
    for v in _candidates(block, edges, node, done):
        if v in taken or not _matches(block, node, v):
            continue
        done[node] = v
        if all(_holds(block, e, done) for e in edges if node in (e.producer, e.consumer)) \
                and all(_same_shapes(g, done) for g in block.shape_groups if node in g):
            yield from _search(block, edges, rest, done)
        del done[node]


def _same_shapes(group: tuple[DFPattern, ...], done: dict[DFPattern, Var]) -> bool:
    """The placed members of a same_shape_as group have provably equal shapes."""
    from ..tir.analyzer import Analyzer

    shapes = [getattr(done[p].struct_info, "shape", None) for p in group if p in done]
    if any(s is None for s in shapes):
        return False
    analyzer = Analyzer()
    return all(len(a) == len(shapes[0]) and all(analyzer.can_prove_equal(x, y)
                                                for x, y in zip(a, shapes[0]))
               for a in shapes[1:])


def _next_node(edges: list[_Edge], todo: list[DFPattern], done: dict) -> DFPattern:
    """A pattern linked to one already placed (its candidates are few), else the first."""
    for n in todo:
        if any((e.producer is n and e.consumer in done) or (e.consumer is n and e.producer in done)
               for e in edges):
            return n
    return todo[0]


def _candidates(block: _Block, edges: list[_Edge], node: DFPattern,
                done: dict[DFPattern, Var]) -> list[Var]:
    for e in edges:
        if e.consumer is node and e.producer in done:
            return block.users.get(done[e.producer], [])
        if e.producer is node and e.consumer in done:
            return list(dict.fromkeys(block.operands.get(done[e.consumer], [])))
    return block.candidates


def _matches(block: _Block, node: DFPattern, v: Var) -> bool:
    return Matcher(block.var2val).match(node, v)


def _holds(block: _Block, e: _Edge, done: dict[DFPattern, Var]) -> bool:
    if e.producer not in done or e.consumer not in done:
        return True
    return block.edge_holds(e, done[e.producer], done[e.consumer])


# -- rewriting --------------------------------------------------------------------------------


Rewriter = Callable[[dict[DFPattern, Var], dict[Var, Expr]], dict[Var, Expr]]


def rewrite_bindings(ctx: PatternContext, rewriter: Rewriter, func: Function) -> Function:
    """Rewrite each dataflow block of `func` while the context's graph matches: the rewriter
    gets the matches and var -> value, and returns new values for some bound variables. A
    rewrite that changes nothing sends the search on to the next match."""
    from ..transforms.simple_passes import remove_unused

    blocks = []
    for block in func.body.blocks:
        if isinstance(block, DataflowBlock):
            block = _rewrite_block(ctx.constraints(), rewriter, block)
        blocks.append(block)
    return remove_unused(replace(func, body=replace(func.body, blocks=tuple(blocks))))


def _rewrite_block(edges: list[_Edge], rewriter: Rewriter, block: DataflowBlock
                   ) -> DataflowBlock:
    for _ in range(1000):  # each round replaces at least one binding's value
        for matches in _solutions(edges, block):
            var2val = {b.var: b.value for b in block.bindings}
            new = {v: e for v, e in rewriter(matches, var2val).items()
                   if v in var2val and e is not var2val[v]}
            if new:
                block = reemit(block, new)
                break
        else:
            return block
    raise RuntimeError("rewrite_bindings: the rewriter keeps matching (more than 1000 rounds)")


def reemit(block: DataflowBlock, new: dict[Var, Expr]) -> DataflowBlock:
    """The block with some bindings' values replaced: nested calls in a new value are bound to
    fresh variables, and a binding waits until every variable it uses is defined."""
    bound = {b.var for b in block.bindings}
    defined: set[Var] = set()
    out: list[Any] = []
    emitter = Emitter(out)
    pending = list(block.bindings)
    while pending:
        progress = False
        for b in list(pending):
            value = new.get(b.var, b.value)
            if all(v in defined or v not in bound for v in _uses(value)):
                pending.remove(b)
                if isinstance(b, MatchCast) or b.var not in new:
                    out.append(b)
                else:
                    out.append(replace(b, value=emitter.flatten(value, top=True)))
                defined.add(b.var)
                progress = True
                break
        if not progress:  # a cycle: keep the rest in order (well-formedness reports it)
            out.extend(replace(b, value=new.get(b.var, b.value)) for b in pending)
            break
    return replace(block, bindings=tuple(out))


def _uses(value: Expr) -> list[Var]:
    from .analysis import free_vars

    return free_vars(value)
