"""FoldConstant: Before/Expected as TVM writes them, and the folded values against numpy."""

import numpy as np

import tvmlite as tvm
from tvmlite import relax
from tvmlite.ir import assert_structural_equal
from tvmlite.script import ir as I
from tvmlite.script import relax as R
from tvmlite.script import tir as T


def _main_with(mod, name, params):
    """The module with `name` as `main` and `params` bound (TVM's tests' gen_mod)."""
    funcs = {gv: f for gv, f in mod.functions.items() if not isinstance(f, relax.Function)}
    funcs[tvm.ir.GlobalVar("main")] = mod[name].with_attr("global_symbol", "main")
    return relax.transform.BindParams("main", params)(tvm.IRModule(funcs))


def _constants(func):
    return [b.value for blk in func.body.blocks for b in blk.bindings] + [func.body.body]


@I.ir_module
class Chain:
    @T.prim_func
    def addone(a: T.Buffer((4, 4), "float32"), b: T.Buffer((4, 4), "float32")):
        for i, j in T.grid(4, 4):
            with T.block("addone"):
                vi, vj = T.axis.remap("SS", [i, j])
                b[vi, vj] = a[vi, vj] + T.float32(1)

    @R.function
    def before(c0: R.Tensor((4, 4), "float32"), x: R.Tensor((4, 4), "float32")):
        cls = Chain
        lv0 = R.call_tir(cls.addone, (c0,), R.Tensor((4, 4), "float32"))
        lv1 = R.call_tir(cls.addone, (lv0,), R.Tensor((4, 4), "float32"))
        lv2 = R.call_tir(cls.addone, (x,), R.Tensor((4, 4), "float32"))
        return (lv1, lv2)

    @R.function
    def expected(c2: R.Tensor((4, 4), "float32"), x: R.Tensor((4, 4), "float32")):
        cls = Chain
        lv2 = R.call_tir(cls.addone, (x,), R.Tensor((4, 4), "float32"))
        return (c2, lv2)


def test_fold_call_tir_chain_keeps_prim_funcs_and_unfoldable_calls():
    c0 = np.arange(16, dtype="float32").reshape(4, 4)
    before = _main_with(Chain, "before", {"c0": c0})
    expected = _main_with(Chain, "expected", {"c2": c0 + 2})
    after = relax.transform.FoldConstant()(before)
    assert_structural_equal(after, expected)
    folded = after["main"].body.body.fields[0]
    np.testing.assert_array_equal(folded.data.numpy(), c0 + 2)


@I.ir_module
class Ops:
    @R.function
    def before(c0: R.Tensor((3, 4), "float32"), c1: R.Tensor((3, 4), "float32")):
        with R.dataflow():
            lv0 = R.add(c0, c1)
            lv1 = R.multiply(lv0, c0)
            big = R.zeros((2048,), "float32")
            small = R.ones((2, 2), "float32")
            R.output(lv1, big, small)
        outside = R.subtract(lv1, c1)  # not in a dataflow block: TVM leaves it
        return (outside, big, small)


def test_fold_operators_inside_dataflow_blocks_only():
    rng = np.random.default_rng(0)
    c0, c1 = rng.standard_normal((2, 3, 4)).astype("float32")
    after = relax.transform.FoldConstant()(_main_with(Ops, "before", {"c0": c0, "c1": c1}))
    main = after["main"]
    ops = [b.value.op.name for blk in main.body.blocks for b in blk.bindings
           if isinstance(b.value, relax.Call)]
    assert ops == ["relax.zeros", "relax.subtract"]  # 2048 elements from nothing: kept
    outside = main.body.blocks[-1].bindings[0].value
    np.testing.assert_allclose(outside.args[0].data.numpy(), (c0 + c1) * c0, rtol=1e-6)
    np.testing.assert_array_equal(main.body.body.fields[2].data.numpy(), np.ones((2, 2)))


