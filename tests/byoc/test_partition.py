"""FuseOpsByPattern, MergeCompositeFunctions, RunCodegen, and the built-in backends vs numpy."""

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax
from tvmlite.backend import blas, ccompiler  # noqa: F401  (importing registers the backends)
from tvmlite.backend.pattern_registry import get_patterns_with_prefix
from tvmlite.backend.patterns import make_fused_bias_activation_pattern
from tvmlite.ir.dpl import is_op, wildcard
from tvmlite.ir.expr import Call, ExternFunc, Function
from tvmlite.script import ir as I
from tvmlite.script import relax as R
from tvmlite.transforms.fuse_by_pattern import FuseOpsByPattern
from tvmlite.transforms.run_codegen import (
    CodegenNotFoundError, MergeCompositeFunctions, RunCodegen,
)

RNG = np.random.default_rng(7)


@I.ir_module
class ConvBiasRelu:
    @R.function
    def main(x: R.Tensor((1, 3, 8, 8), "float32"), w: R.Tensor((4, 3, 3, 3), "float32"),
             b: R.Tensor((1, 4, 1, 1), "float32")):
        with R.dataflow():
            c = R.nn.conv2d(x, w, padding=(1, 1))
            d = R.add(c, b)
            e = R.nn.relu(d)
            R.output(e)
        return e


@I.ir_module
class Elementwise:
    @R.function
    def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")):
        with R.dataflow():
            a = R.add(x, y)
            b = R.multiply(a, y)
            c = R.subtract(b, x)
            R.output(c)
        return c


def numpy_conv_bias_relu(x, w, b):
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    out = np.zeros((n, o, h, wd), "float32")
    for i in range(h):
        for j in range(wd):
            patch = xp[:, :, i:i + kh, j:j + kw]
            out[:, :, i, j] = np.tensordot(patch, w, axes=([1, 2, 3], [1, 2, 3]))
    return np.maximum(out + b, 0)


def calls_in_main(mod):
    return [b.value for blk in mod["main"].body.blocks for b in blk.bindings]


def test_fuse_ops_by_pattern_makes_one_composite():
    mod = FuseOpsByPattern(get_patterns_with_prefix("blas"))(ConvBiasRelu)
    (call,) = calls_in_main(mod)
    composite = mod[call.op.gvar]
    assert composite.attr_dict["Composite"] == "blas.conv2d_bias_relu"
    assert "Codegen" not in composite.attr_dict
    assert [p.name_hint for p in composite.params] == ["x", "w", "b"]
    ops = [b.value.op.name for blk in composite.body.blocks for b in blk.bindings]
    assert ops == ["relax.nn.conv2d", "relax.add", "relax.nn.relu"]


def test_priority_and_annotate_codegen():
    conv_only = ("blas.conv2d", *make_fused_bias_activation_pattern("relax.nn.conv2d"))
    mod = FuseOpsByPattern([conv_only], annotate_codegen=True)(ConvBiasRelu)
    first = calls_in_main(mod)[0]
    assert first.op.gvar.name_hint == "fused_relax_nn_conv2d_blas"
    offload = mod[first.op.gvar]
    assert offload.attr_dict == {"Codegen": "blas", "global_symbol": first.op.gvar.name_hint}
    # as TVM 0.27: the composite is inlined as a local function (no `Primitive`) and called
    local, call = [b.value for blk in offload.body.blocks for b in blk.bindings]
    assert local.attr_dict == {"Composite": "blas.conv2d"} and call.args == offload.params
    assert "fused_relax_nn_conv2d" not in mod.names()
    assert [c.op.name for c in calls_in_main(mod)[1:]] == ["relax.add", "relax.nn.relu"]


