"""Graph patterns (`PatternContext`), `rewrite_bindings` and iterative `rewrite_call`.

The expected outcomes are apache-tvm 0.27's: the same modules and patterns give the same
answers there (checked by running them with `tvm.relax.dpl`)."""

from __future__ import annotations

import numpy as np

import tvmlite as tvm
from tvmlite import relax
from tvmlite.ir import assert_structural_equal
from tvmlite.relax.dpl import (
    PatternContext, is_call_dps_packed, is_const, is_op, is_var, rewrite_bindings, rewrite_call,
    wildcard,
)
from tvmlite.script import relax as R


@R.function
def diamond(x: R.Tensor((4, 4), "float32")) -> R.Tensor((4, 4), "float32"):
    with R.dataflow():
        a = R.call_dps_packed("mm", (x,), R.Tensor((4, 4), "float32"))
        b = R.call_dps_packed("relu", (a,), R.Tensor((4, 4), "float32"))
        c = R.call_dps_packed("sig", (a,), R.Tensor((4, 4), "float32"))
        d = R.call_dps_packed("add", (b, c), R.Tensor((4, 4), "float32"))
        R.output(d)
    return d


def test_used_by_and_only_used_by():
    dfb = diamond.body.blocks[0]
    with PatternContext() as ctx:
        mm, relu = is_call_dps_packed("mm"), is_call_dps_packed("relu")
        mm ^ relu
        found = ctx.match_dfb(dfb)
        assert found[mm] == dfb.bindings[0].var and found[relu] == dfb.bindings[1].var
    with PatternContext() as ctx:  # `a` has two users, so "only used by" fails
        is_call_dps_packed("mm") >> is_call_dps_packed("relu")
        assert ctx.match_dfb(dfb) is None
    with PatternContext() as ctx:  # operand positions: c is the add's second operand
        is_call_dps_packed("sig").used_by(is_call_dps_packed("add"), index=1)
        assert ctx.match_dfb(dfb)
        is_call_dps_packed("relu").used_by(is_call_dps_packed("add"), index=1)
        assert ctx.match_dfb(dfb) is None


def test_distinct_patterns_take_distinct_bindings():
    dfb = diamond.body.blocks[0]
    with PatternContext() as ctx:
        join = is_call_dps_packed("add")
        is_call_dps_packed("mm") >> join
        is_call_dps_packed("mm") >> join  # a second mm: there is only one
        assert ctx.match_dfb(dfb) is None


@R.function
def qkv(x: R.Tensor((2, 3), "float32"), w0: R.Tensor((3, 3), "float32"),
        w1: R.Tensor((3, 3), "float32")):
    with R.dataflow():
        q = R.matmul(x, w0)
        k = R.matmul(x, w1)
        out = (q, k)
        R.output(out)
    return out


def _qkv_rewrite():
    with PatternContext() as ctx:
        inp, wq, wk = wildcard(), wildcard(), wildcard()
        mq = is_op("relax.matmul")(inp, wq)  # a call made in a context: argument edges too
        mk = is_op("relax.matmul")(inp, wk)

    def rewriter(m, _):
        both = R.matmul(m[inp], R.concat([m[wq], m[wk]], axis=1))
        return {m[mq]: R.strided_slice(both, axes=[1], begin=[0], end=[3]),
                m[mk]: R.strided_slice(both, axes=[1], begin=[3], end=[6])}

    return ctx, rewriter, (inp, wq, wk)


def test_implicit_call_edges_and_rewrite_bindings():
    ctx, rewriter, (inp, wq, wk) = _qkv_rewrite()
    found = ctx.match_dfb(qkv.body.blocks[0])
    assert [found[p].name for p in (inp, wq, wk)] == ["x", "w0", "w1"]
    after = rewrite_bindings(ctx, rewriter, qkv)
    ops = [b.value.op.name for b in after.body.blocks[0].bindings[:-1]]
    assert ops == ["relax.concat", "relax.matmul", "relax.strided_slice", "relax.strided_slice"]
    args = [np.random.rand(*s).astype("float32") for s in ((2, 3), (3, 3), (3, 3))]
    mod = tvm.IRModule({"main": after.with_attr("global_symbol", "main")})
    vm = relax.VirtualMachine(relax.build(mod, "llvm"), tvm.cpu())
    q, k = vm["main"](*(tvm.nd.array(a) for a in args))
    np.testing.assert_allclose(q.numpy(), args[0] @ args[1], rtol=1e-5)
    np.testing.assert_allclose(k.numpy(), args[0] @ args[2], rtol=1e-5)


def test_rewrite_call_iterates_and_drops_dead_bindings():
    @R.function
    def before(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        with R.dataflow():
            x2 = R.add(x, x)
            x4 = R.add(x2, x2)
            R.output(x4)
        return x4

    @R.function
    def expected(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        with R.dataflow():
            x4 = R.multiply(x, R.const(4, "float32"))
            R.output(x4)
        return x4

    a = wildcard()
    twice = is_op("relax.add")(a, a)
    pattern = is_op("relax.add")(twice, twice)
    after = rewrite_call(pattern, lambda _, m: R.multiply(m[a], R.const(4, "float32")), before)
    assert_structural_equal(after, expected.with_attr("global_symbol", "before"))
    assert_structural_equal(rewrite_call(is_var("nothing"), lambda e, _: e, before), before)


def test_same_shape_as():
    @R.function
    def f(a: R.Tensor(("n", 8), "float32"), b: R.Tensor(("n", 8), "float32"),
          c: R.Tensor(("m", 8), "float32")):
        with R.dataflow():
            d = R.add(a, b)
            e = R.add(a, c)
            R.output(d, e)
        return (d, e)

    with PatternContext() as ctx:
        lhs, rhs = wildcard(), wildcard()
        is_op("relax.add")(lhs, rhs)
        lhs.same_shape_as(rhs)
    found = ctx.match_dfb(f.body.blocks[0])
    assert [found[p].name for p in (lhs, rhs)] == ["a", "b"]  # a + c: n and m may differ


def test_commutative_operands_match_either_way():
    x = relax.Var("x", R.Tensor((4,), "float32"))
    c = relax.const(1.0, "float32")
    arg, const = wildcard(), is_const()
    pattern = is_op("relax.add")(arg, const)
    found = pattern.extract_matched_expr(relax.op.add(c, x))
    assert found is not None and found[arg] == x and found[const] == c
    assert not is_op("relax.subtract")(arg, const).match(relax.op.subtract(c, x))
