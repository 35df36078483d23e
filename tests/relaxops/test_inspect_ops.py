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
