"""Python functions beside compiled code: `R.call_py_func` with TVM's registry
(`vm.builtin.register_py_func`), and `relax.BasePyModule` with `@I.pyfunc` methods (TVM 0.27's
way to mix Python, TIR and Relax in one module)."""

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax
from tvmlite.relax import BasePyModule
from tvmlite.script import ir as I
from tvmlite.script import relax as R
from tvmlite.script import tir as T
from tvmlite.script.diagnostics import DiagnosticError


def _np(x):
    return x.numpy() if hasattr(x, "numpy") else np.asarray(x)


def _run(mod, *args):
    vm = relax.VirtualMachine(tvm.compile(mod, "llvm"), tvm.cpu())
    return vm["main"](*(tvm.runtime.tensor(a) for a in args))


@I.ir_module
class TwoPyCalls:
    @R.function
    def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        y = R.call_py_func(R.str("test_np_relu"), (x,), out_ty=R.Tensor((3,), "float32"))
        z = R.call_py_func("test_np_square", (y,), out_ty=R.Tensor((3,), "float32"))
        return z


def test_call_py_func_runs_registered_functions_in_order():
    register = tvm.get_global_func("vm.builtin.register_py_func")
    register("test_np_relu", lambda x: tvm.runtime.tensor(np.maximum(x.numpy(), 0)))
    register("test_np_square", lambda x: tvm.runtime.tensor(x.numpy() ** 2))
    x = np.array([-1.5, 0.5, 2.0], "float32")
    np.testing.assert_allclose(_run(TwoPyCalls, x).numpy(), np.maximum(x, 0) ** 2)
    tvm.get_global_func("vm.builtin.clear_py_func_registry")()
    with pytest.raises(ValueError, match="'test_np_relu' not found"):
        _run(TwoPyCalls, x)


def test_call_py_func_prints_and_parses_back():
    text = TwoPyCalls.script()
    assert 'R.call_py_func(R.str("test_np_relu"), (x,)' in text
    tvm.ir.assert_structural_equal(tvm.script.from_source(text), TwoPyCalls)


def test_call_py_func_checks_its_arguments():
    x = relax.Var("x", R.Tensor((5,), "float32"))
    call = relax.op.call_py_func(relax.StringImm("f"), (x,), out_ty=R.Tensor((5,), "float32"))
    assert call.op.name == "relax.call_py_func" and call.args[0].value == "f"
    assert call.struct_info.shape[0].value == 5
    with pytest.raises(TypeError, match="StringImm"):
        relax.op.call_py_func("f", (x,), out_ty=R.Tensor((5,), "float32"))
    with pytest.raises(Exception, match="known shape"):
        relax.op.call_py_func(relax.StringImm("f"), (x,), out_ty=R.Tensor(ndim=1))


@I.ir_module
class Mixed(BasePyModule):
    @I.pyfunc
    def double_relu(self, x):
        return np.maximum(_np(x), 0) * 2.0

    @I.pyfunc
    def through_tir(self, x):
        return self.call_tir(self.add_one, [x], out_ty=R.Tensor(("n",), "float32"))

    @T.prim_func
    def add_one(a: T.handle, b: T.handle):
        n = T.int64()
        x = T.match_buffer(a, (n,), "float32")
        y = T.match_buffer(b, (n,), "float32")
        for i in range(n):
            with T.block("b"):
                vi = T.axis.remap("S", [i])
                y[vi] = x[vi] + T.float32(1)

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        y = R.call_py_func("double_relu", (x,), out_ty=R.Tensor((4,), "float32"))
        z = R.add(y, x)
        return z


def test_base_py_module_calls_python_tir_and_relax():
    assert sorted(Mixed.pyfuncs) == ["double_relu", "through_tir"]
    m = Mixed(tvm.cpu())
    assert isinstance(m, BasePyModule)
    x = np.array([-1.0, 2.0, -3.0, 4.0], "float32")
    np.testing.assert_allclose(_np(m.double_relu(x)), np.maximum(x, 0) * 2)
    np.testing.assert_allclose(_np(m.through_tir(x)), x + 1)  # n taken from x: 4
    np.testing.assert_allclose(_np(m.through_tir(x[:3])), x[:3] + 1)
    np.testing.assert_allclose(_np(m.main(x)), np.maximum(x, 0) * 2 + x)  # Relax -> Python
    np.testing.assert_allclose(_np(m.call_py_func("double_relu", [x])), np.maximum(x, 0) * 2)
    assert m.list_functions()["tirx"] == ["add_one"]
    with pytest.raises(ValueError, match="'missing' not found"):
        m.call_py_func("missing", [x])


def test_base_py_module_prints_python_source():
    text = Mixed.script()
    assert "    @I.pyfunc\n    def double_relu(self, x):\n" in text
    assert "R.ExternFunc" not in text
    entry = Mixed.ir_module["double_relu"]
    assert isinstance(entry, relax.ExternFunc) and entry.attr_dict["is_pyfunc"]


def test_output_shapes_come_from_the_arguments():
    m = BasePyModule(tvm.IRModule({}), tvm.cpu(), target="llvm")
    n = tvm.tir.Var("n", "int64")
    assert m._infer_concrete_shape_from_args([n, 4], [np.zeros((3, 4))]) == [3, 4]
    with pytest.raises(ValueError, match="Cannot infer"):
        m._infer_concrete_shape_from_args([n, 4], [])


def test_pyfunc_needs_a_base_py_module_class():
    with pytest.raises(DiagnosticError, match="BasePyModule"):
        @I.ir_module
        class Plain:
            @I.pyfunc
            def f(self, x):
                return x

            @R.function
            def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
                return x


def test_assert_on_a_symbolic_condition_and_to_device():
    @R.function(pure=False)
    def main(x: R.Tensor(["N"], "int32")):
        N = T.int64()
        _ = R.assert_op(R.prim_value(N % 4 == 0))
        y = R.call_pure_packed("vm.builtin.to_device", x, 1, 0,
                               ty_args=R.Tensor(["N"], "int32"))
        return y

    mod = tvm.IRModule.from_expr(main)
    np.testing.assert_array_equal(_run(mod, np.arange(8, dtype="int32")).numpy(), np.arange(8))
    with pytest.raises(AssertionError, match="Assertion Failed"):
        _run(mod, np.arange(6, dtype="int32"))
