"""`Function.bind_params`, `Call.ty_args`, and structural equality of TIR bodies over
different (equal) buffers, as TVM 0.27 has them."""

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax, te, tir
from tvmlite.script import relax as R


@R.function
def scaled(x: R.Tensor(("n", 2), "float32"), w: R.Tensor((2,), "float32")):
    return R.multiply(x, w)


def _run(func, *args):
    mod = tvm.IRModule({"main": func})
    vm = relax.VirtualMachine(tvm.compile(mod, target="llvm"), tvm.cpu())
    return vm["main"](*[tvm.runtime.tensor(a) for a in args]).numpy()


def test_bind_params_with_a_tensor_makes_it_a_constant():
    w = np.array([2.0, -1.0], "float32")
    bound = scaled.bind_params({"w": w})
    assert [p.name_hint for p in bound.params] == ["x"]
    x = np.arange(6, dtype="float32").reshape(3, 2)
    np.testing.assert_allclose(_run(bound, x), x * w)


def test_bind_params_with_an_expression_substitutes_it():
    x = scaled.params[0]
    w = relax.const(np.array([0.5, 4.0], "float32"))
    bound = scaled.bind_params({scaled.params[1]: w})
    assert bound.params == (x,)
    data = np.ones((4, 2), "float32")
    np.testing.assert_allclose(_run(bound, data), data * [0.5, 4.0])


def test_call_ty_args_is_sinfo_args():
    call = R.call_pure_packed("f", relax.const(1.0), ty_args=(R.Tensor((2,), "float32"),))
    assert call.ty_args == call.sinfo_args and len(call.ty_args) == 1


def test_bodies_over_different_but_equal_buffers_are_equal():
    n = tir.Var("n", "int64")

    def body():
        a = te.placeholder((n,), "float32", name="A")
        b = te.compute((n,), lambda i: a[i] * 2.0, name="B")
        return te.create_prim_func([a, b]).body

    tvm.ir.assert_structural_equal(body(), body())
    a = te.placeholder((n,), "float32", name="A")
    other = te.create_prim_func([a, te.compute((n,), lambda i: a[i] + 2.0, name="B")]).body
    assert not tvm.ir.structural_equal(body(), other)


@R.function
def passthrough(n: R.Prim("int64"), x: R.Tensor((2,), "float32")) -> R.Prim("int64"):
    return n


def test_bind_params_with_a_number_binds_a_prim_value_and_keeps_the_declared_return():
    bound = passthrough.bind_params({"n": 7})
    assert [p.name_hint for p in bound.params] == ["x"]
    value = bound.body.body
    assert isinstance(value, relax.PrimValue) and value.value.value == 7
    assert value.value.dtype == "int64"
    # R.Prim("int64") stays: TVM 0.27's PrimType has no value for the bound 7 to refine
    assert bound.ret_struct_info == R.Prim("int64")


def test_bind_params_refuses_a_tensor_for_a_prim_parameter():
    with pytest.raises(ValueError, match="must be a primitive expression"):
        passthrough.bind_params({"n": relax.const(np.array(5, "int64"))})


def test_bind_params_naming_no_parameter_raises_what_tvm_users_catch():
    for key in ("m", relax.Var("m")):
        with pytest.raises(RuntimeError, match="no parameter named m"):
            passthrough.bind_params({key: 1})
        with pytest.raises(ValueError, match="no parameter named m"):
            passthrough.bind_params({key: 1})


def test_a_prim_value_equals_the_prim_expr_it_wraps():
    # TVM 0.27 has no PrimValue node: relax.prim_value(e) is e
    five = tir.const(5, "int64")
    assert tvm.ir.structural_equal(relax.PrimValue(five), tir.const(5, "int64"))
    assert tvm.ir.structural_equal(tir.const(5, "int64"), relax.PrimValue(five))
    assert not tvm.ir.structural_equal(relax.PrimValue(five), tir.const(6, "int64"))
    assert tvm.ir.structural_hash(relax.PrimValue(five)) == tvm.ir.structural_hash(five)
