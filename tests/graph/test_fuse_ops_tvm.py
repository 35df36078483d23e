"""FuseOps and AnnotateTIROpPattern as TVM 0.27 writes them: post-dominator grouping, the
groups' names and parameters, and the caller's rewritten block. Every expectation below is
apache-tvm 0.27's output for the same module (printed by it and pasted here)."""

import numpy as np

import tvmlite as tvm
from tvmlite import relax
from tvmlite.ir import expr as rx
from tvmlite.ir.expr import Op
from tvmlite.script import ir as I
from tvmlite.script import relax as R
from tvmlite.script import tir as T


@I.ir_module
class Diamond:
    @T.prim_func(private=True)
    def mm(a: T.Buffer((4, 4), "float32"), b: T.Buffer((4, 4), "float32"),
           c: T.Buffer((4, 4), "float32")):
        for i, j, k in T.grid(4, 4, 4):
            with T.block("mm"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    c[vi, vj] = T.float32(0)
                c[vi, vj] = c[vi, vj] + a[vi, vk] * b[vk, vj]

    @T.prim_func(private=True)
    def exp(a: T.Buffer((4, 4), "float32"), c: T.Buffer((4, 4), "float32")):
        for i, j in T.grid(4, 4):
            with T.block("exp"):
                vi, vj = T.axis.remap("SS", [i, j])
                c[vi, vj] = T.exp(a[vi, vj])

    @T.prim_func(private=True)
    def add(a: T.Buffer((4, 4), "float32"), b: T.Buffer((4, 4), "float32"),
            c: T.Buffer((4, 4), "float32")):
        for i, j in T.grid(4, 4):
            with T.block("add"):
                vi, vj = T.axis.remap("SS", [i, j])
                c[vi, vj] = a[vi, vj] + b[vi, vj]

    @T.prim_func(private=True)
    def rowsum(a: T.Buffer((4, 4), "float32"), c: T.Buffer((4,), "float32")):
        for i, k in T.grid(4, 4):
            with T.block("rowsum"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    c[vi] = T.float32(0)
                c[vi] = c[vi] + a[vi, vk]

    @R.function
    def main(x: R.Tensor((4, 4), "float32"), w: R.Tensor((4, 4), "float32")):
        cls = Diamond
        with R.dataflow():
            m = R.call_tir(cls.mm, (x, w), out_ty=R.Tensor((4, 4), "float32"))
            e1 = R.call_tir(cls.exp, (m,), out_ty=R.Tensor((4, 4), "float32"))
            e2 = R.call_tir(cls.exp, (m,), out_ty=R.Tensor((4, 4), "float32"))
            s = R.call_tir(cls.add, (e1, e2), out_ty=R.Tensor((4, 4), "float32"))
            r = R.call_tir(cls.rowsum, (s,), out_ty=R.Tensor((4,), "float32"))
            t = R.call_tir(cls.exp, (x,), out_ty=R.Tensor((4, 4), "float32"))
            u = R.call_tir(cls.add, (t, x), out_ty=R.Tensor((4, 4), "float32"))
            v = R.call_tir(cls.exp, (u,), out_ty=R.Tensor((4, 4), "float32"))
            o = (r, u, v)
            R.output(o)
        return o


# apache-tvm 0.27 prints main after FuseOps as:
#     lv = fused_mm_exp_exp_add(x, w)
#     r = R.call_tir(rowsum, (lv,), ...)
#     lv1 = fused_exp_add(x)
#     v = R.call_tir(exp, (lv1,), ...)
#     o = r, lv1, v
TVM_MAIN = [("fused_mm_exp_exp_add", ["x", "w"]), ("rowsum", [0]), ("fused_exp_add", ["x"]),
            ("exp", [2]), ("tuple", [1, 2, 3])]


def _steps(func: rx.Function) -> list[tuple[str, list]]:
    """Each binding as (callee, args), an argument named by parameter or by binding index."""
    bindings = [b for blk in func.body.blocks for b in blk.bindings]
    where = {id(b.var): i for i, b in enumerate(bindings)}

    def ref(a: rx.Expr) -> object:
        return where.get(id(a), getattr(a, "name_hint", None))

    steps = []
    for b in bindings:
        v = b.value
        if isinstance(v, rx.Tuple):
            steps.append(("tuple", [ref(f) for f in v.fields]))
        elif isinstance(v, rx.TupleGetItem):
            steps.append(("item", [ref(v.tuple_value), v.index]))
        elif v.op == Op.get("relax.call_tir"):
            steps.append((v.args[0].name_hint, [ref(a) for a in v.args[1].fields]))
        else:
            steps.append((v.op.name_hint, [ref(a) for a in v.args]))
    return steps


def test_op_patterns_as_tvm():
    mod = relax.transform.AnnotateTIROpPattern()(Diamond)
    patterns = {n: mod[n].attr_dict["op_pattern"] for n in ("mm", "exp", "add", "rowsum")}
    assert patterns == {"mm": 4, "exp": 0, "add": 0, "rowsum": 3}


def test_fuse_ops_post_dominator_groups():
    fused = relax.transform.FuseOps()(relax.transform.AnnotateTIROpPattern()(Diamond))
    groups = {n: ([p.name_hint for p in fused[n].params], fused[n].attr_dict.get("Primitive"))
              for n in fused.names() if n.startswith("fused_")}
    # the matmul takes both exp branches and the add that joins them (its post-dominator);
    # the reduction after it starts its own group
    assert groups == {"fused_mm_exp_exp_add": (["x", "w"], True),
                      "fused_exp_add": (["x"], True)}
    assert "global_symbol" not in fused["fused_exp_add"].attr_dict  # private
    assert _steps(fused["main"]) == TVM_MAIN


def test_fuse_ops_without_patterns_fuses_nothing():
    # TVM reads `op_pattern`; an unannotated prim_func is opaque
    assert relax.transform.FuseOps()(Diamond).names() == Diamond.names()


def test_fuse_tir_merges_each_group_into_one_kernel():
    fused = relax.transform.FuseOps()(relax.transform.AnnotateTIROpPattern()(Diamond))
    mod = relax.transform.FuseTIR()(fused)
    # apache-tvm 0.27: the members nothing calls any more (mm, add) are gone; the fused
    # kernels take the group's inputs then its output, intermediates allocated in the root
    assert sorted(mod.names()) == ["exp", "fused_exp_add", "fused_mm_exp_exp_add", "main",
                                   "rowsum"]
    shapes = {n: (len(mod[n].params), len(mod[n].body.block.alloc_buffers))
              for n in ("fused_exp_add", "fused_mm_exp_exp_add")}
    assert shapes == {"fused_exp_add": (2, 1), "fused_mm_exp_exp_add": (3, 3)}
    assert mod["fused_exp_add"].attr_dict == {"tir.noalias": True}
    assert [s[0] for s in _steps(mod["main"])] == [
        "fused_mm_exp_exp_add", "rowsum", "fused_exp_add", "exp", "tuple"]
    rng = np.random.default_rng(0)
    x, w = (rng.standard_normal((4, 4)).astype("float32") for _ in range(2))
    vm = relax.VirtualMachine(relax.build(mod), tvm.cpu())
    r, u, v = (t.numpy() for t in vm["main"](x, w))
    m = x @ w
    np.testing.assert_allclose(r, (2 * np.exp(m)).sum(axis=1), rtol=1e-5)
    np.testing.assert_allclose(u, np.exp(x) + x, rtol=1e-6)
    np.testing.assert_allclose(v, np.exp(np.exp(x) + x), rtol=1e-5)


def test_builder_call_of_its_function_returns_callee_struct_info():
    # relax.Call(gv, args) emitted by the builder returns what the callee returns, its
    # symbolic dims bound by the arguments (apache-tvm 0.27 gives R.Tensor((4, 2)) here)
    bb = relax.BlockBuilder()
    n = tvm.tir.Var("n", "int64")
    x = relax.Var("x", R.Tensor((n, 2), "float32"))
    with bb.function("f", [x], private=True):
        with bb.dataflow():
            gv = bb.emit_output(relax.op.add(x, x))
        bb.emit_func_output(gv)
    f = bb.get().get_global_var("f")
    y = relax.Var("y", R.Tensor((4, 2), "float32"))
    with bb.function("main", [y]):
        with bb.dataflow():
            out = bb.emit_output(relax.Call(f, [y]))
        bb.emit_func_output(out)
    assert [int(d) for d in out.struct_info.shape] == [4, 2]
    assert out.struct_info.dtype == "float32"


def test_fuse_tir_passes_a_nested_tuple_field_by_field():
    # apache-tvm 0.27 (its test_fuse_with_nested_tuple_as_param): main binds x[0], x[1],
    # x[1][0], x[1][1] and calls the fused kernel with the three tensors
    from tvmlite import topi

    t = R.Tensor([10], "float32")
    bb = relax.BlockBuilder()
    x = relax.Var("x", R.Tuple([t, R.Tuple([t, t])]))
    with bb.function("fused_exp_add_add", [x], attrs={"Primitive": True}, private=True):
        with bb.dataflow():
            a = bb.emit_te(topi.exp, bb.emit(relax.TupleGetItem(x, 0)))
            inner = bb.emit(relax.TupleGetItem(x, 1))
            b = bb.emit_te(topi.add, bb.emit(relax.TupleGetItem(inner, 0)),
                           bb.emit(relax.TupleGetItem(inner, 1)))
            gv = bb.emit_output(bb.call_te(topi.add, a, b))
        bb.emit_func_output(gv)
    fused = bb.get().get_global_var("fused_exp_add_add")
    x = relax.Var("x", R.Tuple([t, R.Tuple([t, t])]))
    with bb.function("main", [x]):
        with bb.dataflow():
            gv = bb.emit_output(relax.Call(fused, [x]))
        bb.emit_func_output(gv)
    mod = relax.transform.FuseTIR()(bb.get())
    values = [b.value for blk in mod["main"].body.blocks for b in blk.bindings]
    assert [(type(v).__name__, getattr(v, "index", None)) for v in values[:4]] == [
        ("TupleGetItem", 0), ("TupleGetItem", 1), ("TupleGetItem", 0), ("TupleGetItem", 1)]
    assert values[2].tuple_value is values[3].tuple_value  # both read the bound x[1]
    assert _steps(mod["main"])[4] == ("fused_exp_add_add", [0, 2, 3])
    x0, x1, x2 = (np.full(10, v, "float32") for v in (0.5, 1.0, 2.0))
    vm = relax.VirtualMachine(relax.build(mod), tvm.cpu())
    np.testing.assert_allclose(vm["main"]((x0, (x1, x2))).numpy(), np.exp(x0) + x1 + x2,
                               rtol=1e-6)


@I.ir_module
class SameInputTwice:
    @T.prim_func(private=True)
    def add(a: T.Buffer((4,), "float32"), b: T.Buffer((4,), "float32"),
            c: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.block("add"):
                vi = T.axis.spatial(4, i)
                T.reads(a[vi], b[vi])
                T.writes(c[vi])
                c[vi] = a[vi] + b[vi]

    @R.function(private=True)
    def fused_add(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        R.func_attr({"Primitive": True})
        cls = SameInputTwice
        with R.dataflow():
            y = R.call_tir(cls.add, (x, x), out_ty=R.Tensor((4,), "float32"))
            R.output(y)
        return y

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = SameInputTwice
        with R.dataflow():
            y = cls.fused_add(x)
            R.output(y)
        return y


def test_fuse_tir_reads_a_buffer_bound_twice_once():
    # apache-tvm 0.27: call_tir(add, (x, x)) fused reads x through one region, the first
    mod = relax.transform.FuseTIR()(SameInputTwice)
    block = mod["fused_add"].body.block.body.body.block
    assert [r.buffer.name for r in block.reads] == ["x"]
    vm = relax.VirtualMachine(relax.build(mod), tvm.cpu())
    x = np.arange(4, dtype="float32")
    np.testing.assert_array_equal(vm["main"](x).numpy(), 2 * x)
