"""Binding-level graph rewrites users reach for early: EliminateCommonSubexpr,
DecomposeOpsForInference (batch_norm as arithmetic) and FoldBatchnormToConv2D.

Each walks a function's blocks in order with a `BlockRewriter`: a binding may be kept, dropped
(its var then names an earlier value), or replaced by several new bindings made with the
operators' own `make` (so every new call has inferred struct info).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..ir import expr as rx
from ..ir import struct_info as si
from ..ir.functor import substitute_vars
from ..ir.module import IRModule
from ..ir.op import CALL_DPS_PACKED, op_attr, with_inferred_struct_info
from ..ir.structural import structural_equal
from .pass_infra import Pass, PassContext

DROP = object()  # what `BlockRewriter.rewrite` returns to remove a binding


def op(name: str) -> Any:
    return op_attr(f"relax.{name}", "make")


class BlockRewriter:
    """Rewrites one function's bindings; subclasses override `rewrite(binding)`.

    `emit(value, name)` appends a new binding to the current block and returns its var;
    `rewrite` returns the value to bind to the binding's own var, None to keep the binding,
    or DROP to remove it (after mapping its var to another value in `self.mapping`)."""

    def __init__(self) -> None:
        self.mapping: dict[rx.Var, rx.Expr] = {}
        self.out: list[Any] = []
        self.dataflow = False
        self.counter = 0

    def run(self, func: rx.Function) -> rx.Function:
        blocks = []
        for blk in func.body.blocks:
            self.out, self.dataflow = [], isinstance(blk, rx.DataflowBlock)
            self.begin_block()
            for b in blk.bindings:
                if self.mapping:
                    b = self._renormalized(b, substitute_vars(b.value, self.mapping))
                new = self.rewrite(b)
                if new is None or isinstance(new, (rx.VarBinding, rx.MatchCast)):
                    self.out.append(new or b)
                elif new is not DROP:
                    self.out.append(replace(b, value=new))
            blocks.append(replace(blk, bindings=tuple(self.out)))
        self.begin_block()  # NOTE: also ends the last block before the body is rewritten
        body = substitute_vars(func.body.body, self.mapping) if self.mapping else func.body.body
        return replace(func, body=replace(func.body, blocks=tuple(blocks), body=body))

    def _renormalized(self, b: Any, value: rx.Expr) -> Any:
        """`b` with its value's variables replaced; as TVM's mutator normalizes, an operator
        call given an argument of another struct info is inferred again, and its variable
        takes the new struct info (later uses follow it)."""
        if value is b.value:
            return b
        b = replace(b, value=value)
        if not (isinstance(b, rx.VarBinding) and isinstance(value, rx.Call) and
                isinstance(value.op, rx.Op) and op_attr(value.op.name, "infer_struct_info")):
            return b
        call = with_inferred_struct_info(value)
        if call.struct_info is None or structural_equal(call.struct_info, b.var.struct_info):
            return b
        var = replace(b.var, struct_info=call.struct_info)
        self.mapping[b.var] = var
        return rx.VarBinding(var, call, b.span)

    def begin_block(self) -> None:
        """Called at the start of every binding block and once after the last."""

    def rewrite(self, b: Any) -> Any:
        return None

    def emit(self, value: rx.Expr, name: str = "lv") -> rx.Var:
        self.counter += 1
        make = rx.DataflowVar if self.dataflow else rx.Var
        var = make(f"{name}{self.counter}", value.struct_info)
        self.out.append(rx.VarBinding(var, value))
        return var


def function_rewrite(name: str, rewriter: type[BlockRewriter], **kw: Any) -> Pass:
    def one(f: rx.Function) -> rx.Function:
        return rewriter(**kw).run(with_local_functions(f, one))

    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        return mod.map_functions(lambda gv, f: one(f) if isinstance(f, rx.Function) else f)
    return Pass(run, name)


def with_local_functions(f: rx.Function, fn: Any) -> rx.Function:
    """`f` with `fn` applied to each function bound inside it (TVM's passes visit local
    functions as they visit the function around them)."""
    def visit(b: Any) -> Any:
        return replace(b, value=fn(b.value)) if isinstance(b.value, rx.Function) else b

    if not any(isinstance(b.value, rx.Function) for blk in f.body.blocks for b in blk.bindings):
        return f
    blocks = tuple(replace(blk, bindings=tuple(visit(b) for b in blk.bindings))
                   for blk in f.body.blocks)
    return replace(f, body=replace(f.body, blocks=blocks))


# -- EliminateCommonSubexpr -----------------------------------------------------------------------


def expr_key(e: Any) -> Any:
    """A hashable key equal for structurally equal values over the same variables."""
    if isinstance(e, rx.Var):
        return ("var", id(e))
    if isinstance(e, rx.Call):
        return ("call", expr_key(e.op), tuple(expr_key(a) for a in e.args), e.attrs,
                tuple(repr(s) for s in e.sinfo_args))
    if isinstance(e, rx.Tuple):
        return ("tuple", tuple(expr_key(f) for f in e.fields))
    if isinstance(e, rx.TupleGetItem):
        return ("getitem", expr_key(e.tuple_value), e.index)
    if isinstance(e, rx.Op):
        return ("op", e.name)
    if isinstance(e, rx.GlobalVarRef):
        return ("gv", e.gvar.name_hint)
    if isinstance(e, rx.ExternFunc):
        return ("extern", e.global_symbol)
    if isinstance(e, (rx.ShapeExpr, rx.PrimValue, rx.StringImm)):
        return (type(e).__name__, repr(e))
    return ("other", id(e))  # constants (by identity), functions, If


def _eliminable(value: rx.Expr, call_only: bool) -> bool:
    if isinstance(value, rx.Call):
        return not isinstance(value.op, rx.ExternFunc) and value.op != CALL_DPS_PACKED
    return not call_only and isinstance(value, (rx.Tuple, rx.TupleGetItem))


class _CSE(BlockRewriter):
    """Values are remembered across blocks, except those held only by dataflow vars, which
    end with their block; a dataflow block's output that repeats one of its dataflow values
    becomes that value's holder afterwards (TVM's scoping)."""

    def __init__(self, call_only: bool = False) -> None:
        super().__init__()
        self.call_only = call_only
        self.seen: dict[Any, rx.Var] = {}
        self.exported: dict[Any, rx.Var] = {}
        self.local: list[rx.Var] = []

    def begin_block(self) -> None:
        for key, var in list(self.seen.items()):
            if isinstance(var, rx.DataflowVar):
                del self.seen[key]
        self.seen.update(self.exported)
        for var in self.local:  # an output read its dataflow twin inside the block only
            self.mapping.pop(var, None)
        self.exported, self.local = {}, []

    def branch(self, seq: rx.SeqExpr) -> rx.SeqExpr:
        """An If branch, seeing the values bound before the If (not those of the other
        branch)."""
        sub = _CSE(self.call_only)
        sub.seen, sub.mapping = dict(self.seen), dict(self.mapping)
        return sub.run(rx.Function((), seq)).body

    def rewrite(self, b: Any) -> Any:
        if isinstance(b, rx.VarBinding) and isinstance(b.value, rx.If):
            v = b.value
            return replace(v, true_branch=self.branch(v.true_branch),
                           false_branch=self.branch(v.false_branch))
        if isinstance(b, rx.MatchCast):
            key: Any = ("match_cast", expr_key(b.value), repr(b.struct_info))
        elif isinstance(b, rx.VarBinding) and _eliminable(b.value, self.call_only):
            key = expr_key(b.value)
        else:
            return None
        first = self.seen.get(key)
        if first is None:
            self.seen[key] = b.var
            return None
        self.mapping[b.var] = first
        if isinstance(first, rx.DataflowVar) and not isinstance(b.var, rx.DataflowVar):
            self.local.append(b.var)
            self.exported[key] = b.var
        return rx.VarBinding(b.var, first)  # kept as `lv1 = lv0` (TVM's form)


def EliminateCommonSubexpr(call_only: bool = False) -> Pass:  # noqa: N802
    """Bind each repeated pure value once: a repeat becomes `lv1 = lv0` and later uses of a
    repeated dataflow var read the first one."""
    return function_rewrite("EliminateCommonSubexpr", _CSE, call_only=call_only)


# -- DecomposeOpsForInference ---------------------------------------------------------------------


def _channel_view(rw: BlockRewriter, vec: rx.Expr, ndim: int, axis: int) -> rx.Expr:
    axes = [a for a in range(ndim) if a != axis]
    return rw.emit(op("expand_dims")(vec, axes))


def decompose_batch_norm(rw: BlockRewriter, call: rx.Call, stats: tuple[rx.Expr, rx.Expr]
                         | None = None) -> rx.Expr:
    """`(x - mean) / sqrt(var + eps) * gamma + beta`, with the moving statistics (or the
    given batch `stats`)."""
    x, gamma, beta, mean, var = call.args
    if stats is not None:
        mean, var = stats
    xs = x.struct_info
    assert isinstance(xs, si.TensorStructInfo)
    ndim, axis = xs.ndim, call.attr("axis") % xs.ndim
    centered = rw.emit(op("subtract")(x, _channel_view(rw, mean, ndim, axis)))
    var_b = _channel_view(rw, var, ndim, axis)
    denom = rw.emit(op("sqrt")(rw.emit(op("add")(var_b, float(call.attr("epsilon"))))))
    out: rx.Expr = rw.emit(op("divide")(centered, denom))
    if call.attr("scale"):
        out = rw.emit(op("multiply")(out, _channel_view(rw, gamma, ndim, axis)))
    if call.attr("center"):
        out = rw.emit(op("add")(out, _channel_view(rw, beta, ndim, axis)))
    return rx.Tuple((out, mean, var), si.TupleStructInfo(
        (out.struct_info, mean.struct_info, var.struct_info)))


class _Decompose(BlockRewriter):
    def rewrite(self, b: Any) -> Any:
        v = b.value
        if isinstance(v, rx.Call) and isinstance(v.op, rx.Op) and \
                v.op.name == "relax.nn.batch_norm" and _known_rank(v.args[0]):
            return decompose_batch_norm(self, v)
        if isinstance(v, rx.Call) and isinstance(v.op, rx.Op) and \
                v.op.name == "relax.tensor_to_shape" and isinstance(b, rx.VarBinding):
            return _tensor_to_shape(self, b)
        return None


def _tensor_to_shape(rw: BlockRewriter, b: rx.VarBinding) -> Any:
    """`R.tensor_to_shape(t)` as TVM decomposes it: the VM builtin's shape, matched against
    fresh symbolic dims, and a shape of those dims standing for the value afterwards."""
    from ..ir.op import CALL_PURE_PACKED
    from ..tir import expr as tx

    sinfo = b.var.struct_info
    if not isinstance(sinfo, si.ShapeStructInfo) or sinfo.ndim < 0 or \
            rw.dataflow and not isinstance(b.var, rx.DataflowVar):
        return None
    packed = rx.Call(CALL_PURE_PACKED, (rx.ExternFunc("vm.builtin.tensor_to_shape"),
                                        b.value.args[0]), sinfo_args=(sinfo,),
                     struct_info=sinfo)
    rw.out.append(rx.VarBinding(b.var, packed))
    dims = tuple(tx.Var("x", "int64") for _ in range(sinfo.ndim))
    matched = si.ShapeStructInfo(dims)
    make = rx.DataflowVar if isinstance(b.var, rx.DataflowVar) else rx.Var
    rw.out.append(rx.MatchCast(make("y", matched), b.var, matched))
    rw.mapping[b.var] = rw.emit(rx.ShapeExpr(dims, matched), "gv")
    return DROP


def _known_rank(e: rx.Expr) -> bool:
    return isinstance(e.struct_info, si.TensorStructInfo) and e.struct_info.ndim >= 0


def DecomposeOpsForInference(func_name: str | None = None) -> Pass:  # noqa: N802
    """batch_norm (inference: the moving statistics) as elementwise arithmetic."""
    return _decompose_pass("DecomposeOpsForInference", _Decompose, func_name)


def _decompose_pass(name: str, rewriter: type[BlockRewriter], func_name: str | None) -> Pass:
    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        return mod.map_functions(lambda gv, f: rewriter().run(f) if isinstance(
            f, rx.Function) and (func_name is None or gv.name_hint == func_name) else f)
    return Pass(run, name)


def _decompose_layer_norm(rw: BlockRewriter, call: rx.Call) -> rx.Expr:
    x, gamma, beta = call.args
    axes = list(call.attr("axes"))
    centered = rw.emit(op("subtract")(x, rw.emit(op("mean")(x, axes, True))))
    var = rw.emit(op("variance")(x, axes, True))
    denom = rw.emit(op("sqrt")(rw.emit(op("add")(var, float(call.attr("epsilon"))))))
    out: rx.Expr = rw.emit(op("divide")(centered, denom))
    if call.attr("scale"):
        out = rw.emit(op("multiply")(out, gamma))
    if call.attr("center"):
        out = op("add")(out, beta)
    return out


class _DecomposeTraining(BlockRewriter):
    """batch_norm with the batch's statistics (and the moving ones updated), layer_norm."""

    def rewrite(self, b: Any) -> Any:
        v = b.value
        name = getattr(getattr(v, "op", None), "name", "")
        if name == "relax.nn.layer_norm" and _known_rank(v.args[0]):
            return _decompose_layer_norm(self, v)
        if name != "relax.nn.batch_norm" or not _known_rank(v.args[0]):
            return None
        x = v.args[0]
        axis = v.attr("axis") % x.struct_info.ndim
        axes = [a for a in range(x.struct_info.ndim) if a != axis]
        mean = self.emit(op("mean")(x, axes, False))
        var = self.emit(op("variance")(x, axes, False))
        inner = self.emit(decompose_batch_norm(self, v, (mean, var)), "inner_tuple")
        res = self.emit(rx.TupleGetItem(inner, 0, inner.struct_info.fields[0]), "inner_res")
        momentum = v.attr("momentum")
        take = 0.1 if momentum is None else float(momentum)  # TVM's default
        keep = 1.0 - take
        moved = []
        for old, new in ((v.args[3], mean), (v.args[4], var)):
            a = self.emit(op("multiply")(keep, old))
            moved.append(self.emit(op("add")(a, self.emit(op("multiply")(take, new)))))
        return rx.Tuple((res, *moved), si.TupleStructInfo(
            (res.struct_info, moved[0].struct_info, moved[1].struct_info)))


