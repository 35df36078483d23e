"""The fusion grouping of FuseOps: a post-dominator tree over the dataflow graph, then three
phases that let each node join its immediate post-dominator when every path between them
satisfies the phase's pattern rule (TVM's GraphPartitioner, written from its description).

Phase 0 fuses an out-elementwise-fusable node (matmul, conv) with its elementwise epilogue and
elementwise/broadcast nodes into injective or reduction consumers; phase 1 fuses injective
chains; phase 2 fuses injective nodes into a tuple that post-dominates them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from ..ir.ops.base import BROADCAST, ELEMWISE, INJECTIVE, OPAQUE, OUT_EWISE_FUSABLE, REDUCE, TUPLE


@dataclass(eq=False)
class Node:
    """One value of the graph: a binding's variable, a parameter or a constant."""

    ref: Any
    index: int
    pattern: int = OPAQUE
    extern_ref: bool = False  # used outside the graph: it cannot be an inner node of a group
    outputs: list[tuple["Node", int]] = field(default_factory=list)  # (consumer, edge pattern)


@dataclass(eq=False)
class Group:
    """A union-find set of nodes fused together."""

    pattern: int
    parent: "Group | None" = None
    num_nodes: int = 1
    anchored: bool = False  # holds an out-elementwise-fusable node
    attrs: dict[str, Any] = field(default_factory=dict)

    def root(self) -> "Group":
        g = self
        while g.parent is not None:
            g = g.parent
        if g is not self:  # path compression
            self.parent = g
        return g


@dataclass(eq=False)
class _DomNode:
    node: Node
    parent: "_DomNode | None"
    depth: int
    pattern: int  # the strongest edge pattern on the way to the parent


def _combine(a: int, b: int) -> int:
    return max(a, b)


def _lca(a: _DomNode | None, b: _DomNode | None, pattern: list[int]) -> _DomNode | None:
    """The lowest common ancestor, folding the patterns of the edges climbed into `pattern`."""
    while a is not b:
        if a is None or b is None:
            return None
        if a.depth <= b.depth:
            pattern[0] = _combine(pattern[0], b.pattern)
            b = b.parent
        if b is not None and b.depth < a.depth:
            pattern[0] = _combine(pattern[0], a.pattern)
            a = a.parent
    return a


def post_dominators(nodes: list[Node]) -> list[_DomNode]:
    """The post-dominator tree, built in reverse topological order (consumers first)."""
    tree: list[_DomNode | None] = [None] * len(nodes)
    for node in reversed(nodes):
        if node.extern_ref or not node.outputs:
            parent, pattern = None, OPAQUE if node.extern_ref else ELEMWISE
        else:
            acc = [ELEMWISE]
            parent = tree[node.outputs[0][0].index]
            acc[0] = _combine(acc[0], node.outputs[0][1])
            for consumer, edge in node.outputs[1:]:
                parent = _lca(parent, tree[consumer.index], acc)
                acc[0] = _combine(acc[0], edge)
            pattern = acc[0]
        depth = parent.depth + 1 if parent is not None else 1
        tree[node.index] = _DomNode(node, parent, depth, pattern)
    return tree  # type: ignore[return-value]


class _Partitioner:
    def __init__(self, nodes: list[Node]) -> None:
        self.nodes = nodes
        self.groups = [Group(n.pattern, anchored=n.pattern == OUT_EWISE_FUSABLE) for n in nodes]
        self.visited: set[int] = set()

    def check_path(self, src: Node, sink: Node, cond: Callable[[int, bool], bool]) -> bool:
        self.visited.clear()
        return all(self._check(out, sink, cond) for out, _ in src.outputs)

    def _check(self, src: Node, sink: Node, cond: Callable[[int, bool], bool]) -> bool:
        if src.index in self.visited:
            return True
        self.visited.add(src.index)
        if not cond(self.groups[src.index].root().pattern, src is sink):
            return False
        return src is sink or all(self._check(out, sink, cond) for out, _ in src.outputs)

    def commit(self, src: Node, sink: Node) -> None:
        self.visited.clear()
        self._commit(src, sink, self.groups[sink.index])

    def _commit(self, src: Node, sink: Node, target: Group) -> None:
        if src is sink or src.index in self.visited:
            return
        self.visited.add(src.index)
        self._merge(self.groups[src.index], target)
        for out, _ in src.outputs:
            self._commit(out, sink, target)

    @staticmethod
    def _merge(child: Group, parent: Group) -> None:
        child, parent = child.root(), parent.root()
        if child is parent:
            return
        parent.num_nodes += child.num_nodes
        child.parent = parent
        if child.anchored:
            parent.anchored = True
            parent.pattern = _combine(child.pattern, parent.pattern)

    def run(self, tree: list[_DomNode], phase: int) -> None:
        for node, dom in zip(self.nodes, tree):
            group = self.groups[node.index]
            if group.pattern == OPAQUE or dom.parent is None:
                continue
            sink = dom.parent.node
            sink_group = self.groups[sink.index]
            if phase == 2:
                self._fuse_into_tuple(node, group, sink, sink_group)
                continue
            if group.root() is sink_group.root() or sink_group.pattern == TUPLE:
                continue
            cond = self._condition(group.pattern, dom.pattern, phase)
            if cond is not None and self.check_path(node, sink, cond):
                self.commit(node, sink)

    def _fuse_into_tuple(self, node: Node, group: Group, sink: Node, sink_group: Group) -> None:
        if group.pattern > INJECTIVE:
            return
        root = sink_group.root()
        if root.pattern == TUPLE:
            return
        if sink_group.pattern == TUPLE and root.pattern <= INJECTIVE:
            if self.check_path(node, sink, lambda kind, _: kind <= INJECTIVE):
                self.commit(node, sink)

    @staticmethod
    def _condition(pattern: int, dom_pattern: int,
                   phase: int) -> Callable[[int, bool], bool] | None:
        if pattern == OUT_EWISE_FUSABLE:
            if phase != 0 or dom_pattern != ELEMWISE:
                return None
            return lambda kind, _: kind <= BROADCAST
        if pattern <= BROADCAST:
            if not (dom_pattern <= INJECTIVE or dom_pattern == REDUCE):
                return None
            return lambda kind, is_sink: (kind <= INJECTIVE if not is_sink else
                                          kind <= OUT_EWISE_FUSABLE)
        if pattern in (INJECTIVE, TUPLE):
            return (lambda kind, _: kind <= INJECTIVE) if phase == 1 else None
        return None  # a reduction starts no fusion of its own


def partition(nodes: list[Node], opt_level: int = 2) -> list[Group]:
    """The group of each node (index by node.index; take `.root()`)."""
    part = _Partitioner(nodes)
    if opt_level == 0:
        return part.groups
    tree = post_dominators(nodes)
    for phase in range(3):
        part.run(tree, phase)
    return part.groups
