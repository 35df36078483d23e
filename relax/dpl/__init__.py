"""`tvm.relax.dpl`: the dataflow pattern language (is_op, wildcard, rewrite_call, ...)."""

from ...ir.dpl import *  # noqa: F401,F403 (the pattern language, whole)
from ...ir.dpl_graph import PatternContext, PatternSeq, rewrite_bindings  # noqa: F401
from ...transforms.pattern_rewriter import (  # noqa: F401 (rewrite rules as objects)
    ExprPatternRewriter, OrRewriter, PatternMatchingRewriter, TupleRewriter,
)
