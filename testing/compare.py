"""`tvm.testing.CompareBeforeAfter`: a test class whose `before`, `expected` and `transform`
are compared by one inherited test, as older TVM pass tests are written:

    class TestSimplify(tvm.testing.CompareBeforeAfter):
        transform = tvm.tir.transform.Simplify()

        def before(A: T.Buffer(16, "int32")): ...
        def expected(A: T.Buffer(16, "int32")): ...

`before` and `expected` may be TVMScript functions (parsed as prim_funcs), PrimFuncs, IRModules,
or pytest fixtures (methods taking `self`, or `tvm.testing.fixture`s); `expected` may be an
exception class the transform must raise.
"""

from __future__ import annotations

import inspect
from typing import Any


def _is_fixture(value: Any) -> bool:
    return hasattr(value, "_pytestfixturefunction") or hasattr(value, "_fixture_function_marker") \
        or type(value).__name__ == "FixtureFunctionDefinition"


def _value_fixture(name: str, value: Any) -> Any:
    import pytest

    def provide(self: Any) -> Any:
        return value

    return pytest.fixture(provide, name=name)


def _as_fixture(name: str, value: Any) -> Any:
    """`value` as a pytest fixture named `name`, parsing TVMScript functions."""
    import pytest

    if _is_fixture(value):
        return value
    if inspect.isfunction(value):
        params = list(inspect.signature(value).parameters)
        if params[:1] == ["self"]:
            return pytest.fixture(value, name=name)  # a method computing the value
        if name != "transform":
            from ..script import tir as T

            return _value_fixture(name, T.prim_func(value))
    return _value_fixture(name, value)


def _as_module(value: Any) -> Any:
    from ..ir.module import IRModule

    if isinstance(value, IRModule):
        return value
    # NOTE: a function is the module's "main", whatever it was called in the class body
    if "global_symbol" in getattr(value, "attr_dict", {}):
        value = value.with_attr("global_symbol", "main")
    return IRModule.from_dict({"main": value})


class CompareBeforeAfter:
    """Subclass with `before`, `expected` and `transform`; `test_compare` checks that the
    transform turns `before` into a module structurally equal to `expected`."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name in ("before", "expected", "transform"):
            if name in cls.__dict__:
                setattr(cls, name, _as_fixture(name, cls.__dict__[name]))

    def test_compare(self, before: Any, expected: Any, transform: Any) -> None:
        import pytest

        from ..ir.structural import assert_structural_equal

        mod = _as_module(before)
        if inspect.isclass(expected) and issubclass(expected, BaseException):
            with pytest.raises(expected):
                transform(mod)
            return
        assert_structural_equal(transform(mod), _as_module(expected))
