"""Closures in the VM (`R.make_closure` / `R.invoke_closure`), functions as values, and
recursion through an `if` whose branches hold operators to legalize."""

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax
from tvmlite.script import ir as I
from tvmlite.script import relax as R


def _vm(mod):
    return relax.VirtualMachine(tvm.compile(mod, target="llvm"), tvm.cpu())


@I.ir_module
class Closure:
    @R.function
    def lifted(x: R.Tensor((2, 3), "float32"), env: R.Tensor((2, 3), "float32")):
        return R.multiply(R.add(x, env), env)

    @R.function
    def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")):
        clo = R.make_closure(Closure.lifted, (x,))
        res = R.invoke_pure_closure(clo, (y,), ty_args=(R.Tensor((2, 3), "float32"),))
        return res


@I.ir_module
class ClosureOut:
    @R.function
    def scale(s: R.Tensor((3,), "float32"), x: R.Tensor((3,), "float32")):
        return R.multiply(s, x)

    @R.function
    def make(s: R.Tensor((3,), "float32")) -> R.Object:
        return R.make_closure(ClosureOut.scale, (s,))

    @R.function
    def main(s: R.Tensor((3,), "float32"), x: R.Tensor((3,), "float32")):
        clo = ClosureOut.make(s)
        return R.invoke_closure(clo, (x,), ty_args=(R.Tensor((3,), "float32"),))


@I.ir_module
class Recursion:
    @R.function
    def count(n: R.Tensor((), "int64"), acc: R.Tensor((2,), "float32")
              ) -> R.Tensor((2,), "float32"):
        if R.greater(n, R.const(0, "int64")):
            doubled = R.add(acc, acc)
            res = Recursion.count(R.subtract(n, R.const(1, "int64")), doubled)
        else:
            res = acc
        return res


def test_closure_captures_its_argument():
    x = np.random.rand(2, 3).astype("float32")
    y = np.random.rand(2, 3).astype("float32")
    out = _vm(Closure)["main"](tvm.runtime.tensor(x), tvm.runtime.tensor(y))
    np.testing.assert_allclose(out.numpy(), (x + y) * y, rtol=1e-6)


def test_closure_returned_from_one_function_runs_in_another():
    s = np.array([1.0, 2.0, 3.0], "float32")
    x = np.array([4.0, 5.0, 6.0], "float32")
    vm = _vm(ClosureOut)
    np.testing.assert_allclose(vm["main"](tvm.runtime.tensor(s), tvm.runtime.tensor(x)).numpy(),
                               s * x)
    clo = vm["make"](tvm.runtime.tensor(s))  # the closure itself reaches Python, callable
    np.testing.assert_allclose(clo(tvm.runtime.tensor(x)).numpy(), s * x)


@pytest.mark.parametrize("n", [0, 1, 5])
def test_recursion_through_if_with_legalized_branches(n):
    acc = np.array([1.5, -2.0], "float32")
    out = _vm(Recursion)["count"](tvm.runtime.tensor(np.array(n, "int64")),
                                  tvm.runtime.tensor(acc))
    np.testing.assert_allclose(out.numpy(), acc * 2.0 ** n)


def test_invoking_a_non_closure_is_a_clear_error():
    from tvmlite.vm.builtins import invoke_closure

    with pytest.raises(TypeError, match="expected a closure"):
        invoke_closure(np.zeros(2))
