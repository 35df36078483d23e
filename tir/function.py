"""`PrimFunc`: a loop program over buffers, the unit that codegen turns into one kernel."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field, replace
from typing import Any

from .attrs import Attrs
from .expr import PrimExpr, Span, Var
from .stmt import Buffer, Stmt


class _PrimFuncMeta(type):
    """Accepts TVM's constructor too: `PrimFunc(params, body, ret_type=None, buffer_map=None,
    attrs=None)`, where a param may be a Buffer (TVM then makes its handle)."""

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        ours = (len(args) >= 2 and not isinstance(args[1], Stmt)) or \
            isinstance(kwargs.get("buffer_map"), tuple)
        if not ours or "ret_type" in kwargs:
            args, kwargs = (), _from_tvm_signature(*args, **kwargs)
        return super().__call__(*args, **kwargs)


def _from_tvm_signature(params: Any, body: Stmt, ret_type: Any = None, buffer_map: Any = None,
                        attrs: Any = None, span: Any = None) -> dict[str, Any]:
    handles, bmap = [], list(dict(buffer_map or {}).items())
    for p in params:
        if isinstance(p, Buffer):
            h = Var(p.name, "handle")
            handles.append(h)
            bmap.append((h, p))
        else:
            handles.append(p)
    ret = getattr(ret_type, "dtype", None) or "void"
    return {"params": tuple(handles), "buffer_map": tuple(bmap), "body": body,
            "attrs": tuple(dict(attrs or {}).items()), "ret_dtype": ret, "span": span}


@dataclass(frozen=True, slots=True, eq=False)
class PrimFunc(metaclass=_PrimFuncMeta):
    """`params` are handle vars (one per buffer argument, mapped in `buffer_map`) and scalar vars.

    Shape variables (`T.int64()` dims of `T.match_buffer`) appear inside buffer shapes; they are
    bound from the actual arguments when the kernel is called.
    """

    params: tuple[Var, ...]
    buffer_map: tuple[tuple[Var, Buffer], ...]
    body: Stmt
    attrs: tuple[tuple[str, Any], ...] = ()
    ret_dtype: str = "void"
    span: Span | None = field(default=None, compare=False, repr=False)
    # the name of the Python function it was parsed from (TVM's `__name__`), "" if none
    source_name: str = field(default="", compare=False, repr=False)

    def same_as(self, other: object) -> bool:
        """TVM's identity test (the same function object, not an equal one)."""
        return self is other

    def __post_init__(self) -> None:
        if type(self.attrs) is not Attrs:  # readable as attrs["global_symbol"], as in TVM
            object.__setattr__(self, "attrs", Attrs(self.attrs))

    def buffer_of(self, param: Var) -> Buffer | None:
        for var, buf in self.buffer_map:
            if var is param:
                return buf
        return None

    @property
    def __name__(self) -> str:  # noqa: PLW3201 (a decorated function's name, as TVM keeps it)
        return self.source_name or str(dict(self.attrs).get("global_symbol", "main"))

    @property
    def attr_dict(self) -> dict[str, Any]:
        return dict(self.attrs)

    def with_attr(self, key: str | dict[str, Any], value: Any = None) -> PrimFunc:
        """A copy with attribute `key` set (or every item of a dict, as TVM accepts)."""
        new = key if isinstance(key, dict) else {key: value}
        attrs = tuple((k, v) for k, v in self.attrs if k not in new) + tuple(new.items())
        return replace(self, attrs=attrs)

    def without_attr(self, key: str) -> PrimFunc:
        """A copy without attribute `key` (TVM's `BaseFunc.without_attr`)."""
        return replace(self, attrs=tuple((k, v) for k, v in self.attrs if k != key))

    def with_body(self, body: Stmt) -> PrimFunc:
        return replace(self, body=body)

    @property
    def ty(self) -> Any:
        """The function's type as TVM 0.27 infers it (`relax.FuncType`; see func_type.py)."""
        from .func_type import inferred_type

        return inferred_type(self)

    def script(self, **options: Any) -> str:
        """The function as TVMScript. Of TVM's printer options, the underline ones
        (`path_to_underline`, `obj_to_underline`, ...) apply and `show_object_address` appends
        each variable's and buffer's address to its name; the others change nothing here."""
        from ..script.printer import print_prim_func  # the printer lives above tir
        from ..script.printer.common import Namer

        namer = Namer(show_address=True) if options.get("show_object_address") else None
        return print_prim_func(self, namer=namer, **options)

    def show(self, style: str | None = None, black_format: bool | None = None,
             **kwargs: Any) -> None:
        """Print the TVMScript, highlighted as TVM's is (`style="plain"` for none); the
        other options are `script()`'s (`path_to_underline`, ...); `black_format` formats."""
        from ..script.highlight import cprint

        cprint(self.script(**kwargs), style, black_format=bool(black_format))

    def _repr_html_(self) -> str | None:
        from ..script.highlight import html_of

        return html_of(self)


def shape_vars(func: PrimFunc) -> list[Var]:
    """Symbolic dims of the buffer parameters, in order of first appearance."""
    seen: list[Var] = []
    for _, buf in func.buffer_map:
        for dim in buf.shape:
            for v in free_vars(dim):
                if v not in seen:
                    seen.append(v)
    return seen


def free_vars(e: PrimExpr) -> list[Var]:
    """Variables used by an expression (no binders inside shapes, so a plain walk suffices),
    in order of first appearance (depth first, left to right)."""
    out: list[Var] = []
    seen: set[Var] = set()  # NOTE: Vars hash by identity
    stack: list[Any] = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, Var):
            if x not in seen:
                seen.add(x)
                out.append(x)
        elif isinstance(x, PrimExpr):
            for name in reversed(expr_fields(x.__class__)):
                child = getattr(x, name)
                if isinstance(child, tuple):
                    stack.extend(reversed(child))
                else:
                    stack.append(child)
    return out


@functools.cache
def expr_fields(cls: type) -> tuple[str, ...]:
    return tuple(name for name in getattr(cls, "__dataclass_fields__", {}) if name != "span")
