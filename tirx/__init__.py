"""`tvm.tirx`: TVM 0.27's name for `tvm.tir`. Every name is tir's own object; the submodules
TVM code imports by path (`tvm.tirx.function`, `.expr`, `.stmt`) are thin modules here."""

from .. import tir as _tir

globals().update({k: v for k, v in vars(_tir).items() if not k.startswith("_")})

# TVM's tir-level calls (`tirx.atan(x)`, `tirx.call_llvm_intrin(...)`) are the T intrinsics.
from ..script import tir_intrin as _intrin  # noqa: E402

globals().update({k: getattr(_intrin, k) for k in _intrin.__all__ if k not in globals()})
from ..script import tir as _T  # noqa: E402

globals().update({k: getattr(_T, k) for k in (*_T._MATH, "pow", "isnan") if k not in globals()})


def __getattr__(name: str) -> object:
    return getattr(_tir, name)  # tir's late names (its reducers: `tirx.max(a, b)`)

from .buffer import BufferAccessKind  # noqa: E402,F401
from ..tir.stmt import Block as SBlock, BlockRealize as SBlockRealize  # noqa: E402,F401
from . import stmt_functor  # noqa: E402,F401 (used as `tvm.tirx.stmt_functor.post_order_visit`)
