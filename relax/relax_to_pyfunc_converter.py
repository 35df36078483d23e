"""`RelaxToPyFuncConverter` (TVM 0.27): Relax functions of a module as Python functions over
torch tensors, for debugging and for mixing with PyTorch code. Each operator becomes the
PyTorch call `torch_ops.RULES` gives; `call_tir` runs the module's prim_func compiled by us,
`call_dps_packed` the registered function; symbolic dims are read off the arguments.

    converted = RelaxToPyFuncConverter(mod).convert(["main"])
    y = converted.pyfuncs["main"](torch.randn(4))
"""

from __future__ import annotations

import copy
import inspect
from typing import Any, Callable

import numpy as np

from ..ir import expr as rx
from ..ir import struct_info as si
from ..ir.module import IRModule
from ..tir import expr as tx
from ..tir.function import PrimFunc
from ..tir.functor import simplify, substitute
from ..vm.registry import get_global_func
from .base_py_module import from_torch, to_torch
from .torch_ops import RULES


class RelaxToPyFuncConverter:
    """Converts named Relax functions of `ir_module` into Python functions (`convert`)."""

    def __init__(self, ir_module: IRModule) -> None:
        self.ir_module = ir_module
        self._kernels: Any = None  # the module's prim_funcs, compiled on first call_tir

    @staticmethod
    def _get_op_map() -> dict[str, str]:
        """Relax operator -> the PyTorch function it runs as."""
        return {name: torch_name for name, (torch_name, _) in RULES.items()}

    def convert(self, relax_function_names: str | list[str]) -> IRModule:
        """A copy of the module whose `pyfuncs` holds a Python function per name."""
        names = [relax_function_names] if isinstance(relax_function_names, str) \
            else list(relax_function_names)
        out = copy.copy(self.ir_module)
        out.pyfuncs = dict(getattr(self.ir_module, "pyfuncs", {}))
        for name in names:
            func = _relax_function(self.ir_module, name)
            out.pyfuncs[name] = self._python_function(func, name)
        return out

    def _python_function(self, func: rx.Function, name: str) -> Callable[..., Any]:
        def converted(*args: Any) -> Any:
            if len(args) != len(func.params):
                raise ValueError(f"Expected {len(func.params)} arguments, got {len(args)}")
            return _Evaluator(self).call(func, list(args))

        converted.__name__ = name
        converted.__doc__ = f"Converted Python function from Relax function: {name}"
        return converted

    def kernel(self, name: str) -> Callable[..., Any]:
        if self._kernels is None:
            from .. import build

            prims = {gv: f for gv, f in self.ir_module.functions.items()
                     if isinstance(f, PrimFunc)}
            self._kernels = build(IRModule(prims), "llvm")
        return self._kernels[name]


def _relax_function(mod: IRModule, name: str) -> rx.Function:
    for gv, f in mod.functions.items():
        if gv.name_hint == name and isinstance(f, rx.Function):
            return f
    raise ValueError(f"Relax function '{name}' not found in IRModule")


def _require_torch() -> Any:
    import torch  # the converter's whole point; imported only when a function runs

    return torch


