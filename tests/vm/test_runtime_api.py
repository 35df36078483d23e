"""NDArray, devices, the registry, KernelLibrary and tvm.build-style kernel modules."""

from __future__ import annotations

import llvmlite.binding as llvm
import numpy as np
import pytest
import vmtools as V

from tvmlite.vm import ndarray as nd
from tvmlite.vm.device import Device, cpu, cuda, device
from tvmlite.vm.kernel_module import ArgumentCountError, KernelModule
from tvmlite.vm.kernels import KernelLibrary, KernelLoadError
from tvmlite.vm.registry import (get_global_func, list_global_func_names, register_func,
                                 remove_global_func)


def test_device() -> None:
    assert cpu() is device("cpu", 0) is device(1) and str(cpu()) == "cpu(0)"
    assert cuda(1) == Device(2, 1) and cpu().exist
    with pytest.raises(ValueError, match="unknown device"):
        device("tpu")


def test_ndarray_api() -> None:
    a = nd.array(np.arange(6, dtype=np.float32).reshape(2, 3), device=cpu())
    assert a.shape == (2, 3) and a.dtype == "float32" and a.device == cpu()
    assert a._ptr == a._arr.ctypes.data and a._sig == ((2, 3), "float32", cpu())
    n = a.numpy()
    n[0, 0] = 99
    assert a.numpy()[0, 0] == 0  # .numpy() is a copy, as in TVM
    e = nd.empty((2, 3), "int64")
    assert e.shape == (2, 3) and e.dtype == "int64"
    b = nd.empty((2, 3), "float32").copyfrom(a)
    np.testing.assert_array_equal(b.numpy(), a.numpy())
    c = a.copyto(cpu())
    assert c._ptr != a._ptr
    a.copyto(b)
    with pytest.raises(ValueError, match="shape"):
        b.copyfrom(np.zeros(4, np.float32))
    assert "shape=(2, 3)" in repr(a)
    src = np.arange(4)[::2]  # non-contiguous input is copied into dense memory
    assert nd.array(src).numpy().tolist() == [0, 2]


def test_dlpack_is_zero_copy_with_numpy() -> None:
    a = nd.array(np.zeros(4, np.float32))
    view = np.from_dlpack(a)
    view[1] = 7.0
    assert a.numpy()[1] == 7.0 and view.ctypes.data == a._ptr
    assert a.__dlpack_device__() == (1, 0)
    back = nd.from_dlpack(view)
    assert back._ptr == a._ptr


def test_dlpack_with_torch() -> None:
    torch = pytest.importorskip("torch")
    a = nd.array(np.zeros(4, np.float32))
    t = torch.from_dlpack(a)
    t[2] = 5.0
    assert a.numpy()[2] == 5.0 and t.data_ptr() == a._ptr


def test_registry() -> None:
    @register_func("test.reg.f")
    def f(x):
        return x + 1

    assert get_global_func("test.reg.f")(1) == 2 and "test.reg.f" in list_global_func_names()
    with pytest.raises(ValueError, match="already registered"):
        register_func("test.reg.f", lambda x: x)
    register_func("test.reg.f", lambda x: x * 10, override=True)
    assert get_global_func("test.reg.f")(2) == 20
    remove_global_func("test.reg.f")
    assert get_global_func("test.reg.f", allow_missing=True) is None
    with pytest.raises(ValueError, match="not registered"):
        get_global_func("test.reg.f")

    @register_func
    def test_reg_bare(x):
        return x

    assert get_global_func("test_reg_bare") is test_reg_bare
    remove_global_func("test_reg_bare")


def test_kernel_library_loads_hand_written_ir() -> None:
    mod = llvm.parse_assembly(V.KERNEL_IR)
    mod.verify()
    lib = KernelLibrary(V.KERNEL_IR, V.SIGNATURES).load()
    assert lib.load() is lib and lib.get_address("add_one") > 0
    a, b = nd.array(np.ones(4, np.float32)), nd.empty((4,), "float32")
    lib.get_function("add_one")(a._ptr, b._ptr)
    assert b.numpy().tolist() == [2.0] * 4
    with pytest.raises(KernelLoadError, match="no kernel"):
        lib.get_function("nope")
    with pytest.raises(KernelLoadError, match="invalid LLVM IR"):
        KernelLibrary("define void @x( {", {}).load()


def test_kernel_module_calls_and_errors() -> None:
    mod = KernelModule(V.library())
    a, b = nd.array(np.arange(4, dtype=np.float32)), nd.empty((4,), "float32")
    mod["add_one"](a, b)
    assert b.numpy().tolist() == [1, 2, 3, 4]
    out = np.zeros(4, np.float32)
    mod["scale"](a.numpy(), out, 3.0)  # numpy arrays and a scalar parameter
    assert out.tolist() == [0, 3, 6, 9]
    x = np.arange(6, dtype=np.float32)
    y = np.zeros(6, np.float32)
    mod["add_one_n"](x, y)  # binds n = 6
    assert y.tolist() == (x + 1).tolist()
    with pytest.raises(ArgumentCountError, match=r"takes 2 arguments \(A, B\), got 1"):
        mod["add_one"](a)
    with pytest.raises(RuntimeError):
        mod["add_one"](a)
    with pytest.raises(ValueError, match=r"'B' expects dtype float32, got float64"):
        mod["add_one"](a, np.zeros(4))
    with pytest.raises(ValueError, match=r"'A' expects shape \(4,\), got \(5,\)"):
        mod["add_one"](np.zeros(5, np.float32), b)
    with pytest.raises(ValueError, match=r"'B' expects rank 1"):
        mod["add_one"](a, np.zeros((4, 1), np.float32))
    with pytest.raises(ValueError, match=r"'B' has n=5.*n=6"):
        mod["add_one_n"](x, np.zeros(5, np.float32))
    with pytest.raises(TypeError, match=r"'A' expects a tensor"):
        mod["add_one"]([1, 2, 3, 4], b)
    with pytest.raises(TypeError, match=r"'s' expects a float32 scalar"):
        mod["scale"](a, b, a)
    with pytest.raises(ValueError, match="C-contiguous"):
        mod["add_one"](np.zeros(8, np.float32)[::2], b)


def test_kernel_module_main_alias_and_timer() -> None:
    sig = {"add_one": V.SIGNATURES["add_one"]}
    mod = KernelModule(KernelLibrary(V.KERNEL_IR, sig))
    a, b = nd.array(np.zeros(4, np.float32)), nd.empty((4,), "float32")
    mod["main"](a, b)
    mod(a, b)
    assert b.numpy().tolist() == [1.0] * 4
    res = mod.time_evaluator("add_one", cpu(), number=10, repeat=3)(a, b)
    assert len(res.results) == 3 and res.mean > 0 and res.median >= min(res.results)
    res = mod.mod.time_evaluator("main", cpu(), number=1, min_repeat_ms=1)(a, b)
    assert res.mean > 0
    with pytest.raises(AttributeError, match="no function"):
        mod["zzz"]
