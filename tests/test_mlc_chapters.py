# ruff: noqa: F722, F821, E501 - TVMScript annotations are read by the parser, not by Python;
# the course's code is kept as the course writes it, long lines included
"""Flows of later MLC course chapters, written as the course writes them."""

from __future__ import annotations

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax, te, topi
from tvmlite.ir.module import IRModule
from tvmlite.script import relax as R
from tvmlite.script import tir as T


@tvm.script.ir_module
class MyModule:
    @T.prim_func
    def mm_relu(A: T.Buffer[(64, 64), "float32"], B: T.Buffer[(64, 64), "float32"],
                C: T.Buffer[(64, 64), "float32"]):
        T.func_attr({"global_symbol": "mm_relu", "tir.noalias": True})
        Y = T.alloc_buffer((64, 64), dtype="float32")
        for i, j, k in T.grid(64, 64, 64):
            with T.block("Y"):
                vi = T.axis.spatial(64, i)
                vj = T.axis.spatial(64, j)
                vk = T.axis.reduce(64, k)
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]
        for i, j in T.grid(64, 64):
            with T.block("C"):
                vi = T.axis.spatial(64, i)
                vj = T.axis.spatial(64, j)
                C[vi, vj] = T.max(Y[vi, vj], T.float32(0))


def test_chapter_2_schedule_build_and_time():
    sch = tvm.tir.Schedule(MyModule)
    block_y = sch.get_block("Y", func_name="mm_relu")
    i, j, k = sch.get_loops(block_y)
    j0, j1 = sch.split(j, factors=[None, 4])
    sch.reorder(j0, k, j1)
    sch.reverse_compute_at(sch.get_block("C", "mm_relu"), j0)
    sch.decompose_reduction(block_y, k)
    assert 'T.sblock("Y_init")' in sch.mod.script()
    a, b = np.random.default_rng(0).random((2, 64, 64), dtype=np.float32)
    a_nd, b_nd, c_nd = tvm.nd.array(a), tvm.nd.array(b), tvm.nd.empty((64, 64), "float32")
    rt_lib = tvm.build(sch.mod, target="llvm")
    rt_lib["mm_relu"](a_nd, b_nd, c_nd)
    np.testing.assert_allclose(c_nd.numpy(), np.maximum(a @ b, 0), rtol=1e-5)
    timer = rt_lib.time_evaluator("mm_relu", tvm.cpu(), number=3)
    assert timer(a_nd, b_nd, c_nd).mean > 0
    assert "sch.reorder(" in str(sch.trace)


def te_matmul(A: te.Tensor, B: te.Tensor) -> te.Tensor:
    k = te.reduce_axis((0, A.shape[1]), name="k")
    return te.compute((A.shape[0], B.shape[1]), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k),
                      name="matmul")


def te_relu(A: te.Tensor) -> te.Tensor:
    return te.compute(A.shape, lambda *i: te.max(A(*i), 0), name="relu")


