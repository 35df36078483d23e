"""`tvm.error`: TVM's exception classes (defined in vm/errors.py)."""

from .vm.errors import (  # noqa: F401
    DiagnosticError, InternalError, OpAttributeInvalid, OpAttributeRequired,
    OpAttributeUnImplemented, OpError, OpNotImplemented, RPCError, RPCSessionTimeoutError,
    TVMError, register_error,
)

__all__ = ["DiagnosticError", "InternalError", "OpAttributeInvalid", "OpAttributeRequired",
           "OpAttributeUnImplemented", "OpError", "OpNotImplemented", "RPCError",
           "RPCSessionTimeoutError", "TVMError", "register_error"]
