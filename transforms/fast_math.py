"""FastMathTransform (TVM's pass): `exp`, `tanh` and `erf` of float32 tensors become kernels
that approximate them with a few multiplies and adds instead of calling libm.

- exp: range reduction `x = n ln2 + r` (|r| <= ln2 / 2), a degree-7 polynomial for `e**r` and
  `2**n` by `exp2` (one instruction on the host): relative error ~1e-7.
- tanh and erf: the odd/even rational approximations Eigen and TVM use, on inputs clamped to
  [-9, 9] and [-4, 4] (beyond which float32 rounds the result to +/-1).
"""

from __future__ import annotations

import math
from typing import Any, Callable

from ..ir import expr as rx
from ..ir import struct_info as si
from ..ir.functor import ExprMutator
from ..ir.module import IRModule
from ..te import compute
from ..tir import expr as tx
from .pass_infra import Pass, PassContext


def _c(v: float) -> tx.PrimExpr:
    return tx.const(v, "float32")


def _clamp(v: tx.PrimExpr, bound: float) -> tx.PrimExpr:
    low = tx.binop(tx.BinaryOp.MIN, v, _c(bound))
    return tx.binop(tx.BinaryOp.MAX, low, _c(-bound))


def _intrin(name: str, v: tx.PrimExpr) -> tx.PrimExpr:
    return tx.Call(v.dtype, f"tir.{name}", (v,))


def _horner(x: tx.PrimExpr, coeffs: list[float]) -> tx.PrimExpr:
    """coeffs[0] + coeffs[1] x + ... by Horner's rule."""
    acc = _c(coeffs[-1])
    for c in reversed(coeffs[:-1]):
        acc = acc * x + _c(c)
    return acc


def _fast_exp(v: tx.PrimExpr) -> tx.PrimExpr:
    x = _clamp(v, 88.3762626647949)
    n = _intrin("floor", x * _c(1 / math.log(2)) + _c(0.5))
    r = x - n * _c(0.693359375) + n * _c(2.12194440e-4)  # ln2 in two parts, for accuracy
    return _horner(r, [1 / math.factorial(k) for k in range(8)]) * _intrin("exp2", n)


_TANH_P = [4.89352455891786e-03, 6.37261928875436e-04, 1.48572235717979e-05,
           5.12229709037114e-08, -8.60467152213735e-11, 2.00018790482477e-13,
           -2.76076847742355e-16]
_TANH_Q = [4.89352518554385e-03, 2.26843463243900e-03, 1.18534705686654e-04,
           1.19825839466702e-06]
_ERF_P = [-1.60960333262415e-02, -2.95459980854025e-03, -7.34990630326855e-04,
          -5.69250639462346e-05, -2.10102402082508e-06, 2.77068142495902e-08,
          -2.72614225801306e-10]
_ERF_Q = [-1.42647390514189e-02, -7.37332916720468e-03, -1.68282697438203e-03,
          -2.13374055278905e-04, -1.45660718464996e-05]


def _rational(v: tx.PrimExpr, bound: float, p: list[float], q: list[float]) -> tx.PrimExpr:
    x = _clamp(v, bound)
    x2 = x * x
    return x * _horner(x2, p) / _horner(x2, q)


_FAST: dict[str, Callable[[tx.PrimExpr], tx.PrimExpr]] = {
    "relax.exp": _fast_exp,
    "relax.tanh": lambda v: _rational(v, 9.0, _TANH_P, _TANH_Q),
    "relax.erf": lambda v: _rational(v, 4.0, _ERF_P, _ERF_Q),
}


class _Fast(ExprMutator):
    def __init__(self, funcs: dict[Any, Any]) -> None:
        from .legalize import TEEmitter

        self.emitter = TEEmitter(funcs)

    def visit_Call(self, call: rx.Call) -> rx.Expr:
        call = self.generic_visit(call)
        fast = _FAST.get(call.op.name) if isinstance(call.op, rx.Op) else None
        s = call.args[0].struct_info if call.args else None
        if fast is None or not (isinstance(s, si.TensorStructInfo) and s.dtype == "float32"
                                and s.shape is not None):
            return call
        name = "fast_" + call.op.name.split(".")[-1]

        def te_fn(x: Any) -> Any:
            return compute(x.shape, lambda *i: fast(x[i]), name=name)

        from .legalize.emit import sinfo_key

        key = (name, sinfo_key(call.args[0]))
        return self.emitter.call_te(te_fn, [call.args[0]], {}, name, key, call.struct_info)


def FastMathTransform() -> Pass:  # noqa: N802
    """float32 `exp`, `tanh` and `erf` become fast approximate kernels (module docstring)."""
    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        funcs = dict(mod.functions)
        fast = _Fast(funcs)
        for gv, f in list(mod.items()):
            if isinstance(f, rx.Function):
                funcs[gv] = fast.visit(f)
        return IRModule(funcs, dict(mod.attrs), dict(mod.global_infos))
    return Pass(run, "FastMathTransform")
