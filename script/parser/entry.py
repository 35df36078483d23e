"""Entry points: the decorators' shared logic, module parsing and `from_source`.

`@T.prim_func` / `@R.function` in a class body return a `DeferredFunction` marker (the class
body's frame has `__module__` and `__qualname__`); `@I.ir_module` then parses the whole class:
it declares one `GlobalVar` per function, parses the prim_funcs, then the relax functions (a
relax function calling a sibling not yet parsed parses it first, so its return struct info is
known). Names resolve against the decorating frame's locals and globals, captured when the
decorator runs.
"""

from __future__ import annotations

import ast
import dataclasses
import linecache
import os
import sys
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ...ir.expr import ExternFunc
from ...ir.module import GlobalVar, IRModule
from ...ir.well_formed import verify_if_enabled
from ..diagnostics import DiagnosticError, SourceText, TVMScriptError
from .core import _MISSING, Dialect, ModuleProxy, Parser
from .source import class_node, function_node

_MODULE = Dialect("module")


@dataclass(frozen=True)
class DeferredFunction:
    """A function decorated inside a class body, waiting for the module decorator."""

    kind: str  # "tir" | "relax"
    func: types.FunctionType
    opts: dict[str, Any]

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(f"{self.func.__name__!r} is a TVMScript function of a class that is not "
                        "decorated with @I.ir_module; it cannot be called")


@dataclass(frozen=True)
class DecoratorSpec:
    """`@T.prim_func(private=True)` before it receives its function."""

    kind: str
    opts: dict[str, Any]

    def __call__(self, func: types.FunctionType) -> Any:
        __tracebackhide__ = True  # noqa: F841 (read by IPython, pytest and our excepthook)
        return decorate(self.kind, func, self.opts, depth=2)


def decorate(kind: str, func: Any, opts: dict[str, Any], depth: int) -> Any:
    """Parse `func` now, or defer it when the decorator runs inside a class body."""
    __tracebackhide__ = True  # noqa: F841
    frame = sys._getframe(depth)
    if "__module__" in frame.f_locals and "__qualname__" in frame.f_locals:
        return DeferredFunction(kind, func, opts)
    if not isinstance(func, types.FunctionType):
        raise TypeError(f"@{'T.prim_func' if kind == 'tir' else 'R.function'} decorates a "
                        f"function, not {type(func).__name__}")
    env = frame_names(frame)
    try:
        node, src = function_node(func)
        return parse_function(kind, node, src, env, None, opts)
    except TVMScriptError as err:
        raise err.with_traceback(None) from None


def frame_names(frame: Any) -> dict[str, Any]:
    """The names a decorated function sees: the decorating frame's locals, then its globals,
    then (as a fallback) the locals of the frames that called it. NOTE: with PEP 563 a closure
    variable used only in annotations is not in the function's closure; the enclosing
    function's frame, still on the stack, has it."""
    outer: dict[str, Any] = {}
    f = frame.f_back
    for _ in range(_OUTER_FRAMES):
        if f is None:
            break
        outer = {**f.f_locals, **outer}  # nearer frames win
        f = f.f_back
    return {**outer, **frame.f_globals, **frame.f_locals}


_OUTER_FRAMES = 8  # enough for closures nested a few functions deep


def ir_module(cls: type | None = None, *, check_well_formed: bool = True,
              s_tir: bool = False) -> Any:
    """`@I.ir_module` / `@tvm.script.ir_module`: parse a class of TVMScript functions.
    TVM's options are accepted: `check_well_formed=False` leaves call_tir signatures to
    `relax.analysis.well_formed`, and TIR blocks are parsed in one dialect (`s_tir=`)."""
    __tracebackhide__ = True  # noqa: F841
    if cls is None:
        def decorate(c: type) -> IRModule:
            __tracebackhide__ = True  # noqa: F841
            return _parse_class(c, sys._getframe(1), check_well_formed)
        return decorate
    return _parse_class(cls, sys._getframe(1), check_well_formed)


def _parse_class(cls: type, frame: Any, check_well_formed: bool = True) -> IRModule:
    __tracebackhide__ = True  # noqa: F841
    if not isinstance(cls, type):
        raise TypeError("@ir_module decorates a class")
    env = frame_names(frame)
    codes = [v.func.__code__ for v in vars(cls).values() if isinstance(v, DeferredFunction)]
    with_python = any(base.__name__ == "BasePyModule" for base in cls.__mro__[1:])
    try:
        node, src = class_node(cls, codes, frame.f_code.co_filename, frame.f_lineno)
        mod = parse_module(node, src, env, check_well_formed, with_python)
        mod.__name__ = cls.__name__  # type: ignore[attr-defined] (TVM keeps the class name)
    except TVMScriptError as err:
        raise err.with_traceback(None) from None
    if not with_python:
        return mod
    from ...relax.base_py_module import ModuleFactory

    names = [gv.name_hint for gv, f in mod.functions.items()
             if isinstance(f, ExternFunc) and f.attr_dict.get("is_pyfunc")]
    mod.pyfuncs = {name: vars(cls)[name] for name in names}
    return ModuleFactory(mod, names, cls)


