"""`tvm.ir` and `tvm.runtime` names beyond the containers: each against TVM 0.27's behaviour
(written out by hand here: TVM's Range(2, 10) has min 2 and extent 8, DataType("bool") has 8
bits and code 6, ...)."""

import json

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax, tir
from tvmlite.script import ir as I
from tvmlite.script import relax as R


def test_range_is_half_open_from_begin_to_end():
    r = tvm.ir.Range(2, 10)
    assert (r.min.value, r.extent.value) == (2, 8)
    assert tvm.ir.Range(5).extent.value == 5 and tvm.ir.Range(5).min.value == 0
    assert isinstance(r, tvm.ir.Range)
    n = tir.Var("n", "int64")
    assert tvm.ir.Range.from_min_extent(0, n).extent is n


def test_var_is_both_kinds_of_variable():
    n = tvm.ir.Var("n", "int64")
    x = tvm.ir.Var("x", R.Tensor((2,), "float32"))
    assert isinstance(n, tir.Var) and isinstance(x, relax.Var)
    assert isinstance(n, tvm.ir.Var) and isinstance(x, tvm.ir.Var)
    assert tvm.ir.is_prim_var(n) and not tvm.ir.is_prim_var(x)
    assert tvm.ir.is_prim_expr(n + 1) and not tvm.ir.is_prim_expr(x)


@R.function
def double(x: R.Tensor((3,), "float32")):
    y = R.add(x, x)
    return y


def test_base_classes_answer_isinstance_as_in_tvm():
    assert isinstance(double, tvm.ir.BaseFunc) and isinstance(double, tvm.ir.Node)
    assert isinstance(relax.const(1.0), tvm.ir.Constant)
    assert isinstance(tir.IntImm("int32", 1), tvm.ir.Constant)
    assert not isinstance(double, tvm.ir.Constant)
    assert isinstance(double, tvm.runtime.Scriptable)
    assert tvm.ir.CallingConv.DEVICE_KERNEL_LAUNCH == 2
    assert tvm.ir.SourceName("a.py").name == "a.py"
    assert tvm.ir.DictAttrs({"k": 1})["k"] == 1


def test_save_json_load_json_round_trip_a_module():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((3,), "float32")):
            y = R.multiply(x, x)
            return y

    text = tvm.ir.save_json(Mod)
    assert json.loads(text)["kind"] == "module"
    back = tvm.ir.load_json(text)
    tvm.ir.assert_structural_equal(back, Mod)
    func = tvm.ir.load_json(tvm.ir.save_json(double))
    tvm.ir.assert_structural_equal(func.body, double.body, map_free_vars=True)
    with pytest.raises(ValueError, match="save_json"):
        tvm.ir.load_json('{"nodes": []}')


def test_register_op_attr_reaches_the_registry():
    from tvmlite.ir.op import op_attr

    @tvm.ir.register_op_attr("relax.add", "test.marker")
    def marker():
        return "marked"

    assert op_attr("relax.add", "test.marker") is marker


def test_runtime_datatype_const_convert_and_devices():
    d = tvm.runtime.DataType("float32x4")
    assert d == "float32x4" and (d.bits, d.lanes) == (32, 4)
    assert d.type_code == tvm.runtime.DataTypeCode.FLOAT == 2
    assert tvm.runtime.DataType("bool").bits == 8
    with pytest.raises(ValueError, match="not a dtype"):
        tvm.runtime.DataType("float32q")
    c = tvm.runtime.const(3)
    assert (c.dtype, c.value) == ("int32", 3) and tvm.runtime.const(3.0).dtype == "float32"
    assert tvm.runtime.convert([1, [2, 3]]) == (1, (2, 3))
    assert tvm.runtime.device_from_target(tvm.target.Target("llvm")) == tvm.cpu(0)


def test_runtime_module_covers_what_builds_return():
    ex = relax.build(tvm.IRModule({"main": double}), target="llvm")
    assert isinstance(ex, tvm.runtime.Module)
    out = relax.VirtualMachine(ex, tvm.cpu())["main"](tvm.nd.array(np.ones(3, "float32")))
    np.testing.assert_array_equal(out.numpy(), 2 * np.ones(3))
