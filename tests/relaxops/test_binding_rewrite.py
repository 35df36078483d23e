"""relax.DataflowBlockRewrite (transforms/binding_rewrite.py): edits of one dataflow block, the
originals untouched."""

import pytest

import tvmlite as tvm
from tvmlite import relax
from tvmlite.ir import assert_structural_equal
from tvmlite.relax.analysis import name_to_binding
from tvmlite.relax.binding_rewrite import DataflowBlockRewrite
from tvmlite.script import ir as I
from tvmlite.script import relax as R


@I.ir_module
class Mod:
    @R.function
    def main(x: R.Tensor((4,), "float32")):
        with R.dataflow():
            a = R.add(x, x)
            b = R.multiply(x, x)  # noqa: F841 - used once the rewrite redirects a
            c = R.add(a, x)
            R.output(c)
        return c


def _rewriter():
    fn = Mod["main"]
    return DataflowBlockRewrite(fn.body.blocks[0], fn), fn


def test_replace_uses_then_remove_the_dead_binding():
    rwt, fn = _rewriter()
    n2b = name_to_binding(fn)
    rwt.replace_all_uses(n2b["a"][0].var, n2b["b"][0].var)
    with pytest.raises(RuntimeError, match="used by 1 vars"):
        rwt.remove_unused(n2b["b"][0].var)
    rwt.remove_unused(n2b["a"][0].var)

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((4,), "float32")):
            with R.dataflow():
                b = R.multiply(x, x)
                c = R.add(b, x)
                R.output(c)
            return c

    assert_structural_equal(rwt.mutate_irmodule(Mod), Expected)
    assert len(fn.body.blocks[0].bindings) == 3  # the original is untouched


def test_add_and_remove_all_unused():
    rwt, fn = _rewriter()
    rwt.add(relax.op.exp(fn.params[0]), name="e", is_dfvar=True)
    assert isinstance(rwt.mutated_dfb().bindings[-1].var, relax.DataflowVar)
    assert "e" in name_to_binding(rwt.mutated_root_fn())
    rwt.remove_all_unused()
    assert [b.var.name for b in rwt.mutated_dfb().bindings] == ["a", "c"]
    untouched, fn2 = _rewriter()
    untouched.remove_unused(relax.Var("nowhere"), allow_undef=True)
    assert untouched.mutated_root_fn() is fn2
    with pytest.raises(RuntimeError, match="Cannot find"):
        untouched.replace_all_uses(relax.Var("m"), relax.Var("m"))
    assert isinstance(tvm.relax.DataflowBlockRewrite, type)


def test_expr_functor_dispatches_by_kind_without_defaults():
    class CountCalls(relax.ExprFunctor):
        def visit_call_(self, call):
            return 1 + sum(self.visit_expr(a) for a in call.args)

        def visit_var_(self, var):
            return 0

    x = relax.Var("x", R.Tensor((2,), "float32"))
    assert CountCalls().visit_expr(relax.op.add(relax.op.exp(x), x)) == 2
    with pytest.raises(NotImplementedError, match="visit_constant_"):
        CountCalls().visit_expr(relax.op.add(x, relax.const(1.0, "float32")))
