"""PatternMatchingRewriter and `@R.rewriter`: rules from modules, composition, tuples, impure
calls, subroutines; each rewrite checked against the expected TVMScript and, where it runs,
against numpy."""

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax
from tvmlite.ir.structural import structural_equal
from tvmlite.relax.dpl import PatternMatchingRewriter, is_op, wildcard
from tvmlite.script import ir as I
from tvmlite.script import relax as R


@R.rewriter
class AddToDoubling:
    @R.function
    def pattern(A: R.Tensor([4], "float32")):
        return A + A

    @R.function
    def replacement(A: R.Tensor([4], "float32")):
        return A * R.const(2.0, "float32")


def test_rule_from_module_rewrites_and_keeps_the_value():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor([4], "float32"), y: R.Tensor([4], "float32")):
            a = x + x
            b = a + y
            return b

    after = AddToDoubling(Before)
    text = after.script()
    assert "R.multiply(x, R.const(2.0" in text and text.count("R.add") == 1
    x, y = np.arange(4, dtype="float32"), np.ones(4, "float32")
    for mod in (Before, after):
        vm = relax.VirtualMachine(tvm.compile(mod, "llvm"), tvm.cpu())
        np.testing.assert_allclose(vm["main"](tvm.nd.array(x), tvm.nd.array(y)).numpy(),
                                   x + x + y)


def test_shapes_that_differ_from_the_pattern_are_not_matched():
    @R.function(private=True)
    def before(x: R.Tensor([8], "float32")):
        a = x + x
        return a

    assert AddToDoubling(before) is before


def test_composed_rules_apply_until_nothing_matches():
    @R.rewriter
    class DoublingToPacked:
        @R.function
        def pattern(A: R.Tensor([4], "float32"), B: R.Tensor([], "float32")):
            return A * B

        @R.function
        def replacement(A: R.Tensor([4], "float32"), B: R.Tensor([], "float32")):
            return R.call_pure_packed("scale", A, B, ty_args=R.Tensor([4], "float32"))

    @R.function(private=True)
    def before(x: R.Tensor([4], "float32")):
        a = x + x
        return a

    @R.function(private=True)
    def expected(x: R.Tensor([4], "float32")):
        a = R.call_pure_packed("scale", x, R.const(2.0, "float32"),
                               ty_args=R.Tensor([4], "float32"))
        return a

    assert structural_equal((AddToDoubling | DoublingToPacked)(before), expected)


def test_from_pattern_and_as_a_pass():
    x = wildcard()
    rule = PatternMatchingRewriter.from_pattern(
        is_op("relax.nn.relu")(is_op("relax.nn.relu")(x)),
        lambda expr, m: relax.op.nn.relu(m[x]))

    @I.ir_module
    class Before:
        @R.function
        def main(a: R.Tensor([4], "float32")):
            b = R.nn.relu(a)
            c = R.nn.relu(b)
            return c

    @I.ir_module
    class Expected:
        @R.function
        def main(a: R.Tensor([4], "float32")):
            c = R.nn.relu(a)
            return c

    after = tvm.ir.transform.Sequential([rule])(Before)
    assert structural_equal(after, Expected)


def test_a_match_never_spans_an_impure_call():
    @R.function(private=True, pure=False)
    def split_by_print(x: R.Tensor([4], "float32"), y: R.Tensor([4], "float32")):
        a = x + y
        R.print(format="between")
        b = R.nn.relu(a)
        return b

    @R.function(private=True, pure=False)
    def together(x: R.Tensor([4], "float32"), y: R.Tensor([4], "float32")):
        R.print(format="before")
        a = x + y
        b = R.nn.relu(a)
        return b

    @R.rewriter
    class AddRelu:
        @R.function
        def pattern(A: R.Tensor([4], "float32"), B: R.Tensor([4], "float32")):
            return R.nn.relu(A + B)

        @R.function
        def replacement(A: R.Tensor([4], "float32"), B: R.Tensor([4], "float32")):
            return R.call_pure_packed("add_relu", A, B, ty_args=R.Tensor([4], "float32"))

    assert AddRelu(split_by_print) is split_by_print
    assert "add_relu" in AddRelu(together).script()


