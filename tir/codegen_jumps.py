"""`break` and `continue` for the LLVM backend: each loop records where a `continue` resumes
and where a `break` leaves, and a jump branches there (TVM's `tir.break_loop` /
`tir.continue_loop` intrinsics, what the statements parse to).
"""

from __future__ import annotations

from typing import Any

from llvmlite import ir

from .stmt import For, SeqStmt, Stmt, While, jump_of


class LoopJumps:
    """Mixin of the code generator: the jump targets of the loops being emitted."""

    builder: ir.IRBuilder
    loop_jumps: list[tuple[ir.Block | None, ir.Block]]
    visit: Any  # the Visitor's

    def _visit_loop_body(self, body: Any, resume: ir.Block | None, leave: ir.Block) -> None:
        """The body of a loop whose `continue` goes to `resume` and `break` to `leave`."""
        self.loop_jumps.append((resume, leave))
        try:
            self.visit(body)
        finally:
            self.loop_jumps.pop()

    def _jump(self, which: int, word: str) -> None:
        jumps = self.loop_jumps
        target = jumps[-1][which] if jumps else None
        if target is None or target.function is not self.builder.function:
            raise NotImplementedError(f"`{word}` must be inside a serial loop of the same "
                                      "kernel (not across a parallel loop)")
        self.builder.branch(target)
        # NOTE: statements after a jump are unreachable; give them a block of their own
        self.builder.position_at_end(self.builder.append_basic_block(f"after_{word}"))

    def jump(self, word: str) -> ir.Value:
        """`T.break_loop()` / `T.continue_loop()` (what `break` / `continue` parse to)."""
        self._jump(1 if word == "break" else 0, word)
        return ir.Constant(ir.IntType(32), 0)


def continues(body: Any) -> bool:
    """Does `body` hold a `continue` of its own loop (not of a loop nested in it)?"""
    if jump_of(body) == "continue":
        return True
    if isinstance(body, (For, While)) or not isinstance(body, Stmt):
        return False
    if isinstance(body, SeqStmt):
        return any(continues(x) for x in body.seq)
    return any(continues(getattr(body, f, None))
               for f in ("body", "then_case", "else_case", "block", "init"))
