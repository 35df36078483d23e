"""`tvm.relax.testing.vm`: the packed functions TVM's VM tests call by name (`test.vm.add`,
...) and `check_saved_func`, which runs a function directly and through `save_function`."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...runtime import tensor
from ...vm.registry import register_func


def _values(x: Any) -> np.ndarray:
    return x.numpy() if hasattr(x, "numpy") else np.asarray(x)


register_func("test.vm.move", lambda src: src, override=True)
register_func("test.vm.add", lambda a, b: tensor(_values(a) + _values(b)), override=True)
register_func("test.vm.mul", lambda a, b: tensor(_values(a) * _values(b)), override=True)
register_func("test.vm.equal_zero", lambda a: tensor(np.array(np.all(_values(a) == 0))),
              override=True)
register_func("test.vm.subtract_one", lambda a: tensor(_values(a) - 1), override=True)
register_func("test.vm.add_scalar", lambda a, b: a + b, override=True)
register_func("test.vm.get_device_id", lambda device: device.index, override=True)
register_func("test.vm.check_if_defined", lambda obj: obj is not None, override=True)


def _identity(a: Any, out: Any) -> None:
    out[:] = _values(a)


def _tile(a: Any, out: Any) -> None:
    out[:] = np.tile(_values(a), (1, 2))


register_func("test.vm.identity", _identity, override=True)
register_func("test.vm.tile", _tile, override=True)


def check_saved_func(vm: Any, func_name: str, *inputs: Any) -> Any:
    """`vm[func_name](*inputs)`, checked against the same call saved with `save_function`."""
    saved = f"{func_name}_saved"
    vm.save_function(func_name, saved, *inputs)
    direct, replayed = vm[func_name](*inputs), vm[saved]()
    np.testing.assert_allclose(direct.numpy(), replayed.numpy(), rtol=1e-7, atol=1e-7)
    return direct
