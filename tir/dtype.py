"""Data type strings ("float32", "int64", "bool", "handle") and what we need to know of them."""

from __future__ import annotations

import numpy as np

_BITS = {"bool": 1, "handle": 64}
_SUPPORTED = (
    ["bool", "handle", "bfloat16"]
    + [f"int{b}" for b in (8, 16, 32, 64)]
    + [f"uint{b}" for b in (8, 16, 32, 64)]
    + [f"float{b}" for b in (16, 32, 64)]
)


def is_float(dtype: str) -> bool:
    return dtype.startswith("float") or dtype == "bfloat16"


def is_int(dtype: str) -> bool:
    return dtype.startswith("int")


def is_uint(dtype: str) -> bool:
    return dtype.startswith("uint")


def bits(dtype: str) -> int:
    if dtype in _BITS:
        return _BITS[dtype]
    return int(dtype.lstrip("abcdefghijklmnopqrstuvwxyz"))


def itemsize(dtype: str) -> int:
    """Bytes per element in memory (bool is stored as one byte, as numpy does)."""
    return max(1, bits(dtype) // 8)


def check_dtype(dtype: str) -> str:
    if dtype not in _SUPPORTED:
        raise ValueError(f"unknown dtype {dtype!r}; expected one of {', '.join(_SUPPORTED)}")
    return dtype


def promote(a: str, b: str) -> str:
    """The dtype two operands meet at: float beats int, wider beats narrower."""
    if a == b:
        return a
    if is_float(a) != is_float(b):
        return a if is_float(a) else b
    if a == "bool":
        return b
    if b == "bool":
        return a
    return a if bits(a) >= bits(b) else b


def to_numpy(dtype: str) -> np.dtype:
    if dtype == "bfloat16":
        raise ValueError("bfloat16 has no numpy dtype")
    return np.dtype(dtype)


def from_numpy(dtype: np.dtype) -> str:
    return str(np.dtype(dtype))
