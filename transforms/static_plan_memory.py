"""`StaticPlanBlockMemory`: `R.builtin.alloc_tensor` becomes `R.memory.alloc_storage` +
`R.memory.alloc_tensor`, tensors whose lifetimes do not overlap sharing one storage.

TVM's rules, applied per function: an allocation is planned when every use of its tensor (and
of the aliases `reshape`, `memory.view`, `ensure_zero_offset`, `vm.builtin.reshape`, tuples and
tuple items make of it) is an argument of a prim_func call, a `call_packed` or a
`call_tir_dyn` in the block that allocated it. A tensor the function returns, or one reaching
any other call or an `If`, keeps its own allocation. Walking the bindings in order, a storage
goes back to a pool (per dtype) after the last call using its tensor, and a later allocation
takes the first pooled storage of at least its size (at most 16 times bigger), else the
biggest smaller one (grown), else a new one. Symbolic sizes are bounded by the function's
`tir_var_upper_bound` attribute where they can be, and otherwise reuse only storages of the
same size.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, Iterator

from ..ir import expr as rx
from ..ir import struct_info as si
from ..ir.index_poly import provably_equal
from ..ir.module import IRModule
from ..ir.ops.memory import memory_alloc_storage, memory_alloc_tensor
from ..tir import expr as tx
from ..tir.function import PrimFunc
from ..vm.datatype import DataType
from .memory_bounds import dim_upper_bound, symbolic_var_bounds
from .pass_infra import Pass, PassContext

_MATCH_RANGE = 16  # TVM reuses a pooled storage at most this many times the size asked for
_ALIAS_OPS = ("relax.reshape", "relax.memory.view", "relax.memory.ensure_zero_offset")
_PLAN_OUTPUT_ATTR = "relax.memory_plan_dynamic_func_output"


@dataclass(eq=False)
class _Storage:
    size: tx.PrimExpr
    dtype: str
    var: rx.Var | None = None

    @property
    def const(self) -> int | None:
        return self.size.value if isinstance(self.size, tx.IntImm) else None


@dataclass(eq=False)
class _Token:
    """One planned allocation: its size in bytes, how many calls still use it, its storage."""

    size: tx.PrimExpr
    dtype: str
    block: int
    refs: int = 0
    discarded: bool = False
    is_output: bool = False
    output_size: tx.PrimExpr | None = None  # a planned output's size, in TVM's other form
    storage: _Storage | None = None


def _leaves(tokens: Any) -> Iterator[_Token]:
    if isinstance(tokens, _Token):
        yield tokens
    elif isinstance(tokens, tuple):
        for t in tokens:
            yield from _leaves(t)


def _callee_kind(call: rx.Call, mod: IRModule) -> str:
    """"alloc", "alias", "use" (calls that only read/write their arguments) or "other"."""
    op = call.op
    if isinstance(op, rx.Op):
        if op.name == "relax.builtin.alloc_tensor":
            return "alloc"
        if op.name in _ALIAS_OPS:
            return "alias"
        return "use" if op.name == "relax.vm.call_tir_dyn" else "other"
    if isinstance(op, rx.ExternFunc):
        return "alias" if op.global_symbol == "vm.builtin.reshape" else "use"
    if isinstance(op, rx.GlobalVarRef) and op.gvar in mod.functions and \
            isinstance(mod.functions[op.gvar], PrimFunc):
        return "use"
    return "other"


def _used_args(call: rx.Call) -> tuple[rx.Expr, ...]:
    if isinstance(call.op, rx.Op) and call.op.name == "relax.vm.call_tir_dyn":
        packed = call.args[1]
        return tuple(packed.fields) if isinstance(packed, rx.Tuple) else (packed,)
    return tuple(call.args)


def _byte_size(shape: tuple[tx.PrimExpr, ...], dtype: str) -> tx.PrimExpr:
    """TVM's form: the constant dims times the element size, times the product of the others
    (`4 * (m * n)`)."""
    itemsize = DataType(dtype).bits * DataType(dtype).lanes // 8 or 1
    coef = itemsize * math.prod(d.value for d in shape if isinstance(d, tx.IntImm))
    rest = [d for d in shape if not isinstance(d, tx.IntImm)]
    if not rest:
        return tx.IntImm("int64", coef)
    prod = rest[0]
    for d in rest[1:]:
        prod = tx.binop(tx.BinaryOp.MUL, prod, d)
    return tx.binop(tx.BinaryOp.MUL, tx.IntImm("int64", coef), prod)


def _output_byte_size(shape: tuple[tx.PrimExpr, ...], dtype: str) -> tx.PrimExpr:
    """A planned function output's size: the dims folded left, then the element size."""
    itemsize = DataType(dtype).bits * DataType(dtype).lanes // 8 or 1
    size: tx.PrimExpr = shape[0] if shape else tx.IntImm("int64", 1)
    for d in shape[1:]:
        both = isinstance(size, tx.IntImm) and isinstance(d, tx.IntImm)
        size = tx.IntImm("int64", size.value * d.value) if both else \
            tx.binop(tx.BinaryOp.MUL, size, d)
    if isinstance(size, tx.IntImm):
        return tx.IntImm("int64", size.value * itemsize)
    return tx.binop(tx.BinaryOp.MUL, size, tx.IntImm("int64", itemsize))


