"""Arithmetic on te tensors (`2 - A * 3 + 1`, `-A`, `A // B`) builds topi's broadcasting
computes, as TVM's topi overloads do; checked against numpy."""

import numpy as np

import tvmlite as tvm
from tvmlite import te, topi  # noqa: F401 (importing topi installs the operators)


def test_tensor_arithmetic_builds_elementwise_computes():
    a = te.placeholder((4,), name="A")
    b = te.placeholder((4,), name="B")
    out = (2 - a * 3 + 1) / b - (-a) + a // b
    func = tvm.build(te.create_prim_func([a, b, out]))
    av = np.arange(1, 5, dtype="float32")
    bv = np.array([2, 2, 4, 4], "float32")
    got = tvm.nd.array(np.zeros(4, "float32"))
    func(tvm.nd.array(av), tvm.nd.array(bv), got)
    np.testing.assert_allclose(got.numpy(), (2 - av * 3 + 1) / bv + av + np.floor(av / bv))
