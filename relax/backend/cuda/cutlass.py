"""`tvm.relax.backend.cuda.cutlass`: TVM's CUTLASS BYOC. tvmlite ships no CUTLASS kernels (they
are C++ templates compiled by nvcc), so partitioning for it says so when called."""

from __future__ import annotations

from typing import Any


def partition_for_cutlass(mod: Any, annotate_codegen: bool = True, **_: Any) -> Any:
    raise NotImplementedError("tvmlite has no CUTLASS backend: its kernels are CUDA C++ templates "
                              "built by nvcc; offload with `partition_for_cublas` (cuBLAS "
                              "through CuPy) or the `blas` backend instead")
