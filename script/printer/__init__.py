"""The TVMScript printer: `mod.script()`, `mod.show()`, `func.script()`.

The text is today's TVMScript in TVM 0.27's style and parses back with
`tvmlite.script.from_source` to a structurally equal IR (`ir.structural.structural_equal`);
printing that again gives the same text. Constants with more than
`relax_printer.INLINE_CONST_LIMIT` elements print as `metadata["relax.expr.Constant"][i]`;
`metadata_of(mod)` gives the table to pass back as `from_source(text, env={"metadata": ...})`.
"""

from __future__ import annotations

import inspect

from typing import Any

from ...ir import expr as rx
from ...ir.module import IRModule
from ...tir.function import PrimFunc
from .common import header, value_text
from .node_printer import sinfo_text
from .relax_printer import extern_func_text
from .relax_printer import print_relax_function as _relax
from .source_marks import mark
from .tir_printer import print_prim_func as _tir
from .underline_ir import underlined_script, wants_underline

MODULE_NAME = "Module"
_OMITTED = "# Metadata omitted. Use show_meta=True in script() method to show it."


def _ordered(mod: IRModule) -> list[tuple[str, Any]]:
    """prim_funcs first, then extern functions, then relax functions, each group by name (as
    TVM prints them)."""
    items = [(gv.name_hint, f) for gv, f in mod.functions.items()]
    return sorted(items, key=lambda kv: (_group(kv[1]), kv[0]))


def _group(f: Any) -> int:
    return 0 if isinstance(f, PrimFunc) else 1 if isinstance(f, rx.ExternFunc) else 2


def _python_source(mod: IRModule, name: str, f: Any) -> str:
    """The source of the Python function an `@I.pyfunc` entry stands for, when known."""
    func = getattr(mod, "pyfuncs", {}).get(name)
    if func is None or not isinstance(f, rx.ExternFunc) or not f.attr_dict.get("is_pyfunc"):
        return ""
    try:
        return inspect.cleandoc(inspect.getsource(func))
    except (OSError, TypeError):
        return ""


def module_body(mod: IRModule, metadata: list[Any], show_all_ty: bool = False,
                module_alias: str = "cls") -> str:
    lines = ["@I.ir_module", f"class {MODULE_NAME}:"]
    if mod.attrs:
        lines.append(f"    I.module_attrs({value_text(dict(mod.attrs), str)})")
    if mod.global_infos:
        lines.append(f"    I.module_global_infos({value_text(dict(mod.global_infos), str)})")
    chunks = []
    for name, f in _ordered(mod):
        if isinstance(f, PrimFunc):
            text = _tir(f, name, in_module=True)
        elif _python_source(mod, name, f):  # an @I.pyfunc method: its own source
            text = _python_source(mod, name, f)
        elif isinstance(f, rx.ExternFunc):  # one line each, no blank line after (TVM's form)
            text = f"{name} = {extern_func_text(f, sinfo_text)}"
        else:
            text = _relax(f, name, MODULE_NAME, metadata, show_all_ty, module_alias)
        text = mark(f, "\n".join("    " + ln if ln else ln for ln in text.split("\n")))
        one_line = isinstance(f, rx.ExternFunc) and "\n" not in text
        if chunks and chunks[-1][1]:
            chunks[-1] = (chunks[-1][0] + "\n" + text, one_line)
        else:
            chunks.append((text, one_line))
    if (mod.attrs or mod.global_infos) and chunks:
        lines.append("")
    return "\n".join(lines) + "\n" + "\n\n".join(text for text, _ in chunks)


def _annotate_all(show_all_struct_info: bool, show_all_ty: bool | None) -> bool:
    """TVM 0.27 annotates every binding unless `show_all_struct_info=False`; tvmlite's older
    spelling of that option, `show_all_ty`, wins when given."""
    return show_all_struct_info if show_all_ty is None else show_all_ty


def print_module(mod: IRModule, show_meta: bool = False, show_all_ty: bool | None = None,
                 show_all_struct_info: bool = True, module_alias: str = "cls",
                 **options: Any) -> str:
    """`mod.script()`: the module as TVMScript with its `# from tvm.script import` header;
    TVM's underline options (`path_to_underline`, ...) as `underline_ir` reads them;
    `module_alias` is the name relax functions give the module (`cls`; "" for `Module.f`)."""
    check_prefixes(options)
    if wants_underline(options):
        return underlined_script(mod, lambda: print_module(
            mod, show_meta, show_all_ty, show_all_struct_info, module_alias), options)
    metadata: list[Any] = []
    body = module_body(mod, metadata, _annotate_all(show_all_struct_info, show_all_ty),
                       module_alias)
    if not mod.functions and not (mod.attrs or mod.global_infos):
        body += "    pass"
    if metadata:
        body += "\n\n" + (_meta_text(metadata) if show_meta else _OMITTED)
    return header(body, module=True)


def check_prefixes(options: dict[str, Any]) -> None:
    """TVM refuses a namespace prefix that is no Python identifier (`ir_prefix="2I"`) with a
    RuntimeError; valid ones are accepted (the text keeps I, T and R)."""
    for key in ("ir_prefix", "tir_prefix", "relax_prefix"):
        prefix = options.get(key)
        if prefix is not None and not (isinstance(prefix, str) and prefix.isidentifier()):
            raise RuntimeError(f"{key}={prefix!r} is not a valid Python identifier")


def print_marked(f: PrimFunc, name: str, marks: dict[int, str]) -> str:
    """A module of `f` alone, with the statements of `marks` (by id) commented and underlined,
    and no syntax sugar: how TVM shows the IR of a schedule error."""
    text = _tir(f, name, in_module=True, marks=marks)
    lines = ["@I.ir_module", f"class {MODULE_NAME}:"]
    lines += ["    " + ln if ln else ln for ln in text.split("\n")]
    return header("\n".join(lines), module=True)


def print_prim_func(f: PrimFunc, namer: Any = None, **options: Any) -> str:
    check_prefixes(options)
    if wants_underline(options):
        return underlined_script(f, lambda: print_prim_func(f, namer), options)
    return header(_tir(f, namer=namer), module=False)


def print_relax_function(f: rx.Function, show_all_ty: bool | None = None,
                         show_all_struct_info: bool = True, **options: Any) -> str:
    check_prefixes(options)
    if wants_underline(options):
        return underlined_script(f, lambda: print_relax_function(
            f, show_all_ty, show_all_struct_info), options)
    metadata: list[Any] = []
    body = _relax(f, metadata=metadata,
                  show_all_ty=_annotate_all(show_all_struct_info, show_all_ty))
    if metadata:
        body += "\n\n" + _OMITTED
    return header(body, module=False)


def metadata_of(mod: IRModule) -> dict[str, list[Any]]:
    """The constants `mod.script()` refers to as `metadata["relax.expr.Constant"][i]`."""
    metadata: list[Any] = []
    module_body(mod, metadata)
    return {"relax.expr.Constant": metadata}


def _meta_text(metadata: list[Any]) -> str:
    from .relax_printer import to_numpy

    rows = [f"#   [{i}] {to_numpy(c.data).dtype}{list(to_numpy(c.data).shape)}"
            for i, c in enumerate(metadata)]
    return "# Metadata:\n" + "\n".join(rows)


__all__ = ["metadata_of", "print_module", "print_prim_func", "print_relax_function"]
