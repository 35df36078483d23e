"""The pattern language: positive and negative matches, through dataflow bindings."""

import numpy as np

from tvmlite.backend.patterns import make_fused_bias_activation_pattern, make_matmul_pattern
from tvmlite.ir.dpl import (
    bindings_of, is_call_tir, is_const, is_op, is_tuple, is_var, rewrite_call, wildcard,
)
from tvmlite.ir.expr import Call, Op
from tvmlite.script import ir as I
from tvmlite.script import relax as R
from tvmlite.script import tir as T


@I.ir_module
class ConvNet:
    @R.function
    def main(x: R.Tensor((1, 3, 8, 8), "float32"), w: R.Tensor((4, 3, 3, 3), "float32"),
             b: R.Tensor((1, 4, 1, 1), "float32")):
        with R.dataflow():
            c = R.nn.conv2d(x, w, padding=(1, 1))
            d = R.add(c, b)
            e = R.nn.relu(d)
            f = R.add(e, R.const(np.ones((1, 4, 8, 8), "float32")))
            R.output(f)
        return f


def values():
    func = ConvNet["main"]
    var2val = bindings_of(func)
    by_name = {v.name_hint: val for v, val in var2val.items()}
    return func, var2val, by_name


def test_fused_bias_activation_pattern_matches_through_bindings():
    _, var2val, v = values()
    pattern, ann = make_fused_bias_activation_pattern("relax.nn.conv2d", True, "relax.nn.relu")
    assert pattern.match(v["e"], var2val)
    matches = pattern.extract_matched_expr(v["e"], var2val)
    assert matches[ann["root"]].op == Op("relax.nn.conv2d")
    assert matches[ann["lhs"]].name_hint == "x" and matches[ann["bias"]].name_hint == "b"
    assert not pattern.match(v["d"], var2val)  # add(conv) has no relu on top
    assert not pattern.match(v["f"], var2val)  # add(relu, const) is not conv-rooted


def test_without_bindings_only_the_root_call_matches():
    _, _, v = values()
    pattern, _ = make_fused_bias_activation_pattern("relax.nn.conv2d", True)
    assert not pattern.match(v["d"])  # `c` is a variable unless var2val says what it is
    assert is_op("relax.add")(wildcard(), wildcard()).match(v["d"])


def test_const_var_alternatives_and_attrs():
    _, var2val, v = values()
    assert is_op("relax.add")(wildcard(), is_const()).match(v["f"], var2val)
    assert not is_op("relax.add")(wildcard(), is_const()).match(v["d"], var2val)
    either = is_op("relax.nn.relu") | is_op("relax.nn.gelu")
    assert either(wildcard()).match(v["e"], var2val)
    assert is_op("relax.add")(wildcard(), is_var("b")).match(v["d"], var2val)
    assert not is_op("relax.add")(wildcard(), is_var("w")).match(v["d"], var2val)
    conv = is_op("relax.nn.conv2d")(wildcard(), wildcard())
    assert conv.has_attr({"padding": (1, 1, 1, 1)}).match(v["c"], var2val)
    assert not conv.has_attr({"padding": (0, 0, 0, 0)}).match(v["c"], var2val)


def test_dtype_and_shape_constraints():
    _, var2val, v = values()
    relu = is_op("relax.nn.relu")(wildcard())
    assert relu.has_dtype("float32").match(v["e"], var2val)
    assert not relu.has_dtype("float16").match(v["e"], var2val)
    assert relu.has_shape((1, 4, 8, 8)).match(v["e"], var2val)
    assert not relu.has_shape((1, 4, 8, 9)).match(v["e"], var2val)


def test_a_pattern_used_twice_must_match_the_same_expression():
    x = wildcard()
    same = is_op("relax.add")(x, x)
    _, var2val, v = values()
    assert not same.match(v["d"], var2val)  # add(c, b): c is not b
    assert is_tuple([wildcard(), wildcard()]) is not None


def test_matmul_pattern_sees_the_transposed_weight():
    @I.ir_module
    class Dense:
        @R.function
        def main(x: R.Tensor((2, 8), "float32"), w: R.Tensor((4, 8), "float32")):
            with R.dataflow():
                wt = R.permute_dims(w)
                y = R.matmul(x, wt)
                R.output(y)
            return y

    var2val = bindings_of(Dense["main"])
    y = next(val for var, val in var2val.items() if var.name_hint == "y")
    dense, _ = make_matmul_pattern(transposed_rhs=True)
    plain, _ = make_matmul_pattern()
    assert dense.match(y, var2val) and plain.match(y, var2val)


