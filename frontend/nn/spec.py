"""Input specifications for `export_tvm`: which methods to export and what they take.

    {"forward": {"x": nn.spec.Tensor(("n", 784), "float32")}, "step": {"k": nn.spec.Int()}}

A string dim names a symbolic dim; the same name in several inputs of one method is the same
dim. A `tir.Var` dim is that var itself (TVM's form:
`nn.spec.Tensor((tir.Var("n", "int64"), 8), "float32")`). `Int()` (or `int`) is a symbolic
integer argument.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable, Sequence

from ...tir.expr import PrimExpr


class Tensor:
    """A tensor input of a static or symbolic shape."""

    def __init__(self, shape: Sequence[int | str | PrimExpr], dtype: str) -> None:
        for d in shape:
            if isinstance(d, bool) or not isinstance(d, (int, str, PrimExpr)):
                raise TypeError(f"nn.spec.Tensor dims are ints, names (str) or tir "
                                f"expressions, got {d!r} in {tuple(shape)}")
        self.shape = tuple(shape)
        self.dtype = str(dtype)

    def __repr__(self) -> str:
        return f"Tensor({list(self.shape)}, '{self.dtype}')"


class Int:
    """A symbolic integer input (a function parameter of shape type `R.Shape([k])`)."""

    def __repr__(self) -> str:
        return "int"


def _as_arg_spec(where: str, value: Any) -> Any:
    """A Tensor, an Int, or a tuple / list of them (the method gets a tuple / list)."""
    if value is int or (isinstance(value, str) and value == "int"):
        return Int()
    if isinstance(value, (Tensor, Int)):
        return value
    if isinstance(value, (tuple, list)) and value:
        return type(value)(_as_arg_spec(f"{where}[{i}]", v) for i, v in enumerate(value))
    raise TypeError(f"{where}: expected nn.spec.Tensor, nn.spec.Int or a tuple of them, got "
                    f"{value!r}")


def method_inputs(module: Any, name: str, method_spec: Any
                  ) -> tuple[Callable[..., Any], list[tuple[str, Tensor | Int]]]:
    """The bound method `name` of `module` and its inputs in signature order, checked
    against `method_spec` (a dict from argument name to spec)."""
    cls = type(module).__name__
    method = getattr(module, name, None)
    if not callable(method):
        methods = sorted(m for m in dir(type(module)) if not m.startswith("_")
                         and callable(getattr(type(module), m)) and m not in _MODULE_API)
        raise AttributeError(f"export_tvm: the spec names method {name!r}, but {cls} has no "
                             f"such method (its methods: {', '.join(methods) or 'none'})")
    if not isinstance(method_spec, dict):
        raise TypeError(f"export_tvm: the spec of {cls}.{name} must be a dict from argument "
                        f"name to nn.spec.Tensor / nn.spec.Int, got {method_spec!r}")
    params = [p for p in inspect.signature(method).parameters.values()
              if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    known = {p.name for p in params}
    extra = [k for k in method_spec if k not in known]
    if extra:
        raise TypeError(f"export_tvm: the spec of {cls}.{name} names {extra}, which "
                        f"{cls}.{name}({', '.join(p.name for p in params)}) does not take")
    missing = [p.name for p in params if p.name not in method_spec and p.default is p.empty]
    if missing:
        raise TypeError(f"export_tvm: the spec of {cls}.{name} has no entry for argument(s) "
                        f"{missing}; give each an nn.spec.Tensor(shape, dtype) or nn.spec.Int()")
    inputs = [(p.name, _as_arg_spec(f"{cls}.{name} argument {p.name!r}", method_spec[p.name]))
              for p in params if p.name in method_spec]
    return method, inputs


# NOTE: a spec naming these is a mistake, not a method to export
_MODULE_API = {"named_parameters", "named_modules", "parameters", "state_dict",
               "load_state_dict", "to", "export_tvm", "jit"}
