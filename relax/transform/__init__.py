"""`tvm.relax.transform`: the passes over IRModules, as TVM names them."""

from ...meta_schedule import MetaScheduleApplyDatabase, MetaScheduleTuneTIR
from ...transforms.allocate_workspace import AllocateWorkspace
from ...transforms.bind_params import BindParams
from ...transforms.bind_symbolic import BindSymbolicVars
from ...transforms.compute_prim_value import ComputePrimValue
from ...transforms.convert_layout import ConvertLayout
from ...transforms.expr_functor import (
    DataflowBlockPass, FunctionPass, dataflowblock_pass, function_pass,
)
from ...transforms.dataflow_passes import ConvertToDataflow, TopologicalSort
from ...transforms.fast_math import FastMathTransform
from ...transforms.fold_constant import FoldConstant
from ...transforms.function_passes import (
    AttachGlobalSymbol, ExpandTupleArguments, InlinePrivateFunctions, NormalizeGlobalVar,
    RemoveUnusedOutputs, RemoveUnusedParameters, UpdateParamStructInfo, UpdateParamType,
)
from ...transforms.fuse import AnnotateTIROpPattern, FuseOps, FuseTIR
from ...transforms.fuse_by_pattern import FuseOpsByPattern, FusionPattern
from ...transforms.fuse_transpose_matmul import FuseTransposeMatmul
from ...transforms.gradient import Gradient
from ...transforms.graph_rewrites import (
    DecomposeOpsForInference, DecomposeOpsForTraining, EliminateCommonSubexpr,
    FoldBatchnormToConv2D,
)
from ...transforms.inplace import DataflowUseInplaceCalls
from ...transforms.lazy_params import LazyGetInput, LazySetOutput
from ...transforms.lazy_transform_params import LazyTransformParams
from ...transforms.legalize import LegalizeOps
from ...transforms.fuse_by_pattern import _CheckContext as PatternCheckContext
from ...transforms.matmul_order import AdjustMatmulOrder
from ...transforms.mixed_precision import ToMixedPrecision
from ...transforms.module_passes import (
    AlterOpImpl, AttachExternModules, BundleModelParams, MetaScheduleTuneIRMod,
    RemovePurityChecking,
)
from ...transforms.matmul_rewrites import (
    CombineParallelMatmul, ExpandMatmulOfSum, ReorderPermuteDimsAfterConcat,
    ReorderTakeAfterMatmul,
)
from ...transforms.layout_free_buffers import AttachAttrLayoutFreeBuffers
from ...transforms.lift_params import LiftTransformParams
from ...transforms.optimize_layout_transform import OptimizeLayoutTransform
from ...transforms.lower_runtime_builtin import LowerRuntimeBuiltin
from ...transforms.reshape_rewrite import RemoveRedundantReshape, RewriteDataflowReshape
from ...transforms.rewrite_cuda_graph import RewriteCUDAGraph
from ...transforms.run_codegen import MergeCompositeFunctions, RunCodegen
from ...transforms.call_tir_rewrite import CallTIRRewrite
from ...transforms.split_layout_rewrite import SplitLayoutRewritePreproc
from ...transforms.simple_passes import (
    CanonicalizeBindings, DeadCodeElimination, KillAfterLastUse,
    LambdaLift, Normalize, ToNonDataflow,
)
from ...transforms.static_plan_memory import StaticPlanBlockMemory

__all__ = ["AnnotateTIROpPattern", "AttachAttrLayoutFreeBuffers", "BindParams", "Gradient",
           "BindSymbolicVars", "CallTIRRewrite",
           "CanonicalizeBindings", "ConvertLayout", "DeadCodeElimination",
           "DecomposeOpsForInference", "DecomposeOpsForTraining", "EliminateCommonSubexpr",
           "FoldBatchnormToConv2D", "FoldConstant", "LiftTransformParams", "FuseOps",
           "FuseOpsByPattern", "FuseTIR", "SplitLayoutRewritePreproc",
           "FuseTransposeMatmul", "FusionPattern", "KillAfterLastUse", "LambdaLift",
           "LegalizeOps", "MergeCompositeFunctions",
           "RewriteCUDAGraph", "MetaScheduleApplyDatabase",
           "MetaScheduleTuneTIR", "Normalize", "RunCodegen", "StaticPlanBlockMemory",
           "ToNonDataflow", "function_pass", "AttachGlobalSymbol", "ExpandTupleArguments",
           "InlinePrivateFunctions", "NormalizeGlobalVar", "RemoveUnusedOutputs",
           "RemoveUnusedParameters", "UpdateParamStructInfo", "UpdateParamType",
           "ConvertToDataflow", "TopologicalSort", "AdjustMatmulOrder",
           "CombineParallelMatmul", "ExpandMatmulOfSum", "ReorderPermuteDimsAfterConcat",
           "ReorderTakeAfterMatmul", "DataflowBlockPass", "FunctionPass",
           "dataflowblock_pass", "PatternCheckContext", "BundleModelParams",
           "MetaScheduleTuneIRMod", "RemovePurityChecking", "RewriteDataflowReshape",
           "RemoveRedundantReshape", "LazyGetInput", "LazySetOutput",
           "LazyTransformParams", "ToMixedPrecision",
           "AttachExternModules", "FastMathTransform", "AlterOpImpl",
           "DataflowUseInplaceCalls", "LowerRuntimeBuiltin", "OptimizeLayoutTransform",
           "ComputePrimValue", "AllocateWorkspace"]
