"""FuseTIR: members that share one prim_func get allocations of their own, and a shape
parameter of the fused function reaches the kernel as its symbolic dims."""

import numpy as np

import tvmlite as tvm
from tvmlite import relax
from tvmlite.ir import expr as rx
from tvmlite.script import ir as I
from tvmlite.script import relax as R
from tvmlite.script import tir as T


@I.ir_module
class SharedKernel:
    @T.prim_func(private=True)
    def double_via_temp(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        tmp = T.alloc_buffer((4,))
        for i in range(4):
            with T.block("tmp"):
                vi = T.axis.spatial(4, i)
                tmp[vi] = A[vi] + A[vi]
        for i in range(4):
            with T.block("B"):
                vi = T.axis.spatial(4, i)
                B[vi] = tmp[vi]

    @R.function(private=True)
    def fused(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        R.func_attr({"Primitive": True})
        cls = SharedKernel
        with R.dataflow():
            a = R.call_tir(cls.double_via_temp, (x,), R.Tensor((4,), "float32"))
            b = R.call_tir(cls.double_via_temp, (a,), R.Tensor((4,), "float32"))
            R.output(b)
        return b

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = SharedKernel
        with R.dataflow():
            y = cls.fused(x)
            z = R.call_tir(cls.double_via_temp, (y,), R.Tensor((4,), "float32"))
            R.output(z)
        return z


def test_each_inlined_member_allocates_its_own_buffers():
    after = relax.transform.FuseTIR()(SharedKernel)
    shared = after["double_via_temp"].body.block.alloc_buffers[0].data
    datas = [b.data for b in after["fused"].body.block.alloc_buffers]
    assert shared not in datas
    assert len(set(map(id, datas))) == len(datas)
    vm = relax.VirtualMachine(relax.build(after, "llvm"), tvm.cpu())
    x = np.arange(4, dtype="float32")
    np.testing.assert_allclose(vm["main"](tvm.nd.array(x)).numpy(), 8 * x)


@I.ir_module
class ShapeParam:
    @T.prim_func(private=True)
    def take_row(Y: T.Buffer((8, 4), "float32"), m: T.int64, out: T.Buffer((4,), "float32")):
        for j in range(4):
            with T.block("out"):
                vj = T.axis.spatial(4, j)
                out[vj] = Y[m - 1, vj]

    @R.function(private=True)
    def fused(y: R.Tensor((8, 4), "float32"), n: R.Shape(["m"])) -> R.Tensor((4,), "float32"):
        R.func_attr({"Primitive": True})
        m = T.int64()
        cls = ShapeParam
        with R.dataflow():
            r = R.call_tir(cls.take_row, (y, m), R.Tensor((4,), "float32"))
            R.output(r)
        return r

    @R.function
    def main(y: R.Tensor((8, 4), "float32"), n: R.Shape(["m"])) -> R.Tensor((4,), "float32"):
        cls = ShapeParam
        with R.dataflow():
            r = cls.fused(y, n)
            R.output(r)
        return r


def test_shape_variable_argument_is_passed_as_its_dims():
    after = relax.transform.FuseTIR()(ShapeParam)
    call = after["main"].body.blocks[0].bindings[0].value
    last = call.args[1].fields[-1]
    assert isinstance(last, rx.PrimValue)
    assert last.value is after["main"].params[1].struct_info.values[0]
