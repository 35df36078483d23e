"""Behaviours where TVM code used to run differently on tvmlite (issue 16, item 3)."""

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax
from tvmlite.script import ir as I
from tvmlite.script import relax as R
from tvmlite.script import tir as T


def run(mod, *args):
    vm = relax.VirtualMachine(relax.build(mod, "llvm"), tvm.cpu())
    return vm["main"](*(tvm.nd.array(a) for a in args)).numpy()


@pytest.mark.parametrize("make", [relax.const, R.const], ids=["relax.const", "R.const"])
@pytest.mark.parametrize("value,dtype", [(1, "int32"), (1.5, "float32"), (True, "bool")])
def test_const_default_dtype_is_tvms(make, value, dtype):
    assert make(value).struct_info.dtype == dtype


def test_body_declared_dims_are_the_parameter_dims():
    @I.ir_module
    class Mod:
        @T.prim_func
        def mm(a: T.handle, b: T.handle, c: T.handle):
            m, n, k = T.int64(), T.int64(), T.int64()
            A = T.match_buffer(a, (m, k))
            B = T.match_buffer(b, (k, n))
            C = T.match_buffer(c, (m, n))
            for i, j, kk in T.grid(m, n, k):
                with T.block("c"):
                    vi, vj, vk = T.axis.remap("SSR", [i, j, kk])
                    with T.init():
                        C[vi, vj] = T.float32(0)
                    C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

        @R.function
        def main(x: R.Tensor(("m", "k"), "float32"), y: R.Tensor(("k", "n"), "float32")):
            m, n, k = T.int64(), T.int64(), T.int64()  # noqa: F841 (TVM's printer form)
            cls = Mod
            z = R.call_tir(cls.mm, (x, y), out_sinfo=R.Tensor((m, n), "float32"))
            return z

    main = Mod["main"]
    assert main.body.body.struct_info.shape[0] is main.params[0].struct_info.shape[0]
    a, b = np.random.rand(3, 4).astype("float32"), np.random.rand(4, 5).astype("float32")
    np.testing.assert_allclose(run(Mod, a, b), a @ b, rtol=1e-5)


def test_return_annotation_contradicting_body_fails_when_returning():
    """TVM 0.27 parses `-> R.Tensor((4, 4))` over a (4, 8) body, keeps the annotation, and the
    VM's return check fails (apache-tvm: "match_cast error, shape[1] mismatch")."""
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((4, 8), "float32")) -> R.Tensor((4, 4), "float32"):
            return x

    assert Mod["main"].ret_struct_info.shape[1].value == 4
    with pytest.raises(ValueError, match=r"return value: expected shape\[1\] == 4, got 8"):
        run(Mod, np.zeros((4, 8), "float32"))


def test_coarse_return_annotation_takes_the_bodys_struct_info():
    """apache-tvm prints `-> R.Tensor((4, 8), dtype="float32")` for `-> R.Tensor` here."""
    @R.function
    def f(x: R.Tensor((4, 8), "float32")) -> R.Tensor:
        return x

    assert f.ret_struct_info == x_sinfo((4, 8))


def test_return_forgets_dims_a_match_cast_defined_inside():
    """As TVM's normalizer: `x` means nothing outside the body, so the return is `ndim=1`;
    `k` comes from a parameter and stays; an annotation the erased body does not refine stays."""
    @R.function
    def f(t: R.Tensor(("k",), "int64")):
        k = T.int64()  # noqa: F841 (names the dim for the parser)
        x = T.int64()
        y = R.match_cast(t, R.Tensor((x,), "int64"))
        return (y, t)

    k = f.params[0].struct_info.shape[0]
    assert f.ret_struct_info == relax.TupleStructInfo(
        [relax.TensorStructInfo(None, "int64", 1), relax.TensorStructInfo((k,), "int64")])

    @R.function
    def g(t: R.Tensor((3,), "int64")) -> R.Shape(ndim=3):
        a, b, c = T.int64(), T.int64(), T.int64()
        s = R.tensor_to_shape(t)
        y = R.match_cast(s, R.Shape([a, b, c]))
        return y

    assert g.ret_struct_info == relax.ShapeStructInfo(ndim=3)


