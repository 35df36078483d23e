"""te.create_prim_func's output in TVM 0.27's form: int32 dims from Python ints, the `main`
symbol, index_dtype_override, 0-d computes, te.var parameters, layout-free placeholders and
identities that read the spatial axes. Each expected function is apache-tvm 0.27's printed
output for the same te program (its T.reads / T.writes left to the parser)."""

import numpy as np

import tvmlite as tvm
from tvmlite import te
from tvmlite.script import from_source
from tvmlite.topi.schedule_mode import default_schedules

HEAD = "from tvmlite.script import tir as T\n@T.prim_func(s_tir=True)\n"


def dot_rows():
    A = te.placeholder((4, 6), name="A")
    B = te.placeholder((4, 6), name="B")
    k = te.reduce_axis((0, 6), "k")
    C = te.compute((4,), lambda i: te.sum(A[i, k] * B[i, k], axis=k), name="C",
                   attrs={"layout_free_placeholders": [B]})
    return [A, B, C]


def expected_dot_rows(dim: str) -> str:
    d4, d6 = (f"T.int64({n})" if dim == "int64" else str(n) for n in (4, 6))
    return HEAD + (
        f'def main(A: T.Buffer(({d4}, {d6}), "float32"), B: T.Buffer(({d4}, {d6}), "float32"),'
        f' C: T.Buffer(({d4},), "float32")):\n'
        '    T.func_attr({"global_symbol": "main", "layout_free_buffers": [1],'
        ' "tirx.noalias": True})\n'
        f"    for i, k in T.grid({d4}, {d6}):\n"
        '        with T.sblock("C"):\n'
        '            v_i, v_k = T.axis.remap("SR", [i, k])\n'
        "            with T.init():\n"
        "                C[v_i] = T.float32(0.0)\n"
        "            C[v_i] = C[v_i] + A[v_i, v_k] * B[v_i, v_k]\n")


def test_python_int_dims_are_int32_and_the_function_is_main():
    A = te.placeholder((4, 6), name="A")
    assert [d.dtype for d in A.shape] == ["int32", "int32"]
    func = te.create_prim_func(dot_rows())
    assert func.attrs["global_symbol"] == "main"
    tvm.ir.assert_structural_equal(func, from_source(expected_dot_rows("int32")))


def test_index_dtype_override_widens_every_index():
    func = te.create_prim_func(dot_rows(), index_dtype_override="int64")
    tvm.ir.assert_structural_equal(func, from_source(expected_dot_rows("int64")))
    a, b = np.arange(24, dtype="float32").reshape(4, 6), np.full((4, 6), 0.5, "float32")
    c = np.zeros(4, "float32")
    tvm.build(func, target="llvm")["main"](a, b, c)
    np.testing.assert_allclose(c, (a * b).sum(1))


def test_a_0d_compute_has_tvms_unit_iter_var():
    a = te.placeholder((), name="a", dtype="int32")
    c = te.compute((), lambda: a[()] + 1, name="c")
    expected = HEAD + (
        'def main(a: T.Buffer((), "int32"), c: T.Buffer((), "int32")):\n'
        '    T.func_attr({"global_symbol": "main", "tirx.noalias": True})\n'
        '    with T.sblock("c"):\n'
        "        vi = T.axis.spatial(1, 0)\n"
        "        c[()] = a[()] + 1\n")
    tvm.ir.assert_structural_equal(te.create_prim_func([a, c]), from_source(expected))


def test_a_te_var_argument_is_a_scalar_parameter():
    n = te.var("n", dtype="int64")
    X = te.placeholder((n, 3), name="X")
    Y = te.compute((n, 3), lambda i, j: X[i, j] * 2.0, name="Y")
    func = te.create_prim_func([X, n, Y])
    assert func.params[1] is n
    loop_i, loop_j = func.body.block.body, func.body.block.body.body
    assert (loop_i.loop_var.dtype, loop_j.loop_var.dtype) == ("int64", "int32")  # as TVM's
    x = np.arange(15, dtype="float32").reshape(5, 3)
    y = np.zeros((5, 3), "float32")
    tvm.build(func, target="llvm")["main"](x, 5, y)
    np.testing.assert_allclose(y, x * 2)


def test_a_reducer_identity_may_read_the_spatial_axes():
    A = te.placeholder((4, 6), name="A")
    init = te.placeholder((4,), name="init")
    r = te.reduce_axis((0, 6), "r")
    S = te.compute((4,), lambda i: te.comm_reducer(lambda x, y: x + y, lambda t: init[i])(
        A[i, r], axis=[r]), name="S")
    expected = HEAD + (
        'def main(A: T.Buffer((4, 6), "float32"), init: T.Buffer((4,), "float32"),'
        ' S: T.Buffer((4,), "float32")):\n'
        '    T.func_attr({"global_symbol": "main", "tirx.noalias": True})\n'
        "    for i, r in T.grid(4, 6):\n"
        '        with T.sblock("S"):\n'
        '            v_i, v_r = T.axis.remap("SR", [i, r])\n'
        "            with T.init():\n"
        "                S[v_i] = init[v_i]\n"
        "            S[v_i] = S[v_i] + A[v_i, v_r]\n")
    func = te.create_prim_func([A, init, S])
    tvm.ir.assert_structural_equal(func, from_source(expected))
    a, b = np.ones((4, 6), "float32"), np.arange(4, dtype="float32")
    s = np.zeros(4, "float32")
    tvm.build(func, target="llvm")["main"](a, b, s)
    np.testing.assert_allclose(s, b + 6)


def test_the_builds_scheduled_computes_keep_int64_indices():
    with default_schedules():
        A = te.placeholder((4, 6), name="A")
        B = te.compute((4, 6), lambda i, j: A[i, j] + A[0, 0], name="B")
    assert [d.dtype for d in B.shape] == ["int64", "int64"]
    assert [ix.dtype for ix in B.op.body.b.indices] == ["int64", "int64"]
