# ruff: noqa: F841 (TVMScript bodies name what they define)
"""The printer's text as TVM 0.27 prints it: the `tirx` header, `s_tir=True` from the function's
attribute, and `.script()` of single TIR nodes. Expected texts are apache-tvm 0.27's output."""

import pytest
from tvmlite import ir, tir
from tvmlite.ir.structural import structural_equal
from tvmlite.script import from_source
from tvmlite.script import tir as T

HEADER = "# from tvm.script import tirx as T\n# from tvm.tirx.layout import Axis\n\n"


def test_header_and_s_tir_flag_without_blocks():
    @T.prim_func(s_tir=True)
    def func():
        return T.int32(5)

    text = func.script()
    assert text == HEADER + "@T.prim_func(s_tir=True)\ndef func():\n    return 5"
    back = from_source(text)
    assert dict(back.attrs)["s_tir"] is True
    assert structural_equal(back, func)


def test_s_tir_attr_set_by_with_attr_prints_in_the_decorator():
    a = tir.Var("x", "int32")
    f = tir.PrimFunc(params=[a], body=tir.Evaluate(a), ret_type=None).with_attr("s_tir", True)
    assert "@T.prim_func(private=True, s_tir=True)\ndef main(x: T.int32):" in f.script()
    assert "func_attr" not in f.script()


def test_s_tir_flag_is_not_structure():
    @T.prim_func(s_tir=True)
    def marked(A: T.Buffer((4,), "float32")):
        A[0] = T.float32(1)

    @T.prim_func
    def plain(A: T.Buffer((4,), "float32")):
        A[0] = T.float32(1)

    assert structural_equal(marked.with_attr("global_symbol", "plain"), plain)
    assert not structural_equal(marked, plain.with_attr("other", 1))


def test_expression_script_defines_its_free_variables_first():
    a, b = tir.Var("a", "int32"), tir.Var("b", "int32")
    assert (a + b).script() == "a = T.int32()\nb = T.int32()\na + b"
    assert tir.Cast("float64", tir.Var("f", "float32")).script() == \
        'f = T.float32()\nT.Cast("float64", f)'
    assert T.float16(1).script() == "T.float16(1.0)"
    assert T.int16(1).script() == "T.int16(1)"


def test_buffer_and_region_script():
    A = tir.decl_buffer((128, 128), "float16", name="A")
    assert A.script() == 'A = T.Buffer((128, 128), "float16")\nA'
    assert A[1, 2].script() == 'A = T.Buffer((128, 128), "float16")\nA[1, 2]'
    src = tir.decl_buffer((128, 128), "float32", name="src")
    region = tir.BufferRegion(src, [ir.Range(64, 128), ir.Range(64, 128)])
    assert region.script() == "src = T.Buffer((128, 128))\nsrc[64:128, 64:128]"


def test_statement_range_and_let_script():
    stmt = tir.Evaluate(tir.Var("n", "int32") + 1)
    assert stmt.script() == "n = T.int32()\nT.evaluate(n + 1)"
    assert ir.Range(0, 10).script() == "I.Range(0, 10)"
    assert ir.Range(2, 10).script() == "I.Range(2, 10)"
    x = tir.Var("x", "int32")
    assert tir.Let(x, 1, x + 1).script() == "x = T.int32()\nT.Let(x + 1, where={x: 1})"


def test_prim_func_with_tvm_constructor_and_buffer_params():
    A = tir.decl_buffer(shape=[128, 128], dtype="float32", name="A")
    f = tir.PrimFunc(params=[A], ret_type=None, body=tir.Evaluate(0)).with_attr(
        "global_symbol", "main")
    assert f.script() == (HEADER + '@T.prim_func\ndef main(A: T.Buffer((128, 128), "float32")):'
                          "\n    T.evaluate(0)")
    assert f.buffer_of(f.params[0]) is A
    assert structural_equal(from_source(f.script()), f)


def test_evaluate_and_let_take_python_numbers():
    assert structural_equal(tir.Evaluate(0), tir.Evaluate(tir.IntImm("int32", 0)))
    x = tir.Var("x", "int64")
    assert tir.Let(x, 1, x).value == tir.IntImm("int64", 1)


def test_constant_operands_and_integer_division_print_as_node_classes():
    three, four = tir.IntImm("int64", 3), tir.IntImm("int64", 4)
    assert str(three) == "T.int64(3)" and str(T.float16(1)) == "T.float16(1.0)"
    assert (three + four).script() == "T.Add(T.int64(3), T.int64(4))"
    assert tir.LT(three, four).script() == "T.LT(T.int64(3), T.int64(4))"
    a, b = tir.Var("a", "int32"), tir.Var("b", "int32")
    assert tir.Div(a, b).script() == "a = T.int32()\nb = T.int32()\nT.Div(a, b)"
    x = tir.Var("x", "float32")
    assert (x / x).script() == "x = T.float32()\nx / x"
    assert tir.Select(True, 0, 2).script() == "T.Select(T.bool(True), 0, 2)"


