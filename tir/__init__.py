"""The loop IR (TIR): expressions, statements, buffers, PrimFunc; lowering and codegen."""

from .expr import (
    BinaryOp, BinOp, BufferLoad, Call, Cast, FloatImm, IntImm, Let, Not, PrimExpr, Select,
    Span, StringImm, Var, const,
)
from .expr import all, any  # noqa: A004 (TVM's names: tir.all / tir.any)
from .expr_nodes import (  # TVM's per-operator node classes, as views of BinOp
    EQ, GE, GT, LE, LT, NE, Add, And, Broadcast, CommReducer, Div, FloorDiv, FloorMod, Max, Min,
    Mod, Mul, Or, Ramp, Reduce, Shuffle, Sub,
)
from .function import PrimFunc
from .index_map import IndexMap
from .stmt import (
    Allocate, AssertStmt, Block, BlockRealize, Buffer, BufferRegion, BufferStore, DeclBuffer,
    Evaluate, For, ForKind, IfThenElse, IterType, IterVar, LetStmt, MatchBufferRegion, Range,
    SeqStmt, Stmt, While, make_buffer,
)
from .stmt import AttrStmt
from .schedule import BlockRV, LoopRV, Schedule, ScheduleError
from .schedule.tensorize import TensorIntrin


def build(mod: object, target: object = "llvm", **_: object) -> object:
    """`tvm.tir.build(mod, target)` (`tvm.tirx.build` in TVM 0.27): prim_funcs to a kernel
    module, the same as `tvm.build`."""
    from ..transforms.build import build_kernels  # NOTE: the build driver sits above tir/

    return build_kernels(mod, target)
