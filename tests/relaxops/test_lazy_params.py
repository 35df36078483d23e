"""LazyGetInput, LazySetOutput and LazyTransformParams (transforms/lazy_params.py):
Before/Expected as TVM 0.27 writes them."""

from tvmlite import relax
from tvmlite.ir import assert_structural_equal
from tvmlite.script import ir as I
from tvmlite.script import relax as R


@I.ir_module
class Before:
    @R.function
    def transform_params(a: R.Tensor((4,), "float32"), b: R.Tensor((4,), "float32")):
        c = R.multiply(a, R.const(2, "float32"))
        d = R.add(c, b)
        return (d, c)


def test_lazy_get_input_fetches_each_weight_where_first_used():
    @I.ir_module
    class Expected:
        @R.function
        def transform_params(fget_param: R.Callable([R.Prim("int64"), R.Object], R.Object)):
            R.func_attr({"num_input": 1})
            a = fget_param(R.prim_value(0), R.str("a"))
            a = R.match_cast(a, R.Tensor((4,), "float32"))
            c = R.multiply(a, R.const(2, "float32"))
            b = fget_param(R.prim_value(1), R.str("b"))
            b = R.match_cast(b, R.Tensor((4,), "float32"))
            d = R.add(c, b)
            return (d, c)

    assert_structural_equal(relax.transform.LazyGetInput()(Before), Expected)


def test_lazy_set_output_hands_each_result_over_when_bound():
    @I.ir_module
    class Expected:
        @R.function(pure=False)
        def transform_params(a: R.Tensor((4,), "float32"), b: R.Tensor((4,), "float32"),
                             fset_output: R.Callable([R.Prim("int64"), R.Object], R.Tuple([]),
                                                     purity=False)):
            c = R.multiply(a, R.const(2, "float32"))
            fset_output(R.prim_value(1), c)
            d = R.add(c, b)
            fset_output(R.prim_value(0), d)
            return R.tuple()

    assert_structural_equal(relax.transform.LazySetOutput()(Before), Expected)


def test_lazy_transform_params_uses_packed_get_and_set():
    after = relax.transform.LazyTransformParams()(Before)
    main = after["transform_params"]
    assert main.params == () and not main.is_pure
    calls = [b.value for blk in main.body.blocks for b in blk.bindings
             if isinstance(b.value, relax.Call) and isinstance(b.value.op, relax.ExternFunc)]
    names = [(c.op.global_symbol, int(c.args[0].value.value)) for c in calls]
    assert names == [("get_item", 0), ("set_item", 1), ("get_item", 1), ("set_item", 0)]
