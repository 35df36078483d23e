"""A Function's return struct info takes what its body knows when the annotation says less,
as TVM's Function does (values checked with apache-tvm 0.27)."""

from tvmlite import relax, tir
from tvmlite.ir import assert_structural_equal
from tvmlite.script import relax as R


def test_annotation_less_precise_than_body_is_refined():
    @R.function
    def f(x: R.Tensor(("m", "n"), "float16")) -> R.Tensor(dtype="float16", ndim=2):
        gv = R.add(x, x)
        return gv

    m, n = f.params[0].struct_info.shape
    assert_structural_equal(f.ret_struct_info, R.Tensor((m, n), "float16"))

    @R.function
    def g(x: R.Tensor((4, 4), "float32")) -> R.Object:
        return x

    assert_structural_equal(g.ret_struct_info, R.Tensor((4, 4), "float32"))


def test_annotation_more_precise_than_body_is_kept():
    @R.function
    def g(x: R.Tensor(ndim=2, dtype="float32")) -> R.Tensor((4, 4), "float32"):
        return x

    assert_structural_equal(g.ret_struct_info, R.Tensor((4, 4), "float32"))


def test_unnormalized_body_keeps_the_annotation_and_dims_of_the_body_are_forgotten():
    m = tir.Var("m", "int64")
    x = relax.Var("x", R.Tensor([m], "float32"))
    call = relax.op.add(x, x)
    lazy = relax.Function([x], relax.Call(call.op, call.args), ret_ty=R.Tensor(ndim=1))
    assert lazy.ret_struct_info.shape is None  # the body's struct info is not known yet

    k = tir.Var("k", "int64")  # defined in the body only: the return cannot name it
    y = relax.Var("y", R.Tensor([k], "float32"))
    body = relax.SeqExpr([relax.BindingBlock([relax.MatchCast(y, x, R.Tensor([k], "float32"))])],
                         y)
    f = relax.Function([x], body, ret_ty=R.Tensor(ndim=1, dtype="float32"))
    assert_structural_equal(f.ret_struct_info, R.Tensor(ndim=1, dtype="float32"))
