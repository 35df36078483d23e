"""Schedule errors that show the IR with the offending statements marked, as TVM renders them:

```
ScheduleError: An error occurred in the schedule primitive 'reorder'.

The IR with diagnostic is:
... the module, each marked loop or block under a `# tirx.For#0` comment, underlined ...
Error message: ... tirx.For#0 ...
```
"""

from __future__ import annotations

from typing import Any

from ..stmt import Block, BlockRealize, For
from .state import ScheduleError

_KIND = {For: "tirx.For", Block: "tirx.SBlock", BlockRealize: "tirx.SBlock"}


def label(stmts: list[Any], stmt: Any) -> str:
    """How the message names `stmt`, the k-th of the marked `stmts`: `tirx.For#k`."""
    k = next(i for i, s in enumerate(stmts) if s is stmt)
    return f"{_KIND.get(type(stmt), 'tirx.Stmt')}#{k}"


class LocatedScheduleError(ScheduleError):
    """A ScheduleError about `stmts` of `func`; `str()` renders the marked IR (on demand, so a
    caught and retried error costs no printing)."""

    def __init__(self, primitive: str, message: str, func: Any, func_name: str,
                 stmts: list[Any]) -> None:
        super().__init__(message)
        self.primitive, self.message = primitive, message
        self.func, self.func_name, self.stmts = func, func_name, stmts

    def __str__(self) -> str:
        from ...script.printer import print_marked  # the printer lives above tir

        marks = {id(s): label(self.stmts, s) for s in self.stmts}
        script = print_marked(self.func, self.func_name, marks)
        return (f"ScheduleError: An error occurred in the schedule primitive "
                f"'{self.primitive}'.\n\nThe IR with diagnostic is:\n{script}\n"
                f"Error message: {self.message}")
