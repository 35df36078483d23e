"""te.create_prim_func's output in TVM 0.27's form: int32 dims from Python ints, the `main`
symbol, index_dtype_override, 0-d computes, te.var parameters, layout-free placeholders and
identities that read the spatial axes. Each expected function is apache-tvm 0.27's printed
output for the same te program (its T.reads / T.writes left to the parser)."""

import numpy as np
import pytest

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


def test_several_outputs_share_the_loop_nest_one_block_each():
    A0, A1 = te.placeholder((4, 3), name="A0"), te.placeholder((4, 3), name="A1")
    B0, B1 = te.compute((4, 3), lambda i, j: (A0[i, j] + 2, A1[i, j] * 3), name="B")
    expected = HEAD + (
        'def main(A0: T.Buffer((4, 3), "float32"), A1: T.Buffer((4, 3), "float32"),'
        ' B_v0: T.Buffer((4, 3), "float32"), B_v1: T.Buffer((4, 3), "float32")):\n'
        '    T.func_attr({"global_symbol": "main", "tirx.noalias": True})\n'
        "    for i, j in T.grid(4, 3):\n"
        '        with T.sblock("B_v0"):\n'
        '            v_i, v_j = T.axis.remap("SS", [i, j])\n'
        "            B_v0[v_i, v_j] = A0[v_i, v_j] + T.float32(2.0)\n"
        '        with T.sblock("B_v1"):\n'
        '            v_i, v_j = T.axis.remap("SS", [i, j])\n'
        "            B_v1[v_i, v_j] = A1[v_i, v_j] * T.float32(3.0)\n")
    func = te.create_prim_func([A0, A1, B0, B1])
    tvm.ir.assert_structural_equal(func, from_source(expected))
    a0, a1 = np.ones((4, 3), "float32"), np.full((4, 3), 2.0, "float32")
    b0, b1 = np.zeros((4, 3), "float32"), np.zeros((4, 3), "float32")
    tvm.build(func, target="llvm")["main"](a0, a1, b0, b1)
    np.testing.assert_allclose(b0, a0 + 2)
    np.testing.assert_allclose(b1, a1 * 3)


def argmax_reducer():
    def combine(x, y):
        keep = x[1] >= y[1]
        return tvm.tir.Select(keep, x[0], y[0]), tvm.tir.Select(keep, x[1], y[1])

    return te.comm_reducer(combine, lambda t0, t1: (tvm.tir.const(-1, t0), te.min_value(t1)),
                           name="argmax")


def test_a_tuple_reduction_is_one_block_binding_each_value():
    idx = te.placeholder((4, 6), name="idx", dtype="int32")
    val = te.placeholder((4, 6), name="val")
    k = te.reduce_axis((0, 6), "k")
    mi, mv = te.compute((4,), lambda i: argmax_reducer()((idx[i, k], val[i, k]), axis=k),
                        name="argmax")
    expected = HEAD + (  # apache-tvm 0.27's print, its T.let bindings as tvmlite spells them
        'def main(idx: T.Buffer((4, 6), "int32"), val: T.Buffer((4, 6), "float32"),'
        ' argmax_v0: T.Buffer((4,), "int32"), argmax_v1: T.Buffer((4,), "float32")):\n'
        '    T.func_attr({"global_symbol": "main", "tirx.noalias": True})\n'
        "    for i, k in T.grid(4, 6):\n"
        '        with T.sblock("argmax"):\n'
        '            v_i, v_k = T.axis.remap("SR", [i, k])\n'
        "            with T.init():\n"
        "                argmax_v0[v_i] = -1\n"
        "                argmax_v1[v_i] = T.float32(-3.4028234663852886e+38)\n"
        "            v_argmax_v0: T.int32 = T.Select(argmax_v1[v_i] >= val[v_i, v_k],"
        " argmax_v0[v_i], idx[v_i, v_k])\n"
        "            v_argmax_v1: T.float32 = T.Select(argmax_v1[v_i] >= val[v_i, v_k],"
        " argmax_v1[v_i], val[v_i, v_k])\n"
        "            argmax_v0[v_i] = v_argmax_v0\n"
        "            argmax_v1[v_i] = v_argmax_v1\n")
    func = te.create_prim_func([idx, val, mi, mv])
    tvm.ir.assert_structural_equal(func, from_source(expected))
    v = np.random.default_rng(1).standard_normal((4, 6)).astype("float32")
    ids = np.arange(24, dtype="int32").reshape(4, 6)
    out_i, out_v = np.zeros(4, "int32"), np.zeros(4, "float32")
    tvm.build(func, target="llvm")["main"](ids, v, out_i, out_v)
    np.testing.assert_array_equal(out_i, ids[np.arange(4), v.argmax(1)])
    np.testing.assert_array_equal(out_v, v.max(1))


def test_a_reduction_inside_an_expression_or_mixed_outputs_is_an_error():
    A = te.placeholder((4, 6), name="A")
    k = te.reduce_axis((0, 6), "k")
    with pytest.raises(RuntimeError, match="whole body"):
        te.compute((4,), lambda i: te.sum(A[i, k], axis=k) + 1)
    with pytest.raises(RuntimeError, match="all reductions or none"):
        te.compute((4,), lambda i: (te.sum(A[i, k], axis=k), A[i, 0] + 1))


def test_a_producer_load_reads_a_0d_compute():
    A = te.placeholder((5,), name="A")
    B = te.compute((), lambda: 2, name="B")
    C = te.compute((5,), lambda x: A[x] + tvm.tir.expr.ProducerLoad(B, []), name="C")
    a, c = np.arange(5, dtype="float32"), np.zeros(5, "float32")
    tvm.build(te.create_prim_func([C, A]), target="llvm")["main"](c, a)
    np.testing.assert_allclose(c, a + 2)
