"""FoldConstantBatchnorm: an inference batch_norm after a conv2d whose weight and statistics
are constants becomes that conv2d with scaled constant weights, plus a constant shift.

Models imported with bound weights (torch's `from_exported_program`, ONNX) reach the build as
`conv2d(x, W)` then `batch_norm(., gamma, beta, mean, var, training=False)`. Run as written,
the batch norm is one more pass over every activation (ResNet-18 via torch ran 21 ms where the
same network exported through torch.onnx, which folds it, ran 14). Here, with
`s = gamma / sqrt(var + eps)`, the pair becomes `conv2d(x, W * s) + (beta - mean * s)`, both
constants computed once with numpy at build time (the per-channel factors in float64).

Only what is certainly equal is taken: NCHW/OIHW convs whose result nothing else reads, a batch
norm over the channel axis in inference mode (`training=False`; in training mode it normalizes
with the batch's statistics), all five operands constants. The public, symbolic pass is
`relax.transform.FoldBatchnormToConv2D` (transforms/graph_rewrites.py).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from ..ir import expr as rx
from ..ir import struct_info as si
from ..ir.functor import var_use_counts
from ..ir.ops.base import const
from ..vm.ndarray import NDArray, aligned_empty
from .graph_rewrites import DROP, BlockRewriter, _foldable, function_rewrite, op
from .pass_infra import Pass
from .simple_passes import remove_unused


class _FoldConstantBN(BlockRewriter):
    def __init__(self) -> None:
        super().__init__()
        self.values: dict[rx.Var, rx.Expr] = {}
        self.uses: dict[rx.Var, int] = {}
        self.folded: dict[rx.Var, rx.Var] = {}

    def run(self, func: rx.Function) -> rx.Function:
        self.uses = var_use_counts(*(b.value for blk in func.body.blocks
                                     for b in blk.bindings), func.body.body)
        out = super().run(func)
        # NOTE: only the folded batch norms' leftovers go; the user's own unused bindings
        # (a pure-declared packed call run for its effect, say) stay, as TVM's build keeps them
        return remove_unused(out) if self.folded else out

    def rewrite(self, b: Any) -> Any:
        if isinstance(b, rx.VarBinding):
            self.values[b.var] = b.value
        v = b.value
        if isinstance(v, rx.TupleGetItem) and v.index == 0 and v.tuple_value in self.folded:
            folded = self.folded[v.tuple_value]
            if isinstance(b.var, rx.DataflowVar) or not isinstance(folded, rx.DataflowVar):
                # NOTE: no `y = x` alias left behind: the epilogue fusion that follows
                # matches `relu(add(conv, shift))` through variables, not through aliases
                self.mapping[b.var] = folded
                return DROP
            return folded
        if not (isinstance(v, rx.Call) and getattr(v.op, "name", "") == "relax.nn.batch_norm"):
            return None
        conv = self.values.get(v.args[0])
        if v.attr("training") or self.uses.get(v.args[0]) != 1 or not _foldable(conv, v):
            return None
        operands = (conv.args[1], *v.args[1:])
        if not all(isinstance(a, rx.Constant) for a in operands):
            return None
        gamma, beta, mean, var = (a.data.numpy().astype(np.float64) for a in operands[1:])
        scale = (gamma if v.attr("scale") else 1.0) / np.sqrt(var + float(v.attr("epsilon")))
        shift = (beta if v.attr("center") else 0.0) - mean * scale
        dtype = conv.args[1].struct_info.dtype
        # NOTE: in the weight's own dtype, straight into aligned memory (float64 temporaries
        # and copies of ResNet-18's weights cost 25 ms a build)
        new_w = _scaled(conv.args[1], scale.astype(dtype).reshape(-1, 1, 1, 1))
        new_conv = self.emit(replace(conv, args=(conv.args[0], new_w)))
        out = self.emit(op("add")(new_conv, const(shift.reshape(1, -1, 1, 1).astype(dtype))))
        self.folded[b.var] = out
        moving = v.args[3:5]
        return rx.Tuple((out, *moving), si.TupleStructInfo(
            (out.struct_info, *(m.struct_info for m in moving))))


def _scaled(w: rx.Constant, scale: np.ndarray) -> rx.Constant:
    data = w.data._arr if isinstance(w.data._arr, np.ndarray) else w.data.numpy()
    out = aligned_empty(data.shape, data.dtype)
    np.multiply(data, scale, out=out)
    return rx.Constant(NDArray(out), w.struct_info)


def FoldConstantBatchnorm() -> Pass:  # noqa: N802 (a pass, named as TVM names them)
    """Fold each inference batch_norm with constant operands into the conv2d before it."""
    return function_rewrite("FoldConstantBatchnorm", _FoldConstantBN)