class _Collector:
    """First walk: which allocations can be planned, and how many calls use each."""

    def __init__(self, mod: IRModule, func: rx.Function) -> None:
        self.mod = mod
        self.bounds = symbolic_var_bounds(func)
        self.plan_outputs = bool(func.attr_dict.get(_PLAN_OUTPUT_ATTR, False))
        self.tokens: dict[rx.Var, Any] = {}
        self.allocs: dict[int, _Token] = {}  # id(alloc call) -> its token
        self.block = 0

    def get(self, e: Any) -> Any:
        if isinstance(e, rx.Var):
            return self.tokens.get(e)
        if isinstance(e, rx.Tuple):
            return tuple(self.get(f) for f in e.fields)
        return None

    def discard(self, tokens: Any) -> None:
        for t in _leaves(tokens):
            t.discarded = True

    def discard_all_in(self, e: Any) -> None:
        from ..ir.analysis import free_vars

        for v in free_vars(e) if not isinstance(e, rx.Var) else [e]:
            self.discard(self.tokens.get(v))

    def function(self, func: rx.Function) -> None:
        for i, block in enumerate(func.body.blocks):
            self.block = i
            for b in block.bindings:
                self.binding(b)
        out = self.get(func.body.body)
        if self.plan_outputs:
            for t in _leaves(out):
                t.is_output = t.output_size is not None
                t.discarded = t.discarded or not t.is_output
        else:
            self.discard(out)
        if not isinstance(func.body.body, (rx.Var, rx.Tuple)):
            self.discard_all_in(func.body.body)

    def binding(self, b: Any) -> None:
        value = b.value
        if isinstance(value, (rx.Var, rx.Tuple)):
            self.tokens[b.var] = self.get(value)
        elif isinstance(value, rx.TupleGetItem):
            whole = self.get(value.tuple_value)
            self.tokens[b.var] = whole[value.index] if isinstance(whole, tuple) else None
        elif isinstance(value, rx.Call):
            self.call(b.var, value)
        else:
            self.discard_all_in(value)

    def call(self, var: rx.Var, call: rx.Call) -> None:
        kind = _callee_kind(call, self.mod)
        if kind == "alloc":
            token = self.new_token(var)
            if token is not None:
                self.tokens[var] = self.allocs[id(call)] = token
        elif kind == "alias":
            self.tokens[var] = self.get(call.args[0])
        elif kind == "use":
            for arg in _used_args(call):
                for t in _leaves(self.get(arg)):
                    if t.block != self.block:
                        t.discarded = True
                    t.refs += 1
        else:
            for arg in call.args:
                self.discard_all_in(arg)

    def new_token(self, var: rx.Var) -> _Token | None:
        sinfo = var.struct_info
        if not isinstance(sinfo, si.TensorStructInfo) or sinfo.shape is None or \
                not sinfo.dtype:
            return None
        bounded = tuple(dim_upper_bound(d, self.bounds) for d in sinfo.shape)
        if self.plan_outputs and not all(isinstance(d, tx.IntImm) for d in sinfo.shape):
            return _Token(_byte_size(bounded, sinfo.dtype), sinfo.dtype, self.block,
                          output_size=_output_byte_size(bounded, sinfo.dtype))
        return _Token(_byte_size(bounded, sinfo.dtype), sinfo.dtype, self.block)


