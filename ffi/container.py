"""`tvm_ffi.container`: the module TVM 0.27 code names its containers by
(`tvm_ffi.container.Map`, `.Array`); the same classes as `tvm_ffi.Map` / `tvm_ffi.Array`."""

from . import Array, Map

__all__ = ["Array", "Map"]
