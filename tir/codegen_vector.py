"""Vectorized loops for the LLVM backend: one LLVM vector operation per statement.

`for v in T.vectorized(n)` with a constant `n <= MAX_LANES` whose body is buffer stores of
plain arithmetic is emitted once, with `v` as the vector `<min, min+1, ...>`: an access whose
flattened index has coefficient 1 in `v` becomes a vector load/store, coefficient 0 a scalar
load broadcast to every lane. Each statement runs for all lanes before the next, as TVM's
vectorizer does. Anything else (other strides, branches, libm calls, bool buffers, nested
loops) keeps the scalar loop, tagged `llvm.loop.vectorize.enable` so LLVM's loop vectorizer
still takes it. Why explicit: LLVM fully unrolls short constant loops before its vectorizers
run, and the SLP vectorizer often fails to rebuild vectors from the unrolled scalars.
"""

from __future__ import annotations

from typing import Any

from llvmlite import ir

from . import dtype as dt
from .arith import affine
from .expr import (
    BinaryOp, BinOp, BufferLoad, Call, Cast, FloatImm, IntImm, Not, PrimExpr, Select, Var,
)
from .functor import Visitor, simplify, substitute
from .stmt import BufferStore, For, SeqStmt

MAX_LANES = 64
_VECTOR_CALLS = {"exp", "exp2", "log", "log2", "log10", "sqrt", "fabs", "floor", "ceil", "round",
                 "nearbyint", "trunc", "sin", "cos", "pow", "copysign", "fma"}


class _Check(Visitor):
    """Does the loop body fit the explicit vector path? (see the module docstring)"""

    def __init__(self, var: Var) -> None:
        self.var, self.ok = var, True

    def _index_ok(self, buf: Any, index: PrimExpr, store: bool) -> None:
        form = _affine_in(index, self.var)
        coef = None if form is None else form.coeffs.get(self.var, 0)
        if buf.dtype == "bool" or coef not in ((1,) if store else (0, 1)):
            self.ok = False

    def visit_BufferStore(self, s: BufferStore) -> None:
        self._index_ok(s.buffer, s.indices[0], store=True)
        self.visit(s.value)

    def visit_BufferLoad(self, e: BufferLoad) -> None:
        self._index_ok(e.buffer, e.indices[0], store=False)

    def visit_Call(self, e: Call) -> None:
        op = e.op[4:] if e.op.startswith("tir.") else e.op
        if op not in _VECTOR_CALLS:
            self.ok = False
        self.generic_visit(e)

    def generic_visit(self, node: Any) -> None:
        allowed = (SeqStmt, BufferStore, BinOp, Cast, Select, Not, IntImm, FloatImm, Var, tuple,
                   BufferLoad, Call, BinaryOp, str, int, float, bool, type(None))
        if not isinstance(node, allowed):
            self.ok = False
            return
        super().generic_visit(node)


# (id(index), id(var)) -> (index, var, its affine form): what the check of a loop found,
# reused when the loop is emitted (the same index objects, analysed once)
_FORMS: dict[tuple[int, int], tuple[PrimExpr, Var, Any]] = {}


def _affine_in(index: PrimExpr, var: Var) -> Any:
    hit = _FORMS.get((id(index), id(var)))
    if hit is not None and hit[0] is index and hit[1] is var:
        return hit[2]
    form = affine(index, {var})
    _FORMS[(id(index), id(var))] = (index, var, form)
    return form


def vectorizable(loop: For) -> int:
    """The lane count if `loop` takes the explicit vector path, else 0."""
    _FORMS.clear()  # NOTE: only the loop at hand is looked up again
    ext, lo = simplify(loop.extent), simplify(loop.min)
    if not isinstance(ext, IntImm) or not 1 < ext.value <= MAX_LANES:
        return 0
    if not isinstance(lo, IntImm) and not isinstance(lo, (Var, BinOp)):
        return 0
    check = _Check(loop.loop_var)
    check.visit(loop.body)
    return ext.value if check.ok else 0


class _Zeros(ir.Constant):
    """The all-zero i32 vector of a broadcast's shuffle mask, printed as `zeroinitializer`."""

    def __init__(self, lanes: int) -> None:
        i32 = ir.IntType(32)
        super().__init__(ir.VectorType(i32, lanes), [ir.Constant(i32, 0)] * lanes)

    def get_reference(self) -> str:
        return "zeroinitializer"


