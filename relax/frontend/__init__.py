"""`tvm.relax.frontend`: the model frontends, which live in the `frontend/` layer.

NOTE: each frontend subpackage (`nn`, `torch`, ...) is registered under this path too, so
`from tvmlite.relax.frontend.nn import Module` gets the one `tvmlite.frontend.nn` module: a
second copy would duplicate its classes and registries.
"""

import sys
import types

from ...frontend import *  # noqa: F401,F403
from ...frontend import __all__ as _frontend_names
from ... import frontend as _frontend

for _name, _sub in list(vars(_frontend).items()):
    if isinstance(_sub, types.ModuleType) and _sub.__name__.startswith(_frontend.__name__ + "."):
        sys.modules[f"{__name__}.{_name}"] = _sub

__all__ = list(_frontend_names)
