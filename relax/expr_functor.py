"""`tvm.relax.expr_functor`: Python visitors and mutators over relax expressions."""

from ..transforms.expr_functor import PyExprMutator, PyExprVisitor, mutator, visitor
from ..transforms.expr_functor import ExprFunctor

__all__ = ["PyExprMutator", "PyExprVisitor", "mutator", "visitor"]
__all__ += ["ExprFunctor"]
