"""`tvm.error`: TVM's exception classes (defined in vm/errors.py)."""

from .vm.errors import (  # noqa: F401
    DiagnosticError, InternalError, OpAttributeInvalid, OpAttributeRequired,
    OpAttributeUnImplemented, OpError, OpNotImplemented, RPCError, RPCSessionTimeoutError,
    TVMError, register_error,
)
from .vm.bounds_runtime import BoundsCheckError  # noqa: F401 (a failed run-time bounds check)
from .vm.executable import ExecutableFormatError  # noqa: F401 (a damaged exported file)

__all__ = ["BoundsCheckError", "DiagnosticError", "ExecutableFormatError", "InternalError",
           "OpAttributeInvalid", "OpAttributeRequired",
           "OpAttributeUnImplemented", "OpError", "OpNotImplemented", "RPCError",
           "RPCSessionTimeoutError", "TVMError", "register_error"]
