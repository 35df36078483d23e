"""Block lowering folds `v // c` and `v % c` of a split iter var (`v = o * c + i`, i in
[0, c)) onto the split's loops (tir/split_index.py): a packed layout read through the unsplit
index becomes a plain, contiguous read; anything else stays as written, and stays correct."""

from __future__ import annotations

import numpy as np

import tvmlite as tvm
from tvmlite.script import tir as T
from tvmlite.tir import BinaryOp, BinOp, BufferLoad, Var
from tvmlite.tir.functor import Visitor
from tvmlite.tir.lower import lower_blocks


def unpack_by(divisor: int):
    """C[i, j] = P[j // divisor, i, j % divisor], j split by 8 in the loops."""
    @T.prim_func
    def unpack(P: T.Buffer((32 // divisor, 16, divisor), "float32"),
               C: T.Buffer((16, 32), "float32")):
        for jo, i in T.grid(4, 16):
            for ji in T.vectorized(8):
                with T.sblock("C"):
                    vi = T.axis.spatial(16, i)
                    vj = T.axis.spatial(32, jo * 8 + ji)
                    C[vi, vj] = P[vj // divisor, vi, vj % divisor]
    return unpack


def loads(func):
    found = []

    class Walk(Visitor):
        def visit_BufferLoad(self, e: BufferLoad) -> None:
            found.append(e)
            self.generic_visit(e)

    Walk().visit(lower_blocks(func).body)
    return found


def names(load: BufferLoad) -> list[str]:
    return [i.name if isinstance(i, Var) else str(i.value) for i in load.indices]


def has_div_or_mod(node) -> bool:
    found = []

    class Walk(Visitor):
        def visit_BinOp(self, e: BinOp) -> None:
            found.append(e.op in (BinaryOp.FLOORDIV, BinaryOp.FLOORMOD))
            self.generic_visit(e)

    Walk().visit(node)
    return any(found)


def run(func, p: np.ndarray) -> np.ndarray:
    out = tvm.nd.array(np.zeros((16, 32), "float32"))
    tvm.build(func, target="llvm")["main"](tvm.nd.array(p), out)
    return out.numpy()


def reference(p: np.ndarray, divisor: int) -> np.ndarray:
    return np.array([[p[j // divisor, i, j % divisor] for j in range(32)] for i in range(16)])


def test_the_split_factor_folds_onto_the_loops() -> None:
    func = unpack_by(8)
    (load,) = loads(func)
    assert names(load) == ["jo", "i", "ji"]
    p = np.random.default_rng(0).random((4, 16, 8), "float32")
    np.testing.assert_array_equal(run(func, p), reference(p, 8))


def test_another_divisor_is_left_as_written() -> None:
    func = unpack_by(4)  # v // 4 of v = jo * 8 + ji is not jo
    (load,) = loads(func)
    assert has_div_or_mod(load)
    p = np.random.default_rng(1).random((8, 16, 4), "float32")
    np.testing.assert_array_equal(run(func, p), reference(p, 4))


def test_a_lone_loop_var_below_the_divisor_divides_to_zero() -> None:
    @T.prim_func
    def head(P: T.Buffer((2, 8), "float32"), C: T.Buffer((8,), "float32")):
        for j in range(8):
            with T.sblock("C"):
                vj = T.axis.spatial(8, j)
                C[vj] = P[vj // 8, vj % 8] + P[vj // 16, vj % 16]
    for load in loads(head):
        assert not has_div_or_mod(load)
        assert names(load) == ["0", "j"]
    p = np.random.default_rng(2).random((2, 8), "float32")
    out = tvm.nd.array(np.zeros(8, "float32"))
    tvm.build(head, target="llvm")["main"](tvm.nd.array(p), out)
    np.testing.assert_allclose(out.numpy(), p[0] * 2)
