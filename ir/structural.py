"""Structural equality and hashing of IR, with variables mapped by where they are defined.

`structural_equal(a, b)` compares two IR trees field by field (spans never count). Nodes that
compare by identity -- `tir.Var`, `tir.Buffer`, relax `Var`/`DataflowVar`, `GlobalVar` -- are
matched by position as TVM does: the first time a pair meets (a parameter, a loop variable, a
binding) they are mapped to each other, and every later use must agree with that mapping. Their
names do not count. Inside a function every variable may be mapped; outside one (comparing two
bare expressions) a variable must be the same object unless `map_free_vars=True`.

Attribute maps (`attrs`, `annotations`) compare as unordered maps; IRModules compare their
functions by name. `structural_hash` is consistent with this equality.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import math
from typing import Any

import numpy as np

from ..tir import expr as tx
from ..tir import stmt as ts
from ..tir.function import PrimFunc
from . import expr as rx
from .module import GlobalVar, IRModule
from .struct_info import FuncStructInfo

# Nodes inside which variables map on first sight: functions, and function signatures (whose
# parameters define their symbolic dims, as TVM's FuncStructInfo does).
_SCOPES = (PrimFunc, rx.Function, FuncStructInfo)

_VARLIKE = (tx.Var, ts.Buffer, rx.Var, GlobalVar)
_NAMELESS = (*_VARLIKE, ts.Block)  # nodes whose name does not count
_UNORDERED = ("attrs", "annotations")
_NAMES = ("name", "name_hint")
# A buffer's fields that TVM 0.27 keeps in its type (paths read `B.ty.shape[0]`)
_BUFFER_TYPE = {"shape": "shape", "dtype": "dtype", "strides": "strides",
                "elem_offset": "elem_offset", "scope": "storage_scope",
                "offset_factor": "offset_factor"}
# A block's T.reads / T.writes may be written out or left to be inferred from its body, as in
# TVM; an empty list means "inferred", so it matches any declared one (and is not hashed).
_INFERABLE = ("reads", "writes")


# TVM 0.27 has no PrimValue node (`relax.prim_value(e)` is `e` itself), so a PrimValue equals
# the PrimExpr it wraps, and hashes as it does.
_PRIM_OR_VALUE = (rx.PrimValue, tx.PrimExpr)


def _unwrapped(x: Any) -> Any:
    return x.value if isinstance(x, rx.PrimValue) else x


class _Mismatch(Exception):
    def __init__(self, path: str, lhs: Any, rhs: Any, why: str) -> None:
        super().__init__(why)
        self.path, self.lhs, self.rhs, self.why = path, lhs, rhs, why


def _fields(node: Any) -> list[tuple[str, Any]]:
    # NOTE: TVM's structural equality ignores a block's name too (blockize's "B_o" equals
    # an expected "blockized_B")
    skip = _NAMES if isinstance(node, _NAMELESS) else ()
    return [(f.name, getattr(node, f.name)) for f in dataclasses.fields(node)
            if f.compare and f.name not in skip]


def _as_map(value: Any) -> dict[Any, Any] | None:
    if isinstance(value, dict):
        return value
    if isinstance(value, tuple) and all(isinstance(x, tuple) and len(x) == 2 for x in value):
        return dict(value)
    return None


def _compared_map(node: Any, value: Any) -> dict[Any, Any] | None:
    """The attribute map as compared: a PrimFunc's `s_tir` flag (TVM 0.27's mark of a
    function with blocks, set by `@T.prim_func(s_tir=True)`) is not part of its structure
    here, since tvmlite's parser accepts blocks with or without it."""
    m = _as_map(value)
    if m is not None and isinstance(node, PrimFunc):
        # TVM 0.27 spells the `tir.` attribute keys `tirx.`; both spellings are one key here
        m = {_TIRX_KEY.get(k, k): v for k, v in m.items() if k != "s_tir"}
    return m


_TIRX_KEY = {"tirx.noalias": "tir.noalias", "tirx.is_scheduled": "tir.is_scheduled",
             "tirx.is_host_func": "tir.is_host_func"}


def _without_implicit_root(body: Any) -> Any:
    """A prim_func body with its bare root block (no buffers, attributes or regions) removed:
    TVM's parser adds that block to every function with blocks, te.create_prim_func always
    makes one, and tvmlite's parser only when root buffers need it; all mean the same."""
    if not isinstance(body, ts.BlockRealize) or body.iter_values:
        return body
    root = body.block
    if root.name != "root" or root.iter_vars or root.alloc_buffers or root.match_buffers \
            or root.annotations or root.init is not None or root.reads or root.writes:
        return body
    if not (isinstance(body.predicate, tx.IntImm) and body.predicate.value):
        return body
    return root.body


