"""RewriteCUDAGraph: static storages lifted into `cuda_graph_alloc`, static runs that start at a
kernel launch lifted into capture functions, only when `relax.backend.use_cuda_graph` is set."""

import tvmlite as tvm
from tvmlite import relax
from tvmlite.ir.structural import assert_structural_equal
from tvmlite.script import ir as I
from tvmlite.script import relax as R
from tvmlite.script import tir as T

ENABLED = {"relax.backend.use_cuda_graph": True}


def rewrite(mod, config=ENABLED):
    with tvm.transform.PassContext(config=config):
        return relax.transform.RewriteCUDAGraph()(mod)


@I.ir_module
class OneLaunch:
    @R.function(pure=False)
    def main():
        storage0 = R.memory.alloc_storage(R.shape([8]), 0, "global", "float32")
        alloc0 = R.memory.alloc_tensor(storage0, 0, R.shape([8]), "float32")
        _ = R.call_packed("dummy_func", alloc0, R.dtype("float32"))
        return R.tuple()


@I.ir_module
class OneLaunchRewritten:
    @R.function(private=True)
    def cuda_graph_alloc() -> R.Tuple(R.Any):
        R.func_attr({"relax.force_pure": True})
        storage0: R.Any = R.memory.alloc_storage(R.shape([8]), 0, "global", "float32")
        gv: R.Tuple(R.Any) = (storage0,)
        return gv

    @R.function(private=True)
    def main_cuda_graph_capture(alloc0: R.Tensor((8,), "float32")) -> R.Tuple:
        R.func_attr({"relax.force_pure": True})
        _: R.Any = R.call_packed("dummy_func", alloc0, R.dtype("float32"))
        gv: R.Tuple = R.tuple()
        return gv

    @R.function(pure=False)
    def main() -> R.Tuple:
        cls = OneLaunchRewritten
        gv: R.Tuple(R.Any) = R.call_builtin_with_ctx(
            "vm.builtin.cuda_graph.get_cached_alloc", (cls.cuda_graph_alloc, R.prim_value(0)),
            ty_args=(R.Tuple(R.Any),))
        storage0: R.Any = gv[0]
        alloc0 = R.memory.alloc_tensor(storage0, 0, R.shape([8]), "float32")
        _run: R.Tuple = R.call_builtin_with_ctx(
            "vm.builtin.cuda_graph.run_or_capture",
            (cls.main_cuda_graph_capture, (alloc0,), R.prim_value(0)), ty_args=(R.Tuple,))
        return R.tuple()


def test_storage_and_launch_are_lifted():
    assert_structural_equal(rewrite(OneLaunch), OneLaunchRewritten)


def test_nothing_happens_unless_enabled():
    assert rewrite(OneLaunch, {}) is OneLaunch
    assert rewrite(OneLaunch, {"relax.backend.use_cuda_graph": False}) is OneLaunch


