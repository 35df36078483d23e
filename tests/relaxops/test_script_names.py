"""`R.print`, `R.assert_op`, `R.TupleGetItem`, `R.image`, `R.linear` in TVMScript."""

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax
from tvmlite.script import from_source
from tvmlite.script import relax as R
from tvmlite.vm.debug_builtins import AssertOpError


def _vm(func):
    mod = tvm.IRModule({"main": func}) if not isinstance(func, tvm.IRModule) else func
    return relax.VirtualMachine(relax.build(mod, "llvm"), tvm.cpu())


def test_print_in_impure_function(capsys):
    @R.function(pure=False)
    def main(x: R.Tensor((2,), "float32")):
        R.print(x, format="x = {}")
        y = R.add(x, x)
        R.print(y)
        return y

    out = _vm(main)["main"](np.array([1.0, 2.0], "float32"))
    np.testing.assert_array_equal(out.numpy(), [2.0, 4.0])
    assert capsys.readouterr().out.splitlines() == ["x = [1. 2.]", "[2. 4.]"]
    # TVM 0.27's text (apache-tvm prints this function the same way), and it parses back
    text = main.script()
    assert 'R.print(x, format=R.str("x = {}"))\n' in text
    assert 'R.print(y, format=R.str(""))\n' in text
    tvm.ir.assert_structural_equal(tvm.script.from_source(text), main)


def test_assert_op():
    @R.function(pure=False)
    def main(x: R.Tensor((), "bool")):
        R.assert_op(x, format="the flag was false")
        return x

    vm = _vm(main)
    assert vm["main"](np.array(True)).numpy()
    with pytest.raises(AssertOpError, match="the flag was false"):
        vm["main"](np.array(False))


def test_tuple_get_item():
    @R.function
    def main(x: R.Tensor((2,), "float32"), y: R.Tensor((3,), "float32")):
        t = (x, y)
        z = R.TupleGetItem(t, 1)
        return z

    assert main.body.body.struct_info.shape[0].value == 3
    out = _vm(main)["main"](np.zeros(2, "float32"), np.arange(3, dtype="float32"))
    np.testing.assert_array_equal(out.numpy(), [0, 1, 2])
    assert structural_roundtrip(main)


def structural_roundtrip(func):
    mod = tvm.IRModule({"main": func})
    tvm.ir.assert_structural_equal(from_source(mod.script()), mod)
    return True


def test_image_namespace_and_linear():
    @R.function
    def main(x: R.Tensor((1, 1, 2, 2), "float32"), w: R.Tensor((3, 4), "float32")):
        y = R.image.resize2d(x, (4, 4), method="nearest_neighbor",
                             coordinate_transformation_mode="asymmetric",
                             rounding_method="floor")
        z = R.reshape(y, (4, 4))
        out = R.linear(z, w)
        return out

    x = np.arange(4, dtype="float32").reshape(1, 1, 2, 2)
    w = np.ones((3, 4), "float32")
    up = x.repeat(2, axis=2).repeat(2, axis=3).reshape(4, 4)
    np.testing.assert_allclose(_vm(main)["main"](x, w).numpy(), up @ w.T)


def test_emit_te_in_tvmscript():
    from tvmlite import topi
    from tvmlite.script import ir as I

    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((2, 3), "float32")):
            y = R.emit_te(topi.exp, x, primfunc_name_hint="tir_exp")
            z = R.emit_te(topi.add, y, x)
            return z

    assert sorted(gv.name_hint for gv in Mod.functions) == ["add", "main", "tir_exp"]
    a = np.random.rand(2, 3).astype("float32")
    np.testing.assert_allclose(_vm(Mod)["main"](a).numpy(), np.exp(a) + a, rtol=1e-6)


def test_void_bindings_print_as_bare_calls_and_uses_as_empty_tuples():
    # apache-tvm 0.27 prints this function with these exact lines
    @R.function(pure=False)
    def f(a: R.Tensor((2, 3), "float32")):
        v = R.call_packed("x", a, ty_args=R.Tuple())
        z = (v, a)
        return z

    text = f.script()
    assert '    R.call_packed("x", a, ty_args=(R.Tuple,))\n' in text
    assert '= R.tuple(), a\n' in text or '= (R.tuple(), a)\n' in text
