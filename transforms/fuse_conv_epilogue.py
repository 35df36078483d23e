"""FuseConvEpilogue: a conv2d and the elementwise chain after it (bias add, relu/clip,
residual add, ...) become one kernel that finishes each output tile right after its
reduction (topi/epilogue.py), instead of one more pass over the activation per operator.

A chain starts at an NCHW/OIHW `conv2d` and takes, while the previous result has no other
use: `add`/`multiply`/`subtract` with a tensor that broadcasts to the conv's output without
changing its shape (a bias `(1, C, 1, 1)` constant, a residual), `nn.relu`, `clip`, and
`maximum`/`minimum` with a scalar constant. The fused call takes the last binding's place
(every operand is defined by then); the rest of the chain goes.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..ir import expr as rx
from ..ir import struct_info as si
from ..ir.functor import var_use_counts
from ..ir.module import IRModule
from ..topi.epilogue import conv2d_nchw_fused
from .legalize.emit import TEEmitter
from .pass_infra import Pass, PassContext
from .simple_passes import remove_unused

_BINARY = {"relax.add": "add", "relax.multiply": "multiply", "relax.subtract": "subtract"}
_SCALAR = {"relax.maximum": "maximum", "relax.minimum": "minimum"}


def FuseConvEpilogue() -> Pass:  # noqa: N802 (a pass, named as TVM names them)
    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        funcs = dict(mod.functions)
        emitter = TEEmitter(funcs)
        for gv, func in mod.items():
            if isinstance(func, rx.Function):
                new = _rewrite(func, emitter)
                if new is not func:
                    funcs[gv] = remove_unused(new)
        return IRModule(funcs, dict(mod.attrs), dict(mod.global_infos))

    return Pass(run, "FuseConvEpilogue")


def _rewrite(func: rx.Function, emitter: TEEmitter) -> rx.Function:
    bindings = [b for blk in func.body.blocks for b in blk.bindings]
    uses = var_use_counts(*(b.value for b in bindings), func.body.body)
    user: dict[rx.Var, rx.VarBinding] = {}  # the binding using a var, for single-use vars
    for b in bindings:
        if isinstance(b, rx.VarBinding):
            for v in var_use_counts(b.value):
                user.setdefault(v, b)
    replaced: dict[rx.Var, rx.Call] = {}
    for b in bindings:
        if isinstance(b, rx.VarBinding) and _is_conv(b.value):
            chain = _chain(b, uses, user)
            if chain is not None:
                last, steps, extras = chain
                replaced[last.var] = _fused_call(b.value, steps, extras, last, emitter)
    if not replaced:
        return func
    blocks = [replace(blk, bindings=tuple(
        replace(b, value=replaced[b.var]) if b.var in replaced else b for b in blk.bindings))
        for blk in func.body.blocks]
    return replace(func, body=replace(func.body, blocks=tuple(blocks)))


def _is_conv(value: Any) -> bool:
    if not (isinstance(value, rx.Call) and getattr(value.op, "name", "") == "relax.nn.conv2d"):
        return False
    out = value.struct_info
    return (value.attr("data_layout") in (None, "NCHW") and value.attr("kernel_layout") in
            (None, "OIHW") and value.attr("out_layout") in (None, "NCHW")
            and isinstance(out, si.TensorStructInfo) and out.static_shape is not None
            and out.dtype in ("float32", "float64"))


def _chain(conv: rx.VarBinding, uses: dict[rx.Var, int], user: dict[rx.Var, rx.VarBinding]
           ) -> tuple[rx.VarBinding, tuple[tuple[Any, ...], ...], list[rx.Expr]] | None:
    """(last binding, steps, extra operands) of the elementwise chain after `conv`."""
    shape = conv.value.struct_info.static_shape
    steps: list[tuple[Any, ...]] = []
    extras: list[rx.Expr] = []
    cur = conv
    while uses.get(cur.var) == 1 and cur.var in user:
        nxt = user[cur.var]
        step = _step(nxt.value, cur.var, shape, len(extras))
        if step is None or getattr(nxt.value.struct_info, "static_shape", None) != shape:
            break
        step, extra = step
        steps.append(step)
        if extra is not None:
            extras.append(extra)
        cur = nxt
    return (cur, tuple(steps), extras) if steps else None


def _step(value: Any, prev: rx.Var, shape: tuple[int, ...], k: int
          ) -> tuple[tuple[Any, ...], rx.Expr | None] | None:
    if not isinstance(value, rx.Call):
        return None
    name = getattr(value.op, "name", "")
    args = value.args
    if name == "relax.nn.relu" and args[0] is prev:
        return ("relu",), None
    if name == "relax.clip" and args[0] is prev:
        lo, hi = (_number(a) for a in args[1:3])
        return ((("clip", lo, hi), None) if lo is not None and hi is not None else None)
    if name in _SCALAR and len(args) == 2 and prev in args:
        c = _number(args[1] if args[0] is prev else args[0])
        return ((_SCALAR[name], c), None) if c is not None else None
    if name in _BINARY and len(args) == 2 and (args[0] is prev) != (args[1] is prev):
        other = args[1] if args[0] is prev else args[0]
        if not _broadcasts(other, shape):
            return None
        kind = _BINARY[name]
        step = (kind, k, args[0] is prev) if kind == "subtract" else (kind, k)
        return step, other
    return None


def _number(e: Any) -> float | None:
    """The value of a scalar constant (a 0-d tensor constant or a PrimValue)."""
    if isinstance(e, rx.Constant) and e.data.shape == ():
        return float(e.data.numpy())
    if isinstance(e, rx.PrimValue) and hasattr(e.value, "value"):
        return float(e.value.value)
    return None


def _broadcasts(e: Any, shape: tuple[int, ...]) -> bool:
    s = getattr(e.struct_info, "static_shape", None)
    if s is None or len(s) > len(shape):
        return False
    return all(d in (1, want) for d, want in zip(s, shape[len(shape) - len(s):]))


def _fused_call(conv: rx.Call, steps: tuple[tuple[Any, ...], ...], extras: list[rx.Expr],
                last: rx.VarBinding, emitter: TEEmitter) -> rx.Call:
    x, w = conv.args
    attrs = {"strides": tuple(int(v) for v in conv.attr("strides")),
             "padding": tuple(int(v) for v in conv.attr("padding")),
             "dilation": tuple(int(v) for v in conv.attr("dilation")),
             "groups": int(conv.attr("groups")), "out_dtype": conv.attr("out_dtype") or None,
             "steps": steps}
    key = ("conv2d_fused", tuple((a.struct_info.static_shape, a.struct_info.dtype)
                                 for a in (x, w, *extras)), tuple(sorted(attrs.items())))
    return emitter.call_te(conv2d_nchw_fused, [x, w, *extras], attrs,
                           "conv2d_fused", key=key, out_sinfo=last.value.struct_info)
