"""The loop IR (TIR): expressions, statements, buffers, PrimFunc; lowering and codegen."""

from .expr import (
    BinaryOp, BinOp, BufferLoad, Call, Cast, FloatImm, IntImm, Let, Not, PrimExpr, Select,
    Span, StringImm, Var, const,
)
from .function import PrimFunc
from .stmt import (
    Allocate, AssertStmt, Block, BlockRealize, Buffer, BufferRegion, BufferStore, DeclBuffer,
    Evaluate, For, ForKind, IfThenElse, IterType, IterVar, LetStmt, MatchBufferRegion, Range,
    SeqStmt, Stmt, make_buffer,
)
from .schedule import BlockRV, LoopRV, Schedule, ScheduleError
