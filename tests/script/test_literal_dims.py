"""Literal buffer dims in TVMScript are int32 constants, as TVM's parser makes them; int64 ones
print as `T.int64(n)`. Expected text: apache-tvm 0.27's printed output of the same function."""

import numpy as np

import tvmlite as tvm
from tvmlite import relax, tir
from tvmlite.script import from_source
from tvmlite.script import relax as R

SRC = ('from tvmlite.script import tir as T\n@T.prim_func\n'
       'def f(A: T.Buffer((8,), "float32"), B: T.Buffer((T.int64(2), T.int64(4)), "float32")):\n'
       '    for i in range(8):\n'
       '        A[i] = B[i // 4, i % 4] + T.float32(1.0)\n')


def test_literal_dims_are_int32_and_int64_ones_print_as_such():
    f = from_source(SRC)
    a_buf, b_buf = (f.buffer_of(p) for p in f.params)
    assert [d.dtype for d in a_buf.shape] == ["int32"]
    assert [d.dtype for d in b_buf.shape] == ["int64", "int64"]
    assert ('def f(A: T.Buffer((8,), "float32"), '
            'B: T.Buffer((T.int64(2), T.int64(4)), "float32")):') in f.script()
    tvm.ir.assert_structural_equal(from_source(f.script()), f)
    assert [d.dtype for d in tir.decl_buffer((3, 5)).shape] == ["int32", "int32"]
    a, b = np.zeros(8, "float32"), np.arange(8, dtype="float32").reshape(2, 4)
    tvm.build(f, target="llvm")["f"](a, b)
    np.testing.assert_allclose(a, b.reshape(8) + 1)


def test_a_prim_funcs_type_has_the_graphs_int64_dims():
    f = from_source(SRC)
    assert f.ty.params[0] == relax.TensorStructInfo((8,), "float32")


def test_legalized_buffers_print_their_int64_dims():
    @tvm.script.ir_module
    class M:
        @R.function
        def main(x: R.Tensor((2, 3), "float32")):
            return R.add(x, x)

    text = relax.transform.LegalizeOps()(M).script()
    assert 'def add(x: T.Buffer((T.int64(2), T.int64(3)), "float32"), ' in text


def test_a_select_of_two_integer_widths_meets_at_the_wider():
    i32, i64 = tir.Var("a", "int32"), tir.Var("b", "int64")
    s = tir.Select(i32 < 4, i32, i64)
    assert s.dtype == "int64" and s.true_value.dtype == s.false_value.dtype == "int64"


def test_a_parsed_prim_funcs_name_is_its_python_def_name():
    # apache-tvm 0.27: `foo.__name__` is "foo" even when its global symbol is "main"
    f = from_source('from tvmlite.script import tir as T\n@T.prim_func\n'
                    'def foo(A: T.Buffer((4,), "float32")):\n'
                    '    T.func_attr({"global_symbol": "main"})\n    A[0] = T.float32(1)\n')
    assert f.__name__ == "foo" and f.attrs["global_symbol"] == "main"
