"""`tvm.relax` as users meet it: build, vm.build, VirtualMachine, transform, Executable."""

from __future__ import annotations

import sys
import types
from typing import Any

from .ir.expr import (  # noqa: F401 (relax.Var, relax.Call ... as TVM exports them)
    Call, Constant, DataflowVar, Function, ShapeExpr, Tuple, TupleGetItem, Var,
)
from .ir.struct_info import (  # noqa: F401
    ObjectStructInfo, PrimStructInfo, ShapeStructInfo, TensorStructInfo, TupleStructInfo,
)
from .ir.ops.base import const  # noqa: F401 (relax.const)
from .ir.struct_info import ShapeStructInfo as ShapeType  # noqa: F401 (TVM 0.27's names)
from .ir.struct_info import TensorStructInfo as TensorType  # noqa: F401
from .ir.struct_info import TupleStructInfo as TupleType  # noqa: F401
from .script.relax import (  # noqa: F401 (relax.call_tir(...) as BlockBuilder users write it)
    call_dps_packed, call_packed, call_pure_packed, call_tir,
)
from .transforms import simple_passes as _sp
from .transforms.bind_params import BindParams
from .transforms.block_builder import BlockBuilder
from .transforms.build import build_executable
from .transforms.expr_functor import (
    PyExprMutator, PyExprVisitor, function_pass, mutator, visitor,
)
from .transforms.fuse import AnnotateTIROpPattern, FuseOps, FuseTIR
from .transforms.fuse_by_pattern import FuseOpsByPattern, FusionPattern
from .meta_schedule import MetaScheduleApplyDatabase, MetaScheduleTuneTIR
from .transforms.fuse_transpose_matmul import FuseTransposeMatmul
from .transforms.legalize import LegalizeOps
from .transforms.pipeline import get_pipeline
from .transforms.run_codegen import MergeCompositeFunctions, RunCodegen
from .vm.vm import VirtualMachine

_SIMPLE_PASSES = ("DeadCodeElimination", "CanonicalizeBindings", "ToNonDataflow", "Normalize",
                  "LambdaLift", "FoldConstant", "CallTIRRewrite", "StaticPlanBlockMemory",
                  "KillAfterLastUse")

__all__ = ["build", "vm", "VirtualMachine", "transform", "BindParams", "BlockBuilder", "op",
           "const",
           "get_pipeline", "PyExprMutator", "PyExprVisitor", "expr_functor", "Var",
           "TensorStructInfo"]


def build(mod: Any, target: Any = "llvm", params: dict[str, Any] | None = None,
          relax_pipeline: Any = "default", exec_mode: str = "bytecode", **_: Any) -> Any:
    """Compile an IRModule to a VM Executable (also reachable as `relax.vm.build`)."""
    return build_executable(mod, target, params, relax_pipeline)


def _namespace(name: str, **members: Any) -> types.ModuleType:
    """A submodule-like namespace (`relax.vm`, `relax.transform`) that `import` also finds."""
    module = types.ModuleType(f"{__name__}.{name}")
    module.__dict__.update(members)
    sys.modules[module.__name__] = module
    return module


vm = _namespace("vm", build=build, VirtualMachine=VirtualMachine)
transform = _namespace(
    "transform", BindParams=BindParams, LegalizeOps=LegalizeOps, FuseOps=FuseOps, FuseTIR=FuseTIR,
    AnnotateTIROpPattern=AnnotateTIROpPattern, function_pass=function_pass,
    FuseOpsByPattern=FuseOpsByPattern, FusionPattern=FusionPattern,
    MergeCompositeFunctions=MergeCompositeFunctions, RunCodegen=RunCodegen,
    FuseTransposeMatmul=FuseTransposeMatmul,
    MetaScheduleTuneTIR=MetaScheduleTuneTIR, MetaScheduleApplyDatabase=MetaScheduleApplyDatabase,
    **{name: getattr(_sp, name) for name in _SIMPLE_PASSES})
expr_functor = _namespace("expr_functor", PyExprMutator=PyExprMutator,
                          PyExprVisitor=PyExprVisitor, mutator=mutator, visitor=visitor)


def _op_namespace() -> types.ModuleType:
    """`relax.op.add(x, y)`, `relax.op.nn.relu(x)`: the registered operator builders."""
    from .ir.op import list_ops, op_attr

    top: dict[str, Any] = {}
    nn: dict[str, Any] = {}
    for name in list_ops():
        make = op_attr(name, "make")
        if make is None:
            continue
        parts = name.split(".")
        (nn if parts[1] == "nn" else top)[parts[-1]] = make
    # NOTE: names of the MLC course's era, before TVM moved them: relax.op.relu is
    # relax.op.nn.relu; relax.op.dense(x, w) is x @ w.T
    top.setdefault("relu", nn["relu"])
    top["dense"] = lambda x, w: top["matmul"](x, top["permute_dims"](w))
    op = _namespace("op", **top)
    op.nn = _namespace("op.nn", **nn)  # type: ignore[attr-defined]
    return op


op = _op_namespace()


def _analysis() -> types.ModuleType:
    from .ir.well_formed import well_formed
    from .transforms.simple_passes import remove_unused

    return _namespace("analysis", well_formed=well_formed, remove_all_unused=remove_unused)


analysis = _analysis()


def _byoc_namespaces() -> tuple[types.ModuleType, types.ModuleType]:
    """`relax.dpl` (the pattern language) and `relax.backend` (patterns, their registry)."""
    from . import backend as _backend
    from .backend import blas, ccompiler, cupy  # built-in backends register themselves
    from .backend import cublas, example_npu, tensorrt
    from .ir import dpl as _dpl

    public = {k: v for k, v in vars(_dpl).items() if not k.startswith("_")}
    contrib = {"example_npu": example_npu, "tensorrt": tensorrt}  # TVM's backend.contrib.*
    registry = _backend.pattern_registry
    members = {"patterns": _backend.patterns, "pattern_registry": registry,
               "get_pattern": registry.get_pattern,
               "get_patterns_with_prefix": registry.get_patterns_with_prefix,
               "blas": blas, "ccompiler": ccompiler, "cupy": cupy,
               "contrib": _namespace("backend.contrib", **contrib),
               "cuda": _namespace("backend.cuda", cublas=cublas)}
    backend_ns = _namespace("backend", **members)
    submodules = {**{f"contrib.{k}": v for k, v in contrib.items()}, "cuda.cublas": cublas}
    for name, module in {**members, **submodules}.items():
        if isinstance(module, types.ModuleType):
            sys.modules[f"{__name__}.backend.{name}"] = module
    return _namespace("dpl", **public), backend_ns


dpl, backend = _byoc_namespaces()


def _frontend_namespace() -> types.ModuleType:
    """`relax.frontend` (the package `tvmlite.frontend`) and its subpackages, importable as
    `from tvmlite.relax.frontend import nn`."""
    from . import frontend as _frontend

    sys.modules[f"{__name__}.frontend"] = _frontend
    for name, sub in vars(_frontend).items():
        if isinstance(sub, types.ModuleType) and sub.__name__.startswith(_frontend.__name__ + "."):
            sys.modules[f"{__name__}.frontend.{name}"] = sub
    return _frontend


frontend = _frontend_namespace()