def DecomposeOpsForTraining(func_name: str | None = None) -> Pass:  # noqa: N802
    """batch_norm (training: batch statistics, moving statistics updated with its momentum)
    and layer_norm as elementwise arithmetic and reductions."""
    return _decompose_pass("DecomposeOpsForTraining", _DecomposeTraining, func_name)


# -- FoldBatchnormToConv2D ------------------------------------------------------------------------


class _FoldBN(BlockRewriter):
    """conv2d(x, W) -> batch_norm(., g, b, m, v)[0] becomes conv2d(x, W * s) + (b - m * s)
    with s = g / sqrt(v + eps); FoldConstant then folds the new weight when W, g, ... are
    constants."""

    def __init__(self) -> None:
        super().__init__()
        self.values: dict[rx.Var, rx.Expr] = {}
        self.folded: dict[rx.Var, rx.Var] = {}

    def rewrite(self, b: Any) -> Any:
        if isinstance(b, rx.VarBinding):
            self.values[b.var] = b.value
        v = b.value
        if isinstance(v, rx.TupleGetItem) and v.index == 0 and v.tuple_value in self.folded:
            return self.folded[v.tuple_value]
        if not (isinstance(v, rx.Call) and getattr(v.op, "name", "") == "relax.nn.batch_norm"):
            return None
        conv = self.values.get(v.args[0])
        if not _foldable(conv, v):
            return None
        x, w = conv.args
        gamma, beta, mean, var = v.args[1:]
        g = gamma if v.attr("scale") else self.emit(op("ones_like")(gamma))
        bt = beta if v.attr("center") else self.emit(op("zeros_like")(beta))
        inv = self.emit(op("divide")(g,
                                     self.emit(op("sqrt")(self.emit(op("add")(
                                         var, float(v.attr("epsilon"))))))))
        scale_w = self.emit(op("reshape")(inv, (-1, 1, 1, 1)))
        new_w = self.emit(op("multiply")(w, scale_w))
        shift = self.emit(op("subtract")(bt, self.emit(op("multiply")(mean, inv))))
        new_conv = self.emit(replace(conv, args=(x, new_w)))
        out = self.emit(op("add")(new_conv, self.emit(op("reshape")(shift, (1, -1, 1, 1)))))
        self.folded[b.var] = out
        return rx.Tuple((out, mean, var), si.TupleStructInfo(
            (out.struct_info, mean.struct_info, var.struct_info)))


def _foldable(conv: Any, bn: rx.Call) -> bool:
    if not (isinstance(conv, rx.Call) and getattr(conv.op, "name", "") == "relax.nn.conv2d"):
        return False
    return conv.attr("data_layout") in (None, "NCHW") and \
        conv.attr("kernel_layout") in (None, "OIHW") and bn.attr("axis") in (1, -3)


def FoldBatchnormToConv2D() -> Pass:  # noqa: N802
    """Fold an inference batch_norm into the conv2d before it (weights scaled, bias added)."""
    return function_rewrite("FoldBatchnormToConv2D", _FoldBN)
