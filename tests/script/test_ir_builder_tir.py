"""`tvm.script.ir_builder`: TIR built with frames as context managers. Expected texts are what
apache-tvm 0.27 prints for the same builder calls."""

import pytest

from tvmlite import tir
from tvmlite.ir.structural import structural_equal
from tvmlite.script.ir_builder import IRBuilder
from tvmlite.script.ir_builder import tirx as T


def test_block_frame_builds_a_block_realize():
    i, j = tir.Var("i", "int32"), tir.Var("k", "int32")
    with IRBuilder() as ib:
        with T.sblock(name="block"):
            vi = ib.name("vi", T.axis.spatial(128, i))
            vk = ib.name("vk", T.axis.reduce(32, j))
            T.reads()
            T.writes()
            T.evaluate(0)
    realize = ib.get()
    assert isinstance(realize, tir.BlockRealize) and list(realize.iter_values) == [i, j]
    assert [iv.var for iv in realize.block.iter_vars] == [vi, vk]
    assert realize.script() == ('i = T.int32()\nk = T.int32()\nwith T.sblock("block"):\n'
                                "    vi = T.axis.spatial(128, i)\n    vk = T.axis.reduce(32, k)\n"
                                "    T.reads()\n    T.writes()\n    T.evaluate(0)")
    assert realize.block.script().startswith(
        'with T.sblock("block", no_realize=True):\n    vi = T.axis.spatial(128)\n')


def test_loop_frames_nest_and_collect_their_statements():
    a = tir.decl_buffer((128, 128), "float16", name="A")
    with IRBuilder() as ib:
        with T.grid(4, 8) as (i, j):
            ib.name_many(["i", "j"], [i, j])
            T.buffer_store(a, a[i, j] + 1, [i, j])
            T.evaluate(1)
    loop = ib.get()
    assert (loop.extent.value, loop.body.extent.value) == (4, 8)
    assert loop.script() == ('A = T.Buffer((128, 128), "float16")\n'
                             "for i, j in T.grid(4, 8):\n"
                             "    A[i, j] = A[i, j] + T.float16(1.0)\n    T.evaluate(1)")


def test_while_attr_if_and_prim_func_frames():
    with IRBuilder() as ib:
        with T.prim_func(s_tir=True):
            x = T.int32()
            with T.While(x < 10):
                with T.attr("pragma", "unroll", 1):
                    T.evaluate(0)
            with T.If(x < 3):
                with T.Then():
                    T.evaluate(1)
                with T.Else():
                    T.evaluate(2)
    f = ib.get()
    assert isinstance(f, tir.PrimFunc) and dict(f.attrs) == {"s_tir": True}
    expected = ('    while v < 10:\n        with T.attr("pragma", "unroll", 1):\n'
                "            T.evaluate(0)\n    if v < 3:\n        T.evaluate(1)\n    else:\n"
                "        T.evaluate(2)")
    assert "@T.prim_func(private=True, s_tir=True)\ndef main():\n    v = T.int32()\n" + \
        expected in f.script()
    with IRBuilder() as ib2:
        with T.serial(10):
            T.evaluate(1)
            T.evaluate(2)
    assert structural_equal(ib2.get().body, tir.SeqStmt((tir.Evaluate(1), tir.Evaluate(2))))


def test_builder_misuse_is_a_clear_error():
    with pytest.raises(RuntimeError, match="no IRBuilder is active"):
        T.evaluate(0)
    with IRBuilder() as ib, pytest.raises(ValueError, match=r"inside a `with T.sblock"):
        T.axis.spatial(4, 0)
    with IRBuilder() as ib, pytest.raises(ValueError, match="empty body"):
        with T.serial(4):
            pass
    with pytest.raises(RuntimeError, match="built nothing"):
        ib.get()


def test_comm_reducer_prints_as_its_lambda():
    r = T.comm_reducer(lambda x, y: x + y, identity=[T.float32(0)])
    assert r.script() == "T.comm_reducer(lambda x, y: x + y, [T.float32(0.0)])"
