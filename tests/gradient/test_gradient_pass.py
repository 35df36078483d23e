"""relax.transform.Gradient: the adjoint function it adds, binding by binding, and its errors."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from grad_helpers import adjoint, rand  # noqa: E402

from tvmlite import relax  # noqa: E402
from tvmlite.ir import assert_structural_equal  # noqa: E402
from tvmlite.script import from_source, ir as I, relax as R  # noqa: E402


@I.ir_module
class Square:
    @R.function
    def main(a: R.Tensor((2, 3), "float32"), b: R.Tensor((2, 3), "float32")):
        with R.dataflow():
            t = R.multiply(a, a)
            u = R.subtract(t, b)
            loss = R.sum(u)
            R.output(loss)
        return loss


def test_adjoint_bindings_follow_the_reverse_order() -> None:
    @I.ir_module
    class Expected:
        @R.function
        def main_adjoint(a: R.Tensor((2, 3), "float32"), b: R.Tensor((2, 3), "float32")
                         ) -> R.Tuple(R.Tensor((), "float32"), R.Tuple(
                             R.Tensor((2, 3), "float32"), R.Tensor((2, 3), "float32"))):
            with R.dataflow():
                t = R.multiply(a, a)
                u = R.subtract(t, b)
                loss = R.sum(u)
                loss_adjoint = R.ones(R.shape([]), "float32")
                u_adjoint = R.broadcast_to(loss_adjoint, R.shape([2, 3]))
                t_adjoint = u_adjoint
                b_adjoint = R.negative(u_adjoint)
                # the two uses of `a` add up: the first is bound, the second added to it
                a_adjoint = R.multiply(t_adjoint, a)
                lv = R.multiply(t_adjoint, a)
                a_adjoint1 = R.add(a_adjoint, lv)
                a_adjoint_out = a_adjoint1
                b_adjoint_out = b_adjoint
                R.output(loss, a_adjoint_out, b_adjoint_out)
            return (loss, (a_adjoint_out, b_adjoint_out))

    after = relax.transform.Gradient("main")(Square)
    assert_structural_equal(after["main_adjoint"], Expected["main_adjoint"])
    assert_structural_equal(after["main"], Square["main"])
    assert after["main_adjoint"].attrs["global_symbol"] == "main_adjoint"
    # the adjoint has its own variables
    assert all(p is not q for p, q in zip(after["main_adjoint"].params, Square["main"].params))


def test_require_grads_picks_and_orders_the_gradients() -> None:
    a, b = Square["main"].params
    after = relax.transform.Gradient("main", require_grads=[b])(Square)
    ret = after["main_adjoint"].ret_struct_info
    assert len(ret.fields[1].fields) == 1
    mod = Square
    x, y = rand(2, 3).astype("float32"), rand(2, 3).astype("float32")
    loss, grads = adjoint(mod, [x, y], [b, a])
    np.testing.assert_allclose(loss, np.sum(x * x - y), rtol=1e-5)
    np.testing.assert_allclose(grads[0], -np.ones((2, 3)), rtol=1e-6)
    np.testing.assert_allclose(grads[1], 2 * x, rtol=1e-6)


def test_tuple_item_adjoint_fills_the_other_fields_with_zeros() -> None:
    @I.ir_module
    class Before:
        @R.function
        def main(p: R.Tuple(R.Tensor((2,), "float32"), R.Tensor((2,), "float32"))):
            with R.dataflow():
                first = p[0]
                loss = R.sum(first)
                R.output(loss)
            return loss

    @I.ir_module
    class Expected:
        @R.function
        def main_adjoint(p: R.Tuple(R.Tensor((2,), "float32"), R.Tensor((2,), "float32"))
                         ) -> R.Tuple(R.Tensor((), "float32"), R.Tuple(R.Tuple(
                             R.Tensor((2,), "float32"), R.Tensor((2,), "float32")))):
            with R.dataflow():
                first = p[0]
                loss = R.sum(first)
                loss_adjoint = R.ones(R.shape([]), "float32")
                first_adjoint = R.broadcast_to(loss_adjoint, R.shape([2]))
                lv = R.zeros(R.shape([2]), "float32")
                p_adjoint = (first_adjoint, lv)
                p_adjoint_out = p_adjoint
                R.output(loss, p_adjoint_out)
            return (loss, (p_adjoint_out,))

    after = relax.transform.Gradient("main")(Before)
    assert_structural_equal(after["main_adjoint"], Expected["main_adjoint"])


def test_target_index_and_unused_forward_values() -> None:
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((3,), "float32")):
            with R.dataflow():
                unused = R.exp(x)  # noqa: F841 (dropped from the adjoint)
                doubled = R.add(x, x)
                total = R.sum(doubled)
                R.output(doubled, total)
            return (doubled, total)

    after = relax.transform.Gradient("main", target_index=1)(Before)
    names = [b.var.name_hint for b in after["main_adjoint"].body.blocks[0].bindings]
    assert "unused" not in names  # dead forward values are dropped from the adjoint
    assert names[:2] == ["doubled", "total"]
    with pytest.raises(RuntimeError, match="float scalar"):
        relax.transform.Gradient("main", target_index=0)(Before)


@pytest.mark.parametrize("why,source", [
    ("one dataflow block", """
