"""`tvm.testing` as TVM's tests use it: CompareBeforeAfter classes, env probes, the requires_*
markers and the small utilities."""

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax
from tvmlite.script import ir as I
from tvmlite.script import relax as R
from tvmlite.script import tir as T


@I.ir_module
class WithDeadCode:
    @R.function
    def main(x: R.Tensor((4,), "float32")):
        unused = R.add(x, x)  # noqa: F841 (the dead binding the pass removes)
        y = R.multiply(x, x)
        return y


@I.ir_module
class WithoutDeadCode:
    @R.function
    def main(x: R.Tensor((4,), "float32")):
        y = R.multiply(x, x)
        return y


class TestDeadCodeEliminationRemovesUnusedBinding(tvm.testing.CompareBeforeAfter):
    transform = relax.transform.DeadCodeElimination()
    before = WithDeadCode
    expected = WithoutDeadCode


def _copy_then_fail(mod):
    raise ValueError("this pass always refuses")


class TestTVMScriptFunctionsAreParsedAsPrimFuncs(tvm.testing.CompareBeforeAfter):
    def transform(self):
        return tvm.transform.module_pass(lambda mod, ctx: mod, opt_level=0, name="Identity")

    def before(A: T.Buffer((8,), "float32")):
        for i in range(8):
            A[i] = A[i] * T.float32(2)

    def expected(A: T.Buffer((8,), "float32")):
        for i in range(8):
            A[i] = A[i] * T.float32(2)


class TestExpectedExceptionIsRaised(tvm.testing.CompareBeforeAfter):
    transform = staticmethod(_copy_then_fail)
    before = WithDeadCode
    expected = ValueError


def test_a_wrong_expectation_fails():
    with pytest.raises((AssertionError, ValueError)):
        tvm.testing.CompareBeforeAfter.test_compare(
            None, WithDeadCode, WithDeadCode, relax.transform.DeadCodeElimination())


def test_env_probes_answer_for_this_machine():
    import llvmlite.binding as llvm

    env = tvm.testing.env
    assert env.has_llvm() and not env.has_vulkan() and not env.has_multi_gpu()
    assert env.has_llvm_min_version(llvm.llvm_version_info[0])
    assert not env.has_llvm_min_version(llvm.llvm_version_info[0] + 1)
    assert env.has_gpu() == tvm.cuda().exist
    assert env.has_cuda_compute(1) == tvm.cuda().exist


def test_requires_markers_skip_what_cannot_run():
    @tvm.testing.requires_vulkan
    def needs_vulkan():
        pass

    @tvm.testing.requires_llvm
    def needs_llvm():
        pass

    (vulkan_mark,), (llvm_mark,) = needs_vulkan.pytestmark, needs_llvm.pytestmark
    assert vulkan_mark.args == (True,) and "Vulkan" in vulkan_mark.kwargs["reason"]
    assert llvm_mark.args == (False,)
    (missing,) = tvm.testing.requires_package("no_such_package_xyz")(needs_llvm).pytestmark[1:]
    assert missing.args == (True,)


def test_small_utilities():
    n = tvm.tir.Var("n", "int64")
    tvm.testing.assert_prim_expr_equal(n * 2 + 1, 1 + n + n)
    with pytest.raises(ValueError, match="not equal"):
        tvm.testing.assert_prim_expr_equal(n * 2, n + 2)
    assert tvm.testing.strtobool("Yes") == 1 and tvm.testing.strtobool("off") == 0
    ints = tvm.testing.generate_random_array("int8", (1000,))
    floats = tvm.testing.generate_random_array("float32", (1000,))
    assert ints.dtype == np.int8 and floats.dtype == np.float32
    assert np.all(np.abs(floats) <= 1) and ints.min() < -64 and ints.max() > 64
