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
