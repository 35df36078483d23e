"""`tvm.relax.backend.cuda`: cuBLAS dispatch through CuPy."""

from . import cublas  # noqa: F401

__all__ = ["cublas"]
