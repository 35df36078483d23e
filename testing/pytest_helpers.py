"""The `tvm.testing` helpers that TVM's own tests are written with: `parameter`, `fixture`,
`main`, `device_enabled`, `assert_allclose`.

`x = tvm.testing.parameter(1, 2)` at a test module's top level makes a parametrized pytest
fixture named `x` (pytest finds fixtures among a module's globals), so every test taking `x`
runs once per value, as in TVM.
"""

from __future__ import annotations

import functools
import inspect
import sys
from typing import Any, Callable

import numpy as np


def assert_allclose(actual: Any, desired: Any, rtol: float = 1e-7, atol: float = 1e-7,
                    verbose: bool = True) -> None:
    """numpy's assert_allclose on NDArrays or arrays, as `tvm.testing.assert_allclose`."""
    np.testing.assert_allclose(_as_numpy(actual), _as_numpy(desired), rtol=rtol, atol=atol,
                               verbose=verbose)


def _as_numpy(x: Any) -> np.ndarray:
    return x.numpy() if hasattr(x, "numpy") else np.asarray(x)


def parameter(*values: Any, ids: Any = None, by_dict: dict[str, Any] | None = None) -> Any:
    """A parametrized pytest fixture: tests taking it run once for each of `values`."""
    import pytest

    if by_dict is not None:
        if values or ids:
            raise TypeError("parameter() takes either values (and ids) or by_dict, not both")
        ids, values = tuple(by_dict), tuple(by_dict.values())

    @pytest.fixture(params=values, ids=ids)
    def as_fixture(request: Any) -> Any:
        return request.param

    return as_fixture


def fixture(func: Callable[..., Any] | None = None, *, cache_return_value: bool = False) -> Any:
    """`@tvm.testing.fixture`: a pytest fixture (module-scoped when its value is cached)."""
    import pytest

    if func is None:
        return functools.partial(fixture, cache_return_value=cache_return_value)
    return pytest.fixture(func, scope="module" if cache_return_value else "function")


def main() -> None:
    """`if __name__ == "__main__": tvm.testing.main()`: run the calling file under pytest."""
    import pytest

    test_file = inspect.getsourcefile(sys._getframe(1))
    sys.exit(pytest.main([str(test_file), *sys.argv[1:]]))


def device_enabled(target: Any) -> bool:
    """Whether tests may use `target`: the CPU always; CUDA when a GPU and CuPy are present."""
    kind = str(getattr(target, "kind", target)).split()[0].strip('"{').lower()
    if kind in ("llvm", "c", "cpu"):
        return True
    if kind in ("cuda", "nvptx", "gpu"):
        from ..vm.device import cuda

        return bool(cuda().exist)
    return False


def enabled_targets() -> list[tuple[str, Any]]:
    """(target, device) pairs that tests may use here."""
    from ..vm.device import cpu, cuda

    pairs = [("llvm", cpu())]
    if device_enabled("cuda"):
        pairs.append(("cuda", cuda()))
    return pairs


def run_with_gpu_lock(func: Callable[..., Any]) -> Callable[..., Any]:
    """TVM serializes GPU tests across processes with this decorator; here it is the identity."""
    return func


def is_ampere_or_newer() -> bool:
    """Whether the GPU has compute capability 8.0 or newer (False without a GPU)."""
    if not device_enabled("cuda"):
        return False
    from ..vm.device import cuda

    return float(getattr(cuda(), "compute_version", "0") or 0) >= 8.0


DEFAULT_TEST_TARGETS = ["llvm", "cuda"]  # what tvmlite builds for (TVM's list is longer)


def assert_prim_expr_equal(lhs: Any, rhs: Any) -> None:
    """Raise ValueError unless the two index expressions are equal for every value of their
    variables (decided by their affine forms; other forms must match structurally)."""
    from ..tir.arith import constant_difference
    from ..tir.expr import const

    a = const(lhs) if isinstance(lhs, int) else lhs
    b = const(rhs) if isinstance(rhs, int) else rhs
    if isinstance(lhs, int) != isinstance(rhs, int):  # an int literal takes the other's dtype
        a, b = (const(lhs, b.dtype), b) if isinstance(lhs, int) else (a, const(rhs, a.dtype))
    if constant_difference(a, b) != 0:
        raise ValueError(f"{lhs} and {rhs} are not equal")


def strtobool(val: str) -> int:
    """1 for y/yes/t/true/on/1, 0 for n/no/f/false/off/0 (any case); else ValueError."""
    val = val.lower()
    if val in ("y", "yes", "t", "true", "on", "1"):
        return 1
    if val in ("n", "no", "f", "false", "off", "0"):
        return 0
    raise ValueError(f"invalid truth value {val!r}")


def np_dtype_from_str(dtype: str) -> np.dtype:
    """The numpy dtype of a TVM dtype string (bfloat16/float8 need the ml_dtypes package)."""
    try:
        return np.dtype(dtype)
    except TypeError:
        import ml_dtypes  # noqa: F401 (registers bfloat16, float8_* with numpy)

        return np.dtype(getattr(ml_dtypes, dtype))


def generate_random_array(dtype: str, shape: tuple[int, ...]) -> np.ndarray:
    """Random values of `dtype`: uniform in [-1, 1) for floats, the full range for ints."""
    np_dtype = np_dtype_from_str(dtype)
    rng = np.random.default_rng()
    if np.issubdtype(np_dtype, np.integer):
        info = np.iinfo(np_dtype)
        return rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=np_dtype)
    if np_dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(bool)
    return rng.uniform(-1, 1, size=shape).astype(np_dtype)


def identity_after(x: Any, sleep: float) -> Any:
    """`x`, after sleeping `sleep` seconds (TVM's helper for timeout tests)."""
    import time

    if sleep:
        time.sleep(sleep)
    return x


def object_use_count(obj: Any) -> int:
    """How many references hold `obj` (not counting this call's own)."""
    return sys.getrefcount(obj) - 2
