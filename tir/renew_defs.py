"""`tvm.s_tir.renew_defs(func)`: a copy of a PrimFunc with fresh definitions (every var, loop
var, block iter var and buffer a new object) and the same behaviour: what TVM's deep copy is
for, e.g. to use one function twice in a module without sharing its vars.

The copy is made by printing the function as TVMScript and parsing it again, so every
definition is created anew by the parser; a function that does not survive that round trip
(structurally unequal afterwards) raises instead of returning something different."""

from __future__ import annotations

from .function import PrimFunc


def renew_defs(func: PrimFunc) -> PrimFunc:
    from ..ir.structural import structural_equal
    from ..script import from_source

    renewed = from_source(func.script())
    if not isinstance(renewed, PrimFunc) or not structural_equal(func, renewed):
        raise ValueError("renew_defs: this function does not print and parse back to an equal "
                         "one, so its definitions cannot be renewed this way")
    return renewed
