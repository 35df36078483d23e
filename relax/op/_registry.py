"""The builders of registered operators, grouped by TVM's `relax.op` submodules."""

from __future__ import annotations

from typing import Any

from ...ir.op import list_ops, op_attr


def builders(group: str = "") -> dict[str, Any]:
    """Every registered op's builder named `relax.<group>.<name>` (or `relax.<name>` for the
    top-level group ""), keyed by `<name>`."""
    found = {}
    for name in list_ops():
        make = op_attr(name, "make")
        parts = name.split(".")
        in_group = parts[1:-1] == ([group] if group else [])
        if make is not None and in_group:
            found[parts[-1]] = make
    return found
