"""`T.*` math and bit intrinsics: parsed, printed as TVM prints them, read back equal, and
computed by the LLVM backend and the reference interpreter as numpy computes them."""

from __future__ import annotations

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite.script import tir as T
from tvmlite.tir import interpreter

RNG = np.random.default_rng(7)


def roundtrip(func: object) -> str:
    text = func.script()
    tvm.ir.assert_structural_equal(func, tvm.script.from_source(text))
    return text


def build_and_run(func: object, *arrays: np.ndarray) -> None:
    """Runs `func` compiled and interpreted; the last array is the output of both."""
    lib = tvm.build(func, target="llvm")
    copies = [a.copy() for a in arrays]
    nd = [tvm.nd.array(a) for a in arrays]
    lib["main"](*nd)
    interpreter.run(func, *copies)
    np.testing.assert_allclose(copies[-1], nd[-1].numpy(), rtol=1e-6)
    arrays[-1][...] = nd[-1].numpy()


@T.prim_func
def float_math(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32"),
               N: T.Buffer((16,), "int32"), C: T.Buffer((7, 16), "float32")):
    for i in range(16):
        C[0, i] = T.atan2(A[i], B[i])
        C[1, i] = T.hypot(A[i], B[i])
        C[2, i] = T.fmod(A[i], B[i])
        C[3, i] = T.copysign(A[i], B[i])
        C[4, i] = T.nextafter(A[i], B[i])
        C[5, i] = T.ldexp(A[i], N[i])
        C[6, i] = T.fma(A[i], B[i], A[i])


def test_float_math_prints_as_tvm_and_computes_as_numpy():
    text = roundtrip(float_math)
    for line in ("C[0, i] = T.atan2(A[i], B[i])", "C[4, i] = T.nextafter(A[i], B[i])",
                 "C[5, i] = T.ldexp(A[i], N[i])", "C[6, i] = T.fma(A[i], B[i], A[i])"):
        assert line in text
    a = RNG.uniform(-3, 3, 16).astype("float32")
    b = RNG.uniform(0.5, 3, 16).astype("float32") * np.sign(RNG.uniform(-1, 1, 16))
    b = b.astype("float32")
    n = RNG.integers(-4, 5, 16).astype("int32")
    out = np.zeros((7, 16), "float32")
    build_and_run(float_math, a, b, n, out)
    want = [np.arctan2(a, b), np.hypot(a, b), np.fmod(a, b), np.copysign(a, b),
            np.nextafter(a, b), np.ldexp(a, n), a * b + a]
    np.testing.assert_allclose(out, np.stack(want), rtol=1e-6, atol=1e-6)


@T.prim_func
def hyperbolic(A: T.Buffer((16,), "float32"), C: T.Buffer((3, 16), "float32")):
    for i in range(16):
        C[0, i] = T.acosh(A[i] + T.float32(1))
        C[1, i] = T.asinh(A[i])
        C[2, i] = T.atanh(A[i] * T.float32(0.5))


def test_inverse_hyperbolic():
    assert "C[1, i] = T.asinh(A[i])" in roundtrip(hyperbolic)
    a = RNG.uniform(0, 1.5, 16).astype("float32")
    out = np.zeros((3, 16), "float32")
    build_and_run(hyperbolic, a, out)
    want = [np.arccosh(a + 1), np.arcsinh(a), np.arctanh(a * 0.5)]
    np.testing.assert_allclose(out, np.stack(want), rtol=1e-5)


@T.prim_func
def bit_ops(A: T.Buffer((16,), "int32"), S: T.Buffer((16,), "int32"),
            C: T.Buffer((9, 16), "int32")):
    for i in range(16):
        C[0, i] = T.popcount(A[i])
        C[1, i] = T.clz(A[i])
        C[2, i] = T.shift_left(A[i], S[i])
        C[3, i] = A[i] >> S[i]
        C[4, i] = A[i] & S[i]
        C[5, i] = A[i] | S[i]
        C[6, i] = A[i] ^ S[i]
        C[7, i] = ~A[i]
        C[8, i] = T.bitwise_and(A[i], 255) + T.bitwise_or(S[i], 1) - T.bitwise_xor(A[i], 3)


