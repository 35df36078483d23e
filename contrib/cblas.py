"""`tvm.contrib.cblas`: TVM's te externs calling a CBLAS library. tvmlite links no BLAS into its
kernels; the module imports so TVM code loads, and each function says what to use instead."""

from typing import Any


def _unavailable(name: str) -> Any:
    def call(*_: Any, **__: Any) -> Any:
        raise NotImplementedError(
            f"tvm.contrib.cblas.{name}: tvmlite does not link a CBLAS library into kernels; "
            "use relax.op.matmul (legalized to TIR) or the `blas` BYOC backend "
            "(relax.backend.blas) for BLAS speed")

    call.__name__ = name
    return call


matmul = _unavailable("matmul")
batch_matmul = _unavailable("batch_matmul")
