"""`tvm.ir.base`: structural equality and hashing, and `Span` (TVM's module of that name)."""

from ..tir.expr import Span  # noqa: F401
from .structural import assert_structural_equal, structural_equal, structural_hash  # noqa: F401
