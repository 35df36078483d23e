"""`vm.set_instrument(f)`: call `f(func, name, before_run, ret_value, *args)` around every call
the VM makes (kernels, builtins, registered functions), as TVM's VM does; `f` returning
`VMInstrumentReturnKind.SKIP_RUN` before a call skips it."""

from __future__ import annotations

import enum
from typing import Any, Callable

Func = Callable[..., Any]


class VMInstrumentReturnKind(enum.IntEnum):
    """What an instrument answers before a call: go on, or skip the call."""

    NO_OP = 0
    SKIP_RUN = 1


def instrumented(func: Func, name: str, instrument: Func) -> Func:
    def call(*args: Any) -> Any:
        if instrument(func, name, True, None, *args) == VMInstrumentReturnKind.SKIP_RUN:
            return None
        ret = func(*args)
        instrument(func, name, False, ret, *args)
        return ret

    return call


def instrumented_table(table: list[Func], names: list[str], instrument: Func) -> list[Func]:
    """The function table with every entry wrapped by `instrument`."""
    return [instrumented(f, n, instrument) for f, n in zip(table, names)]
