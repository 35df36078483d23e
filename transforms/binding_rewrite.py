"""`relax.DataflowBlockRewrite` (TVM's `relax/binding_rewrite.py`): edit one dataflow block of a
function binding by binding (add, remove, replace uses), then take the rewritten block,
function or module. The original objects are never changed.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..ir import expr as rx
from ..ir.functor import substitute_vars, var_use_counts
from ..ir.module import IRModule


class DataflowBlockRewrite:
    """Rewrites `dfb`, a dataflow block of function `root_fn`."""

    def __init__(self, dfb: rx.DataflowBlock, root_fn: rx.Function) -> None:
        if not any(b is dfb for b in root_fn.body.blocks):
            raise ValueError("DataflowBlockRewrite: the block is not one of the function's")
        self.dfb, self.root_fn = dfb, root_fn
        self.index = next(i for i, b in enumerate(root_fn.body.blocks) if b is dfb)
        self._bindings: list[Any] = list(dfb.bindings)
        self._rest = root_fn  # the function, with uses after the block rewritten
        self._count = 0

    # -- editing -----------------------------------------------------------------------------

    def add_binding(self, binding: Any) -> None:
        self._bindings.append(binding)

    def add(self, expr: rx.Expr, name: str | None = None, is_dfvar: bool = False) -> None:
        """Bind `expr` at the end of the block, to a new var named `name` (or a fresh one)."""
        if name is None:
            self._count += 1
            name = f"tmp{self._count}"
        var = (rx.DataflowVar if is_dfvar else rx.Var)(name, expr.struct_info)
        self.add_binding(rx.VarBinding(var, expr))

    def _users(self, var: rx.Var) -> list[rx.Var]:
        users = [b.var for b in self._bindings if var in var_use_counts(b.value)]
        after = self._after()
        if var in var_use_counts(*after):
            users.append(var)  # read after the block
        return users

    def _after(self) -> list[rx.Expr]:
        blocks = self._rest.body.blocks[self.index + 1:]
        return [b.value for blk in blocks for b in blk.bindings] + [self._rest.body.body]

    def remove_unused(self, var: rx.Var, allow_undef: bool = False) -> None:
        """Remove the binding of `var`, which nothing may use."""
        if not any(b.var is var for b in self._bindings):
            if allow_undef:
                return
            raise RuntimeError(f"The block does not bind {var.name_hint!r}")
        users = self._users(var)
        if users:
            raise RuntimeError(f"{var.name_hint!r} is used by {len(users)} vars and cannot be "
                               "removed")
        self._bindings = [b for b in self._bindings if b.var is not var]

    def remove_all_unused(self) -> None:
        """Remove every binding of the block that nothing uses (repeatedly)."""
        while True:
            unused = [b.var for b in self._bindings if not self._users(b.var)]
            if not unused:
                return
            self._bindings = [b for b in self._bindings if b.var not in unused]

    def replace_all_uses(self, old_var: rx.Var, new_var: rx.Var) -> None:
        """Uses of `old_var` (in the block and after it) read `new_var` instead."""
        if not any(b.var is old_var for b in self._bindings) and \
                old_var not in self.root_fn.params:
            raise RuntimeError(f"Cannot find the binding of {old_var.name_hint!r}")
        if old_var is new_var:
            return
        mapping = {old_var: new_var}
        self._bindings = [replace(b, value=substitute_vars(b.value, mapping))
                          for b in self._bindings]
        seq = self._rest.body
        blocks = list(seq.blocks)
        for i in range(self.index + 1, len(blocks)):
            blocks[i] = replace(blocks[i], bindings=tuple(
                replace(b, value=substitute_vars(b.value, mapping)) for b in blocks[i].bindings))
        self._rest = replace(self._rest, body=replace(
            seq, blocks=tuple(blocks), body=substitute_vars(seq.body, mapping)))

    # -- results -----------------------------------------------------------------------------

    def _unchanged(self) -> bool:
        return self._rest is self.root_fn and len(self._bindings) == len(self.dfb.bindings) \
            and all(a is b for a, b in zip(self._bindings, self.dfb.bindings))

    def mutated_dfb(self) -> rx.DataflowBlock:
        return self.dfb if self._unchanged() else rx.DataflowBlock(tuple(self._bindings))

    def mutated_root_fn(self) -> rx.Function:
        if self._unchanged():
            return self.root_fn
        blocks = list(self._rest.body.blocks)
        blocks[self.index] = self.mutated_dfb()
        body = replace(self._rest.body, blocks=tuple(b for b in blocks if b.bindings))
        return replace(self._rest, body=body)

    def mutate_irmodule(self, irmodule: IRModule) -> IRModule:
        """`irmodule` with the rewritten function in place of the original."""
        new = self.mutated_root_fn()
        funcs = {gv: new if f is self.root_fn else f for gv, f in irmodule.items()}
        return IRModule(funcs, dict(irmodule.attrs), dict(irmodule.global_infos))
