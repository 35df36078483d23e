"""AnnotateTIROpPattern, with FuseOps (fuse_ops.py) and FuseTIR (fuse_tir.py) beside it.

AnnotateTIROpPattern sets each prim_func's `op_pattern` (TVM's OpPatternKind: 0 elementwise,
1 broadcast, 2 injective, 3 reduction, 4 out-elementwise-fusable such as matmul/conv, 8
opaque; see op_pattern.py). FuseTIR turns every call of a `Primitive` function into `call_tir`
of one prim_func holding all members' blocks, intermediates as root-block buffers.
"""

from __future__ import annotations


from ..ir.module import IRModule
from ..tir.function import PrimFunc
from .pass_infra import Pass, PassContext
from .fuse_ops import FuseOps
from .fuse_tir import FuseTIR
from .op_pattern import func_pattern

# -- AnnotateTIROpPattern -------------------------------------------------------------------------


def AnnotateTIROpPattern() -> Pass:  # noqa: N802
    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        return mod.map_functions(lambda gv, f: f.with_attr("op_pattern", func_pattern(f))
                                 if isinstance(f, PrimFunc) else f)
    return Pass(run, "AnnotateTIROpPattern")


__all__ = ["AnnotateTIROpPattern", "FuseOps", "FuseTIR"]
