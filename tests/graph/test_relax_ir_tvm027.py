# ruff: noqa: F841 (TVMScript bodies name what they define)
"""Relax IR classes and the BlockBuilder as TVM 0.27 has them: the types' defaults and
printing, constructors' keywords, subroutines built on demand. Expected texts are apache-tvm
0.27's output."""

import pytest

import tvmlite as tvm
from tvmlite import relax, tir
from tvmlite.ffi import Map
from tvmlite.relax.testing.ast_printer import ASTPrinter
from tvmlite.script import ir as I
from tvmlite.script import relax as R
from tvmlite.script import tir as T


def test_tensor_type_defaults_to_float32_unless_told_unknown():
    assert relax.TensorType().script() == 'R.Tensor(dtype="float32")'
    assert relax.TensorType((4, 8)).dtype == "float32"
    assert relax.TensorType((4, 8), dtype=None).dtype == ""
    assert R.Tensor((4, 8)).dtype == ""  # the script's R.Tensor leaves it unknown


def test_packed_func_type_prints_and_acts_as_an_object():
    t = relax.PackedFuncType()
    assert t.script() == "R.PackedFunc"
    assert ASTPrinter().visit_type_(t) == "PackedFuncType()"
    assert relax.ObjectType().is_base_of(t)
    assert not tvm.ir.structural_equal(t, relax.ObjectType())


def test_match_cast_takes_ty_and_prints_its_variable_annotated():
    x = tir.Var("x", "int64")
    a = relax.Var("a", relax.TensorType([1, x, 3]))
    b = relax.Var("b", relax.TensorType([1, 5, 3]))
    cast = relax.MatchCast(var=b, value=a, ty=b.ty)
    assert cast.struct_info is b.struct_info
    assert cast.script() == (
        'x = T.int64()\na: R.Tensor((1, x, 3), dtype="float32")\n'
        'b: R.Tensor((1, 5, 3), dtype="float32") = '
        'R.match_cast(a, R.Tensor((1, 5, 3), dtype="float32"))')
    with pytest.raises(TypeError):
        relax.MatchCast(b, a)


def test_function_keeps_the_return_type_it_is_given():
    x = relax.Var("x", R.Tensor((3, 4), "float32"))
    coarse = R.Tensor(dtype="float32", ndim=-1)
    assert relax.Function([x], relax.SeqExpr([], x), coarse).ret_ty == coarse
    assert relax.Function([x], relax.SeqExpr([], x)).ret_ty is None


def test_get_shape_of_unknown_dims_calls_shape_of():
    shape = relax.get_shape_of(relax.Var("v", R.Tensor(ndim=2)))
    assert isinstance(shape, relax.Call) and shape.op.name == "relax.shape_of"
    assert shape.struct_info == relax.ShapeType(ndim=2)
    known = relax.get_shape_of(relax.Var("v", R.Tensor((96, 54))))
    assert isinstance(known, relax.ShapeExpr) and [int(d) for d in known] == [96, 54]


def test_grad_kwargs_declare_their_symbolic_vars():
    x = tir.Var("x", "int64")
    v0 = relax.Var("v0", R.Tensor([54, 96], "float32"))
    call = relax.call_tir_with_grad(relax.GlobalVar("tir_func"), (v0,),
                                    R.Tensor((54, 96), "float32"), te_grad_name="grad_func",
                                    te_grad_kwargs={"k": 1.0, "x": x})
    assert isinstance(call.attrs.te_grad_kwargs, Map)
    assert call.script().splitlines()[:2] == [
        'v0: R.Tensor((54, 96), dtype="float32")', "x = T.int64()"]


def test_call_tir_of_a_prim_func_outside_a_module_names_it():
    @T.prim_func
    def copy(a: T.Buffer((4,), "float32"), b: T.Buffer((4,), "float32")):
        for i in range(4):
            b[i] = a[i]

    x = relax.Var("x", R.Tensor((4,), "float32"))
    call = relax.call_tir(copy, [x], R.Tensor((4,), "float32"))
    assert call.args[0].gvar.name_hint == "copy"


@I.ir_module
class _Cross:
    @T.prim_func
    def tir_func(x: T.Buffer((128,), "float32"), y: T.Buffer((128,), "float32")):
        T.evaluate(0)

    @R.function
    def foo(x: R.Tensor((128,), "float32")) -> R.Tensor((128,), "float32"):
        cls = _Cross
        gv0 = R.call_tir(cls.tir_func, (x,), out_sinfo=R.Tensor((128,), "float32"))
        return gv0


def test_module_alias_names_the_module_in_calls():
    assert "        cls = Module\n        gv0 = R.call_tir(cls.tir_func" in _Cross.script()
    text = _Cross.script(module_alias="")
    assert "cls = " not in text
    assert "        gv0 = R.call_tir(Module.tir_func, (x,)" in text


def _subroutine(bb: relax.BlockBuilder) -> relax.GlobalVar:
    a = relax.Var("A", R.Tensor((8,), "float32"))
    b = relax.Var("B", R.Tensor((8,), "float32"))
    with bb.function("subroutine", (a, b)):
        return bb.emit_func_output(bb.emit(relax.op.add(a, b)))


