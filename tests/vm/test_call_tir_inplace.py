"""R.call_tir_inplace: outputs that are the chosen arguments, written in place (and fresh ones
for -1), through the parser, the printer and the VM."""

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax
from tvmlite.ir import assert_structural_equal
from tvmlite.script import from_source
from tvmlite.script import ir as I
from tvmlite.script import relax as R
from tvmlite.script import tir as T


@I.ir_module
class Copy:
    @T.prim_func
    def copy(a: T.Buffer((2, 3), "int32"), b: T.Buffer((2, 3), "int32"),
             c: T.Buffer((2, 3), "int32"), out: T.Buffer((2, 3), "int32")):
        for i0, i1 in T.grid(2, 3):
            with T.block("copy"):
                i, j = T.axis.remap("SS", [i0, i1])
                a[i, j] = c[i, j]
                b[i, j] = c[i, j] * 2
                out[i, j] = c[i, j] * 3

    @R.function
    def main(x: R.Tensor((2, 3), "int32"), y: R.Tensor((2, 3), "int32"),
             z: R.Tensor((2, 3), "int32")):
        res = R.call_tir_inplace(Copy.copy, (x, y, z), [0, 1, -1],
                                 [R.Tensor((2, 3), "int32"), R.Tensor((2, 3), "int32"),
                                  R.Tensor((2, 3), "int32")])
        return res


def test_call_tir_inplace_prints_parses_and_writes_its_arguments():
    text = Copy.script()
    assert "inplace_indices=[0, 1, -1]" in text
    assert_structural_equal(from_source(text), Copy)
    ex = relax.build(Copy, target="llvm")
    x, y = (tvm.nd.array(np.zeros((2, 3), "int32")) for _ in range(2))
    z = tvm.nd.array(np.arange(6, dtype="int32").reshape(2, 3))
    a, b, c = relax.VirtualMachine(ex, tvm.cpu())["main"](x, y, z)
    np.testing.assert_array_equal(x.numpy(), z.numpy())  # written in place
    np.testing.assert_array_equal(y.numpy(), 2 * z.numpy())
    np.testing.assert_array_equal(a.numpy(), z.numpy())
    np.testing.assert_array_equal(b.numpy(), 2 * z.numpy())
    np.testing.assert_array_equal(c.numpy(), 3 * z.numpy())


def test_call_tir_inplace_refuses_bad_indices():
    x = relax.Var("x", R.Tensor((2, 3), "int32"))
    gv = tvm.ir.GlobalVar("copy")
    with pytest.raises(Exception, match="inplace_indices"):
        relax.call_tir_inplace(gv, (x,), [-1], R.Tensor((2, 3), "int32"))
    call = relax.call_tir_inplace(gv, (x,), 0, R.Tensor((2, 3), "int32"))
    assert tuple(call.attrs["inplace_indices"]) == (0,)


def test_dataflow_use_inplace_calls_writes_into_dead_operands():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((1, 3), "float32")):
            with R.dataflow():
                z = R.add(x, y)  # x is a parameter: a new tensor
                a = R.add(z, y)  # z dies here: written in place
                q = R.multiply(a, y)  # a dies here too
                k = R.exp(q)  # q is read again below: not in place
                m = R.multiply(q, k)
                R.output(m)
            return m

    after = relax.transform.DataflowUseInplaceCalls()(Before)
    ops = [b.value.op.name for b in after["main"].body.blocks[0].bindings]
    assert ops == ["relax.add", "relax.call_tir_inplace", "relax.call_tir_inplace",
                   "relax.exp", "relax.call_tir_inplace"]
    kernel = after[after["main"].body.blocks[0].bindings[1].value.args[0].gvar]
    assert len(kernel.params) == 2  # no output buffer: it writes its first input
    x = np.random.default_rng(0).random((2, 3)).astype("float32")
    y = np.random.default_rng(1).random((1, 3)).astype("float32")
    ex = relax.build(after, target="llvm")
    out = relax.VirtualMachine(ex, tvm.cpu())["main"](tvm.nd.array(x), tvm.nd.array(y))
    q = (x + y + y) * y
    np.testing.assert_allclose(out.numpy(), q * np.exp(q), rtol=1e-6)
