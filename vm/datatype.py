"""`tvm.runtime.DataType` / `DataTypeCode`: a dtype string that also answers `bits`, `lanes`
and `type_code` (DLPack's codes), as TVM's runtime dtype object does."""

from __future__ import annotations

import enum
import re


class DataTypeCode(enum.IntEnum):
    """DLPack's data type codes."""

    INT = 0
    UINT = 1
    FLOAT = 2
    HANDLE = 3
    BFLOAT = 4
    BOOL = 6
    FLOAT8_E3M4 = 7
    FLOAT8_E4M3 = 8
    FLOAT8_E4M3B11FNUZ = 9
    FLOAT8_E4M3FN = 10
    FLOAT8_E4M3FNUZ = 11
    FLOAT8_E5M2 = 12
    FLOAT8_E5M2FNUZ = 13
    FLOAT8_E8M0FNU = 14
    FLOAT6_E2M3FN = 15
    FLOAT6_E3M2FN = 16
    FLOAT4_E2M1FN = 17


# The small floats are named by their layout ("float8_e4m3fn"): the name is the kind, the
# number before "_" the bits.
_SMALL_FLOATS = {name.lower(): code for name, code in DataTypeCode.__members__.items()
                 if name.startswith(("FLOAT8_", "FLOAT6_", "FLOAT4_"))}
_PATTERN = re.compile(r"^(bool|handle|int|uint|float|bfloat|"
                      + "|".join(sorted(_SMALL_FLOATS, key=len, reverse=True))
                      + r")(\d*)(?:x(\d+))?$")
_CODES = {"int": DataTypeCode.INT, "uint": DataTypeCode.UINT, "float": DataTypeCode.FLOAT,
          "handle": DataTypeCode.HANDLE, "bfloat": DataTypeCode.BFLOAT,
          "bool": DataTypeCode.BOOL, **_SMALL_FLOATS}
_DEFAULT_BITS = {"bool": 8, "handle": 64, "bfloat": 16,
                 **{name: int(name[5]) for name in _SMALL_FLOATS}}


class DataType(str):
    """`DataType("float32x4")`: equal to its string, with `.type_code`, `.bits`, `.lanes`."""

    __slots__ = ()

    def __new__(cls, content: object) -> DataType:
        text = str(content)
        if _PATTERN.match(text) is None:
            raise ValueError(f"DataType: {text!r} is not a dtype such as 'float32', 'int8', "
                             "'bool' or 'float32x4'")
        return super().__new__(cls, text)

    def _parts(self) -> tuple[str, int, int]:
        m = _PATTERN.match(str(self))
        assert m is not None
        kind, bits, lanes = m.groups()
        return kind, int(bits) if bits else _DEFAULT_BITS.get(kind, 32), int(lanes or 1)

    @property
    def type_code(self) -> DataTypeCode:
        return _CODES[self._parts()[0]]

    @property
    def bits(self) -> int:
        return self._parts()[1]

    @property
    def lanes(self) -> int:
        return self._parts()[2]

    @property
    def itemsize(self) -> int:
        """Bytes of one element (all lanes)."""
        return max(1, self.bits // 8) * self.lanes
