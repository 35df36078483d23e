"""TVM-compatibility details of the script layer that TVM's own tests rely on: `R.Any`,
TVM's relax type-proxy class names, printer options, and `from_source` keywords."""

from __future__ import annotations

import tvmlite as tvm
from tvmlite.ir import struct_info as si
from tvmlite.script import from_source
from tvmlite.script import relax as R
from tvmlite.script.parser import entry


def test_r_any_is_object_struct_info():
    assert R.Any() == si.ObjectStructInfo()
    src = "@R.function\ndef f(A: R.Any):\n    B = R.match_cast(A, R.Tensor)\n    return B\n"
    func = from_source(src)
    assert isinstance(func.params[0].struct_info, si.ObjectStructInfo)
    text = func.script(show_meta=True)
    tvm.ir.assert_structural_equal(func, from_source(text, check_well_formed=False))


def test_relax_proxy_class_names():
    for name, made in [("AnyProxy", si.ObjectStructInfo), ("TensorProxy", si.TensorStructInfo),
                       ("ShapeProxy", si.ShapeStructInfo), ("TupleProxy", si.TupleStructInfo)]:
        proxy = getattr(entry, name)
        assert proxy.__name__ == name
        assert isinstance(proxy(), made)


def test_from_source_takes_extra_vars():
    src = '@T.prim_func\ndef f(A: T.Buffer((N,), "float32")):\n    A[0] = T.float32(0)\n'
    func = from_source(src, extra_vars={"N": 16})
    assert func.buffer_map[0][1].shape[0].value == 16
    assert func.script(show_meta=True, verbose_expr=True) == func.script()
