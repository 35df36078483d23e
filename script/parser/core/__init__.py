"""The IR-agnostic core of the TVMScript parser: scopes, frames, expression evaluation, errors.

A `Parser` walks one function's AST. Statements go to the handlers of its `Dialect` (tir or
relax), registered by AST class name; a statement kind without a handler is refused.
Expressions are evaluated here, node by node: names resolve through the parser's scopes, then
the enclosing module's functions, then the decorating frame's locals and globals; calls,
operators and subscripts apply to the evaluated values, so `T.max(a, b)` or `i * 4 + j` build IR
through the namespaces and `tir.PrimExpr` arithmetic. Any foreign exception is turned into a
`DiagnosticError` located at the innermost node being evaluated.
"""

from __future__ import annotations

import ast
import inspect
import builtins
import contextlib
import operator
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, NoReturn

from ....ir.module import GlobalVar
from ....tir import expr as tx
from ...diagnostics import DiagnosticError, SourceText

_MISSING = object()
_STACK: list[Parser] = []


class ArgError(Exception):
    """Raised by namespace functions to blame one argument of the call being evaluated.

    `where` lists candidates, first match wins: a position, a keyword name, or a pair
    (position or keyword, element) naming one element of a tuple/list argument.
    """

    def __init__(self, message: str, *where: int | str | tuple[int | str, int]) -> None:
        super().__init__(message)
        self.where = where


@dataclass(frozen=True)
class Wrap:
    """A statement that scopes over the rest of its body (LetStmt, AssertStmt); a `flat`
    one (TVM 0.27's AllocBuffer) is a statement of its own, so an empty rest stays empty."""

    fn: Callable[[list[Any]], Any]
    flat: bool = False


@dataclass(frozen=True)
class MetaValue:
    """`T.meta_var(x)`: a Python value bound to names as is (never as an IR binding); passed
    to a call, it is the value itself."""

    value: Any


def _plain(x: Any) -> Any:
    return x.value if isinstance(x, MetaValue) else x


Handler = Callable[["Parser", Any], Any]


