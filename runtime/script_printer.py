"""`tvm.runtime.script_printer`: the printer's configuration object, as TVM code imports it."""

from __future__ import annotations

import abc
from dataclasses import dataclass, field


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
    extra: dict = field(default_factory=dict)


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
