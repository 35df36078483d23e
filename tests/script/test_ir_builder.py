"""`tvm.script.ir_builder` (script/ir_builder/): relax functions built with frames equal the
same functions parsed from TVMScript, and run."""

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax
from tvmlite.ir import assert_structural_equal
from tvmlite.script import ir as I
from tvmlite.script import relax as RS
from tvmlite.script.ir_builder import IRBuilder
from tvmlite.script.ir_builder import relax as R


@I.ir_module
class Parsed:
    @RS.function
    def main(x: RS.Tensor((4,), "float32"), c: RS.Tensor((), "bool")) -> RS.Tensor((4,), "float32"):
        with RS.dataflow():
            lv = RS.add(x, x)
            gv = RS.multiply(lv, x)
            RS.output(gv)
        if c:
            r = RS.exp(gv)
        else:
            r = RS.negative(gv)
        return r


def _built() -> relax.Function:
    with IRBuilder() as ib:
        with R.function():
            R.func_name("main")
            x = R.arg("x", RS.Tensor((4,), "float32"))
            c = R.arg("c", RS.Tensor((), "bool"))
            R.func_ret_ty(RS.Tensor(ndim=1, dtype="float32"))
            with R.dataflow() as df:
                lv = IRBuilder.name("lv", R.emit(R.add(x, x)))
                gv = IRBuilder.name("gv", R.emit(R.multiply(lv, x)))
                R.output(gv)
            (gv,) = df.output_vars
            with R.If(c) as branch:
                with R.Then():
                    IRBuilder.name("r", R.emit(R.exp(gv)))
                with R.Else():
                    IRBuilder.name("r", R.emit(R.negative(gv)))
            R.func_ret_value(branch.var)
    return ib.get()


def test_built_function_equals_the_parsed_one_and_runs():
    func = _built()
    assert_structural_equal(func, Parsed["main"])
    mod = tvm.IRModule({"main": func})
    vm = relax.VirtualMachine(tvm.compile(mod, target="llvm"), tvm.cpu())
    x = np.array([1, -2, 3, 0.5], "float32")
    for flag, ref in ((True, np.exp(2 * x * x)), (False, -(2 * x * x))):
        out = vm["main"](tvm.nd.array(x), tvm.nd.array(np.array(flag)))
        np.testing.assert_allclose(out.numpy(), ref, rtol=1e-5)


def test_emit_match_cast_and_the_names_in_the_R_namespace():
    with IRBuilder() as ib:
        with RS.function() if False else R.function():
            x = RS.arg("x", RS.Tensor(ndim=1, dtype="float32"))
            y = RS.emit_match_cast(x, RS.Tensor((3,), "float32"))
            RS.func_ret_value(RS.emit(RS.add(y, y)))
    func = ib.get()
    assert func.body.blocks[0].bindings[0].struct_info == RS.Tensor((3,), "float32")
    assert func.ret_struct_info == RS.Tensor((3,), "float32")


def test_errors_say_what_is_missing():
    with pytest.raises(RuntimeError, match="no IRBuilder is active"):
        R.emit(1)
    with pytest.raises(RuntimeError, match="R.func_ret_value"), IRBuilder():
        with R.function():
            R.arg("x", RS.Tensor((3,), "float32"))


def test_script_namespace_dataflow_and_nested_calls_under_the_builder():
    # TVM code drives the builder with the script namespace (R.dataflow, R.output) and emits
    # nested calls (batch_norm(...)[0]); the builder binds the inner calls first (A-normal form)
    with IRBuilder() as ib:
        with R.function():
            R.func_name("main")
            x = R.arg("x", RS.Tensor((4,), "float32"))
            with RS.dataflow() as frame:
                gv = R.emit(RS.multiply(RS.add(x, x), x))
                RS.output(gv)
            R.func_ret_value(frame.output_vars[0])
    func = ib.get()
    bindings = func.body.blocks[0].bindings
    assert [b.value.op.name for b in bindings] == ["relax.add", "relax.multiply"]
    vm = relax.VirtualMachine(tvm.compile(tvm.IRModule({"main": func})), tvm.cpu())
    x = np.arange(4, dtype="float32")
    np.testing.assert_allclose(vm["main"](tvm.runtime.tensor(x)).numpy(), (x + x) * x)


def test_a_user_visitor_may_define_its_own_visit_entry():
    @relax.expr_functor.visitor
    class CountCalls(relax.PyExprVisitor):
        def __init__(self):
            self.ops = []

        def visit(self, mod):  # TVM users' entry point: not part of TVM's visitor API
            for func in mod.functions.values():
                if isinstance(func, relax.Function):
                    self.visit_expr(func)
            return self.ops

        def visit_call_(self, call):
            self.ops.append(call.op.name)

    assert CountCalls().visit(Parsed) == ["relax.add", "relax.multiply", "relax.exp",
                                          "relax.negative"]
