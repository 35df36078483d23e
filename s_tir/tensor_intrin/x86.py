"""`tvm.s_tir.tensor_intrin.x86`: the x86 int8 dot products TVM registers on import (VNNI and
AVX-512: 16 lanes, each summing 4 u8 x i8 products into an i32), under TVM's names.

The description is what the hardware instruction computes; the implementation is the same
arithmetic written as a vectorized TIR loop (tvmlite emits no target-specific intrinsics), so a
tensorized kernel still runs and computes the same values."""

from __future__ import annotations

from ...script import tir as T
from ...tir.schedule.tensorize import TensorIntrin


@T.prim_func(s_tir=True)
def dot_product_16x4_u8i8i32_desc(
    A: T.Buffer((4,), "uint8", offset_factor=1),
    B: T.Buffer((16, 4), "int8", offset_factor=1),
    C: T.Buffer((16,), "int32", offset_factor=1),
) -> None:
    with T.sblock("root"):
        T.reads(C[0:16], A[0:4], B[0:16, 0:4])
        T.writes(C[0:16])
        for lane in range(16):
            for k in range(4):
                with T.sblock("update"):
                    vl, vk = T.axis.remap("SR", [lane, k])
                    C[vl] = C[vl] + T.Cast("int32", A[vk]) * T.Cast("int32", B[vl, vk])


@T.prim_func(s_tir=True)
def dot_product_16x4_u8i8i32_loops(
    A: T.Buffer((4,), "uint8", offset_factor=1),
    B: T.Buffer((16, 4), "int8", offset_factor=1),
    C: T.Buffer((16,), "int32", offset_factor=1),
) -> None:
    with T.sblock("root"):
        T.reads(C[0:16], A[0:4], B[0:16, 0:4])
        T.writes(C[0:16])
        for k in range(4):
            for lane in T.vectorized(16):
                C[lane] = C[lane] + T.Cast("int32", A[k]) * T.Cast("int32", B[lane, k])


VNNI_DOT_16x4_INTRIN = "dot_16x4_vnni"
AVX512_DOT_16x4_INTRIN = "dot_16x4_avx512"

for _name in (VNNI_DOT_16x4_INTRIN, AVX512_DOT_16x4_INTRIN):
    TensorIntrin.register(_name, dot_product_16x4_u8i8i32_desc, dot_product_16x4_u8i8i32_loops,
                          override=True)
