"""Issue 17, item 4: TIR mistakes that used to compile silently are located errors.

Each test checks TVM's error format: the message, `--> file:line:col`, the source line, and a
caret under the culprit.
"""

from __future__ import annotations

import pytest

from tvmlite.script import from_source
from tvmlite.script import relax as R
from tvmlite.script import tir as T
from tvmlite.script.diagnostics import DiagnosticError


def check(src: str, message: str, line: int, col: int, caret: str) -> None:
    with pytest.raises(DiagnosticError) as info:
        from_source(src)
    text = str(info.value).splitlines()
    assert text[0] == f"error: {message}"
    assert text[1] == f" --> <tvmscript>:{line}:{col}"
    assert text[3].endswith(src.splitlines()[line - 1])
    assert text[4].split("|", 1)[1] == " " + " " * (col - 1) + caret


def test_misspelled_dtype_of_a_buffer_parameter():
    src = '@T.prim_func\ndef f(A: T.Buffer((8,), "flaot32")):\n    A[0] = A[0]\n'
    check(src, "unknown dtype 'flaot32'; did you mean 'float32'?", 2, 25, "^" * 9)


def test_misspelled_dtype_of_an_allocation():
    src = ('@T.prim_func\ndef f(A: T.Buffer((8,), "float32")):\n'
           '    B = T.alloc_buffer((8,), "itn32")\n    A[0] = A[0]\n')
    check(src, "unknown dtype 'itn32'; did you mean 'int32'?", 3, 30, "^" * 7)


def test_misspelled_dtype_in_a_decorated_function_is_located_in_this_file():
    # Python evaluates the annotation before the decorator runs: the error must still point
    # at the dtype string of this file's source line
    with pytest.raises(DiagnosticError) as info:
        @T.prim_func
        def f(A: T.Buffer((8,), "flaot32")):
            A[0] = A[0]
    err = info.value
    assert err.message == "unknown dtype 'flaot32'; did you mean 'float32'?"
    lines = open(__file__).read().splitlines()
    line = next(k + 1 for k, text in enumerate(lines) if text.startswith("        def f(A"))
    assert (err.span.source_name, err.span.line) == (__file__, line)
    assert err.span.column == 32


def test_misspelled_dtype_of_a_relax_tensor():
    src = ('@R.function\ndef f(x: R.Tensor((8,), "flaot32")):\n    return x\n')
    check(src, "unknown dtype 'flaot32'; did you mean 'float32'?", 2, 25, "^" * 9)
    with pytest.raises(DiagnosticError, match="unknown dtype 'flaot16'"):
        @R.function
        def g(x: R.Tensor((8,), "flaot16")):
            return x


def test_known_dtypes_are_accepted():
    for dtype in ("float32", "int8", "uint1", "bool", "bfloat16", "float8_e4m3fn", "int32x4",
                  "float16x8", "handle"):
        src = f'@T.prim_func\ndef f(A: T.Buffer((8,), "{dtype}")):\n    T.evaluate(0)\n'
        assert from_source(src).buffer_map[0][1].dtype == dtype


def test_negative_buffer_dimension():
    src = '@T.prim_func\ndef f(A: T.Buffer((4, -8), "float32")):\n    T.evaluate(0)\n'
    check(src, "buffer dimension 1 is -8; a dimension cannot be negative", 2, 23, "^^")
    src = ('@T.prim_func\ndef f(A: T.Buffer((8,), "float32")):\n'
           '    B = T.alloc_buffer((-1,))\n    A[0] = A[0]\n')
    check(src, "buffer dimension 0 is -1; a dimension cannot be negative", 3, 25, "^^")


def test_reassigning_a_loop_variable():
    src = ('@T.prim_func\ndef f(A: T.Buffer((8,), "float32")):\n    for i in range(8):\n'
           '        i = i + 1\n        A[i] = T.float32(0)\n')
    check(src, "cannot assign to loop variable 'i' inside its loop; use another name",
          4, 9, "^" * 9)


def test_a_new_name_in_a_loop_is_fine():
    src = ('@T.prim_func\ndef f(A: T.Buffer((8,), "float32")):\n    for i in range(7):\n'
           '        j = i + 1\n        A[j] = T.float32(0)\n')
    assert "j: T.let[T.int32] = i + 1" in from_source(src).script()


def test_select_of_different_integer_widths_is_refused_as_in_tvm():
    src = ('@T.prim_func\ndef f(A: T.Buffer((8,), "int32"), B: T.Buffer((8,), "int64")):\n'
           '    for i in range(8):\n'
           '        A[i] = T.Cast("int32", T.Select(i < 4, A[i], B[i]))\n')
    check(src, "T.Select needs values of one dtype, got int32 (true value) and int64 (false "
               "value); cast one with T.Cast", 4, 54, "^^^^")


def test_if_then_else_of_different_widths_promotes_as_in_tvm():
    # TVM 0.27 accepts this and casts the narrower side; its printed form is the reference
    src = ('@T.prim_func\ndef f(A: T.Buffer((8,), "int32"), B: T.Buffer((8,), "int64")):\n'
           '    for i in range(8):\n'
           '        A[i] = T.Cast("int32", T.if_then_else(i < 4, A[i], B[i]))\n')
    text = from_source(src).script()
    assert 'A[i] = T.Cast("int32", T.if_then_else(i < 4, T.Cast("int64", A[i]), B[i]))' in text


