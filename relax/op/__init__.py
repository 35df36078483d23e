"""`tvm.relax.op`: `relax.op.add(x, y)`, `relax.op.nn.relu(x)`, ... the registered operators.

The names come from the op registry (`ir/op.py`), so an op registered in `ir/ops/` appears here
and in its submodule (`nn`, `image`) without being listed again.
"""

from typing import Any

from ...ir.ops.linalg_stats import linear, masked_fill  # noqa: F401 (built from other ops)
from ...script.relax import (  # noqa: F401,A004 (R.print, R.assert_op, relax.op.call_tir)
    assert_op, call_dps_packed, call_pure_packed, call_tir, print,
)
from ...script.relax import call_tir_inplace  # noqa: F401 (relax.op.call_tir_inplace)
from ...script.relax import call_tir_with_grad  # noqa: F401
from ...transforms.gradient_rules import register_gradient  # noqa: F401
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


# NOTE: last, so each file-named submodule finds every builder above; importing them binds
# `set` (relax.op.set) over the builtin in this namespace, which uses no builtin set after this
from . import (  # noqa: E402,F401
    base, binary, create, datatype, index, linear_algebra, manipulate, mask, qdq, sampling,
    search, set, sorting, statistical, ternary, unary, vision,
)
roi_pool = vision.roi_pool  # noqa: E305 (TVM's relax.op also holds the vision operators)
roi_align, get_valid_counts = vision.roi_align, vision.get_valid_counts  # noqa: E305
non_max_suppression = vision.non_max_suppression
all_class_non_max_suppression = vision.all_class_non_max_suppression
multibox_transform_loc = vision.multibox_transform_loc
from . import builtin, grad, memory, vm  # noqa: E402,F401 (relax.op.memory.alloc_storage, ...)
