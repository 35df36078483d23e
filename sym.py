"""`tvm.sym` (TVM 0.27's name for `tvm.arith`): the integer analyzer."""

from .arith import Analyzer, ConstIntBound, IntervalSet, ModularSet

__all__ = ["Analyzer", "ConstIntBound", "IntervalSet", "ModularSet"]
