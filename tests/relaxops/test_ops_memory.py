"""R.memory.*, R.vm.* and R.builtin.alloc_tensor: modules written as TVM prints them after
memory planning and VM lowering parse, print back, infer struct info, and run on the VM."""

from __future__ import annotations

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax
from tvmlite.ir import assert_structural_equal
from tvmlite.ir.ops.base import OpError
from tvmlite.ir.struct_info import ObjectStructInfo, TensorStructInfo, TupleStructInfo
from tvmlite.script import from_source

# as TVM 0.27 prints a two-op module after StaticPlanBlockMemory (R.memory.*) ...
_PLANNED = '''
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def add(a: T.Buffer((T.int64(2), T.int64(3)), "float32"),
            b: T.Buffer((T.int64(2), T.int64(3)), "float32"),
            c: T.Buffer((T.int64(2), T.int64(3)), "float32")):
        for i, j in T.grid(T.int64(2), T.int64(3)):
            with T.block("c"):
                vi, vj = T.axis.remap("SS", [i, j])
                c[vi, vj] = a[vi, vj] + b[vi, vj]

    @T.prim_func(private=True)
    def multiply(a: T.Buffer((T.int64(2), T.int64(3)), "float32"),
                 b: T.Buffer((T.int64(2), T.int64(3)), "float32"),
                 c: T.Buffer((T.int64(2), T.int64(3)), "float32")):
        for i, j in T.grid(T.int64(2), T.int64(3)):
            with T.block("c"):
                vi, vj = T.axis.remap("SS", [i, j])
                c[vi, vj] = a[vi, vj] * b[vi, vj]

    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32"), y: R.Tensor((2, 3), dtype="float32")
             ) -> R.Tensor((2, 3), dtype="float32"):
        R.func_attr({"relax.force_pure": True})
        cls = Module
        storage: R.Any = R.memory.alloc_storage(R.shape([24]), 0, R.str("global"),
                                                R.dtype("float32"))
        alloc: R.Tensor((2, 3), dtype="float32") = R.memory.alloc_tensor(
            storage, 0, R.shape([2, 3]), R.dtype("float32"), 0)
        cls.add(x, y, alloc)
        a: R.Tensor((2, 3), dtype="float32") = alloc
        alloc1: R.Tensor((2, 3), dtype="float32") = R.builtin.alloc_tensor(
            R.shape([2, 3]), R.dtype("float32"), 0, R.str("global"),
            ty_args=(R.Tensor((2, 3), dtype="float32"),))
        cls.multiply(a, y, alloc1)
        R.memory.kill_tensor(alloc)
        R.memory.kill_storage(storage)
        return alloc1
'''

# ... and after LowerAllocTensor + LowerRuntimeBuiltin (R.vm.*), two tensors in one storage
_LOWERED_MAIN = '''
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32"), y: R.Tensor((2, 3), dtype="float32")
             ) -> R.Tensor((2, 3), dtype="float32"):
        R.func_attr({"relax.force_pure": True})
        cls = Module
        storage: R.Any = R.vm.alloc_storage(R.shape([48]), 0, R.dtype("uint8"), R.str("global"))
        alloc: R.Tensor((2, 3), dtype="float32") = R.vm.alloc_tensor(
            storage, 0, R.shape([2, 3]), R.dtype("float32"), 0)
        cls.add(x, y, alloc)
        alloc1: R.Tensor((2, 3), dtype="float32") = R.vm.alloc_tensor(
            storage, 24, R.shape([2, 3]), R.dtype("float32"), 0)
        R.vm.call_tir_dyn(cls.multiply, (alloc, y, alloc1))
        return alloc1
'''


def _run(mod: object, *args: np.ndarray) -> np.ndarray:
    ex = relax.build(mod, "llvm")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    return vm["main"](*(tvm.nd.array(a) for a in args)).numpy()


