"""`nn.Mutator`: rewrite a model's tree of modules, parameters and effects in place.

Override `visit_module`, `visit_param`, `visit_effect` (or `visit_modulelist`); each gets the
dotted name of the node (`mod3.mod2.param2`, `layers.0.weight`) and returns its replacement.
The defaults recurse into the node's children, so `visit("", model)` walks the whole tree.
"""

from __future__ import annotations

from typing import Any

from .core import Effect, Module, ModuleList, Parameter


def _child_name(parent: str, child: str) -> str:
    return child if parent == "" else f"{parent}.{child}"


__all__ = ["Mutator"]


class Mutator:
    def visit_module(self, name: str, node: Module) -> Any:
        return self.visit(name, node)

    def visit_modulelist(self, name: str, node: ModuleList) -> Any:
        return self.visit(name, node)

    def visit_param(self, name: str, node: Parameter) -> Any:
        return self.visit(name, node)

    def visit_effect(self, name: str, node: Effect) -> Any:
        return self.visit(name, node)

    def visit(self, name: str, node: Any) -> Any:
        """Replace each child of `node` by what its visit method returns; returns `node`."""
        if not isinstance(node, Module):
            return node
        for key, child in node._items():
            child_name = _child_name(name, key)
            if isinstance(child, ModuleList):
                new = self.visit_modulelist(child_name, child)
            elif isinstance(child, Module):
                new = self.visit_module(child_name, child)
            elif isinstance(child, Parameter):
                new = self.visit_param(child_name, child)
            elif isinstance(child, Effect):
                new = self.visit_effect(child_name, child)
            else:
                continue
            if new is not child:
                node._set_item(key, new)
        return node