@I.ir_module
class Chain:
    @T.prim_func
    def copy(a: T.Buffer((4,), "float32"), b: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.block("copy"):
                vi = T.axis.remap("S", [i])
                b[vi] = a[vi]

    @R.function
    def main(x: R.Tensor((4,), "float32")):
        R.func_attr({"relax.force_pure": True})
        cls = Chain
        s0 = R.memory.alloc_storage(R.shape([16]), 0, "global", "float32")
        a0 = R.memory.alloc_tensor(s0, 0, R.shape([4]), "float32")
        _0 = cls.copy(x, a0)  # reads the input: not static, stays
        s1 = R.memory.alloc_storage(R.shape([16]), 0, "global", "float32")
        a1 = R.memory.alloc_tensor(s1, 0, R.shape([4]), "float32")
        _1 = cls.copy(a0, a1)  # static from here on: captured
        a2 = R.memory.alloc_tensor(s0, 0, R.shape([4]), "float32")
        _2 = cls.copy(a1, a2)
        out = R.builtin.alloc_tensor(R.shape([4]), "float32", 0)
        _3 = cls.copy(a2, out)  # `out` is allocated per call: not static
        return out


def test_a_capture_takes_what_it_reads_and_returns_what_is_read_later():
    after = rewrite(Chain)
    assert sorted(after.names()) == ["copy", "cuda_graph_alloc", "main",
                                     "main_cuda_graph_capture"]
    capture = after["main_cuda_graph_capture"]
    assert [p.name_hint for p in capture.params] == ["a0", "a1", "s0"]
    assert capture.attr_dict["relax.force_pure"]
    inner = [b.var.name_hint for blk in capture.body.blocks for b in blk.bindings]
    assert inner == ["_1", "a2", "_2", "gv"]
    main = [b for blk in after["main"].body.blocks for b in blk.bindings]
    names = [b.var.name_hint for b in main]
    assert names == ["gv", "s0", "a0", "_0", "s1", "a1", "gv", "a2", "out", "_3"]
    run = main[6].value
    assert run.args[0].global_symbol == "vm.builtin.cuda_graph.run_or_capture"
    a2 = main[7]
    assert a2.value.tuple_value is main[6].var and a2.value.index == 0
    assert main[9].value.args[0] is a2.var  # the launch after the capture reads its result


def test_the_storage_of_a_returned_tensor_is_not_lifted():
    @I.ir_module
    class Returned:
        @R.function
        def main():
            R.func_attr({"relax.force_pure": True})
            s0 = R.memory.alloc_storage(R.shape([8]), 0, "global", "float32")
            a0 = R.memory.alloc_tensor(s0, 0, R.shape([8]), "float32")
            s1 = R.memory.alloc_storage(R.shape([8]), 0, "global", "float32")
            a1 = R.memory.alloc_tensor(s1, 0, R.shape([8]), "float32")
            _ = R.call_packed("dummy", a0, a1, ty_args=(R.Tuple,))
            out = (a1,)
            return out

    after = rewrite(Returned)
    alloc = after["cuda_graph_alloc"]
    assert [b.var.name_hint for blk in alloc.body.blocks for b in blk.bindings] == ["s0", "gv"]
    # a1's storage stays in main, so a1 is not static and no launch is captured
    assert "main_cuda_graph_capture" not in after.names()


def test_functions_share_one_alloc_function_by_storage_slots():
    @I.ir_module
    class Two:
        @R.function
        def f1():
            R.func_attr({"relax.force_pure": True})
            s1 = R.memory.alloc_storage(R.shape([128]), 0, "global", "float32")
            s2 = R.memory.alloc_storage(R.shape([256]), 0, "global", "float32")
            a1 = R.memory.alloc_tensor(s1, 0, R.shape([128]), "float32")
            a2 = R.memory.alloc_tensor(s2, 0, R.shape([256]), "float32")
            _ = R.call_packed("dummy", a1, a2, ty_args=(R.Tuple,))
            return R.tuple()

        @R.function
        def f2():
            R.func_attr({"relax.force_pure": True})
            t1 = R.memory.alloc_storage(R.shape([64]), 0, "global", "float32")
            t2 = R.memory.alloc_storage(R.shape([512]), 0, "ipc_memory", "float32")
            t3 = R.memory.alloc_storage(R.shape([32]), 0, "global", "float32")
            b1 = R.memory.alloc_tensor(t1, 0, R.shape([64]), "float32")
            b2 = R.memory.alloc_tensor(t2, 0, R.shape([512]), "float32")
            b3 = R.memory.alloc_tensor(t3, 0, R.shape([32]), "float32")
            _ = R.call_packed("dummy", b1, b2, b3, ty_args=(R.Tuple,))
            return R.tuple()

    after = rewrite(Two)
    assert "cuda_graph_alloc1" not in after.names()
    alloc = [b for blk in after["cuda_graph_alloc"].body.blocks for b in blk.bindings][:-1]
    # per scope, largest first: global slot 0 = max(256, 64), slot 1 = max(128, 32); then ipc
    assert [b.var.name_hint for b in alloc] == ["s2", "s1", "t2"]

    def slots(func):
        return {b.var.name_hint: b.value.index for blk in func.body.blocks
                for b in blk.bindings if isinstance(b.value, relax.TupleGetItem)}

    assert slots(after["f1"]) == {"s1": 1, "s2": 0}
    assert slots(after["f2"]) == {"t1": 0, "t2": 2, "t3": 1}
    # each function's capture has its own graph index
    indices = [b.value.args[1].fields[2].value.value for name in ("f1", "f2")
               for blk in after[name].body.blocks for b in blk.bindings
               if isinstance(b.value, relax.Call) and hasattr(b.value.args[0], "global_symbol")
               and b.value.args[0].global_symbol.endswith("run_or_capture")]
    assert indices == [0, 1]


def test_runs_after_the_pipeline_tvm_runs_before_it():
    @I.ir_module
    class Model:
        @R.function
        def main(x: R.Tensor((4, 4), "float32"), w: R.Tensor((4, 4), "float32")):
            R.func_attr({"num_input": 1})
            with R.dataflow():
                y = R.matmul(x, w)  # its result is planned into a storage of its own
                z = R.sum(y, axis=1)
                R.output(z)
            return z

    # the passes TVM's test runs before this one, through `relax.pipeline` as TVM names it
    mod = tvm.transform.Sequential([
        relax.pipeline.get_pipeline(), relax.transform.ToNonDataflow(),
        relax.transform.RemovePurityChecking(), relax.transform.CallTIRRewrite(),
        relax.transform.StaticPlanBlockMemory()])(Model)
    # the planned storage of `y` is lifted into the cached allocation function, as TVM does;
    # the launches read the input `x`, so nothing is captured
    after = rewrite(mod)
    assert "R.memory.alloc_storage" in after["cuda_graph_alloc"].script()
    main = after["main"].script()
    assert "vm.builtin.cuda_graph.get_cached_alloc" in main
    assert "R.memory.alloc_storage" not in main and "run_or_capture" not in main
    assert relax.pipeline.get_pipeline is relax.get_pipeline


def test_a_capture_nothing_reads_from_returns_an_inline_empty_tuple():
    body = rewrite(OneLaunch)["main_cuda_graph_capture"].body
    assert type(body.body).__name__ == "Tuple" and not body.body.fields
    assert type(body.blocks[-1].bindings[-1].value).__name__ == "Tuple"  # still bound, as TVM


def _symbolic_module(attrs):
    @I.ir_module
    class Symbolic:
        @R.function
        def main(x: R.Tensor(("n",), "float32")):
            n = T.int64()
            R.func_attr({"relax.force_pure": True})
            storage = R.memory.alloc_storage(R.shape([64]), 0, "global", "float32")
            a = R.memory.alloc_tensor(storage, 0, R.shape([n]), "float32")
            storage1 = R.memory.alloc_storage(R.shape([64]), 0, "global", "float32")
            b = R.memory.alloc_tensor(storage1, 0, R.shape([n]), "float32")
            _ = R.call_packed("fill", a, b, ty_args=(R.Tuple,))
            out = R.builtin.alloc_tensor(R.shape([n]), "float32", 0, "global")
            _1 = R.call_packed("copy", x, b, out, ty_args=(R.Tuple,))
            return out

    return Symbolic.with_function("main", Symbolic["main"].with_attrs(attrs)) if attrs \
        else Symbolic


def test_listed_symbolic_dims_are_captured_and_passed_by_value():
    after = rewrite(_symbolic_module(
        {"relax.rewrite_cuda_graph.capture_symbolic_vars": ["n"]}))
    capture = after["main_cuda_graph_capture"]
    assert [p.name_hint for p in capture.params] == ["a", "b", "shape_expr"]
    n_main = after["main"].params[0].struct_info.shape[0]
    n_capture = capture.params[-1].struct_info.values[0]
    assert n_capture.name == "n" and n_capture is not n_main  # the capture's own dim
    run = [b.value for b in after["main"].body.blocks[0].bindings
           if getattr(b.value, "args", None) and getattr(b.value.args[0], "global_symbol", "")
           == "vm.builtin.cuda_graph.run_or_capture"][0]
    args = run.args[1].fields
    assert args[1].fields[-1].values[0] is n_main  # the dims: last argument and cache key
    assert args[-1].values[0] is n_main


def test_unlisted_symbolic_dims_are_not_captured():
    after = rewrite(_symbolic_module({}))
    assert "main_cuda_graph_capture" not in [gv.name_hint for gv in after.functions]
