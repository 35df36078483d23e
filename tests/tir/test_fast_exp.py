"""float32 exp (and sigmoid, which uses it) compile to an inline range reduction and
polynomial that vectorizes; checked against float64 numpy over the whole float32 range."""

import numpy as np

import tvmlite as tvm
from tvmlite import te


def unary_kernel(n: int, dtype: str, fn):
    A = te.placeholder((n,), dtype, name="A")
    B = te.compute((n,), lambda i: fn(A[i]), name="B")
    return tvm.compile(te.create_prim_func([A, B]), target="llvm")


def run(lib, x: np.ndarray) -> np.ndarray:
    out = tvm.nd.array(np.zeros_like(x))
    lib(tvm.nd.array(x), out)
    return out.numpy()


def test_float32_exp_is_within_an_ulp_and_handles_the_edges() -> None:
    x = np.concatenate([np.linspace(-110, 95, 200001),
                        [0.0, -0.0, 88.72283935546875, 88.7229, -87.3, -103.9, -104.5,
                         np.inf, -np.inf, np.nan]]).astype("float32")
    lib = unary_kernel(x.size, "float32", te.exp)
    y = run(lib, x)
    ref = np.exp(x.astype("float64"))
    normal = np.isfinite(ref) & (ref >= np.finfo("float32").tiny) & (ref <= 3.4e38)
    ulps = np.abs(y[normal] - ref[normal]) / np.spacing(ref[normal].astype("float32"))
    assert ulps.max() <= 1.0
    sub = (ref < np.finfo("float32").tiny) & ~np.isnan(x)
    assert np.abs(y[sub] - ref[sub]).max() <= 2e-45  # subnormal results, then 0
    assert np.isposinf(y[x > 88.7229]).all() and y[-3] == np.inf and y[-2] == 0.0
    assert np.isnan(y[-1]) and y[x.size - 10] == 1.0
    assert "expf" not in lib.get_source() and "llvm.exp" not in lib.get_source()


def test_sigmoid_and_float64_exp() -> None:
    x = np.linspace(-30, 30, 6001).astype("float32")
    sig = run(unary_kernel(x.size, "float32", te.sigmoid), x)
    np.testing.assert_allclose(sig, 1 / (1 + np.exp(-x.astype("float64"))), rtol=3e-7,
                               atol=1e-30)
    x64 = np.linspace(-700, 700, 1001)
    np.testing.assert_allclose(run(unary_kernel(x64.size, "float64", te.exp), x64),
                               np.exp(x64), rtol=1e-15)
