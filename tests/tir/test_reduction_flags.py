"""Which float reductions get `reassoc` (and so vectorize): contiguous ones, not strided ones."""

from tvmlite.script import tir as T
from tvmlite.tir.kernel_build import compile_prim_funcs


@T.prim_func
def dot_rows(X: T.Buffer((4, 64), "float32"), W: T.Buffer((8, 64), "float32"),
             Y: T.Buffer((4, 8), "float32")):
    for i, j, k in T.grid(4, 8, 64):
        with T.block("Y"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                Y[vi, vj] = T.float32(0)
            Y[vi, vj] = Y[vi, vj] + X[vi, vk] * W[vj, vk]  # both walk k contiguously


@T.prim_func
def column_walk(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"),
                C: T.Buffer((64, 64), "float32")):
    for i, j, k in T.grid(64, 64, 64):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]  # B is walked down a column


def test_contiguous_reduction_is_reassociated():
    ir_text, _ = compile_prim_funcs({"dot_rows": dot_rows})
    assert "fadd reassoc contract float" in ir_text


def test_strided_scalar_reduction_keeps_strict_order():
    ir_text, _ = compile_prim_funcs({"column_walk": column_walk})
    assert "reassoc" not in ir_text and "contract" not in ir_text
    assert "fadd float" in ir_text


def test_strict_target_never_reassociates():
    ir_text, _ = compile_prim_funcs({"dot_rows": dot_rows}, "llvm -fast-math=none")
    assert "reassoc" not in ir_text