def _in_param_order(func: PrimFunc, buffer_map: Any) -> Any:
    """The buffer map ordered by parameter: TVM's is a map (the parser adds `T.Buffer`
    parameters first and `T.match_buffer` ones later), so its order does not count."""
    order = {id(p): k for k, p in enumerate(func.params)}
    return tuple(sorted(buffer_map, key=lambda item: order.get(id(item[0]), len(order))))


def _array(data: Any) -> np.ndarray:
    return data.numpy() if hasattr(data, "numpy") else np.asarray(data)


def _same_prim_type(a: Any, b: Any) -> bool:
    """A TIR expression's type (`expr.ty`) against TVM 0.27's `ir.PrimType(dtype)`, which
    tvmlite spells as struct info without a value: one type, two classes."""
    from .struct_info import PrimStructInfo

    for x, y in ((a, b), (b, a)):
        if type(x) is tx.VarType and type(y) is PrimStructInfo:
            return y.value is None and x.dtype == y.dtype
    return False


class _Equal:
    def __init__(self, map_free_vars: bool) -> None:
        self.map_free = map_free_vars
        self.lhs_to_rhs: dict[int, Any] = {}
        self.rhs_to_lhs: dict[int, Any] = {}
        self.keep: list[Any] = []
        self.closed = 0

    def fail(self, path: str, a: Any, b: Any, why: str) -> None:
        raise _Mismatch(path or "<root>", a, b, why)

    def eq(self, a: Any, b: Any, path: str) -> None:
        if a is b and not isinstance(a, _VARLIKE):
            return
        if type(a) is not type(b) and isinstance(a, _PRIM_OR_VALUE) \
                and isinstance(b, _PRIM_OR_VALUE):
            a, b = _unwrapped(a), _unwrapped(b)
        if type(a) is not type(b):
            # NOTE: TVM's tensor shapes are ShapeExprs where ours are tuples of dims
            if isinstance(a, rx.ShapeExpr) and isinstance(b, (tuple, list)):
                a = a.values
            elif isinstance(b, rx.ShapeExpr) and isinstance(a, (tuple, list)):
                b = b.values
            if _same_prim_type(a, b):
                return
            if not _both_arrays(a, b):  # TVM's Array: a list or a tuple
                self.fail(path, a, b, f"{type(a).__name__} vs {type(b).__name__}")
        if isinstance(a, _VARLIKE):
            return self.var(a, b, path)
        if isinstance(a, IRModule):
            return self.module(a, b, path)
        if isinstance(a, rx.Constant):
            return self.constant(a, b, path)
        for x, y, where in _definitions(a, b, path):
            self.define(x, y, where)
        if isinstance(a, _SCOPES):
            self.closed += 1
            try:
                return self.node(a, b, path)
            finally:
                self.closed -= 1
        if dataclasses.is_dataclass(a):
            return self.node(a, b, path)
        if isinstance(a, (tuple, list)):
            if len(a) != len(b):
                self.fail(path, a, b, f"length {len(a)} vs {len(b)}")
            for i, (x, y) in enumerate(zip(a, b)):
                self.eq(x, y, f"{path}[{i}]")
            return
        if isinstance(a, dict):
            return self.mapping(a, b, path)
        if isinstance(a, float) and math.isnan(a) and math.isnan(b):
            return
        if a != b:
            self.fail(path, a, b, f"{a!r} vs {b!r}")

    def node(self, a: Any, b: Any, path: str) -> None:
        for (name, x), (_, y) in zip(_fields(a), _fields(b)):
            if isinstance(a, ts.Block) and name in _INFERABLE and not (x and y):
                continue
            if isinstance(a, PrimFunc) and name == "body":
                x, y = _without_implicit_root(x), _without_implicit_root(y)
            if isinstance(a, PrimFunc) and name == "buffer_map":
                self.buffer_params(a, _in_param_order(a, x), _in_param_order(b, y), path)
                continue
            if isinstance(a, ts.Buffer) and name in _BUFFER_TYPE:  # TVM 0.27's BufferType
                self.eq(x, y, f"{path}.ty.{_BUFFER_TYPE[name]}")
                continue
            m = _compared_map(a, x) if name in _UNORDERED else None
            if m is not None and _as_map(y) is not None:
                self.mapping(m, _compared_map(b, y), f"{path}.{name}")  # type: ignore[arg-type]
            else:
                self.eq(x, y, f"{path}.{name}")

    def buffer_params(self, a: PrimFunc, x: tuple, y: tuple, path: str) -> None:
        """The buffers of the parameters, at TVM 0.27's paths (`params[1].ty.shape[0]`: there
        a buffer parameter is a variable typed by its buffer)."""
        if len(x) != len(y):
            self.fail(f"{path}.buffer_map", x, y, f"length {len(x)} vs {len(y)}")
        index = {id(p): k for k, p in enumerate(a.params)}
        for k, ((va, ba), (vb, bb)) in enumerate(zip(x, y)):
            at = f"{path}.params[{index[id(va)]}]" if id(va) in index else \
                f"{path}.buffer_map[{k}]"
            self.eq(va, vb, at)
            self.eq(ba, bb, at)

    def mapping(self, a: dict, b: dict, path: str) -> None:
        if set(a) != set(b):
            self.fail(path, sorted(map(str, a)), sorted(map(str, b)), "different keys")
        for k in a:
            self.eq(a[k], b[k], f"{path}[{k!r}]")

    def var(self, a: Any, b: Any, path: str) -> None:
        mapped = self.lhs_to_rhs.get(id(a))
        if mapped is not None:
            if mapped is not b:
                self.fail(path, a, b, "variables bound at different places")
            return
        if id(b) in self.rhs_to_lhs:
            self.fail(path, a, b, "variables bound at different places")
        if a is not b and not (self.closed or self.map_free) and not isinstance(a, GlobalVar):
            self.fail(path, a, b, "different free variables (use map_free_vars=True)")
        if isinstance(a, GlobalVar) and a.name_hint != b.name_hint:
            self.fail(path, a, b, f"global {a.name_hint!r} vs {b.name_hint!r}")
        self.lhs_to_rhs[id(a)], self.rhs_to_lhs[id(b)] = b, a
        self.keep += [a, b]
        self.node(a, b, path)

    def define(self, a: Any, b: Any, path: str) -> None:
        """`a` and `b` are defined here (a loop var, a binding's var, a block's buffers):
        they correspond from now on, wherever the comparison started."""
        if type(a) is not type(b) or id(a) in self.lhs_to_rhs:
            return
        self.closed += 1
        try:
            self.var(a, b, path)
        finally:
            self.closed -= 1

    def constant(self, a: rx.Constant, b: rx.Constant, path: str) -> None:
        x, y = _array(a.data), _array(b.data)
        if x.dtype != y.dtype or x.shape != y.shape or not np.array_equal(x, y, equal_nan=True):
            self.fail(path + ".data", x, y, "different constant data")
        self.eq(a.struct_info, b.struct_info, path + ".struct_info")

    def module(self, a: IRModule, b: IRModule, path: str) -> None:
        names_a = sorted(gv.name_hint for gv in a.functions)
        names_b = sorted(gv.name_hint for gv in b.functions)
        if names_a != names_b:
            self.fail(path + ".functions", names_a, names_b, "different function names")
        gvs_b = {gv.name_hint: gv for gv in b.functions}
        for gv in a.functions:
            self.var(gv, gvs_b[gv.name_hint], path)
        self.mapping(a.attrs, b.attrs, path + ".attrs")
        self.mapping(a.global_infos, b.global_infos, path + ".global_infos")
        for name in names_a:
            self.eq(a[name], b[name], f'{path}["{name}"]')


