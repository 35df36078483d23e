"""R.memory.view's struct info and bounds checks. Each case is one apache-tvm 0.27 decides the
same way (its test_op_view.py passes there): a view reaching past its source is refused when
the parser can tell; one whose size depends on run-time values is accepted."""

from __future__ import annotations

import pytest

from tvmlite import relax, tir
from tvmlite.ir.ops.base import OpError
from tvmlite.script import relax as R


def view_of(sinfo, **kw):
    return R.memory.view(relax.Var("A", sinfo), **kw).struct_info


def test_view_reaching_past_the_source_is_refused():
    with pytest.raises(OpError, match="larger than its source"):
        view_of(R.Tensor([16]), shape=R.shape([17]))
    with pytest.raises(OpError, match="larger than its source"):
        view_of(R.Tensor([16], "uint8"), dtype=R.dtype("float16"))  # 32 bytes of 16
    with pytest.raises(OpError, match="larger than its source"):
        view_of(R.Tensor([8], "float16"), shape=R.shape([32]), dtype=R.dtype("uint8"))
    n = tir.Var("N", "int64")
    with pytest.raises(OpError, match="larger than its source"):
        view_of(R.Tensor([n]), shape=R.shape([n + 1]))


def test_offset_without_a_new_shape_or_dtype_is_refused():
    with pytest.raises(OpError, match="relative_byte_offset of 16"):
        view_of(R.Tensor(), relative_byte_offset=16)


def test_void_dtype_is_refused():
    with pytest.raises(OpError, match="void"):
        view_of(R.Tensor("float32"), dtype=R.dtype("void"))


def test_views_that_fit_infer_shape_and_dtype():
    s = view_of(R.Tensor([16], "uint8"), shape=R.shape([8]), dtype=R.dtype("float16"))
    assert [int(d) for d in s.shape] == [8] and s.dtype == "float16"
    s = view_of(R.Tensor([4096], "uint8"), shape=R.shape([16, 64]), dtype=R.dtype("float16"),
                relative_byte_offset=R.prim_value(2048))
    assert [int(d) for d in s.shape] == [16, 64]
    n = tir.Var("N", "int64")  # fits when N % 4 == 0: left to the run-time check
    s = view_of(R.Tensor([n]), shape=R.shape([(n + 3) // 4, 4]))
    assert s.ndim == 2


def test_dtype_held_in_a_variable_is_unknown():
    s = view_of(R.Tensor("float32"), dtype=relax.Var("dtype", R.Object()))
    assert s.dtype == ""


def test_lower_runtime_builtin_spells_out_the_view_and_runs():
    """As apache-tvm's LowerRuntimeBuiltin: `runtime.TVMTensorCreateView(A, shape, dtype,
    offset)` with the source's dtype and offset 0 filled in; run, it is numpy's view."""
    import numpy as np

    import tvmlite as tvm
    from tvmlite.script import ir as I

    @I.ir_module
    class Before:
        @R.function
        def main(A: R.Tensor([16], "float32")):
            B = R.memory.view(A, shape=R.shape([4, 2]), relative_byte_offset=R.prim_value(32))
            return B

    after = relax.transform.LowerRuntimeBuiltin()(Before)
    call = after["main"].body.blocks[0].bindings[-1].value
    assert call.op.global_symbol == "runtime.TVMTensorCreateView"
    assert call.op.struct_info.derive_func == "tvm.relax.type.infer_view_ty"
    assert call.args[2].value == "float32" and int(call.args[3].value) == 32
    assert [int(d) for d in call.struct_info.shape] == [4, 2]
    a = np.arange(16, dtype="float32")
    vm = relax.VirtualMachine(relax.build(after, "llvm"), tvm.cpu())
    np.testing.assert_array_equal(vm["main"](tvm.nd.array(a)).numpy(), a[8:].reshape(4, 2))


def test_dtype_bound_to_a_variable_is_looked_through_by_the_parser():
    @R.function(private=True)
    def func(A: R.Tensor([4], "uint32")):
        dtype = R.dtype("float8")  # TVM's plain 8-bit float, a quarter of uint32's bytes
        B = R.memory.view(A, dtype=dtype)
        return B

    sinfo = func.body.blocks[0].bindings[1].var.struct_info
    assert sinfo.dtype == "float8" and [int(d) for d in sinfo.shape] == [4]


def test_dtype_bound_to_a_variable_is_looked_through_by_the_block_builder():
    bb = relax.BlockBuilder()
    a = relax.Var("A", R.Tensor([8], "float32"))
    with bb.function("main", [a]):
        dtype = bb.emit(R.dtype("int32"))
        view = bb.emit(R.memory.view(a, dtype=dtype))
        bb.emit_func_output(view)
    assert view.struct_info.dtype == "int32"
    unknown = R.memory.view(a, dtype=relax.Var("d", relax.ObjectStructInfo()))
    assert unknown.struct_info.dtype == ""  # a free variable: not known
