"""Named pipelines: `relax.get_pipeline("zero")` (legalize + fusion, TVM's zero pipeline) and
the build's default (legalize only, no fusion: what `tvm.compile` does for CPU in TVM).
Both first fold an inference batch_norm with constant operands into the conv2d before it
(FoldConstantBatchnorm) and `matmul(x, permute_dims(w))` into one kernel (FuseTransposeMatmul),
so a linear layer does not copy its transposed weight on every call. The build's default
also folds reshapes of constants (FoldReshapeOfConstants: an ONNX conv's bias), makes
reshapes views of their input (ReshapeAsView) and runs a conv2d's bias, activation and
residual add in the conv's own loop nest (FuseConvEpilogue) and other
elementwise chains as one loop (FuseElementwise); the zero pipeline leaves these to its
general fusion."""

from __future__ import annotations

from typing import Any

from ..topi.schedule_mode import default_schedules
from .fold_constant_bn import FoldConstantBatchnorm
from .fold_reshape_constants import FoldReshapeOfConstants
from .fuse import AnnotateTIROpPattern, FuseOps, FuseTIR
from .fuse_conv_epilogue import FuseConvEpilogue
from .fuse_elementwise import FuseElementwise
from .fuse_transpose_matmul import FuseTransposeMatmul
from .legalize import LegalizeOps
from .pass_infra import Pass, PassContext, Sequential
from .reshape_view import ReshapeAsView
from .simple_passes import DeadCodeElimination, FoldConstant


def zero_pipeline() -> Pass:
    return _scheduled(Sequential([FoldConstantBatchnorm(), FuseTransposeMatmul(), LegalizeOps(),
                                  AnnotateTIROpPattern(), FoldConstant(), FuseOps(), FuseTIR(),
                                  DeadCodeElimination()], name="zero"))


def default_build_pipeline() -> Pass:
    return _scheduled(Sequential([FoldReshapeOfConstants(), FoldConstantBatchnorm(),
                                  FuseConvEpilogue(), FuseTransposeMatmul(), FuseElementwise(),
                                  ReshapeAsView(), LegalizeOps()], name="default_build"))


def _scheduled(pipeline: Sequential) -> Pass:
    """A build pipeline's kernels come out in their scheduled form (topi/schedule_mode.py);
    the same passes run one by one give TVM's plain form."""
    def run(mod: Any, ctx: PassContext) -> Any:
        with default_schedules():
            return pipeline(mod)
    return Pass(run, pipeline.name)


PIPELINES = {"zero": zero_pipeline, "default": default_build_pipeline,
             "default_build": default_build_pipeline}


def get_pipeline(name: str = "zero", **_: object) -> Pass:
    if name not in PIPELINES:
        raise ValueError(f"unknown pipeline {name!r}; known: {sorted(PIPELINES)}")
    return PIPELINES[name]()


# -- TVM's per-target stages (relax.pipeline.*_passes) --------------------------------------


def _kind(target: Any, what: str) -> str:
    """'cpu' or 'gpu': which of TVM's stage lists `target` takes; others are refused."""
    from ..target import Target

    t = target if isinstance(target, Target) else Target(target)
    if t.kind.name == "llvm":
        return "cpu"
    if "gpu" in t.keys:
        return "gpu"
    raise ValueError(f"Target {t} is not yet supported by {what}.")


def library_dispatch_passes(target: Any) -> list[Pass]:
    """TVM's first stage. Empty on every target: LegalizeOps lowers sorting, scans and
    sampling itself, where TVM first dispatches them to library kernels."""
    _kind(target, "library dispatch passes")
    return []


def legalize_passes(target: Any) -> list[Pass]:
    """Operators to TIR and fused; on a GPU target, every kernel then gets dlight's default
    schedule (run it inside `with target:`)."""
    from .dlight import ApplyDefaultSchedule
    from .dlight import gpu as gpu_rules

    passes = [LegalizeOps(), AnnotateTIROpPattern(), FoldConstant(), FuseOps(), FuseTIR()]
    if _kind(target, "legalize passes") == "gpu":
        passes.append(ApplyDefaultSchedule(gpu_rules.Fallback()))
    return passes


def dataflow_lower_passes(target: Any) -> list[Pass]:
    """Dataflow blocks lowered as TVM's pipeline does before memory planning."""
    from .module_passes import RemovePurityChecking
    from .reshape_rewrite import RewriteDataflowReshape
    from .call_tir_rewrite import CallTIRRewrite
    from .simple_passes import ToNonDataflow

    _kind(target, "dataflow lowering passes")
    return [RewriteDataflowReshape(), ToNonDataflow(), RemovePurityChecking(), CallTIRRewrite()]


def finalize_passes(target: Any) -> list[Pass]:
    """Memory planning and the runtime builtins, as TVM's last stage."""
    from .function_passes import AttachGlobalSymbol
    from .lower_runtime_builtin import LowerRuntimeBuiltin
    from .simple_passes import KillAfterLastUse
    from .static_plan_memory import StaticPlanBlockMemory

    _kind(target, "finalization passes")
    return [StaticPlanBlockMemory(), KillAfterLastUse(), LowerRuntimeBuiltin(),
            AttachGlobalSymbol()]


def get_default_pipeline(target: Any = None) -> Pass:
    """The passes `tvm.compile` runs for `target`: the default build pipeline, and on a GPU
    target dlight's default schedule of every kernel after it."""
    from ..target import Target
    from .dlight import ApplyDefaultSchedule
    from .dlight import gpu as gpu_rules

    if target is None or _kind(target, "default pipeline") == "cpu":
        return default_build_pipeline()
    t = target if isinstance(target, Target) else Target(target)
    base = default_build_pipeline()

    def run(mod: Any, ctx: PassContext) -> Any:
        with t:
            return ApplyDefaultSchedule(gpu_rules.Fallback())(base(mod))

    return Pass(run, "default_gpu")