def _both_arrays(a: Any, b: Any) -> bool:
    return isinstance(a, (list, tuple)) and isinstance(b, (list, tuple))


def _definitions(a: Any, b: Any, path: str) -> list[tuple[Any, Any, str]]:
    """The variables node `a` (and its counterpart `b`) defines, as TVM's SEqual maps them
    at their definition points: so two loop nests compare equal on their own, outside a
    function."""
    if isinstance(a, ts.For):
        return [(a.loop_var, b.loop_var, path + ".loop_var")]
    if isinstance(a, (ts.LetStmt, tx.Let, rx.VarBinding, rx.MatchCast)):
        return [(a.var, b.var, path + ".var")]
    if isinstance(a, ts.BufferRegion):  # TVM 0.27 compares a region's buffer as a definition
        return [(a.buffer, b.buffer, path + ".buffer")]
    if isinstance(a, ts.Block) and len(a.iter_vars) == len(b.iter_vars) and \
            len(a.alloc_buffers) == len(b.alloc_buffers):
        return [(x.var, y.var, f"{path}.iter_vars[{i}].var")
                for i, (x, y) in enumerate(zip(a.iter_vars, b.iter_vars))] + \
            [(x, y, f"{path}.alloc_buffers[{i}]")
             for i, (x, y) in enumerate(zip(a.alloc_buffers, b.alloc_buffers))] + \
            _region_buffers(a, b, path)
    return []


