"""Operator arguments written as `R.prim_value(...)`, as TVM 0.27 prints them: strided_slice's
axes and bounds, hamming_window's flags and coefficients."""

import numpy as np

import tvmlite as tvm
from tvmlite import relax
from tvmlite.ir import assert_structural_equal
from tvmlite.script import ir as I
from tvmlite.script import relax as R


def test_strided_slice_takes_prim_values_like_ints():
    x = relax.Var("x", R.Tensor((4, 10), "float32"))
    pv = R.prim_value
    written = R.strided_slice(x, (pv(1),), (pv(2),), (pv(8),), (pv(3),))
    plain = R.strided_slice(x, [1], [2], [8], [3])
    assert_structural_equal(written, plain)
    assert_structural_equal(written.struct_info, R.Tensor((4, 2), "float32"))


def test_hamming_window_takes_prim_values():
    @I.ir_module
    class Mod:
        @R.function
        def main() -> R.Tensor((6,), "float32"):
            w = R.hamming_window(R.prim_value(6), R.prim_value(False), R.prim_value(0.54),
                                 R.prim_value(0.46), dtype="float32")
            return w

    vm = relax.VirtualMachine(tvm.compile(Mod, "llvm"), tvm.cpu())
    n = np.arange(6)
    expected = 0.54 - 0.46 * np.cos(2 * np.pi * n / 5)  # symmetric: divided by N - 1
    np.testing.assert_allclose(vm["main"]().numpy(), expected, rtol=1e-5, atol=1e-6)
