"""`tvm.tirx.function`: the names of tir/function.py."""

from ..tir import function as _layer

globals().update({k: v for k, v in vars(_layer).items() if not k.startswith("_")})
