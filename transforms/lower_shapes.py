"""Helpers of the VM lowering for symbolic shapes and control flow.

`shape_program(expr)` writes an integer TIR expression as the postfix program that
`vm.builtin.eval_shape` runs (docs/internals.md section 3); `lower_if` emits a relax `If` as
`If`/`Goto` bytecode, both branches writing one result register through `vm.builtin.copy`.
"""

from __future__ import annotations

from typing import Any

from ..tir import expr as tir
from ..vm import bytecode as bc

def _dim_text(e: tir.PrimExpr) -> str:
    if isinstance(e, tir.IntImm):
        return str(e.value)
    if isinstance(e, tir.Var):
        return e.name
    if isinstance(e, tir.BinOp):
        return f"({_dim_text(e.a)} {e.op.value} {_dim_text(e.b)})"
    return str(e)


def lower_if(lowering: Any, node: Any) -> bc.Arg:
    """`If(cond)`: fall into the true branch, else jump; both end by copying into `dst`."""
    cond = lowering.value_of(node.cond)
    flag = lowering.new_reg()
    lowering.emit("vm.builtin.read_if_cond", [cond], dst=flag)
    dst = lowering.new_reg()
    branch_at = len(lowering.code)
    lowering.code.append(None)  # patched below, once the true branch's length is known
    _lower_branch(lowering, node.true_branch, dst)
    goto_at = len(lowering.code)
    lowering.code.append(None)
    _lower_branch(lowering, node.false_branch, dst)
    end = len(lowering.code)
    lowering.code[branch_at] = bc.If(flag, goto_at + 1 - branch_at)
    lowering.code[goto_at] = bc.Goto(end - goto_at)
    return bc.reg(dst)


def _lower_branch(lowering: Any, seq: Any, dst: int) -> None:
    saved = dict(lowering.computed)  # NOTE: dims computed in one branch do not exist in the other
    for block in seq.blocks:
        for binding in block.bindings:
            lowering.lower_binding(binding)
    lowering.emit("vm.builtin.copy", [lowering.value_of(seq.body)], dst=dst)
    lowering.computed = saved
