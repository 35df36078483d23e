"""Prints a relax `Function` as TVMScript that our parser reads back to an equal function.

TVM 0.27 style: `R.Tensor((1, 784), dtype="float32")`, a `-> ...` return annotation,
`cls = Module` then `cls.f` for module functions, `R.call_tir(cls.f, (x,), out_ty=...)`,
symbolic dims as `"n"` in annotations with `n = T.int64()` at the top of the body. A binding
carries an annotation only when its var's struct info differs from the value's (the parser
takes the value's otherwise).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ...ir import expr as rx
from ...ir import op as ops
from ...ir import struct_info as si
from ...tir import expr as tx
from ...tir.index_map import IndexMap
from .common import ExprPrinter, Namer, decorator_options, q, value_text
from .source_marks import WATCHED, mark, mark_lines

IND = "    "
INLINE_CONST_LIMIT = 256  # NOTE: bigger constants go to `metadata[...]`, as TVM prints them


class RelaxPrinter:
    def __init__(self, module_name: str | None, metadata: list[Any] | None = None) -> None:
        self.module_name = module_name
        self.namer = Namer()
        self.expr = ExprPrinter(self.name_of)
        self.lines: list[str] = []
        self.depth = 0
        self.metadata = metadata if metadata is not None else []
        self.uses_cls = False
        self.in_signature = False  # symbolic dims print as "n" there, as n in bodies
        # script(show_all_ty=True): every binding annotated, as TVM 0.27's default prints;
        # tvmlite's default hides the annotations the parser would infer anyway
        self.show_all_ty = False
        # script(module_alias=...): the name a function gives its module (`cls = Module`);
        # "" names the module itself (`Module.f`), as TVM's option
        self.module_alias = "cls"

    def name_of(self, obj: Any) -> str:
        hint = getattr(obj, "name_hint", None) or getattr(obj, "name", "v")
        return self.namer.get(obj, hint)

    def emit(self, text: str) -> None:
        self.lines.append(IND * self.depth + text)

    # -- the function -----------------------------------------------------------------------

    def function(self, f: rx.Function, name: str, nested: bool = False) -> list[str]:
        attrs, opts = decorator_options(f.attrs, name)
        if nested:  # a local function has no global symbol, and is not private for it
            opts = [o for o in opts if o != "private=True"]
        if not f.is_pure:
            opts.append("pure=False")
        sym = _sym_vars(f)
        for v in sym:
            self.namer.define(v, v.name)
        # NOTE: TVM takes symbolic dims as strings ("n") only in the signature; the body
        # names them after its `n = T.int64()` line.
        self.in_signature = True
        params = [f"{self.namer.define(p, p.name_hint)}: {self.sinfo(p.struct_info)}"
                  for p in f.params]
        ret = f" -> {self.sinfo(f.ret_struct_info)}" if f.ret_struct_info is not None else ""
        self.in_signature = False
        self.emit("@R.function" + (f"({', '.join(opts)})" if opts else ""))
        self.emit(f"def {name}({', '.join(params)}){ret}:")
        self.depth += 1
        head = len(self.lines)
        if attrs:
            self.emit(f"R.func_attr({value_text(attrs, self.value_attr)})")
        for v in sym:
            self.emit(f"{self.name_of(v)} = T.{v.dtype}()")
        cls_at = len(self.lines)
        self.seq(f.body, ret=True)
        if self.uses_cls and self.module_name and self.module_alias:
            self.lines.insert(cls_at, IND * self.depth +
                              f"{self.module_alias} = {self.module_name}")
        if len(self.lines) == head:
            self.emit("pass")
        self.depth -= 1
        return self.lines

    def seq(self, body: rx.SeqExpr, ret: bool) -> str:
        for block in body.blocks:
            self.block(block)
        result = self.bare_value(body.body)
        if ret:
            self.emit(f"return {result}")
        return result

    def block(self, block: rx.BindingBlock) -> None:
        start = len(self.lines)
        self._block(block)
        if WATCHED:
            mark_lines(block, self.lines, start)

    def _block(self, block: rx.BindingBlock) -> None:
        if not isinstance(block, rx.DataflowBlock):
            for b in block.bindings:
                self.binding(b)
            return
        self.emit("with R.dataflow():")
        self.depth += 1
        for b in block.bindings:
            self.binding(b)
        outs = [b.var for b in block.bindings if not isinstance(b.var, rx.DataflowVar)]
        self.emit(f"R.output({', '.join(self.name_of(v) for v in outs)})")
        self.depth -= 1

    def binding(self, b: rx.Binding) -> None:
        start = len(self.lines)
        self._binding(b)
        if WATCHED:
            mark_lines(b, self.lines, start)

    def _binding(self, b: rx.Binding) -> None:
        if isinstance(b, rx.MatchCast):
            value = f"R.match_cast({self.value(b.value)}, {self.sinfo(b.struct_info)})"
            # TVM 0.27 annotates the variable unless told to hide what the parser infers
            sinfo = b.var.struct_info
            ann = f": {self.sinfo(sinfo)}" if sinfo is not None and (
                self.show_all_ty or sinfo != b.struct_info) else ""
            self.emit(f"{self.namer.define(b.var, b.var.name_hint)}{ann} = {value}")
            return
        if isinstance(b.value, rx.If):
            self._if(b.var, b.value)
            return
        if isinstance(b.value, rx.Function):  # a local function: a nested def (TVM's form)
            name = self.namer.define(b.var, b.var.name_hint)
            self.emit("# from tvm.script import relax as R")
            self.emit("")
            self.function(b.value, name, nested=True)
            self.lines.append("")
            return
        value = self.bare_value(b.value)
        if _is_void(b.var.struct_info):  # TVM prints the call alone; uses print R.tuple()
            self.emit(value)
            return
        name = self.namer.define(b.var, b.var.name_hint)
        ann = ""
        # NOTE: a scalar binding is always annotated, as TVM 0.27: `n: T.int64 = 1`
        if b.var.struct_info is not None and (self.show_all_ty or
                                              b.var.struct_info != b.value.struct_info or
                                              isinstance(b.var.struct_info, si.PrimStructInfo)) \
                and not _states_its_struct_info(b):
            ann = f": {self.sinfo(b.var.struct_info)}"
        self.emit(f"{name}{ann} = {value}")

    def _local_function(self, var: rx.Var, f: rx.Function) -> None:
        """A function bound inside a function: a nested `@R.function def name(...)`."""
        outer = self.uses_cls, self.module_name
        self.uses_cls, self.module_name = False, None  # `cls = ...` goes in the outer body
        self.function(f, self.namer.define(var, var.name_hint))
        self.uses_cls, self.module_name = outer[0] or self.uses_cls, outer[1]

    def _if(self, var: rx.Var, e: rx.If) -> None:
        self.emit(f"if {self.value(e.cond)}:")
        for branch in (e.true_branch, e.false_branch):
            self.depth += 1
            result = self.seq(branch, ret=False)
            self.emit(f"{self.namer.get(var, var.name_hint)} = {result}")
            self.depth -= 1
            if branch is e.true_branch:
                self.emit("else:")

    # -- values -----------------------------------------------------------------------------

    def value(self, e: Any) -> str:
        fn = getattr(self, "_" + type(e).__name__, None)
        if fn is None:
            raise TypeError(f"cannot print {type(e).__name__} in a relax function")
        return mark(e, fn(e)) if WATCHED else fn(e)

    def bare_value(self, e: Any) -> str:
        """A bound or returned value; a scalar prints as its TIR expression (`return 1`,
        `x: T.float32 = T.float32(1.0)`), as TVM 0.27 prints it."""
        if isinstance(e, rx.PrimValue):
            return self.expr(e.value, "int64")
        return self.value(e)

    def _Var(self, e: rx.Var) -> str:
        return "R.tuple()" if _is_void(e.struct_info) and not self.namer.has(e) else \
            self.name_of(e)

    _DataflowVar = _Var

    def _GlobalVarRef(self, e: rx.GlobalVarRef) -> str:
        if self.module_name is None:
            return e.gvar.name_hint
        self.uses_cls = True
        return f"{self.module_alias or self.module_name}.{e.gvar.name_hint}"

    def _ExternFunc(self, e: rx.ExternFunc) -> str:
        return extern_func_text(e, self.sinfo)

    def _Op(self, e: rx.Op) -> str:
        return f'R.Op("{e.name}")'

    def _Tuple(self, e: rx.Tuple) -> str:
        if not e.fields:
            return "R.tuple()"
        inner = ", ".join(self.field(f) for f in e.fields)
        return f"({inner},)" if len(e.fields) == 1 else f"({inner})"

    def field(self, f: rx.Expr) -> str:
        """A tuple field; a symbolic int64 scalar prints bare (`(a, n)`), as TVM 0.27 prints
        it, and parses back to the same PrimValue."""
        if isinstance(f, rx.PrimValue) and isinstance(f.value, tx.Var) and \
                f.value.dtype == "int64":
            return self.expr(f.value, "int64")
        if isinstance(f, rx.PrimValue):  # NOTE: `(1, 2)` would parse back as a shape
            return f"R.prim_value({self.expr(f.value, 'int64')})"
        return self.value(f)

    def _TupleGetItem(self, e: rx.TupleGetItem) -> str:
        return f"{self.value(e.tuple_value)}[{e.index}]"

    def _ShapeExpr(self, e: rx.ShapeExpr) -> str:
        return f"R.shape([{', '.join(self.expr(v, 'int64') for v in e.values)}])"

    def _PrimValue(self, e: rx.PrimValue) -> str:
        return self.expr(e.value, "int64")  # TVM 0.27: a scalar prints as its TIR expression

    def _StringImm(self, e: rx.StringImm) -> str:
        return f"R.str({q(e.value)})"

    def _DataTypeImm(self, e: rx.DataTypeImm) -> str:
        return f"R.dtype({q(e.value)})"

    def _Constant(self, e: rx.Constant) -> str:
        arr = to_numpy(e.data)
        shape = getattr(e.struct_info, "static_shape", None)
        if shape is not None and arr.size == int(np.prod(shape)):
            arr = arr.reshape(shape)  # NOTE: NDArray keeps 0-d data as shape (1,)
        if arr.size > INLINE_CONST_LIMIT:
            self.metadata.append(e)
            return f'metadata["relax.expr.Constant"][{len(self.metadata) - 1}]'
        return f'R.const({value_text(arr.tolist(), repr)}, "{arr.dtype}")'

    def _Call(self, e: rx.Call) -> str:
        if isinstance(e.op, rx.Op):
            if e.op.name in (ops.CALL_TIR.name, ops.CALL_DPS_PACKED.name,
                             ops.CALL_TIR_INPLACE.name, "relax.call_tir_with_grad"):
                return self._call_dps(e)
            if e.op.name == ops.CALL_PURE_PACKED.name:
                return self._call_packed("R.call_pure_packed", e.args[0], e.args[1:], e)
            if e.op.name == "relax.hint_on_device":
                return self._hint_on_device(e)
            if e.op.name in ("relax.print", "relax.assert_op"):
                return self._print_or_assert(e)
            args = [q(a.global_symbol) if isinstance(a, rx.ExternFunc) and i == 0 and
                    e.op.name in _NAMED_CALLEE else self.value(a) for i, a in enumerate(e.args)]
            args += [f"{k}={self.value_attr(v)}" for k, v in e.attrs]
            if e.sinfo_args:  # TVM 0.27 prints them as ty_args, always as a tuple
                args.append(f"ty_args=({''.join(self.sinfo(x) + ', ' for x in e.sinfo_args)})"
                            .replace(", )", ",)"))
            return f"R.{e.op.name.removeprefix('relax.')}({', '.join(args)})"
        if isinstance(e.op, rx.ExternFunc):
            return self._call_packed("R.call_packed", e.op, e.args, e)
        args = ", ".join(self.value(a) for a in e.args)
        return f"{self.value(e.op)}({args})"

    def _print_or_assert(self, e: rx.Call) -> str:
        """`R.print(*values, format=...)` / `R.assert_op(cond, *values, format=...)`: the
        operators take the format first (after the condition); the script names it."""
        head = 1 if e.op.name == "relax.assert_op" else 0
        fmt, values = e.args[head], (*e.args[:head], *e.args[head + 1:])
        args = [self.value(a) for a in values] + [f"format={self.value(fmt)}"]
        return f"R.{e.op.name.removeprefix('relax.')}({', '.join(args)})"

    def _hint_on_device(self, e: rx.Call) -> str:
        dev = f"R.device(device_type={e.attr('device_type')}, index={e.attr('index')})"
        return f"R.hint_on_device({self.value(e.args[0])}, {dev}, {q(e.attr('memory_scope'))})"

    def _call_dps(self, e: rx.Call) -> str:
        fn = {ops.CALL_TIR.name: "R.call_tir", ops.CALL_TIR_INPLACE.name: "R.call_tir_inplace",
              "relax.call_tir_with_grad": "R.call_tir_with_grad"}.get(e.op.name,
                                                                      "R.call_dps_packed")
        callee = e.args[0]
        target = q(callee.global_symbol) if isinstance(callee, rx.ExternFunc) else \
            self.value(callee)
        out = e.sinfo_args[0]
        outs = out.fields if isinstance(out, si.TupleStructInfo) and len(out.fields) > 1 and \
            all(isinstance(x, si.TensorStructInfo) for x in out.fields) else None
        out_text = f"[{', '.join(self.sinfo(o) for o in outs)}]" if outs else self.sinfo(out)
        text = f"{fn}({target}, {self.value(e.args[1])}, out_ty={out_text}"
        if e.op.name == ops.CALL_TIR_INPLACE.name:
            text += f", inplace_indices=[{', '.join(str(i) for i in e.attr('inplace_indices'))}]"
        if len(e.args) > 2:
            text += f", tir_vars={self.value(e.args[2])}"
        if e.op.name == "relax.call_tir_with_grad":
            text += f", te_grad_name={q(e.attr('te_grad_name'))}"
            if e.attr("te_grad_kwargs"):
                kwargs = ", ".join(f"{q(k)}: {self.value_attr(v)}"
                                   for k, v in e.attr("te_grad_kwargs"))
                text += f", te_grad_kwargs={{{kwargs}}}"
        return text + ")"

    def _call_packed(self, fn: str, callee: Any, args: Any, e: rx.Call) -> str:
        parts = [q(callee.global_symbol)] + [self.value(a) for a in args]
        if e.sinfo_args:
            s = [self.sinfo(x) for x in e.sinfo_args]
            parts.append(f"ty_args=({s[0]},)" if len(s) == 1 else f"ty_args=({', '.join(s)})")
        return f"{fn}({', '.join(parts)})"

    def value_attr(self, v: Any) -> str:
        if isinstance(v, si.StructInfo):
            return self.sinfo(v)
        if isinstance(v, rx.Expr):
            return self.value(v)
        if isinstance(v, IndexMap):  # R.layout_transform's map
            return f"T.index_map({v.trace_text()})"
        if isinstance(v, tuple):  # TVM prints an operator's array attributes as lists
            return "[" + ", ".join(self.value_attr(x) for x in v) + "]"
        return value_text(v, self.expr)

    # -- struct info ------------------------------------------------------------------------

    def dim(self, d: tx.PrimExpr) -> str:
        if isinstance(d, tx.Var):
            name = self.name_of(d)
            return f'"{name}"' if self.in_signature else name
        if self.in_signature and _has_var(d):
            text = _dim_source(d, self.name_of)
            if text is not None:  # "n * 2": a signature names its dims in strings, as TVM
                return f'"{text}"'
        return self.expr(d, "int64")

    def dims(self, values: tuple[tx.PrimExpr, ...], brackets: str = "()") -> str:
        inner = ", ".join(self.dim(d) for d in values)
        if brackets == "()" and len(values) == 1:
            inner += ","
        return brackets[0] + inner + brackets[1]

    def sinfo(self, s: Any) -> str:
        if isinstance(s, si.TensorStructInfo):
            parts = []
            if s.shape is not None:
                parts.append(self.dims(s.shape))
            if s.dtype:
                parts.append(f'dtype="{s.dtype}"')
            if s.shape is None and s.ndim >= 0:  # TVM 0.27: R.Tensor(dtype="f32", ndim=2)
                parts.append(f"ndim={s.ndim}")
            if s.vdevice:
                parts.append(f'vdevice="{s.vdevice}"')
            return f"R.Tensor({', '.join(parts)})" if parts else "R.Tensor"
        if isinstance(s, si.TupleStructInfo):  # TVM 0.27: the empty tuple is `R.Tuple`
            return f"R.Tuple({', '.join(self.sinfo(x) for x in s.fields)})" if s.fields \
                else "R.Tuple"
        if isinstance(s, si.ShapeStructInfo):
            if s.values is not None:
                return f"R.Shape({self.dims(s.values, '[]')})"
            return f"R.Shape(ndim={s.ndim})"
        if isinstance(s, si.PrimStructInfo):
            if s.value is not None:
                if s.value.dtype == s.dtype and (s.dtype == "int64" or
                                                 not isinstance(s.value, tx.Var)):
                    return f"R.Prim(value={self.dim(s.value)})"
            return f"T.{s.dtype}"  # TVM 0.27's PrimType'
        if isinstance(s, si.FuncStructInfo):
            items = [self.sinfo(x) for x in s.params or ()]
            ps = "None" if s.params is None else \
                f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"
            if s.derive_func:
                derive = f'derive_func="{s.derive_func}", purity={bool(s.purity)}'
                if s.params is None and isinstance(s.ret, si.ObjectStructInfo):
                    return f"R.Callable({derive})"
                return f"R.Callable({ps}, {self.sinfo(s.ret)}, {derive})"
            if s.params is None and type(s.ret) is si.ObjectStructInfo:  # an opaque function
                return "R.Callable(purity=True)" if s.purity else "R.Callable"
            return f"R.Callable({ps}, {self.sinfo(s.ret)}, {bool(s.purity)})"
        if isinstance(s, si.PackedFuncType):
            return "R.PackedFunc"
        return "R.Any"  # TVM 0.27's name for R.Object


_DIM_SYMBOLS = {tx.BinaryOp.ADD: "+", tx.BinaryOp.SUB: "-", tx.BinaryOp.MUL: "*",
                tx.BinaryOp.FLOORDIV: "//", tx.BinaryOp.FLOORMOD: "%"}


# operators whose first argument names a registered function, printed as a string
_NAMED_CALLEE = ("relax.call_inplace_packed", "relax.call_builtin_with_ctx")


def _has_var(d: tx.PrimExpr) -> bool:
    return isinstance(d, tx.Var) or (isinstance(d, tx.BinOp)
                                     and (_has_var(d.a) or _has_var(d.b)))


def _dim_source(d: tx.PrimExpr, name_of: Callable[[tx.Var], str]) -> str | None:
    """`n * 2 + 1` for a dim made of symbolic vars, ints and + - * // % (else None)."""
    if isinstance(d, tx.Var):
        return name_of(d)
    if isinstance(d, tx.IntImm):
        return str(d.value)
    if isinstance(d, tx.BinOp) and d.op in _DIM_SYMBOLS:
        a, b = _dim_source(d.a, name_of), _dim_source(d.b, name_of)
        if a is None or b is None:
            return None
        a = f"({a})" if isinstance(d.a, tx.BinOp) else a
        b = f"({b})" if isinstance(d.b, tx.BinOp) else b
        return f"{a} {_DIM_SYMBOLS[d.op]} {b}"
    return None


