"""`tvm.relax.testing`: helpers for testing relax programs (tvmlite.testing's, by TVM's path)."""

from ...testing import assert_allclose  # noqa: F401
from .ast_printer import dump_ast  # noqa: F401

__all__ = ["assert_allclose", "dump_ast"]
