"""The compute of `R.layout_transform`: each output element read from the input position the
inverse of the index map gives, or `pad_value` where the map does not reach.

The inverse is found for maps built of the index itself, splits (`i // c` with `i % c`) and any
reordering of those (NCHW -> NCHW4c, transposes, tiling); other maps are refused by name.
"""

from __future__ import annotations

from typing import Any

from .. import te
from ..tir import expr as tx
from ..tir.index_map import IndexMap
from ..tir.stmt import (
    Block, BlockRealize, Buffer, BufferStore, For, ForKind, IterType, IterVar, Range, Stmt,
)

B = tx.BinaryOp


def _parts(imap: IndexMap) -> dict[Any, dict[str, Any]]:
    """For each input variable: the output position it sits at whole ('whole'), or those of
    its quotient ('div', with the divisor) and remainder ('mod')."""
    found: dict[Any, dict[str, Any]] = {v: {} for v in imap.initial_indices}
    for pos, e in enumerate(imap.final_indices):
        if isinstance(e, tx.Var) and e in found:
            found[e]["whole"] = pos
            continue
        if isinstance(e, tx.BinOp) and e.op in (B.FLOORDIV, B.FLOORMOD) and \
                isinstance(e.a, tx.Var) and e.a in found and isinstance(e.b, tx.IntImm):
            key = "div" if e.op == B.FLOORDIV else "mod"
            found[e.a][key] = (pos, e.b.value)
            continue
        raise NotImplementedError(f"R.layout_transform: cannot invert the output index {e} "
                                  f"(supported: i, i // c and i % c, in any order)")
    return found


def _source_index(var: Any, part: dict[str, Any], out: tuple[Any, ...]) -> tx.PrimExpr:
    if "whole" in part:
        return out[part["whole"]]
    if "div" in part and "mod" in part and part["div"][1] == part["mod"][1]:
        return out[part["div"][0]] * part["div"][1] + out[part["mod"][0]]
    raise NotImplementedError(f"R.layout_transform: the index map loses input index "
                              f"{var.name} (it needs {var.name} itself, or both "
                              f"{var.name} // c and {var.name} % c)")


def layout_transform(x: te.Tensor, imap: IndexMap, out_shape: Any, pad_value: Any
                     ) -> te.Tensor:
    parts = _parts(imap)
    fill = tx.const(0.0 if pad_value is None else pad_value, x.dtype)

    def body(*out: Any) -> tx.PrimExpr:
        src = [_source_index(v, parts[v], out) for v in imap.initial_indices]
        inside = None
        for s, d in zip(src, x.shape):
            cond = s < d
            inside = cond if inside is None else tx.binop(B.AND, inside, cond)
        if inside is None:
            return x[tuple(src)]
        return te.if_then_else(inside, x[tuple(src)], fill)
    return te.compute(tuple(out_shape), body, name="te_layout_transform")


def layout_transform_plain(x: te.Tensor, imap: IndexMap, out_shape: Any) -> te.Tensor | None:
    """TVM's form when the map reaches every output element (no padding): loops over the
    input, each element stored where the map sends it. None when padding is needed."""
    n_in, n_out = _count(x.shape), _count(out_shape)
    if n_in is None or n_in != n_out:
        return None

    def build(ins: list[Buffer], outs: list[Buffer]) -> Stmt:
        loops = [tx.Var(f"i{k}", "int64") for k in range(x.ndim)]
        ivars = [tx.Var(f"v_i{k}", "int64") for k in range(x.ndim)]
        dst = tuple(imap.map_indices(ivars))
        store = BufferStore(outs[0], tx.BufferLoad(ins[0], tuple(ivars)), dst)
        zero = tx.const(0, "int64")
        block = Block("te_layout_transform", tuple(
            IterVar(v, Range(zero, d), IterType.SPATIAL) for v, d in zip(ivars, x.shape)), store)
        stmt: Stmt = BlockRealize(tuple(loops), tx.IntImm("bool", 1), block)
        for lv, d in reversed(list(zip(loops, x.shape))):
            stmt = For(lv, zero, d, ForKind.SERIAL, stmt)
        return stmt

    return te.extern(tuple(out_shape), [x], build, name="te_layout_transform", dtype=x.dtype,
                     attrs={"tvmlite.bare_body": True})


def _count(shape: Any) -> int | None:
    total = 1
    for d in shape:
        if not isinstance(d, tx.IntImm):
            return None
        total *= d.value
    return total


def layout_transform_padded(x: te.Tensor, imap: IndexMap, out_shape: Any, pad_value: Any
                            ) -> te.Tensor | None:
    """TVM's form when one static axis `n` is split by `c` (`i // c`, `i % c`) with a
    remainder: the last tile's tail is padding, written `q == Q - 1 and n % c <= r` (`r == c -
    1` when only one element pads). None for other maps."""
    parts = _parts(imap)
    split = [(v, p) for v, p in parts.items() if "div" in p]
    if len(split) != 1:
        return None
    var, part = split[0]
    n_expr = x.shape[list(parts).index(var)]
    (qpos, c), (rpos, c2) = part["div"], part.get("mod", (None, None))
    if rpos is None or c != c2:
        return None
    if not isinstance(n_expr, tx.IntImm):
        return _symbolic_padded(x, imap, parts, out_shape, pad_value, n_expr, qpos, rpos, c)
    n = n_expr.value
    if n % c == 0 or not all(isinstance(d, tx.IntImm) for d in x.shape):
        return None
    fill = tx.const(0.0 if pad_value is None else pad_value, x.dtype)

    def body(*out: Any) -> tx.PrimExpr:
        last = tx.binop(B.EQ, out[qpos], tx.const(-(-n // c) - 1, "int64"))
        tail = tx.binop(B.EQ, out[rpos], tx.const(c - 1, "int64")) if n % c == c - 1 else \
            tx.binop(B.LE, tx.const(n % c, "int64"), out[rpos])
        src = [_source_index(v, parts[v], out) for v in imap.initial_indices]
        return te.if_then_else(tx.binop(B.AND, last, tail), fill, x[tuple(src)])
    return te.compute(tuple(out_shape), body, name="te_layout_transform_with_pad")


def _symbolic_padded(x: te.Tensor, imap: IndexMap, parts: dict[Any, Any], out_shape: Any,
                     pad_value: Any, n: tx.PrimExpr, qpos: int, rpos: int, c: int
                     ) -> te.Tensor:
    """The padded gather for a symbolic axis `n` split by `c`, as TVM writes its padding
    predicate: `n % -c < 0 and q == n // c and n % c <= r` (n not a multiple of c, the last
    tile, its tail)."""
    fill = tx.const(0.0 if pad_value is None else pad_value, x.dtype)
    k = tx.const(c, n.dtype)

    def body(*out: Any) -> tx.PrimExpr:
        ragged = tx.binop(B.LT, tx.binop(B.FLOORMOD, n, tx.const(-c, n.dtype)),
                          tx.const(0, n.dtype))
        last = tx.binop(B.EQ, out[qpos], tx.binop(B.FLOORDIV, n, k))
        tail = tx.binop(B.LE, tx.binop(B.FLOORMOD, n, k), out[rpos])
        src = [_source_index(v, parts[v], out) for v in imap.initial_indices]
        return te.if_then_else(tx.binop(B.AND, tx.binop(B.AND, ragged, last), tail), fill,
                               x[tuple(src)])
    return te.compute(tuple(out_shape), body, name="te_layout_transform_with_pad")


def needs_padding(x_shape: Any, out_shape: Any) -> bool:
    n_in, n_out = _count(x_shape), _count(out_shape)
    return n_in is None or n_in != n_out
