"""`relax.run.print` and `relax.run.assert_op`: the global functions `R.print` and
`R.assert_op` call (TVM registers the same names); and the effect-threaded debugging calls of
the nn frontend, `effect.print` and `vm.builtin.invoke_debug_func`, which take the effect
state first and hand it back."""

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
    if not bool(flag):  # TVM's message: the formatted values, else "Assertion Failed"
        shown = [_render(v) for v in values]
        detail = format_str.format(*shown) if format_str else ", ".join(shown)
        raise AssertOpError(f"R.assert_op failed: {detail}" if detail else "Assertion Failed")


def effect_print(io: Any, tensor: Any, format_str: str = "") -> Any:
    """nn.op.print_: print the tensor; the effect state passes through."""
    relax_print(format_str, tensor)
    return io


def invoke_debug_func(io: Any, func_name: str, line_info: str, *args: Any) -> Any:
    """nn.op.debug_func: call the global function `func_name(line_info, *args)`."""
    from .registry import get_global_func

    get_global_func(func_name)(line_info, *args)
    return io


register_func("relax.run.print", relax_print, override=True)
register_func("effect.print", effect_print, override=True)
register_func("vm.builtin.invoke_debug_func", invoke_debug_func, override=True)
register_func("relax.run.assert_op", relax_assert, override=True)
