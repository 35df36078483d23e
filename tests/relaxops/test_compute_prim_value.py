"""ComputePrimValue (transforms/compute_prim_value.py): Before/Expected, and the VM running the
host prim_funcs it makes (value-returning prim_funcs called from relax)."""

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax
from tvmlite.ir import assert_structural_equal
from tvmlite.script import ir as I
from tvmlite.script import relax as R
from tvmlite.script import tir as T


@I.ir_module
class Branch:
    @R.function
    def main(A: R.Tensor(["N"], "float32")):
        N = T.int64()
        if R.prim_value(N % 4 == 0):
            out = R.add(A, A)
        else:
            out = R.multiply(A, A)
        return out


@I.ir_module
class BranchExpected:
    @R.function
    def main(A: R.Tensor(["N"], "float32")):
        N = T.int64()
        condition: R.Prim("bool") = BranchExpected.compute_symbolic_expr(R.prim_value(N))
        if condition:
            out = R.add(A, A)
        else:
            out = R.multiply(A, A)
        return out

    @T.prim_func(private=True)
    def compute_symbolic_expr(N: T.int64) -> T.bool:
        T.func_attr({"tir.is_host_func": True})
        return N % 4 == 0


def _vm(mod):
    ex = relax.build(relax.transform.LegalizeOps()(mod), target="llvm")
    return relax.VirtualMachine(ex, tvm.cpu())


def test_a_branch_condition_is_computed_by_a_host_prim_func():
    after = relax.transform.ComputePrimValue()(Branch)
    assert_structural_equal(after, BranchExpected)
    vm = _vm(after)
    a8, a6 = np.full(8, 3, "float32"), np.full(6, 3, "float32")
    np.testing.assert_array_equal(vm["main"](a8).numpy(), a8 + a8)  # 8 % 4 == 0
    np.testing.assert_array_equal(vm["main"](a6).numpy(), a6 * a6)


def test_an_assert_condition_is_computed_and_checked_at_run_time():
    @I.ir_module
    class Before:
        @R.function(pure=False)
        def main(A: R.Tensor(["N", "M"], "float32")):
            N = T.int64()
            M = T.int64()
            _ = R.assert_op(N * M < 20)
            return A

    after = relax.transform.ComputePrimValue()(Before)
    host = after["compute_symbolic_expr"]
    assert [p.name for p in host.params] == ["N", "M"] and host.ret_dtype == "bool"
    vm = _vm(after)
    assert vm["main"](np.zeros((3, 6), "float32")).shape == (3, 6)
    with pytest.raises(Exception, match="Assertion"):
        vm["main"](np.zeros((4, 5), "float32"))


def test_constants_and_bare_variables_stay_and_names_do_not_clash():
    @I.ir_module
    class Before:
        @R.function
        def main(A: R.Tensor(["N"], "float32")):
            N = T.int64()
            if R.prim_value(N > 2):
                out = R.add(A, A)
            else:
                out = A
            return (out, R.prim_value(N), R.prim_value(T.int64(3)), R.prim_value(N + 1))

        @T.prim_func(private=True)
        def compute_symbolic_expr(x: T.Buffer((1,), "float32")):
            x[0] = T.float32(0)

    after = relax.transform.ComputePrimValue()(Before)
    added = sorted(gv.name_hint for gv in after.functions if gv.name_hint.startswith("compute"))
    assert added == ["compute_symbolic_expr", "compute_symbolic_expr_1",
                     "compute_symbolic_expr_2"]
    ret = after["main"].body.body
    assert isinstance(ret.fields[1], relax.PrimValue) and isinstance(ret.fields[2],
                                                                     relax.PrimValue)
    assert isinstance(ret.fields[3], relax.Var)  # N + 1: computed
    out, n, three, n1 = _vm(after)["main"](np.ones(5, "float32"))
    np.testing.assert_array_equal(out.numpy(), np.full(5, 2, "float32"))
    assert (int(n), int(three), int(n1)) == (5, 3, 6)


def test_the_vm_refuses_a_value_returning_prim_func_it_cannot_evaluate():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Prim("float32")):
            y: R.Prim("float32") = Mod.half(x)
            return y

        @T.prim_func(private=True)
        def half(x: T.float32) -> T.float32:
            return x * T.float32(0.5)

    with pytest.raises(Exception, match="returns a value"):
        _vm(Mod)
