"""`func.script(show_object_address=True)`: every variable and buffer name carries its
object's address (`A_0x7f...`), the same at each use, as TVM's printer option does."""

import re

from tvmlite.script import tir as T


@T.prim_func
def add_one(a: T.handle):
    n = T.int64()
    A = T.match_buffer(a, (n,), "float32")
    for i in range(n):
        A[i] = A[i] + T.float32(1)


def test_names_carry_addresses() -> None:
    plain = add_one.script()
    shown = add_one.script(show_object_address=True)
    assert "def add_one(" in shown  # the function's own name is not a variable
    assert shown != plain
    # dropping every `_0x<hex>` suffix gives the plain script back
    assert re.sub(r"_0x[0-9a-f]+", "", shown) == plain
    buffer_names = set(re.findall(r"\bA_0x[0-9a-f]+\b", shown))
    assert len(buffer_names) == 1  # one address, wherever A is used
    (name,) = buffer_names
    assert name == f"A_0x{id(add_one.buffer_map[0][1]):x}"
