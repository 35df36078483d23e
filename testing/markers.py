"""Test decorators of `tvm.testing`: `slow`, `skip_if_32bit`, `skip_if_wheel_test`, and the
`requires_*` family older TVM tests are written with (`@tvm.testing.requires_cuda`): each
skips the test, with the reason, where this machine cannot run it (see env.py)."""

from __future__ import annotations

import os
import platform
from typing import Any, Callable

from . import env

SKIP_SLOW_TESTS = os.getenv("SKIP_SLOW_TESTS", "").lower() in {"true", "1", "yes"}
IS_IN_CI = os.getenv("CI", "") == "true"


def _skip_unless(available: Callable[[], bool], reason: str) -> Any:
    """A decorator (for a test function or class) skipping it unless `available()`."""
    import pytest

    return pytest.mark.skipif(not available(), reason=reason)


def _requires(what: str, available: Callable[[], bool]) -> Callable[[Any], Any]:
    """A decorator that probes the machine when it is applied (when the test module loads),
    not when tvm.testing is imported."""
    def decorate(func: Any) -> Any:
        reason = f"needs {what}, which this machine or tvmlite lacks"
        return _skip_unless(available, reason)(func)

    return decorate


requires_llvm = _requires("LLVM", env.has_llvm)
requires_cuda = _requires("a CUDA GPU with CuPy", env.has_cuda)
requires_gpu = _requires("a GPU", env.has_gpu)
requires_cublas = _requires("cuBLAS (CuPy on a CUDA GPU)", env.has_cublas)
requires_cudnn = _requires("cuDNN", env.has_cudnn)
requires_cudagraph = _requires("CUDA graphs", env.has_cudagraph)
requires_nvptx = _requires("the NVPTX backend", env.has_nvptx)
requires_rocm = _requires("ROCm", env.has_rocm)
requires_vulkan = _requires("Vulkan", env.has_vulkan)
requires_metal = _requires("Metal", env.has_metal)
requires_opencl = _requires("OpenCL", env.has_opencl)
requires_hexagon = _requires("Hexagon", env.has_hexagon)
requires_nccl = _requires("NCCL", env.has_nccl)
requires_multi_gpu = _requires("two or more GPUs", env.has_multi_gpu)
requires_x86_vnni = _requires("an x86 CPU with VNNI", env.has_x86_vnni)
requires_x86_avx512 = _requires("an x86 CPU with AVX-512", env.has_x86_avx512)
requires_tensorcore = _requires("tensor cores (compute 7.0+)", lambda: env.has_cuda_compute(7))
requires_cuda_compute_version = (  # noqa: E731 (TVM's decorator factory)
    lambda major, minor=0: _requires(f"CUDA compute {major}.{minor}",
                                     lambda: env.has_cuda_compute(major, minor)))


def uses_gpu(func: Any) -> Any:
    """A marker in TVM (the test also runs on the CPU); the identity here."""
    return func


def requires_package(*names: str) -> Any:
    """Skip unless every named Python package imports."""
    import importlib.util

    missing = [n for n in names if importlib.util.find_spec(n) is None]
    return _skip_unless(lambda: not missing, f"needs the package(s) {', '.join(missing)}")


def slow(func: Any) -> Any:
    """Skipped when the SKIP_SLOW_TESTS environment variable is set."""
    import pytest

    reason = "SKIP_SLOW_TESTS is set"
    return pytest.mark.skipif(SKIP_SLOW_TESTS, reason=reason)(func)


def skip_if_32bit(reason: str) -> Callable[[Any], Any]:
    return _skip_unless(lambda: "32bit" not in platform.architecture()[0], reason)


def skip_if_wheel_test(func: Any) -> Any:
    """TVM skips these in its wheel tests (they need its source tree); tvmlite runs them."""
    return func