def test_chapter_5_block_builder_with_emit_te():
    A = relax.Var("A", relax.TensorStructInfo((32, 32), "float32"))
    B = relax.Var("B", relax.TensorStructInfo((32, 32), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main"):
        with bb.dataflow():
            C = bb.emit_te(te_matmul, A, B)
            D = bb.emit_te(te_relu, C)
            R = bb.emit_output(D)
        bb.emit_func_output(R, params=[A, B])
    mod = bb.get()
    text = mod.script()
    # each emitted prim_func's bare root block prints as TVM 0.27 prints it: a comment
    assert "@R.function\n    def main(" in text
    assert text.count('# with T.sblock("root"):') == 2
    vm = relax.VirtualMachine(relax.build(mod, target="llvm"), tvm.cpu())
    a, b = np.random.default_rng(1).random((2, 32, 32), dtype=np.float32)
    np.testing.assert_allclose(vm["main"](tvm.nd.array(a), tvm.nd.array(b)).numpy(),
                               np.maximum(a @ b, 0), rtol=1e-5)


# -- chapter 4: automatic program optimization ----------------------------------------------


@tvm.script.ir_module
class MatmulModule:
    @T.prim_func
    def main(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"),
             C: T.Buffer((128, 128), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i, j, k in T.grid(128, 128, 128):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = 0.0
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]


def stochastic_schedule_mm(sch: tvm.tir.Schedule):
    block_C = sch.get_block("C", "main")
    i, j, k = sch.get_loops(block=block_C)
    j_factors = sch.sample_perfect_tile(loop=j, n=2)
    j_0, j_1 = sch.split(loop=j, factors=j_factors)
    sch.reorder(i, j_0, k, j_1)
    sch.decompose_reduction(block_C, k)
    return sch


def _mm_arrays():
    a, b = np.random.default_rng(2).random((2, 128, 128), dtype=np.float32)
    return a, b, [tvm.nd.array(a), tvm.nd.array(b), tvm.nd.empty((128, 128), "float32")]


def test_chapter_4_stochastic_schedule_and_random_search():
    a, b, nds = _mm_arrays()
    sch = stochastic_schedule_mm(tvm.tir.Schedule(MatmulModule, seed=7))
    text = str(sch.trace)
    # TVM's trace form: the sampled factors are variables with the decision recorded
    assert "v4, v5 = sch.sample_perfect_tile(loop=l2, n=2, max_innermost_factor=16, decision=[" \
        in text and "sch.split(loop=l2, factors=[v4, v5]" in text
    j0, j1 = (sch.get(rv) for rv in sch.get_loops(sch.get_block("C_update"))[1::2])
    decision = [int(sch.get(v)) for v in sch.trace.insts[2].outputs]
    assert j0.extent.value * j1.extent.value == 128 and [j0.extent.value, j1.extent.value] == \
        decision and decision[1] <= 16
    # the same seed samples the same program; the trace replays it exactly
    again = stochastic_schedule_mm(tvm.tir.Schedule(MatmulModule, seed=7))
    assert str(again.trace) == text
    replay = tvm.tir.Schedule(MatmulModule)
    sch.trace.apply_to_schedule(replay, remove_postproc=False)
    tvm.ir.assert_structural_equal(replay.mod, sch.mod)

    def random_search(mod: tvm.IRModule, num_trials=5):
        best_result = None
        best_sch = None
        for i in range(num_trials):
            sch = stochastic_schedule_mm(tvm.tir.Schedule(mod))
            lib = tvm.build(sch.mod, target="llvm")
            f_timer_after = lib.time_evaluator("main", tvm.cpu())
            result = f_timer_after(*nds).mean
            if best_result is None or result < best_result:
                best_result = result
                best_sch = sch
        return best_sch

    best = random_search(MatmulModule, num_trials=3)
    tvm.build(best.mod, target="llvm")["main"](*nds)
    np.testing.assert_allclose(nds[2].numpy(), a @ b, rtol=1e-4)


def test_chapter_4_meta_schedule_tune_tir(tmp_path):
    from tvmlite import meta_schedule as ms

    a, b, nds = _mm_arrays()
    database = ms.tune_tir(
        mod=MatmulModule,
        target="llvm --num-cores=1",
        max_trials_global=6,
        num_trials_per_iter=6,
        space=ms.space_generator.ScheduleFn(stochastic_schedule_mm),
        work_dir=str(tmp_path / "tune_tmp"),
        task_name="main",
    )
    sch = ms.tir_integration.compile_tir(database, MatmulModule, "llvm --num-cores=1")
    assert "sch.sample_perfect_tile(" in str(sch.trace)
    sch.trace.show()
    lib = tvm.build(sch.mod, target="llvm")
    lib["main"](*nds)
    np.testing.assert_allclose(nds[2].numpy(), a @ b, rtol=1e-4)
    records = database.get_all_tuning_records()
    assert 1 <= len(records) <= 6 and all(r.run_secs and r.run_secs[0] > 0 for r in records)
    best = min(records, key=lambda r: r.run_secs[0])
    assert str(best.trace) == str(sch.trace)
    assert (tmp_path / "tune_tmp" / "database_tuning_record.json").exists()

    # the default space: no schedule function given
    database = ms.tune_tir(mod=MatmulModule, target="llvm --num-cores=1", max_trials_global=4,
                           num_trials_per_iter=4, work_dir=str(tmp_path / "tune_tmp"))
    sch = ms.tir_integration.compile_tir(database, MatmulModule, "llvm --num-cores=1")
    assert "sch.split(" in str(sch.trace)
    tvm.build(sch.mod, target="llvm")["main"](*nds)
    np.testing.assert_allclose(nds[2].numpy(), a @ b, rtol=1e-4)


def test_chapter_4_tuned_kernel_back_into_the_model():
    @tvm.script.ir_module
    class MyModuleMixture:
        @T.prim_func
        def linear0(X: T.Buffer((1, 784), "float32"), W: T.Buffer((128, 784), "float32"),
                    B: T.Buffer((128,), "float32"), Z: T.Buffer((1, 128), "float32")):
            T.func_attr({"global_symbol": "linear0", "tir.noalias": True})
            Y = T.alloc_buffer((1, 128), "float32")
            for i, j, k in T.grid(1, 128, 784):
                with T.block("Y"):
                    vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                    with T.init():
                        Y[vi, vj] = T.float32(0)
                    Y[vi, vj] = Y[vi, vj] + X[vi, vk] * W[vj, vk]
            for i, j in T.grid(1, 128):
                with T.block("Z"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    Z[vi, vj] = Y[vi, vj] + B[vj]

        @R.function
        def main(x: R.Tensor((1, 784), "float32"), w: R.Tensor((128, 784), "float32"),
                 b: R.Tensor((128,), "float32")):
            with R.dataflow():
                out = R.call_tir(linear0, (x, w, b), R.Tensor((1, 128), dtype="float32"))
                R.output(out)
            return out

    from tvmlite import meta_schedule as ms

    mod_linear = tvm.IRModule.from_expr(MyModuleMixture["linear0"].with_attr("global_symbol",
                                                                               "main"))
    database = ms.tune_tir(mod=mod_linear, target="llvm --num-cores=1", max_trials_global=3,
                           num_trials_per_iter=3, work_dir=None)
    sch = ms.tir_integration.compile_tir(database, mod_linear, "llvm --num-cores=1")
    new_func = sch.mod["main"].with_attr("global_symbol", "linear0")
    mixture = MyModuleMixture
    gv = mixture.get_global_var("linear0")
    mixture.update_func(gv, new_func)
    x, w, bias = (np.random.default_rng(3).random(s, dtype=np.float32)
                  for s in [(1, 784), (128, 784), (128,)])
    assert mixture["linear0"] is new_func

    vm = relax.VirtualMachine(relax.build(mixture, target="llvm"), tvm.cpu())
    np.testing.assert_allclose(vm["main"](x, w, bias).numpy(), x @ w.T + bias, rtol=1e-4)
    ftimer = vm.module.time_evaluator("main", tvm.cpu(), number=3)
    assert ftimer(tvm.nd.array(x), tvm.nd.array(w), tvm.nd.array(bias)).mean > 0


# -- chapter 7: computational graph optimization ------------------------------------------


@tvm.script.ir_module
class FMAModule:
    @R.function
    def main(x: R.Tensor((3, 4), "float32"), y: R.Tensor((3, 4), "float32")):
        with R.dataflow():
            lv0 = relax.op.multiply(x, y)
            gv0 = relax.op.add(lv0, y)
            R.output(gv0)
        return gv0


@relax.expr_functor.mutator
class EwiseFMARewriter(relax.PyExprMutator):
    def visit_call_(self, call):
        call = self.visit_expr_post_order(call)
        add_op = tvm.ir.Op.get("relax.add")
        multiply_op = tvm.ir.Op.get("relax.multiply")
        ewise_fma_op = tvm.ir.Op.get("relax.ewise_fma")

        if call.op != add_op:
            return call

        value = self.lookup_binding(call.args[0])
        if not isinstance(value, relax.Call) or value.op != multiply_op:
            return call

        fma_call = relax.Call(
            ewise_fma_op, [value.args[0], value.args[1], call.args[1]], None, None
        )
        return fma_call


def test_chapter_7_pattern_rewrite_with_py_expr_mutator():
    updated_fn = EwiseFMARewriter().visit_expr(FMAModule["main"])
    text = updated_fn.script(show_all_struct_info=False)
    assert "lv0 = R.multiply(x, y)" in text and "gv0 = R.ewise_fma(x, y, y)" in text
    cleaned = relax.analysis.remove_all_unused(updated_fn)
    assert "R.multiply" not in cleaned.script() and "R.ewise_fma(x, y, y)" in cleaned.script()
    mod = relax.transform.LegalizeOps()(tvm.IRModule.from_expr(cleaned))
    vm = relax.VirtualMachine(relax.build(mod, target="llvm"), tvm.cpu())
    x, y = np.random.default_rng(4).random((2, 3, 4), dtype=np.float32)
    np.testing.assert_allclose(vm["main"](x, y).numpy(), x * y + y, rtol=1e-6)


def test_chapter_7_fuse_dense_add_and_lower_to_tensor_ir():
    rng = np.random.default_rng(0)
    mlp_params = {"w0": rng.random((128, 784), dtype=np.float32), "b0": rng.random(128, dtype=np.float32),
                  "w1": rng.random((10, 128), dtype=np.float32), "b1": rng.random(10, dtype=np.float32)}

    def create_model():
        bb = relax.BlockBuilder()
        x = relax.Var("x", relax.TensorStructInfo((1, 784), "float32"))
        w0 = relax.const(mlp_params["w0"], "float32")
        b0 = relax.const(mlp_params["b0"], "float32")
        w1 = relax.const(mlp_params["w1"], "float32")
        b1 = relax.const(mlp_params["b1"], "float32")
        with bb.function("main", [x]):
            with bb.dataflow():
                lv0 = bb.emit(relax.op.matmul(x, relax.op.permute_dims(w0)))
                lv1 = bb.emit(relax.op.add(lv0, b0))
                lv2 = bb.emit(relax.op.nn.relu(lv1))
                lv3 = bb.emit(relax.op.matmul(lv2, relax.op.permute_dims(w1)))
                lv4 = bb.emit(relax.op.add(lv3, b1))
                gv = bb.emit_output(lv4)
            bb.emit_func_output(gv)
        return bb.get()

    MLPModel = create_model()

    @relax.expr_functor.mutator
    class DenseAddFusor(relax.PyExprMutator):
        def __init__(self, mod: IRModule) -> None:
            super().__init__()
            self.mod_ = mod
            self.add_op = tvm.ir.Op.get("relax.add")
            self.dense_op = tvm.ir.Op.get("relax.matmul")
            self.counter = 0

        def transform(self) -> IRModule:
            for global_var, func in self.mod_.functions_items():
                if not isinstance(func, relax.Function):
                    continue
                if func.attrs is not None and "Primitive" in func.attrs.keys() and func.attrs["Primitive"] != 0:
                    continue
                updated_func = self.visit_expr(func)
                updated_func = relax.analysis.remove_all_unused(updated_func)
                self.builder_.update_func(global_var, updated_func)
            return self.builder_.get()

        def visit_call_(self, call):
            call = self.visit_expr_post_order(call)
            def match_call(node, op):
                if not isinstance(node, relax.Call):
                    return False
                return node.op == op
            if not match_call(call, self.add_op):
                return call
            value = self.lookup_binding(call.args[0])
            if value is None:
                return call
            if not match_call(value, self.dense_op):
                return call
            x = value.args[0]
            w = value.args[1]
            b = call.args[1]
            param_x = relax.Var("x" ,relax.TensorStructInfo(x.struct_info.shape, x.struct_info.dtype))
            param_w = relax.Var("w" ,relax.TensorStructInfo(w.struct_info.shape, w.struct_info.dtype))
            param_b = relax.Var("b" ,relax.TensorStructInfo(b.struct_info.shape, b.struct_info.dtype))
            bb = relax.BlockBuilder()
            fn_name = "fused_dense_add%d" % (self.counter)
            self.counter += 1
            with bb.function(fn_name, [param_x, param_w, param_b]):
                with bb.dataflow():
                    lv0 = bb.emit(relax.op.matmul(param_x, param_w))
                    gv = bb.emit_output(relax.op.add(lv0, param_b))
                bb.emit_func_output(gv)
            fused_fn = bb.get()[fn_name].with_attr("Primitive", 1)
            global_var = self.builder_.add_func(fused_fn, fn_name)
            return relax.Call(global_var, [x, w, b], None, None)

    @tvm.ir.transform.module_pass(opt_level=2, name="DenseAddFuse")
    class FuseDenseAddPass:
        def transform_module(self, mod, ctx):
            return DenseAddFusor(mod).transform()

    MLPFused = FuseDenseAddPass()(MLPModel)

    @relax.expr_functor.mutator
    class LowerToTensorIR(relax.PyExprMutator):
        def __init__(self, mod: IRModule, op_map) -> None:
            super().__init__()
            self.mod_ = mod
            self.op_map = {tvm.ir.Op.get(k): v for k, v in op_map.items()}

        def visit_call_(self, call):
            call = self.visit_expr_post_order(call)
            if call.op in self.op_map:
                return self.op_map[call.op](self.builder_, call)
            return call

        def transform(self) -> IRModule:
            for global_var, func in self.mod_.functions_items():
                if not isinstance(func, relax.Function):
                    continue
                updated_func = self.visit_expr(func)
                self.builder_.update_func(global_var, updated_func)
            return self.builder_.get()

    def map_dense(bb, call):
        x, w = call.args
        return bb.call_te(topi.nn.matmul, x, w)

    def map_add(bb, call):
        a, b = call.args
        return bb.call_te(topi.add, a, b)

    def map_relu(bb, call):
        return bb.call_te(topi.nn.relu, call.args[0])

    def map_transpose(bb, call):
        return bb.call_te(topi.transpose, call.args[0], )

    op_map = {"relax.matmul": map_dense, "relax.add": map_add, "relax.nn.relu": map_relu, "relax.permute_dims": map_transpose}

    @tvm.ir.transform.module_pass(opt_level=0, name="LowerToTensorIR")
    class LowerToTensorIRPass:
        def transform_module(self, mod, ctx):
            return LowerToTensorIR(mod, op_map).transform()

    MLPModelTIR = LowerToTensorIRPass()(MLPFused)
    MLPModelFinal = relax.transform.FuseTIR()(MLPModelTIR)
    ex = relax.build(MLPModelFinal, target="llvm")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    img = rng.random((1, 784), dtype=np.float32)
    nd_res = vm["main"](tvm.nd.array(img))
    ref = np.maximum(img @ mlp_params["w0"].T + mlp_params["b0"], 0) @ mlp_params["w1"].T + mlp_params["b1"]
    np.testing.assert_allclose(nd_res.numpy(), ref, rtol=1e-4)

    text = MLPModel.script(show_all_struct_info=False)
    assert "lv = R.permute_dims(" in text and "lv1 = R.matmul(x, lv)" in text  # A-normal form
    fused = MLPFused.script()
    assert fused.count('R.func_attr({"Primitive": 1})') == 2
    assert "cls.fused_dense_add0(x, lv," in fused and "cls.fused_dense_add1(" in fused
    assert "R.call_tir(cls.fused_dense_add0" in MLPModelFinal.script()


# -- chapter 5: integration with ML frameworks (torch.fx) -----------------------------------


def test_chapter_5_from_fx(monkeypatch):
    torch = pytest.importorskip("torch")
    # NOTE: the chapter's from_fx returns the dataflow var `output`, not the `gv` it emitted;
    # TVM prints `return lv1` too, and its well_formed() rejects it, but it compiles and runs
    monkeypatch.delenv("TVMLITE_VERIFY", raising=False)
    nn = torch.nn
    from torch import fx


    def te_matmul_ch5(A: te.Tensor, B: te.Tensor) -> te.Tensor:
        assert A.shape[1] == B.shape[0]
        n = A.shape[0]
        m = B.shape[1]
        k = te.reduce_axis((0, A.shape[1]), name="k")
        return te.compute((n, m), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="matmul")

    def te_relu_ch5(A: te.Tensor) -> te.Tensor:
        return te.compute(A.shape, lambda *i: te.max(A(*i), 0), name="relu")

    class MyModel(nn.Module):
        def __init__(self):
            super(MyModel, self).__init__()
            self.weight = nn.Parameter(torch.randn(128, 128))
        def forward(self, x):
            x = torch.matmul(x, self.weight)
            x = torch.relu(x)
            return x

    model = MyModel()
    fx_module = fx.symbolic_trace(model)

    def map_param(param: nn.Parameter):
        return relax.const(param.data.cpu().numpy(), dtype="float32")

    def fetch_attr(fx_mod, target: str):
        target_atoms = target.split('.')
        attr_itr = fx_mod
        for i, atom in enumerate(target_atoms):
            if not hasattr(attr_itr, atom):
                raise RuntimeError(f"Node referenced nonexistant target {'.'.join(target_atoms[:i])}")
            attr_itr = getattr(attr_itr, atom)
        return attr_itr

    def from_fx(fx_mod, input_shapes, call_function_map, call_module_map):
        input_index = 0
        node_map = {}
        named_modules = dict(fx_mod.named_modules())
        bb = relax.BlockBuilder()
        fn_inputs = []
        fn_output = None
        with bb.function("main"):
            with bb.dataflow():
                for node in fx_mod.graph.nodes:
                    if node.op == "placeholder":
                        shape = input_shapes[input_index]
                        input_index += 1
                        input_var = relax.Var(node.target, relax.TensorStructInfo(shape, "float32"))
                        fn_inputs.append(input_var)
                        node_map[node] = input_var
                    elif node.op == "get_attr":
                        node_map[node] = map_param(fetch_attr(fx_mod, node.target))
                    elif node.op == "call_function":
                        node_map[node] = call_function_map[node.target](bb, node_map, node)
                    elif node.op == "call_module":
                        named_module = named_modules[node.target]
                        node_map[node] = call_module_map[type(named_module)](bb, node_map, node, named_module)
                    elif node.op == "output":
                        output = node_map[node.args[0]]
                        assert fn_output is None
                        fn_output = bb.emit_output(output)
            bb.emit_func_output(output, fn_inputs)
        return bb.get()

    def map_matmul(bb, node_map, node: fx.Node):
        A = node_map[node.args[0]]
        B = node_map[node.args[1]]
        return bb.emit_te(te_matmul_ch5, A, B)

    def map_relu(bb, node_map, node: fx.Node):
        A = node_map[node.args[0]]
        return bb.emit_te(te_relu_ch5, A)

    MyModule = from_fx(fx_module, input_shapes=[(1, 128)],
                       call_function_map={torch.matmul: map_matmul, torch.relu: map_relu}, call_module_map={})
    ex = relax.build(MyModule, target="llvm")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    x = np.random.rand(1, 128).astype("float32")
    np.testing.assert_allclose(vm["main"](tvm.nd.array(x)).numpy(), model(torch.from_numpy(x)).detach().numpy(), rtol=1e-4, atol=1e-5)

    class MLP(nn.Module):
        def __init__(self):
            super(MLP, self).__init__()
            self.linear0 = nn.Linear(784, 128, bias=True)
            self.relu = nn.ReLU()
            self.linear1 = nn.Linear(128, 10, bias=True)
        def forward(self, x):
            x = self.linear0(x)
            x = self.relu(x)
            x = self.linear1(x)
            return x

    mlp_model = MLP()

    def map_nn_linear(bb, node_map, node, nn_mod):
        x = node_map[node.args[0]]
        w = map_param(nn_mod.weight)
        if nn_mod.bias is not None:
            b = map_param(nn_mod.bias)
        y = bb.emit_te(topi.nn.dense, x, w)
        return bb.emit_te(topi.add, y, b)

    def map_nn_relu(bb, node_map, node, nn_mod):
        return map_relu(bb, node_map, node)

    MLPModule = from_fx(fx.symbolic_trace(mlp_model), input_shapes=[(1, 784)], call_function_map={},
                        call_module_map={torch.nn.Linear: map_nn_linear, torch.nn.ReLU: map_nn_relu})
    ex = relax.build(MLPModule, target="llvm")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    data = np.random.rand(1, 784).astype("float32")
    np.testing.assert_allclose(vm["main"](tvm.nd.array(data)).numpy(), mlp_model(torch.from_numpy(data)).detach().numpy(), rtol=1e-4, atol=1e-5)

    def map_nn_relu_op(bb, node_map, node, nn_mod):
        A = node_map[node.args[0]]
        return bb.emit(relax.op.relu(A))

    def map_nn_linear_op(bb, node_map, node, nn_mod):
        x = node_map[node.args[0]]
        w = map_param(nn_mod.weight)
        if nn_mod.bias is not None:
            b = map_param(nn_mod.bias)
        y = bb.emit(relax.op.dense(x, w))
        return bb.emit(relax.op.add(y, b))

    MLPModuleHighLevel = from_fx(fx.symbolic_trace(mlp_model), input_shapes=[(1, 784)], call_function_map={},
        call_module_map={torch.nn.Linear: map_nn_linear_op, torch.nn.ReLU: map_nn_relu_op})

    assert "R.output(gv)\n        return lv1\n" in MyModule.script()  # as TVM prints it
    text = MLPModuleHighLevel.script(show_all_struct_info=False)
    assert "lv = R.permute_dims(" in text and "lv1 = R.matmul(x, lv)" in text
    assert "lv3 = R.nn.relu(lv2)" in text
    mod = relax.transform.LegalizeOps()(MLPModuleHighLevel)
    vm = relax.VirtualMachine(relax.build(mod, target="llvm"), tvm.cpu())
    np.testing.assert_allclose(vm["main"](tvm.nd.array(data)).numpy(),
                               mlp_model(torch.from_numpy(data)).detach().numpy(), rtol=1e-4,
                               atol=1e-5)