# ---------------------------------------------------------------------------------------------


@dataclass
class ModuleContext:
    """What a function being parsed knows of its module: names, GlobalVars, parsed siblings."""

    name: str
    gvars: dict[str, GlobalVar] = field(default_factory=dict)
    pending: dict[str, Callable[[], Any]] = field(default_factory=dict)
    funcs: dict[str, Any] = field(default_factory=dict)
    # the declared signature of each relax function being parsed, for its recursive calls
    signatures: dict[str, Any] = field(default_factory=dict)
    attrs: dict[str, Any] = field(default_factory=dict)
    global_infos: dict[str, Any] = field(default_factory=dict)
    check_well_formed: bool = True
    added: list[str] = field(default_factory=list)  # prim_funcs made by R.emit_te
    with_python: bool = False  # a BasePyModule class: @I.pyfunc methods allowed

    def __post_init__(self) -> None:
        self.proxy = ModuleProxy(self.name, self.gvars)

    def add_function(self, gv: GlobalVar, func: Any) -> None:
        """A function made while parsing (R.emit_te's prim_func) joins the module."""
        self.gvars[gv.name_hint] = gv
        self.funcs[gv.name_hint] = func
        self.added.append(gv.name_hint)

    def lookup(self, name: str) -> Any:
        if name == self.name:
            return self.proxy
        return self.gvars.get(name, _MISSING)

    def function(self, name: str) -> Any:
        """The parsed function `name` (parsing it now if needed); None while it is parsing."""
        if name not in self.funcs and name in self.pending:
            self.funcs[name] = None  # NOTE: marks "in progress" so recursion terminates
            self.funcs[name] = self.pending.pop(name)()
        return self.funcs.get(name)


def parse_function(kind: str, node: ast.FunctionDef, src: SourceText, env: dict[str, Any],
                   module: ModuleContext | None, opts: dict[str, Any]) -> Any:
    if kind == "tir":
        from .tir_parser import TIR, parse_prim_func

        func = parse_prim_func(Parser(src, env, TIR, module), node)
    else:
        from .relax_parser import RELAX, parse_relax_function

        func = parse_relax_function(Parser(src, env, RELAX, module), node, opts)
    if opts.get("private") and "global_symbol" in func.attr_dict:
        raise DiagnosticError("a private function has no global symbol: drop private=True or "
                              "the \"global_symbol\" attribute", src.span(node), src)
    if not opts.get("private") and "global_symbol" not in func.attr_dict:
        func = func.with_attr("global_symbol", node.name)
    if kind == "tir" and opts.get("s_tir"):
        func = func.with_attr("s_tir", True)  # as TVM 0.27's decorator marks it
    if kind == "tir":  # its `__name__` stays the Python def's, whatever its symbol
        func = dataclasses.replace(func, source_name=node.name)
    return func


def parse_module(node: ast.ClassDef, src: SourceText, env: dict[str, Any],
                 check_well_formed: bool = True, with_python: bool = False) -> IRModule:
    """Parse an `@I.ir_module` class into an IRModule (functions in source order).
    `check_well_formed=False` (TVM's option) parses call_tirs that do not fit their prim_func,
    for `relax.analysis.well_formed` to judge. `with_python`: the class derives from
    BasePyModule, so its `@I.pyfunc` methods become entries (ExternFuncs marked is_pyfunc)."""
    ctx = ModuleContext(node.name, check_well_formed=check_well_formed, with_python=with_python)
    p = Parser(src, env, _MODULE, ctx)
    kinds: dict[str, str] = {}
    with p.active():
        for stmt in node.body:
            _module_stmt(p, ctx, stmt, src, env, kinds)
    for wanted in ("tir", "relax"):
        for name, kind in kinds.items():
            if kind == wanted:
                ctx.function(name)
    funcs = {ctx.gvars[name]: ctx.funcs[name] for name in [*kinds, *ctx.added]}
    mod = IRModule(funcs, ctx.attrs, ctx.global_infos)
    verify_if_enabled(mod, f"parsing {node.name}")
    return mod