def test_tuple_pattern_matches_separate_bindings_with_shared_inputs():
    @R.rewriter
    class TwoAdds:
        @R.function
        def pattern(x: R.Tensor([4], "float32"), y: R.Tensor([4], "float32"),
                    z: R.Tensor([4], "float32")):
            return (x + y, y + z)

        @R.function
        def replacement(x: R.Tensor([4], "float32"), y: R.Tensor([4], "float32"),
                        z: R.Tensor([4], "float32")):
            return R.call_pure_packed("two_adds", x, y, z, ty_args=R.Tuple(
                [R.Tensor([4], "float32"), R.Tensor([4], "float32")]))

    @R.function(private=True)
    def shared(a: R.Tensor([4], "float32"), b: R.Tensor([4], "float32"),
               c: R.Tensor([4], "float32")):
        p = a + b
        q = b + c
        return R.multiply(p, q)

    @R.function(private=True)
    def unshared(a: R.Tensor([4], "float32"), b: R.Tensor([4], "float32"),
                 c: R.Tensor([4], "float32"), d: R.Tensor([4], "float32")):
        p = a + b
        q = c + d
        return R.multiply(p, q)

    text = TwoAdds(shared).script()
    assert 'R.call_pure_packed("two_adds", a, b, c' in text and "R.add" not in text
    assert TwoAdds(unshared) is unshared


def test_subroutines_are_added_under_free_names_and_only_when_used():
    @R.rewriter
    class ViaSubroutine:
        @R.function
        def pattern(A: R.Tensor([4], "float32")):
            return A + A

        @R.function
        def replacement(A: R.Tensor([4], "float32")):
            return ViaSubroutine.main(A)

        @R.function(private=True)
        def main(A: R.Tensor([4], "float32")) -> R.Tensor([4], "float32"):
            return A * R.const(2.0, "float32")

        @R.function(private=True)
        def unused(A: R.Tensor([4], "float32")) -> R.Tensor([4], "float32"):
            return A

    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor([4], "float32")):
            a = x + x
            return a

    after = ViaSubroutine(Before)
    assert sorted(after.names()) == ["main", "main_1"]
    x = np.arange(4, dtype="float32")
    vm = relax.VirtualMachine(tvm.compile(after, "llvm"), tvm.cpu())
    np.testing.assert_allclose(vm["main"](tvm.nd.array(x)).numpy(), 2 * x)


def test_malformed_rule_modules_are_refused():
    with pytest.raises(KeyError, match="replacement"):
        @R.rewriter
        class NoReplacement:
            @R.function
            def pattern(A: R.Tensor([4], "float32")):
                return A

    with pytest.raises(ValueError, match="same signature"):
        @R.rewriter
        class Mismatch:
            @R.function
            def pattern(A: R.Tensor([4], "float32")):
                return A

            @R.function
            def replacement(A: R.Tensor([8], "float32")):
                return A

    with pytest.raises(ValueError, match="publicly exposed"):
        @R.rewriter
        class PublicHelper:
            @R.function
            def pattern(A: R.Tensor([4], "float32")):
                return A

            @R.function
            def replacement(A: R.Tensor([4], "float32")):
                return A

            @R.function
            def helper(A: R.Tensor([4], "float32")):
                return A


def test_a_rule_that_matches_its_own_output_is_an_error_not_a_hang():
    x = wildcard()
    rule = PatternMatchingRewriter.from_pattern(
        is_op("relax.nn.relu")(x), lambda expr, m: relax.op.nn.relu(relax.op.nn.relu(m[x])))

    @R.function(private=True)
    def before(a: R.Tensor([4], "float32")):
        b = R.nn.relu(a)
        return b

    with pytest.raises(RuntimeError, match="keep matching what they produce"):
        rule(before)
