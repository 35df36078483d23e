"""LLVM codegen, differential against numpy: the lecture 4 MLP kernels and every expression kind."""

from __future__ import annotations

import math
from typing import Any, Callable

import llvmlite.binding as llvm
import numpy as np
import pytest
import tir_builders as tb
from tir_builders import kernel, loops

from tvmlite.tir import (
    Allocate, AssertStmt, BinaryOp, BinOp, BufferStore, Call, Cast, ForKind, Let, LetStmt, Not,
    Select, Var, const, make_buffer,
)
from tvmlite.tir.kernel_build import compile_prim_funcs
from tvmlite.tir.jit import call_kernel, jit_kernels
from tvmlite.tir.stmt import seq

RNG = np.random.default_rng(0)


def run(func: Any, *arrays: Any, fast_math: str = "reduction") -> str:
    """Compiles `func`, verifies the module, runs it on `arrays`; returns the LLVM IR text."""
    text, sigs = compile_prim_funcs({"k": func}, {"kind": "llvm", "fast-math": fast_math})
    llvm.parse_assembly(text).verify()
    engine = jit_kernels(text)
    call_kernel(engine.function(sigs["k"]), sigs["k"], *arrays)
    return text


def elementwise(fn: Callable[..., Any], in_dtypes: list[str], out_dtype: str, n: int) -> Any:
    """`for i: C[i] = fn(A0[i], A1[i], ...)` as a plain loop (no block)."""
    ins = [make_buffer(f"A{k}", (n,), d) for k, d in enumerate(in_dtypes)]
    out = make_buffer("C", (n,), out_dtype)
    body = loops("i", (n,), lambda i: BufferStore(out, fn(*[b[i] for b in ins]), (i,)))
    return kernel((*ins, out), body)


def run_elementwise(fn: Callable[..., Any], out_dtype: str, *arrays: np.ndarray) -> np.ndarray:
    n = arrays[0].shape[0]
    out = np.zeros(n, out_dtype)
    run(elementwise(fn, [str(a.dtype) for a in arrays], out_dtype, n), *arrays, out)
    return out


def mlp_params() -> dict[str, np.ndarray]:
    shapes = {"x": (1, 784), "w0": (128, 784), "b0": (128,), "w1": (10, 128), "b1": (10,)}
    return {k: RNG.standard_normal(s).astype("float32") for k, s in shapes.items()}


# ---------------------------------------------------------------------------------------------
# The lecture's MLP


@pytest.mark.parametrize("fast_math", ["reduction", "none"])
def test_mlp_kernels_match_numpy(fast_math: str) -> None:
    p = mlp_params()
    lv0, lv1, out = np.empty((1, 128), "float32"), np.empty((1, 128), "float32"), np.empty(
        (1, 10), "float32")
    run(tb.linear0(), p["x"], p["w0"], p["b0"], lv0, fast_math=fast_math)
    np.testing.assert_allclose(lv0, p["x"] @ p["w0"].T + p["b0"], rtol=1e-5, atol=1e-5)
    run(tb.relu0(), lv0, lv1)
    np.testing.assert_array_equal(lv1, np.maximum(lv0, 0))
    run(tb.linear1(), lv1, p["w1"], p["b1"], out, fast_math=fast_math)
    ref = np.maximum(p["x"] @ p["w0"].T + p["b0"], 0) @ p["w1"].T + p["b1"]
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)


def test_mlp_ir_is_flagged_only_on_the_reduction() -> None:
    text, _ = compile_prim_funcs({"linear0": tb.linear0()})
    assert "fadd reassoc contract float" in text
    assert text.count("reassoc") == 2  # the update's fadd and fmul; not the bias add
    text, _ = compile_prim_funcs({"linear0": tb.linear0()}, "llvm -fast-math=none")
    assert "reassoc" not in text


def test_symbolic_batch() -> None:
    n = Var("n", "int64")
    func = tb.linear(n, 784, 128)
    text, sigs = compile_prim_funcs({"linear0": func})
    sig = sigs["linear0"]
    assert sig.shape_vars == ("n",)
    assert sig.params[0].shape == ("n", 784)
    assert 'i64 %"n"' in text
    for batch in (3, 1):
        x = RNG.standard_normal((batch, 784)).astype("float32")
        w, b = RNG.standard_normal((128, 784)).astype("float32"), np.ones(128, "float32")
        z = np.empty((batch, 128), "float32")
        run(func, x, w, b, z)
        np.testing.assert_allclose(z, x @ w.T + b, rtol=1e-5, atol=1e-4)


