"""Passes that shape dataflow blocks: ConvertToDataflow (runs of pure bindings become dataflow
blocks) and TopologicalSort (a dataflow block's bindings reordered by a graph search), as TVM
has them.
"""

from __future__ import annotations

from collections import deque
from dataclasses import replace
from typing import Any

from ..ir import expr as rx
from ..ir.functor import ExprMutator, substitute_vars, var_use_counts
from ..ir.module import IRModule
from .pass_infra import Pass, PassContext
from .simple_passes import _is_pure


def _function_pass(name: str, fn: Any) -> Pass:
    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        return mod.map_functions(lambda gv, f: fn(f) if isinstance(f, rx.Function) else f)
    return Pass(run, name)


# -- ConvertToDataflow -----------------------------------------------------------------------


def _eligible(b: Any) -> bool:
    # NOTE: binding a function (a closure) is pure, as TVM counts it
    return isinstance(b.value, rx.Function) or not isinstance(b.value, rx.If) and _is_pure(b.value)


class _ToDataflow(ExprMutator):
    def __init__(self, func: rx.Function, min_size: int) -> None:
        self.uses = var_use_counts(func.body)
        self.min_size = min_size

    def visit_seq_expr(self, seq: rx.SeqExpr) -> rx.SeqExpr:
        # segments: (kind, bindings) with kind "dataflow" (an existing block), "run" (pure
        # bindings) or "other"
        segments: list[tuple[str, list[Any]]] = []
        for blk in seq.blocks:
            if isinstance(blk, rx.DataflowBlock):
                segments.append(("dataflow", list(self.visit_block(blk).bindings)))
                continue
            for b in blk.bindings:
                b = self.visit_binding(b)
                kind = "run" if _eligible(b) else "other"
                if segments and segments[-1][0] == kind:
                    segments[-1][1].append(b)
                else:
                    segments.append((kind, [b]))
        blocks = [self.dataflow(bs) if self.wanted(segments, i) else rx.BindingBlock(tuple(bs))
                  for i, (kind, bs) in enumerate(segments)]
        return replace(seq, blocks=self.merged(blocks), body=self.visit(seq.body))

    def wanted(self, segments: list[tuple[str, list[Any]]], i: int) -> bool:
        kind, bindings = segments[i]
        if kind != "run":
            return kind == "dataflow"
        near = [segments[j][0] for j in (i - 1, i + 1) if 0 <= j < len(segments)]
        return len(bindings) >= self.min_size or "dataflow" in near

    def merged(self, blocks: list[rx.BindingBlock]) -> tuple[rx.BindingBlock, ...]:
        out: list[rx.BindingBlock] = []
        for blk in blocks:
            if out and type(out[-1]) is type(blk):
                out[-1] = replace(out[-1], bindings=out[-1].bindings + blk.bindings)
            elif blk.bindings:
                out.append(blk)
        return tuple(self.dataflow(list(b.bindings)) if isinstance(b, rx.DataflowBlock) else b
                     for b in out)

    def dataflow(self, run: list[Any]) -> rx.DataflowBlock:
        """The bindings as one dataflow block: a variable is an output iff used after it."""
        inside = var_use_counts(*[b.value for b in run])
        mapping: dict[rx.Var, rx.Expr] = {}
        out = []
        for b in run:
            local = self.uses.get(b.var, 0) <= inside.get(b.var, 0)
            var = b.var
            if local != isinstance(var, rx.DataflowVar):
                var = (rx.DataflowVar if local else rx.Var)(var.name_hint, var.struct_info,
                                                            var.span)
                mapping[b.var] = var
            out.append(replace(b, var=var, value=substitute_vars(b.value, mapping)))
        return rx.DataflowBlock(tuple(out))


def ConvertToDataflow(min_size: int = 2) -> Pass:  # noqa: N802
    """Wrap each run of at least `min_size` pure bindings outside dataflow blocks in a
    dataflow block (inside If branches too); variables used only inside it become dataflow
    variables. As TVM's pass, the result is canonicalized (CanonicalizeBindings): so uses of
    a variable bound to a constant become the constant."""
    from .canonicalize import canonicalize

    return _function_pass("ConvertToDataflow",
                          lambda f: canonicalize(_ToDataflow(f, min_size).visit(f)))


