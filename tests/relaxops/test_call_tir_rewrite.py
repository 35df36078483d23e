"""CallTIRRewrite: explicit allocations and destination-passing calls, which the VM runs as it
runs the original; call_tir_inplace refuses arguments that cannot hold its outputs."""

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax
from tvmlite.script import ir as I
from tvmlite.script import relax as R
from tvmlite.script import tir as T


@tvm.register_func("test.call_tir_rewrite.negate", override=True)
def _negate(x, out):
    out.copyfrom(-x.numpy())


@I.ir_module
class Module:
    @T.prim_func
    def double(A: T.Buffer((2, 3), "float32"), B: T.Buffer((2, 3), "float32")):
        for i, j in T.grid(2, 3):
            B[i, j] = A[i, j] * T.float32(2)

    @T.prim_func
    def add_one(A: T.Buffer((2, 3), "float32")):
        for i, j in T.grid(2, 3):
            A[i, j] = A[i, j] + T.float32(1)

    @R.function
    def main(x: R.Tensor((2, 3), "float32")):
        R.func_attr({"relax.force_pure": True})
        a = R.call_tir(Module.double, (x,), R.Tensor((2, 3), "float32"))
        b = R.call_tir_inplace(Module.add_one, (a,), 0, R.Tensor((2, 3), "float32"))
        c = R.call_dps_packed("test.call_tir_rewrite.negate", (b,),
                              R.Tensor((2, 3), "float32"))
        return c


def test_rewritten_calls_are_explicit_and_compute_the_same():
    after = relax.transform.CallTIRRewrite()(Module)
    text = after["main"].script()
    assert text.count("R.builtin.alloc_tensor(R.shape([2, 3])") == 2
    assert "R.call_tir" not in text and "R.call_dps_packed" not in text
    assert "    add_one(a)\n" in text and "    double(x, alloc)\n" in text  # in place: a only
    x = np.random.rand(2, 3).astype("float32")
    for mod in (Module, after):
        vm = relax.VirtualMachine(tvm.compile(mod, "llvm"), tvm.cpu())
        np.testing.assert_allclose(vm["main"](tvm.nd.array(x)).numpy(), -(2 * x + 1),
                                   rtol=1e-6)


def test_inplace_arguments_must_fit_their_outputs():
    with pytest.raises(tvm.error.DiagnosticError, match="into argument 0 of shape \\(4, 3\\)"):
        @I.ir_module
        class WrongShape:
            @T.prim_func
            def add_one(A: T.Buffer((2, 3), "float32")):
                for i, j in T.grid(2, 3):
                    A[i, j] = A[i, j] + T.float32(1)

            @R.function
            def main(x: R.Tensor((4, 3), "float32")):
                b = R.call_tir_inplace(WrongShape.add_one, (x,), 0,
                                       R.Tensor((2, 3), "float32"))
                return b

    with pytest.raises(tvm.error.DiagnosticError, match="a int32 tensor"):
        @I.ir_module
        class WrongDtype:
            @T.prim_func
            def add_one(A: T.Buffer((2, 3), "float32")):
                for i, j in T.grid(2, 3):
                    A[i, j] = A[i, j] + T.float32(1)

            @R.function
            def main(x: R.Tensor((2, 3), "int32")):
                b = R.call_tir_inplace(WrongDtype.add_one, (x,), 0,
                                       R.Tensor((2, 3), "float32"))
                return b