def test_symbolic_batch_zero_rows() -> None:
    n = Var("n", "int64")
    z = np.empty((0, 10), "float32")
    run(tb.linear(n, 128, 10), np.empty((0, 128), "float32"), np.ones((10, 128), "float32"),
        np.ones(10, "float32"), z)


# ---------------------------------------------------------------------------------------------
# Integer semantics


def _ints(dtype: str, n: int = 64) -> tuple[np.ndarray, np.ndarray]:
    info = np.iinfo(dtype)
    lo, hi = max(info.min + 1, -100), min(info.max, 100)
    a = RNG.integers(lo, hi, n).astype(dtype)
    b = RNG.integers(lo, hi, n).astype(dtype)
    b[b == 0] = 3
    a[:4], b[:4] = np.array([7, -7, 7, -7]).astype(dtype), np.array([2, 2, -2, -2]).astype(dtype)
    return a, b


@pytest.mark.parametrize("dtype", ["int8", "int32", "int64"])
def test_signed_div_mod_semantics(dtype: str) -> None:
    a, b = _ints(dtype)
    trunc_mod = np.fmod(a, b)
    expected = {
        BinaryOp.DIV: (a - trunc_mod) // b,  # truncating, as C and TVM's tir.Div
        BinaryOp.MOD: trunc_mod,
        BinaryOp.FLOORDIV: np.floor_divide(a, b),
        BinaryOp.FLOORMOD: np.mod(a, b),
        BinaryOp.MIN: np.minimum(a, b),
        BinaryOp.MAX: np.maximum(a, b),
    }
    for op, ref in expected.items():
        out = run_elementwise(lambda x, y: BinOp(op, x, y), dtype, a, b)
        np.testing.assert_array_equal(out, ref.astype(dtype), err_msg=str(op))


