"""TVM's "Bring Your Own Codegen" how-to as written (imports aside): the example NPU's
patterns partition conv2d + relu into one fused composite, RunCodegen and the build run it
(computing here, where TVM's stub only logs), and partition_for_tensorrt partitions while the
TensorRT build is skipped, as the tutorial does without TensorRT."""

import numpy as np

import tvmlite as tvm
import tvmlite.relax.backend.contrib.example_npu
from tvmlite import relax
from tvmlite.relax.backend.contrib.tensorrt import partition_for_tensorrt
from tvmlite.relax.backend.pattern_registry import get_patterns_with_prefix
from tvmlite.relax.transform import FuseOpsByPattern, MergeCompositeFunctions, RunCodegen
from tvmlite.script import relax as R


@tvm.script.ir_module
class ConvReLU:
    @R.function
    def main(
        data: R.Tensor((1, 3, 32, 32), "float32"),
        weight: R.Tensor((16, 3, 3, 3), "float32"),
    ) -> R.Tensor((1, 16, 30, 30), "float32"):
        with R.dataflow():
            conv = relax.op.nn.conv2d(data, weight)
            out = relax.op.nn.relu(conv)
            R.output(out)
        return out


def test_byoc_tutorial_flow() -> None:
    has_example_npu_codegen = tvm.get_global_func("relax.ext.example_npu", True)
    has_example_npu_runtime = tvm.get_global_func("runtime.ExampleNPUJSONRuntimeCreate", True)
    has_example_npu = has_example_npu_codegen and has_example_npu_runtime
    has_tensorrt_codegen = tvm.get_global_func("relax.ext.tensorrt", True) is not None
    assert has_example_npu and not has_tensorrt_codegen

    npu_patterns = get_patterns_with_prefix("example_npu")
    npu_mod = FuseOpsByPattern(npu_patterns, bind_constants=False, annotate_codegen=True)(
        ConvReLU)
    npu_mod = MergeCompositeFunctions()(npu_mod)
    text = str(npu_mod)
    assert 'R.func_attr({"Composite": "example_npu.conv2d_relu_fused"' in text

    np.random.seed(0)
    data_np = np.random.randn(1, 3, 32, 32).astype("float32")
    weight_np = np.random.randn(16, 3, 3, 3).astype("float32")
    npu_mod = RunCodegen()(npu_mod)
    with tvm.transform.PassContext(opt_level=3):
        npu_exec = relax.build(npu_mod, tvm.target.Target("llvm"))
    npu_vm = relax.VirtualMachine(npu_exec, tvm.cpu())
    npu_out = npu_vm["main"](
        tvm.runtime.tensor(data_np, tvm.cpu()), tvm.runtime.tensor(weight_np, tvm.cpu())
    )
    assert npu_out.numpy().shape == (1, 16, 30, 30)
    # beyond TVM's stub: the values are right, and the NPU's decisions are on record
    cpu_mod = relax.transform.LegalizeOps()(ConvReLU)
    cpu_out = relax.VirtualMachine(relax.build(cpu_mod, "llvm"), tvm.cpu())["main"](
        data_np, weight_np).numpy()
    np.testing.assert_allclose(npu_out.numpy(), cpu_out, rtol=1e-4, atol=1e-4)
    plan = tvmlite.relax.backend.contrib.example_npu.dispatch_log()[-1]
    assert plan["engine"] == "matrix" and plan["memory"] == "SRAM"

    trt_mod = relax.transform.BindParams("main", {"weight": weight_np})(ConvReLU)
    trt_mod = partition_for_tensorrt(trt_mod)
    text = str(trt_mod)
    assert 'R.func_attr({"Codegen": "tensorrt"' in text
    assert '"Composite": "tensorrt.nn.conv2d"' in text and '"tensorrt.nn.relu"' in text