def x_sinfo(shape):
    return relax.TensorStructInfo(shape, "float32")


def test_return_tuple_arity_mismatch_is_a_build_error():
    """apache-tvm's VMShapeLower: "tuple size mismatch" (2 vs. 3) when building."""
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((4,), "float32")) -> R.Tuple(R.Tensor, R.Tensor, R.Tensor):
            return (x, x)

    with pytest.raises(ValueError, match="tuple of 3 but the function returns 2"):
        relax.build(Mod, "llvm")


def test_blockbuilder_nested_scalar_constant_stays_0d():
    bb = relax.BlockBuilder()
    x = relax.Var("x", R.Tensor((2, 3), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            lv1 = bb.emit(relax.op.add(x, x))
            lv2 = bb.emit(relax.op.nn.relu(relax.op.subtract(lv1, relax.const(4.0, "float32"))))
            gv = bb.emit_output(lv2)
        bb.emit_func_output(gv)
    mod = relax.transform.LegalizeOps()(bb.get())
    a = np.random.rand(2, 3).astype("float32") * 4
    np.testing.assert_allclose(run(mod, a), np.maximum(a + a - 4, 0), rtol=1e-6)



def test_blockbuilder_infers_a_tuple_get_items_struct_info():
    """TVM normalizes `bb.emit(relax.TupleGetItem(t, i))` to the field's struct info, so the
    result can feed an operator (it was ObjectStructInfo, and relu rejected it)."""
    bb = relax.BlockBuilder()
    x = relax.Var("x", R.Tensor((2, 3), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            pair = bb.emit(relax.Tuple([x, relax.op.negative(x)]))
            second = bb.emit(relax.TupleGetItem(pair, 1))
            assert second.struct_info.dtype == "float32"
            assert [int(d) for d in second.struct_info.shape] == [2, 3]
            gv = bb.emit_output(relax.op.nn.relu(second))
        bb.emit_func_output(gv)
    a = np.random.rand(2, 3).astype("float32") - 0.5
    mod = relax.transform.LegalizeOps()(bb.get())
    np.testing.assert_allclose(run(mod, a), np.maximum(-a, 0), rtol=1e-6)

def test_call_packed_ty_args():
    @R.function(pure=False)
    def f(x: R.Tensor((2,), "float32")):
        y = R.call_packed("test.nothing", x, ty_args=R.Tensor((2,), "float32"))
        return y

    ret = f.body.body.struct_info
    assert (ret.dtype, [d.value for d in ret.shape]) == ("float32", [2])


def test_strided_slice_and_split_take_tir_integers():
    """TVM accepts `end=[width * 2]` with `width` a shape dim (a TIR integer), as the dpl
    rewriters of TVM's tests write it; the result is the same as with Python ints."""
    x = relax.Var("x", R.Tensor((8, 6), "float32"))
    width = tvm.tir.IntImm("int64", 3)
    s = R.strided_slice(x, axes=[1], begin=[width], end=[width * 2])
    assert s.attrs["begin"] == (3,) and s.attrs["end"] == (6,)
    assert [int(d) for d in s.struct_info.shape] == [8, 3]
    parts = R.split(x, indices_or_sections=[tvm.tir.IntImm("int64", 2)], axis=1)
    assert [[int(d) for d in f.shape] for f in parts.struct_info.fields] == [[8, 2], [8, 4]]


def test_split_clamps_out_of_range_indices():
    """As TVM: each static index is clamped into [0, n] and a piece never has negative size,
    so an index below the one before it gives an empty piece."""
    x = relax.Var("x", R.Tensor((2, 10, 4), "float32"))
    parts = R.split(x, indices_or_sections=[-2, 2, 6, 4, 8, 12, 9], axis=1)
    assert [int(f.shape[1]) for f in parts.struct_info.fields] == [0, 2, 4, 0, 4, 2, 0, 1]


def test_concat_without_axis_joins_vectors():
    xs = [relax.Var(f"x{i}", R.Tensor((n,), "float32")) for i, n in enumerate((2, 3, 4))]
    assert [int(d) for d in R.concat(xs, axis=None).struct_info.shape] == [9]
    with pytest.raises(Exception, match="1-D"):
        R.concat([relax.Var("m", R.Tensor((2, 2), "float32")), xs[0]], axis=None)


def test_blockbuilder_inlines_an_emitted_seq_expr():
    """TVM's normalizer: emitting a function body (a SeqExpr) inlines its bindings; a binding
    block emitted inside a dataflow block splits it (apache-tvm builds the same blocks)."""
    bb = relax.BlockBuilder()
    with bb.function("inner", []):
        a = bb.emit(relax.const(1, "int64"), "a")
        c = bb.emit(relax.op.add(a, a), "c")
        bb.emit_func_output(c)
    seq = bb.get()["inner"].body

    bb = relax.BlockBuilder()
    with bb.function("outer", []):
        with bb.dataflow():
            bb.emit(relax.const(3, "int64"), "d")
            e = bb.emit(seq, "e")
            f = bb.emit_output(e, "f")
        bb.emit_func_output(f)
    blocks = bb.get()["outer"].body.blocks
    kinds = [(type(b).__name__, [x.var.name_hint for x in b.bindings]) for b in blocks]
    assert kinds == [("DataflowBlock", ["d"]), ("BindingBlock", ["a", "c"]),
                     ("DataflowBlock", ["e", "f"])]
    assert blocks[2].bindings[0].value is blocks[1].bindings[1].var


def test_return_annotation_with_symbolic_dims_is_checked_when_returning():
    """apache-tvm: returning a (1, 2) tensor where `-> R.Tensor(["m", "n"])` asks for (m, n) =
    (2, 1) (bound by x) raises RuntimeError, a rank-3 one ValueError; (2, 1) passes."""
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor(["n", "m"], "int32"), y: R.Object) -> R.Tensor(["m", "n"]):
            return y

    vm = relax.VirtualMachine(relax.build(Mod, "llvm"), tvm.cpu())
    x = tvm.nd.array(np.zeros((1, 2), "int32"))
    assert vm["main"](x, tvm.nd.array(np.zeros((2, 1), "float32"))).shape == (2, 1)
    with pytest.raises(RuntimeError, match="return"):
        vm["main"](x, tvm.nd.array(np.zeros((1, 2), "float32")))
    with pytest.raises(ValueError, match="return"):
        vm["main"](x, tvm.nd.array(np.zeros((2, 1, 1), "float32")))


def test_expression_operators_build_calls():
    """TVM's ExprWithOp: comparisons, astype, calling a returned function, indexing anything
    (apache-tvm's test_op_misc.py::test_implicit_op builds the same nodes)."""
    x = relax.Var("x", R.Tensor((2, 3), "float32"))
    y = relax.Var("y", R.Tensor((2, 3), "float32"))
    for expr, name in [(x > y, "greater"), (x >= y, "greater_equal"), (x < y, "less"),
                       (x <= y, "less_equal"), (x.astype("float16"), "astype")]:
        assert expr.op.name == "relax." + name
    assert (x > y).struct_info.dtype == "bool"
    assert x.astype("float16").struct_info.dtype == "float16"
    f = relax.Var("f", R.Callable([R.Tensor((2, 3), "float32")],
                                  R.Callable([R.Tensor((2, 3), "float32")], R.Tuple)))
    call = f(y)(y)
    assert isinstance(call.op, relax.Call) and call.op.op is f
    assert isinstance(x[1][0], relax.TupleGetItem)


def test_call_te_refuses_a_shape_variable():
    """apache-tvm: `bb.call_te(topi.reshape, x, s)` with `s` a relax shape Var raises
    AssertionError."""
    bb = relax.BlockBuilder()
    x = relax.Var("x", R.Tensor((200,), "float32"))
    s = relax.Var("s", R.Shape((200,)))
    with pytest.raises(AssertionError, match="shape variable 's'"):
        with bb.function("f", [x]):
            bb.emit(bb.call_te(tvm.topi.reshape, x, s))