class _Pool:
    """Released storages by dtype, in release order (TVM's multimap keyed by size)."""

    def __init__(self) -> None:
        self.free: dict[str, list[_Storage]] = {}

    def release(self, s: _Storage) -> None:
        self.free.setdefault(s.dtype, []).append(s)

    def take(self, size: tx.PrimExpr, dtype: str) -> _Storage | None:
        pool = self.free.get(dtype, [])
        pick = self.pick_const(pool, size.value) if isinstance(size, tx.IntImm) else \
            next((s for s in pool if s.const is None and _same_size(s.size, size)), None)
        if pick is not None:
            pool.remove(pick)
            if isinstance(size, tx.IntImm) and pick.const is not None and \
                    pick.const < size.value:
                pick.size = size  # a smaller storage grows to the size asked for
        return pick

    @staticmethod
    def pick_const(pool: list[_Storage], size: int) -> _Storage | None:
        consts = [(s.const, i, s) for i, s in enumerate(pool) if s.const is not None]
        bigger = sorted((c, i, s) for c, i, s in consts if size <= c <= size * _MATCH_RANGE)
        if bigger:
            return bigger[0][2]
        smaller = sorted((c, i, s) for c, i, s in consts if size // _MATCH_RANGE <= c < size)
        return smaller[-1][2] if smaller else None


def _same_size(a: tx.PrimExpr, b: tx.PrimExpr) -> bool:
    """Whether two symbolic sizes are provably equal: as polynomials over their vars (sums and
    products), else structurally."""
    from ..ir.structural import structural_equal

    same = provably_equal(a, b)
    return structural_equal(a, b) if same is None else same


def _assign_storages(func: rx.Function, col: _Collector) -> None:
    """Second walk: give each planned allocation a storage, reusing released ones."""
    pool = _Pool()
    for block in func.body.blocks:
        for b in block.bindings:
            value = b.value
            if not isinstance(value, rx.Call):
                continue
            token = col.allocs.get(id(value))
            if token is not None and not token.discarded:
                if token.is_output:
                    token.storage = _Storage(token.output_size, token.dtype)
                else:
                    token.storage = pool.take(token.size, token.dtype) or \
                        _Storage(token.size, token.dtype)
                continue
            if _callee_kind(value, col.mod) != "use":
                continue
            for arg in _used_args(value):
                for t in _leaves(col.get(arg)):
                    if t.discarded or t.storage is None:
                        continue
                    t.refs -= 1
                    if t.refs == 0 and not t.is_output:
                        pool.release(t.storage)


def _rewrite(func: rx.Function, col: _Collector) -> rx.Function:
    blocks = []
    for block in func.body.blocks:
        out: list[Any] = []
        for b in block.bindings:
            token = col.allocs.get(id(b.value)) if isinstance(b.value, rx.Call) else None
            if token is None or token.storage is None:
                out.append(b)
                continue
            storage = token.storage
            if storage.var is None:
                storage.var = rx.Var("storage", si.ObjectStructInfo())
                out.append(rx.VarBinding(storage.var, memory_alloc_storage(
                    (storage.size,), 0, "global", storage.dtype)))
            sinfo = b.var.struct_info
            out.append(replace(b, value=memory_alloc_tensor(
                storage.var, 0, sinfo.shape, sinfo.dtype)))
        blocks.append(replace(block, bindings=tuple(out)))
    return replace(func, body=replace(func.body, blocks=tuple(blocks)))


def plan_function(mod: IRModule, func: rx.Function) -> rx.Function:
    """One function with its allocations planned (unchanged when there is nothing to plan)."""
    col = _Collector(mod, func)
    col.function(func)
    if col.plan_outputs:
        func = func.without_attr(_PLAN_OUTPUT_ATTR)
    if not col.allocs:
        return func
    _assign_storages(func, col)
    return _rewrite(func, col)


def StaticPlanBlockMemory() -> Pass:  # noqa: N802
    """TVM's memory planning of explicit allocations (see the module docstring). Modules
    that still use `call_tir` are planned by the VM itself when built (vm/static_plan.py)."""

    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        return mod.map_functions(
            lambda gv, f: plan_function(mod, f) if isinstance(f, rx.Function) else f)

    return Pass(run, "StaticPlanBlockMemory")


__all__ = ["StaticPlanBlockMemory", "plan_function"]

