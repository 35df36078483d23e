"""Dtype names of the `T` namespace beyond the common ones in script/tir.py: short forms
(`T.i32`, `T.f16`), vector types (`T.float32x4`), the narrow float formats (`T.float8_e4m3fn`)
and `T.boolean` / `T.void`.

Each is a `DType` (what TVM calls a `DtypeConstructor`): an annotation, a new variable
(`n = T.i64()`), or a literal (`T.f32(1)`; a vector one broadcasts, `T.int8x4(0)`).
"""

from __future__ import annotations

from .parser.tir_parser import DType, LocalVectorAnnotation

DtypeConstructor = DType

_SHORT = {"i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64", "u8": "uint8",
          "u16": "uint16", "u32": "uint32", "u64": "uint64", "f16": "float16",
          "f32": "float32", "f64": "float64", "bf16": "bfloat16", "boolean": "bool",
          "void": "void"}
_NARROW_FLOATS = ["float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fn",
                  "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu",
                  "float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn"]
_VECTOR_BASES = ([f"int{b}" for b in (8, 16, 32, 64)] + [f"uint{b}" for b in (8, 16, 32, 64)]
                 + ["float16", "float32", "float64"] + _NARROW_FLOATS)
_LANES = (2, 4, 8, 16, 32, 64)

NAMES: dict[str, DType] = {short: DType(full) for short, full in _SHORT.items()}
NAMES.update({name: DType(name) for name in _NARROW_FLOATS})
NAMES.update({f"{base}x{n}": DType(f"{base}x{n}") for base in _VECTOR_BASES for n in _LANES})
globals().update(NAMES)

__all__ = ["DtypeConstructor", "LocalVectorAnnotation", *NAMES]
