"""Bitwise operators: `bitwise_and` / `or` / `xor` / `not`, `left_shift` and `right_shift`.

Struct info follows TVM 0.27: the binary ones broadcast like `R.add` (same dtype on both
sides); any dtype is accepted here, as TVM does, and a float tensor is refused when the call
is legalized (there is no bitwise arithmetic on floats to lower it to).
"""

from __future__ import annotations

from .base import BROADCAST, ELEMWISE, register
from .elementwise import _binary_maker, _infer_binary, _unary_maker
from .math_ext import _infer_same

BITWISE_BINARY = ("bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift")

for _n in BITWISE_BINARY:
    register(f"relax.{_n}", _infer_binary(False), _binary_maker(f"relax.{_n}"), BROADCAST)
register("relax.bitwise_not", _infer_same, _unary_maker("relax.bitwise_not"), ELEMWISE)
