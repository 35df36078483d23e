"""`tvm.relax.testing.transform`: passes TVM exposes for its own tests."""

from ...transforms.op_normalize import NormalizeOpCalls


def ApplyEmptyCppMutator():  # noqa: N802
    """TVM's default C++ ExprMutator over every relax function: the IR is rebuilt, with
    operator-specific normalization (FNormalize) applied to each call."""
    return NormalizeOpCalls()


__all__ = ["ApplyEmptyCppMutator"]
