"""`relax.run.print` and `relax.run.assert_op`: the global functions `R.print` and
`R.assert_op` call (TVM registers the same names)."""

from __future__ import annotations

from typing import Any

from .ndarray import NDArray
from .registry import register_func


def _render(value: Any) -> str:
    if isinstance(value, NDArray):
        return str(value.numpy())
    if isinstance(value, (tuple, list)):
        return "(" + ", ".join(_render(v) for v in value) + ")"
    return str(value)


def relax_print(format_str: str, *values: Any) -> None:
    """Print the values, through `format_str.format(...)` when one is given."""
    shown = [_render(v) for v in values]
    print(format_str.format(*shown) if format_str else " ".join(shown))


class AssertOpError(AssertionError):
    """An `R.assert_op` whose condition was false at run time."""


def relax_assert(condition: Any, format_str: str, *values: Any) -> None:
    flag = condition.numpy() if isinstance(condition, NDArray) else condition
    if not bool(flag):
        shown = [_render(v) for v in values]
        detail = format_str.format(*shown) if format_str else ", ".join(shown)
        raise AssertOpError(f"R.assert_op failed: {detail or 'assertion failed'}")


register_func("relax.run.print", relax_print, override=True)
register_func("relax.run.assert_op", relax_assert, override=True)
