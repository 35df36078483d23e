"""`assert_structural_equal`'s message: both sides printed, the difference underlined (TVM's)."""

import pytest

from tvmlite import ir
from tvmlite.ffi.access_path import AccessPath
from tvmlite.ir.structural_report import access_path
from tvmlite.script import ir as I
from tvmlite.script import tir as T


@I.ir_module
class Zero:
    @T.prim_func
    def main():
        T.evaluate(0)


@I.ir_module
class One:
    @T.prim_func
    def main():
        T.evaluate(1)


def test_prim_type_difference_names_the_hidden_dtype():
    with pytest.raises(ValueError) as info:
        ir.assert_structural_equal(ir.PrimType("int32"), ir.PrimType("float32"))
    note = "Note: The underlined object is the nearest visible parent of this path.\n\n"
    assert str(info.value) == (
        "StructuralEqual check failed, caused by lhs at <root>.dtype:\n"
        "Access path: <root>.dtype\n" + note + "T.int32\n^^^^^^^\n"
        "and rhs at <root>.dtype:\n"
        "Access path: <root>.dtype\n" + note + "T.float32\n^^^^^^^^^")


def test_module_difference_underlines_the_constant_in_each_function():
    with pytest.raises(ValueError) as info:
        ir.assert_structural_equal(Zero, One)
    message = str(info.value)
    path = '<root>.functions[I.GlobalVar("main")].body.value.value'
    assert message.startswith(f"StructuralEqual check failed, caused by lhs at {path}:\n")
    assert f"\nand rhs at {path}:\n" in message
    assert "        T.evaluate(0)\n                   ^\n" in message
    assert message.endswith("        T.evaluate(1)\n                   ^")


def test_access_path_reads_the_comparison_path():
    gv = Zero.get_global_var("main")
    assert access_path(Zero, '["main"].body.value') == \
        AccessPath.root().attr("functions").map_item(gv).attr("body").attr("value")
    assert str(access_path(Zero, "<root>")) == "<root>"
    assert str(access_path({"k": [1]}, "['k'][0].x")) == '<root>["k"][0].x'


@T.prim_func
def two_loops():
    for i, j in T.grid(2, 2):
        with T.sblock():
            T.evaluate(0)


@T.prim_func
def three_loops():
    for i, j, k in T.grid(2, 2, 2):
        with T.sblock():
            T.evaluate(0)


def test_function_with_blocks_is_named_through_the_root_block():
    with pytest.raises(ValueError) as info:
        ir.assert_structural_equal(two_loops, three_loops)
    assert str(info.value).startswith(
        "StructuralEqual check failed, caused by lhs at <root>.body.block.body.body.body:\n")


def test_values_without_tvmscript_get_the_short_message():
    with pytest.raises(ValueError) as info:
        ir.assert_structural_equal([1, 2], [1, 3])
    assert str(info.value) == ("StructuralEqual check failed, caused by lhs at [1]: 2 vs 3\n"
                               "  2\nand rhs at [1]:\n  3")
