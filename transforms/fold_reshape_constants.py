"""FoldReshapeOfConstants: a reshape (expand_dims, squeeze, flatten) of a constant becomes the
reshaped constant, at build time, for free.

Frontends reshape constants: ONNX's Conv bias arrives as `add(conv2d(x, W), reshape(b, [1, -1,
1, 1]))`, and so does any graph written against a `(C,)` parameter. Left as a binding, every
call of the model runs one `vm.builtin.reshape` per convolution to rebuild a value known at
build time. These ops only relabel the shape of contiguous data, so the folded constant is a
numpy view of the original: no copy, no kernel compiled. Transposes are left alone:
FuseTransposeMatmul chooses the weight layout for those.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ir import expr as rx
from ..ir import struct_info as si
from ..vm.ndarray import NDArray
from .graph_rewrites import DROP, BlockRewriter, function_rewrite
from .pass_infra import Pass

_RELABELS = frozenset({"relax.reshape", "relax.expand_dims", "relax.squeeze", "relax.flatten"})


class _FoldReshapeOfConstants(BlockRewriter):
    def rewrite(self, b: Any) -> Any:
        v = b.value
        if not (isinstance(b, rx.VarBinding) and isinstance(v, rx.Call)
                and getattr(v.op, "name", "") in _RELABELS and isinstance(v.args[0], rx.Constant)):
            return None
        out = v.struct_info
        if not isinstance(out, si.TensorStructInfo) or out.static_shape is None:
            return None
        data = v.args[0].data
        arr = data._arr if isinstance(data._arr, np.ndarray) else data.numpy()
        self.mapping[b.var] = rx.Constant(NDArray(arr.reshape(out.static_shape)), out)
        return DROP


def FoldReshapeOfConstants() -> Pass:  # noqa: N802 (a pass, named as TVM names them)
    """Replace each reshape-like op of a constant with the reshaped constant."""
    return function_rewrite("FoldReshapeOfConstants", _FoldReshapeOfConstants)
