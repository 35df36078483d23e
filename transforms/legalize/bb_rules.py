"""Legalization functions in TVM's own convention: `f(bb, call) -> relax expression`.

TVM users register these with `relax.transform.legalize_ops.common.register_legalize` or pass
them to `LegalizeOps(customize_legalize_map)`; the function builds its replacement itself,
usually `bb.call_te(topi.add, call.args[1], call.args[0])`. (tvmlite's own rules, rules.py,
take te tensors instead.) They take precedence over tvmlite's rules for the same operator.
"""

from __future__ import annotations

from typing import Any, Callable

BBRule = Callable[[Any, Any], Any]
BB_LEGALIZE: dict[str, BBRule] = {}


def register_legalize(op_name: str, legalize_func: BBRule | None = None, level: int = 10
                      ) -> Any:
    """TVM's `register_legalize(op_name, func)` (also usable as a decorator)."""
    def add(f: BBRule) -> BBRule:
        from ...ir.op import unmark_reset

        unmark_reset(op_name, "FLegalize")
        if getattr(f, "builtin_op", None) == op_name:  # the built-in rule put back (get_attr)
            BB_LEGALIZE.pop(op_name, None)
        else:
            BB_LEGALIZE[op_name] = f
        return f
    return add(legalize_func) if legalize_func is not None else add


def run_bb_rule(rule: BBRule, call: Any, emitter: Any) -> Any:
    """`rule(bb, call)` with a BlockBuilder whose kernels go into the module being legalized."""
    from ..block_builder import BlockBuilder  # the builder sits above the passes

    bb = BlockBuilder()
    bb._funcs = emitter.funcs
    bb._emitter = emitter
    return rule(bb, call)
