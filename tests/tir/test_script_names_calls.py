# ruff: noqa: E501 (TVM's printed lines, kept whole)
"""Every intrinsic of the `T` namespace (script/tir_intrin.py) parses, prints as TVM 0.27 prints
it, and reads back to an equal function; GPU-only ones are refused by the CPU backend with an
error that says they need a GPU."""

from __future__ import annotations

import pytest

import tvmlite as tvm
from tvmlite.script import from_source
from tvmlite.script import tir as T
from tvmlite.script.tir_intrin import INTRINSICS, PRINT_NAME

INFIX = {"shift_left": "<<", "shift_right": ">>", "bitwise_and": "&", "bitwise_or": "|",
         "bitwise_xor": "^"}


def call_text(name: str) -> str:
    spec = INTRINSICS[name]
    if name == "reinterpret":  # to its own dtype it is no call at all (test below)
        return 'T.reinterpret("float32", A[0])'
    args = "A[0], A[1]" if name != "bitwise_not" else "A[0]"
    if spec.result == "first":
        return f'T.{name}("int32", {args})'
    if spec.result == "last":
        return f'T.{name}({args}, "int32")'
    return f"T.{name}({args})"


@pytest.mark.parametrize("name", sorted(INTRINSICS))
def test_intrinsic_parses_prints_and_reads_back(name):
    src = (f'@T.prim_func\ndef f(A: T.Buffer((4,), "int32")):\n'
           f"    T.evaluate({call_text(name)})\n")
    func = from_source(src)
    text = func.script()
    tvm.ir.assert_structural_equal(func, from_source(text))
    call = func.body.value
    assert call.op == INTRINSICS[name].op
    printed = PRINT_NAME[call.op]
    if name in INFIX:
        assert f"A[0] {INFIX[name]} A[1]" in text
    elif name == "bitwise_not":
        assert "~A[0]" in text
    else:
        assert f"T.{printed}(" in text


# TVM 0.27's printed forms of the tensor-core and warp intrinsics (from `func.script()`)
TENSOR_CORE = '''@T.prim_func
def f(A: T.Buffer((256,), "float16"), C: T.Buffer((256,), "float32")):
    T.evaluate(T.tvm_fill_fragment(C.data, 16, 16, 16, 0, T.float32(0.0)))
    T.evaluate(T.tvm_load_matrix_sync(A.data, 16, 16, 16, 0, T.tvm_access_ptr(T.type_annotation("float16"), A.data, 0, 256, 1), 16, "row_major"))
    T.evaluate(T.tvm_mma_sync(C.data, 0, A.data, 0, A.data, 0, C.data, 0))
    T.evaluate(T.tvm_bmma_sync(C.data, 0, A.data, 0, A.data, 0, C.data, 0))
    T.evaluate(T.tvm_store_matrix_sync(C.data, 16, 16, 16, 0, T.tvm_access_ptr(T.type_annotation("float32"), C.data, 0, 256, 2), 16, "row_major"))
    T.evaluate(T.tvm_warp_shuffle(T.tvm_warp_activemask(), C[0], 0, 32, 32))
    T.evaluate(T.tvm_warp_shuffle_down(T.tvm_warp_activemask(), C[0], 1, 32, 32))
'''


def test_tensor_core_intrinsics_round_trip_with_tvm_text():
    func = from_source(TENSOR_CORE)
    text = func.script()
    for line in TENSOR_CORE.splitlines()[2:]:
        assert line in text, line
    tvm.ir.assert_structural_equal(func, from_source(text))
    assert func.body.seq[5].value.dtype == "float32"  # a shuffle has its value's dtype
    assert func.body.seq[0].value.dtype == "handle"


@pytest.mark.parametrize("line", [2, 4, 7])
def test_gpu_intrinsics_need_a_gpu_on_the_cpu(line):
    src = "\n".join(TENSOR_CORE.splitlines()[:2] + [TENSOR_CORE.splitlines()[line]]) + "\n"
    func = from_source(src)
    with pytest.raises(NotImplementedError, match="needs a GPU"):
        tvm.build(func, target="llvm")


def test_thread_launch_needs_a_gpu_on_the_cpu():
    src = ('@T.prim_func\ndef f(A: T.Buffer((4,), "float32")):\n'
           '    bx = T.launch_thread("blockIdx.x", 4)\n    A[bx] = T.float32(0)\n')
    with pytest.raises(NotImplementedError, match="needs a GPU"):
        tvm.build(from_source(src), target="llvm")


def test_packed_calls_print_as_tvm_and_keep_their_op():
    src = ('@T.prim_func\ndef f(A: T.Buffer((8,), "float32"), C: T.Buffer((8,), "int32")):\n'
           '    T.evaluate(T.tvm_call_packed("f", A.data, C[0]))\n'
           '    T.evaluate(T.call_cpacked("f", A.data))\n'
           '    x: T.int64 = T.tvm_struct_get(A.data, 0, 1, "int64")\n'
           '    T.evaluate(T.tvm_struct_set(A.data, 0, 1, x))\n'
           '    T.evaluate(T.address_of(A[2]))\n'
           '    T.evaluate(T.call_extern("float32", "expf", A[0]))\n')
    func = from_source(src)
    text = func.script()
    assert 'T.evaluate(T.call_packed("f", A.data, C[0]))' in text
    assert 'x: T.let[T.int64] = T.tvm_struct_get(A.data, 0, 1, "int64")' in text
    assert 'T.evaluate(T.call_extern("float32", "expf", A[0]))' in text
    assert func.body.seq[0].value.op == "tir.tvm_call_packed"
    tvm.ir.assert_structural_equal(func, from_source(text))


def test_older_dtype_keyword():
    src = ('@T.prim_func\ndef f(A: T.Buffer((8,), "float32")):\n'
           '    a: T.let[T.handle] = T.tvm_struct_get(A.data, 0, 1, dtype="handle")\n'
           '    b: T.let[T.bool] = T.call_extern("dummy", dtype="bool")\n'
           '    A[0] = T.exp(A[1], dtype="float32")\n')
    func = from_source(src)
    assert func.body.value.dtype == "handle"
    assert func.body.body.value.dtype == "bool"
    assert 'T.call_extern("bool", "dummy")' in func.script()


def test_llvm_lookup_intrinsic_id_is_the_name():
    assert T.llvm_lookup_intrinsic_id("llvm.sqrt") == "llvm.sqrt"


def test_reinterpret_to_the_same_dtype_is_the_value():
    src = ('@T.prim_func\ndef f(A: T.Buffer((4,), "float32")):\n'
           '    A[0] = T.reinterpret("float32", A[1])\n')
    assert "A[0] = A[1]" in from_source(src).script()


def test_address_of_a_buffer_is_the_address_of_its_first_element():
    src = ('@T.prim_func\ndef f(a: T.handle):\n    A = T.match_buffer(a, (128, 128), "float32")\n'
           '    T.evaluate(T.address_of(A))\n')
    assert "T.evaluate(T.address_of(A[0, 0]))" in from_source(src).script()
