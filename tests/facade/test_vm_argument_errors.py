"""Bad arguments to `vm["main"]` raise our ValueError and, at once, the class TVM 0.27's VM
raises for the same mistake (measured on apache-tvm 0.27: a wrong dimension is a RuntimeError,
a wrong rank or dtype a ValueError, a value of the wrong kind a TypeError)."""

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax
from tvmlite.script import ir as I
from tvmlite.script import relax as R


@I.ir_module
class TwoInputs:
    @R.function
    def main(x: R.Tensor(("n", 4), "float32"), y: R.Tensor(("n", 4), "float32"),
             s: R.Shape(["k"])):
        return x


def _t(shape, dtype="float32"):
    return tvm.nd.array(np.zeros(shape, dtype))


GOOD = (_t((2, 4)), _t((2, 4)), tvm.runtime.ShapeTuple([1]))
CASES = [  # (argument index, bad value, TVM's class, message)
    (0, _t((4,)), ValueError, r"'x': expected a rank-2 tensor, got rank 1"),
    (1, _t((3, 4)), RuntimeError, r"'y': shape\[0\] is n, which is 2 from an earlier argument"),
    (0, _t((2, 5)), RuntimeError, r"'x': expected shape\[1\] == 4, got 5"),
    (0, _t((2, 4), "int32"), ValueError, r"'x': expected dtype float32, got int32"),
    (0, 3, TypeError, r"'x': expected a tensor, got int"),
    (2, 3, TypeError, r"'s': expected a shape"),
    (2, tvm.runtime.ShapeTuple([1, 2]), ValueError, r"'s': expected a shape of 1 values, got 2"),
]


@pytest.mark.parametrize("mode", ["auto", "interpreter"])
@pytest.mark.parametrize("index,bad,tvm_class,message", CASES)
def test_bad_argument_is_valueerror_and_tvms_class(mode, index, bad, tvm_class, message):
    vm = relax.VirtualMachine(relax.build(TwoInputs, "llvm"), tvm.cpu(), mode=mode)
    args = list(GOOD)
    args[index] = bad
    with pytest.raises(ValueError, match=message) as caught:
        vm["main"](*args)
    assert isinstance(caught.value, tvm_class)


def test_good_arguments_still_run():
    vm = relax.VirtualMachine(relax.build(TwoInputs, "llvm"), tvm.cpu())
    np.testing.assert_array_equal(vm["main"](*GOOD).numpy(), np.zeros((2, 4), "float32"))
