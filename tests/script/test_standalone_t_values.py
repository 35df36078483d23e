"""Values the T namespace makes outside a function, as TVM 0.27 makes them: `T.Buffer(...)` is
a buffer, `T.handle(dtype, scope)` a variable typed by its PointerType."""

from tvmlite import ir, tir
from tvmlite.script import tir as TS


def test_a_pointer_made_outside_a_function_keeps_its_type():
    p = TS.handle("float32", "shared")
    assert isinstance(p.ty, ir.PointerType)
    assert p.ty.element_type == ir.PrimType("float32") and p.ty.storage_scope == "shared"


def test_a_buffer_declared_outside_a_function_is_a_buffer():
    buf = TS.Buffer((128, 128), "float32")
    assert tir.is_buffer_var(buf) and isinstance(buf, tir.Buffer)
    assert [int(d) for d in buf.shape] == [128, 128]
    assert buf.dtype == ir.PrimType("float32") and ir.PrimType("int32") != buf.dtype
    assert ir.PrimType("float32") == "float32"  # TVM 0.27's dtype is a PrimType
    assert ir.PrimType("int64", tir.IntImm("int64", 1)) != "int64"  # one with a value is not
