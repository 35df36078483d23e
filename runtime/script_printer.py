"""`tvm.runtime.script_printer`: the printer's configuration object, as TVM code imports it."""

from __future__ import annotations

import abc
from dataclasses import dataclass, field
from typing import Any


@dataclass
class PrinterConfig:
    """Options of `script()`/`show()`; tvmlite's printer reads the ones it supports by keyword."""

    show_meta: bool = False
    ir_prefix: str = "I"
    tir_prefix: str = "T"
    relax_prefix: str = "R"
    module_alias: str = "cls"
    indent_spaces: int = 4
    print_line_numbers: bool = False
    num_context_lines: int = -1
    syntax_sugar: bool = True
    path_to_underline: list | None = None
    obj_to_underline: list | None = None
    render_invisible_path_info: bool = True
    extra: dict = field(default_factory=dict)

    def __init__(self, **options: Any) -> None:
        """Every keyword TVM's PrinterConfig takes is accepted (`verbose_expr`,
        `path_to_underline`, ...); those this printer has no use for are kept in `extra`."""
        for name, f in type(self).__dataclass_fields__.items():
            setattr(self, name, {} if name == "extra" else f.default)
        self.extra.update(options.pop("extra", None) or {})
        for name, value in options.items():
            target = self.__dict__ if name in type(self).__dataclass_fields__ else self.extra
            target[name] = value

_UNDERLINE_OPTIONS = ("path_to_underline", "obj_to_underline", "path_to_annotate",
                      "obj_to_annotate", "print_line_numbers", "num_context_lines",
                      "render_invisible_path_info")


def _script(obj: Any, config: PrinterConfig | None = None) -> str:
    """TVM's `_script(node, config)`: the node's TVMScript, with the config's underlining.
    A shape prints as `Shape(1, 2)`, with no part a path could underline (as in TVM)."""
    config = config or PrinterConfig()
    options = {name: getattr(config, name, None) or config.extra.get(name)
               for name in _UNDERLINE_OPTIONS}
    extra = {**config.extra, **(config.extra.get("extra_config") or {})}
    options["render_invisible_path_info"] = extra.get(
        "render_invisible_path_info", config.render_invisible_path_info)
    from . import ShapeTuple

    if isinstance(obj, ShapeTuple):
        from ..script.printer.underline_ir import underlined_script

        text = f"Shape({', '.join(str(int(d)) for d in obj)})"
        return underlined_script(obj, lambda: text, options, root_visible=False)
    script = getattr(obj, "script", None)
    if not callable(script):
        raise TypeError(f"{type(obj).__name__} cannot be printed as TVMScript")
    return script(**options)


class Scriptable(abc.ABC):  # noqa: B024
    """What has `script()` and `show()`: modules and functions of both IRs. Membership is by
    those methods, so loading an executable never imports the IR to answer it."""

    @classmethod
    def __subclasshook__(cls, sub: type) -> bool:
        if cls is Scriptable and all(callable(getattr(sub, m, None)) for m in ("script",
                                                                               "show")):
            return True
        return NotImplemented


__all__ = ["PrinterConfig", "Scriptable"]