class Dialect:
    """Statement handlers and evaluation hooks of one IR dialect."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.handlers: dict[str, Handler] = {}

    def register(self, node_type: str) -> Callable[[Handler], Handler]:
        def deco(fn: Handler) -> Handler:
            self.handlers[node_type] = fn
            return fn
        return deco

    def empty_body(self) -> list[Any]:
        """What a let-style statement scopes over when nothing follows it."""
        return []

    def fallback_name(self, p: Parser, name: str) -> Any:
        return _MISSING

    def getitem(self, p: Parser, value: Any, index: Any) -> Any:
        return value[index]

    def call_global(self, p: Parser, gv: GlobalVar, args: list[Any], kwargs: dict) -> Any:
        raise ValueError(f"cannot call module function {gv.name_hint!r} here")

    def binop(self, p: Parser, op: Callable[[Any, Any], Any], a: Any, b: Any) -> Any:
        return op(a, b)


class ModuleProxy:
    """What the class name (or `cls`) means inside the module: attribute access gives GlobalVars."""

    def __init__(self, name: str, gvars: dict[str, GlobalVar]) -> None:
        self._name = name
        self._gvars = gvars

    def __getattr__(self, attr: str) -> GlobalVar:
        if attr.startswith("_"):
            raise AttributeError(attr)
        if attr not in self._gvars:
            raise AttributeError(f"module {self._name!r} has no function {attr!r}; it has "
                                 f"{sorted(self._gvars)}")
        return self._gvars[attr]


_BINOPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
    ast.Pow: operator.pow, ast.LShift: operator.lshift, ast.RShift: operator.rshift,
    ast.BitAnd: operator.and_, ast.BitOr: operator.or_, ast.BitXor: operator.xor,
}
_CMPOPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
    ast.Eq: lambda a, b: _cmp_eq(tx.BinaryOp.EQ, a, b, operator.eq),
    ast.NotEq: lambda a, b: _cmp_eq(tx.BinaryOp.NE, a, b, operator.ne),
    # Python-level questions (`x is not None`, `k in names`), answered while parsing
    ast.Is: operator.is_, ast.IsNot: operator.is_not,
    ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
}


def _cmp_eq(op: tx.BinaryOp, a: Any, b: Any, py: Callable[[Any, Any], Any]) -> Any:
    # NOTE: PrimExpr `==` is value equality, so `i == 0` must build IR explicitly.
    if isinstance(a, tx.PrimExpr) or isinstance(b, tx.PrimExpr):
        return tx.binop(op, a, b)
    return py(a, b)


def _logical(op: tx.BinaryOp, a: Any, b: Any) -> Any:
    if isinstance(a, tx.PrimExpr) or isinstance(b, tx.PrimExpr):
        return tx.binop(op, a, b)
    return (a and b) if op is tx.BinaryOp.AND else (a or b)


def check_attrs(attrs: Any, what: str) -> dict[str, Any]:
    """An attribute dict as TVM takes it: string keys only (they print back as strings)."""
    if not isinstance(attrs, dict):
        raise ArgError(f"{what} takes a dict like {{\"key\": value}}", 0)
    bad = [k for k in attrs if not isinstance(k, str)]
    if bad:
        raise ArgError(f"{what}: attribute names are strings, not {bad[0]!r}", 0)
    return attrs


def current() -> Parser | None:
    """The parser now evaluating (namespace functions use it to find frames and names)."""
    return _STACK[-1] if _STACK else None


class Parser:
    """Parses one function body of `dialect`; `env` is the decorating frame's names."""

    def __init__(self, source: SourceText, env: dict[str, Any], dialect: Dialect,
                 module: Any = None) -> None:
        self.source = source
        self.env = env
        self.dialect = dialect
        self.module = module  # parser.entry.ModuleContext or None
        self.scopes: list[dict[str, Any]] = [{}]
        self.frames: list[Any] = []
        self.pending_name: str | None = None
        self.node: ast.AST | None = None

    # -- activation, scopes and frames ------------------------------------------------------

    @contextlib.contextmanager
    def active(self) -> Iterator[Parser]:
        _STACK.append(self)
        try:
            yield self
        finally:
            _STACK.pop()

    @contextlib.contextmanager
    def scope(self) -> Iterator[dict[str, Any]]:
        self.scopes.append({})
        try:
            yield self.scopes[-1]
        finally:
            self.scopes.pop()

    def bind(self, name: str, value: Any) -> None:
        self.scopes[-1][name] = value

    @contextlib.contextmanager
    def frame(self, frame: Any) -> Iterator[Any]:
        self.frames.append(frame)
        try:
            yield frame
        finally:
            self.frames.pop()

    def find_frame(self, kind: type | tuple[type, ...]) -> Any:
        for f in reversed(self.frames):
            if isinstance(f, kind):
                return f
        return None

    @contextlib.contextmanager
    def naming(self, name: str | None) -> Iterator[None]:
        saved, self.pending_name = self.pending_name, name
        try:
            yield
        finally:
            self.pending_name = saved

    def lookup(self, name: str, node: ast.AST | None = None) -> Any:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        value = self.module.lookup(name) if self.module is not None else _MISSING
        if value is _MISSING:
            value = self.env.get(name, _MISSING)
        if value is _MISSING:
            value = self.dialect.fallback_name(self, name)
        if value is _MISSING:
            value = getattr(builtins, name, _MISSING)
        if value is _MISSING:
            self.error(node, f"undefined variable {name!r}")
        return value

    # -- errors -----------------------------------------------------------------------------

    def error(self, node: ast.AST | None, message: str) -> NoReturn:
        node = node if node is not None else self.node
        span = self.source.span(node) if node is not None else None
        raise DiagnosticError(message, span, self.source)

    def wrap(self, node: ast.AST, exc: BaseException) -> DiagnosticError:
        if isinstance(exc, ArgError):
            node = _arg_node(node, exc.where)
        msg = str(exc) if isinstance(exc, (ValueError, ArgError)) else \
            f"{type(exc).__name__}: {exc}"
        err = DiagnosticError(msg, self.source.span(node), self.source)
        err.__cause__ = None
        err.original = exc  # type: ignore[attr-defined]
        return err

    # -- statements -------------------------------------------------------------------------

    def visit_body(self, stmts: list[ast.stmt]) -> list[Any]:
        out: list[Any] = []
        for i, stmt in enumerate(stmts):
            result = self.visit_stmt(stmt)
            if isinstance(result, Wrap):
                rest = self.visit_body(stmts[i + 1:])
                out.append(result.fn(rest or ([] if result.flat else self.dialect.empty_body())))
                return out
            if result is not None:
                out.append(result)
        return out

    def visit_stmt(self, node: ast.stmt) -> Any:
        handler = self.dialect.handlers.get(type(node).__name__)
        if handler is None:
            self.error(node, f"{_describe(node)} is not supported in {self.dialect.name} "
                             "functions")
        saved, self.node = self.node, node
        try:
            return handler(self, node)
        except DiagnosticError:
            raise
        except Exception as exc:  # noqa: BLE001 - any foreign error is located here
            raise self.wrap(node, exc) from None
        finally:
            self.node = saved

    # -- expressions ------------------------------------------------------------------------

    def eval(self, node: ast.expr) -> Any:
        fn = getattr(self, "_eval_" + type(node).__name__, None)
        if fn is None:
            self.error(node, f"{_describe(node)} is not supported in TVMScript")
        try:
            return fn(node)
        except DiagnosticError:
            raise
        except Exception as exc:  # noqa: BLE001 - any foreign error is located here
            raise self.wrap(node, exc) from None

    def eval_annotation(self, node: ast.expr) -> Any:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            inner = ast.parse(node.value, mode="eval").body
            for sub in ast.walk(inner):  # point every inner node at the string
                ast.copy_location(sub, node)
                sub.end_lineno, sub.end_col_offset = node.end_lineno, node.end_col_offset
            node = inner
        return self.eval(node)

    def _eval_Constant(self, node: ast.Constant) -> Any:
        return node.value

    def _eval_Name(self, node: ast.Name) -> Any:
        return self.lookup(node.id, node)

    def _eval_Attribute(self, node: ast.Attribute) -> Any:
        base = self.eval(node.value)
        try:
            return getattr(base, node.attr)
        except AttributeError as exc:
            if isinstance(base, types.ModuleType):
                self.error(node, f"`{ast.unparse(node)}` does not exist in TVMScript")
            msg = str(exc) if isinstance(base, ModuleProxy) else \
                f"{type(base).__name__} value `{ast.unparse(node.value)}` has no attribute " \
                f"{node.attr!r}"
            self.error(node, msg)

    def _eval_JoinedStr(self, node: ast.JoinedStr) -> str:
        """An f-string (`f"tir_{name}"`), formatted from the Python values it names."""
        parts = []
        for v in node.values:
            if isinstance(v, ast.FormattedValue):
                value = self.eval(v.value)
                value = {115: str, 114: repr, 97: ascii}.get(v.conversion, lambda x: x)(value)
                spec = self.eval(v.format_spec) if v.format_spec is not None else ""
                parts.append(format(value, spec))
            else:
                parts.append(self.eval(v))
        return "".join(parts)

    def _eval_Tuple(self, node: ast.Tuple) -> tuple:
        return tuple(self._eval_elts(node.elts))

    def _eval_List(self, node: ast.List) -> list:
        return self._eval_elts(node.elts)

    def _eval_Dict(self, node: ast.Dict) -> dict:
        if any(k is None for k in node.keys):
            self.error(node, "`**` in a dict is not supported in TVMScript")
        return {self.eval(k): self.eval(v) for k, v in zip(node.keys, node.values)}  # type: ignore

    def _eval_elts(self, elts: list[ast.expr]) -> list[Any]:
        out: list[Any] = []
        for e in elts:
            if isinstance(e, ast.Starred):
                out.extend(self.eval(e.value))
            else:
                out.append(self.eval(e))
        return out

    def _eval_Slice(self, node: ast.Slice) -> slice:
        parts = [None if x is None else self.eval(x) for x in (node.lower, node.upper, node.step)]
        return slice(*parts)

    def _eval_Subscript(self, node: ast.Subscript) -> Any:
        return self.dialect.getitem(self, _plain(self.eval(node.value)),
                                    _plain(self.eval(node.slice)))

    def _eval_BinOp(self, node: ast.BinOp) -> Any:
        op = _BINOPS.get(type(node.op))
        if op is None:
            self.error(node, f"operator {type(node.op).__name__} is not supported")
        return self.dialect.binop(self, op, _plain(self.eval(node.left)),
                                  _plain(self.eval(node.right)))

    def _eval_UnaryOp(self, node: ast.UnaryOp) -> Any:
        value = _plain(self.eval(node.operand))
        if isinstance(node.op, ast.Not):
            return tx.Not(value) if isinstance(value, tx.PrimExpr) else not value
        ops = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert}
        return ops[type(node.op)](value)

    def _eval_BoolOp(self, node: ast.BoolOp) -> Any:
        op = tx.BinaryOp.AND if isinstance(node.op, ast.And) else tx.BinaryOp.OR
        result = self.eval(node.values[0])
        for v in node.values[1:]:
            result = _logical(op, result, self.eval(v))
        return result

    def _eval_Compare(self, node: ast.Compare) -> Any:
        left, result = _plain(self.eval(node.left)), None
        for op, comp in zip(node.ops, node.comparators):
            fn = _CMPOPS.get(type(op))
            if fn is None:
                self.error(node, f"comparison {type(op).__name__} is not supported")
            right = _plain(self.eval(comp))
            part = fn(left, right)
            result = part if result is None else _logical(tx.BinaryOp.AND, result, part)
            left = right
        return result

    def _eval_IfExp(self, node: ast.IfExp) -> Any:
        cond = self.eval(node.test)
        if isinstance(cond, tx.PrimExpr):
            t, f = tx._as_operands(self.eval(node.body), self.eval(node.orelse))
            return tx.Call(t.dtype, "tir.if_then_else", (cond, t, f))
        return self.eval(node.body) if cond else self.eval(node.orelse)

    def _eval_Lambda(self, node: ast.Lambda) -> Callable[..., Any]:
        """`lambda x, y: x + y` (as `T.comm_reducer` takes it): a Python function whose body
        is evaluated here, with its parameters bound in a scope of their own."""
        a = node.args
        if a.posonlyargs or a.kwonlyargs or a.vararg or a.kwarg or a.defaults:
            self.error(node, "a TVMScript lambda takes plain positional parameters")
        names = [arg.arg for arg in a.args]

        def fn(*values: Any) -> Any:
            if len(values) != len(names):
                raise TypeError(f"the lambda takes {len(names)} arguments, got {len(values)}")
            with self.scope():
                for name, value in zip(names, values):
                    self.bind(name, value)
                return self.eval(node.body)
        # NOTE: the parameters' names, for callers that read them (T.index_map's variables)
        fn.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
            [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in names])
        return fn

    def _eval_Call(self, node: ast.Call) -> Any:
        func = _plain(self.eval(node.func))
        args = [_plain(a) for a in self._eval_elts(node.args)]
        kwargs: dict[str, Any] = {}
        for kw in node.keywords:
            if kw.arg is None:
                kwargs.update(self.eval(kw.value))
            else:
                kwargs[kw.arg] = _plain(self.eval(kw.value))
        if isinstance(func, GlobalVar):
            return self.dialect.call_global(self, func, args, kwargs)
        saved, self.node = self.node, node
        try:
            return func(*args, **kwargs)
        finally:
            self.node = saved


def _arg_node(call: ast.AST, where: tuple[Any, ...]) -> ast.AST:
    if not isinstance(call, ast.Call):
        return call
    for cand in where:
        key, elt = cand if isinstance(cand, tuple) else (cand, None)
        node: ast.AST | None = None
        if isinstance(key, int) and key < len(call.args):
            node = call.args[key]
        for kw in call.keywords:
            if isinstance(key, str) and kw.arg == key:
                node = kw.value
        if node is None:
            continue
        if elt is not None and isinstance(node, (ast.Tuple, ast.List)) and elt < len(node.elts):
            return node.elts[elt]
        return node
    return call


def _describe(node: ast.AST) -> str:
    names = {"While": "a `while` loop", "ListComp": "a list comprehension",
             "Try": "a `try` statement", "Import": "an import", "ImportFrom": "an import",
             "FunctionDef": "a nested function", "ClassDef": "a nested class",
             "Global": "a `global` statement", "Delete": "a `del` statement",
             "Raise": "a `raise` statement", "Break": "`break`", "Continue": "`continue`"}
    return names.get(type(node).__name__, f"syntax `{type(node).__name__}`")