def _inputs() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    return rng.standard_normal((2, 3)).astype("float32"), \
        rng.standard_normal((2, 3)).astype("float32")


def test_planned_module_parses_prints_and_runs() -> None:
    mod = from_source(_PLANNED)
    sinfos = {b.var.name_hint: b.var.struct_info for b in mod["main"].body.blocks[0].bindings}
    assert sinfos["storage"] == ObjectStructInfo()
    assert isinstance(sinfos["alloc1"], TensorStructInfo) and sinfos["alloc1"].dtype == "float32"
    text = mod.script()
    assert 'R.memory.alloc_storage(R.shape([24])' in text and 'R.dtype("float32")' in text
    assert_structural_equal(from_source(text), mod)
    x, y = _inputs()
    np.testing.assert_allclose(_run(mod, x, y), (x + y) * y, rtol=1e-6)


def test_vm_lowered_module_shares_one_storage() -> None:
    head = _PLANNED.split("    @R.function")[0]
    mod = from_source(head + _LOWERED_MAIN)
    text = mod.script()
    assert "R.vm.call_tir_dyn(" in text and "R.vm.alloc_tensor(" in text
    assert_structural_equal(from_source(text), mod)
    x, y = _inputs()
    np.testing.assert_allclose(_run(mod, x, y), (x + y) * y, rtol=1e-6)


_VIEW = '''
from tvm.script import relax as R

@R.function
def main(x: R.Tensor((2, 4), dtype="float32")):
    R.func_attr({"relax.force_pure": True})
    v = R.memory.view(x, R.shape([4, 2]))
    tail = R.memory.view(x, R.shape([4]), R.dtype("float32"), R.prim_value(16))
    bits = R.memory.view(x, R.shape([2, 4]), R.dtype("int32"))
    z = R.memory.ensure_zero_offset(tail)
    return (v, z, bits)
'''


def test_view_reinterprets_bytes_without_copy() -> None:
    func = from_source(_VIEW)
    assert func.ret_struct_info.fields[2].dtype == "int32"  # type: ignore[union-attr]
    mod = tvm.IRModule({"main": func})
    x = np.arange(8, dtype="float32").reshape(2, 4) - 2.5
    v, tail, bits = (t.numpy() for t in relax.VirtualMachine(
        relax.build(mod, "llvm"), tvm.cpu())["main"](tvm.nd.array(x)))
    np.testing.assert_array_equal(v, x.reshape(4, 2))
    np.testing.assert_array_equal(tail, x.reshape(-1)[4:])
    np.testing.assert_array_equal(bits, x.view("int32"))


def test_builders_infer_struct_info() -> None:
    op = relax.op
    storage = relax.Var("s", ObjectStructInfo())
    assert op.memory.alloc_storage((64,), 0, "global", "uint8").struct_info == ObjectStructInfo()
    t = op.vm.alloc_tensor(storage, 0, (4, 4), "float16")
    assert t.struct_info.dtype == "float16" and t.struct_info.ndim == 2
    assert op.memory.kill_storage(storage).struct_info == TupleStructInfo(())
    assert op.builtin.alloc_tensor((3,), "int8", 0).struct_info.dtype == "int8"


def test_bad_arguments_name_what_is_wrong() -> None:
    storage = relax.Var("s", ObjectStructInfo())
    with pytest.raises(OpError, match="R.memory.alloc_tensor: the shape"):
        relax.op.memory.alloc_tensor(storage, 0, relax.const(np.zeros(2, "int64")), "float32")
    bad = _PLANNED.replace('R.shape([2, 3]), R.dtype("float32"), 0)',
                           'R.shape([2, 3]), R.dtype("float32"), 0)', 1).replace(
        "R.memory.alloc_storage(R.shape([24])", "R.memory.alloc_storage(R.shape([16])")
    mod = from_source(bad)
    with pytest.raises(ValueError, match="24 bytes at offset 0 do not fit in 16 bytes"):
        _run(mod, *_inputs())
