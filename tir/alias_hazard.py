"""When a kernel's buffer parameters should not be `noalias`: the 4K-aliasing hazard.

With `noalias`, LLVM keeps an in-place accumulation (`C[i, j] += A[i, k] * B[k, j]` written
straight into the output, no cache_write) in registers across the reduction, so each row of C
is loaded once at the start of its iteration and stored once at the end. When consecutive
iterations step rows that are a multiple of 4 KiB apart, the CPU matches each row's load with
the previous row's pending store by their low 12 address bits (4K aliasing) and holds the load
back until that store's data is ready: the rows no longer overlap, and the loop runs at the
latency of its FMA chains. Without `noalias`, LLVM stores after every step instead and the
rows overlap again. Measured on issue 15's user schedule (float32 matmul, 32/32/8 tiles, one
thread): N = 1024 ran 48 GFLOP/s with noalias and 93 without (TVM's host build: 100), while
N = 1056 (rows 4224 bytes apart) ran 244 with and 112 without. So a kernel gives up `noalias`
exactly when such a loop exists, and keeps it everywhere else.
"""

from __future__ import annotations

from .arith import affine
from .dtype import itemsize
from .expr import BufferLoad, Var
from .function import PrimFunc
from .functor import Visitor, any_node
from .stmt import BufferStore, For, ForKind

PAGE_ALIAS_BYTES = 4096  # the address bits (11:0) load/store disambiguation compares first
_NOT_STEPPING = (ForKind.VECTORIZED, ForKind.UNROLLED)  # lanes of one access, not iterations


def has_4k_row_hazard(func: PrimFunc) -> bool:
    """Whether a lowered (flattened) kernel accumulates in place into a buffer parameter in a
    loop whose consecutive iterations are a nonzero multiple of 4 KiB apart in that buffer."""
    params = {buf.data for _, buf in func.buffer_map if buf.data is not None}
    finder = _HazardFinder(params)
    finder.visit(func.body)
    return finder.found


class _HazardFinder(Visitor):
    def __init__(self, params: set[Var]) -> None:
        self.params, self.loops, self.found = params, [], False

    def visit_For(self, s: For) -> None:
        self.loops.append(s)
        self.visit(s.body)
        self.loops.pop()

    def visit_BufferStore(self, s: BufferStore) -> None:
        if self.found or s.buffer.data not in self.params or len(s.indices) != 1:
            return
        if not _reads(s.value, s.buffer.data):
            return
        step = _row_step(s.indices[0], self.loops)
        self.found = step is not None and step * itemsize(s.buffer.dtype) % PAGE_ALIAS_BYTES == 0


def _row_step(index: object, loops: list[For]) -> int | None:
    """Elements between consecutive iterations of the innermost stepping loop that moves
    `index` (reduction loops leave it in place), or None when there is none or it is not
    affine."""
    for loop in reversed(loops):
        if loop.kind in _NOT_STEPPING:
            continue
        form = affine(index, {loop.loop_var})  # type: ignore[arg-type]
        if form is None:
            return None
        coeff = form.coeffs.get(loop.loop_var, 0)
        if coeff:
            return abs(coeff)
    return None


def _reads(value: object, data: Var) -> bool:
    return any_node(value, lambda e: isinstance(e, BufferLoad) and e.buffer.data is data)
