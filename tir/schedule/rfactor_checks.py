"""The legality checks `rfactor` makes before it rewrites anything, as TVM makes them: the
reduction's init is the identity of its combiner and writes where the update writes, the
written indices use no reduce iter var (a dominant reduction), the bindings are quasi-affine,
the reduction loops are serial, and the scope is a stage pipeline (each consumer of the
reduced buffer reads only what the reduction writes). Each names the block or loop at fault.
"""

from __future__ import annotations

from ..arith import int_value
from ..expr import BinaryOp, BinOp, Cast, FloatImm, IntImm, PrimExpr, Var
from ..function import free_vars
from ..stmt import BlockRealize, BufferStore, For, ForKind, IterType
from . import analysis, tree
from .state import ScheduleError

_AFFINE_OPS = (BinaryOp.FLOORDIV, BinaryOp.FLOORMOD, BinaryOp.DIV, BinaryOp.MOD)


def _identity(op: BinaryOp, dtype: str) -> float:
    import numpy as np

    if op is BinaryOp.ADD:
        return 0
    if op is BinaryOp.MUL:
        return 1
    info = np.finfo(dtype) if dtype.startswith(("float", "bfloat")) else np.iinfo(dtype)
    return float(info.max if op is BinaryOp.MIN else info.min)


def check_init(name: str, init: BufferStore, update: BufferStore, op: BinaryOp) -> None:
    """The init stores the combiner's identity at the very indices the update writes."""
    from ...ir.structural import structural_equal  # a lazy import: ir sits above tir

    if init.buffer is not update.buffer or len(init.indices) != len(update.indices) or not all(
            structural_equal(a, b) for a, b in zip(init.indices, update.indices)):
        raise ScheduleError(f"rfactor: block {name!r}: the init and the update do not write "
                            f"the same element of {update.buffer.name!r}")
    value = init.value.value if isinstance(init.value, Cast) else init.value
    if not isinstance(value, (IntImm, FloatImm)) or \
            float(value.value) != float(_identity(op, init.buffer.dtype)):
        raise ScheduleError(f"rfactor: block {name!r}: its init value is not the identity of "
                            f"its {op.value!r} reduction, so no known reducer matches it")


def check_dominant(br: BlockRealize, store: BufferStore) -> None:
    """The reduced element does not move with a reduce iter var."""
    reduce_vars = {iv.var for iv in br.block.iter_vars if iv.iter_type is IterType.REDUCE}
    if any(v in reduce_vars for i in store.indices for v in free_vars(i)):
        raise ScheduleError(f"rfactor: block {br.block.name!r} is not a reduction block: the "
                            f"indices it writes {store.buffer.name!r} at use a reduce iter var")


def _quasi_affine(e: PrimExpr, loop_vars: set[Var]) -> bool:
    if not any(v in loop_vars for v in free_vars(e)) or isinstance(e, Var):
        return True
    if isinstance(e, Cast):
        return _quasi_affine(e.value, loop_vars)
    if not isinstance(e, BinOp):
        return False
    if e.op in (BinaryOp.ADD, BinaryOp.SUB):
        return _quasi_affine(e.a, loop_vars) and _quasi_affine(e.b, loop_vars)
    if e.op is BinaryOp.MUL:
        return any(int_value(k) is not None and _quasi_affine(x, loop_vars)
                   for x, k in ((e.a, e.b), (e.b, e.a)))
    return e.op in _AFFINE_OPS and int_value(e.b) is not None and _quasi_affine(e.a, loop_vars)


def check_bindings(br: BlockRealize, loops: list[For]) -> None:
    """Each iter var is bound to a quasi-affine form of the loops (TVM's affine binding)."""
    loop_vars = {lp.loop_var for lp in loops}
    for iv, value in zip(br.block.iter_vars, br.iter_values):
        if not _quasi_affine(value, loop_vars):
            raise ScheduleError(f"rfactor: block {br.block.name!r} binds iter var "
                                f"{iv.var.name!r} to a non-affine form of its loops")


def check_serial(name: str, reduce_loops: list[For]) -> None:
    for lp in reduce_loops:
        if lp.kind is not ForKind.SERIAL:
            raise ScheduleError(f"rfactor: loop {lp.loop_var.name!r} of block {name!r} binds a "
                                f"reduce iter var but is {lp.kind.name.lower()}, not serial")


def check_stage_pipeline(ctx: object, path: tree.Path, store: BufferStore) -> None:
    """Every other block reading the reduced buffer reads inside the region it writes."""
    buf = store.buffer
    root = ctx.func.body  # type: ignore[attr-defined]
    written = analysis.region_under([path], path[0], buf, reads=False)
    others = [p for p in analysis.readers(root, buf) if p[-1] is not path[-1]]
    for other in others:
        read = analysis.region_under([other], other[0], buf, reads=True)
        for (wlo, wext), (rlo, rext) in zip(written, read):
            bounds = [int_value(x) for x in (wlo, wext, rlo, rext)]
            if None in bounds:
                continue
            w0, wn, r0, rn = bounds
            if r0 < w0 or r0 + rn > w0 + wn:
                raise ScheduleError(
                    f"rfactor: the scope is not a stage pipeline: block "
                    f"{other[-1].block.name!r} reads {buf.name!r} outside what block "  # type: ignore[union-attr]
                    f"{path[-1].block.name!r} writes")  # type: ignore[union-attr]
