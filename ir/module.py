"""`IRModule`: the named functions of a program, TIR prim_funcs and graph functions alike."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterator


@dataclass(frozen=True, slots=True, eq=False)
class GlobalVar:
    """A module-level function name; compares by identity, looked up in an IRModule by name."""

    name_hint: str

    def __repr__(self) -> str:
        return f"I.GlobalVar({self.name_hint!r})"

    def __call__(self, *args: Any) -> Any:
        """`gv(a, b)`: a relax call of the function `gv` names (TVM's `GlobalVar.__call__`);
        the BlockBuilder that holds the function gives it its struct info when emitted."""
        from .expr import Call, _as_expr  # NOTE: the graph IR builds on this module

        return Call(self, tuple(_as_expr(a) for a in args))


def fresh_name(base: str, taken: Any) -> str:
    """`base`, or `base1`, `base2`... : the first not in `taken` (TVM's naming of new funcs)."""
    name, k = base, 0
    while name in taken:
        k += 1
        name = f"{base}{k}"
    return name


@dataclass(eq=False)
class IRModule:
    """An ordered map GlobalVar -> function (tir.PrimFunc or relax Function), plus attributes.

    Passes treat modules as values: they build new ones (`with_function`, `map_functions`)
    rather than mutating the one they were given.
    """

    functions: dict[GlobalVar, Any] = field(default_factory=dict)
    attrs: dict[str, Any] = field(default_factory=dict)
    global_infos: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # TVM users write tvm.IRModule({"main": func}): names become GlobalVars
        if self.functions is None:
            self.functions = {}
        elif any(isinstance(k, str) for k in self.functions):
            self.functions = {GlobalVar(k) if isinstance(k, str) else k: f
                              for k, f in self.functions.items()}
        self.attrs = dict(self.attrs or {})

    @staticmethod
    def from_dict(funcs: dict[str, Any]) -> IRModule:
        return IRModule({GlobalVar(name): f for name, f in funcs.items()})

    @staticmethod
    def from_expr(func: Any) -> IRModule:
        """A module of one function, named by its `global_symbol` (else `main`), as in TVM."""
        name = getattr(func, "attr_dict", {}).get("global_symbol", "main")
        return IRModule.from_dict({str(name): func})

    def get_global_var(self, name: str) -> GlobalVar:
        for gv in self.functions:
            if gv.name_hint == name:
                return gv
        raise ValueError(f"no function named {name!r} in the module; it has {self.names()}")

    def get_global_vars(self) -> list[GlobalVar]:
        return list(self.functions)

    def names(self) -> list[str]:
        return [gv.name_hint for gv in self.functions]

    def __getitem__(self, key: str | GlobalVar) -> Any:
        gv = self.get_global_var(key) if isinstance(key, str) else key
        return self.functions[gv]

    def __contains__(self, key: str | GlobalVar) -> bool:
        if isinstance(key, str):
            return key in self.names()
        return key in self.functions

    def __iter__(self) -> Iterator[GlobalVar]:
        return iter(self.functions)

    def items(self) -> list[tuple[GlobalVar, Any]]:
        return list(self.functions.items())

    functions_items = items  # TVM's name

    def with_function(self, gv: GlobalVar | str, func: Any) -> IRModule:
        """A copy with `gv` bound to `func` (added at the end, or replaced in place)."""
        if isinstance(gv, str):
            gv = self.get_global_var(gv) if gv in self else GlobalVar(gv)
        funcs = dict(self.functions)
        funcs[gv] = func
        return IRModule(funcs, dict(self.attrs), dict(self.global_infos))

    def without(self, gv: GlobalVar) -> IRModule:
        funcs = {k: v for k, v in self.functions.items() if k is not gv}
        return IRModule(funcs, dict(self.attrs), dict(self.global_infos))

    def map_functions(self, fn: Callable[[GlobalVar, Any], Any]) -> IRModule:
        funcs = {gv: fn(gv, f) for gv, f in self.functions.items()}
        return IRModule(funcs, dict(self.attrs), dict(self.global_infos))

    def __setitem__(self, key: str | GlobalVar, func: Any) -> None:
        # TVM allows `mod["name"] = func`; kept for users, passes use with_function.
        gv = key if isinstance(key, GlobalVar) else (
            self.get_global_var(key) if key in self else GlobalVar(key))
        self.functions[gv] = func

    def clone(self) -> IRModule:
        """A copy whose function table can change without changing this one (TVM's clone)."""
        return IRModule(dict(self.functions), dict(self.attrs), dict(self.global_infos))

    def with_attrs(self, attrs: dict[str, Any]) -> IRModule:
        """A copy with `attrs` added to the module's attributes (TVM's `IRModule.with_attrs`)."""
        return IRModule(dict(self.functions), {**self.attrs, **dict(attrs)},
                        dict(self.global_infos))

    def without_attr(self, key: str) -> IRModule:
        """A copy without the module attribute `key` (TVM's `IRModule.without_attr`)."""
        return IRModule(dict(self.functions), {k: v for k, v in self.attrs.items() if k != key},
                        dict(self.global_infos))

    def update_global_info(self, name: str, infos: Any) -> None:
        """TVM's in-place setting of the global infos under `name` (e.g. "vdevice")."""
        self.global_infos[name] = list(infos)

    def update_func(self, gv: GlobalVar | str, func: Any) -> None:
        """TVM's in-place replacement of one function (`mod[gv] = func`)."""
        self[gv] = func

    def script(self, **kwargs: Any) -> str:
        from ..script.printer import print_module  # the printer lives above ir/

        return print_module(self, **kwargs)

    def show(self, style: str | None = None, black_format: bool | None = None,
             **kwargs: Any) -> None:
        """Print the TVMScript, highlighted as TVM's is (`style="plain"` for none); the
        other options are `script()`'s (`path_to_underline`, ...); `black_format` formats."""
        from ..script.highlight import cprint

        cprint(self.script(**kwargs), style, black_format=bool(black_format))

    def _repr_html_(self) -> str | None:
        from ..script.highlight import html_of

        return html_of(self)

    def __str__(self) -> str:
        return self.script()

    def __repr__(self) -> str:
        """The TVMScript, as TVM's repr; a module the printer cannot show lists its names."""
        try:
            return self.script()
        except Exception:  # noqa: BLE001 (a repr must not raise)
            return f"IRModule({self.names()})"
