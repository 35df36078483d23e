"""The VM builtins of docs/internals.md section 3 (all "packed" function-table entries).

Check builtins raise `ValueError` naming the parameter, what was expected and what was given.
`make_builtins(device)` binds the ones that allocate to the VM's device.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .device import Device
from .errors import (
    ArgumentDtypeError, ArgumentRankError, ArgumentShapeError, ArgumentTypeError,
)
from .registry import register_func
from .ndarray import NDArray, as_ndarray, data_ptr, empty_array
from .storage import STORAGE_BUILTIN_NAMES, make_storage_builtins

Builtin = Callable[..., Any]


def _tensor(t: Any, param: str) -> NDArray:
    if type(t) is NDArray:
        return t
    if isinstance(t, np.ndarray):
        return as_ndarray(t)
    raise ArgumentTypeError(f"{_subject(param)}: expected a tensor, got {type(t).__name__}")


def _subject(param: str) -> str:
    """What a check names: a parameter, or a match_cast inside the function (lower_to_vm
    passes those as "match_cast <var>")."""
    if not param:
        return "value"
    return param if param.startswith("match_cast ") else f"parameter {param!r}"


def check_tensor_info(t: Any, ndim: int, *rest: Any) -> None:
    """`(t, ndim, dtype, param)`, or TVM's `(t, ndim, err_ctx)` with any dtype."""
    dtype, param = rest if len(rest) == 2 else (None, rest[0])
    dtype = "" if dtype in (None, "void") else str(dtype)
    x = _tensor(t, param)
    if ndim >= 0 and len(x.shape) != ndim:
        raise ArgumentRankError(f"{_subject(param)}: expected a rank-{ndim} tensor, got rank "
                                f"{len(x.shape)} (shape {x.shape}: ndim {len(x.shape)} != "
                                f"{ndim})")
    if dtype and x.dtype != dtype:
        raise ArgumentDtypeError(f"{_subject(param)}: expected dtype {dtype}, got {x.dtype}")


def check_shape_info(s: Any, ndim: int, param: str) -> None:
    """A shape parameter (`R.Shape(["k"])`, nn.spec.Int): a tuple of `ndim` ints."""
    if not isinstance(s, (tuple, list)) or not all(isinstance(d, (int, np.integer))
                                                   and not isinstance(d, bool) for d in s):
        raise ArgumentTypeError(f"{_subject(param)}: expected a shape (a tuple of {ndim} "
                                f"int{'s' if ndim != 1 else ''}, e.g. "
                                f"tvm.runtime.ShapeTuple([...])), got {s!r}")
    if ndim >= 0 and len(s) != ndim:
        raise ArgumentRankError(f"{_subject(param)}: expected a shape of {ndim} values, got "
                                f"{len(s)} ({tuple(s)})")


def check_tuple_info(t: Any, size: int, param: str) -> None:
    """A tuple parameter (`R.Tuple(...)`, an nn tuple input): a tuple of `size` values."""
    if not isinstance(t, (tuple, list)):
        raise ArgumentTypeError(f"{_subject(param)}: expected a tuple of {size} values, got "
                                f"{type(t).__name__}")
    if len(t) != size:
        raise ArgumentRankError(f"{_subject(param)}: expected a tuple of {size} values, got "
                                f"{len(t)}")


def check_dim(t: Any, axis: int, expected: int, param: str) -> None:
    got = _tensor(t, param).shape[axis]
    if got != expected:
        raise ArgumentShapeError(f"{_subject(param)}: expected shape[{axis}] == {expected}, "
                                 f"got {got} (shape {t.shape})")


def tensor_dim(t: Any, axis: int) -> int:
    return t.shape[axis]


def check_dim_equal(t: Any, axis: int, value: int, param: str, var: str) -> None:
    got = _tensor(t, param).shape[axis]
    if got != value:
        raise ArgumentShapeError(f"{_subject(param)}: shape[{axis}] is {var}, which is {value} "
                                 f"from an earlier argument, but got {got} (shape {t.shape})")


def make_tuple(*args: Any) -> tuple[Any, ...]:
    return args


def tuple_getitem(t: Any, index: int) -> Any:
    return t[index]


