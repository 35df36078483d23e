"""`tvm.script.ir_builder.ir`: an IRModule built with `with I.ir_module():` frames, checked
against the same module parsed from TVMScript; and the module-level names TVM code imports."""

import pytest

from tvmlite.ir.structural import structural_equal
from tvmlite.script import ir as IS
from tvmlite.script import tir as TS
from tvmlite.script.ir_builder import IRBuilder
from tvmlite.script.ir_builder import ir as I
from tvmlite.script.ir_builder import tirx as T


def test_module_of_prim_funcs_matches_the_parsed_one() -> None:
    with IRBuilder() as ib:
        with I.ir_module():
            I.module_attrs({"note": "built"})
            with T.prim_func():
                T.func_name("fill")
                a = T.arg("A", T.Buffer((4,), "float32"))
                T.buffer_store(a, 1.0, [0])
            with T.prim_func():
                T.func_name("empty")
    mod = ib.get()

    @IS.ir_module
    class Expected:
        IS.module_attrs({"note": "built"})

        @TS.prim_func
        def fill(A: TS.Buffer((4,), "float32")):
            A[0] = TS.float32(1)

        @TS.prim_func
        def empty():
            TS.evaluate(0)

    assert mod.names() == ["fill", "empty"] and structural_equal(mod, Expected)
    assert repr(mod) == str(mod) == mod.script()  # TVM's repr of a module is its script


def test_private_function_has_no_global_symbol() -> None:
    with IRBuilder() as ib:
        with I.ir_module():
            with T.prim_func(is_private=True):
                T.func_name("helper")
    func = ib.get()["helper"]
    assert "global_symbol" not in func.attr_dict


def test_two_functions_of_one_name_are_refused() -> None:
    with pytest.raises(ValueError, match="already has a function named 'f'"):
        with IRBuilder():
            with I.ir_module():
                for _ in range(2):
                    with T.prim_func():
                        T.func_name("f")


def test_builder_calls_outside_a_builder_are_value_errors() -> None:
    with pytest.raises(ValueError, match="no IRBuilder is active"):
        IRBuilder.current()
    with pytest.raises(ValueError, match="I.ir_module"), IRBuilder():
        I.module_attrs({})


def test_parser_ir_module_keeps_the_class_name() -> None:
    from tvmlite.script.parser import ir_module

    @ir_module
    class Blank:
        pass

    assert Blank.__name__ == "Blank" and len(Blank.functions) == 0


def test_relax_and_tir_functions_in_one_module() -> None:
    from tvmlite.script import relax as RS
    from tvmlite.script.ir_builder import relax as R

    with IRBuilder() as ib:
        with I.ir_module():
            with T.prim_func():
                T.func_name("noop")
            with R.function():
                R.func_name("main")
                x = R.arg("x", RS.Tensor((4,), "float32"))
                R.func_ret_value(x)
    mod = ib.get()

    @IS.ir_module
    class Expected:
        @TS.prim_func
        def noop():
            TS.evaluate(0)

        @RS.function
        def main(x: RS.Tensor((4,), "float32")) -> RS.Tensor((4,), "float32"):
            return x

    assert sorted(mod.names()) == ["main", "noop"] and structural_equal(mod, Expected)
