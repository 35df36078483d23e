"""The 2022-08 MLC generation's relax API (issue 16 item 7): DynTensorType, the
`Var(name, shape, type)` constructor, `shape_`, `_checked_type_`, `relax.const(..., type)`."""

import numpy as np

import tvmlite as tvm
from tvmlite import relax
from tvmlite.ir.expr import Var
from tvmlite.ir.legacy_types import DynTensorType
from tvmlite.ir.ops.base import const
from tvmlite.ir.struct_info import TensorStructInfo


def test_var_from_shape_and_dyn_tensor_type():
    x = Var("x", (1, 784), DynTensorType(2, "float32"))
    assert isinstance(x.struct_info, TensorStructInfo)
    assert [d.value for d in x.struct_info.shape] == [1, 784]
    assert x.struct_info.dtype == "float32" and x.span is None
    assert x._checked_type_ == DynTensorType(2, "float32")
    y = Var("y", x.shape_, x._checked_type_)  # the FuseDenseAdd pass of MLC chapter 6
    assert [d.value for d in y.struct_info.shape] == [1, 784]


def test_fx_style_builder_with_old_types():
    """MLC 2022 chapter 5: from_fx builds params with DynTensorType and map_param."""
    w = np.random.rand(4, 3).astype("float32")
    bb = relax.BlockBuilder()
    x = Var("x", (2, 3), DynTensorType(2, "float32"))
    with bb.function("main"):
        with bb.dataflow():
            wc = const(w, DynTensorType(2, "float32"))
            lv = bb.emit(relax.op.matmul(x, relax.op.permute_dims(wc)))
            out = bb.emit_output(relax.op.multiply(lv, lv))
        bb.emit_func_output(out, [x])
    vm = relax.VirtualMachine(relax.build(bb.get(), "llvm"), tvm.cpu())
    a = np.random.rand(2, 3).astype("float32")
    np.testing.assert_allclose(vm["main"](a).numpy(), (a @ w.T) ** 2, rtol=1e-5)


def test_rank_mismatch_is_refused():
    import pytest

    with pytest.raises(ValueError, match="2 dims but the type says ndim=3"):
        Var("x", (1, 2), DynTensorType(3, "float32"))


def test_relax_dataflow_and_output_in_tvmscript():
    """`with relax.dataflow():` / `relax.output(...)` and the bare-name, shape-plus-dtype
    call_tir of the 2022 notebooks."""
    import types

    from tvmlite.script import relax as R
    from tvmlite.script import tir as T

    # NOTE: tvmlite.relax exports dataflow/output through the facade; stand in until it does
    relax_ns = types.SimpleNamespace(dataflow=getattr(relax, "dataflow", R.dataflow),
                                     output=getattr(relax, "output", R.output))

    @tvm.script.ir_module
    class MyModule:
        @T.prim_func
        def relu0(X: T.Buffer[(1, 4), "float32"], Y: T.Buffer[(1, 4), "float32"]):  # noqa: F821
            T.func_attr({"global_symbol": "relu0", "tir.noalias": True})
            for i, j in T.grid(1, 4):
                with T.block("Y"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    Y[vi, vj] = T.max(X[vi, vj], T.float32(0))

        @R.function
        def main(x: R.Tensor((1, 4), "float32")):
            with relax_ns.dataflow():
                lv0 = R.call_tir(relu0, (x,), (1, 4), dtype="float32")  # noqa: F821
                relax_ns.output(lv0)
            return lv0

    vm = relax.VirtualMachine(relax.build(MyModule, "llvm"), tvm.cpu())
    a = np.random.randn(1, 4).astype("float32")
    np.testing.assert_array_equal(vm["main"](tvm.nd.array(a)).numpy(), np.maximum(a, 0))