def alloc_on(device: Device) -> Builtin:
    dev = device

    # NOTE: parsing a dtype string, and numpy's `dtype.name`, each cost more than the alloc
    dtypes: dict[str, tuple[np.dtype, str]] = {}

    def alloc_tensor(dtype: str, *dims: int) -> NDArray:
        shape = tuple(int(d) for d in dims)
        if any(d < 0 for d in shape):
            raise ValueError(f"alloc_tensor: negative dimension in shape {shape}")
        dt = dtypes.get(dtype)
        if dt is None:
            dt = dtypes[dtype] = (np.dtype(dtype), np.dtype(dtype).name)
        arr = empty_array(shape, dt[0])
        return NDArray._wrap(arr, (shape, dt[1], dev), data_ptr(arr))

    return alloc_tensor


_RPN_OPS: dict[str, Callable[[int, int], int]] = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "//": lambda a, b: a // b, "%": lambda a, b: a % b, "min": min, "max": max,
    "/": lambda a, b: int(a / b),  # tir.Div on ints truncates
    "==": lambda a, b: int(a == b), "!=": lambda a, b: int(a != b),
    "<": lambda a, b: int(a < b), "<=": lambda a, b: int(a <= b),
    ">": lambda a, b: int(a > b), ">=": lambda a, b: int(a >= b),
    "and": lambda a, b: int(bool(a) and bool(b)), "or": lambda a, b: int(bool(a) or bool(b)),
}
_RPN_CACHE: dict[str, Callable[..., int]] = {}


def compile_shape_program(program: str) -> Callable[..., int]:
    """`"a0 #2 * #1 +"` (postfix: `aK` is argument K, `#N` a literal) as a Python callable.

    NOTE: built once per program text into nested closures, so a call costs a few hundred ns
    and nothing is parsed or `eval`ed at run time."""
    fn = _RPN_CACHE.get(program)
    if fn is not None:
        return fn
    stack: list[Callable[[tuple[int, ...]], int]] = []
    for tok in program.split():
        if tok.startswith("a"):
            k = int(tok[1:])
            stack.append(lambda args, k=k: args[k])
        elif tok.startswith("#"):
            v = int(tok[1:])
            stack.append(lambda args, v=v: v)
        elif tok in _RPN_OPS:
            b, a, f = stack.pop(), stack.pop(), _RPN_OPS[tok]
            stack.append(lambda args, a=a, b=b, f=f: f(a(args), b(args)))
        else:
            raise ValueError(f"shape program {program!r}: unknown token {tok!r}")
    if len(stack) != 1:
        raise ValueError(f"shape program {program!r} does not compute one value")
    top = stack[0]

    def run(*args: int) -> int:
        return top(args)

    _RPN_CACHE[program] = run
    return run


def eval_shape(program: str, *args: int) -> int:
    """`vm.builtin.eval_shape`: a computed dim (`n * 2 + 1`) from the bound dims."""
    return compile_shape_program(program)(*args)


def reshape(t: Any, shape: Any) -> NDArray:
    """`vm.builtin.reshape`: `t`'s elements under another shape, sharing its memory (as in
    TVM; safe because kernels never write their inputs)."""
    x = _tensor(t, "reshape")
    dims = tuple(int(d) for d in shape)
    arr = x._arr.reshape(dims)  # NOTE: a view: the array is C-contiguous
    return NDArray._wrap(arr, (dims, x._sig[1], x._sig[2]), x._ptr)


def copy(value: Any) -> Any:
    """`vm.builtin.copy`: moves a value between registers (the result of an if/else)."""
    return value


def to_device(t: Any, device_type: int, device_id: int) -> NDArray:
    """`vm.builtin.to_device`: a copy of the tensor on device (`device_type`, `device_id`)."""
    from .device import device

    return _tensor(t, "to_device").copyto(device(int(device_type), int(device_id)))


def read_if_cond(value: Any) -> bool:
    """`vm.builtin.read_if_cond`: a bool / int scalar or a 0-d tensor as a branch condition."""
    if type(value) is NDArray or isinstance(value, np.ndarray):
        arr = value.numpy() if type(value) is NDArray else value
        if arr.size != 1:
            raise ValueError(f"an if condition must be a scalar, got a tensor of shape "
                             f"{arr.shape}")
        return bool(arr.reshape(()))
    return bool(value)


def check_shape_value(t: Any, axis: int, value: int, param: str, expr: str) -> None:
    """Like check_dim_equal, for a computed dim (`R.match_cast(x, R.Tensor((n * 2,)))`)."""
    got = _tensor(t, param).shape[axis]
    if got != value:
        raise ValueError(f"{param}: shape[{axis}] must be {expr} = {value}, got {got} "
                         f"(shape {t.shape})")


