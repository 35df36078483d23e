"""ConvertLayout: run conv2d in the layout the user asks for (NCHW -> NHWC), keeping tensors
in that layout through the elementwise operators after it.

`ConvertLayout({"relax.nn.conv2d": ["NHWC", "OHWI"]})`: each NCHW/OIHW conv2d gets its data
and weight transposed (`permute_dims`) into the desired layouts; its result stays NHWC, and so
do the results of unary elementwise operators and of broadcasting binary ones whose other
operand is a scalar or a 4-d tensor (transposed alongside). Operators with axis attributes
have them renumbered; pooling, resize, batch_norm, split and the scatter / gather family follow
the rules of convert_layout_ops.py (tuple results keep a per-field layout). Wherever a converted
value meets anything else (another operator, a function output), it is transposed back to NCHW
once (a tuple field by field).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from ..ir import expr as rx
from ..ir import struct_info as si
from ..ir.functor import substitute_vars
from ..ir.module import IRModule
from ..ir.op import op_attr, with_inferred_struct_info
from ..ir.structural import structural_equal
from ..tir.attrs import Attrs
from .convert_layout_ops import LAYOUT_OPS, REORDER_RULES, RULES, Fields, Permuted
from .graph_rewrites import DROP, BlockRewriter, op
from .pass_infra import Pass, PassContext

TO_NHWC, TO_NCHW = [0, 2, 3, 1], [0, 3, 1, 2]
KERNEL_PERM = {"OIHW": [0, 1, 2, 3], "OHWI": [0, 2, 3, 1], "HWIO": [2, 3, 1, 0]}
ELEMWISE, BROADCAST = 0, 1


def _rank(e: rx.Expr) -> int:
    s = e.struct_info
    return s.ndim if isinstance(s, si.TensorStructInfo) else -1


class _Convert(BlockRewriter):
    def __init__(self, desired: dict[str, list[str]]) -> None:
        super().__init__()
        self.desired = desired
        self.nhwc: dict[rx.Var, rx.Var] = {}  # original var -> its NHWC version
        self.back: dict[rx.Var, rx.Var] = {}  # dropped var -> its NCHW transpose
        self.kept: set[rx.Var] = set()  # converted outputs that still hold NCHW data
        self.fields: dict[rx.Var, tuple[bool, ...]] = {}  # tuple var -> which fields are NHWC
        # converted values in another order than NHWC (expand_dims, squeeze): axis i of the
        # new value holds axis perm[i] of the original
        self.perm: dict[rx.Var, tuple[int, ...]] = {}

    def emit(self, value: rx.Expr, name: str = "lv") -> rx.Var:
        self.counter += 1
        var = (rx.DataflowVar if self.dataflow else rx.Var)(
            name if self.counter == 1 else f"{name}{self.counter - 1}", value.struct_info)
        self.out.append(rx.VarBinding(var, value))
        return var

    def rewrite(self, b: Any) -> Any:
        if isinstance(b, rx.MatchCast) and b.value in self.nhwc and isinstance(
                b.var, rx.DataflowVar) and _rank(b.value) == 4 and b.value not in self.perm:
            return self._match_cast(b)
        converted = self._convert(b.value) if isinstance(b, rx.VarBinding) else None
        if converted is None and _is_op(b.value, "relax.nn.conv2d") and \
                "relax.nn.conv2d" in self.desired:
            return self._kept_conv2d(b)
        if converted is None:
            return self._restore_uses(b.value)
        if isinstance(converted, _Plain):  # read NHWC operands, gives the original layout
            return converted.expr
        if isinstance(converted, Fields):
            self.fields[b.var] = converted.nhwc
            converted = converted.expr
        if isinstance(converted, Permuted):
            perm = list(converted.perm)
            if perm == list(range(len(perm))):  # back in the original order
                return converted.expr
            if perm != TO_NHWC:
                self.perm[b.var] = converted.perm
            converted = converted.expr
        if isinstance(b.var, rx.DataflowVar):  # keeps its name, now holding NHWC data
            var = rx.DataflowVar(b.var.name_hint, converted.struct_info)
            self.out.append(rx.VarBinding(var, converted))
            self.nhwc[b.var] = var
            return DROP
        self.nhwc[b.var] = self.emit(converted)  # an output: NCHW again, under its name
        self.kept.add(b.var)
        return self._to_nchw(b.var)

    def _kept_conv2d(self, b: rx.VarBinding) -> Any:
        """A conv2d left in its layout is made again, as TVM does: its variable takes the
        struct info inferred for it (more precise than a hand-written annotation)."""
        call = with_inferred_struct_info(replace(b.value, struct_info=None))
        if structural_equal(call.struct_info, b.var.struct_info):
            return None
        var = type(b.var)(b.var.name_hint, call.struct_info)
        self.mapping[b.var] = var
        return rx.VarBinding(var, call)

    def _to_nchw(self, original: rx.Var) -> rx.Expr:
        """The original layout of a converted value: a transpose, or for a tuple each field
        taken out (and transposed where NHWC) and the tuple made again."""
        new = self.nhwc[original]
        if original in self.perm:
            return op("permute_dims")(new, [self.perm[original].index(a)
                                            for a in range(len(self.perm[original]))])
        if original not in self.fields:
            return op("permute_dims")(new, TO_NCHW)
        items = []
        for i, (is_nhwc, s) in enumerate(zip(self.fields[original], new.struct_info.fields)):
            item = self.emit(rx.TupleGetItem(new, i, s))
            items.append(self.emit(op("permute_dims")(item, TO_NCHW)) if is_nhwc else item)
        return rx.Tuple(tuple(items), si.TupleStructInfo(tuple(v.struct_info for v in items)))

    def _match_cast(self, b: rx.MatchCast) -> Any:
        """A match_cast of an NHWC value checks the NHWC shape (its dims permuted)."""
        sinfo = b.struct_info
        if isinstance(sinfo, si.TensorStructInfo) and sinfo.shape is not None:
            sinfo = replace(sinfo, shape=tuple(sinfo.shape[a] for a in TO_NHWC))
        var = rx.DataflowVar(b.var.name_hint, sinfo)
        self.out.append(rx.MatchCast(var, self.nhwc[b.value], sinfo))
        self.nhwc[b.var] = var
        return DROP

    def _restore_uses(self, value: rx.Expr) -> rx.Expr | None:
        """Operands whose NCHW binding was dropped get a transpose back (made once)."""
        stale = [a for a in _operands(value) if a in self.nhwc and a not in self.kept]
        if not stale:
            return None
        return substitute_vars(value, {a: self.original(a) for a in stale})

    def original(self, a: rx.Var) -> rx.Expr:
        """A converted value in its original layout: a transpose back, made once."""
        if a in self.kept:
            return a
        if a not in self.back:
            self.back[a] = self.emit(self._to_nchw(a))
        return self.back[a]

    def perm_of(self, v: rx.Var) -> tuple[int, ...]:
        return self.perm.get(v, tuple(TO_NHWC))

    def as_nhwc(self, e: rx.Expr) -> rx.Expr:
        if e in self.nhwc and e not in self.perm:
            return self.nhwc[e]
        source = self.original(e) if e in self.perm else e
        return self.emit(op("permute_dims")(source, TO_NHWC))

    def _convert(self, value: rx.Expr) -> Any:
        if isinstance(value, rx.TupleGetItem):
            return self._tuple_item(value)
        if not isinstance(value, rx.Call) or not isinstance(value.op, rx.Op):
            return None
        name = value.op.name
        if name == "relax.nn.conv2d" and name in self.desired:
            return self._conv2d(value)
        args = value.args
        if name in REORDER_RULES and args and args[0] in self.nhwc and args[0] not in \
                self.fields:
            return REORDER_RULES[name](self, value)
        if any(a in self.perm for a in _operands(value) + _tuple_fields(args)):
            return None  # other operators read such a value in its original layout
        if name in LAYOUT_OPS and name in self.desired and args and _rank(args[0]) == 4:
            return RULES[name](self, value)  # asked for: runs in NHWC whatever its input
        if name in _AXIS_RULES and args and args[0] in self.nhwc and _rank(args[0]) == 4:
            return _AXIS_RULES[name](self, value)
        if name in RULES and args and args[0] in self.nhwc and _rank(args[0]) == 4:
            return RULES[name](self, value)
        if name == "relax.concat" and isinstance(args[0], rx.Tuple):
            return _concat(self, value)
        if not any(a in self.nhwc for a in args) or any(
                isinstance(a, rx.Expr) and _rank(a) not in (0, 4) for a in args):
            return None
        pattern = op_attr(name, "op_pattern")
        if pattern == ELEMWISE and len(args) == 1 and not value.attrs:
            return op_attr(name, "make")(self.nhwc[args[0]])
        if pattern == BROADCAST and len(args) == 2 and not value.attrs:
            new = [a if _rank(a) == 0 else self.as_nhwc(a) for a in args]
            return op_attr(name, "make")(*new)
        return None

    def _tuple_item(self, item: rx.TupleGetItem) -> Any:
        """A field of a converted tuple: NHWC where the tuple holds it so."""
        tup = item.tuple_value
        if tup not in self.fields:
            return None
        new = rx.TupleGetItem(self.nhwc[tup], item.index,
                              self.nhwc[tup].struct_info.fields[item.index])
        return new if self.fields[tup][item.index] else _Plain(new)

    def _conv2d(self, call: rx.Call) -> rx.Expr | None:
        if (call.attr("data_layout") or "NCHW") != "NCHW" or \
                (call.attr("kernel_layout") or "OIHW") != "OIHW":
            return None
        data_layout, kernel_layout = (list(self.desired["relax.nn.conv2d"]) + ["OHWI"])[:2]
        if data_layout != "NHWC":
            return self._packed_layout(call, data_layout)
        kernel_layout = "OHWI" if kernel_layout == "default" else kernel_layout
        if kernel_layout not in KERNEL_PERM:
            raise ValueError(f"ConvertLayout: kernel layout {kernel_layout!r} is not one of "
                             f"{sorted(KERNEL_PERM)}")
        x, w = call.args
        data = self.as_nhwc(x)
        weight = w if kernel_layout == "OIHW" else self.emit(
            op("permute_dims")(w, KERNEL_PERM[kernel_layout]))
        attrs = dict(call.attrs)
        return op_attr("relax.nn.conv2d", "make")(
            data, weight, attrs["strides"], attrs["padding"], attrs["dilation"],
            attrs["groups"], "NHWC", kernel_layout, None, attrs.get("out_dtype"))


    def _packed_layout(self, call: rx.Call, layout: str) -> None:
        """A packed layout (`NCHW4c`): TVM leaves a conv2d whose channels the block size does
        not divide as it is; tvmlite converts to NHWC only."""
        block = "".join(ch for ch in layout if ch.isdigit())
        channels = [_dim(a, 1) for a in call.args]
        if block and any(c is not None and c % int(block) for c in channels):
            return None
        raise ValueError(f"ConvertLayout: conv2d converts NCHW to NHWC only, not to {layout!r}")


@dataclass(frozen=True)
class _Plain:
    """A converted call whose result has the original layout (no transpose back needed)."""

    expr: rx.Expr


# -- operators with axis attributes: the axes renumbered for NHWC ------------------------------

POS = [TO_NHWC.index(a) for a in range(4)]  # where original axis a sits in NHWC: [0, 3, 1, 2]


def _ints(v: Any) -> list[int]:
    items = v if isinstance(v, (list, tuple)) else [v]
    return [int(getattr(i, "value", i)) % 4 for i in items]


def _remake(call: rx.Call, args: tuple[rx.Expr, ...], **changed: Any) -> rx.Call:
    attrs = Attrs(tuple((k, changed.get(k, v)) for k, v in call.attrs))
    return with_inferred_struct_info(replace(call, args=args, attrs=attrs, struct_info=None))


def _reduce(cv: _Convert, call: rx.Call) -> Any:
    axis = call.attr("axis")
    if axis is None:
        return None
    axes = sorted(POS[a] for a in _ints(axis))
    new = _remake(call, (cv.nhwc[call.args[0]],) + call.args[1:], axis=tuple(axes))
    if call.attr("keepdims"):
        return new
    left = [TO_NHWC[i] for i in range(4) if i not in axes]  # original axes, in NHWC order
    return _Plain(new) if left == sorted(left) else None


def _one_axis(cv: _Convert, call: rx.Call) -> Any:
    axis = call.attr("axis")
    if axis is None:
        return None
    return _remake(call, (cv.nhwc[call.args[0]],) + call.args[1:], axis=POS[_ints(axis)[0]])


def _layer_norm(cv: _Convert, call: rx.Call) -> Any:
    axes = [POS[a] for a in _ints(call.attr("axes"))]
    if axes != sorted(axes):  # gamma and beta would need transposing too
        return None
    return _remake(call, (cv.nhwc[call.args[0]],) + call.args[1:], axes=tuple(axes))


def _strided_slice(cv: _Convert, call: rx.Call) -> Any:
    axes = tuple(POS[a] for a in _ints(call.attr("axes")))
    return _remake(call, (cv.nhwc[call.args[0]],) + call.args[1:], axes=axes)


def _permute(cv: _Convert, call: rx.Call) -> Any:
    order = _ints(call.attr("axes")) if call.attr("axes") is not None else [3, 2, 1, 0]
    return _Plain(_remake(call, (cv.nhwc[call.args[0]],), axes=tuple(POS[a] for a in order)))


def _tile(cv: _Convert, call: rx.Call) -> Any:
    reps = [int(getattr(r, "value", r)) for r in call.attr("repeats")]
    if len(reps) > 4:
        return None
    reps = [1] * (4 - len(reps)) + reps  # numpy's rule: repeats align to the last axes
    return _remake(call, (cv.nhwc[call.args[0]],), repeats=tuple(reps[a] for a in TO_NHWC))


def _concat(cv: _Convert, call: rx.Call) -> Any:
    fields = call.args[0].fields
    if not any(f in cv.nhwc for f in fields) or any(_rank(f) != 4 for f in fields):
        return None
    axis = POS[_ints(call.attr("axis"))[0]]
    return _remake(call, (rx.Tuple(tuple(cv.as_nhwc(f) for f in fields)),), axis=axis)


_AXIS_RULES: dict[str, Callable[[_Convert, rx.Call], Any]] = {
    **{f"relax.{n}": _reduce for n in ("sum", "mean", "max", "min", "prod", "std",
                                       "variance")},
    **{f"relax.{n}": _one_axis for n in ("nn.softmax", "nn.log_softmax", "flip", "repeat")},
    "relax.tile": _tile,
    "relax.nn.layer_norm": _layer_norm, "relax.strided_slice": _strided_slice,
    "relax.permute_dims": _permute,
}


def _dim(e: rx.Expr, axis: int) -> int | None:
    """A constant dim, also of a shape whose other dims are symbolic."""
    s = e.struct_info
    if isinstance(s, si.TensorStructInfo) and isinstance(s.shape, tuple) and \
            len(s.shape) > axis:
        d = s.shape[axis]
        return d if isinstance(d, int) else getattr(d, "value", None)
    return None


def ConvertLayout(desired_layouts: dict[str, list[str]], layout_cb: Any = None  # noqa: N802
                  ) -> Pass:
    """Convert conv2d to the desired layouts (NHWC data; OHWI/HWIO/OIHW kernel); pooling and
    resize2d may be asked for in NHWC too."""
    if layout_cb is not None:
        raise NotImplementedError("ConvertLayout(layout_cb=...) is not supported")
    unknown = sorted(set(desired_layouts) - {"relax.nn.conv2d", *LAYOUT_OPS})
    if unknown:
        raise ValueError(f"ConvertLayout converts relax.nn.conv2d, {', '.join(LAYOUT_OPS)} "
                         f"only, not {unknown}")
    for name in LAYOUT_OPS:
        if name in desired_layouts and list(desired_layouts[name])[:1] != ["NHWC"]:
            raise ValueError(f"ConvertLayout runs {name} in NHWC only, not "
                             f"{desired_layouts[name]}")

    def run(mod: IRModule, ctx: PassContext) -> IRModule:
        return mod.map_functions(lambda gv, f: _Convert(dict(desired_layouts)).run(f)
                                 if isinstance(f, rx.Function) else f)
    return Pass(run, "ConvertLayout")


def _tuple_fields(args: tuple[Any, ...]) -> list[Any]:
    return [f for a in args if isinstance(a, rx.Tuple) for f in a.fields
            if isinstance(f, rx.Var)]


def _is_op(value: Any, name: str) -> bool:
    return isinstance(value, rx.Call) and isinstance(value.op, rx.Op) and value.op.name == name


def _operands(value: rx.Expr) -> list[Any]:
    if isinstance(value, rx.Call):
        return [a for a in value.args if isinstance(a, rx.Var)]
    if isinstance(value, rx.Tuple):
        return [f for f in value.fields if isinstance(f, rx.Var)]
    if isinstance(value, rx.TupleGetItem):
        return [value.tuple_value] if isinstance(value.tuple_value, rx.Var) else []
    return [value] if isinstance(value, rx.Var) else []