def _region_buffers(a: ts.Block, b: ts.Block, path: str) -> list[tuple[Any, Any, str]]:
    """TVM compares a block's read/write regions before its body, each region's buffer as a
    definition: so a block body over free buffers equals one over other buffers in their place.
    (Regions both sides leave to inference define the buffers inference would list.)"""
    from ..tir.schedule.analysis import read_buffers, written_buffers

    pairs = []
    for name, inferred in zip(_INFERABLE, (read_buffers, written_buffers)):
        xs, ys = getattr(a, name), getattr(b, name)
        if not xs and not ys:  # both left to inference: what inference would declare
            xs = inferred(a)
            ys = xs if b is a else inferred(b)  # the hasher asks with a is b
        else:
            xs, ys = [r.buffer for r in xs], [r.buffer for r in ys]
        if len(xs) == len(ys):
            pairs += [(x, y, f"{path}.{name}[{i}].buffer") for i, (x, y) in enumerate(zip(xs, ys))]
    return pairs


def structural_equal(lhs: Any, rhs: Any, map_free_vars: bool = False) -> bool:
    """True when the two IR values are equal up to the naming of bound variables."""
    try:
        _Equal(map_free_vars).eq(lhs, rhs, "")
    except _Mismatch:
        return False
    return True


def assert_structural_equal(lhs: Any, rhs: Any, map_free_vars: bool = False) -> None:
    """Raise ValueError naming the first difference and its path when lhs != rhs: as TVM,
    each side's TVMScript with the difference underlined (`structural_report`)."""
    try:
        _Equal(map_free_vars).eq(lhs, rhs, "")
    except _Mismatch as m:
        from .structural_report import mismatch_message

        raise ValueError(mismatch_message(lhs, rhs, m.path) or (
            f"StructuralEqual check failed, caused by lhs at {m.path}: {m.why}\n"
            f"  {_short(m.lhs)}\nand rhs at {m.path}:\n  {_short(m.rhs)}")) from None


def _short(x: Any) -> str:
    text = repr(x)
    return text if len(text) < 300 else text[:297] + "..."


# ---------------------------------------------------------------------------------------------


class _Hasher:
    def __init__(self, map_free_vars: bool) -> None:
        self.map_free = map_free_vars
        self.h = hashlib.blake2b(digest_size=8)
        self.index: dict[int, int] = {}
        self.keep: list[Any] = []
        self.closed = 0

    def put(self, token: str) -> None:
        self.h.update(token.encode() + b"\x00")

    def visit(self, x: Any) -> None:
        if isinstance(x, rx.PrimValue):
            x = x.value
        self.put(type(x).__name__)
        if isinstance(x, _VARLIKE):
            return self.var(x)
        if isinstance(x, IRModule):
            for name in sorted(gv.name_hint for gv in x.functions):
                self.put(name)
                self.visit(x[name])
            return self.visit_map(x.attrs)
        if isinstance(x, rx.Constant):
            arr = _array(x.data)
            self.put(f"{arr.dtype}{arr.shape}{hashlib.sha1(arr.tobytes()).hexdigest()}")
            return
        if dataclasses.is_dataclass(x):
            self.define(x)
            self.closed += isinstance(x, _SCOPES)
            for name, v in _fields(x):
                if isinstance(x, ts.Block) and name in _INFERABLE:
                    continue
                if isinstance(x, PrimFunc) and name == "body":
                    v = _without_implicit_root(v)
                if isinstance(x, PrimFunc) and name == "buffer_map":
                    v = _in_param_order(x, v)
                m = _compared_map(x, v) if name in _UNORDERED else None
                self.visit_map(m) if m is not None else self.visit(v)
            self.closed -= isinstance(x, _SCOPES)
        elif isinstance(x, (tuple, list)):
            self.put(str(len(x)))
            for v in x:
                self.visit(v)
        elif isinstance(x, dict):
            self.visit_map(x)
        else:
            self.put(x.name if isinstance(x, enum.Enum) else repr(x))

    def visit_map(self, m: dict) -> None:
        for k in sorted(m, key=str):
            self.put(str(k))
            self.visit(m[k])

    def define(self, x: Any) -> None:
        """The variables `x` defines are numbered where the equality maps them."""
        for v, _, _ in _definitions(x, x, ""):
            if id(v) not in self.index:
                self.closed += 1
                self.var(v)
                self.closed -= 1

    def var(self, x: Any) -> None:
        if isinstance(x, GlobalVar):
            return self.put(x.name_hint)
        if id(x) in self.index:
            return self.put(f"#{self.index[id(x)]}")
        if not (self.closed or self.map_free):
            self.put(f"free{id(x)}")
        self.index[id(x)] = len(self.index)
        self.keep.append(x)
        for _, v in _fields(x):
            self.visit(v)


def structural_hash(node: Any, map_free_vars: bool = False) -> int:
    """A hash that agrees with `structural_equal` (equal values hash alike)."""
    h = _Hasher(map_free_vars)
    h.visit(node)
    return int.from_bytes(h.h.digest(), "little")