_ZEROS: dict[int, _Zeros] = {}


class _Undef(ir.Constant):
    """An undefined vector, printed as `undef` (llvmlite prints each lane's `undef`)."""

    def __init__(self, ty: ir.VectorType) -> None:
        super().__init__(ty, ir.Undefined)

    def get_reference(self) -> str:
        return "undef"


class VectorLoops:
    """Mixin for CodeGenLLVM: explicit vectors for `vectorized` loops."""

    builder: ir.IRBuilder
    vars: dict[Var, ir.Value]
    lanes: int = 0
    vec_var: Var | None = None

    def _emit_vector_for(self, loop: For, lanes: int) -> None:
        dtype = loop.loop_var.dtype
        start = self.cast(self.visit(loop.min), loop.min.dtype, dtype)  # type: ignore
        ty = start.type
        ramp = self._broadcast(start, lanes)
        steps = ir.Constant(ir.VectorType(ty, lanes), [ir.Constant(ty, k) for k in range(lanes)])
        self.lanes, self.vec_var = lanes, loop.loop_var
        self._vec_start = loop.min
        self.vars[loop.loop_var] = self.numbered(  # type: ignore[attr-defined]
            ("ramp", id(ramp), lanes), (ramp,), lambda: self.builder.add(ramp, steps))
        try:
            self.visit(loop.body)  # type: ignore[attr-defined]
        finally:
            self.lanes, self.vec_var = 0, None

    def _broadcast(self, v: ir.Value, lanes: int) -> ir.Value:
        return self.numbered(("broadcast", id(v), lanes), (v,),  # type: ignore[attr-defined]
                             lambda: self._splat(v, lanes))

    def _splat(self, v: ir.Value, lanes: int) -> ir.Value:
        vec_ty = ir.VectorType(v.type, lanes)
        # NOTE: both constants spelled as LLVM folds them (undef, zeroinitializer): printed lane
        # by lane by llvmlite, they were a good part of a vector kernel's IR text
        undef = _Undef(vec_ty)
        one = self.builder.insert_element(undef, v, ir.Constant(ir.IntType(32), 0))
        mask = _ZEROS.get(lanes) or _ZEROS.setdefault(lanes, _Zeros(lanes))
        return self.builder.shuffle_vector(one, undef, mask)

    def match_lanes(self, *values: ir.Value) -> list[ir.Value]:
        """Broadcasts scalars when any operand is a vector (no-op outside vector loops)."""
        if not self.lanes or not any(isinstance(v.type, ir.VectorType) for v in values):
            return list(values)
        return [v if isinstance(v.type, ir.VectorType) else self._broadcast(v, self.lanes)
                for v in values]

    def _vector_access(self, buf: Any, index: PrimExpr) -> tuple[ir.Value, bool]:
        """(address of lane 0, is-vector): the index at `vec_var = min`, and its stride 1/0."""
        assert self.vec_var is not None
        form = _affine_in(index, self.vec_var)
        contiguous = form is not None and form.coeffs.get(self.vec_var, 0) == 1
        lane0 = substitute(index, {self.vec_var: self._vec_start})
        saved, self.lanes = self.lanes, 0
        try:
            ptr = self._address(buf, simplify(lane0))  # type: ignore[attr-defined]
        finally:
            self.lanes = saved
        return ptr, contiguous

    def vector_load(self, e: BufferLoad) -> ir.Value:
        from .codegen_llvm import memory_type

        ptr, contiguous = self._vector_access(e.buffer, e.indices[0])
        elem = memory_type(e.buffer.dtype)
        ty = ir.VectorType(elem, self.lanes) if contiguous else elem
        return self.builder.load(ptr, typ=ty, align=dt.itemsize(e.buffer.dtype))

    def vector_store(self, s: BufferStore, value: ir.Value) -> None:
        ptr, _ = self._vector_access(s.buffer, s.indices[0])
        value = self.match_lanes(value, self._broadcast_marker())[0]
        self.builder.store(value, ptr, align=dt.itemsize(s.buffer.dtype))

    def _broadcast_marker(self) -> ir.Value:
        return ir.Constant(ir.VectorType(ir.IntType(8), self.lanes), None)
