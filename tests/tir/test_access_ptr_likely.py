"""`Buffer.access_ptr`, `T.likely(..., dtype=)` and `scope=""`: what TVM's schedule tests write."""

import pytest

import tvmlite as tvm
from tvmlite.script import tir as T


def test_access_ptr_builds_tvm_access_ptr_as_tvm_prints_it():
    @T.prim_func
    def f(B: T.Buffer((8, 16), "float32")):
        T.evaluate(B.access_ptr("r", extent=128))
        T.evaluate(B.access_ptr("w"))
        T.evaluate(B.access_ptr("rw", offset=3))

    text = f.script()
    # TVM 0.27 prints these three calls with masks 1, 2, 3 and extents 128, 128, 125
    assert 'T.tvm_access_ptr(T.type_annotation("float32"), B.data, 0, 128, 1)' in text
    assert 'T.tvm_access_ptr(T.type_annotation("float32"), B.data, 0, 128, 2)' in text
    assert 'T.tvm_access_ptr(T.type_annotation("float32"), B.data, 3, 125, 3)' in text
    assert tvm.ir.structural_equal(f, tvm.script.from_source(text))


def test_access_ptr_rejects_a_bad_mask():
    buf = tvm.tir.decl_buffer((4,), "float32", name="A")
    with pytest.raises(ValueError, match="access mask 'x'"):
        buf.access_ptr("x")


def test_likely_accepts_the_dtype_keyword():
    @T.prim_func
    def f(A: T.Buffer((4,), "float32")):
        for i in range(4):
            if T.likely(i < 3, dtype="bool"):
                A[i] = T.float32(1)

    assert "T.likely(i < 3)" in f.script()


def test_alloc_buffer_with_an_empty_scope_is_global():
    @T.prim_func
    def f(A: T.Buffer((4,), "float32")):
        B = T.alloc_buffer((4,), "float32", scope="")
        for i in range(4):
            with T.block("B"):
                vi = T.axis.remap("S", [i])
                B[vi] = A[vi]

    assert f.body.block.alloc_buffers[0].scope == "global"  # as TVM reads scope=""