def test_a_value_used_outside_the_match_is_returned_too():
    @I.ir_module
    class Escapes:
        @R.function
        def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")):
            with R.dataflow():
                a = R.add(x, y)
                b = R.nn.relu(a)
                c = R.multiply(a, b)  # `a` escapes the add+relu group
                R.output(c)
            return c

    # as apache-tvm 0.27: the composite returns (a, relu(a)) and main takes `a` from the tuple
    pattern, _ = make_fused_bias_activation_pattern("relax.add", False, "relax.nn.relu")
    mod = FuseOpsByPattern([("test.add_relu", pattern)])(Escapes)
    comp = mod["fused_relax_add_relax_nn_relu"]
    assert len(comp.ret_struct_info.fields) == 2
    assert comp.attr_dict["Composite"] == "test.add_relu"
    values = [b.value for blk in mod["main"].body.blocks for b in blk.bindings]
    assert [type(v).__name__ for v in values] == ["Call", "TupleGetItem", "TupleGetItem", "Call"]
    assert [v.index for v in values[1:3]] == [0, 1]
    assert values[3].op.name == "relax.multiply"


def test_merge_composite_functions_groups_one_backend():
    mod = FuseOpsByPattern(get_patterns_with_prefix("ccompiler"))(Elementwise)
    assert len([f for f in mod.functions.values() if "Composite" in f.attr_dict]) == 3
    merged = MergeCompositeFunctions()(mod)
    (call,) = calls_in_main(merged)
    outer = merged[call.op.gvar]
    assert outer.attr_dict["Codegen"] == "ccompiler"
    assert call.op.gvar.name_hint == \
        "fused_relax_add_relax_multiply_relax_subtract_ccompiler"
    # each composite inlined as a local function, bound before its call; no global remains
    values = [b.value for blk in outer.body.blocks for b in blk.bindings]
    assert [type(v).__name__ for v in values] == ["Function", "Call"] * 3
    assert [v.attr_dict["Composite"] for v in values[::2]] == \
        ["ccompiler.add", "ccompiler.multiply", "ccompiler.subtract"]
    assert sorted(merged.names()) == [
        "fused_relax_add_relax_multiply_relax_subtract_ccompiler", "main"]


def test_run_codegen_without_a_registered_codegen_says_how_to_register():
    pattern, _ = make_fused_bias_activation_pattern("relax.nn.conv2d")
    mod = FuseOpsByPattern([("nosuch.conv2d", pattern)], annotate_codegen=True)(ConvBiasRelu)
    with pytest.raises(CodegenNotFoundError) as err:
        RunCodegen()(mod)
    message = str(err.value)
    assert "no codegen is registered for 'nosuch'" in message
    assert "blas" in message and "ccompiler" in message
    assert '@tvm.register_func("relax.ext.nosuch")' in message


def test_blas_offload_matches_numpy():
    mod = FuseOpsByPattern(get_patterns_with_prefix("blas"), annotate_codegen=True)(ConvBiasRelu)
    mod = RunCodegen()(mod)
    (call,) = calls_in_main(mod)
    assert isinstance(call.args[0], ExternFunc) and mod.names() == ["main"]
    vm = relax.VirtualMachine(relax.build(mod, "llvm"), tvm.cpu())
    x = RNG.standard_normal((1, 3, 8, 8)).astype("float32")
    w = RNG.standard_normal((4, 3, 3, 3)).astype("float32")
    b = RNG.standard_normal((1, 4, 1, 1)).astype("float32")
    np.testing.assert_allclose(vm["main"](x, w, b).numpy(), numpy_conv_bias_relu(x, w, b),
                               rtol=1e-5, atol=1e-5)


def test_ccompiler_offload_matches_numpy_and_shows_c():
    mod = FuseOpsByPattern(get_patterns_with_prefix("ccompiler"))(Elementwise)
    mod = RunCodegen()(MergeCompositeFunctions()(mod))
    assert "void ccompiler_0_" in ccompiler.last_source()
    assert "in0[i] + in1[i]" in ccompiler.last_source()
    vm = relax.VirtualMachine(relax.build(mod, "llvm"), tvm.cpu())
    x = RNG.standard_normal((2, 3)).astype("float32")
    y = RNG.standard_normal((2, 3)).astype("float32")
    np.testing.assert_allclose(vm["main"](x, y).numpy(), (x + y) * y - x, rtol=1e-6)


