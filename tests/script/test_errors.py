"""Errors: TVM's format (`error:`, `--> file:line:col`, the source line, a caret)."""

import sys

import pytest
from tvmlite.script import from_source
from tvmlite.script import tir as T
from tvmlite.script.diagnostics import DiagnosticError

HEAD = '''@T.prim_func
def f(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    for i in range(4):
'''


def check(src: str, message: str, line: int, col: int, caret: str) -> DiagnosticError:
    with pytest.raises(DiagnosticError) as info:
        from_source(src)
    err = info.value
    text = str(err).splitlines()
    assert text[0] == f"error: {message}"
    assert text[1] == f" --> <tvmscript>:{line}:{col}"
    assert text[3].endswith(src.splitlines()[line - 1])
    assert text[4].split("|", 1)[1] == " " + " " * (col - 1) + caret
    assert isinstance(err, ValueError)
    return err


def test_undefined_variable():
    check(HEAD + "        C[i] = A[i]\n", "undefined variable 'C'", 4, 9, "^")


def test_while_else_is_refused():
    check(HEAD + "        while i < 2:\n            B[i] = A[i]\n        else:\n"
                 "            B[i] = A[i]\n",
          "`while ... else` is not supported in TVMScript", 4, 9, "^" * 12)


def test_axis_remap_count():
    src = HEAD + '''        with T.block("b"):
            vi, vj = T.axis.remap("SS", [i])
            B[vi] = A[vi]
'''
    check(src, "T.axis.remap got 2 iterator kinds 'SS' but 1 loop variables", 5, 22, "^" * 23)


def test_store_dtype_mismatch():
    check(HEAD + "        B[i] = T.int32(1)\n",
          "cannot store a int32 value into float32 buffer 'B'; cast it with "
          "T.Cast('float32', ...)", 4, 9, "^" * 17)


MODULE = '''@I.ir_module
class Module:
    @T.prim_func
    def linear(X: T.Buffer((1, 784), "float32"), W: T.Buffer((128, 784), "float32"),
               Z: T.Buffer((1, 128), "float32")):
        for i, j, k in T.grid(1, 128, 784):
            with T.block("Z"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Z[vi, vj] = T.float32(0)
                Z[vi, vj] = Z[vi, vj] + X[vi, vk] * W[vj, vk]

    @R.function
    def main(x: R.Tensor((1, 784), "float32"), w: R.Tensor((784, 128), "float32")):
        y = R.call_tir(linear, CALL)
        return y
'''


def test_call_tir_shape_mismatch():
    src = MODULE.replace("CALL", '(x, w), R.Tensor((1, 128), "float32")')
    check(src, "argument 1 of call_tir to 'linear' does not fit parameter 'W': shape "
               "(784, 128), expected (128, 784) float32", 15, 36, "^")


def test_call_tir_output_mismatch():
    w = MODULE.replace('w: R.Tensor((784, 128), "float32")', 'w: R.Tensor((128, 784), "float32")')
    src = w.replace("CALL", '(x, w), out_sinfo=R.Tensor((1, 10), "float32")')
    check(src, "output 0 of call_tir to 'linear' does not fit parameter 'Z': shape (1, 10), "
               "expected (1, 128) float32", 15, 50, "^" * 28)


def test_call_tir_arg_count():
    src = MODULE.replace("CALL", '(x,), R.Tensor((1, 128), "float32")')
    check(src, "prim_func 'linear' takes 3 buffers (X, W, Z): call_tir gave 1 inputs and 1 "
               "outputs", 15, 32, "^^^^")


def test_undefined_in_relax_and_dataflow_output():
    src = '''@R.function
def main(x: R.Tensor((2,), "float32")):
    with R.dataflow():
        y = R.call_packed("f", x, sinfo_args=R.Tensor((2,), "float32"))
        R.output(z)
    return y
'''
    check(src, "undefined variable 'z'", 5, 18, "^")


def test_decorator_error_points_into_this_file():
    line = sys._getframe().f_lineno + 5
    with pytest.raises(DiagnosticError) as info:
        @T.prim_func
        def bad(A: T.Buffer((4,), "float32")):
            for i in range(4):
                A[i] = undefined_name  # noqa: F821
    assert f"{__file__}:{line}:24" in str(info.value)
    assert info.value.span.line == line
    # the traceback is short: no frame of the parser's internals beyond the entry point
    frames = []
    tb = info.value.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame.f_code.co_filename)
        tb = tb.tb_next
    assert not any("parser/core.py" in f for f in frames)


def test_plain_exec_suggests_from_source():
    code = '@T.prim_func\ndef f(A: T.Buffer((1,), "float32")):\n    A[0] = T.float32(0)\n'
    with pytest.raises(ValueError, match="from_source"):
        exec(code, {"T": T})  # noqa: S102 - the case under test


def test_unsupported_expression():
    check(HEAD + "        B[i] = [x for x in A]\n",
          "a list comprehension is not supported in TVMScript", 4, 16, "^" * 14)
