"""`tvm_ffi` as TVM 0.27 code imports it (`import tvmlite.ffi as tvm_ffi`): structural equality,

TVM 0.27 moved its object system into the separate `tvm_ffi` package; its tests and users call
`tvm_ffi.structural_equal(a, b)` or build `tvm_ffi.Shape([1, 2])` next to `import tvm`. tvmlite's
IR is plain Python, so these are its own functions and types under TVM's names: lists and tuples
are the arrays, dicts the maps (`isinstance(x, tvm_ffi.Array)` accepts them).
"""

from typing import Any

from ..ir.structural import structural_equal as _structural_equal
from ..ir.structural import structural_hash as _structural_hash
from ..runtime import ShapeTuple as Shape
from ..tir.attrs import Attrs
from ..vm.ndarray import NDArray as Tensor
from ..vm.ndarray import from_dlpack
from ..vm.registry import get_global_func, register_func, remove_global_func

register_global_func = register_func


def structural_equal(lhs: Any, rhs: Any, map_free_vars: bool = False,
                     skip_tensor_content: bool = False) -> bool:
    """True when the two IR values are equal up to the naming of bound variables."""
    return _structural_equal(lhs, rhs, map_free_vars)


def structural_hash(value: Any, map_free_vars: bool = False,
                    skip_tensor_content: bool = False) -> int:
    """A hash that agrees with `structural_equal`."""
    return _structural_hash(value, map_free_vars)


class _ContainerMeta(type):
    """`isinstance(x, Array)` holds for the Python containers tvmlite uses in Array's place."""

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, cls._python_types)


class Array(metaclass=_ContainerMeta):
    """TVM's immutable array: `Array([1, 2])` is a tuple here."""

    _python_types = (list, tuple)

    def __new__(cls, items: Any = ()) -> Any:  # type: ignore[misc]
        return tuple(items)


class Map(metaclass=_ContainerMeta):
    """TVM's map: `Map({...})` is a dict here; an IR node's attributes (`Attrs`, read as
    `attrs["k"]` and `attrs.items()`) are maps too."""

    _python_types = (dict, Attrs)

    def __new__(cls, items: Any = ()) -> Any:  # type: ignore[misc]
        return dict(items)


from . import container  # noqa: E402,F401 (`tvm_ffi.container.Map`, after Array and Map)

__all__ = ["Array", "Map", "Shape", "Tensor", "from_dlpack", "get_global_func",
           "register_global_func", "remove_global_func", "structural_equal", "structural_hash"]