class _Evaluator:
    """Evaluates one call of a Relax function: variables to torch values, dims to ints."""

    def __init__(self, converter: RelaxToPyFuncConverter) -> None:
        self.converter = converter
        self.torch = _require_torch()
        self.values: dict[Any, Any] = {}
        self.dims: dict[tx.Var, int] = {}

    def call(self, func: rx.Function, args: list[Any]) -> Any:
        for param, arg in zip(func.params, args):
            arg = self.as_torch(arg)
            self.values[param] = arg
            self.bind_dims(param.struct_info, arg)
        return self.eval(func.body)

    def bind_dims(self, sinfo: Any, value: Any) -> None:
        if isinstance(sinfo, si.TensorStructInfo) and sinfo.shape is not None and \
                hasattr(value, "shape"):
            for dim, extent in zip(sinfo.shape, value.shape):
                if isinstance(dim, tx.Var):
                    self.dims.setdefault(dim, int(extent))

    def dim(self, e: Any) -> int:
        value = simplify(substitute(e, {v: tx.const(n, v.dtype) for v, n in self.dims.items()}))
        if not isinstance(value, tx.IntImm):
            raise ValueError(f"the dim {e} is not known from the arguments")
        return int(value.value)

    def as_torch(self, value: Any) -> Any:
        if isinstance(value, np.ndarray):
            return self.torch.from_numpy(value)
        return to_torch(value)

    def eval(self, e: Any) -> Any:
        method = getattr(self, f"eval_{type(e).__name__}", None)
        if method is None:
            raise NotImplementedError(f"converting {type(e).__name__} to Python")
        return method(e)

    def eval_SeqExpr(self, e: rx.SeqExpr) -> Any:
        for block in e.blocks:
            for b in block.bindings:
                value = self.eval(b.value)
                self.values[b.var] = value
                self.bind_dims(b.var.struct_info, value)
        return self.eval(e.body)

    def eval_Var(self, v: rx.Var) -> Any:
        return self.values[v]

    eval_DataflowVar = eval_Var

    def eval_Constant(self, c: rx.Constant) -> Any:
        data = c.data.numpy() if hasattr(c.data, "numpy") else np.asarray(c.data)
        return self.torch.from_numpy(np.array(data))

    def eval_PrimValue(self, p: rx.PrimValue) -> Any:
        v = p.value
        if isinstance(v, (tx.IntImm, tx.FloatImm)):
            return v.value
        return self.dim(v)

    def eval_StringImm(self, s: rx.StringImm) -> str:
        return s.value

    def eval_ShapeExpr(self, s: rx.ShapeExpr) -> tuple[int, ...]:
        return tuple(self.dim(d) for d in s.values)

    def eval_Tuple(self, t: rx.Tuple) -> tuple[Any, ...]:
        return tuple(self.eval(f) for f in t.fields)

    def eval_TupleGetItem(self, t: rx.TupleGetItem) -> Any:
        return self.eval(t.tuple_value)[t.index]

    def eval_If(self, e: rx.If) -> Any:
        cond = self.eval(e.cond)
        return self.eval(e.true_branch if bool(cond) else e.false_branch)

    def eval_Call(self, c: rx.Call) -> Any:
        if isinstance(c.op, rx.GlobalVarRef):  # a call of another Relax function
            func = _relax_function(self.converter.ir_module, c.op.gvar.name_hint)
            return _Evaluator(self.converter).call(func, [self.eval(a) for a in c.args])
        if isinstance(c.op, rx.ExternFunc):
            return self.packed(c.op.global_symbol, [self.eval(a) for a in c.args])
        name = c.op.name
        if name in ("relax.call_tir", "relax.call_dps_packed"):
            return self.destination_passing(c)
        if name in ("relax.call_pure_packed", "relax.call_packed"):
            return self.packed(c.args[0].global_symbol, [self.eval(a) for a in c.args[1:]])
        rule = RULES.get(name)
        if rule is None:
            raise NotImplementedError(f"{name} has no PyTorch form in the converter")
        attrs = {k: self.attr_value(v) for k, v in c.attrs}
        return rule[1](self.torch, attrs, *(self.eval(a) for a in c.args))

    def attr_value(self, v: Any) -> Any:
        """An attribute with its symbolic dims (`end=(n,)`) replaced by their values."""
        if isinstance(v, (list, tuple)):
            return type(v)(self.attr_value(x) for x in v)
        if isinstance(v, tx.PrimExpr) and v.dtype.startswith("int"):
            return self.dim(v)
        return v

    def destination_passing(self, c: rx.Call) -> Any:
        """call_tir / call_dps_packed: outputs allocated from the call's struct info, the
        callee run on (inputs..., outputs...)."""
        callee, args = c.args[0], [self.eval(a) for a in c.args[1].fields]
        outs_sinfo = c.sinfo_args[0] if c.sinfo_args else c.struct_info
        fields = outs_sinfo.fields if isinstance(outs_sinfo, si.TupleStructInfo) else \
            (outs_sinfo,)
        if isinstance(callee, rx.GlobalVarRef):
            func = self.converter.kernel(callee.gvar.name_hint)
        else:
            func = get_global_func(callee.global_symbol)
            if not _takes_outputs(func, len(args), len(fields)):  # a plain function: its result
                return self.as_torch(func(*(from_torch(a) for a in args)))
        outs = [self.torch.zeros([self.dim(d) for d in f.shape],
                                 dtype=getattr(self.torch, f.dtype)) for f in fields]
        func(*(from_torch(a) for a in args), *(from_torch(o) for o in outs))
        return outs[0] if not isinstance(outs_sinfo, si.TupleStructInfo) else tuple(outs)

    def packed(self, name: str, args: list[Any]) -> Any:
        result = get_global_func(name)(*(from_torch(a) for a in args))
        return self.as_torch(result)


def _takes_outputs(func: Callable[..., Any], n_args: int, n_outs: int) -> bool:
    """Whether `func` has room for the outputs after the arguments (destination passing);
    TVM's converter also accepts a function that returns its result instead."""
    try:
        params = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        return True
    if any(p.kind == p.VAR_POSITIONAL for p in params):
        return True
    return len(params) >= n_args + n_outs


def convert_relax_to_pyfunc(ir_module: IRModule, relax_function_names: str | list[str]
                            ) -> IRModule:
    """`RelaxToPyFuncConverter(ir_module).convert(relax_function_names)`."""
    return RelaxToPyFuncConverter(ir_module).convert(relax_function_names)
