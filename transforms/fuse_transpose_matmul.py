"""FuseTransposeMatmul (TVM's pass of that name): `matmul(x, permute_dims(w))` becomes one
kernel that reads the weight where it lies. Run alone it gives TVM's form, `call_tir(NT_matmul,
(x, w))` (nt_matmul.py); the build pipelines (default schedules on) get the fast form below.

Linear layers arrive as `y = matmul(x, permute_dims(w))` (torch's and TVM's nn.Linear keep `w`
as (out, in)). Legalized as written, every call first copies the transposed weight -- for
VGG-11's first dense layer 400 MB read and written before the matmul reads it again. Here the
pair becomes `call_tir(dense, (x, w))` (`topi.nn.dense`: `y[i, j] = sum_k x[i, k] * w[j, k]`,
a contiguous dot product per output) and the transpose, now unused, goes. Only 2-D operands
with the plain transpose are taken; anything else is left to LegalizeOps.

When `w` is a constant (weights bound at build time) and `x` has more than one row, the
weight is rearranged once here instead, into the contiguous column panels the register tile
of topi/matmul_schedule.py reads (topi/matmul_packed.py), and the pair becomes
`call_tir(matmul_packed, (x, w_packed))` (4-6x faster than the dot products of the dense
kernel on BERT's linear layers with the plain transpose; packed, 2x more). A constant right
operand of a plain `matmul(x, w)` (ONNX's MatMul) is packed the same way. When its shapes
are not static or its row does not vectorize, the weight is only transposed, for the plain
matmul rule. A single row (a matrix-vector product) reads the weight once either way, so a
big classifier weight is not copied for nothing.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from .. import topi
from ..ir import expr as rx
from ..ir import struct_info as si
from ..ir.functor import var_use_counts
from ..ir.module import IRModule
from ..ir.op import Op
from ..vm.ndarray import array
from ..topi.matmul_packed import matmul_packed, pack_panels, panel_lanes
from ..topi.schedule_mode import scheduled
from .legalize.emit import TEEmitter
from .nt_matmul import nt_matmul
from .pass_infra import Pass, PassContext
from .simple_passes import remove_unused

_MATMUL, _PERMUTE, _ADD = Op("relax.matmul"), Op("relax.permute_dims"), Op("relax.add")


def FuseTransposeMatmul() -> Pass:  # noqa: N802 (TVM's name)
    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        funcs = dict(mod.functions)
        emitter = TEEmitter(funcs)
        for gv, func in mod.items():
            if isinstance(func, rx.Function):
                new = _rewrite(func, emitter)
                if new is not func:
                    funcs[gv] = remove_unused(new)
        return IRModule(funcs, dict(mod.attrs), dict(mod.global_infos))

    return Pass(run, "FuseTransposeMatmul")


def _is_2d(e: Any) -> bool:
    s = getattr(e, "struct_info", None)
    return isinstance(s, si.TensorStructInfo) and s.ndim == 2 and bool(s.dtype)


def _transposed(value: Any) -> rx.Expr | None:
    """`w` when `value` is `permute_dims(w)` swapping the two axes of a 2-D `w`."""
    if not (isinstance(value, rx.Call) and value.op == _PERMUTE and _is_2d(value.args[0])):
        return None
    axes = value.attr("axes")
    return value.args[0] if axes is None or tuple(int(a) for a in axes) == (1, 0) else None


def _swapped_last(value: Any) -> rx.Expr | None:
    """`w` when `value` is `permute_dims(w)` swapping just the last two axes (TVM's check)."""
    if not (isinstance(value, rx.Call) and value.op == _PERMUTE):
        return None
    s = getattr(value.args[0], "struct_info", None)
    if not isinstance(s, si.TensorStructInfo) or s.ndim < 2:
        return None
    axes = value.attr("axes")
    if axes is None:
        return value.args[0] if s.ndim == 2 else None
    want = list(range(s.ndim))
    want[-1], want[-2] = want[-2], want[-1]
    return value.args[0] if [int(a) for a in axes] == want else None


def _nt_matmul_call(matmul: rx.Call, w: rx.Expr, emitter: TEEmitter) -> rx.Call:
    """TVM's plain form: `call_tir(NT_matmul, (x, w))`."""
    out = matmul.struct_info
    if not isinstance(out, si.TensorStructInfo) or out.shape is None:
        return matmul

    def kernel(a: Any, b: Any) -> Any:
        return nt_matmul(a, b, out.shape, out.dtype)

    return emitter.call_te(kernel, [matmul.args[0], w], {}, "NT_matmul", out_sinfo=out)


def _rows(x: Any) -> int | None:
    """The number of rows a matmul's left operand has (its dims but the last), when static."""
    shape = getattr(x.struct_info, "static_shape", None)
    return None if shape is None else int(np.prod(shape[:-1]))


def _transpose_constant(w: rx.Constant, done: dict[int, rx.Constant]) -> rx.Constant:
    """w's transpose, computed once per weight at build time."""
    if id(w) not in done:
        data = w.data._arr if isinstance(w.data._arr, np.ndarray) else w.data.numpy()
        # NOTE: one copy, straight into aligned memory (a BERT layer's weights: 23 -> 8 ms)
        t = array(data.T)
        done[id(w)] = rx.Constant(t, si.TensorStructInfo(t.shape, w.struct_info.dtype))
    return done[id(w)]


def _packed_call(matmul: rx.Call, w: rx.Constant, transposed: bool, emitter: TEEmitter,
                 done: dict[Any, rx.Constant], bias: rx.VarBinding | None = None
                 ) -> rx.Call | None:
    """`call_tir(matmul_packed, (x, panels of w))`, the panels computed once per weight at
    build time; None when the shapes are not static, the dtypes differ or the row does not
    vectorize. `bias`: the binding adding a bias to the matmul, which the call then replaces
    (the bias added to each output tile in registers)."""
    x, out = matmul.args[0], matmul.struct_info
    xs, ws = x.struct_info, w.struct_info
    out_dtype = matmul.attr("out_dtype") or None
    if not (isinstance(xs, si.TensorStructInfo) and xs.ndim >= 2 and xs.static_shape
            and ws.ndim == 2 and xs.dtype == ws.dtype and out_dtype in (None, xs.dtype)
            and isinstance(out, si.TensorStructInfo)):
        return None
    n = w.data.shape[0 if transposed else 1]
    lanes = panel_lanes(n, ws.dtype)
    if not lanes:
        return None
    key = (id(w), transposed)
    if key not in done:
        data = w.data._arr if isinstance(w.data._arr, np.ndarray) else w.data.numpy()
        packed = array(pack_panels(data, lanes, transposed))
        done[key] = rx.Constant(packed, si.TensorStructInfo(packed.shape, ws.dtype))
    if bias is None:
        return emitter.call_te(matmul_packed, [x, done[key]], {}, "matmul_packed",
                               out_sinfo=out)
    return emitter.call_te(matmul_packed, [x, done[key], _bias_of(bias.value, matmul)], {},
                           "matmul_packed_bias", out_sinfo=bias.value.struct_info)


def _bias_of(add: rx.Call, matmul: rx.Call) -> rx.Constant:
    return next(a for a in add.args if isinstance(a, rx.Constant))


def _bias_add(var: rx.Var, matmul: rx.Call, uses: dict, user: dict) -> rx.VarBinding | None:
    """The binding adding a constant bias (n,) to `var` (matmul's value), its only use."""
    b = user.get(var)
    if uses.get(var) != 1 or b is None or not isinstance(b.value, rx.Call) or \
            b.value.op != _ADD:
        return None
    others = [a for a in b.value.args if a is not var]
    out = matmul.struct_info
    if len(others) != 1 or not isinstance(others[0], rx.Constant) or \
            not isinstance(out, si.TensorStructInfo) or out.static_shape is None:
        return None
    s = others[0].struct_info
    ok = (isinstance(s, si.TensorStructInfo) and s.dtype == out.dtype
          and s.static_shape == (out.static_shape[-1],)
          and b.value.struct_info.static_shape == out.static_shape)
    return b if ok else None


def _rewrite(func: rx.Function, emitter: TEEmitter) -> rx.Function:
    values = {b.var: b.value for blk in func.body.blocks for b in blk.bindings
              if isinstance(b, rx.VarBinding)}
    changed = False
    done: dict[int, rx.Constant] = {}  # id of a weight -> its transposed copy
    packed: dict[Any, rx.Constant] = {}  # (id of a weight, transposed) -> its panels
    flat = [b for blk in func.body.blocks for b in blk.bindings]
    uses = var_use_counts(*(b.value for b in flat), func.body.body)
    user = {v: b for b in reversed(flat) for v in var_use_counts(b.value)}
    fused: dict[rx.Var, rx.Call] = {}  # a bias add's var -> the matmul call doing it too
    blocks = []
    for blk in func.body.blocks:
        bindings = []
        for b in blk.bindings:
            value = b.value
            if b.var in fused:  # NOTE: the matmul's own binding, now unused, goes
                b, changed = replace(b, value=fused[b.var]), True
            elif isinstance(b, rx.VarBinding) and isinstance(value, rx.Call) and \
                    value.op == _MATMUL and not scheduled():
                w = _swapped_last(values.get(value.args[1]))
                if w is not None:
                    b, changed = replace(b, value=_nt_matmul_call(value, w, emitter)), True
            elif isinstance(b, rx.VarBinding) and isinstance(value, rx.Call) and \
                    value.op == _MATMUL:
                w = _transposed(values.get(value.args[1]))
                plain = value.args[1] if w is None else None
                bias = _bias_add(b.var, value, uses, user)
                if isinstance(w, rx.Constant) and _rows(value.args[0]) != 1:
                    new = _packed_call(value, w, True, emitter, packed, bias)
                    if new is not None and bias is not None:
                        fused[bias.var] = new
                    else:
                        value = new or replace(
                            value, args=(value.args[0], _transpose_constant(w, done)))
                        b, changed = replace(b, value=value), True
                elif isinstance(plain, rx.Constant) and _is_2d(plain) and \
                        _rows(value.args[0]) not in (None, 1):
                    new = _packed_call(value, plain, False, emitter, packed, bias)
                    if new is not None and bias is not None:
                        fused[bias.var] = new
                    elif new is not None:
                        b, changed = replace(b, value=new), True
                elif w is not None and _is_2d(value.args[0]) and \
                        w.struct_info.dtype == value.args[0].struct_info.dtype:
                    kwargs = {"out_dtype": value.attr("out_dtype")}
                    value = emitter.call_te(topi.nn.dense, [value.args[0], w], kwargs, "dense",
                                            out_sinfo=value.struct_info)
                    b, changed = replace(b, value=value), True
            bindings.append(b)
        blocks.append(replace(blk, bindings=tuple(bindings)))
    return replace(func, body=replace(func.body, blocks=tuple(blocks))) if changed else func
