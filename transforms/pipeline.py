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
