"""`nn.Tensor`, `nn.Parameter` and `nn.Module`: the objects a model definition is made of.

A `Tensor` is a value of the graph being exported: it wraps a relax expression (a variable
the exporter's BlockBuilder bound) and exists only while `export_tvm` traces a method. A
`Parameter` is a weight: it has a shape and dtype always, optional bound data, and an
expression only while exporting (the function parameter that stands for it). A `Module`
finds its parameters and submodules among its attributes, as PyTorch's does.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Iterator, Sequence

import numpy as np

from ...ir import expr as rx
from ...ir import struct_info as si
from ...tir import expr as tx

_DEFAULT_DTYPE = "float32"


def get_default_dtype() -> str:
    """The dtype a Parameter gets when none is given."""
    return _DEFAULT_DTYPE


def set_default_dtype(dtype: str) -> None:
    global _DEFAULT_DTYPE
    _DEFAULT_DTYPE = dtype


def _dim_value(d: Any) -> Any:
    """A dim as users read it: an int when constant, else the symbolic expression."""
    return d.value if isinstance(d, tx.IntImm) else d


class Tensor:
    """A tensor of the model being exported; arithmetic on it emits relax operators."""

    def __init__(self, *, _expr: rx.Expr) -> None:
        if not isinstance(_expr.struct_info, si.TensorStructInfo):
            raise TypeError(f"nn.Tensor wraps a tensor expression, got {_expr.struct_info}")
        self._expr = _expr

    @staticmethod
    def placeholder(shape: Sequence[Any], dtype: str, name: str = "tensor") -> Tensor:
        """A free tensor of this shape: what `nn.extern(..., out=...)` fills."""
        dims = tuple(tx.Var(d, "int64") if isinstance(d, str) else d for d in shape)
        return Tensor(_expr=rx.Var(name, si.tensor_sinfo(dims, dtype)))

    @staticmethod
    def from_const(data: Any) -> Tensor:
        from ...ir.ops.base import const

        array = np.asarray(data)
        # as TVM: numpy's default float64 / int64 arrays become float32 / int32
        if array.dtype in (np.float64, np.int64):
            array = array.astype("float32" if array.dtype == np.float64 else "int32")
        return Tensor(_expr=const(array))

    @staticmethod
    def from_scalar(value: int | float, dtype: str) -> Tensor:
        from ...ir.ops.base import scalar_const

        return Tensor(_expr=scalar_const(value, dtype))

    @property
    def _sinfo(self) -> si.TensorStructInfo:
        return self._expr.struct_info  # type: ignore[return-value]

    @property
    def shape(self) -> list[Any]:
        if self._sinfo.shape is None:
            raise ValueError(f"the shape of {self!r} is not known")
        return [_dim_value(d) for d in self._sinfo.shape]

    @property
    def ndim(self) -> int:
        return self._sinfo.ndim

    @property
    def dtype(self) -> str:
        return self._sinfo.dtype

    def __repr__(self) -> str:
        return f'Tensor({self.shape}, "{self.dtype}")'

    # NOTE: the operators live in op.py, which imports this module; import at call time.
    def __add__(self, other: Any) -> Tensor:
        from .op import add
        return add(self, other)

    def __radd__(self, other: Any) -> Tensor:
        from .op import add
        return add(self, other)

    def __sub__(self, other: Any) -> Tensor:
        from .op import subtract
        return subtract(self, other)

    def __rsub__(self, other: Any) -> Tensor:
        from .op import subtract
        return subtract(other, self)

    def __mul__(self, other: Any) -> Tensor:
        from .op import multiply
        return multiply(self, other)

    def __rmul__(self, other: Any) -> Tensor:
        from .op import multiply
        return multiply(self, other)

    def __truediv__(self, other: Any) -> Tensor:
        from .op import divide
        return divide(self, other)

    def __lt__(self, other: Any) -> Tensor:
        from .op import less
        return less(self, other)

    def __le__(self, other: Any) -> Tensor:
        from .op import less_equal
        return less_equal(self, other)

    def __gt__(self, other: Any) -> Tensor:
        from .op import greater
        return greater(self, other)

    def __ge__(self, other: Any) -> Tensor:
        from .op import greater_equal
        return greater_equal(self, other)

    def astype(self, dtype: str) -> Tensor:
        from .op import astype
        return astype(self, dtype)

    def maximum(self, other: Any) -> Tensor:
        from .op import maximum
        return maximum(self, other)

    def minimum(self, other: Any) -> Tensor:
        from .op import minimum
        return minimum(self, other)

    def reshape(self, *shape: Any) -> Tensor:
        from .op import reshape
        return reshape(self, shape)

    def repeat(self, repeats: int, axis: int | None = None) -> Tensor:
        from .op import repeat
        return repeat(self, repeats, axis)

    def permute_dims(self, *axes: int) -> Tensor:
        from .op import permute_dims
        return permute_dims(self, list(axes) if axes else None)


class Parameter(Tensor):
    """A weight of the model: a function parameter of every exported method.

    `shape` may name symbolic dims as strings. `data` (numpy, NDArray or any DLPack tensor)
    is optional: export_tvm never embeds it, the caller passes weights to the VM.
    """

    def __init__(self, shape: Sequence[int | str | tx.PrimExpr], dtype: str | None = None
                 ) -> None:
        for d in shape:
            if isinstance(d, bool) or not isinstance(d, (int, str, tx.PrimExpr)):
                raise TypeError(f"Parameter dims are ints, names (str) or shape expressions, "
                                f"got {d!r} in {tuple(shape)}")
        self._shape = tuple(shape)
        self._dtype = dtype or get_default_dtype()
        self._data: Any = None
        self._expr = None  # type: ignore[assignment]  # the function parameter, while exporting

    @property
    def shape(self) -> list[Any]:
        if self._expr is not None:  # while exporting, symbolic dims are the function's vars
            return super().shape
        return list(self._shape)

    @property
    def ndim(self) -> int:
        return len(self._shape)

    @property
    def dtype(self) -> str:
        return self._dtype

    @property
    def data(self) -> Any:
        """The bound value (a tvmlite NDArray), or None."""
        return self._data

    @data.setter
    def data(self, value: Any) -> None:
        from ...vm.ndarray import NDArray, array, from_dlpack

        if value is None:
            self._data = None
            return
        if isinstance(value, np.ndarray):
            value = array(value)
        elif not isinstance(value, NDArray):
            if not hasattr(value, "__dlpack__"):
                raise TypeError(f"Parameter data must be a numpy array, an NDArray or a DLPack "
                                f"tensor, got {type(value).__name__}")
            value = from_dlpack(value)
        if tuple(value.shape) != tuple(self._shape):
            raise ValueError(f"Parameter data has shape {tuple(value.shape)}, expected "
                             f"{tuple(self._shape)}")
        if value.dtype != self._dtype:
            raise ValueError(f"Parameter data has dtype {value.dtype}, expected {self._dtype}")
        self._data = value

    def to(self, dtype: str | None = None) -> None:
        if dtype is None or dtype == self._dtype:
            return
        if self._data is not None:  # as TVM: converting bound weights silently loses precision
            raise ValueError(f"cannot change the dtype of a Parameter bound to data "
                             f"({self._dtype} -> {dtype}); set .data = None first")
        self._dtype = dtype


class Effect:
    """A side effect threaded through exported functions as hidden state (TVM's base class;
    `export_tvm(debug=True)` threads the `_io` effect). Subclasses implement these four."""

    def emit_init(self, name_hint: str, builder: Any) -> list[Any]:
        raise NotImplementedError(f"{type(self).__name__}.emit_init")

    def create(self, name_hint: str) -> list[Any]:
        raise NotImplementedError(f"{type(self).__name__}.create")

    def set_state(self, state_vars: list[Any]) -> None:
        raise NotImplementedError(f"{type(self).__name__}.set_state")

    def finalize(self) -> list[Any]:
        raise NotImplementedError(f"{type(self).__name__}.finalize")

    def to(self, dtype: str | None = None) -> None:
        """Effects hold no weights: changing the dtype changes nothing."""


class Module:
    """Base of models and layers: attributes that are Parameters or Modules are its parts."""

    def _items(self) -> Iterator[tuple[str, Any]]:
        """(name, value) of the attributes to search for parameters; containers override."""
        return iter(list(vars(self).items()))

    def _set_item(self, key: str, value: Any) -> None:
        """Replace the part `_items` names `key` (nn.Mutator's write-back)."""
        setattr(self, key, value)

    def named_parameters(self, prefix: str = "") -> Iterator[tuple[str, Parameter]]:
        """("fc1.weight", Parameter) pairs in attribute definition order."""
        for name, item in self._items():
            if isinstance(item, Parameter):
                yield prefix + name, item
            elif isinstance(item, Module):
                yield from item.named_parameters(prefix + name + ".")

    def named_modules(self, prefix: str = "") -> Iterator[tuple[str, Module]]:
        """("", self), then ("fc1", Linear), ... depth first."""
        yield prefix, self
        for name, item in self._items():
            if isinstance(item, Module):
                yield from item.named_modules(f"{prefix}.{name}" if prefix else name)

    def parameters(self) -> Iterator[Parameter]:
        for _, param in self.named_parameters():
            yield param

    def state_dict(self, prefix: str = "") -> OrderedDict[str, Parameter]:
        return OrderedDict(self.named_parameters(prefix))

    def load_state_dict(self, state_dict: dict[str, Any], strict: bool = True
                        ) -> tuple[list[str], list[str]]:
        """Bind each Parameter's data from `state_dict` (values: arrays or Parameters)."""
        own = self.state_dict()
        unexpected = [k for k in state_dict if k not in own]
        missing = [k for k in own if k not in state_dict]
        if strict and (missing or unexpected):
            raise KeyError(f"load_state_dict: missing keys {missing}, unexpected keys "
                           f"{unexpected}")
        for key, value in state_dict.items():
            if key in own:
                own[key].data = value.data if isinstance(value, Parameter) else value
        return missing, unexpected

    def to(self, dtype: str | None = None) -> Module:
        """Change the dtype of every parameter (that is not bound to data)."""
        for _, item in self._items():
            if isinstance(item, (Parameter, Module, Effect)):
                item.to(dtype)
        if dtype is not None and isinstance(getattr(self, "dtype", None), str):
            self.dtype = dtype
        return self

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        forward = getattr(self, "forward", None)
        if forward is None:
            raise NotImplementedError(f"{type(self).__name__} has no forward method")
        from .subroutine import call_subroutine, wants_subroutine

        if wants_subroutine(self, args, kwargs):
            return call_subroutine(self, forward, args)
        return forward(*args, **kwargs)

    def export_tvm(self, spec: dict[str, Any], debug: bool = False,
                   allow_extern: bool = False) -> Any:
        """Trace the methods `spec` names into an IRModule.

        Returns `(mod, [(name, Parameter), ...])`; each function takes its inputs first, then
        every parameter in that order (`R.func_attr({"num_input": k})`). With `debug=True`, as
        in TVM, each also takes the effect state `_io` after its inputs and returns
        `(result, (_io,))`, and `_initialize_effect()` makes the first state.
        """
        from .exporter import export

        mod, params = export(self, spec, debug)
        return (mod, params, []) if allow_extern else (mod, params)

    def jit(self, spec: dict[str, Any], device: str = "cpu", pipeline: Any = "default_build",
            out_format: str = "torch", debug: bool = False) -> Any:
        """Export, build and load the `spec`'s methods: `m.jit(spec)["forward"](torch_x)`
        (frontend/nn/jit.py). Parameters must have data."""
        from .jit import jit

        return jit(self, spec, device, pipeline, out_format, debug)


class ModuleList(Module):
    """A list of modules; parameters are named by index: `layers.0.weight`."""

    def __init__(self, modules: Sequence[Module] = ()) -> None:
        self.modules = list(modules)

    def _items(self) -> Iterator[tuple[str, Any]]:
        return ((str(i), m) for i, m in enumerate(list(self.modules)))

    def _set_item(self, key: str, value: Any) -> None:
        self.modules[int(key)] = value

    def __iter__(self) -> Iterator[Module]:
        return iter(self.modules)

    def __getitem__(self, idx: int) -> Module:
        return self.modules[idx]

    def __setitem__(self, idx: int, module: Module) -> None:
        self.modules[idx] = module

    def __len__(self) -> int:
        return len(self.modules)

    def append(self, module: Module) -> None:
        self.modules.append(module)

    def forward(self, x: Any) -> Any:
        """Apply the modules in turn (as TVM's ModuleList does)."""
        for module in self.modules:
            x = module(x)
        return x


class ModuleDict(Module):
    """A dict of modules; parameters are named by key: `blocks.attn.weight`."""

    def __init__(self, modules: dict[str, Module] | None = None) -> None:
        self.modules: dict[str, Module] = dict(modules or {})

    def _items(self) -> Iterator[tuple[str, Any]]:
        return iter(list(self.modules.items()))

    def _set_item(self, key: str, value: Any) -> None:
        self.modules[key] = value

    def __iter__(self) -> Iterator[str]:
        return iter(self.modules)

    def __getitem__(self, key: str) -> Module:
        return self.modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.modules[key] = module

    def __len__(self) -> int:
        return len(self.modules)

    def __contains__(self, key: object) -> bool:
        return key in self.modules

    def keys(self) -> Iterator[str]:
        return iter(self.modules.keys())

    def values(self) -> Iterator[Module]:
        return iter(self.modules.values())

    def items(self) -> Iterator[tuple[str, Module]]:
        return iter(self.modules.items())
