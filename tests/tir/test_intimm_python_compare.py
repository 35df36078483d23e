"""A TIR integer constant against Python ints, as TVM 0.27: `T.int32(1) == 1` is true, the
constant hashes as its int (a dict keyed by ints finds it) and is truthy when non-zero."""

from tvmlite import tir


def test_int_constant_equals_its_python_int() -> None:
    one = tir.IntImm("int32", 1)
    assert one == 1 and 1 == one and not (one != 1)
    assert one != 2 and not (one == 2)
    assert one == tir.IntImm("int32", 1) and one != tir.IntImm("int64", 1)
    assert one != tir.FloatImm("float32", 1.0)  # only ints compare by value


def test_int_constant_as_a_key_and_a_truth_value() -> None:
    assert {1: "a"}[tir.IntImm("int64", 1)] == "a"
    assert {tir.IntImm("int32", 3): "b"}[tir.IntImm("int32", 3)] == "b"
    assert bool(tir.IntImm("int32", 7)) and not bool(tir.IntImm("bool", 0))
    assert tir.IntImm("int32", 4) in [2, 4]
