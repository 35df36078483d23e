"""ToMixedPrecision (TVM's pass, in its main form): matmuls and convolutions of float32
tensors inside dataflow blocks read float16 copies of their operands and accumulate in
`out_dtype` (float32 by default); every other operator keeps float32. With
`out_dtype="float16"` the product is cast back to float32 for the operators after it.
`fp16_input_names` make those parameters float16 in the signature (cast up where read).

TVM also runs the operators that follow a product (relu, add, ...) in float16 and casts at
the block's outputs; here they stay in float32, which gives the same values up to float16
rounding of the products.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..ir import expr as rx
from ..ir import struct_info as si
from ..ir.functor import substitute_vars
from ..ir.module import IRModule
from ..ir.op import with_inferred_struct_info
from ..tir.attrs import Attrs
from .graph_rewrites import BlockRewriter, op
from .pass_infra import Pass, PassContext

_GEMM_CONV = ("relax.matmul", "relax.nn.conv1d", "relax.nn.conv2d", "relax.nn.conv3d",
              "relax.nn.conv2d_transpose", "relax.nn.conv1d_transpose")


def _dtype(e: rx.Expr) -> str:
    s = e.struct_info
    return s.dtype if isinstance(s, si.TensorStructInfo) else ""


class _MixedPrecision(BlockRewriter):
    def __init__(self, out_dtype: str) -> None:
        super().__init__()
        self.out_dtype = out_dtype

    def rewrite(self, b: Any) -> Any:
        v = b.value
        if not (self.dataflow and isinstance(b, rx.VarBinding) and isinstance(v, rx.Call) and
                isinstance(v.op, rx.Op) and v.op.name in _GEMM_CONV):
            return None
        if not all(_dtype(a) in ("float32", "float16") for a in v.args[:2]) or \
                _dtype(v.args[0]) != "float32" and _dtype(v.args[1]) != "float32":
            return None
        args = tuple(self.emit(op("astype")(a, "float16")) if _dtype(a) == "float32" else a
                     for a in v.args[:2]) + tuple(v.args[2:])
        attrs = Attrs(tuple((k, x) for k, x in v.attrs if k != "out_dtype") +
                      (("out_dtype", self.out_dtype),))
        call = with_inferred_struct_info(replace(v, args=args, attrs=attrs, struct_info=None))
        if self.out_dtype == "float32":
            return call
        return op("astype")(self.emit(call), "float32")


def _half_params(func: rx.Function, names: set[str]) -> rx.Function:
    """Parameters named in `names` become float16; their readers get a float32 copy."""
    mapping: dict[rx.Var, rx.Expr] = {}
    params, casts = [], []
    for p in func.params:
        s = p.struct_info
        if p.name_hint in names and isinstance(s, si.TensorStructInfo) and s.dtype == "float32":
            half = rx.Var(p.name_hint, replace(s, dtype="float16"), p.span)
            params.append(half)
            up = op("astype")(half, "float32")
            var = rx.Var(f"{p.name_hint}_fp32", up.struct_info)
            casts.append(rx.VarBinding(var, up))
            mapping[p] = var
        else:
            params.append(p)
    if not casts:
        return func
    body = substitute_vars(func.body, mapping)
    return replace(func, params=tuple(params), body=replace(
        body, blocks=(rx.BindingBlock(tuple(casts)),) + tuple(body.blocks)))


def ToMixedPrecision(out_dtype: str = "float32",  # noqa: N802
                     fp16_input_names: list[str] | None = None) -> Pass:
    """Run matmuls and convolutions in float16 (see the module docstring)."""
    if out_dtype not in ("float32", "float16"):
        raise ValueError(f"ToMixedPrecision: out_dtype must be 'float32' or 'float16', not "
                         f"{out_dtype!r}")
    names = set(fp16_input_names or ())

    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        def one(gv: Any, f: Any) -> Any:
            if not isinstance(f, rx.Function):
                return f
            return _MixedPrecision(out_dtype).run(_half_params(f, names))
        return mod.map_functions(one)
    return Pass(run, "ToMixedPrecision")
