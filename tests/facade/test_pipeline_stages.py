"""`relax.pipeline`'s per-target stages and `tvm.target.Target` of kinds tvmlite does not
build for: they can be made and inspected; building for them is refused."""

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax
from tvmlite.script import ir as I
from tvmlite.script import relax as R
from tvmlite.tir.gpu_default_schedule import has_thread_binding


@I.ir_module
class AddModule:
    @R.function
    def main(x: R.Tensor((3, 4), "float32"), y: R.Tensor((3, 4), "float32")):
        with R.dataflow():
            z = R.add(x, y)
            R.output(z)
        return z


STAGES = [relax.pipeline.library_dispatch_passes, relax.pipeline.legalize_passes,
          relax.pipeline.dataflow_lower_passes, relax.pipeline.finalize_passes]


@pytest.mark.parametrize("kind, keys", [("llvm", ("cpu",)), ("cuda", ("cuda", "gpu")),
                                        ("vulkan", ("vulkan", "gpu")), ("c", ("cpu",)),
                                        ("hexagon", ("hexagon", "cpu"))])
def test_target_kinds_and_keys(kind, keys):
    t = tvm.target.Target(kind)
    assert t.kind.name == kind and tuple(t.keys) == keys


def test_building_for_a_kind_without_a_code_generator_is_refused():
    with pytest.raises(ValueError, match="unsupported target kind 'vulkan'"):
        tvm.compile(AddModule, target=tvm.target.Target("vulkan"))


@pytest.mark.parametrize("kind", ["c", "hexagon"])
@pytest.mark.parametrize("stage", [*STAGES, relax.pipeline.get_default_pipeline])
def test_targets_without_a_pipeline_are_refused(kind, stage):
    with pytest.raises(ValueError, match="not yet supported"):
        stage(tvm.target.Target(kind))


def test_cpu_stages_in_order_compute_the_same():
    target = tvm.target.Target("llvm")
    passes = [p for stage in STAGES[:2] for p in stage(target)]
    lowered = tvm.transform.Sequential(passes)(AddModule)
    assert not any(isinstance(f, relax.Function) and "R.add" in f.script()
                   for _, f in lowered.functions.items())
    x, y = np.random.rand(3, 4).astype("float32"), np.random.rand(3, 4).astype("float32")
    for mod in (AddModule, relax.pipeline.get_default_pipeline(target)(AddModule), lowered):
        vm = relax.VirtualMachine(tvm.compile(mod, target), tvm.cpu())
        np.testing.assert_allclose(vm["main"](tvm.nd.array(x), tvm.nd.array(y)).numpy(), x + y)


@pytest.mark.parametrize("kind", ["cuda", "vulkan"])
def test_gpu_pipelines_bind_every_kernel_to_threads(kind):
    target = tvm.target.Target(kind)
    for pipeline in (relax.pipeline.get_default_pipeline(target),):
        mod = pipeline(AddModule)
        kernels = [f for _, f in mod.functions.items() if isinstance(f, tvm.tir.PrimFunc)]
        assert kernels and all(has_thread_binding(f) for f in kernels)
    with target:
        mod = tvm.transform.Sequential(relax.pipeline.legalize_passes(target))(AddModule)
    kernels = [f for _, f in mod.functions.items() if isinstance(f, tvm.tir.PrimFunc)]
    assert kernels and all(has_thread_binding(f) for f in kernels)
