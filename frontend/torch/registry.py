"""The converter table: one entry per ATen overload name (`"addmm.default"`, `"getitem"`).

A converter is `convert(node, importer) -> value` -- TVM's custom_convert_map signature, so a
user's converter and a built-in one are called alike. It returns a relax Call (the importer
binds it), an already bound Var, a Python tuple of values (for ops with several results whose
extra results tvmlite does not compute), or None (ops with no value, like assertions).
"""

from __future__ import annotations

from typing import Any, Callable

Converter = Callable[[Any, Any], Any]
CONVERTERS: dict[str, Converter] = {}


def converts(*names: str) -> Callable[[Converter], Converter]:
    """Register the decorated converter under each ATen overload name."""

    def register(fn: Converter) -> Converter:
        for name in names:
            CONVERTERS[name] = fn
        return fn

    return register


def converter_table() -> dict[str, Converter]:
    """Every built-in converter (importing the op modules registers them)."""
    from . import ops_extra, ops_misc, ops_more, ops_nn, ops_pool, ops_tensor  # noqa: F401

    return dict(CONVERTERS)
