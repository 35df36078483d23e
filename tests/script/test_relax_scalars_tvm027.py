# ruff: noqa: F841 (TVMScript bodies name what they define)
"""Relax scalars and opaque functions as TVM 0.27 has them: `R.prim_value` gives the TIR scalar
(held as a PrimValue wherever it lands), scalars print bare, scalar bindings are annotated,
and `R.ExternFunc` is an opaque `R.Callable`. Expected texts are apache-tvm 0.27's output."""

from typing import TypeVar

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax, tir
from tvmlite.ir.structural import structural_equal
from tvmlite.script import from_source
from tvmlite.script import relax as R
from tvmlite.script import tir as T

HEADER = ("# from tvm.script import tirx as T\n# from tvm.tirx.layout import Axis\n"
          "# from tvm.script import relax as R\n\n")


def test_prim_value_gives_the_tir_scalar():
    one = relax.prim_value(1)
    assert isinstance(one, tir.IntImm) and one.dtype == "int64" and one.value == 1
    assert isinstance(relax.prim_value(np.int32(2)), tir.IntImm)
    half = relax.prim_value(np.float32(1.5))
    assert isinstance(half, tir.FloatImm) and half.dtype == "float64" and half.value == 1.5
    assert relax.prim_value(True).dtype == "bool"
    assert relax.prim_value(3, "int32").dtype == "int32"
    n = tir.Var("n", "int64")
    assert relax.prim_value(n) is n
    tvm.ir.assert_structural_equal(one.ty, tvm.ir.PrimType("int64"))


def test_prim_value_takes_relax_values_of_a_scalar_type_only():
    scalar = relax.Var("s", R.Prim("int64"))
    assert relax.prim_value(scalar) is scalar
    with pytest.raises(TypeError, match="Cannot convert"):
        relax.prim_value(relax.Var("x", R.Tensor((2,), "float32")))
    with pytest.raises(TypeError, match="Cannot convert"):
        relax.prim_value("text")


def test_scalars_become_prim_values_in_calls_and_tuples():
    x = relax.Var("x", R.Tensor((2,), "float32"))
    call = relax.Call(relax.ExternFunc("f"), [x, relax.prim_value(2)])
    tup = relax.Tuple([x, relax.prim_value(1.5)])
    for e in (call.args[1], tup.fields[1]):
        assert isinstance(e, relax.PrimValue)
    assert call.args[1].value.value == 2
    assert tup.fields[1].struct_info.dtype == "float64"


def test_scalar_function_prints_bare_values_and_round_trips():
    @R.function
    def func() -> R.Prim("int64"):
        return R.prim_value(1)

    text = func.script()
    assert text == HEADER + "@R.function\ndef func() -> T.int64:\n    return 1"
    assert structural_equal(from_source(text), func)

    @R.function
    def float_func() -> R.Prim("float32"):
        return R.prim_value(T.float32(1.0))

    text = float_func.script()
    assert "R.prim_value" not in text and "    return T.float32(1.0)" in text
    assert structural_equal(from_source(text), float_func)


def test_arithmetic_on_a_scalar_stays_scalar_and_bindings_are_annotated():
    @R.function
    def func(n: R.Prim("int64")) -> R.Prim("int64"):
        plus_one = n + 1
        alias = R.prim_value(plus_one)
        return alias

    add = func.body.blocks[0].bindings[0].value
    assert isinstance(add.args[1], relax.PrimValue)  # not a 0-d tensor constant
    assert add.struct_info == relax.PrimStructInfo("int64")
    for show_all_ty in (False, True):
        text = func.script(show_all_ty=show_all_ty)
        assert "plus_one: T.int64 = R.add(n, 1)" in text
        assert "alias: T.int64 = plus_one" in text
        assert structural_equal(from_source(text), func)


def test_tuple_of_scalars_annotated_with_prim_types_parses():
    @R.function
    def func(x: R.Tensor((2,), "float32")):
        c: R.Tuple(T.int64, T.int32) = 3, T.int32(4)
        return c

    sinfo = func.body.blocks[0].bindings[0].var.struct_info
    assert [f.dtype for f in sinfo.fields] == ["int64", "int32"]


def test_extern_func_is_an_opaque_callable():
    sinfo = relax.ExternFunc("f").struct_info
    assert isinstance(sinfo, relax.FuncType) and sinfo.params is None and not sinfo.purity
    assert relax.FuncType.opaque_func().script() == "R.Callable"
    assert relax.FuncType.opaque_func(purity=True).script() == "R.Callable(purity=True)"
    assert R.Callable() == relax.FuncType.opaque_func()  # bare R.Callable: impure
    assert R.Callable([R.Tensor((2,), "float32")], R.Tensor((2,), "float32")).purity


def test_extern_func_in_a_variable_is_called_through_it():
    @R.function
    def func(x: R.Tensor((8,), dtype="float32")) -> R.Tensor((8,), dtype="float32"):
        ext = R.ExternFunc("ext")
        y = R.call_dps_packed(ext, (x,), out_ty=R.Tensor((8,), dtype="float32"))
        return y

    call = func.body.blocks[0].bindings[1].value
    assert call.args[0] is func.body.blocks[0].bindings[0].var
    text = func.script()
    assert '    ext: R.Callable = R.ExternFunc("ext")\n' in text
    assert "R.call_dps_packed(ext, (x,)" in text
    assert structural_equal(from_source(text), func)


N = TypeVar("N")


def test_type_var_dims_are_symbolic_dims():
    """TVM 0.27 prints a signature's dims as `N = TypeVar("N")`, then `R.Tensor((N,), ...)`."""

    @R.function
    def func(a: R.Tensor((N, "N * 2"), "float32")) -> R.Tensor((N,), "float32"):
        b: R.Tensor((N,), "float32") = R.sum(a, axis=[1])
        return b

    typed = func

    @R.function
    def func(a: R.Tensor(("N", "N * 2"), "float32")) -> R.Tensor(("N",), "float32"):
        b = R.sum(a, axis=[1])
        return b

    named = func

    n = typed.params[0].struct_info.shape[0]
    assert isinstance(n, tir.Var) and n.name == "N"
    assert typed.ret_struct_info.shape[0] is n
    assert structural_equal(typed, named)


def test_constant_scalars_in_a_tuple_stay_marked():
    """`(1, 2)` would parse back as a shape: tuple fields keep `R.prim_value`."""

    @R.function
    def func(x: R.Tensor((2,), "float32")):
        d = R.call_pure_packed("f", x, R.prim_value(3), ty_args=R.Tensor((2,), "float32"))
        return ((R.prim_value(1), R.prim_value(2)), d)

    text = func.script()
    assert 'R.call_pure_packed("f", x, 3, ty_args=' in text
    assert "return ((R.prim_value(1), R.prim_value(2)), d)" in text
    assert structural_equal(from_source(text), func)
