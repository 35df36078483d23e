"""BundleModelParams, RemovePurityChecking, MetaScheduleTuneIRMod, the pass decorators'
classes (FunctionPass, DataflowBlockPass, dataflowblock_pass) and PatternCheckContext."""

import numpy as np

import tvmlite as tvm
from tvmlite import relax
from tvmlite.ir import assert_structural_equal
from tvmlite.script import ir as I
from tvmlite.script import relax as R
from tvmlite.script import tir as T


def test_bundle_model_params_reads_weights_where_first_used():
    @I.ir_module
    class Before:
        @R.function
        def main(a: R.Tensor((16,), "float32"), b: R.Tensor((16,), "float32"),
                 c: R.Tensor((16,), "float32")) -> R.Tensor((16,), "float32"):
            R.func_attr({"num_input": 1})
            x = R.add(a, b)
            y = R.add(x, c)
            return y

    @I.ir_module
    class Expected:
        @R.function
        def main(a: R.Tensor((16,), "float32"),
                 params: R.Tuple(R.Tensor((16,), "float32"), R.Tensor((16,), "float32"))
                 ) -> R.Tensor((16,), "float32"):
            R.func_attr({"num_input": 1})
            b = params[0]
            x = R.add(a, b)
            c = params[1]
            y = R.add(x, c)
            return y

    after = relax.transform.BundleModelParams()(Before)
    assert_structural_equal(after, Expected)
    ex = relax.build(after, target="llvm")
    a, b, c = (np.full(16, v, "float32") for v in (1, 2, 3))
    out = relax.VirtualMachine(ex, tvm.cpu())["main"](
        tvm.nd.array(a), (tvm.nd.array(b), tvm.nd.array(c)))
    np.testing.assert_array_equal(out.numpy(), a + b + c)


def test_remove_purity_checking_unwraps_pure_packed_calls():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((4,), "float32")):
            y = R.call_pure_packed("my_func", x, sinfo_args=R.Tensor((4,), "float32"))
            return y

    after = relax.transform.RemovePurityChecking()(Before)
    main = after["main"]
    call = main.body.blocks[0].bindings[0].value
    assert isinstance(call.op, relax.ExternFunc) and call.op.global_symbol == "my_func"
    assert call.args[0] is main.params[0]
    assert main.attr_dict["relax.force_pure"] is True


def test_dataflowblock_pass_sees_each_dataflow_block():
    seen = []

    @relax.transform.dataflowblock_pass(opt_level=0)
    def count(block, mod, ctx):
        seen.append(len(block.bindings))
        return relax.DataflowBlock(block.bindings[:1])  # keep the first binding only

    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((4,), "float32")):
            with R.dataflow():
                y = R.add(x, x)
                z = R.add(y, y)  # noqa: F841 - dropped by the pass under test
                R.output(y)
            w = R.multiply(y, y)
            return w

    assert isinstance(count, relax.transform.DataflowBlockPass)
    after = count(Mod)
    assert seen == [2]
    assert len(after["main"].body.blocks[0].bindings) == 1
    assert len(after["main"].body.blocks[1].bindings) == 1

    @relax.transform.function_pass(opt_level=0)
    def identity(func, mod, ctx):
        return func

    assert isinstance(identity, relax.transform.FunctionPass)


def test_pattern_check_context_is_what_checks_receive():
    from tvmlite.relax.dpl import is_op, wildcard

    contexts = []

    def check(ctx):
        contexts.append(ctx)
        return True

    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((4,), "float32")):
            with R.dataflow():
                y = R.nn.relu(x)
                R.output(y)
            return y

    pattern = ("my.relu", is_op("relax.nn.relu")(wildcard()), {}, check)
    relax.transform.FuseOpsByPattern([pattern])(Mod)
    assert contexts and isinstance(contexts[0], relax.transform.PatternCheckContext)
    assert contexts[0].matched_expr.op.name == "relax.nn.relu"


def test_meta_schedule_tune_irmod_records_the_chosen_kernels(tmp_path):
    @I.ir_module
    class Mod:
        @T.prim_func
        def add_one(a: T.Buffer((8,), "float32"), b: T.Buffer((8,), "float32")):
            for i in range(8):
                with T.block("b"):
                    vi = T.axis.remap("S", [i])
                    b[vi] = a[vi] + T.float32(1)

    with tvm.target.Target("llvm"):
        out = relax.transform.MetaScheduleTuneIRMod({}, str(tmp_path), max_trials_global=2,
                                                     op_names=["add"])(Mod)
        applied = relax.transform.MetaScheduleApplyDatabase(str(tmp_path))(out)
    assert out is Mod and "add_one" in applied.names()
    records = (tmp_path / "database_tuning_record.json").read_text().splitlines()
    assert len(records) >= 1  # measured schedules of add_one