def test_call_tir_pattern_and_rewrite_call():
    @I.ir_module
    class Mod:
        @T.prim_func
        def add_one(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
            for i in range(4):
                with T.block("B"):
                    vi = T.axis.spatial(4, i)
                    B[vi] = A[vi] + T.float32(1)

        @R.function
        def main(x: R.Tensor((4,), "float32")):
            cls = Mod
            y = R.call_tir(cls.add_one, (x,), out_sinfo=R.Tensor((4,), "float32"))
            return y

    func = Mod["main"]
    y = bindings_of(func)
    value = next(iter(y.values()))
    assert is_call_tir("add_one").match(value) and not is_call_tir("other").match(value)
    new = rewrite_call(is_call_tir("add_one"), lambda e, m: Call(Op("relax.nn.relu"), (
        func.params[0],), struct_info=e.struct_info), func)
    assert next(iter(bindings_of(new).values())).op == Op("relax.nn.relu")


def test_has_ty_symbolic_dims_bind_once():
    from tvmlite import tirx

    m, n = tirx.Var("m", "int64"), tirx.Var("n", "int64")
    pat = is_op("relax.add")(wildcard().has_ty(R.Tensor([m, n])),
                             wildcard().has_ty(R.Tensor([m, n])))

    @R.function
    def f(a: R.Tensor((4, 8), "float32"), b: R.Tensor((4, 8), "float32"),
          c: R.Tensor((1, 8), "float32")):
        with R.dataflow():
            same = R.add(a, b)
            broadcast = R.add(a, c)
            out = (same, broadcast)
            R.output(out)
        return out

    bound = bindings_of(f)
    same, broadcast = (bound[v] for v in list(bound)[:2])
    assert pat.match(same, bound) and not pat.match(broadcast, bound)


def test_rewriter_declining_one_alternative_lets_the_next_one_try():
    first = is_op("relax.add")(wildcard(), wildcard())
    arg = wildcard()
    second = is_op("relax.add")(arg, is_op("relax.zeros")(wildcard()))

    def rewriter(expr, matches):
        return matches[arg] if second in matches else expr  # declines `first`

    @R.function
    def f():
        with R.dataflow():
            a = R.ones((2, 2), "int32")
            b = R.zeros((2, 2), "int32")
            c = R.add(a, b)
            R.output(c)
        return c

    after = rewrite_call(first | second, rewriter, f)
    (binding,) = [b for blk in after.body.blocks for b in blk.bindings]
    assert binding.value.op.name == "relax.ones"


def test_rewrite_rounds_canonicalize_and_update_struct_info():
    from tvmlite import relax

    pat_args = wildcard()
    unwrap = is_op("relax.split")(is_op("relax.concat")(pat_args))
    pat_arg = wildcard()
    double = is_op("relax.add")(pat_arg, pat_arg)

    def rewriter(expr, matches):
        if unwrap in matches:
            return matches[pat_args]
        return relax.op.multiply(matches[pat_arg], relax.const(2, "int32"))

    @R.function
    def f(a: R.Tensor((4,)), b: R.Tensor((4,))):
        with R.dataflow():
            c = R.concat([a, b])
            d = R.split(c, 2)
            g = R.add(a, d[0])
            h = R.add(d[1], g)
            R.output(h)
        return h

    after = rewrite_call(unwrap | double, rewriter, f)
    ops = [b.value.op.name for blk in after.body.blocks for b in blk.bindings]
    # round 1 unwraps the split of a concat; d[0] is then `a`, so round 2 doubles `a`
    assert ops == ["relax.multiply", "relax.add"]
    # the product is int32 now, and so is what reads it
    assert [b.var.struct_info.dtype for blk in after.body.blocks for b in blk.bindings] == \
        ["int32", "int32"]


def test_a_call_of_untyped_variables_is_built_and_matched():
    from tvmlite import relax

    call = relax.op.add(relax.Var("x"), relax.Var("y"))  # no struct info yet: none inferred
    assert call.struct_info is None
    assert is_op("relax.add")(wildcard(), wildcard()).match(call)
    assert not is_op("relax.multiply")(wildcard(), wildcard()).match(call)
