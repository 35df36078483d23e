"""`tvm.relax.testing.transform`: passes and analyses TVM exposes for its own tests."""

from __future__ import annotations

from typing import Any

from ...transforms.inplace_analysis import aliases, liveness
from ...transforms.op_normalize import NormalizeOpCalls


def ApplyEmptyCppMutator():  # noqa: N802
    """TVM's default C++ ExprMutator over every relax function: the IR is rebuilt, with
    operator-specific normalization (FNormalize) applied to each call."""
    return NormalizeOpCalls()


def dataflow_liveness_analysis(block: Any) -> dict[Any, tuple[int, int]]:
    """Each variable's (first, last) binding index in `block` (transforms/inplace_analysis)."""
    return liveness(block)


def dataflow_alias_analysis(block: Any, inputs: list[Any]
                            ) -> tuple[dict[Any, set[int]], dict[int, list[set[int]]]]:
    """Each variable's abstract memory locations, and the elements of tuple locations."""
    return aliases(block, list(inputs))


__all__ = ["ApplyEmptyCppMutator", "dataflow_alias_analysis", "dataflow_liveness_analysis"]
