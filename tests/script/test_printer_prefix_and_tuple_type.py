"""Printer details matched to apache-tvm 0.27: a TupleType printed alone is `T.Tuple(...)`, and
a namespace prefix that is no identifier is refused with a RuntimeError."""

import pytest
from tvmlite import ir, relax
from tvmlite.script import tir as T


def test_a_tuple_type_alone_prints_as_t_tuple():
    assert ir.TupleType([ir.PrimType("float32"), ir.PrimType("int32")]).script() == \
        "T.Tuple(T.float32, T.int32)"
    nested = ir.TupleType([ir.PrimType("int32"), ir.TupleType([ir.PrimType("float32")])])
    assert nested.script() == "T.Tuple(T.int32, T.Tuple(T.float32))"
    assert relax.TupleStructInfo([]).script() == "R.Tuple"


@pytest.mark.parametrize("key", ["ir_prefix", "tir_prefix", "relax_prefix"])
def test_a_prefix_that_is_no_identifier_is_refused(key):
    @T.prim_func
    def f():
        T.evaluate(0)

    mod = ir.IRModule({"f": f})
    with pytest.raises(RuntimeError, match=key):
        mod.script(**{key: "2I"})
    with pytest.raises(RuntimeError):
        f.script(**{key: "a-b"})
    assert mod.script(**{key: "I"}) == mod.script()
