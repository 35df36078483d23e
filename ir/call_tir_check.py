"""Whether a `call_tir` fits the prim_func it calls: argument and output tensors against the
buffers they bind (dtype, rank, constant dims, dims the inputs determine), primitive arguments
against scalar parameters. The parser reports a mismatch where the call is written; the
well-formed check reports it for modules built any other way (or parsed unchecked)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..tir import expr as tx
from ..tir.function import PrimFunc
from ..tir.functor import simplify, substitute
from . import struct_info as si


@dataclass(frozen=True)
class CallTirMismatch:
    """What does not fit: `part` is "count", "arg" or "out"; `index` the argument/output."""

    message: str
    part: str
    index: int = 0


def call_tir_mismatch(name: str, f: PrimFunc, args: tuple[Any, ...],
                      outs: tuple[si.StructInfo, ...], n_tir_vars: int = 0
                      ) -> CallTirMismatch | None:
    """The first way `R.call_tir(f, args, outs)` does not fit `f`, or None.

    As TVM passes them, arguments bind the parameters in order, then the outputs, then
    `tir_vars`. A call that fits the buffer parameters alone is accepted too (tvmlite's VM
    also passes a prim_func's scalar parameters wherever they stand)."""
    positional = None
    if len(args) + len(outs) + n_tir_vars == len(f.params):
        positional = _bind(name, f, list(f.params), args, outs)
        if positional is None:
            return None
    buffers = [v for v in f.params if f.buffer_of(v) is not None]
    if len(args) + len(outs) != len(buffers):
        names = ", ".join(f.buffer_of(v).name for v in buffers)  # type: ignore[union-attr]
        return positional or CallTirMismatch(
            f"prim_func {name!r} takes {len(buffers)} buffers ({names}): call_tir gave "
            f"{len(args)} inputs and {len(outs)} outputs", "count")
    by_buffer = _bind(name, f, buffers, args, outs)
    return None if by_buffer is None else positional or by_buffer


def _bind(name: str, f: PrimFunc, params: list[tx.Var], args: tuple[Any, ...],
          outs: tuple[si.StructInfo, ...]) -> CallTirMismatch | None:
    binding: dict[tx.Var, tx.PrimExpr] = {}
    for i, (value, param) in enumerate(zip(args, params)):
        msg = _fit(getattr(value, "struct_info", None), f, param, binding)
        if msg:
            return CallTirMismatch(f"argument {i} of call_tir to {name!r} does not fit "
                                   f"parameter {_param_name(f, param)!r}: {msg}", "arg", i)
    for j, (out, param) in enumerate(zip(outs, params[len(args):])):
        msg = _fit(out, f, param, binding) if f.buffer_of(param) is not None else \
            "an output needs a buffer parameter, and this one is a scalar"
        if msg:
            return CallTirMismatch(f"output {j} of call_tir to {name!r} does not fit "
                                   f"parameter {_param_name(f, param)!r}: {msg}", "out", j)
    return None


def _param_name(f: PrimFunc, param: tx.Var) -> str:
    buf = f.buffer_of(param)
    return buf.name if buf is not None else param.name


def _fit(sinfo: Any, f: PrimFunc, param: tx.Var, binding: dict[tx.Var, tx.PrimExpr]
         ) -> str | None:
    buf = f.buffer_of(param)
    if buf is not None:
        return tensor_mismatch(sinfo, buf, binding)
    if isinstance(sinfo, si.PrimStructInfo):
        if sinfo.dtype and sinfo.dtype != param.dtype:
            return f"a {sinfo.dtype} value, expected {param.dtype}"
        return None
    if sinfo is None or isinstance(sinfo, si.ObjectStructInfo):
        return None
    return f"it is not a primitive value ({type(sinfo).__name__}) but the parameter is a " \
        f"{param.dtype} scalar"


def tensor_mismatch(sinfo: Any, buf: Any, binding: dict[tx.Var, tx.PrimExpr]) -> str | None:
    if not isinstance(sinfo, si.TensorStructInfo):
        return None if sinfo is None or isinstance(sinfo, si.ObjectStructInfo) else \
            f"it is not a tensor ({type(sinfo).__name__})"
    want = f"{fmt_shape(buf.shape)} {buf.dtype}"
    if sinfo.dtype and sinfo.dtype != buf.dtype:
        return f"dtype {sinfo.dtype}, expected {want}"
    if sinfo.ndim >= 0 and sinfo.ndim != len(buf.shape):
        return f"rank {sinfo.ndim}, expected {want}"
    for got, exp in zip(sinfo.shape or (), buf.shape):
        if isinstance(exp, tx.Var):
            exp = binding.setdefault(exp, got)
        elif not isinstance(exp, tx.IntImm) and binding:
            exp = simplify(substitute(exp, binding))  # e.g. M * N once M and N are known
        if isinstance(got, tx.IntImm) and isinstance(exp, tx.IntImm) and got.value != exp.value:
            return f"shape {fmt_shape(sinfo.shape)}, expected {want}"
    return None


def fmt_shape(shape: Any) -> str:
    dims = [str(d.value) if isinstance(d, tx.IntImm) else getattr(d, "name", str(d))
            for d in shape]
    return "(" + ", ".join(dims) + ("," if len(dims) == 1 else "") + ")"
