"""`relax.BlockBuilder`: build graph functions from Python, as the MLC course does.

    bb = relax.BlockBuilder()
    with bb.function("main", [x, w]):
        with bb.dataflow():
            lv = bb.emit_te(topi.nn.dense, x, w)
            gv = bb.emit_output(bb.emit(relax.op.nn.relu(lv)))
        bb.emit_func_output(gv)
    mod = bb.get()
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import replace
from typing import Any, Callable, Iterator

from ..ir import expr as rx
from ..ir import struct_info as si
from ..ir.module import GlobalVar, IRModule, fresh_name
from ..ir.ops.base import BINDING_LOOKUPS, as_expr
from ..vm.errors import TVMError
from .legalize.emit import TEEmitter


class BlockBuilderError(TVMError, ValueError):
    """A BlockBuilder used out of order: TVM raises its RuntimeError-derived TVMError."""


class BlockBuilder:
    _current: list["BlockBuilder"] = []  # the builders inside `with bb.function(...)`

    def __init__(self, mod: IRModule | None = None) -> None:
        self._funcs: dict[GlobalVar, Any] = dict(mod.functions) if mod is not None else {}
        # NOTE: as TVM's builder, the module keeps its attributes and global infos; `get()`
        # results share the infos, so `bb.get().update_global_info(...)` sticks
        self._attrs: dict[str, Any] = dict(mod.attrs) if mod is not None else {}
        self._global_infos: dict[str, Any] = dict(mod.global_infos) if mod is not None else {}
        self._emitter = TEEmitter(self._funcs, dedup=True)
        self._func: dict[str, Any] | None = None
        self._bindings: list[rx.Binding] = []
        self._blocks: list[rx.BindingBlock] = []
        self._in_dataflow = False
        self._counts: dict[str, int] = {}
        self._open_blocks: list[tuple[bool, list[rx.Binding]]] = []  # _begin_*_block nesting
        self._flat_memo: dict[int, tuple[rx.Expr, rx.Var]] | None = None

    @contextmanager
    def function(self, name: str, params: Any = None, attrs: dict[str, Any] | None = None,
                 pure: bool = True, private: bool = False) -> Iterator[None]:
        # NOTE: a function begun inside another pauses it (a subroutine made on demand, as
        # TVM's builder allows); the outer one resumes when the inner `with` ends
        outer = self._suspend_function() if self._func is not None else None
        ps = None if params is None else (list(params) if isinstance(params, (list, tuple))
                                          else [params])
        fattrs = dict(attrs or {})
        if not private:  # as in TVM, a function the builder names is public
            fattrs.setdefault("global_symbol", name)
        self._func = {"name": name, "params": ps, "attrs": fattrs, "done": False}
        self._blocks, self._bindings = [], []
        BlockBuilder._current.append(self)
        try:
            yield
        finally:
            done = self._func["done"]
            self._func = None
            BlockBuilder._current.remove(self)
            if outer is not None:
                self._resume_function(outer)
        if not done:
            raise BlockBuilderError(f"function {name!r} needs bb.emit_func_output(...) before "
                                    "its `with` ends")

    def _suspend_function(self) -> tuple[Any, ...]:
        """Set the open function aside (its blocks and bindings), so another can be built,
        e.g. an nn subroutine met while tracing; `_resume_function` brings it back."""
        state = (self._func, self._blocks, self._bindings, self._in_dataflow, self._open_blocks)
        if self._func is not None:
            BlockBuilder._current.remove(self)
        self._func, self._blocks, self._bindings = None, [], []
        self._in_dataflow, self._open_blocks = False, []
        return state

    def _resume_function(self, state: tuple[Any, ...]) -> None:
        (self._func, self._blocks, self._bindings, self._in_dataflow,
         self._open_blocks) = state
        if self._func is not None:
            BlockBuilder._current.append(self)

    # -- TVM's explicit block scopes (bb._begin_dataflow_block() ... bb._end_block()) -----

    def _begin_dataflow_block(self) -> None:
        self._open_blocks.append((self._in_dataflow, self._bindings))
        self._bindings, self._in_dataflow = [], True

    def _begin_binding_block(self) -> None:
        self._open_blocks.append((self._in_dataflow, self._bindings))
        self._bindings, self._in_dataflow = [], False

    def _end_block(self) -> rx.BindingBlock:
        if not self._open_blocks:
            raise BlockBuilderError("_end_block without a _begin_dataflow_block or "
                                    "_begin_binding_block")
        kind = rx.DataflowBlock if self._in_dataflow else rx.BindingBlock
        block = kind(tuple(self._bindings))
        self._in_dataflow, self._bindings = self._open_blocks.pop()
        if self._func is not None and block.bindings:
            self._blocks.append(block)
        return block

    @contextmanager
    def dataflow(self) -> Iterator[None]:
        self._flush()
        self._in_dataflow = True
        try:
            yield
        finally:
            self._flush(dataflow=True)
            self._in_dataflow = False

    def _flush(self, dataflow: bool = False) -> None:
        if self._bindings:
            kind = rx.DataflowBlock if dataflow else rx.BindingBlock
            self._blocks.append(kind(tuple(self._bindings)))
        self._bindings = []

    def _new_var(self, name: str | None, sinfo: si.StructInfo | None, dataflow: bool) -> rx.Var:
        if name is None:  # TVM's names: lv, lv1, lv2, ... and gv, gv1, ...
            base = "lv" if dataflow else "gv"
            n = self._counts.get(base, 0)
            self._counts[base] = n + 1
            name = base if n == 0 else f"{base}{n}"
        return (rx.DataflowVar if dataflow else rx.Var)(name, sinfo or si.ObjectStructInfo())

    def _call_of_global(self, call: rx.Call) -> rx.Call:
        """`relax.Call(gv, args)` of a function this builder holds returns what it returns
        (TVM's GlobalVar carries its function's struct info)."""
        func = self._funcs.get(call.op.gvar)  # type: ignore[attr-defined]
        if not isinstance(func, rx.Function):
            return call
        ret = si.call_ret_sinfo(func.struct_info, call.args)
        return replace(call, op=replace(call.op, struct_info=func.struct_info), struct_info=ret)

    def _flatten_args(self, e: rx.Expr) -> rx.Expr:
        """A call whose arguments are calls becomes bindings of those first (A-normal form,
        as TVM's builder normalizes `bb.emit(matmul(x, permute_dims(w)))`)."""
        if not isinstance(e, rx.Call):
            return self.normalize(e)

        # NOTE: one call object used twice (`y = f(x); y + y`) is bound once, as TVM's
        # normalizer does; the memo holds the expression so its id stays unique
        outer = getattr(self, "_flat_memo", None) is None
        memo = self._flat_memo = {} if outer else self._flat_memo

        def leaf(a: rx.Expr) -> rx.Expr:
            if isinstance(a, rx.Call):
                if id(a) not in memo:
                    memo[id(a)] = (a, self.emit(a))
                return memo[id(a)][1]
            if isinstance(a, rx.Tuple) and any(isinstance(f, rx.Call) for f in a.fields):
                return replace(a, fields=tuple(leaf(f) for f in a.fields))
            return a

        try:
            args = tuple(leaf(a) for a in e.args)
        finally:
            if outer:
                self._flat_memo = None
        # normalized here, so emit_output's calls get their struct info as emit's do
        return self.normalize(e if all(x is y for x, y in zip(args, e.args))
                              else replace(e, args=args))

    def normalize(self, expr: Any) -> rx.Expr:
        """`expr` with its struct info inferred (TVM's `bb.normalize`; operator calls here are
        born with theirs, so this infers only what a hand-made Call lacks)."""
        from ..ir.op import with_inferred_struct_info

        if isinstance(expr, rx.Call) and expr.struct_info is None and isinstance(expr.op, rx.Op):
            return with_inferred_struct_info(expr)
        if isinstance(expr, rx.Call) and expr.struct_info is None and \
                isinstance(expr.op, rx.GlobalVarRef):
            return self._call_of_global(expr)
        if isinstance(expr, rx.Tuple) and expr.struct_info is None:
            fields = tuple(self.emit(f) if isinstance(f, rx.Call) else self.normalize(f)
                           for f in expr.fields)
            if all(f.struct_info is not None for f in fields):
                return replace(expr, fields=fields, struct_info=si.TupleStructInfo(
                    tuple(f.struct_info for f in fields)))
        if isinstance(expr, rx.TupleGetItem) and expr.struct_info is None:
            sinfo = expr.tuple_value.struct_info
            if sinfo is not None and not isinstance(sinfo, (si.TupleStructInfo,
                                                            si.ObjectStructInfo)):
                raise BlockBuilderError(f"TupleGetItem (index {expr.index}) of a value that "
                                        f"is not a tuple: {type(sinfo).__name__}")
            fields = getattr(sinfo, "fields", None)
            if fields is not None and 0 <= expr.index < len(fields):
                return replace(expr, struct_info=fields[expr.index])
        return expr

    def _inline_seq(self, e: rx.Expr) -> rx.Expr:
        """A SeqExpr's bindings join the blocks being built and its body is what remains
        (TVM's normalizer); a block of the other kind splits the current one around it."""
        if not isinstance(e, rx.SeqExpr):
            return e
        for block in e.blocks:
            if isinstance(block, rx.DataflowBlock) == self._in_dataflow:
                self._bindings.extend(block.bindings)
            else:
                self._flush(dataflow=self._in_dataflow)
                self._blocks.append(block)
        return e.body

    def emit(self, expr: Any, name_hint: str | None = None) -> rx.Var:
        """Bind `expr` to a new variable (a dataflow var inside `bb.dataflow()`)."""
        e = self.normalize(self._flatten_args(self._inline_seq(as_expr(expr))))
        var = self._new_var(name_hint or None, e.struct_info, self._in_dataflow)
        self._bindings.append(rx.VarBinding(var, e))
        return var

    def emit_normalized(self, binding: rx.Binding) -> None:
        """Append a binding made elsewhere (a VarBinding or MatchCast), as it is."""
        self._bindings.append(binding)

    def match_cast(self, value: Any, struct_info: si.StructInfo, name_hint: str = "") -> rx.Var:
        var = self._new_var(name_hint or None, struct_info, self._in_dataflow)
        self._bindings.append(rx.MatchCast(var, as_expr(value), struct_info))
        return var

    def emit_te(self, func: Callable[..., Any], *args: Any, primfunc_name_hint: str | None = None,
                **kwargs: Any) -> rx.Var:
        """Emit `call_tir` of the prim_func `te.create_prim_func` makes from `func(*args)`."""
        base = primfunc_name_hint or getattr(func, "__name__", "te_func").strip("_<>") or "te_func"
        _check_te_args([*args, *kwargs.values()])
        call = self._emitter.call_te(func, list(args), kwargs, base)
        return self.emit(call)

    def call_te(self, func: Callable[..., Any], *args: Any, **kwargs: Any) -> rx.Call:
        base = kwargs.pop("primfunc_name_hint", None) or getattr(func, "__name__", "te_func")
        _check_te_args([*args, *kwargs.values()])
        return self._emitter.call_te(func, list(args), kwargs, base)

    def call_te_with_grad(self, func: Callable[..., Any], *args: Any, te_grad_name: str,
                          te_grad_kwargs: dict[str, Any] | None = None, **kwargs: Any
                          ) -> rx.Call:
        """As call_te, giving `R.call_tir_with_grad(..., te_grad_name=...)` (see
        relax.training.utils.register_te_gradient)."""
        from ..ir.op import get_op
        from ..tir.attrs import Attrs

        c = self.call_te(func, *args, **kwargs)
        grad_kwargs = Attrs(sorted((te_grad_kwargs or {}).items()))
        return replace(c, op=get_op("relax.call_tir_with_grad"), attrs=(
            ("te_grad_name", str(te_grad_name)), ("te_grad_kwargs", grad_kwargs)))

    def emit_output(self, output: Any, name_hint: str | None = None) -> rx.Var:
        if not self._in_dataflow:
            raise ValueError("emit_output is for the end of a dataflow block")
        e = self._flatten_args(self._inline_seq(as_expr(output)))
        var = self._new_var(name_hint, e.struct_info, dataflow=False)
        self._bindings.append(rx.VarBinding(var, e))
        return var

    def emit_func_output(self, output: Any, params: Any = None) -> GlobalVar:
        if self._func is None:
            raise BlockBuilderError("emit_func_output must be inside `with bb.function(...)`")
        if self._func["done"]:
            raise BlockBuilderError(f"function {self._func['name']!r} already has its output")
        if params is not None:
            if self._func["params"] is not None:
                raise BlockBuilderError("the function's params were given to bb.function "
                                        "already; do not give them to emit_func_output too")
            self._func["params"] = list(params) if isinstance(params, (list, tuple)) else [params]
        if self._func["params"] is None:
            raise BlockBuilderError(f"function {self._func['name']!r} has no params: give them "
                                    "to bb.function or to emit_func_output")
        body = as_expr(output)
        if isinstance(body, (rx.Call, rx.If, rx.TupleGetItem)) and not self._in_dataflow:
            body = self.emit(body)  # NOTE: TVM's normalizer binds a body that is no leaf
        self._flush()
        func = rx.Function(tuple(self._func["params"]), rx.SeqExpr(tuple(self._blocks), body),
                           body.struct_info or si.ObjectStructInfo(),
                           attrs=tuple(self._func["attrs"].items()))
        gv = self.add_func(func, self._func["name"])
        self._func["done"] = True
        return gv

    def add_func(self, func: Any, func_name: str) -> GlobalVar:
        """Add `func` under `func_name`, or `func_name1`, ... when that is taken (TVM's
        AddFunction); a function added before keeps its GlobalVar. A public function renamed
        so gets its own name back from `finalize`. `update_func` replaces a function."""
        for gv, f in self._funcs.items():
            if f is func:
                return gv
        name = fresh_name(func_name, self._emitter.names | {gv.name_hint for gv in self._funcs})
        gv = GlobalVar(name)
        self._funcs[gv] = func
        self._emitter.names.add(name)
        return gv

    def update_func(self, gv: GlobalVar, func: Any) -> None:
        self._funcs[gv] = func

    def get(self) -> IRModule:
        return IRModule(dict(self._funcs), self._attrs, self._global_infos)

    def finalize(self) -> IRModule:
        """The module with each public function named by its `global_symbol` (a private
        function in the way is renamed), as TVM's finalize runs NormalizeGlobalVar."""
        from .function_passes import NormalizeGlobalVar

        return NormalizeGlobalVar()(self.get())

    @staticmethod
    def current() -> "BlockBuilder | None":
        """The builder whose `with bb.function(...)` is open (innermost), else None."""
        return BlockBuilder._current[-1] if BlockBuilder._current else None


def _check_te_args(args: list[Any]) -> None:
    """A shape held in a relax variable has no values a te function could read at build
    time; TVM's call_te refuses it with an AssertionError, and so does this."""
    for a in args:
        if isinstance(a, (list, tuple)):
            _check_te_args(list(a))
        elif isinstance(a, rx.Var) and isinstance(a.struct_info, si.ShapeStructInfo):
            raise AssertionError(f"call_te/emit_te: the shape variable {a.name_hint!r} cannot "
                                 f"be a te argument; pass its dims (a tuple of ints or TIR "
                                 f"variables, e.g. bound by R.match_cast) instead")


def _bound_in_open_blocks(var: rx.Var) -> rx.Expr | None:
    """The value `var` is bound to in the current builder's function (ops.base.bound_value)."""
    bb = BlockBuilder.current()
    if bb is None:
        return None
    for bindings in (bb._bindings, *(b.bindings for b in bb._blocks)):
        for b in bindings:
            if b.var is var and isinstance(b, rx.VarBinding):
                return b.value
    return None


BINDING_LOOKUPS.append(_bound_in_open_blocks)