def _module_stmt(p: Parser, ctx: ModuleContext, stmt: ast.stmt, src: SourceText,
                 env: dict[str, Any], kinds: dict[str, str]) -> None:
    if isinstance(stmt, ast.FunctionDef):
        kind, opts = _decorator_kind(p, stmt)
        if stmt.name in ctx.gvars:
            p.error(stmt, f"function {stmt.name!r} is defined twice in module {ctx.name!r}")
        ctx.gvars[stmt.name] = GlobalVar(stmt.name)
        kinds[stmt.name] = kind
        if kind == "pyfunc":
            if not ctx.with_python:
                p.error(stmt, "@I.pyfunc are only allowed in classes that inherit from "
                              "BasePyModule (class M(BasePyModule): ...)")
            ctx.funcs[stmt.name] = _pyfunc_entry(stmt.name)
            return
        ctx.pending[stmt.name] = lambda: parse_function(kind, stmt, src, env, ctx, opts)
    elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
        pass  # the class docstring
    elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        p.eval(stmt.value)  # I.module_attrs({...}), I.module_global_infos({...})
    elif _is_extern_func_stmt(stmt):  # my_ext = R.ExternFunc("my_ext", R.Callable(...))
        name = stmt.targets[0].id  # type: ignore[attr-defined]
        value = p.eval(stmt.value)  # type: ignore[attr-defined]
        if not isinstance(value, ExternFunc):
            p.error(stmt, f"a module-level assignment binds an R.ExternFunc, not "
                          f"{type(value).__name__}")
        ctx.gvars[name] = GlobalVar(name)
        ctx.funcs[name] = value
        kinds[name] = "extern"
    elif not isinstance(stmt, ast.Pass):
        p.error(stmt, "an ir_module class holds only @T.prim_func and @R.function definitions")


def _pyfunc_entry(name: str) -> ExternFunc:
    """The module's entry for an `@I.pyfunc` method, marked as TVM marks it."""
    return ExternFunc(name).with_attr("is_pyfunc", True).with_attr("function_type", "python") \
        .with_attr("python_function_name", name)


def _is_extern_func_stmt(stmt: ast.stmt) -> bool:
    return (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name) and isinstance(stmt.value, ast.Call))


def _decorator_kind(p: Parser, node: ast.FunctionDef) -> tuple[str, dict[str, Any]]:
    found: list[tuple[str, dict[str, Any]]] = []
    for deco in node.decorator_list:
        value = p.eval(deco)
        if isinstance(value, DecoratorSpec):
            found.append((value.kind, value.opts))
        elif getattr(value, "__tvmscript_kind__", None):
            found.append((value.__tvmscript_kind__, {}))
    if len(found) != 1:
        p.error(node, f"function {node.name!r} in an ir_module needs exactly one of "
                      "@T.prim_func or @R.function")
    return found[0]


def from_source(text: str, name: str = "<tvmscript>", env: dict[str, Any] | None = None,
                check_well_formed: bool = True, extra_vars: dict[str, Any] | None = None) -> Any:
    """Parse TVMScript text: a module class gives an IRModule, one function a function.

    Import lines are skipped; `T`, `R`, `I` and `tvm` are predefined (plus `env` and TVM's
    `extra_vars`). `check_well_formed` is TVM's option; the checks here follow
    `ir.well_formed` whatever it says.
    """
    __tracebackhide__ = True  # noqa: F841
    from ... import script as script_pkg

    src = SourceText(name, tuple(text.splitlines(keepends=True)))
    if not os.path.exists(name):  # errors found later (at build) show the line, as for a file
        linecache.cache[name] = (len(text), None, list(src.lines), name)
    names: dict[str, Any] = {"T": script_pkg.tir, "R": script_pkg.relax, "I": script_pkg.ir,
                             "tvm": sys.modules[__package__.split(".")[0]]}
    names.update(env or {})
    names.update(extra_vars or {})
    try:
        return _parse_text(text, src, names)
    except TVMScriptError as err:
        raise err.with_traceback(None) from None


def _parse_text(text: str, src: SourceText, env: dict[str, Any]) -> Any:
    try:
        tree = ast.parse(text, src.name)
    except SyntaxError as exc:
        span = src.span(ast.Pass(lineno=exc.lineno or 1, col_offset=(exc.offset or 1) - 1))
        raise DiagnosticError(f"invalid Python syntax: {exc.msg}", span, src) from None
    defs = [s for s in tree.body if not isinstance(s, (ast.Import, ast.ImportFrom, ast.Expr))]
    p = Parser(src, env, _MODULE, None)
    if len(defs) != 1 or not isinstance(defs[0], (ast.ClassDef, ast.FunctionDef)):
        p.error(defs[1] if len(defs) > 1 else None,
                "from_source expects one @I.ir_module class or one function")
    node = defs[0]
    if isinstance(node, ast.ClassDef):
        return parse_module(node, src, env)
    with p.active():
        kind, opts = _decorator_kind(p, node)
    return parse_function(kind, node, src, env, None, opts)


# TVM's relax type-proxy class names (`tvm.script.parser.relax.entry.TensorProxy`): here the
# struct-info constructors of the R namespace that play their part.
_PROXIES = {"AnyProxy": "Object", "ObjectProxy": "Object", "TensorProxy": "Tensor",
            "CallableProxy": "Callable", "TupleProxy": "Tuple", "ShapeProxy": "Shape",
            "PrimProxy": "Prim"}


def __getattr__(name: str) -> Any:
    if name == "TypeProxy":  # the base class of TVM's proxies: the constructors' class here
        from ..relax import _SInfoType

        return _SInfoType
    if name in _PROXIES:
        import copy

        from .. import relax as R  # NOTE: script.relax imports this module

        proxy = copy.copy(getattr(R, _PROXIES[name]))
        proxy.__name__ = name  # TVM's class name, which TVM's tests name their cases by
        return proxy
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
