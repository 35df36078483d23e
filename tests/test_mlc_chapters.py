# ruff: noqa: F722, F821 - TVMScript annotations are read by the parser, not by Python
"""Flows of later MLC course chapters, written as the course writes them."""

from __future__ import annotations

import numpy as np

import tvmlite as tvm
from tvmlite import relax, te
from tvmlite.script import tir as T


@tvm.script.ir_module
class MyModule:
    @T.prim_func
    def mm_relu(A: T.Buffer[(64, 64), "float32"], B: T.Buffer[(64, 64), "float32"],
                C: T.Buffer[(64, 64), "float32"]):
        T.func_attr({"global_symbol": "mm_relu", "tir.noalias": True})
        Y = T.alloc_buffer((64, 64), dtype="float32")
        for i, j, k in T.grid(64, 64, 64):
            with T.block("Y"):
                vi = T.axis.spatial(64, i)
                vj = T.axis.spatial(64, j)
                vk = T.axis.reduce(64, k)
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]
        for i, j in T.grid(64, 64):
            with T.block("C"):
                vi = T.axis.spatial(64, i)
                vj = T.axis.spatial(64, j)
                C[vi, vj] = T.max(Y[vi, vj], T.float32(0))


def test_chapter_2_schedule_build_and_time():
    sch = tvm.tir.Schedule(MyModule)
    block_y = sch.get_block("Y", func_name="mm_relu")
    i, j, k = sch.get_loops(block_y)
    j0, j1 = sch.split(j, factors=[None, 4])
    sch.reorder(j0, k, j1)
    sch.reverse_compute_at(sch.get_block("C", "mm_relu"), j0)
    sch.decompose_reduction(block_y, k)
    assert 'T.sblock("Y_init")' in sch.mod.script()
    a, b = np.random.default_rng(0).random((2, 64, 64), dtype=np.float32)
    a_nd, b_nd, c_nd = tvm.nd.array(a), tvm.nd.array(b), tvm.nd.empty((64, 64), "float32")
    rt_lib = tvm.build(sch.mod, target="llvm")
    rt_lib["mm_relu"](a_nd, b_nd, c_nd)
    np.testing.assert_allclose(c_nd.numpy(), np.maximum(a @ b, 0), rtol=1e-5)
    timer = rt_lib.time_evaluator("mm_relu", tvm.cpu(), number=3)
    assert timer(a_nd, b_nd, c_nd).mean > 0
    assert "sch.reorder(" in str(sch.trace)


def te_matmul(A: te.Tensor, B: te.Tensor) -> te.Tensor:
    k = te.reduce_axis((0, A.shape[1]), name="k")
    return te.compute((A.shape[0], B.shape[1]), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k),
                      name="matmul")


def te_relu(A: te.Tensor) -> te.Tensor:
    return te.compute(A.shape, lambda *i: te.max(A(*i), 0), name="relu")


def test_chapter_5_block_builder_with_emit_te():
    A = relax.Var("A", relax.TensorStructInfo((32, 32), "float32"))
    B = relax.Var("B", relax.TensorStructInfo((32, 32), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main"):
        with bb.dataflow():
            C = bb.emit_te(te_matmul, A, B)
            D = bb.emit_te(te_relu, C)
            R = bb.emit_output(D)
        bb.emit_func_output(R, params=[A, B])
    mod = bb.get()
    text = mod.script()
    assert "@R.function\n    def main(" in text and text.count('T.sblock("root")') == 2
    assert '# with T.sblock("root")' not in text
    vm = relax.VirtualMachine(relax.build(mod, target="llvm"), tvm.cpu())
    a, b = np.random.default_rng(1).random((2, 32, 32), dtype=np.float32)
    np.testing.assert_allclose(vm["main"](tvm.nd.array(a), tvm.nd.array(b)).numpy(),
                               np.maximum(a @ b, 0), rtol=1e-5)