# -- TopologicalSort -------------------------------------------------------------------------


def _search(roots: list[Any], children: dict[Any, list[Any]], deps: dict[Any, list[Any]],
            depth_first: bool) -> list[Any]:
    """Nodes in the order a search from `roots` reaches them, each once all its `deps` are
    reached."""
    done: set[Any] = set()
    order: list[Any] = []

    def ready(n: Any) -> bool:
        return n not in done and all(d in done for d in deps.get(n, ()))

    if depth_first:
        def visit(n: Any) -> None:
            done.add(n)
            order.append(n)
            for c in children.get(n, ()):
                if ready(c):
                    visit(c)

        for r in roots:
            if ready(r):
                visit(r)
        return order
    queue = deque(r for r in roots if ready(r))
    queued = set(queue)
    while queue:
        n = queue.popleft()
        done.add(n)
        order.append(n)
        for c in children.get(n, ()):
            if c not in queued and all(d in done for d in deps.get(c, ())):
                queue.append(c)
                queued.add(c)
    return order


def _block_graph(blk: rx.DataflowBlock) -> tuple[dict[Any, list[Any]], list[Any]]:
    """Each bound var -> the vars it reads (in order), and the vars read from outside."""
    bound = {b.var for b in blk.bindings}
    deps: dict[Any, list[Any]] = {}
    outside: list[Any] = []
    for b in blk.bindings:
        used = list(var_use_counts(b.value))
        deps[b.var] = used
        outside += [v for v in used if v not in bound and v not in outside]
    return deps, outside


def _sort_block(blk: rx.DataflowBlock, func: rx.Function, order: str, direction: str
                ) -> rx.DataflowBlock:
    deps, outside = _block_graph(blk)
    nodes = [b.var for b in blk.bindings]
    users: dict[Any, list[Any]] = {}
    for n in nodes:
        for d in deps[n]:
            users.setdefault(d, []).append(n)
    if direction == "from-inputs":
        params = [p for p in func.params if p in outside]
        roots = params + [v for v in outside if v not in params]
        roots += [n for n in nodes if not any(d in deps for d in deps[n])]
        found = _search(roots, users, deps, order == "depth-first")
    else:
        later = _uses_after(func, blk)
        used_after = [v for v in later if v in deps]
        roots = list(reversed(used_after)) + [n for n in reversed(nodes)
                                              if n not in users and n not in used_after]
        upstream = {n: [d for d in reversed(deps[n]) if d in deps] for n in nodes}
        found = list(reversed(_search(roots, upstream, users, order == "depth-first")))
    by_var = {b.var: b for b in blk.bindings}
    return replace(blk, bindings=tuple(by_var[v] for v in found if v in by_var))


def _uses_after(func: rx.Function, blk: rx.BindingBlock) -> list[Any]:
    """Variables in order of first use after block `blk`."""
    seq = func.body
    i = next(i for i, b in enumerate(seq.blocks) if b is blk)
    rest = [b.value for later in seq.blocks[i + 1:] for b in later.bindings] + [seq.body]
    return list(var_use_counts(*rest))


def TopologicalSort(order: str = "depth-first", direction: str = "from-inputs") -> Pass:  # noqa: N802
    """Reorder each dataflow block's bindings by a depth- or breadth-first search from the
    block's inputs or outputs (ties keep the existing order)."""
    if order not in ("depth-first", "breadth-first"):
        raise ValueError(f"TopologicalSort: order must be 'depth-first' or 'breadth-first', "
                         f"not {order!r}")
    if direction not in ("from-inputs", "from-outputs"):
        raise ValueError(f"TopologicalSort: direction must be 'from-inputs' or "
                         f"'from-outputs', not {direction!r}")

    def sort(func: rx.Function) -> rx.Function:
        blocks = tuple(_sort_block(b, func, order, direction)
                       if isinstance(b, rx.DataflowBlock) else b for b in func.body.blocks)
        return replace(func, body=replace(func.body, blocks=blocks))
    return _function_pass("TopologicalSort", sort)
