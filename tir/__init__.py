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
    AllocBuffer, Allocate, AssertStmt, Bind, Block, BlockRealize, Buffer, BufferRegion,
    BufferStore, DeclBuffer, Evaluate, For, ForKind, IfThenElse, IterType, IterVar, LetStmt,
    MatchBufferRegion, Range, SeqStmt, Stmt, While, make_buffer,
)
from .stmt import decl_buffer  # noqa: F401 (TVM's buffer constructor)
from .expr_nodes import vscale  # noqa: F401 (TVM's tir.vscale())
from .stmt import AttrStmt
from .schedule import BlockRV, LoopRV, Schedule, ScheduleError
from .schedule.tensorize import TensorIntrin


def build(mod: object, target: object = "llvm", **_: object) -> object:
    """`tvm.tir.build(mod, target)` (`tvm.tirx.build` in TVM 0.27): prim_funcs to a kernel
    module, the same as `tvm.build`."""
    from ..transforms.build import build_kernels  # NOTE: the build driver sits above tir/

    return build_kernels(mod, target)


def is_buffer_var(value: object) -> bool:
    """TVM 0.27's test for a buffer variable (there a Var of BufferType): here a Buffer, or a
    handle Var (what a PrimFunc's buffer parameters are)."""
    return isinstance(value, Buffer) or (isinstance(value, Var) and value.dtype == "handle")


def __getattr__(name: str) -> object:
    """TVM's reducers, limits and index arithmetic as `tir` names (`tvm.tir.max(a, b)`,
    `tvm.tir.sum(x, axis=k)`, `tvm.tir.max_value("float32")`, `tvm.tir.floordiv(a, b)`,
    `tvm.tir.if_then_else(c, a, b)`): te's own objects, looked up late (te is built on tir)."""
    if name in ("max", "min", "sum", "comm_reducer", "max_value", "min_value", "if_then_else",
                "floordiv", "floormod", "truncdiv", "truncmod", "indexdiv", "indexmod", "div"):
        from .. import te

        return getattr(te, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