def test_select_with_a_literal_takes_the_other_side_dtype():
    src = ('@T.prim_func\ndef f(B: T.Buffer((8,), "int64")):\n    for i in range(8):\n'
           '        B[i] = T.Select(i < 4, B[i], 0)\n')
    assert "B[i] = T.Select(i < 4, B[i], T.int64(0))" in from_source(src).script()


def test_opaque_data_access_in_a_block_needs_reads_and_writes():
    # TVM refuses too: the accessed region of `A.data` cannot be inferred
    src = ('@T.prim_func\ndef f(A: T.Buffer((16,), "float32")):\n'
           '    for i in range(16):\n'
           '        with T.sblock("b"):\n'
           '            T.evaluate(T.call_extern("int32", "g", A.data))\n')
    check(src, "this block uses buffer 'A' through its data pointer, so its accessed region "
               "cannot be inferred: annotate it with T.reads(...) and T.writes(...)",
          4, 9, "^" * 19)
    annotated = src.replace('            T.evaluate', '            T.reads(A[0:16])\n'
                            '            T.writes(A[0:16])\n            T.evaluate')
    assert from_source(annotated).body.body.block.reads


BLOCK = ('@T.prim_func\ndef f(A: T.Buffer((16, 16), "float32")):\n'
         '    for i, j in T.grid(16, 16):\n'
         '        with T.sblock("b"):\n'
         '            vi, vj = T.axis.remap("SS", [i, j])\n')


@pytest.mark.parametrize("first,second,message", [
    ("T.reads(A[0:8, 0:8])", "T.reads(A[0:16, 0:16])", "T.reads is given twice in this block"),
    ("T.writes(A[vi, vj])", "T.writes(A[vi, 0])", "T.writes is given twice in this block"),
    ("T.where(vi < 8)", "T.where(vj < 8)", "T.where is given twice in this block"),
])
def test_a_block_states_reads_writes_and_where_once(first, second, message):
    src = BLOCK + f"            {first}\n            {second}\n            A[vi, vj] = A[vi, vj]\n"
    check(src, message, 7, 13, "^" * len(second))


def test_a_block_iterator_defined_twice():
    src = BLOCK + "            vi = T.axis.S(16, j)\n            A[vi, vj] = A[vi, vj]\n"
    check(src, "block iterator 'vi' is defined twice in this block", 6, 13,
          "^" * len("vi = T.axis.S(16, j)"))


def test_a_block_iterator_bound_to_a_float():
    src = BLOCK.replace("vi, vj = T.axis.remap(\"SS\", [i, j])", "vi = T.axis.S(16, 0.5)") + \
        "            A[vi, 0] = A[vi, 0]\n"
    check(src, "a block iterator is bound to an integer, not a float32 value", 5, 31, "^^^")


def test_a_buffer_defined_twice():
    src = ('@T.prim_func\ndef f():\n'
           '    A = T.alloc_buffer((128,), "float32")\n'
           '    A = T.alloc_buffer((128,), "float32")\n'
           '    A[0] = T.float32(0)\n')
    check(src, "buffer 'A' is defined twice; give the second one another name", 4, 5,
          "^" * len('A = T.alloc_buffer((128,), "float32")'))


def test_an_error_spanning_lines_shows_every_line():
    src = ('@T.prim_func\ndef f() -> None:\n    for i, j in T.grid(16, 16):\n'
           '        vi, vj = T.axis.remap(\n            "S",\n            [i, j],\n        )\n')
    with pytest.raises(DiagnosticError) as info:
        from_source(src)
    lines = str(info.value).splitlines()
    assert lines[1] == " --> <tvmscript>:4:18"
    assert lines[3:] == [
        " 4 |         vi, vj = T.axis.remap(",
        "   |                  ^^^^^^^^^^^^^",
        ' 5 |             "S",',
        "   |             ^^^^",
        " 6 |             [i, j],",
        "   |             ^^^^^^^",
        " 7 |         )",
        "   |         ^",
    ]


def test_match_buffer_of_a_region_with_another_shape():
    src = ('@T.prim_func\ndef f(A: T.Buffer((8, 8), "float32")):\n'
           '    for i, j in T.grid(8, 2):\n'
           '        with T.sblock("b"):\n'
           '            T.reads([])\n'
           '            T.writes(A[i, j * 4:j * 4 + 4])\n'
           '            sub = T.match_buffer(A[i, j * 4:j * 4 + 4], (5,))\n'
           '            sub[0] = T.float32(1)\n')
    check(src, "the region has shape (1, 4) but the buffer (5,)", 7, 19,
          "^" * len("T.match_buffer(A[i, j * 4:j * 4 + 4], (5,))"))
    assert from_source(src.replace("(5,))", "(4,))")).body.body.body.block.match_buffers


def test_a_private_function_with_a_global_symbol():
    src = ('@T.prim_func(private=True)\ndef f(A: T.Buffer((4,), "float32")):\n'
           '    T.func_attr({"global_symbol": "f"})\n    A[0] = T.float32(0)\n')
    with pytest.raises(DiagnosticError, match="a private function has no global symbol"):
        from_source(src)