@I.ir_module
class _WithSubroutine:
    @R.function
    def main(A: R.Tensor((8,), "float32"), B: R.Tensor((8,), "float32")
             ) -> R.Tensor((8,), "float32"):
        out = _WithSubroutine.subroutine(A, B)
        return out

    @R.function
    def subroutine(A: R.Tensor((8,), "float32"), B: R.Tensor((8,), "float32")
                   ) -> R.Tensor((8,), "float32"):
        out = R.add(A, B)
        return out


@pytest.mark.parametrize("during_main", [False, True])
def test_subroutine_built_before_or_during_main(during_main):
    bb = relax.BlockBuilder()
    a = relax.Var("A", R.Tensor((8,), "float32"))
    b = relax.Var("B", R.Tensor((8,), "float32"))
    sub = None if during_main else _subroutine(bb)
    with bb.function("main", (a, b)):
        sub = sub or _subroutine(bb)  # pauses main, which resumes afterwards
        out = bb.emit(sub(a, b))
        assert out.struct_info == R.Tensor((8,), "float32")
        bb.emit_func_output(out)
    tvm.ir.assert_structural_equal(bb.get(), _WithSubroutine)


def test_ir_builder_relax_ir_module_path():
    from tvmlite.script.ir_builder.relax.ir import emit, function, py_print

    assert py_print is print
    assert callable(emit) and callable(function)


def test_op_input_of_the_wrong_kind_is_a_type_error():
    bb = relax.BlockBuilder()
    with pytest.raises(TypeError, match="must be a tensor"):
        bb.normalize(relax.op.astype(relax.Var("s", relax.ShapeType((2, 3))), "float16"))


def test_quantize_of_unknown_dtype_leaves_the_result_dtype_unknown():
    x = relax.Var("x", R.Tensor((2, 3), dtype=None))
    s = relax.Var("s", R.Tensor((3,), "float32"))
    zp = relax.Var("zp", R.Tensor((3,), "int8"))
    out = relax.BlockBuilder().normalize(relax.op.quantize(x, s, zp, 1, "int8"))
    assert out.struct_info == relax.TensorType((2, 3), dtype=None)
    known = relax.Var("k", R.Tensor((2, 3), "float32"))
    assert relax.op.quantize(known, s, zp, 1, "int8").struct_info.dtype == "int8"


def test_function_output_that_is_no_leaf_is_bound():
    x = relax.Var("x", R.Tensor((2, 3), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("f", [x]):
        y = bb.emit(relax.op.exp(x))
        bb.emit_func_output(relax.op.add(y, x))
    f = bb.get()["f"]
    (block,) = f.body.blocks
    assert [b.value.op.name for b in block.bindings] == ["relax.exp", "relax.add"]
    assert f.body.body is block.bindings[1].var


def test_tensor_type_shaped_by_a_shape_variable_keeps_its_rank():
    known = relax.Var("s", relax.ShapeType((2, 3)))
    rank_only = relax.Var("s", relax.ShapeType(ndim=2))
    unknown = relax.Var("s", relax.ShapeType())
    # the shape stands for the variable's value, known at run time: only the rank is kept
    assert relax.TensorType(known, "float32") == relax.TensorType(ndim=2, dtype="float32")
    assert relax.TensorType(rank_only, "float32") == relax.TensorType(ndim=2)
    assert relax.TensorType(unknown, "float32") == relax.TensorType()
    x = relax.Var("x", relax.TensorType(rank_only, "float32"))
    cast = relax.BlockBuilder().normalize(relax.op.astype(x, "float16"))
    assert cast.struct_info == relax.TensorType(rank_only, "float16")


def test_tensor_shape_answers_as_a_shape_expression():
    x = relax.Var("x", R.Tensor((10, 20), "float32"))
    shape = x.struct_info.shape
    assert shape == (10, 20) and [int(d) for d in shape.values] == [10, 20]
    tvm.ir.assert_structural_equal(shape.ty, R.Shape((10, 20)))
    tvm.ir.assert_structural_equal(x.struct_info, relax.TensorType((10, 20), "float32"))
    assert relax.TensorType(shape, "int32").ndim == 2  # a shape taken from another tensor


def test_shape_expr_values_are_int64():
    m = tir.Var("m", "int32")
    with pytest.raises(RuntimeError, match="can only have dtype of int64"):
        relax.ShapeExpr([m, 3])
    assert relax.ShapeExpr([tir.Var("n", "int64"), 3]).struct_info.ndim == 2


@pytest.mark.parametrize("kind", [relax.Var, relax.DataflowVar])
def test_var_takes_name_and_ty_keywords(kind):
    s = R.Tensor((2,), "float32")
    v = kind(name="v", ty=s)
    assert type(v) is kind and v.name == "v" and v.struct_info is s
    assert kind(name_hint="w").name == "w" and kind("u", s).struct_info is s
    with pytest.raises(TypeError, match="Specify either name or name_hint, not both"):
        kind(name="a", name_hint="b")