def test_a_python_codegen_registered_in_the_test():
    @tvm.register_func("relax.ext.mine", override=True)
    def mine(functions, options, mod):
        assert all(isinstance(f, Function) for f in functions)

        def run(x, w, b, out):
            np.copyto(np.from_dlpack(out), numpy_conv_bias_relu(
                np.from_dlpack(x), np.from_dlpack(w), np.from_dlpack(b)))

        return [run for _ in functions]

    pattern, _ = make_fused_bias_activation_pattern("relax.nn.conv2d", True, "relax.nn.relu")
    mod = FuseOpsByPattern([("mine.cbr", pattern)], annotate_codegen=True)(ConvBiasRelu)
    mod = RunCodegen()(mod)
    vm = relax.VirtualMachine(relax.build(mod, "llvm"), tvm.cpu())
    x = RNG.standard_normal((1, 3, 8, 8)).astype("float32")
    w = RNG.standard_normal((4, 3, 3, 3)).astype("float32")
    b = RNG.standard_normal((1, 4, 1, 1)).astype("float32")
    np.testing.assert_allclose(vm["main"](x, w, b).numpy(), numpy_conv_bias_relu(x, w, b),
                               rtol=1e-5, atol=1e-5)
    assert isinstance(calls_in_main(mod)[0], Call)


def test_patterns_apply_in_order_over_the_whole_function():
    # apache-tvm 0.27: each pattern runs over the module the previous one left, so the first
    # listed wins wherever both match (add alone, then relu(add) finds nothing left)
    @I.ir_module
    class AddRelu:
        @R.function
        def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")):
            with R.dataflow():
                a = R.add(x, y)
                b = R.nn.relu(a)
                R.output(b)
            return b

    add = is_op("relax.add")(wildcard(), wildcard())
    add_relu = is_op("relax.nn.relu")(is_op("relax.add")(wildcard(), wildcard()))
    for table, name, composite in (
            ([("a.add", add), ("a.add_relu", add_relu)], "fused_relax_add", "a.add"),
            ([("a.add_relu", add_relu), ("a.add", add)], "fused_relax_add_relax_nn_relu",
             "a.add_relu")):
        mod = FuseOpsByPattern(table)(AddRelu)
        assert sorted(mod.names()) == [name, "main"]
        assert mod[name].attr_dict["Composite"] == composite


def test_a_variable_shared_by_two_functions_is_refused():
    # apache-tvm 0.27 raises ValueError: its partition maps each variable to one group
    @I.ir_module
    class AddRelu:
        @R.function
        def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")):
            with R.dataflow():
                b = R.nn.relu(R.add(x, y))
                R.output(b)
            return b

    mod = AddRelu.clone()
    mod["copy"] = mod["main"].with_attr("global_symbol", "copy")
    assert AddRelu.names() == ["main"]  # the clone is a copy
    with pytest.raises(ValueError, match="more than one place"):
        FuseOpsByPattern([("a.add", is_op("relax.add")(wildcard(), wildcard()))])(mod)


def test_cublas_patterns_skip_a_match_whose_inner_value_escapes():
    from tvmlite.backend.cublas import partition_for_cublas

    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((1, 16), "float16"), w: R.Tensor((16, 16), "float16")):
            with R.dataflow():
                w1 = R.permute_dims(w)
                y = R.matmul(x, w1)
                y1 = y  # y escapes the matmul + bias match through this binding
                out = R.add(x, y1)
                R.output(out)
            return out

    mod = partition_for_cublas(Mod)
    # as TVM: the bias add is not taken in, the transposed matmul alone is offloaded
    assert sorted(mod.names()) == ["fused_relax_permute_dims_relax_matmul_cublas", "main"]
