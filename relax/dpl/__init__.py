"""`tvm.relax.dpl`: the dataflow pattern language (is_op, wildcard, rewrite_call, ...)."""

from ...ir.dpl import *  # noqa: F401,F403 (the pattern language, whole)
