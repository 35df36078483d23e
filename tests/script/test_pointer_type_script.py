"""`.script()` of a pointer type and of a variable typed by one, and the tir-level calls
`tirx.if_then_else` / `tirx.max` / `tirx.min`; expected texts are what TVM 0.27 prints."""

import numpy as np

from tvmlite import ir, tirx
from tvmlite.tir import expr as tx


def test_pointer_type_prints_as_a_handle_annotation():
    assert ir.PointerType(ir.PrimType("int32"), "global").script() == 'T.handle("int32", "global")'
    assert ir.PointerType(ir.PrimType("void")).script() == "T.handle"
    assert ir.PointerType(ir.PrimType("void"), "shared").script() == \
        'T.handle(storage_scope="shared")'


def test_var_of_pointer_type_is_defined_by_a_handle_call():
    shared = tx.Var("a", ir.PointerType(ir.PrimType("void"), "shared"))
    assert shared.script() == 'a = T.handle(storage_scope="shared")\na'
    typed = tx.Var("p", ir.PointerType(ir.PrimType("float32"), "global"))
    assert typed.script() == 'p = T.handle("float32", "global")\np'
    assert tx.Var("h", "handle").script() == "h = T.handle()\nh"


def test_tirx_select_and_extrema_build_expressions():
    x = tx.Var("x", "int32")
    assert tirx.max(x, 1).script() == "x = T.int32()\nT.max(x, 1)"
    assert tirx.min(x, 1).script() == "x = T.int32()\nT.min(x, 1)"
    picked = tirx.if_then_else(x > 0, x, 0)
    assert picked.script() == "x = T.int32()\nT.if_then_else(x > 0, x, 0)"
    assert picked.dtype == np.dtype("int32").name
