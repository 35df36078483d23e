"""bfloat16 kernels on the LLVM backend: 16-bit storage, float32 arithmetic, round-to-nearest-even
stores (tir/bf16_legalize.py). numpy has no bfloat16, so tensors travel as their uint16 bits and
the reference is computed here in float32 with its own rounding."""

import numpy as np

import tvmlite as tvm
from tvmlite import te, topi


def to_bits(a: np.ndarray) -> np.ndarray:
    b = a.astype(np.float32).view(np.uint32)
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint16)


def from_bits(b: np.ndarray) -> np.ndarray:
    return (b.astype(np.uint32) << 16).view(np.float32)


def test_bf16_arithmetic_rounds_once_at_the_store():
    x = te.placeholder((64,), "bfloat16", name="x")
    y = te.compute((64,), lambda i: x[i] * te.const(3.0, "bfloat16") + te.const(0.5, "bfloat16"),
                   name="y")
    f = tvm.build(te.create_prim_func([x, y]), target="llvm")
    xb = to_bits(np.random.default_rng(0).standard_normal(64).astype(np.float32) * 10)
    yb = np.zeros(64, np.uint16)
    f["main"](xb, yb)
    np.testing.assert_array_equal(yb, to_bits(from_bits(xb) * np.float32(3) + np.float32(0.5)))


def test_bf16_math_and_casts_build_and_compute():
    x = te.placeholder((1, 8), dtype="bfloat16", name="x")
    out = topi.asin(x)  # TVM's test builds the bfloat16 unary ops on llvm
    w = te.compute((1, 8), lambda i, j: out[i, j].astype("float32"), name="w")
    f = tvm.build(te.create_prim_func([x, w]), target="llvm")
    xb = to_bits(np.linspace(-0.9, 0.9, 8, dtype=np.float32).reshape(1, 8))
    res = np.zeros((1, 8), np.float32)
    f["main"](xb, res)
    np.testing.assert_allclose(res, from_bits(to_bits(np.arcsin(from_bits(xb)))), rtol=1e-2)