@pytest.mark.parametrize("dtype", ["uint8", "uint32"])
def test_unsigned_arith(dtype: str) -> None:
    a = RNG.integers(0, 250, 32).astype(dtype)
    b = RNG.integers(1, 250, 32).astype(dtype)
    for op, ref in [(BinaryOp.DIV, a // b), (BinaryOp.FLOORMOD, a % b),
                    (BinaryOp.MAX, np.maximum(a, b)), (BinaryOp.SUB, a - b)]:
        out = run_elementwise(lambda x, y: BinOp(op, x, y), dtype, a, b)
        np.testing.assert_array_equal(out, ref, err_msg=str(op))
    out = run_elementwise(lambda x, y: Cast("int32", BinOp(BinaryOp.LT, x, y)), "int32", a, b)
    np.testing.assert_array_equal(out, (a < b).astype("int32"))


def test_float_floordiv_floormod() -> None:
    a = RNG.standard_normal(32).astype("float32") * 10
    b = RNG.standard_normal(32).astype("float32") + 3
    out = run_elementwise(lambda x, y: x // y, "float32", a, b)
    np.testing.assert_allclose(out, np.floor(a / b))
    out = run_elementwise(lambda x, y: x % y, "float32", a, b)
    np.testing.assert_allclose(out, a - np.floor(a / b) * b, rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------------------------------------
# Math intrinsics


def _erf(x: np.ndarray) -> np.ndarray:
    return np.vectorize(math.erf)(x.astype("float64"))


UNARY = {
    "tir.exp": np.exp, "tir.log": np.log, "tir.sqrt": np.sqrt, "tir.fabs": np.abs,
    "tir.floor": np.floor, "tir.ceil": np.ceil, "tir.round": np.round, "tir.sin": np.sin,
    "tir.cos": np.cos, "tir.tanh": np.tanh, "tir.sigmoid": lambda x: 1 / (1 + np.exp(-x)),
    "tir.erf": _erf, "tir.rsqrt": lambda x: 1 / np.sqrt(x), "tir.exp2": np.exp2,
    "tir.log2": np.log2, "tir.log10": np.log10, "tir.trunc": np.trunc, "tir.abs": np.abs,
}
POSITIVE = {"tir.log", "tir.sqrt", "tir.rsqrt", "tir.log2", "tir.log10"}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("op", sorted(UNARY))
def test_unary_math(op: str, dtype: str) -> None:
    x = (RNG.standard_normal(37) * 3).astype(dtype)
    x[:4] = np.array([0.5, 1.5, -2.5, 2.5])  # round ties go to even, as numpy does
    if op in POSITIVE:
        x = np.abs(x) + 0.1
    out = run_elementwise(lambda a: Call(dtype, op, (a,)), dtype, x)
    np.testing.assert_allclose(out, UNARY[op](x).astype(dtype), rtol=1e-5, atol=1e-6)


def test_pow_and_float16_math() -> None:
    x = np.abs(RNG.standard_normal(16)).astype("float32") + 0.5
    y = RNG.standard_normal(16).astype("float32")
    out = run_elementwise(lambda a, b: Call("float32", "tir.pow", (a, b)), "float32", x, y)
    np.testing.assert_allclose(out, np.power(x, y), rtol=1e-5)
    h = RNG.standard_normal(16).astype("float16")
    for op in ("tir.exp", "tir.tanh"):
        out = run_elementwise(lambda a: Call("float16", op, (a,)), "float16", h)
        np.testing.assert_allclose(out, UNARY[op](h.astype("float32")).astype("float16"),
                                   rtol=2e-3)


# ---------------------------------------------------------------------------------------------
# Casts, comparisons, selects


CASTS = [
    ("float32", "int32"), ("int32", "float32"), ("int64", "int8"), ("uint8", "int32"),
    ("int8", "int32"), ("float64", "float32"), ("float32", "float16"), ("float16", "float32"),
    ("int32", "bool"), ("bool", "int32"), ("float32", "bool"), ("int32", "uint8"),
    ("float32", "uint8"), ("uint32", "float64"),
]


@pytest.mark.parametrize("src,dst", CASTS)
def test_casts(src: str, dst: str) -> None:
    if src == "bool":
        x = RNG.integers(0, 2, 20).astype("bool")
    elif src.startswith("float"):
        x = (RNG.standard_normal(20) * 50).astype(src)
        if dst.startswith("uint"):
            x = np.abs(x)
    else:
        x = RNG.integers(0 if src.startswith("u") else -120, 120, 20).astype(src)
        if src == "int64":
            x[0] = 2**40 + 5  # wraps to 5 in int8
    out = run_elementwise(lambda a: Cast(dst, a), dst, x)
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(out, x.astype(dst))


def test_comparisons_and_logic_on_bool_buffers() -> None:
    a = RNG.standard_normal(24).astype("float32")
    b = RNG.standard_normal(24).astype("float32")
    a[:3] = 0
    def fn(x: Any, y: Any) -> Any:
        nonzero = Not(BinOp(BinaryOp.EQ, x, const(0.0)))
        return BinOp(BinaryOp.OR, BinOp(BinaryOp.AND, x < y, nonzero), x >= 1)

    out = run_elementwise(fn, "bool", a, b)
    np.testing.assert_array_equal(out, ((a < b) & ~(a == 0)) | (a >= 1))
    flags = a > 0
    out = run_elementwise(lambda f: Select(f, const(1, "int32"), const(-1, "int32")), "int32",
                          flags)
    np.testing.assert_array_equal(out, np.where(flags, 1, -1))


def test_float_ne_is_unordered() -> None:
    a = np.array([np.nan, 1, 2], "float32")
    out = run_elementwise(lambda x, y: BinOp(BinaryOp.NE, x, y), "bool", a, a.copy())
    np.testing.assert_array_equal(out, a != a)


def test_select_and_if_then_else() -> None:
    a = RNG.standard_normal(16).astype("float32")
    b = RNG.standard_normal(16).astype("float32")
    out = run_elementwise(lambda x, y: Select(x > y, x, y), "float32", a, b)
    np.testing.assert_array_equal(out, np.maximum(a, b))
    A, C = make_buffer("A", (4,)), make_buffer("C", (8,))
    body = loops("i", (8,), lambda i: BufferStore(C, Call("float32", "tir.if_then_else", (
        i < 4, A[i], const(-1.0))), (i,)))  # lazy: A[i] is never read for i >= 4
    x, c = np.arange(4, dtype="float32"), np.zeros(8, "float32")
    run(kernel((A, C), body), x, c)
    np.testing.assert_array_equal(c, [0, 1, 2, 3, -1, -1, -1, -1])


# ---------------------------------------------------------------------------------------------
# Statements: Allocate, Let, Assert, scalar params, unroll


@pytest.mark.parametrize("n", [8, 100_000])  # a stack alloca and a heap (malloc) buffer
def test_allocated_intermediate(n: int) -> None:
    A, C = make_buffer("A", (n,)), make_buffer("C", (n,))
    T = make_buffer("T", (n,))
    body = seq([
        loops("i", (n,), lambda i: BufferStore(T, A[i] * 2.0, (i,))),
        loops("i", (n,), lambda i: BufferStore(C, T[n - 1 - i] + 1.0, (i,))),
    ])
    a, c = RNG.standard_normal(n).astype("float32"), np.zeros(n, "float32")
    text = run(kernel((A, C), Allocate(T, body)), a, c)
    np.testing.assert_array_equal(c, a[::-1] * 2 + 1)
    assert ("malloc" in text) == (n > 10_000)


def test_symbolic_allocate_goes_to_heap() -> None:
    n = Var("n", "int64")
    A, C, T = make_buffer("A", (n,)), make_buffer("C", (n,)), make_buffer("T", (n, 2))
    body = seq([
        loops("i", (n,), lambda i: BufferStore(T, A[i] + 1.0, (i, const(1, "int64")))),
        loops("i", (n,), lambda i: BufferStore(C, T[i, const(1, "int64")], (i,))),
    ])
    a, c = np.arange(5, dtype="float32"), np.zeros(5, "float32")
    text = run(kernel((A, C), Allocate(T, body)), a, c)
    np.testing.assert_array_equal(c, a + 1)
    assert "free" in text


def test_let_scalar_param_and_assert() -> None:
    A, C = make_buffer("A", (6,)), make_buffer("C", (6,))
    alpha = Var("alpha", "float32")
    t = Var("t", "float32")
    store = loops("i", (6,), lambda i: LetStmt(t, A[i] * alpha, BufferStore(
        C, Let(Var("u", "float32"), t + 1.0, t), (i,))))
    func = kernel((A, C), AssertStmt(A[0] > 0.0, "A[0] must be positive", store),
                  scalars=(alpha,))
    a, c = np.arange(1, 7, dtype="float32"), np.zeros(6, "float32")
    run(func, a, c, 2.5)  # ABI order: buffers A, C (params order), then the scalar alpha
    np.testing.assert_array_equal(c, a * 2.5)
    a[0], c[:] = -1, 7
    run(func, a, c, 2.5)  # the assert fails: the kernel returns before writing C
    np.testing.assert_array_equal(c, 7)


def test_unroll_parallel_and_vectorized_loops() -> None:
    A, C = make_buffer("A", (8,)), make_buffer("C", (8,))
    for kind in (ForKind.UNROLLED, ForKind.PARALLEL, ForKind.VECTORIZED):
        body = loops("i", (8,), lambda i: BufferStore(C, A[i] + 1.0, (i,)), kind=kind)
        a, c = np.arange(8, dtype="float32"), np.zeros(8, "float32")
        text = run(kernel((A, C), body), a, c)
        np.testing.assert_array_equal(c, a + 1)
        assert ("for_header" in text) == (kind is ForKind.PARALLEL)  # others: no loop left
        assert ("tvmlite_parallel_launch" in text) == (kind is ForKind.PARALLEL)
        assert ("<8 x float>" in text) == (kind is ForKind.VECTORIZED)


# ---------------------------------------------------------------------------------------------
# Golden text


GOLDEN = '''\
define void @"k"(ptr noalias %"A", ptr noalias %"B") nounwind
{
entry:
  br label %"body"
body:
  br label %"for_header"
for_header:
  %"i" = phi  i32 [0, %"body"], [%".13", %"for_body"]
  %".5" = icmp slt i32 %"i", 4
  br i1 %".5", label %"for_body", label %"for_end"
for_body:
  %".7" = sext i32 %"i" to i64
  %".8" = getelementptr inbounds float, ptr %"B", i64 %".7"
  %".9" = getelementptr inbounds float, ptr %"A", i64 %".7"
  %".10" = load float, ptr %".9", align 4
  %".11" = fadd float %".10", 0x3ff0000000000000
  store float %".11", ptr %".8", align 4
  %".13" = add nsw i32 %"i", 1
  br label %"for_header"
for_end:
  ret void
}'''


def test_golden_llvm_ir_of_a_tiny_kernel() -> None:
    A, B = make_buffer("A", (4,)), make_buffer("B", (4,))
    func = kernel((A, B), loops("i", (4,), lambda i: BufferStore(B, A[i] + 1.0, (i,))))
    text, _ = compile_prim_funcs({"k": func})
    body = text[text.index("define"):].strip()
    assert body == GOLDEN
