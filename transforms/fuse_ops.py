"""FuseOps as TVM writes it: group each dataflow block's bindings (graph_partition.py) and
turn every group of two or more into a private function with attribute `Primitive`, called
where the group's last binding was.

The graph has a node per parameter, binding and constant; a `call_tir` node carries its
prim_func's `op_pattern` (opaque when unannotated: run AnnotateTIROpPattern first), a
tuple-get-item is injective, any other value opaque. A group's function takes the values it
uses from outside as parameters (constants too, named `param_<i>`), returns every value used
after it (a tuple when several) and is named `fused_` plus its members' callee names.
"""

from __future__ import annotations

from typing import Any

from ..ir import expr as rx
from ..ir.module import IRModule
from ..ir.op import CALL_TIR, CALL_TIR_INPLACE
from ..ir.ops.base import INJECTIVE, OPAQUE
from ..tir.function import PrimFunc
from .graph_partition import Group, Node, partition
from .grouped_functions import group_functions
from .pass_infra import Pass, PassContext

_CONST_LEAVES = (rx.Constant, rx.ShapeExpr, rx.PrimValue, rx.StringImm, rx.DataTypeImm)


class GraphBuilder:
    """The dataflow graph of every non-primitive relax function of a module."""

    def __init__(self, mod: IRModule) -> None:
        self.mod = mod
        self.nodes: list[Node] = []
        self.node_of: dict[int, Node] = {}
        self.input_params: set[int] = set()  # the parameters after `num_input` (weights)

    def add(self, ref: Any, pattern: int, extern: bool = False) -> Node:
        node = Node(ref, len(self.nodes), pattern, extern)
        self.nodes.append(node)
        self.node_of[id(ref)] = node
        return node

    def build(self) -> "GraphBuilder":
        for f in self.mod.functions.values():
            if isinstance(f, rx.Function) and not f.attr_dict.get("Primitive"):
                self.visit_function(f)
        return self

    def visit_function(self, func: rx.Function) -> None:
        for p in func.params:
            self.add(p, OPAQUE, extern=True)
        num_input = func.attr_dict.get("num_input")
        if num_input is not None:
            self.input_params.update(id(p) for p in func.params[int(num_input):])
        for block in func.body.blocks:
            if isinstance(block, rx.DataflowBlock):
                for b in block.bindings:
                    self.visit_binding(b)

    def visit_binding(self, b: Any) -> None:
        extern = not isinstance(b.var, rx.DataflowVar)
        if isinstance(b, rx.MatchCast):
            self.add(b.var, OPAQUE, extern)
            return
        value = b.value
        edges: list[tuple[Any, int]] = []
        if isinstance(value, rx.Call):
            pattern, args = self.call_pattern(value)
            edges = [(a, pattern) for a in args]
        elif isinstance(value, rx.TupleGetItem):
            # fetching a weight from the packed parameter tuple is not fused (TVM keeps those
            # fetches at the top of the function)
            pattern = OPAQUE if id(value.tuple_value) in self.input_params else INJECTIVE
            edges = [(value.tuple_value, pattern)]
        else:
            pattern = OPAQUE
            edges = [(leaf, OPAQUE) for leaf in _leaves(value)]
        node = Node(b.var, -1, pattern, extern)
        for leaf, edge in edges:
            self.edge(leaf, node, edge)
        node.index = len(self.nodes)
        self.nodes.append(node)
        self.node_of[id(b.var)] = node

    def call_pattern(self, call: rx.Call) -> tuple[int, list[Any]]:
        if call.op in (CALL_TIR, CALL_TIR_INPLACE):
            prim = self.mod.functions.get(call.args[0].gvar)  # type: ignore[attr-defined]
            pattern = prim.attr_dict.get("op_pattern", OPAQUE) \
                if isinstance(prim, PrimFunc) else OPAQUE
            return int(pattern), list(_fields(call.args[1]))
        return OPAQUE, list(call.args)

    def edge(self, leaf: Any, consumer: Node, pattern: int) -> None:
        if isinstance(leaf, rx.Tuple):
            for f in leaf.fields:
                self.edge(f, consumer, pattern)
            return
        if not isinstance(leaf, (rx.Var, *_CONST_LEAVES)):
            return  # global functions, extern functions, operators
        node = self.node_of.get(id(leaf))
        if node is None:  # a constant, or a variable bound outside any dataflow block
            node = self.add(leaf, OPAQUE, extern=isinstance(leaf, rx.Var))
        node.outputs.append((consumer, pattern))


def _fields(e: rx.Expr) -> tuple[rx.Expr, ...]:
    return e.fields if isinstance(e, rx.Tuple) else (e,)


def _leaves(e: Any) -> list[Any]:
    out: list[Any] = []

    def walk(x: Any) -> None:
        if isinstance(x, (rx.Var, rx.Constant)):
            out.append(x)
        elif isinstance(x, rx.Call):
            for a in x.args:
                walk(a)
        elif isinstance(x, rx.Tuple):
            for f in x.fields:
                walk(f)
        elif isinstance(x, rx.TupleGetItem):
            walk(x.tuple_value)

    walk(e)
    return out


def fuse_ops(mod: IRModule, opt_level: int = 2) -> IRModule:
    graph = GraphBuilder(mod).build()
    groups = partition(graph.nodes, opt_level)
    group_of: dict[int, Group] = {id(n.ref): groups[n.index].root() for n in graph.nodes}
    return group_functions(mod, group_of, lift_constants=True)


def FuseOps(fuse_opt_level: int = -1) -> Pass:  # noqa: N802
    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        level = fuse_opt_level if fuse_opt_level >= 0 else getattr(ctx, "opt_level", 2)
        return fuse_ops(mod, level)
    return Pass(run, "FuseOps")


__all__ = ["FuseOps", "GraphBuilder", "fuse_ops"]