@I.ir_module
class ReshapeKernels:
    @T.prim_func
    def flatten(a: T.Buffer((2, 3), "float32"), b: T.Buffer((6,), "float32")):
        for i in range(6):
            with T.block("T_reshape"):
                vi = T.axis.remap("S", [i])
                b[vi] = a[vi // 3, vi % 3]

    @T.prim_func
    def transpose(a: T.Buffer((6,), "float32"), b: T.Buffer((6,), "float32")):
        for i in range(6):
            with T.block("T_shuffle"):
                vi = T.axis.remap("S", [i])
                b[vi] = a[(vi % 2) * 3 + vi // 2]

    @R.function
    def main(x: R.Tensor((2, 3), "float32")):
        cls = ReshapeKernels
        with R.dataflow():
            y = R.call_tir(cls.flatten, (x,), R.Tensor((6,), "float32"))
            z = R.call_tir(cls.transpose, (y,), R.Tensor((6,), "float32"))
            w = R.call_tir(cls.flatten, (x,), R.Tensor((6,), "float32"))
            out = R.add(z, w)
            R.output(out)
        return out


def test_meta_schedule_apply_database_in_scope_replays_a_record():
    from tvmlite import meta_schedule as ms

    @I.ir_module
    class Workload:
        @T.prim_func
        def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
            for i in range(8):
                with T.block("copy"):
                    vi = T.axis.spatial(8, i)
                    B[vi] = A[vi] * T.float32(2)

    sch = tvm.tir.Schedule(Workload)
    _, inner = sch.split(sch.get_loops(sch.get_block("copy"))[0], [None, 4])
    sch.vectorize(inner)
    db = ms.database.create(kind="memory")
    db.commit_tuning_record(ms.database.TuningRecord(
        sch.trace, db.commit_workload(Workload), [1e-6], tvm.target.Target("llvm")))
    @I.ir_module
    class Renamed:  # the record applies to a structurally equal function, names aside
        @T.prim_func
        def kernel(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
            for i in range(8):
                with T.block("doubled"):
                    vi = T.axis.spatial(8, i)
                    B[vi] = A[vi] * T.float32(2)

    renamed = Renamed
    with db:
        after = relax.transform.MetaScheduleApplyDatabase()(renamed)
    kernel = after["kernel"]
    assert kernel.attrs["tir.is_scheduled"] and kernel.attrs["global_symbol"] == "kernel"
    assert_structural_equal(kernel.without_attr("tir.is_scheduled").with_attr(
        "global_symbol", "main"), sch.mod["main"])
    a = np.arange(8, dtype="float32")
    b = np.zeros(8, "float32")
    tvm.build(kernel, target="llvm")(tvm.nd.array(a), out := tvm.nd.array(b))
    np.testing.assert_array_equal(out.numpy(), a * 2)


def test_rewrite_dataflow_reshape_turns_only_reshape_kernels_into_reshape():
    after = relax.transform.RewriteDataflowReshape()(ReshapeKernels)
    values = [b.value for b in after["main"].body.blocks[0].bindings]
    assert values[0].op.name == "relax.reshape"
    assert [int(d.value) for d in values[0].args[1].values] == [6]
    assert values[1].op.name == "relax.call_tir"  # a shuffle is not a reshape
    assert values[2].op.name == "relax.reshape"
    x = np.arange(6, dtype="float32").reshape(2, 3)
    ex = relax.build(after, target="llvm")
    got = relax.VirtualMachine(ex, tvm.cpu())["main"](tvm.nd.array(x)).numpy()
    flat = x.reshape(-1)
    np.testing.assert_array_equal(got, flat[[(i % 2) * 3 + i // 2 for i in range(6)]] + flat)


def test_relax_utils_convert_shape_and_pipelines():
    e = relax.convert_to_expr((1, "a"))
    assert isinstance(e, relax.Tuple) and isinstance(e.fields[1], relax.StringImm)
    assert isinstance(relax.convert_to_expr(2.5), relax.PrimValue)
    with __import__("pytest").raises(TypeError, match="Cannot convert"):
        relax.convert_to_expr(object())
    n = tvm.tir.Var("n", "int64")
    shape = relax.get_shape_of(relax.Var("x", R.Tensor((n, 3), "float32")))
    assert isinstance(shape, relax.ShapeExpr) and shape.values[0] is n
    assert int(shape.values[1].value) == 3

    @relax.register_pipeline("test_only_canonicalize")
    def make():
        return relax.transform.CanonicalizeBindings()

    assert relax.get_pipeline("test_only_canonicalize").name == "CanonicalizeBindings"


def test_remove_redundant_reshape():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2, 3, 1), "float32")):
            with R.dataflow():
                a = R.reshape(x, R.shape([6, 1]))
                b = R.reshape(a, R.shape([2, 3]))
                c = R.reshape(b, R.shape([2, 3]))  # already that shape
                d = R.add(c, c)
                R.output(d)
            return d

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((2, 3, 1), "float32")):
            with R.dataflow():
                b = R.reshape(x, R.shape([2, 3]))
                d = R.add(b, b)
                R.output(d)
            return d

    after = relax.transform.DeadCodeElimination()(
        relax.transform.RemoveRedundantReshape()(Before))
    assert_structural_equal(after, Expected)


def test_attach_extern_modules_loads_each_one():
    class Ext:
        def __init__(self, name):
            self.name = name

        def load(self):
            return f"loaded {self.name}"

    after = relax.transform.AttachExternModules([Ext("a"), Ext("b")])(ReshapeKernels)
    assert after.attrs["external_mods"] == ["loaded a", "loaded b"]
    again = relax.transform.AttachExternModules([Ext("c")])(after)
    assert again.attrs["external_mods"] == ["loaded a", "loaded b", "loaded c"]
    with __import__("pytest").raises(TypeError, match="no load"):
        relax.transform.AttachExternModules([object()])


def test_alter_op_impl_swaps_the_kernel_of_an_operator():
    @I.ir_module
    class Before:
        @T.prim_func(private=True)
        def mul_by_2(a: T.Buffer((4,), "float32"), b: T.Buffer((4,), "float32")):
            T.func_attr({"operator_name": "relax.mul_by_2"})
            for i in range(4):
                with T.block("b"):
                    vi = T.axis.remap("S", [i])
                    b[vi] = a[vi] * T.float32(2)

        @R.function
        def main(x: R.Tensor((4,), "float32")):
            cls = Before
            y = R.call_tir(cls.mul_by_2, (x,), R.Tensor((4,), "float32"))
            return y

    @T.prim_func(private=True)
    def add_twice(a: T.Buffer((4,), "float32"), b: T.Buffer((4,), "float32")):
        T.func_attr({"operator_name": "relax.mul_by_2"})
        for i in range(4):
            with T.block("b"):
                vi = T.axis.remap("S", [i])
                b[vi] = a[vi] + a[vi] + T.float32(1)  # tell the two kernels apart

    after = relax.transform.DeadCodeElimination()(relax.transform.AlterOpImpl(
        {"relax.mul_by_2": add_twice}, {"relax.mul_by_2": []})(Before))
    assert sorted(after.names()) == ["main", "relax_mul_by_2_replacement"]
    x = np.arange(4, dtype="float32")
    ex = relax.build(after, target="llvm")
    out = relax.VirtualMachine(ex, tvm.cpu())["main"](tvm.nd.array(x))
    np.testing.assert_array_equal(out.numpy(), 2 * x + 1)
    with __import__("pytest").raises(NotImplementedError, match="layout_transform"):
        relax.transform.AlterOpImpl({"relax.mul_by_2": add_twice},
                                    {"relax.mul_by_2": [lambda i: (i // 2, i % 2)]})


def test_rewrite_dataflow_reshape_finds_the_input_a_fused_kernel_reads():
    @I.ir_module
    class Fused:
        @T.prim_func
        def reshape_second(a: T.Buffer((6,), "float32"), b: T.Buffer((2, 3), "float32"),
                           out: T.Buffer((6,), "float32")):
            for i in range(6):
                with T.block("T_reshape"):
                    vi = T.axis.remap("S", [i])
                    out[vi] = b[vi // 3, vi % 3]

        @R.function
        def main(x: R.Tensor((6,), "float32"), y: R.Tensor((2, 3), "float32")):
            cls = Fused
            with R.dataflow():
                r = R.call_tir(cls.reshape_second, (x, y), R.Tensor((6,), "float32"))
                out = R.add(r, x)
                R.output(out)
            return out

    after = relax.transform.RewriteDataflowReshape()(Fused)
    call = after["main"].body.blocks[0].bindings[0].value
    assert call.op.name == "relax.reshape" and call.args[0] is after["main"].params[1]
