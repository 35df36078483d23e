"""`Module.export_tvm`: trace each method named in the spec into a relax function.

One BlockBuilder and one name table serve the whole export, so binding names are unique
across the module (`add`, `add1`, ..., `gv`, `gv1`), as TVM names them. Every function takes
the method's inputs first, then every parameter of the module (`fc1.weight` -> `fc1_weight`);
`num_input` records how many inputs come first.

While a method runs, `current()` is the exporter: nn.op functions emit through it.
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from dataclasses import replace
from typing import Any, Iterator

from ...ir import expr as rx
from ...ir import struct_info as si
from ...ir.module import GlobalVar, IRModule, fresh_name
from ...tir import expr as tx
from ...transforms.block_builder import BlockBuilder
from . import spec as _spec
from .core import Effect, Module, Parameter, Tensor

_ACTIVE: list[Exporter] = []


def current() -> Exporter:
    if not _ACTIVE:
        raise RuntimeError("nn operators build a graph while Module.export_tvm traces a method; "
                           "call the module inside a method that export_tvm exports")
    return _ACTIVE[-1]


class Exporter:
    def __init__(self, module: Module) -> None:
        self.module = module
        self.builder = BlockBuilder()
        self.names: set[str] = set()
        self.paths = {id(m): path for path, m in module.named_modules()}
        self.prim_funcs: dict[int, tuple[Any, GlobalVar]] = {}
        self.reserved: set[str] = set()  # the exported methods' names
        self.io: rx.Expr | None = None  # debug=True: the effect state as the method stands
        # id(call) -> (call, var) in the method being traced: a call used twice is bound once
        self.bound_calls: dict[int, tuple[rx.Call, rx.Var]] = {}
        self.subroutines: dict[Any, GlobalVar] = {}  # define_subroutine: key -> function
        self.effects: list[tuple[str, Effect]] = []  # the module's Effects (a KVCache), named

    def fresh(self, hint: str) -> str:
        name = fresh_name(re.sub(r"\W", "_", hint) or "v", self.names)
        self.names.add(name)
        return name

    def path_of(self, module: Module) -> str:
        """The attribute path of a submodule (`fc1`, `layers.0`), for error messages."""
        return self.paths.get(id(module)) or type(module).__name__

    def prim_func_var(self, func: Any, name_hint: str) -> GlobalVar:
        """The GlobalVar of a prim_func called by nn.tensor_ir_op: added once, fresh name."""
        if id(func) not in self.prim_funcs:
            taken = {gv.name_hint for gv in self.builder.get().functions} | self.reserved
            gv = self.builder.add_func(func, fresh_name(name_hint, taken))
            self.prim_funcs[id(func)] = (func, gv)  # NOTE: holding func keeps its id unique
        return self.prim_funcs[id(func)][1]

    # -- emitting ----------------------------------------------------------------------------

    def emit(self, expr: rx.Expr, name: str) -> rx.Var:
        """Bind `expr` to a fresh variable; calls nested in its arguments are bound first, to
        `lv`, `lv1`, ... (TVM's normal form: one operator per binding)."""
        return self.builder.emit(self._flatten(expr), name_hint=self.fresh(name))

    def _flatten(self, e: rx.Expr) -> rx.Expr:
        if not isinstance(e, rx.Call):
            return e
        args = tuple(self._leaf(a) for a in e.args)
        return e if all(x is y for x, y in zip(args, e.args)) else replace(e, args=args)

    def _leaf(self, a: rx.Expr) -> rx.Expr:
        if isinstance(a, rx.Call):
            hit = self.bound_calls.get(id(a))
            if hit is not None and hit[0] is a:
                return hit[1]
            var = self.emit(a, "lv")
            self.bound_calls[id(a)] = (a, var)
            return var
        if isinstance(a, rx.Tuple) and any(isinstance(f, rx.Call) for f in a.fields):
            return replace(a, fields=tuple(self._leaf(f) for f in a.fields))
        return a

    def wrap(self, expr: rx.Expr, name: str) -> Any:
        """Bind `expr` and hand it back as nn.Tensor(s): a tuple result gives a tuple of
        Tensors, each bound as `<name>_<i>`."""
        var = expr if isinstance(expr, rx.DataflowVar) else self.emit(expr, name)
        sinfo = var.struct_info
        if isinstance(sinfo, si.TensorStructInfo):
            return Tensor(_expr=var)
        if isinstance(sinfo, si.TupleStructInfo):
            base = var.name_hint
            return tuple(self.wrap(rx.TupleGetItem(var, i, f), f"{base}_{i}")
                         for i, f in enumerate(sinfo.fields))
        raise TypeError(f"{name}: an nn operator gave a {type(sinfo).__name__}, not tensors")

    # -- one method ---------------------------------------------------------------------------

    def export_method(self, name: str, method_spec: Any,
                      params: list[tuple[str, Parameter]], debug: bool = False) -> None:
        param_mode, effect_mode = _modes(name, method_spec)
        if param_mode == "none":
            params = []
        debug = debug and effect_mode != "none"
        method_spec = {k: v for k, v in method_spec.items() if k != "$"}
        method, inputs = _spec.method_inputs(self.module, name, method_spec)
        dims: dict[str, tx.Var] = {}  # a name is one symbolic dim throughout the function

        def shape(values: Any) -> tuple[Any, ...]:
            return tuple(dims.setdefault(d, tx.Var(d, "int64")) if isinstance(d, str) else d
                         for d in values)

        self.names.update(arg for arg, _ in inputs)  # bindings never shadow an input
        input_vars = [rx.Var(arg, self._input_sinfo(arg, arg_spec, dims, shape))
                      for arg, arg_spec in inputs]
        param_vars = [rx.Var(pname.replace(".", "_"), si.tensor_sinfo(shape(p._shape), p.dtype))
                      for pname, p in params]
        if param_mode == "packed":  # one tuple parameter holds every weight
            fn_params = [rx.Var("packed_params", si.TupleStructInfo(
                tuple(v.struct_info for v in param_vars)))]
        else:
            fn_params = param_vars
        # NOTE: debug=True threads TVM's effect state `_io` through every method: an input
        # after the others, handed back beside the result
        io = [rx.Var("_io", si.ObjectStructInfo())] if debug else []
        effects = [] if effect_mode == "none" else self.effects
        io += [v for ename, e in effects for v in e.create(ename)]  # each sets its state
        bb = self.builder
        with bb.function(name, input_vars + io + fn_params,
                         attrs={"num_input": len(inputs) + len(io)}):
            with bb.dataflow():
                if param_mode == "packed":
                    # NOTE: the weights' own names, reserved for them in self.names
                    param_vars = [bb.emit(rx.TupleGetItem(fn_params[0], i), name_hint=v.name_hint)
                                  for i, v in enumerate(param_vars)]
                with _bound(params, param_vars):
                    args = {arg: self._method_arg(var, arg_spec, dims)
                            for (arg, arg_spec), var in zip(inputs, input_vars)}
                    self.io = io[0] if debug else None
                    self.bound_calls = {}
                    out = _unwrap(self._trace(name, method, args),
                                  f"{type(self.module).__name__}.{name}")
                    out = self._flatten(out)
                if io:
                    state = [self.io] if debug else []
                    state += [v for _, e in effects for v in e.finalize()]
                    out = rx.Tuple((out, rx.Tuple(tuple(state))))
                    self.io = None
                gv = bb.emit_output(out, name_hint=self.fresh("gv"))
            bb.emit_func_output(gv)

    def _trace(self, name: str, method: Any, args: dict[str, Any]) -> Any:
        """Run the method; a `define_subroutine` module's forward becomes a subroutine call
        even at the top, as in TVM."""
        from .subroutine import call_subroutine, wants_subroutine

        values = tuple(args.values())
        if name == "forward" and wants_subroutine(self.module, values, {}):
            return call_subroutine(self.module, method, values)
        return method(**args)

    def _input_sinfo(self, arg: str, arg_spec: Any, dims: dict[str, tx.Var],
                     shape: Any) -> si.StructInfo:
        if isinstance(arg_spec, _spec.Int):
            return si.ShapeStructInfo((dims.setdefault(arg, tx.Var(arg, "int64")),))
        if isinstance(arg_spec, (tuple, list)):
            return si.TupleStructInfo(tuple(
                self._input_sinfo(f"{arg}_{i}", s, dims, shape) for i, s in enumerate(arg_spec)))
        return si.tensor_sinfo(shape(arg_spec.shape), arg_spec.dtype)

    def _method_arg(self, value: rx.Expr, arg_spec: Any, dims: dict[str, tx.Var]) -> Any:
        """What the traced method receives: nn.Tensor, a tir var for an Int, or a tuple /
        list of those (a tuple input's items bound as `x_0`, `x_1`, ...)."""
        if isinstance(arg_spec, _spec.Int):
            return value.struct_info.values[0]
        if isinstance(arg_spec, (tuple, list)):
            base = value.name_hint
            items = (self._method_arg(self.emit(rx.TupleGetItem(value, i), f"{base}_{i}"), s,
                                      dims) for i, s in enumerate(arg_spec))
            return type(arg_spec)(items)
        return Tensor(_expr=value)

    def emit_effect(self, func: str, args: list[Any], what: str) -> None:
        """Emit an impure packed call that takes and returns the effect state `_io`
        (nn.op.print_, nn.op.debug_func): the state threads the calls in program order."""
        from ...script.relax import call_pure_packed

        if self.io is None:
            raise RuntimeError(f"nn.op.{what} needs the debug effect: export with "
                               f"export_tvm(..., debug=True) or jit(..., debug=True)")
        call = call_pure_packed(func, self.io, *args, sinfo_args=si.ObjectStructInfo())
        self.io = self.emit(call, "_io")

    def export_effect_initializer(self, debug: bool) -> None:
        """TVM's `_initialize_effect()`: the initial effect state, `(_io, *effects)`: the
        debug effect `R.null_value()` first, then each Effect's own (a KVCache's cache)."""
        from ...ir.ops.runtime_ops import null_value

        bb = self.builder
        with bb.function("_initialize_effect", []):
            with bb.dataflow():
                io = [bb.emit(null_value(), "_io")] if debug else []
                owned = [v for name, e in self.effects for v in e.emit_init(name, bb)]
                state = bb.emit(rx.Tuple((*io, *owned)), self.fresh("lv"))
                gv = bb.emit_output(state, name_hint=self.fresh("gv"))
            bb.emit_func_output(gv)


@contextmanager
def _bound(params: list[tuple[str, Parameter]], vars_: list[rx.Var]) -> Iterator[None]:
    """Parameters stand for their function parameters while one method (or subroutine) is
    traced; what they stood for before comes back afterwards."""
    before = [p._expr for _, p in params]
    for (_, p), v in zip(params, vars_):
        p._expr = v
    try:
        yield
    finally:
        for (_, p), old in zip(params, before):
            p._expr = old


_MODES = ("plain", "packed", "none")


def _modes(method: str, method_spec: Any) -> tuple[str, str]:
    """TVM's per-method options, `"$": {"param_mode": ..., "effect_mode": ...}`: parameters
    as separate inputs (plain), one tuple (packed) or none; the debug effect plain or none."""
    options = method_spec.get("$", {}) if isinstance(method_spec, dict) else {}
    if not isinstance(options, dict) or set(options) - {"param_mode", "effect_mode"}:
        raise TypeError(f"export_tvm: the spec of {method!r} has '$': {options!r}; it takes "
                        "{'param_mode': ..., 'effect_mode': ...}")
    param_mode = options.get("param_mode", "plain")
    effect_mode = options.get("effect_mode", "plain")
    if param_mode not in _MODES or effect_mode not in ("plain", "none"):
        raise ValueError(f"export_tvm: {method!r}: param_mode is one of {_MODES} and "
                         f"effect_mode 'plain' or 'none', got {param_mode!r} and "
                         f"{effect_mode!r}")
    return param_mode, effect_mode


def _unwrap(out: Any, where: str) -> rx.Expr:
    if isinstance(out, Tensor):
        return out._expr
    if isinstance(out, (tuple, list)):
        fields = tuple(_unwrap(o, where) for o in out)
        return rx.Tuple(fields, si.TupleStructInfo(tuple(f.struct_info for f in fields)))
    raise TypeError(f"{where} must return nn.Tensor or a tuple of them, got "
                    f"{type(out).__name__}")


def _named_effects(module: Module, prefix: str = "") -> list[tuple[str, Effect]]:
    """The Effects among the module's parts, named by path (`layers_0_cache`)."""
    found: list[tuple[str, Effect]] = []
    for key, item in module._items():
        if isinstance(item, Effect):
            found.append((f"{prefix}{key}", item))
        elif isinstance(item, Module):
            found += _named_effects(item, f"{prefix}{key}_")
    return found


def _methods(spec: Any) -> list[tuple[str, Any]]:
    if not isinstance(spec, dict) or not spec:
        raise TypeError("export_tvm(spec): spec is a dict from method name to a dict of its "
                        "inputs, e.g. {'forward': {'x': nn.spec.Tensor((1, 784), 'float32')}}")
    return list(spec.items())


def export(module: Module, spec: Any, debug: bool = False
           ) -> tuple[IRModule, list[tuple[str, Parameter]]]:
    exporter = Exporter(module)
    params = list(module.named_parameters())
    for pname, _ in params:  # bindings never shadow a parameter's name
        exporter.names.add(pname.replace(".", "_"))
    methods = _methods(spec)
    exporter.reserved.update(name for name, _ in methods)
    _ACTIVE.append(exporter)
    exporter.effects = _named_effects(module)
    for ename, _ in exporter.effects:
        exporter.names.add(ename)
    try:
        if debug or exporter.effects:
            exporter.export_effect_initializer(debug)
        for name, method_spec in methods:
            exporter.export_method(name, method_spec, params, debug)
    finally:
        _ACTIVE.pop()
    return exporter.builder.get(), params