def to_numpy(data: Any) -> np.ndarray:
    return data.numpy() if hasattr(data, "numpy") else np.asarray(data)


def _sym_vars(f: rx.Function) -> list[tx.Var]:
    """The TIR variables a relax function uses (symbolic dims), in order of appearance."""
    from .walk import children

    found: list[tx.Var] = []

    def visit(x: Any) -> None:
        if isinstance(x, tx.Var):
            if x not in found:
                found.append(x)
        elif isinstance(x, (rx.Function,)) and x is not f:
            return
        elif isinstance(x, rx.Var):
            visit(x.struct_info)
        elif hasattr(x, "__dataclass_fields__") and not isinstance(x, type):
            for c in children(x):
                visit(c)

    for p in f.params:
        visit(p.struct_info)
    visit(f.body)
    visit(f.ret_struct_info)
    return found


def print_relax_function(f: rx.Function, name: str | None = None,
                         module_name: str | None = None,
                         metadata: list[Any] | None = None, show_all_ty: bool = False,
                         module_alias: str = "cls") -> str:
    fname = name or dict(f.attrs).get("global_symbol") or "main"
    printer = RelaxPrinter(module_name, metadata)
    printer.show_all_ty = show_all_ty
    printer.module_alias = module_alias
    return "\n".join(printer.function(f, fname))


