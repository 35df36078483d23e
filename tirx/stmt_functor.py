"""`tvm.tirx.stmt_functor`: walking and substituting TIR (tir/functor.py's)."""

from ..tir.functor import post_order_visit, substitute  # noqa: F401

__all__ = ["post_order_visit", "substitute"]
