"""bfloat16 on the LLVM backend: stored as its 16 bits, computed in float32 (as TVM does).

TVM's BF16 legalization keeps bfloat16 buffers as 16-bit storage and does the arithmetic in
float32. This pass rewrites a lowered PrimFunc the same way before LLVM codegen: a bfloat16
buffer becomes a uint16 one, a load widens its bits into a float32 (`bits << 16`), a store
rounds the float32 to nearest-even bfloat16 and keeps the upper 16 bits, and every bfloat16
expression (constants, casts, calls) is computed in float32. A cast to bfloat16 rounds too,
so values mean what they would in bfloat16. Functions without bfloat16 are returned as is.
"""

from __future__ import annotations

import dataclasses
import struct
from typing import Any

from .expr import BufferLoad, Call, Cast, FloatImm, IntImm, PrimExpr, Var
from .function import PrimFunc
from .functor import Mutator, any_node
from .stmt import Buffer, BufferStore

BF16, F32, U16, U32 = "bfloat16", "float32", "uint16", "uint32"


def _bits(e: PrimExpr, dtype: str) -> PrimExpr:
    return Call(dtype, "tir.reinterpret", (e,))


def _u32(value: int) -> IntImm:
    return IntImm(U32, value)


def round_to_bf16_bits(value: PrimExpr) -> PrimExpr:
    """The upper 16 bits of float32 `value` rounded to nearest, ties to even (as uint32)."""
    bits = _bits(value, U32)
    lsb = Call(U32, "tir.bitwise_and", (Call(U32, "tir.shift_right", (bits, _u32(16))),
                                       _u32(1)))
    rounded = bits + _u32(0x7FFF) + lsb
    return Call(U32, "tir.shift_right", (rounded, _u32(16)))


def _from_bits(bits16: PrimExpr) -> PrimExpr:
    """The float32 whose upper half is the 16 bits `bits16` (any unsigned int dtype)."""
    wide = bits16 if bits16.dtype == U32 else Cast(U32, bits16)
    return _bits(Call(U32, "tir.shift_left", (wide, _u32(16))), F32)


def _round_value(value: float) -> float:
    bits = struct.unpack("<I", struct.pack("<f", value))[0]
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return struct.unpack("<f", struct.pack("<I", bits & 0xFFFFFFFF))[0]


def _is_bf16(node: Any) -> bool:
    return getattr(node, "dtype", None) == BF16


class _Legalize(Mutator):
    def __init__(self) -> None:
        self.buffers: dict[Buffer, Buffer] = {}
        self.vars: dict[Var, Var] = {}

    def visit_buffer(self, buf: Buffer) -> Buffer:  # type: ignore[override]
        if buf.dtype != BF16:
            return buf
        if buf not in self.buffers:
            self.buffers[buf] = dataclasses.replace(buf, dtype=U16)
        return self.buffers[buf]

    def visit_Var(self, v: Var) -> PrimExpr:
        if v.dtype != BF16:
            return v
        return self.vars.setdefault(v, Var(v.name, F32))

    def visit_FloatImm(self, e: FloatImm) -> PrimExpr:
        return FloatImm(F32, _round_value(e.value)) if e.dtype == BF16 else e

    def visit_BufferLoad(self, e: BufferLoad) -> PrimExpr:
        load = BufferLoad(self.visit_buffer(e.buffer), tuple(self.visit(i) for i in e.indices))
        return _from_bits(load) if e.buffer.dtype == BF16 else load

    def visit_BufferStore(self, s: BufferStore) -> BufferStore:
        value, idx = self.visit(s.value), tuple(self.visit(i) for i in s.indices)
        if s.buffer.dtype == BF16:
            value = Cast(U16, round_to_bf16_bits(_as_f32(value)))
        return dataclasses.replace(s, buffer=self.visit_buffer(s.buffer), value=value,
                                   indices=idx)

    def visit_Cast(self, e: Cast) -> PrimExpr:
        value = self.visit(e.value)
        if e.dtype == BF16:  # a value that must be a bfloat16 one: rounded
            return _from_bits(round_to_bf16_bits(_as_f32(value)))
        return value if value.dtype == e.dtype else Cast(e.dtype, value)

    def visit_Call(self, e: Call) -> PrimExpr:
        args = tuple(self.visit(a) for a in e.args)
        return Call(F32 if e.dtype == BF16 else e.dtype, e.op, args, e.span)


def _as_f32(value: PrimExpr) -> PrimExpr:
    return value if value.dtype == F32 else Cast(F32, value)


def legalize_bf16(func: PrimFunc) -> PrimFunc:
    """`func` with bfloat16 stored as uint16 and computed in float32 (see the module doc)."""
    if not any(buf.dtype == BF16 for _, buf in func.buffer_map) and \
            not any_node(func.body, _is_bf16):
        return func
    legal = _Legalize()
    bmap = tuple((p, legal.visit_buffer(b)) for p, b in func.buffer_map)
    return dataclasses.replace(func, buffer_map=bmap, body=legal.visit(func.body))
