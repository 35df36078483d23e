"""Computes of the bitwise operators (`topi.bitwise_and`, ..., `topi.left_shift`)."""

from __future__ import annotations

from typing import Callable

from ..tir import expr as tx
from .transform import binary, unary


def _integer(name: str, fn: Callable[..., tx.PrimExpr]) -> Callable[..., tx.PrimExpr]:
    def checked(*xs: tx.PrimExpr) -> tx.PrimExpr:
        if xs[0].dtype.startswith(("float", "bfloat")):
            raise ValueError(f"{name} needs integer or bool tensors, got {xs[0].dtype}")
        return fn(*xs)
    return checked


def _not(x: tx.PrimExpr) -> tx.PrimExpr:
    if x.dtype == "bool":  # NOTE: ~ on a 1-bit value would flip only that bit: same thing
        return tx.binop(tx.BinaryOp.EQ, x, tx.const(False, "bool"))
    return ~x


bitwise_and = binary("bitwise_and", _integer("bitwise_and", lambda a, b: a & b))
bitwise_or = binary("bitwise_or", _integer("bitwise_or", lambda a, b: a | b))
bitwise_xor = binary("bitwise_xor", _integer("bitwise_xor", lambda a, b: (
    tx.binop(tx.BinaryOp.NE, a, b) if a.dtype == "bool" else a ^ b)))
left_shift = binary("left_shift", _integer("left_shift", lambda a, b: a << b))
right_shift = binary("right_shift", _integer("right_shift", lambda a, b: a >> b))
bitwise_not = unary("bitwise_not", _integer("bitwise_not", _not))

__all__ = ["bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift",
           "bitwise_not"]
