"""`tvm.runtime.script_printer`: the printer's configuration object, as TVM code imports it."""

from __future__ import annotations

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


__all__ = ["PrinterConfig"]
