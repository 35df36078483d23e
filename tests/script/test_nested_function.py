"""A function defined inside a relax function (TVM's local functions / closures): parsed as a
binding of a Function value, printed back as a nested @R.function, lifted by LambdaLift."""

from tvmlite import relax
from tvmlite.ir import assert_structural_equal
from tvmlite.script import ir as I
from tvmlite.script import relax as R


@I.ir_module
class Before:
    @R.function
    def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        @R.function
        def inner(y: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
            return y

        z = inner(x)
        return z


def test_nested_function_is_a_binding_of_a_function():
    binding = Before["main"].body.blocks[0].bindings[0]
    assert isinstance(binding.value, relax.Function)
    assert binding.var.name_hint == "inner"
    call = Before["main"].body.blocks[0].bindings[1].value
    assert call.op is binding.var


def test_nested_function_round_trips_through_the_printer():
    again = relax.transform.Normalize()(Before)
    text = again.script()
    assert "def inner(" in text
    from tvmlite.script import from_source

    assert_structural_equal(from_source(text), Before)


def test_lambda_lift_makes_it_a_private_module_function():
    # apache-tvm 0.27 prints: main calls cls.main_inner, a private function of the module
    @I.ir_module
    class Expected:
        @R.function(private=True)
        def main_inner(y: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
            return y

        @R.function
        def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
            cls = Expected
            z = cls.main_inner(x)
            return z

    assert_structural_equal(relax.transform.LambdaLift()(Before), Expected)


def test_recursive_local_function_calls_its_own_binding_variable():
    @R.function
    def main(x: R.Tensor((), "int32")) -> R.Tensor((), "int32"):
        @R.function
        def count(i: R.Tensor((), "int32")) -> R.Tensor((), "int32"):
            cond = R.call_pure_packed("test.less", i, R.const(10), ty_args=R.Tensor((), "bool"))
            if cond:
                j = R.add(i, R.const(1))
                r = count(j)
            else:
                r = i
            return r

        gv = count(x)
        return gv

    binding = main.body.blocks[0].bindings[0]
    assert isinstance(binding.value, relax.Function)
    branch = binding.value.body.blocks[-1].bindings[-1].value.true_branch
    calls = [b.value for blk in branch.blocks for b in blk.bindings] + [branch.body]
    assert any(isinstance(c, relax.Call) and c.op is binding.var for c in calls)
