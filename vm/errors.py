"""TVM's exception classes (`tvm.error`), so `except` clauses written for TVM catch ours.

Our own errors derive from these and from the Python class that says what went wrong
(a parse error is both `tvm.error.DiagnosticError` and `ValueError`). This module is the
lowest layer's: the runtime alone can raise them.
"""

from __future__ import annotations

from typing import Any, Callable


class TVMError(RuntimeError):
    """The base of TVM's errors raised from its runtime."""


class DiagnosticError(RuntimeError):
    """A program was rejected with a located diagnostic (parse, well-formedness)."""


class InternalError(RuntimeError):
    """The compiler met a state it should never reach: a bug, not a user error."""


class OpError(RuntimeError):
    """An operator was used wrongly."""


class OpNotImplemented(OpError, NotImplementedError):
    """An operator has no implementation for this case."""


class OpAttributeRequired(OpError, AttributeError):
    """An operator is missing a required attribute."""


class OpAttributeInvalid(OpError, AttributeError):
    """An operator's attribute has an invalid value."""


class OpAttributeUnImplemented(OpError, NotImplementedError):
    """An operator's attribute value is not supported."""


class RPCError(TVMError):
    """A remote procedure call failed."""


class RPCSessionTimeoutError(RPCError, TimeoutError):
    """A remote session timed out."""


_REGISTERED: dict[str, type] = {}


def register_error(func_name: Any = None, cls: type | None = None) -> Any:
    """TVM's decorator registering an error class by name (`@register_error` or
    `register_error("Name", cls)`); tvmlite keeps the table for lookups by name."""
    if callable(func_name) and cls is None:
        _REGISTERED[func_name.__name__] = func_name
        return func_name

    def register(error_cls: type) -> type:
        _REGISTERED[func_name or error_cls.__name__] = error_cls
        return error_cls

    return register(cls) if cls is not None else register


def registered_error(name: str) -> Callable[..., BaseException] | None:
    """The error class registered under `name`, if any."""
    return _REGISTERED.get(name)


# Bad arguments to `vm["main"](...)`: each class is our ValueError and the class TVM 0.27's VM
# raises for the same mistake, so `except` clauses written for either catch it.
class ArgumentError(ValueError):
    """An argument of a VM function does not match the function's signature."""


class ArgumentShapeError(ArgumentError, RuntimeError):
    """A tensor's dimension differs from the signature's (TVM raises RuntimeError)."""


class ArgumentRankError(ArgumentError):
    """A tensor's rank or a shape's length differs from the signature's (TVM: ValueError)."""


class ArgumentDtypeError(ArgumentError):
    """A tensor's dtype differs from the signature's (TVM raises ValueError)."""


class ArgumentTypeError(ArgumentError, TypeError):
    """An argument is not the kind of value the signature asks for (TVM raises TypeError)."""
