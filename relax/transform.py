"""`tvm.relax.transform`: the passes over IRModules, as TVM names them."""

from ..meta_schedule import MetaScheduleApplyDatabase, MetaScheduleTuneTIR
from ..transforms.bind_params import BindParams
from ..transforms.expr_functor import function_pass
from ..transforms.fuse import AnnotateTIROpPattern, FuseOps, FuseTIR
from ..transforms.fuse_by_pattern import FuseOpsByPattern, FusionPattern
from ..transforms.fuse_transpose_matmul import FuseTransposeMatmul
from ..transforms.legalize import LegalizeOps
from ..transforms.run_codegen import MergeCompositeFunctions, RunCodegen
from ..transforms.simple_passes import (
    CallTIRRewrite, CanonicalizeBindings, DeadCodeElimination, FoldConstant, KillAfterLastUse,
    LambdaLift, Normalize, StaticPlanBlockMemory, ToNonDataflow,
)

__all__ = ["AnnotateTIROpPattern", "BindParams", "CallTIRRewrite", "CanonicalizeBindings",
           "DeadCodeElimination", "FoldConstant", "FuseOps", "FuseOpsByPattern", "FuseTIR",
           "FuseTransposeMatmul", "FusionPattern", "KillAfterLastUse", "LambdaLift",
           "LegalizeOps", "MergeCompositeFunctions", "MetaScheduleApplyDatabase",
           "MetaScheduleTuneTIR", "Normalize", "RunCodegen", "StaticPlanBlockMemory",
           "ToNonDataflow", "function_pass"]
