"""How LegalizeOps finds an operator's rule: TVM's `FLegalize` attribute over the built-in
rules (reset, registered back), and calls whose shapes are unknown left alone."""

import tvmlite as tvm
from tvmlite import relax
from tvmlite.ir import assert_structural_equal
from tvmlite.relax.transform.legalize_ops import register_legalize
from tvmlite.script import ir as I
from tvmlite.script import relax as R


def _adds():
    @I.ir_module
    class Adds:
        @R.function
        def main(x: R.Tensor((3, 3), "float32")):
            gv = R.add(x, x)
            return gv

    return Adds


def test_reset_flegalize_leaves_the_op_and_registering_it_back_restores_it():
    op = tvm.ir.Op.get("relax.add")
    builtin = op.get_attr("FLegalize")
    assert callable(builtin)
    op.reset_attr("FLegalize")
    try:
        assert op.get_attr("FLegalize") is None
        assert_structural_equal(relax.transform.LegalizeOps()(_adds()), _adds())
    finally:
        register_legalize("relax.add", builtin)
    after = relax.transform.LegalizeOps()(_adds())
    call = after["main"].body.blocks[0].bindings[0].value
    assert call.op.name == "relax.call_tir" and "add" in after


def test_builtin_flegalize_called_like_tvms_emits_the_kernel():
    x = relax.Var("x", R.Tensor((2, 2), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        call = bb.normalize(R.multiply(x, x))
        legal = tvm.ir.Op.get("relax.multiply").get_attr("FLegalize")(bb, call)
        gv = bb.emit(legal)
        bb.emit_func_output(gv)
    mod = bb.get()
    assert legal.op.name == "relax.call_tir" and "multiply" in mod


def test_tensor_shaped_by_a_shape_variable_keeps_its_rank_and_stays_unlegalized():
    s = relax.Var("s", relax.ShapeStructInfo((3, 3)))
    y = relax.Var("y", relax.TensorStructInfo(s, "float32"))
    assert (y.struct_info.shape, y.struct_info.ndim) == (None, 2)
    x = relax.Var("x", relax.TensorStructInfo((3, 3), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x, y]):
        gv = bb.emit(R.add(x, y))
        bb.emit_func_output(gv)
    before = bb.get()
    assert_structural_equal(relax.transform.LegalizeOps()(before), before)