def test_bit_intrinsics_print_as_python_operators_and_compute():
    text = roundtrip(bit_ops)
    for line in ("C[2, i] = A[i] << S[i]", "C[3, i] = A[i] >> S[i]", "C[4, i] = A[i] & S[i]",
                 "C[6, i] = A[i] ^ S[i]", "C[7, i] = ~A[i]", "C[0, i] = T.popcount(A[i])",
                 "C[8, i] = (A[i] & 255) + (S[i] | 1) - (A[i] ^ 3)"):
        assert line in text, line
    a = RNG.integers(-2**20, 2**20, 16).astype("int32")
    a[0], a[1] = 0, -1
    s = RNG.integers(0, 8, 16).astype("int32")
    out = np.zeros((9, 16), "int32")
    build_and_run(bit_ops, a, s, out)
    u = a.view("uint32")
    popcount = np.array([bin(int(x)).count("1") for x in u], "int32")
    clz = np.array([32 - int(x).bit_length() for x in u], "int32")
    want = [popcount, clz, a << s, a >> s, a & s, a | s, a ^ s, ~a,
            (a & 255) + (s | 1) - (a ^ 3)]
    np.testing.assert_array_equal(out, np.stack(want))


@T.prim_func
def reinterpret_and_classify(A: T.Buffer((8,), "float32"), C: T.Buffer((3, 8), "int32")):
    for i in range(8):
        C[0, i] = T.reinterpret("int32", A[i])
        C[1, i] = T.Cast("int32", T.isinf(A[i]))
        C[2, i] = T.Cast("int32", T.isfinite(A[i]))


def test_reinterpret_isinf_isfinite():
    text = roundtrip(reinterpret_and_classify)
    assert 'C[0, i] = T.reinterpret("int32", A[i])' in text
    # TVM expands isinf as |x| == inf and not isnan(x); so do we
    assert 'T.fabs(A[i]) == T.float32("inf") and not T.isnan(A[i])' in text
    a = np.array([1.5, -np.inf, np.inf, np.nan, 0.0, -2.0, 3e38, -0.0], "float32")
    out = np.zeros((3, 8), "int32")
    build_and_run(reinterpret_and_classify, a, out)
    np.testing.assert_array_equal(out[0], a.view("int32"))
    np.testing.assert_array_equal(out[1], np.isinf(a).astype("int32"))
    np.testing.assert_array_equal(out[2], np.isfinite(a).astype("int32"))


@T.prim_func
def named_calls(A: T.Buffer((8,), "float32"), C: T.Buffer((2, 8), "float32")):
    for i in range(8):
        C[0, i] = T.call_llvm_pure_intrin("float32", "llvm.sqrt.f32", A[i])
        C[1, i] = T.call_pure_extern("float32", "cbrtf", A[i])


def test_call_llvm_intrin_and_pure_extern():
    text = roundtrip(named_calls)
    assert 'C[0, i] = T.call_llvm_pure_intrin("float32", "llvm.sqrt.f32", A[i])' in text
    assert 'C[1, i] = T.call_pure_extern("float32", "cbrtf", A[i])' in text
    a = RNG.uniform(0, 10, 8).astype("float32")
    out = np.zeros((2, 8), "float32")
    tvm.build(named_calls, target="llvm")["main"](tvm.nd.array(a), nd := tvm.nd.array(out))
    np.testing.assert_allclose(nd.numpy(), np.stack([np.sqrt(a), np.cbrt(a)]), rtol=1e-6)


def test_bit_operators_refuse_floats():
    with pytest.raises(TypeError, match="integer operands"):
        T.float32(1.0) << 2