def test_fold_batchnorm_into_conv2d_then_constants():
    """FoldBatchnormToConv2D (transforms/graph_rewrites.py) + FoldConstant leave one conv2d
    with a constant weight and one add, and compute what conv2d + batch_norm do."""

    @I.ir_module
    class ConvBN:
        @R.function
        def main(x: R.Tensor((1, 2, 5, 5), "float32"), w: R.Tensor((3, 2, 3, 3), "float32"),
                 g: R.Tensor((3,), "float32"), b: R.Tensor((3,), "float32"),
                 m: R.Tensor((3,), "float32"), v: R.Tensor((3,), "float32")):
            with R.dataflow():
                c = R.nn.conv2d(x, w)
                bn = R.nn.batch_norm(c, g, b, m, v, axis=1, training=False)
                o = bn[0]
                R.output(o)
            return o

    rng = np.random.default_rng(1)
    x = rng.standard_normal((1, 2, 5, 5)).astype("float32")
    w = rng.standard_normal((3, 2, 3, 3)).astype("float32")
    g, b, m = rng.standard_normal((3, 3)).astype("float32")
    v = (np.abs(rng.standard_normal(3)) + 0.5).astype("float32")
    bound = relax.transform.BindParams("main", dict(w=w, g=g, b=b, m=m, v=v))(ConvBN)
    mod = relax.transform.FoldBatchnormToConv2D()(bound)
    mod = relax.transform.FoldConstant()(mod)
    calls = [bd.value for blk in mod["main"].body.blocks for bd in blk.bindings
             if isinstance(bd.value, relax.Call)]
    assert [c.op.name for c in calls] == ["relax.nn.conv2d", "relax.add"]
    assert all(isinstance(a, relax.Constant) for a in (calls[0].args[1], calls[1].args[1]))
    ex = relax.build(mod, target="llvm")
    out = relax.VirtualMachine(ex, tvm.cpu())["main"](tvm.nd.array(x)).numpy()
    import torch
    import torch.nn.functional as F

    ref = F.batch_norm(F.conv2d(torch.from_numpy(x), torch.from_numpy(w)), torch.from_numpy(m),
                       torch.from_numpy(v), torch.from_numpy(g), torch.from_numpy(b), False,
                       0.1, 1e-5).numpy()
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-5)


@I.ir_module
class DataDependentReshape:
    @R.function
    def before(data: R.Tensor((24,), "float32"), c0: R.Tensor((2,), "int64")):
        with R.dataflow():
            target = R.add(c0, c0)
            shape: R.Shape(ndim=2) = R.tensor_to_shape(target)
            gv: R.Tensor(ndim=2, dtype="float32") = R.reshape(data, shape)
            R.output(gv)
        return gv

    @R.function
    def expected(data: R.Tensor((24,), "float32")) -> R.Tensor((4, 6), "float32"):
        with R.dataflow():
            gv: R.Tensor((4, 6), "float32") = R.reshape(data, R.shape([4, 6]))
            R.output(gv)
        return gv


def test_fold_tensor_to_shape_gives_the_reshape_static_dims():
    c0 = np.array([2, 3], "int64")  # doubled: (4, 6)
    before = _main_with(DataDependentReshape, "before", {"c0": c0})
    after = relax.transform.FoldConstant()(before)
    assert_structural_equal(after, _main_with(DataDependentReshape, "expected", {}))
    data = np.arange(24, dtype="float32")
    vm = relax.VirtualMachine(tvm.compile(after, target="llvm"), tvm.cpu())
    np.testing.assert_array_equal(vm["main"](data).numpy(), data.reshape(4, 6))


def test_a_users_legalization_that_emits_two_calls_keeps_the_operator():
    from tvmlite import topi
    from tvmlite.relax.transform.legalize_ops.common import register_legalize
    from tvmlite.transforms.legalize.bb_rules import BB_LEGALIZE

    @I.ir_module
    class Relu:
        @R.function
        def before(c0: R.Tensor((2, 2), "float32")):
            with R.dataflow():
                gv = R.nn.relu(c0)
                R.output(gv)
            return gv

    def relu_then_identity(bb, call):
        x = bb.emit_te(topi.nn.relu, *call.args)
        return bb.call_te(topi.identity, x)

    before = _main_with(Relu, "before", {"c0": np.array([[-1, 2], [3, -4]], "float32")})
    register_legalize("relax.nn.relu", relu_then_identity)
    try:
        after = relax.transform.FoldConstant()(before)
    finally:
        BB_LEGALIZE.pop("relax.nn.relu")
    assert_structural_equal(after, before)  # TVM folds only what legalizes to one call
    folded = relax.transform.FoldConstant()(before)["main"].body.body
    np.testing.assert_array_equal(folded.data.numpy(), [[0, 2], [3, 0]])