@R.function
def main(x: R.Tensor((3,), "float32")):
    y = R.sum(x)
    return y
"""),
    ("float scalar", """
@R.function
def main(x: R.Tensor((3,), "int32")):
    with R.dataflow():
        y = R.sum(x)
        R.output(y)
    return y
"""),
    ("match_cast", """
@R.function
def main(x: R.Tensor((3,), "float32")):
    with R.dataflow():
        z = R.match_cast(x, R.Tensor((3,), "float32"))
        y = R.sum(z)
        R.output(y)
    return y
"""),
])
def test_functions_it_refuses(why: str, source: str) -> None:
    header = "from tvmlite.script import ir as I, relax as R\n@I.ir_module\nclass Mod:\n"
    mod = from_source(header + textwrap.indent(source, "    "))
    with pytest.raises(RuntimeError, match=why):
        relax.transform.Gradient("main")(mod)


def test_unknown_function_and_variable() -> None:
    with pytest.raises(ValueError):
        relax.transform.Gradient("nope")(Square)
    stranger = relax.Var("z", relax.TensorStructInfo((2, 3), "float32"))
    with pytest.raises(RuntimeError, match="no variable z"):
        relax.transform.Gradient("main", require_grads=[stranger])(Square)


def test_op_without_a_rule_is_reported() -> None:
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((3,), "float32")):
            with R.dataflow():
                y = R.floor(x)
                z = R.sum(y)
                R.output(z)
            return z

    with pytest.raises(RuntimeError, match="relax.floor"):
        relax.transform.Gradient("main")(Before)


def test_transposes_around_matmul_are_simplified() -> None:
    @I.ir_module
    class Before:
        @R.function
        def main(a: R.Tensor((4, 3), "float32"), w: R.Tensor((5, 3), "float32")):
            with R.dataflow():
                wt = R.permute_dims(w)
                y = R.matmul(a, wt)
                loss = R.sum(y)
                R.output(loss)
            return loss

    @I.ir_module
    class Expected:
        @R.function
        def main_adjoint(a: R.Tensor((4, 3), "float32"), w: R.Tensor((5, 3), "float32")
                         ) -> R.Tuple(R.Tensor((), "float32"), R.Tuple(
                             R.Tensor((4, 3), "float32"), R.Tensor((5, 3), "float32"))):
            with R.dataflow():
                wt = R.permute_dims(w)
                y = R.matmul(a, wt)
                loss = R.sum(y)
                loss_adjoint = R.ones(R.shape([]), "float32")
                y_adjoint = R.broadcast_to(loss_adjoint, R.shape([4, 5]))
                # d a = g @ transpose(transpose(w)) = g @ w
                a_adjoint = R.matmul(y_adjoint, w)
                # d w = transpose(transpose(a) @ g) = transpose(g) @ a
                lv = R.permute_dims(y_adjoint, [1, 0])
                w_adjoint = R.matmul(lv, a)
                a_adjoint_out = a_adjoint
                w_adjoint_out = w_adjoint
                R.output(loss, a_adjoint_out, w_adjoint_out)
            return (loss, (a_adjoint_out, w_adjoint_out))

    after = relax.transform.Gradient("main")(Before)
    assert_structural_equal(after["main_adjoint"], Expected["main_adjoint"])
    x, w = rand(4, 3).astype("float32"), rand(5, 3).astype("float32")
    _, (ga, gw) = adjoint(Before, [x, w])
    np.testing.assert_allclose(ga, np.ones((4, 5)) @ w, rtol=1e-5)
    np.testing.assert_allclose(gw, np.ones((4, 5)).T @ x, rtol=1e-5)
