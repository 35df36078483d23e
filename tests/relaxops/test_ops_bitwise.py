"""Bitwise operators (ir/ops/bitwise.py) against numpy: broadcasting, bool tensors, symbolic
shapes, the printed form TVM 0.27 writes, and the error for float tensors."""

import numpy as np
import pytest
from op_helpers import RNG, roundtrip, run_graph

from tvmlite import relax

R = relax.op

BINARY = [("bitwise_and", np.bitwise_and), ("bitwise_or", np.bitwise_or),
          ("bitwise_xor", np.bitwise_xor), ("left_shift", np.left_shift),
          ("right_shift", np.right_shift)]


@pytest.mark.parametrize("name,ref", BINARY, ids=[b[0] for b in BINARY])
def test_binary_broadcast_int32(name, ref):
    a = RNG.integers(-1000, 1000, (2, 3, 4)).astype("int32")
    b = RNG.integers(0, 8, (4,)).astype("int32")
    np.testing.assert_array_equal(run_graph(getattr(R, name), [a, b]), ref(a, b))


def test_int64_symbolic_shape_and_not():
    a = RNG.integers(-2**40, 2**40, (5, 3)).astype("int64")
    np.testing.assert_array_equal(run_graph(R.bitwise_not, [a], shapes=[("n", 3)]), ~a)
    b = RNG.integers(0, 20, (5, 3)).astype("int64")
    out = run_graph(R.right_shift, [a, b], shapes=[("n", 3), ("n", 3)])
    np.testing.assert_array_equal(out, a >> b)


def test_bool_tensors():
    a = np.array([True, False, True, False])
    b = np.array([True, True, False, False])
    for name, ref in (("bitwise_and", a & b), ("bitwise_or", a | b), ("bitwise_xor", a ^ b)):
        np.testing.assert_array_equal(run_graph(getattr(R, name), [a, b]), ref, err_msg=name)
    np.testing.assert_array_equal(run_graph(R.bitwise_not, [a]), ~a)


def test_printed_as_tvm_prints_and_parsed_back():
    text = roundtrip(lambda x, y: R.left_shift(R.bitwise_and(x, y), y), [(4,), (4,)],
                     ["int32", "int32"])
    assert 'lv: R.Tensor((4,), dtype="int32") = R.bitwise_and(x0, x1)' in text
    assert "R.left_shift(lv, x1)" in text
    assert "R.bitwise_not(x0)" in roundtrip(R.bitwise_not, [(2, 3)], ["int8"])


def test_struct_info_errors_name_the_operator():
    x = relax.Var("x", relax.TensorStructInfo((4,), "int32"))
    y = relax.Var("y", relax.TensorStructInfo((4,), "int64"))
    with pytest.raises(ValueError, match="bitwise_or: operands must have the same dtype"):
        R.bitwise_or(x, y)
    z = relax.Var("z", relax.TensorStructInfo((3,), "int32"))
    with pytest.raises(ValueError, match="left_shift: shapes .* do not broadcast"):
        R.left_shift(x, z)


def test_float_tensors_are_refused_when_legalized():
    with pytest.raises(ValueError, match="bitwise_and needs integer or bool tensors"):
        run_graph(R.bitwise_and, [np.ones(3, "float32"), np.ones(3, "float32")])
