"""Bring-your-own-codegen backends written in Python (`relax.backend` as TVM users reach it).

A backend is two registrations: its patterns (`pattern_registry.register_patterns`) and its
codegen (`tvm.register_func("relax.ext.<name>")`). Importing a backend module registers both.
Each built-in backend `<name>.py` (compile side) has a `<name>_runtime.py` whose `load` rebuilds
its functions from an exported file; the runtime modules import numpy and vm/ only.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["pattern_registry", "patterns"]


def __getattr__(name: str) -> Any:
    # NOTE: lazy, so loading an executable (which imports a *_runtime module) does not import
    # the pattern language and with it the IR.
    if name in __all__:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
