"""`tvm.tirx.stmt`: the names of tir/stmt.py."""

from ..tir import stmt as _layer

globals().update({k: v for k, v in vars(_layer).items() if not k.startswith("_")})
