# ruff: noqa: F841 (TVMScript bodies name what they define)
"""`T.alloc_buffer` outside every block, as TVM 0.27 parses it: a flat AllocBuffer statement
where it is written when the function has no blocks (printed as apache-tvm 0.27 prints it), a
buffer of the root block when it has."""

import numpy as np
import tvmlite as tvm
from tvmlite import tir
from tvmlite.ir.structural import assert_structural_equal, structural_equal
from tvmlite.script import from_source
from tvmlite.script import tir as T


@T.prim_func
def no_blocks(A: T.Buffer((4,), "float32")):
    for i in range(4):
        B = T.alloc_buffer((2,))
        B[0] = A[i] * T.float32(2)
        A[i] = B[0] + T.float32(1)


def test_an_alloc_outside_blocks_is_a_flat_statement_where_it_is_written():
    loop = no_blocks.body
    assert isinstance(loop, tir.For)
    first, *rest = loop.body.seq
    assert isinstance(first, tir.AllocBuffer) and first.buffer.name == "B"
    assert len(rest) == 2


def test_it_prints_as_tvm_0_27_and_reads_back():
    text = no_blocks.script()
    assert "    for i in range(4):\n        B = T.alloc_buffer((2,))\n" in text
    assert_structural_equal(from_source(text), no_blocks)


def test_it_compiles_to_the_same_values():
    lib = tvm.build(no_blocks)
    a = tvm.nd.array(np.arange(4, dtype="float32"))
    lib(a)
    np.testing.assert_allclose(a.numpy(), np.arange(4) * 2 + 1)


def test_a_lone_alloc_is_the_whole_body():
    @T.prim_func
    def only():
        a = T.alloc_buffer((128, 128), dtype="float32")

    assert isinstance(only.body, tir.AllocBuffer)


def test_with_blocks_the_root_block_takes_the_buffer():
    @T.prim_func
    def blocks(A: T.Buffer((4,), "float32")):
        B = T.alloc_buffer((4,))
        for i in range(4):
            with T.sblock("b"):
                vi = T.axis.remap("S", [i])
                B[vi] = A[vi]

    root = blocks.body.block
    assert root.name == "root" and [b.name for b in root.alloc_buffers] == ["B"]
    assert isinstance(root.body, tir.For)  # no AllocBuffer left in the body


def test_tvm_arrays_compare_as_lists_or_tuples():
    buf = tir.decl_buffer((4,), "int32", name="A")
    load = tir.BufferLoad(buf, [0])
    assert load.indices == (tir.IntImm("int32", 0),)
    same = tir.BufferLoad(buf, (tir.IntImm("int32", 0),))
    assert structural_equal(tir.Evaluate(load), tir.Evaluate(same))
    assert structural_equal([tir.IntImm("int32", 1)], (tir.IntImm("int32", 1),))


def test_sblock_alloc_buffer_always_belongs_to_the_root_block():
    @T.prim_func
    def f(A: T.Buffer((4,), "int8")):
        a = T.sblock_alloc_buffer((10, 10), dtype="int8")
        b = T.alloc_buffer((2,), dtype="int8")
        A[0] = a[0, 0] + b[1]

    root = f.body.block
    assert root.name == "root" and [x.name for x in root.alloc_buffers] == ["a"]
    assert isinstance(root.body.seq[0], tir.AllocBuffer) and root.body.seq[0].buffer.name == "b"
    text = f.script()
    assert '    a = T.sblock_alloc_buffer((10, 10), "int8")\n' in text
    assert '    b = T.alloc_buffer((2,), "int8")\n' in text
    assert_structural_equal(from_source(text), f)
