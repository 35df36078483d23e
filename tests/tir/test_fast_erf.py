"""float32 erf compiles to an inline rational polynomial (as TVM's LLVM backend does), which
vectorizes; float64 keeps libm. Checked against math.erf over the whole line."""

import math

import numpy as np

import tvmlite as tvm
from tvmlite import te


def erf_kernel(n: int, dtype: str):
    A = te.placeholder((n,), dtype, name="A")
    B = te.compute((n,), lambda i: te.erf(A[i]), name="B")
    return tvm.compile(te.create_prim_func([A, B]), target="llvm")


def run(lib, x: np.ndarray) -> np.ndarray:
    out = tvm.nd.array(np.zeros_like(x))
    lib(tvm.nd.array(x), out)
    return out.numpy()


def test_float32_erf_is_within_4e_7_everywhere() -> None:
    x = np.concatenate([np.linspace(-8, 8, 40001), [0.0, -0.0, 1e-30, -1e-30, 3.9, 4.0, 4.1],
                        [np.inf, -np.inf, np.nan]]).astype("float32")
    lib = erf_kernel(x.size, "float32")
    y = run(lib, x)
    ref = np.array([math.erf(float(v)) for v in x])
    finite = ~np.isnan(x)
    assert np.abs(y[finite] - ref[finite]).max() <= 4e-7
    small = finite & (np.abs(x) > 0) & (np.abs(x) < 1)
    assert (np.abs(y[small] - ref[small]) / np.abs(ref[small])).max() <= 6e-7
    assert np.abs(y[finite]).max() <= 1.0 and y[-3] == 1.0 and y[-2] == -1.0
    assert np.isnan(y[-1]) and y[x.size - 10] == 0.0
    assert "erff" not in lib.get_source()  # no libm call: the loop can vectorize


def test_float64_erf_still_calls_libm() -> None:
    x = np.linspace(-5, 5, 1001)
    lib = erf_kernel(x.size, "float64")
    np.testing.assert_allclose(run(lib, x), [math.erf(v) for v in x], rtol=1e-15, atol=1e-16)
    assert 'call double @"tvmlite_libm_erf"' in lib.get_source()
