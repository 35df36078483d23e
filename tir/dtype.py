"""Data type strings ("float32", "int64", "bool", "handle") and what we need to know of them."""

from __future__ import annotations

import re

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


# Every dtype TVM 0.27 names (scalars and "x<lanes>" vectors): what a TVMScript program may
# write, whether or not the CPU backend can compute in it.
_TVM_DTYPE = re.compile(
    r"(?P<elem>bool|handle|void|bfloat16|u?int\d*|float(8|16|32|64)?"
    r"|float8_e(3m4|4m3|4m3b11fnuz|4m3fn|4m3fnuz|5m2|5m2fnuz|8m0fnu)|float6_e(2m3fn|3m2fn)"
    r"|float4_e2m1fn)(x(?P<lanes>\d+|vscalex\d+))?")


def is_known(dtype: str) -> bool:
    """Is `dtype` a data type TVM knows ("float32", "int8x4", "float8_e4m3fn", "handle")?"""
    return isinstance(dtype, str) and _TVM_DTYPE.fullmatch(dtype) is not None


def check_known(dtype: str) -> str:
    """`dtype` itself, or a ValueError that names it and suggests the closest known one."""
    if is_known(dtype):
        return dtype
    import difflib

    close = difflib.get_close_matches(dtype, _SUPPORTED, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    raise ValueError(f"unknown dtype {dtype!r}{hint}")


def lanes(dtype: str) -> int:
    """The vector width of `dtype` ("float32x4" -> 4; scalars -> 1)."""
    m = _TVM_DTYPE.fullmatch(dtype)
    n = m.group("lanes") if m else None
    return int(n) if n and n.isdigit() else 1


def element(dtype: str) -> str:
    """The scalar dtype of a vector dtype ("float32x4" -> "float32")."""
    m = _TVM_DTYPE.fullmatch(dtype)
    return m.group("elem") if m else dtype


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
