"""Op patterns and grouped functions as TVM 0.27 makes them: a unit dim read at 0 is still
elementwise, a te softmax is out-elementwise-fusable, squeeze is elementwise, and a function
made from part of another has symbolic dims of its own."""

import numpy as np

import tvmlite as tvm
from tvmlite import relax, topi
from tvmlite.ir.usage_analysis import defined_symbolic_vars
from tvmlite.script import ir as I
from tvmlite.script import relax as R
from tvmlite.script import tir as T
from tvmlite.transforms.op_pattern import func_pattern

ELEMWISE, BROADCAST, OUT_EWISE_FUSABLE = 0, 1, 4


def test_unit_dim_read_at_zero_is_elementwise():
    @T.prim_func(private=True)
    def add(a: T.Buffer((1, 8), "float32"), b: T.Buffer((8,), "float32"),
            c: T.Buffer((1, 8), "float32")):
        for i, j in T.grid(1, 8):
            with T.block("add"):
                vi, vj = T.axis.remap("SS", [i, j])
                c[vi, vj] = a[T.int64(0), vj] + b[vj]

    assert func_pattern(add) == ELEMWISE


def test_unit_dim_read_at_zero_into_a_wider_dim_broadcasts():
    @T.prim_func(private=True)
    def add(a: T.Buffer((1, 8), "float32"), b: T.Buffer((4, 8), "float32"),
            c: T.Buffer((4, 8), "float32")):
        for i, j in T.grid(4, 8):
            with T.block("add"):
                vi, vj = T.axis.remap("SS", [i, j])
                c[vi, vj] = a[T.int64(0), vj] * T.float32(2)

    assert func_pattern(add) == BROADCAST


def _patterns(mod):
    mod = relax.transform.AnnotateTIROpPattern()(mod)
    return {gv.name_hint: int(f.attr_dict["op_pattern"]) for gv, f in mod.functions.items()
            if "op_pattern" in f.attr_dict}


def test_te_softmax_and_squeeze_patterns():
    bb = relax.BlockBuilder()
    x = relax.Var("x", R.Tensor((16, 1), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            lv0 = bb.emit_te(topi.nn.softmax, x, 0)
            gv = bb.emit_output(bb.call_te(topi.squeeze, lv0))
        bb.emit_func_output(gv)
    # softmax ends with an injective output block after its reductions (TVM's rule); a
    # squeeze reads the dropped unit dim at 0, a broadcast (apache-tvm 0.27 says the same)
    assert _patterns(bb.get()) == {"softmax": OUT_EWISE_FUSABLE, "squeeze": BROADCAST}


def test_squeeze_without_unit_dims_is_elementwise():
    bb = relax.BlockBuilder()
    x = relax.Var("x", R.Tensor(("n", 4), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            gv = bb.emit_output(bb.call_te(topi.squeeze, x))
        bb.emit_func_output(gv)
    assert _patterns(bb.get()) == {"squeeze": ELEMWISE}  # a symbolic reshape was opaque


def test_matmul_fuses_with_its_bias_at_batch_one():
    @I.ir_module
    class Linear:
        @R.function
        def main(x: R.Tensor((1, 8), "float32"), w: R.Tensor((8, 4), "float32"),
                 b: R.Tensor((4,), "float32")):
            with R.dataflow():
                y = R.matmul(x, w)
                z = R.add(y, b)
                R.output(z)
            return z

    mod = relax.transform.LegalizeOps()(Linear)
    mod = relax.transform.AnnotateTIROpPattern()(mod)
    fused = relax.transform.FuseOps()(mod)
    assert "fused_matmul_add" in fused.names()
    ex = relax.build(relax.transform.FuseTIR()(fused), "llvm")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    rng = np.random.default_rng(3)
    x, w, b = (rng.standard_normal(s).astype("float32") for s in ((1, 8), (8, 4), (4,)))
    np.testing.assert_allclose(vm["main"](x, w, b).numpy(), x @ w + b, rtol=1e-5, atol=1e-6)


def test_fused_function_has_its_own_symbolic_dims():
    @I.ir_module
    class Sym:
        @R.function
        def main(x: R.Tensor(("n", 4), "float32")):
            with R.dataflow():
                y = R.exp(x)
                z = R.add(y, x)
                R.output(z)
            return z

    mod = relax.transform.AnnotateTIROpPattern()(relax.transform.LegalizeOps()(Sym))
    fused = relax.transform.FuseOps()(mod)
    (name,) = [n for n in fused.names() if n.startswith("fused_")]
    (n_main,) = defined_symbolic_vars(fused["main"])
    (n_fused,) = defined_symbolic_vars(fused[name])
    assert n_main.name == n_fused.name == "n" and n_main is not n_fused
    # the caller's result keeps the caller's dim
    (binding,) = [b for blk in fused["main"].body.blocks for b in blk.bindings]
    assert binding.var.struct_info.shape[0] is n_main
    vm = relax.VirtualMachine(relax.build(relax.transform.FuseTIR()(fused), "llvm"), tvm.cpu())
    x = np.arange(12, dtype="float32").reshape(3, 4) / 10
    np.testing.assert_allclose(vm["main"](x).numpy(), np.exp(x) + x, rtol=1e-5)


def test_fuse_tir_allocates_a_callees_buffers_before_its_result():
    def mean(x):
        return topi.divide(topi.sum(x, 1, keepdims=True), 8)

    bb = relax.BlockBuilder()
    x = relax.Var("x", R.Tensor((4, 8), "float32"))
    with bb.function("fused", [x], attrs={"Primitive": True}, private=True):
        with bb.dataflow():
            m = bb.emit_te(mean, x)
            gv = bb.emit_output(bb.call_te(topi.sqrt, m))
        bb.emit_func_output(gv)
    fused_gv = bb.get().get_global_var("fused")
    x = relax.Var("x", R.Tensor((4, 8), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            gv = bb.emit_output(relax.Call(fused_gv, (x,)))
        bb.emit_func_output(gv)
    after = relax.transform.FuseTIR()(bb.get())
    (prim,) = [f for gv, f in after.functions.items() if gv.name_hint != "main"]
    # the sum the mean keeps for itself comes first, then the mean's result (as TVM orders)
    assert [b.name for b in prim.body.block.alloc_buffers] == ["T_sum", m.name_hint]
    vm = relax.VirtualMachine(relax.build(after, "llvm"), tvm.cpu())
    data = np.arange(32, dtype="float32").reshape(4, 8)
    np.testing.assert_allclose(vm["main"](data).numpy(),
                               np.sqrt(data.sum(1, keepdims=True) / 8), rtol=1e-6)
