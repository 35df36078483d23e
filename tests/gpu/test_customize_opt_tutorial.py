"""TVM's "Customize Optimization" how-to as written (imports aside, fewer tuning trials): a
cuBLAS dispatch pass (tvmlite runs `relax.ext.cublas` through CuPy), MetaScheduleTuneTIR /
MetaScheduleApplyDatabase for the rest, dlight, and the model deployed on `tvm.cuda()`;
on a GPU with CuPy, else on the CuPy emulator (see conftest.py)."""

from __future__ import annotations

import tempfile

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import IRModule, relax
from tvmlite.relax.frontend import nn

pytestmark = pytest.mark.usefixtures("cuda_backend")


class RelaxModel(nn.Module):
    def __init__(self):
        super(RelaxModel, self).__init__()
        self.fc1 = nn.Linear(784, 256)
        self.relu1 = nn.ReLU()
        self.fc2 = nn.Linear(256, 10, bias=False)

    def forward(self, x):
        x = self.fc1(x)
        x = self.relu1(x)
        x = self.fc2(x)
        return x


def test_customize_optimization_tutorial() -> None:
    import tvmlite.relax.backend.cuda.cublas as _cublas  # noqa: F401

    input_shape = (1, 784)
    mod, params = RelaxModel().export_tvm({"forward": {"x": nn.spec.Tensor(input_shape,
                                                                            "float32")}})

    @tvm.transform.module_pass(opt_level=0, name="CublasDispatch")
    class CublasDispatch:
        def transform_module(self, mod: IRModule, _ctx: tvm.transform.PassContext) -> IRModule:
            if not tvm.get_global_func("relax.ext.cublas", True):
                raise Exception("CUBLAS is not enabled.")
            patterns = [relax.backend.get_pattern("cublas.matmul_transposed_bias_relu")]
            mod = relax.transform.FuseOpsByPattern(patterns, annotate_codegen=True)(mod)
            mod = relax.transform.RunCodegen()(mod)
            return mod

    mod = CublasDispatch()(mod)
    text = mod.script()
    # fc2 untouched; its input is the offloaded call's result, `lv` as apache-tvm 0.27 prints it
    assert 'R.call_dps_packed("cublas.' in text and "R.matmul(lv," in text

    device = tvm.cuda(0)
    target = tvm.target.Target.from_device(device)
    trials = 4
    with target, tempfile.TemporaryDirectory() as tmp_dir:
        mod = tvm.ir.transform.Sequential(
            [
                relax.get_pipeline("zero"),
                relax.transform.MetaScheduleTuneTIR(work_dir=tmp_dir, max_trials_global=trials),
                relax.transform.MetaScheduleApplyDatabase(work_dir=tmp_dir),
            ]
        )(mod)

    from tvmlite import dlight as dl

    with target:
        mod = tvm.ir.transform.Sequential(
            [
                relax.get_pipeline("zero"),
                dl.ApplyDefaultSchedule(
                    dl.gpu.Matmul(),
                    dl.gpu.GEMV(),
                    dl.gpu.Reduction(),
                    dl.gpu.GeneralReduction(),
                    dl.gpu.Fallback(),
                ),
            ]
        )(mod)

    ex = relax.build(mod, target="cuda")
    dev = tvm.device("cuda", 0)
    vm = relax.VirtualMachine(ex, dev)
    x = np.random.rand(*input_shape).astype("float32")
    host = [np.random.rand(*p.shape).astype(p.dtype) for _, p in params]
    data = tvm.nd.array(x, dev)
    gpu_params = [tvm.nd.array(p, dev) for p in host]
    gpu_out = vm["forward"](data, *gpu_params).numpy()
    w1, b1, w2 = host
    np.testing.assert_allclose(gpu_out, np.maximum(x @ w1.T + b1, 0) @ w2.T, rtol=1e-4,
                               atol=1e-4)
