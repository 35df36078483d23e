"""Normalize (transforms/normalize.py): IR built by hand, out of A-normal form, becomes what the
parser builds, in the forms apache-tvm 0.27's Normalize produces for the same input."""

from tvmlite import relax, tir
from tvmlite.ir import assert_structural_equal
from tvmlite.script import relax as R


def _normalize(func):
    import tvmlite as tvm

    return relax.transform.Normalize()(tvm.IRModule.from_expr(func))["main"]


def test_nested_calls_are_bound_and_the_result_too():
    m, n = tir.Var("m", "int64"), tir.Var("n", "int64")
    x = relax.Var("x", R.Tensor([m, n], "float16"))
    body = relax.op.multiply(relax.op.add(x, x), relax.op.add(x, x))
    after = _normalize(relax.Function([x], body, ret_ty=R.Tensor(ndim=2, dtype="float16")))

    @R.function(private=True)
    def expected(x: R.Tensor(("m", "n"), "float16")) -> R.Tensor(ndim=2, dtype="float16"):
        gv = R.add(x, x)
        gv1 = R.add(x, x)
        gv2 = R.multiply(gv, gv1)
        return gv2

    assert_structural_equal(after, expected)


def test_nested_sequences_flatten_and_blocks_merge():
    x = relax.Var("x", R.Tensor([], "int32"))
    v0, v1, y = (relax.Var(n, R.Tensor([], "int32")) for n in ("v0", "v1", "y"))
    inner = relax.SeqExpr([relax.DataflowBlock([relax.VarBinding(v1, v0)])], v1)
    seq = relax.SeqExpr([relax.DataflowBlock([relax.VarBinding(v0, x)]),
                         relax.BindingBlock([relax.VarBinding(y, inner)])], y)
    after = _normalize(relax.Function([x], seq, ret_ty=R.Tensor([], "int32")))
    kinds = [type(b).__name__ for b in after.body.blocks]
    assert kinds == ["DataflowBlock", "BindingBlock"]
    assert [b.var.name for b in after.body.blocks[0].bindings] == ["v0", "v1"]
    assert after.body.blocks[1].bindings[0].value is after.body.blocks[0].bindings[1].var


def test_if_branches_become_sequences_and_the_var_gets_struct_info():
    cond = relax.Var("cond", R.Tensor([], "bool"))
    x = relax.Var("x", R.Tensor([1], "float32"))
    y = relax.Var("y")
    if_node = relax.If(cond, relax.op.add(x, x), relax.op.multiply(x, x))
    seq = relax.SeqExpr([relax.BindingBlock([relax.VarBinding(y, if_node)])], y)
    after = _normalize(relax.Function([cond, x], seq, ret_ty=R.Tensor(ndim=1, dtype="float32")))
    binding = after.body.blocks[0].bindings[0]
    branch = binding.value.true_branch
    assert isinstance(branch, relax.SeqExpr) and branch.blocks[0].bindings[0].value.op.name \
        == "relax.add"
    assert branch.body is branch.blocks[0].bindings[0].var
    assert binding.var.struct_info == R.Tensor((1,), "float32")
