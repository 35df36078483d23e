"""A scatter whose index lies outside the data skips that update in a built kernel: no write
lands outside the output (TVM's kernels do not check; ours must never corrupt memory)."""

import numpy as np

import tvmlite as tvm
from tvmlite import relax
from tvmlite.script import ir as I
from tvmlite.script import relax as R


@I.ir_module
class Scatter:
    @R.function
    def elements(x: R.Tensor((2, 4), "float32"), i: R.Tensor((2, 2), "int64"),
                 u: R.Tensor((2, 2), "float32")):
        y = R.scatter_elements(x, i, u, axis=1)
        return y

    @R.function
    def nd(x: R.Tensor((4,), "float32"), i: R.Tensor((3, 1), "int64"),
           u: R.Tensor((3,), "float32")):
        y = R.scatter_nd(x, i, u)
        return y


def test_out_of_range_indices_are_skipped():
    vm = relax.VirtualMachine(tvm.compile(Scatter, "llvm"), tvm.cpu())
    x = np.zeros((2, 4), "float32")
    got = vm["elements"](tvm.nd.array(x), tvm.nd.array(np.array([[1, 9], [-1, 1000]])),
                         tvm.nd.array(np.array([[1, 2], [3, 4]], "float32"))).numpy()
    expected = x.copy()
    expected[0, 1], expected[1, 3] = 1, 3  # -1 counts from the end; 9 and 1000 are skipped
    np.testing.assert_array_equal(got, expected)
    got = vm["nd"](tvm.nd.array(np.zeros(4, "float32")),
                   tvm.nd.array(np.array([[2], [7], [-5]])),
                   tvm.nd.array(np.array([1, 2, 3], "float32"))).numpy()
    np.testing.assert_array_equal(got, [0, 0, 1, 0])
