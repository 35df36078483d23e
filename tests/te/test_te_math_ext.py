"""te's scalar math, division flavours, any/all, comm_reducer and tag_scope, compiled through
te.create_prim_func + tvm.build and checked against numpy."""

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import te


def run(ins, out, arrays, out_dtype=None):
    f = tvm.build(te.create_prim_func([*ins, out]), target="llvm")
    shape = tuple(int(d.value) for d in out.shape)
    res = np.zeros(shape, out_dtype or out.dtype)
    f["main"](*arrays, res)
    return res


UNARY = {
    "sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos,
    "atan": np.arctan, "sinh": np.sinh, "cosh": np.cosh, "asinh": np.arcsinh,
    "atanh": np.arctanh, "log2": np.log2, "log10": np.log10, "trunc": np.trunc,
    "nearbyint": np.rint,
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_math_matches_numpy(name):
    x = np.linspace(-0.9, 0.9, 16).astype("float32")
    if name in ("log2", "log10"):
        x = np.abs(x) + 0.1
    if name == "nearbyint":
        x = x * 5
    a = te.placeholder((16,), "float32", name="a")
    b = te.compute((16,), lambda i: getattr(te, name)(a[i]), name="b")
    np.testing.assert_allclose(run([a], b, [x]), UNARY[name](x), rtol=1e-5, atol=1e-6)


def test_acosh_and_int_rejected():
    x = np.linspace(1.0, 4.0, 8).astype("float32")
    a = te.placeholder((8,), "float32", name="a")
    b = te.compute((8,), lambda i: te.acosh(a[i]), name="b")
    np.testing.assert_allclose(run([a], b, [x]), np.arccosh(x), rtol=1e-5)
    with pytest.raises(TypeError, match="float"):
        te.sin(te.var("n"))


def test_division_flavours_on_negative_ints():
    x = np.array([-7, -6, -1, 0, 5, 7, 9, -9], "int32")
    y = np.array([2, -4, 3, 5, -2, 3, 4, 4], "int32")
    a = te.placeholder((8,), "int32", name="a")
    b = te.placeholder((8,), "int32", name="b")
    expect = {
        "floordiv": x // y, "floormod": np.mod(x, y), "indexdiv": x // y,
        "indexmod": np.mod(x, y), "truncdiv": np.trunc(x / y).astype("int32"),
        "truncmod": np.fmod(x, y), "div": np.trunc(x / y).astype("int32"),
    }
    for name, ref in expect.items():
        c = te.compute((8,), lambda i: getattr(te, name)(a[i], b[i]), name="c")
        np.testing.assert_array_equal(run([a, b], c, [x, y]), ref, err_msg=name)


def test_fmod_power_logaddexp():
    x = np.array([-5.5, 2.5, 3.0, 0.5], "float32")
    y = np.array([2.0, 1.5, -2.0, 3.0], "float32")
    a = te.placeholder((4,), "float32", name="a")
    b = te.placeholder((4,), "float32", name="b")
    for fn, ref in ((te.fmod, np.fmod(x, y)), (te.power, np.power(np.abs(x), y)),
                    (te.logaddexp, np.logaddexp(x, y))):
        src = (lambda i: fn(te.abs(a[i]), b[i])) if fn is te.power else (
            lambda i: fn(a[i], b[i]))
        c = te.compute((4,), src, name="c")
        np.testing.assert_allclose(run([a, b], c, [x, y]), ref, rtol=1e-5)


def test_float_classes():
    x = np.array([1.0, np.inf, -np.inf, np.nan, 0.0], "float32")
    a = te.placeholder((5,), "float32", name="a")
    for fn, ref in ((te.isnan, np.isnan), (te.isinf, np.isinf), (te.isfinite, np.isfinite)):
        c = te.compute((5,), lambda i: fn(a[i]), name="c")
        np.testing.assert_array_equal(run([a], c, [x]), ref(x), err_msg=fn.__name__)


def test_any_all():
    x = np.array([-2, 0, 3, 7, 12], "int32")
    a = te.placeholder((5,), "int32", name="a")
    c = te.compute((5,), lambda i: te.any(a[i] < 0, a[i] > 5), name="c")
    np.testing.assert_array_equal(run([a], c, [x]), (x < 0) | (x > 5))
    d = te.compute((5,), lambda i: te.all(a[i] >= 0, a[i] < 5, a[i] != 1), name="d")
    np.testing.assert_array_equal(run([a], d, [x]), (x >= 0) & (x < 5) & (x != 1))
    with pytest.raises(ValueError):
        te.any()


def test_comm_reducer_sum_of_squares_and_custom_max():
    x = np.random.default_rng(0).standard_normal((4, 6)).astype("float32")
    a = te.placeholder((4, 6), "float32", name="a")
    sumsq = te.comm_reducer(lambda p, q: p + q * q, lambda t: tvm.tir.const(0, t), name="sumsq")
    k = te.reduce_axis((0, 6), name="k")
    c = te.compute((4,), lambda i: sumsq(a[i, k], axis=k), name="c")
    np.testing.assert_allclose(run([a], c, [x]), (x * x).sum(1), rtol=1e-5)
    mx = te.comm_reducer(lambda p, q: te.max(p, q), lambda t: te.min_value(t))
    k2 = te.reduce_axis((0, 4), name="k2")
    d = te.compute((6,), lambda j: mx(a[k2, j], axis=k2), name="d")
    np.testing.assert_allclose(run([a], d, [x]), x.max(0))


def test_tag_scope_decorator_context_and_nesting():
    a = te.placeholder((4,), name="a")

    @te.tag_scope(tag="ew")
    def plus_one(t):
        return te.compute(t.shape, lambda i: t[i] + 1.0)

    assert plus_one(a).op.tag == "ew"
    with te.tag_scope("gemm"):
        b = te.compute((4,), lambda i: a[i] * 2.0)
        own = te.compute((4,), lambda i: a[i], tag="mine")
    assert (b.op.tag, own.op.tag) == ("gemm", "mine")
    assert te.compute((4,), lambda i: a[i]).op.tag == ""
    with pytest.raises(ValueError, match="nested"):
        with te.tag_scope("x"):
            plus_one(a)


def test_popcount_and_tensor_slice():
    x = np.array([0, 1, 7, 255, 1023, -1], "int32")
    a = te.placeholder((6,), "int32", name="a")
    c = te.compute((6,), lambda i: te.popcount(a[i]), name="c")
    ref = [bin(int(v) & 0xFFFFFFFF).count("1") for v in x]
    np.testing.assert_array_equal(run([a], c, [x]), ref)
    with pytest.raises(TypeError, match="integer"):
        te.popcount(tvm.tir.const(1.0, "float32"))
    m = np.arange(12, dtype="float32").reshape(3, 4)
    b = te.placeholder((3, 4), "float32", name="b")
    row = b[1]
    assert isinstance(row, te.TensorSlice) and row.dtype == "float32"
    d = te.compute((3, 4), lambda i, j: b[i][j] * 2.0, name="d")
    np.testing.assert_array_equal(run([b], d, [m]), m * 2)


def test_thread_axis():
    from tvmlite.tir.stmt import IterType

    tx = te.thread_axis("threadIdx.x")
    assert (tx.thread_tag, tx.var.name, tx.iter_type, tx.dom) == (
        "threadIdx.x", "threadIdx.x", IterType.THREAD, None)
    bx = te.thread_axis((0, 64), "blockIdx.x", name="bx")
    assert (bx.var.name, int(bx.dom.min.value), int(bx.dom.extent.value)) == ("bx", 0, 64)
    assert int(te.thread_axis(32, "threadIdx.y").dom.extent.value) == 32
    with pytest.raises(ValueError, match="tag"):
        te.thread_axis(16)


def test_extern_statement_block_feeds_a_compute():
    from tvmlite.tir.stmt import BufferStore, For, ForKind

    n = 6
    a = te.placeholder((n,), "float32", name="a")

    def doubled_prefix(ins, outs):
        i = tvm.tir.Var("i", "int64")
        src, dst = ins[0], outs[0]
        prev = tvm.tir.expr.BufferLoad(dst, (i - 1,))
        value = te.if_then_else(i > 0, prev, tvm.tir.const(0.0, "float32")) + \
            tvm.tir.expr.BufferLoad(src, (i,)) * 2.0
        return For(i, tvm.tir.const(0, "int64"), tvm.tir.const(n, "int64"), ForKind.SERIAL,
                   BufferStore(dst, value, (i,)))
    b = te.extern((n,), [a], doubled_prefix, name="b")
    assert isinstance(b.op, te.ExternOp) and b.dtype == "float32"
    c = te.compute((n,), lambda i: b[i] + 1.0, name="c")
    x = np.arange(n, dtype="float32")
    np.testing.assert_allclose(run([a], c, [x]), np.cumsum(2 * x) + 1)
    with pytest.raises(TypeError, match="statement"):
        te.extern((n,), [a], lambda ins, outs: 3)