def test_constant_node_classes_and_loop_jumps_round_trip():
    @T.prim_func
    def f(A: T.Buffer((4,), "int32"), n: T.int32):
        A[0] = T.Add(3, 4) + T.Div(n, 2)
        for i in range(4):
            if T.bool(True):
                T.break_loop()

    text = f.script()
    assert "A[0] = T.Add(3, 4) + T.Div(n, 2)" in text
    assert "        if T.bool(True):\n            T.break_loop()" in text
    assert structural_equal(from_source(text), f)


def test_block_iterators_remap_in_runs_and_empty_access_lists_print():
    @T.prim_func(s_tir=True)
    def f():
        a = T.sblock_alloc_buffer((8,))
        for i0, i1, i2, i3 in T.grid(8, 8, 8, 8):
            with T.sblock("update"):
                v0 = T.axis.spatial(8, i0)
                v1 = T.axis.spatial(9, i1 + 1)
                v2, v3 = T.axis.remap("SR", [i2, i3])
                T.evaluate(0)

    text = f.script()
    expected = '''    a = T.sblock_alloc_buffer((8,))
    for i0, i1, i2, i3 in T.grid(8, 8, 8, 8):
        with T.sblock("update"):
            v0 = T.axis.spatial(8, i0)
            v1 = T.axis.spatial(9, i1 + 1)
            v2, v3 = T.axis.remap("SR", [i2, i3])
            T.reads()
            T.writes()
            T.evaluate(0)'''
    assert expected in text
    assert structural_equal(from_source(text), f)


def test_block_that_touches_buffers_keeps_its_access_lists_unprinted_when_inferred():
    @T.prim_func(s_tir=True)
    def f(A: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.sblock("x"):
                vi = T.axis.remap("S", [i])
                A[vi] = A[vi] + T.float32(1)

    text = f.script()
    assert "vi = T.axis.spatial(4, i)\n" in text and "T.reads" not in text
    assert structural_equal(from_source(text), f)


def test_tir_vscale_is_the_T_vscale_call():
    assert structural_equal(tir.vscale(), T.vscale())
    assert (tir.vscale() * 4).script() == "T.vscale() * 4"


def test_scalable_lanes_keyword_prim_func_and_shared_buffer_data():
    a = tir.Var("a", "int32")
    assert tir.Ramp(a, 1, tir.vscale() * 8).script() == \
        "a = T.int32()\nT.Ramp(a, 1, T.vscale() * 8)"
    assert tir.Broadcast(0, tir.vscale() * 4).script() == "T.Broadcast(0, T.vscale() * 4)"
    f = tir.PrimFunc(params=[], body=tir.Evaluate(0))
    assert f.params == () and f.buffer_map == () and isinstance(f.body, tir.Evaluate)
    data = tir.decl_buffer((4,), name="A").data
    b = tir.decl_buffer((8,), name="B", data=data)
    assert b.data is data


def test_every_expression_has_tvm_ty():
    assert tir.IntImm("int64", 1).ty.dtype == "int64"
    assert (tir.Var("x", "float16") + T.float16(1)).ty == "float16"


def test_tirx_has_the_T_intrinsics_and_math():
    from tvmlite import tirx

    assert structural_equal(tirx.atan(T.float32(1.0)), T.atan(T.float32(1.0)))
    assert tirx.call_llvm_pure_intrin("int32x4", "llvm.donothing").script() == \
        'T.call_llvm_pure_intrin("int32x4", "llvm.donothing")'


def test_assert_prints_and_parses_in_tvm_027_form():
    @T.prim_func
    def f(n: T.int32):
        assert n > 0, "bad n"
        T.evaluate(n)

    text = f.script()
    assert '    assert n > 0, ("RuntimeError", ["bad n"])\n' in text
    assert structural_equal(from_source(text), f)
    other = from_source(text.replace('("RuntimeError", ["bad n"])',
                                     '("ValueError", ["bad ", "n"])'))
    assert other.body.kind == "ValueError" and other.body.message == "bad n"
    assert '    assert n > 0, ("ValueError", ["bad n"])\n' in other.script()
    assert not structural_equal(other, f)
    with pytest.raises(Exception, match="an assert message is a string or"):
        from_source(text.replace('("RuntimeError", ["bad n"])', '("ValueError",)'))


def test_nested_sequences_flatten_as_tvm_normalizes_them():
    inner = tir.SeqStmt([tir.Evaluate(0), tir.Evaluate(1)])
    seq = tir.SeqStmt([inner, tir.Evaluate(2)])
    assert [x.value.value for x in seq.seq] == [0, 1, 2] and type(seq.seq) is tuple
    f = tir.PrimFunc(params=[], body=seq)
    assert structural_equal(from_source(f.script()), f)
