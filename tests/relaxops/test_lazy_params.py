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


def test_lazy_transform_params_fetches_tuple_items_and_frees_them():
    # checked against apache-tvm 0.27: items of the tuple parameter are fetched with
    # get_item where read, handed to set_item after their last read, then freed; what a
    # binding reads ends before what it binds
    @I.ir_module
    class Params:
        @R.function
        def main_transform_params(
            params: R.Tuple(R.Tensor((4,), "float32"), R.Tensor((4,), "float32")),
        ) -> R.Tuple(R.Tensor((4,), "float32"), R.Tensor((4,), "float32")):
            a = params[0]
            c = R.multiply(a, R.const(2, "float32"))
            b = params[1]
            d = R.add(c, b)
            gv = (d, c)
            return gv

    @I.ir_module
    class Expected:
        @R.function(pure=False)
        def main_transform_params() -> R.Tuple:
            x = R.call_packed("get_item", R.prim_value(0), ty_args=(R.Any,))
            x_m = R.match_cast(x, R.Tensor((4,), "float32"))
            a = x_m
            c = R.multiply(a, R.const(2, "float32"))
            _ = R.vm.kill_object(a)
            y = R.call_packed("get_item", R.prim_value(1), ty_args=(R.Any,))
            y_m = R.match_cast(y, R.Tensor((4,), "float32"))
            b = y_m
            d = R.add(c, b)
            _ = R.call_packed("set_item", R.prim_value(1), c, ty_args=(R.Any,))
            _ = R.vm.kill_object(b)
            _ = R.call_packed("set_item", R.prim_value(0), d, ty_args=(R.Any,))
            gv = R.tuple()
            return gv

    after = relax.transform.LazyTransformParams()(Params)
    assert_structural_equal(after, Expected, map_free_vars=True)


def test_lazy_transform_params_leaves_other_functions_and_inline_returns():
    # apache-tvm 0.27 rewrites only `*transform_params` functions, and hands outputs over
    # only when the returned variable is bound to a tuple
    after = relax.transform.LazyTransformParams()(Before)
    main = after["transform_params"]
    assert main.params == () and not main.is_pure
    calls = [b.value for blk in main.body.blocks for b in blk.bindings
             if isinstance(b.value, relax.Call) and isinstance(b.value.op, relax.ExternFunc)]
    assert [c.op.global_symbol for c in calls] == ["get_item", "get_item"]
    assert isinstance(main.body.body, relax.Tuple) and len(main.body.body.fields) == 2


    @I.ir_module
    class Other:
        @R.function
        def prepare(a: R.Tensor((4,), "float32")):
            gv = (a,)
            return gv

    assert_structural_equal(relax.transform.LazyTransformParams()(Other), Other)
