"""CombineParallelMatmul as TVM 0.27 does it: matmuls of one block that share their left operand
become one matmul of the concatenated right operands, split afterwards.

A branch is `matmul(x, w)`, then optionally `add(., bias)`, then optionally an activation, each
step the only use of the one before. Branches of one `x` combine when their right operands have
one rank, dtype and batch shape (a rank whose operands disagree on the batch combines nothing),
at most one of them of a symbolic width (it goes last: split points are integers), and the
user's `check(x, rhs, bias, activation)` agrees. The bias add is combined when every branch has
one, the activation when every branch has the same one (and the biases were combined or there
are none); what is not combined is applied to each branch's slice. The combined computation is
emitted where the first branch ended, each slice where its branch ended. Groups are rewritten
one at a time, the one with the most branches first.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable

from ..ir import expr as rx
from ..ir import struct_info as si
from ..ir.functor import var_use_counts
from ..ir.module import IRModule
from ..ir.structural import structural_equal
from ..tir import expr as tx
from .graph_rewrites import op
from .pass_infra import Pass, PassContext

ACTIVATIONS = ("relax.nn.relu", "relax.nn.gelu", "relax.nn.gelu_tanh", "relax.nn.silu")


@dataclass
class _Branch:
    lhs: rx.Var
    rhs: rx.Expr
    dtype: str
    bias: rx.Expr | None
    activation: str | None
    members: list[int]  # positions of the branch's bindings; the last one is its end

    @property
    def end(self) -> int:
        return self.members[-1]


def _call_of(value: Any, name: str) -> bool:
    return isinstance(value, rx.Call) and isinstance(value.op, rx.Op) and value.op.name == name


def _users(bindings: list[Any]) -> dict[int, list[int]]:
    """id(var) -> positions of the bindings of the block that use it."""
    users: dict[int, list[int]] = {}
    for i, b in enumerate(bindings):
        for v in var_use_counts(b.value):
            users.setdefault(id(v), []).append(i)
    return users


def _branches(bindings: list[Any], uses: dict[Any, int]) -> list[_Branch]:
    users = _users(bindings)
    out = []
    for i, b in enumerate(bindings):
        v = b.value
        if not (isinstance(b, rx.VarBinding) and _call_of(v, "relax.matmul")
                and isinstance(v.args[0], rx.Var)):
            continue
        rhs_si, out_si = v.args[1].struct_info, b.var.struct_info
        if not (isinstance(rhs_si, si.TensorStructInfo) and rhs_si.shape is not None and
                rhs_si.ndim >= 2 and isinstance(out_si, si.TensorStructInfo)):
            continue
        members, bias, act = [i], None, None
        nxt = _sole_user(bindings, users, uses, members[-1])
        if nxt is not None and _call_of(bindings[nxt].value, "relax.add") and \
                bindings[nxt].value.args[0] is bindings[members[-1]].var and \
                _is_bias(bindings[nxt].value.args[1]):
            bias = bindings[nxt].value.args[1]
            members.append(nxt)
            nxt = _sole_user(bindings, users, uses, members[-1])
        if nxt is not None and isinstance(bindings[nxt].value, rx.Call) and \
                isinstance(bindings[nxt].value.op, rx.Op) and \
                bindings[nxt].value.op.name in ACTIVATIONS and \
                len(bindings[nxt].value.args) == 1:
            act = bindings[nxt].value.op.name
            members.append(nxt)
        out.append(_Branch(v.args[0], v.args[1], out_si.dtype, bias, act, members))
    return out


def _is_bias(e: Any) -> bool:
    s = e.struct_info
    return isinstance(s, si.TensorStructInfo) and s.ndim == 1


def _sole_user(bindings: list[Any], users: dict[int, list[int]], uses: dict[Any, int],
               pos: int) -> int | None:
    var = bindings[pos].var
    found = users.get(id(var), [])
    if uses.get(var, 0) != 1 or len(found) != 1:
        return None
    user = bindings[found[0]]
    return found[0] if isinstance(user, rx.VarBinding) else None


def _width(b: _Branch) -> Any:
    return b.rhs.struct_info.shape[-1]  # type: ignore[union-attr]


def _groups(branches: list[_Branch]) -> list[list[_Branch]]:
    """Branches that can combine: one lhs, one rhs rank and dtype, one batch shape, static
    widths first and at most one symbolic."""
    by_key: dict[tuple[int, int, str], list[_Branch]] = {}
    for b in branches:
        s = b.rhs.struct_info
        by_key.setdefault((id(b.lhs), s.ndim, s.dtype), []).append(b)  # type: ignore
    out = []
    for members in by_key.values():
        batch = [m.rhs.struct_info.shape[:-2] for m in members]  # type: ignore[union-attr]
        if any(not structural_equal(tuple(x), tuple(batch[0])) for x in batch[1:]):
            continue  # TVM combines none of a rank whose batches disagree
        static = [m for m in members if isinstance(_width(m), tx.IntImm)]
        dynamic = [m for m in members if not isinstance(_width(m), tx.IntImm)]
        chosen = static + dynamic[:1]
        if len(chosen) > 1:
            out.append(chosen)
    return out


def _defined_before(e: Any, pos: int, where: dict[int, int]) -> bool:
    return all(where.get(id(v), -1) < pos for v in var_use_counts(e))


class _Combiner:
    def __init__(self, check: Callable[..., bool] | None, dataflow: bool) -> None:
        self.check = check
        self.var = rx.DataflowVar if dataflow else rx.Var
        self.rejected: set[tuple[int, ...]] = set()

    def block(self, bindings: list[Any], uses: dict[Any, int]) -> list[Any]:
        while True:
            group = self.next_group(bindings, uses)
            if group is None:
                return bindings
            bindings = self.combine(bindings, group)

    def next_group(self, bindings: list[Any], uses: dict[Any, int]) -> list[_Branch] | None:
        where = {id(b.var): i for i, b in enumerate(bindings)}
        candidates = []
        for group in _groups(_branches(bindings, uses)):
            first = min(b.end for b in group)
            group = [b for b in group if _defined_before(b.rhs, first, where) and
                     (b.bias is None or _defined_before(b.bias, first, where))]
            key = tuple(id(bindings[b.end].var) for b in group)
            if len(group) < 2 or key in self.rejected:
                continue
            if self.check is not None and not self.check(
                    group[0].lhs, [b.rhs for b in group], [b.bias for b in group],
                    [b.activation for b in group]):
                self.rejected.add(key)
                continue
            candidates.append(group)
        if not candidates:
            return None
        return max(candidates, key=lambda g: (len(g), -min(b.end for b in g)))

    def combine(self, bindings: list[Any], group: list[_Branch]) -> list[Any]:
        first = min(b.end for b in group)
        shared = self.shared(group)
        split_var = shared[-1].var
        with_bias = all(b.bias is not None for b in group)
        acts = {b.activation for b in group}
        with_act = len(acts) == 1 and (with_bias or all(b.bias is None for b in group))
        tails: dict[int, list[Any]] = {}
        for i, b in enumerate(group):
            tails[b.end] = self.tail(bindings[b.end].var, split_var, i, b,
                                     None if with_bias else b.bias,
                                     None if with_act else b.activation)
        dropped = {p for b in group for p in b.members}
        out: list[Any] = []
        for pos, binding in enumerate(bindings):
            if pos == first:
                out.extend(shared)
            if pos in tails:
                out.extend(tails[pos])
            elif pos not in dropped:
                out.append(binding)
        return out

    def emit(self, out: list[Any], value: rx.Expr) -> rx.Var:
        var = self.var("lv", value.struct_info)
        out.append(rx.VarBinding(var, value))
        return var

    def shared(self, group: list[_Branch]) -> list[Any]:
        out: list[Any] = []
        rhs = [b.rhs for b in group]
        ndim = rhs[0].struct_info.ndim  # type: ignore[union-attr]
        weights = self.emit(out, op("concat")(_tuple(rhs), ndim - 1))
        y = self.emit(out, op("matmul")(group[0].lhs, weights, group[0].dtype))
        if all(b.bias is not None for b in group):
            bias = self.emit(out, op("concat")(_tuple([b.bias for b in group]), 0))
            y = self.emit(out, op("add")(y, bias))
            act = {b.activation for b in group}
            if len(act) == 1 and None not in act:
                y = self.emit(out, op(_short(act.pop()))(y))
        elif all(b.bias is None for b in group):
            act = {b.activation for b in group}
            if len(act) == 1 and None not in act:
                y = self.emit(out, op(_short(act.pop()))(y))
        points, total = [], 0
        for b in group[:-1]:
            total += int(_width(b).value)
            points.append(total)
        out_ndim = y.struct_info.ndim  # type: ignore[union-attr]
        self.emit(out, op("split")(y, points, out_ndim - 1))
        return out

    def tail(self, end: rx.Var, parts: rx.Var, index: int, b: _Branch, bias: Any,
             act: str | None) -> list[Any]:
        """The bindings that give the branch's end variable its slice (then what of the
        branch was not combined)."""
        out: list[Any] = []
        fields = parts.struct_info.fields  # type: ignore[union-attr]
        value: rx.Expr = rx.TupleGetItem(parts, index, fields[index])
        if bias is not None:
            value = op("add")(self.emit(out, value), bias)
        if act is not None:
            value = op(_short(act))(self.emit(out, value))
        out.append(rx.VarBinding(end, value))
        return out


def _short(name: str) -> str:
    return name[len("relax."):]


def _tuple(fields: list[Any]) -> rx.Tuple:
    return rx.Tuple(tuple(fields), si.TupleStructInfo(tuple(f.struct_info for f in fields)))


def combine_parallel_matmul(func: rx.Function,
                            check: Callable[..., bool] | None = None) -> rx.Function:
    uses = var_use_counts(func.body)
    blocks = []
    for block in func.body.blocks:
        if isinstance(block, rx.DataflowBlock):
            new = _Combiner(check, True).block(list(block.bindings), uses)
            if len(new) != len(block.bindings) or any(
                    a is not b for a, b in zip(new, block.bindings)):
                block = rx.DataflowBlock(tuple(new))
        blocks.append(block)
    return func if all(a is b for a, b in zip(blocks, func.body.blocks)) else \
        _replace_blocks(func, blocks)


def _replace_blocks(func: rx.Function, blocks: list[Any]) -> rx.Function:
    return replace(func, body=replace(func.body, blocks=tuple(blocks)))


def CombineParallelMatmul(check: Callable[..., bool] | None = None) -> Pass:  # noqa: N802
    """Combine the matmuls sharing a left operand (with their bias adds and activations)."""

    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        return mod.map_functions(lambda gv, f: combine_parallel_matmul(f, check)
                                 if isinstance(f, rx.Function) else f)

    return Pass(run, "CombineParallelMatmul")


__all__ = ["CombineParallelMatmul", "combine_parallel_matmul"]
