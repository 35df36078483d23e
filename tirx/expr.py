"""`tvm.tirx.expr`: the names of tir/expr.py."""

from ..tir import expr as _layer

globals().update({k: v for k, v in vars(_layer).items() if not k.startswith("_")})
