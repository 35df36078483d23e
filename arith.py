"""`tvm.arith`: the integer analyzer TVM code uses to simplify and bound index expressions
(`tvm.arith.Analyzer().simplify(e)`); TVM 0.27 also names it `tvm.sym`."""

from .tir.analyzer import Analyzer, ConstIntBound, IntervalSet, ModularSet

__all__ = ["Analyzer", "ConstIntBound", "IntervalSet", "ModularSet"]
