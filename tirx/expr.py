"""`tvm.tirx.expr`: the names of tir/expr.py and its per-operator node classes."""

from ..tir import expr as _layer
from ..tir import expr_nodes as _nodes

globals().update({k: v for k, v in vars(_layer).items() if not k.startswith("_")})
# TVM's per-operator node classes (`tirx.expr.Add`, `EQ`, `Ramp`, ...)
globals().update({k: v for k, v in vars(_nodes).items() if not k.startswith("_")
                  and k not in globals()})
