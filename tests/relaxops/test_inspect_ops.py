"""relax.inspect.*: a tensor's DLPack fields read at run time, against numpy's view of it."""

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax
from tvmlite.ir import Op
from tvmlite.script import ir as I
from tvmlite.script import relax as R


def field(name, *args):
    return relax.Call(Op.get(f"relax.inspect.{name}"), args)


@I.ir_module
class Mod:
    @R.function
    def main(a: R.Tensor):
        return (field("tensor_dtype_code", a), field("tensor_dtype_bits", a),
                field("tensor_dtype_lanes", a), field("tensor_ndim", a),
                field("tensor_shape_i", a, R.prim_value(1)),
                field("tensor_stride_i", a, R.prim_value(0)),
                field("tensor_elem_offset", a))


@pytest.mark.parametrize("dtype, code", [("int32", 0), ("uint8", 1), ("float32", 2)])
def test_fields_match_numpy(dtype, code):
    vm = relax.VirtualMachine(tvm.compile(Mod, "llvm"), tvm.cpu())
    a = np.zeros((3, 5, 2), dtype)
    got = [int(v) for v in vm["main"](tvm.nd.array(a))]
    assert got == [code, a.itemsize * 8, 1, 3, 5, 10, 0]


def test_shape_i_past_the_rank_is_an_error():
    @I.ir_module
    class Bad:
        @R.function
        def main(a: R.Tensor):
            return field("tensor_shape_i", a, R.prim_value(3))

    vm = relax.VirtualMachine(tvm.compile(Bad, "llvm"), tvm.cpu())
    with pytest.raises(IndexError, match="axis 3 is out of range"):
        vm["main"](tvm.nd.array(np.zeros((2, 2), "float32")))


# dtypes numpy cannot name: (DLPack code, bits, lanes) as DLPack defines them
@pytest.mark.parametrize("dtype, expected", [
    ("float32x4", (2, 32, 4)), ("bfloat", (4, 16, 1)), ("bfloat16", (4, 16, 1)),
    ("float8_e4m3fn", (10, 8, 1)), ("float8_e5m2", (12, 8, 1)), ("int8x16", (0, 8, 16)),
    ("bool", (6, 8, 1)),
])
def test_dtype_fields_of_tvm_only_dtypes(dtype, expected):
    vm = relax.VirtualMachine(tvm.compile(Mod, "llvm"), tvm.cpu())
    a = tvm.runtime.empty([4, 6], dtype)
    assert a.dtype == dtype and a.shape == (4, 6)
    got = [int(v) for v in vm["main"](a)]
    assert tuple(got[:3]) == expected
    assert got[3:] == [2, 6, 6, 0]


def test_views_report_their_byte_and_elem_offsets():
    vm = relax.VirtualMachine(tvm.compile(Mod, "llvm"), tvm.cpu())
    base = tvm.nd.array(np.arange(64, dtype="int32"))
    view = base._create_view([4, 2], "int32", relative_byte_offset=16)
    assert view.byte_offset == 16
    np.testing.assert_array_equal(view.numpy(), np.arange(4, 12).reshape(4, 2))
    inner = view._create_view([2], relative_byte_offset=8)  # offsets add up
    assert inner.byte_offset == 24
    np.testing.assert_array_equal(inner.numpy(), [6, 7])
    assert [int(v) for v in vm["main"](view)][4:] == [2, 2, 4]  # shape[1], stride[0], 16 / 4


def test_view_shares_memory_and_reinterprets_dtype():
    base = tvm.nd.array(np.zeros(4, "float32"))
    view = base._create_view([4], "int32")
    base.copyfrom(np.array([1.0, 2.0, 0.5, -1.0], "float32"))
    np.testing.assert_array_equal(view.numpy(), np.array([1.0, 2.0, 0.5, -1.0],
                                                         "float32").view("int32"))


def test_view_past_the_end_is_an_error():
    base = tvm.nd.array(np.zeros(8, "int32"))
    with pytest.raises(ValueError, match="does not fit"):
        base._create_view([4], "int32", relative_byte_offset=20)
