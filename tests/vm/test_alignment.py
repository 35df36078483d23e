"""Tensors that kernels stream through start on a 64-byte boundary (a vector load that
straddles two cache lines slows vectorized kernels by ~20%), whatever numpy's allocator did."""

import numpy as np

import tvmlite as tvm
from tvmlite import relax
from tvmlite.script import ir as I
from tvmlite.script import relax as R
from tvmlite.vm.ndarray import ALIGN, ALIGN_FROM_BYTES, aligned_empty


def test_aligned_empty_for_every_shape_and_dtype() -> None:
    for shape, dtype in [((1000,), "float32"), ((3, 5, 7), "int8"), ((), "float64"),
                         ((0, 4), "float32"), ((129, 33), "int64")]:
        arr = aligned_empty(shape, dtype)
        assert arr.shape == shape and arr.dtype == np.dtype(dtype) and arr.flags.c_contiguous
        assert arr.ctypes.data % ALIGN == 0 or arr.size == 0


def test_nd_array_copies_into_aligned_memory() -> None:
    for offset in range(0, 64, 4):  # a source starting anywhere in a cache line
        raw = np.zeros(4096 + 64, np.uint8)
        src = raw[offset:offset + 4096].view(np.float32)
        src[:] = np.arange(1024, dtype=np.float32)
        a = tvm.nd.array(src)
        assert a._ptr % ALIGN == 0
        np.testing.assert_array_equal(a.numpy(), src)
    assert tvm.nd.array([[1, 2], [3, 4]]).numpy().dtype == np.array([[1, 2]]).dtype
    assert tvm.nd.empty((64, 64), "float32")._ptr % ALIGN == 0


@I.ir_module
class Double:
    @R.function
    def main(x: R.Tensor((64, 64), "float32")):
        with R.dataflow():
            y = R.add(x, x)
            R.output(y)
        return y


def test_vm_outputs_are_aligned() -> None:
    assert 64 * 64 * 4 >= ALIGN_FROM_BYTES
    vm = relax.VirtualMachine(relax.build(Double, "llvm"), tvm.cpu())
    x = tvm.nd.array(np.random.default_rng(0).random((64, 64), "float32"))
    for _ in range(5):
        y = vm["main"](x)
        assert y._ptr % ALIGN == 0
        np.testing.assert_array_equal(y.numpy(), x.numpy() * 2)
