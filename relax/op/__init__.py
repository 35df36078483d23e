"""`tvm.relax.op`: `relax.op.add(x, y)`, `relax.op.nn.relu(x)`, ... the registered operators.

The names come from the op registry (`ir/op.py`), so an op registered in `ir/ops/` appears here
and in its submodule (`nn`, `image`) without being listed again.
"""

from typing import Any

from ...ir.ops.linalg_stats import linear, masked_fill  # noqa: F401 (built from other ops)
from ...script.relax import assert_op, print  # noqa: F401,A004 (R.print, R.assert_op)
from . import image, nn  # noqa: F401 (relax.op.nn, relax.op.image)
from ._registry import builders

globals().update(builders())

# NOTE: names of the MLC course's era, before TVM moved them: relax.op.relu is
# relax.op.nn.relu; relax.op.dense(x, w) is x @ w.T
if "relu" not in globals():
    relu = nn.relu


def dense(x: Any, w: Any) -> Any:
    """`relax.op.dense(x, w)` of 2022: `x @ w.T`."""
    return matmul(x, permute_dims(w))  # type: ignore[name-defined]  # noqa: F821
