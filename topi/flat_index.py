"""Kernels written the way TVM's IRBuilder externs are (take_backward, scatter_elements,
scatter_nd): flat indices into multi-dimensional buffers, and TVM's operator arithmetic,
which folds `* 1`, `+ 0`, `// 1` and constants (TryConstFold), so the kernels print alike."""

from __future__ import annotations

from functools import reduce
from typing import Any

from ..tir import expr as tx
from ..tir.stmt import AttrStmt, Block, BlockRealize, Buffer, Stmt, seq

B = tx.BinaryOp


def const_int(e: Any) -> int | None:
    return e.value if isinstance(e, tx.IntImm) else None


def i64(e: Any) -> tx.PrimExpr:
    """`e` as an int64 value; a constant of another width stays a constant."""
    if isinstance(e, int) or (isinstance(e, tx.IntImm) and e.dtype != "bool"):
        return tx.const(int(e if isinstance(e, int) else e.value), "int64")
    return e if e.dtype == "int64" else tx.Cast("int64", e)


def mul(a: Any, b: Any) -> tx.PrimExpr:
    a, b = i64(a), i64(b)
    ca, cb = const_int(a), const_int(b)
    if ca is not None and cb is not None:
        return tx.const(ca * cb, "int64")
    if ca == 1 or cb == 0:
        return b
    if cb == 1 or ca == 0:
        return a
    return tx.binop(B.MUL, a, b)


def add(a: Any, b: Any) -> tx.PrimExpr:
    a, b = i64(a), i64(b)
    ca, cb = const_int(a), const_int(b)
    if ca is not None and cb is not None:
        return tx.const(ca + cb, "int64")
    if ca == 0:
        return b
    return a if cb == 0 else tx.binop(B.ADD, a, b)


def div_mod(op: B, a: Any, b: Any) -> tx.PrimExpr:
    a, b = i64(a), i64(b)
    ca, cb = const_int(a), const_int(b)
    if ca is not None and cb is not None:
        return tx.const(ca // cb if op is B.FLOORDIV else ca % cb, "int64")
    if cb == 1:
        return a if op is B.FLOORDIV else tx.const(0, "int64")
    return tx.binop(op, a, b)


def flat_at(buf: Buffer, flat: tx.PrimExpr) -> tuple[tx.PrimExpr, ...]:
    """The multi-dimensional index of a flat one (TVM's buffer_proxy): `f % d` for the last
    axis, `f // d2 % d1` for the middle ones, no modulo for the first."""
    out, rest = [], flat
    for k, d in enumerate(reversed(buf.shape)):
        last = k == len(buf.shape) - 1
        out.append(rest if last else div_mod(B.FLOORMOD, rest, d))
        rest = div_mod(B.FLOORDIV, rest, d)
    return tuple(reversed(out))


def product(dims: Any) -> tx.PrimExpr:
    return reduce(mul, dims, tx.const(1, "int64"))


def seq_block(name: str, stmts: list[Stmt]) -> Stmt:
    """TVM's extern block: opaque, no regions, its statements in a `pragma_scope` "seq"."""
    body = AttrStmt(tx.const(0, "int32"), "pragma_scope", tx.StringImm("seq"), seq(stmts))
    return BlockRealize((), tx.IntImm("bool", 1), Block(name, (), body))