def extern_func_text(e: rx.ExternFunc, sinfo: Any) -> str:
    """`R.ExternFunc("name")`, with its struct info when it is more than an opaque function."""
    s = e.struct_info
    if s is None or isinstance(s, si.ObjectStructInfo) or (
            isinstance(s, si.FuncStructInfo) and s.params is None
            and isinstance(s.ret, si.ObjectStructInfo) and not s.purity):
        return f"R.ExternFunc({q(e.global_symbol)})"
    return f"R.ExternFunc({q(e.global_symbol)}, {sinfo(s)})"


_STATED_OUTPUT = ("relax.call_tir", "relax.call_dps_packed", "relax.call_tir_inplace",
                  "relax.call_tir_with_grad")


def _states_its_struct_info(b: rx.VarBinding) -> bool:
    """A call_tir / call_dps_packed binding whose variable has the call's `out_ty`: TVM 0.27
    prints no annotation there (the call states it)."""
    v = b.value
    return (isinstance(v, rx.Call) and isinstance(v.op, rx.Op) and v.op.name in _STATED_OUTPUT
            and len(v.sinfo_args) == 1 and b.var.struct_info == v.sinfo_args[0])


def _is_void(s: Any) -> bool:
    return isinstance(s, si.TupleStructInfo) and not s.fields
