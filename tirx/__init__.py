"""`tvm.tirx`: TVM 0.27's name for `tvm.tir`. Every name is tir's own object; the submodules
TVM code imports by path (`tvm.tirx.function`, `.expr`, `.stmt`) are thin modules here."""

from .. import tir as _tir

globals().update({k: v for k, v in vars(_tir).items() if not k.startswith("_")})
