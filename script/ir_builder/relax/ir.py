"""`tvm.script.ir_builder.relax.ir`: the relax builder statements by TVM's module path, and
`py_print`, the Python `print` that TVMScript's `print(...)` would otherwise shadow."""

from typing import Any

from . import *  # noqa: F401,F403 (the frames and statements of the package)
from . import __all__ as _package_names

py_print = print


def __getattr__(attr: str) -> Any:
    from .. import relax as package  # the operator builders the package forwards (R.add, ...)

    return getattr(package, attr)


__all__ = [*_package_names, "py_print"]