def null_value(*_: Any) -> None:
    """`vm.builtin.null_value`: clears a register (drops a dead tensor early)."""
    return None


def shape_of(t: Any) -> tuple[int, ...]:
    """`vm.builtin.shape_of`: a tensor's shape as a shape value (`R.shape_of`)."""
    return tuple(int(d) for d in _tensor(t, "R.shape_of input").shape)


def shape_to_tensor(shape: Any) -> NDArray:
    """`vm.builtin.shape_to_tensor`: a shape value as a 1-d int64 tensor."""
    return as_ndarray(np.array([int(d) for d in shape], dtype="int64"))


def tensor_to_shape(t: Any) -> tuple[int, ...]:
    """`vm.builtin.tensor_to_shape`: a 1-d integer tensor as a shape value."""
    data = _tensor(t, "R.tensor_to_shape input").numpy()
    if data.ndim != 1 or data.dtype.kind not in "iu":
        raise ArgumentRankError(f"R.tensor_to_shape: expected a 1-d integer tensor, got shape "
                                f"{data.shape} {data.dtype}")
    return tuple(int(d) for d in data)


_PURE: dict[str, Builtin] = {
    "vm.builtin.shape_of": shape_of,
    "vm.builtin.shape_to_tensor": shape_to_tensor,
    "vm.builtin.tensor_to_shape": tensor_to_shape,
    "vm.builtin.eval_shape": eval_shape,
    "vm.builtin.copy": copy,
    "vm.builtin.to_device": to_device,
    "vm.builtin.reshape": reshape,
    "vm.builtin.read_if_cond": read_if_cond,
    "vm.builtin.check_shape_value": check_shape_value,
    "vm.builtin.null_value": null_value,
    "vm.builtin.check_tensor_info": check_tensor_info,
    "vm.builtin.check_dim": check_dim,
    "vm.builtin.check_shape_info": check_shape_info,
    "vm.builtin.check_tuple_info": check_tuple_info,
    "vm.builtin.tensor_dim": tensor_dim,
    "vm.builtin.check_dim_equal": check_dim_equal,
    "vm.builtin.make_tuple": make_tuple,
    "vm.builtin.tuple_getitem": tuple_getitem,
}


def make_builtins(device: Device) -> dict[str, Builtin]:
    """All builtins, with allocation bound to `device`."""
    if device.device_type != 1:  # issue 7 hook: a CUDA VM allocates CuPy arrays (vm/cuda.py)
        from .cuda import alloc_on as cuda_alloc_on

        alloc = cuda_alloc_on(device)
    else:
        alloc = alloc_on(device)
    return {**_PURE, "vm.builtin.alloc_tensor": alloc, **make_storage_builtins(device, alloc)}


for _name, _f in _PURE.items():  # also found by name, as TVM's global functions
    register_func(_name, _f, override=True)

BUILTIN_NAMES = frozenset(_PURE) | {"vm.builtin.alloc_tensor"} | STORAGE_BUILTIN_NAMES


class VMClosure:
    """A VM function with the values it captured (`R.make_closure`); calling it passes the
    captured values first, as TVM's VMClosure does."""

    __slots__ = ("func", "captured")

    def __init__(self, func: Builtin, captured: tuple[Any, ...]) -> None:
        self.func, self.captured = func, captured

    def __call__(self, *args: Any) -> Any:
        return self.func(*self.captured, *args)

    def __repr__(self) -> str:
        return f"VMClosure({getattr(self.func, '__name__', self.func)!r}, " \
               f"{len(self.captured)} captured)"


def make_closure(func: Builtin, *captured: Any) -> VMClosure:
    """`vm.builtin.make_closure`: `func` with `captured` bound before its arguments."""
    return VMClosure(func, captured)


def invoke_closure(closure: Any, *args: Any) -> Any:
    """`vm.builtin.invoke_closure`: call a closure (or a bare VM function) on `args`."""
    if not callable(closure):
        raise TypeError(f"R.invoke_closure: expected a closure, got {type(closure).__name__}")
    return closure(*args)


_PURE["vm.builtin.make_closure"] = make_closure
_PURE["vm.builtin.invoke_closure"] = invoke_closure
