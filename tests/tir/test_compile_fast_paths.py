"""The compile-speed shortcuts of lowering and codegen give what the plain passes give.

lower() flattens and simplifies in one walk (tir/lower.py `_FlattenSimplifier`); codegen asks
whole kernels questions with `functor.any_node` instead of visitors. Each is checked against
the pipeline or walk it replaced, on kernels with unrolled tiles, vector loops and parallel
loops (the shapes where the shortcuts matter).
"""

from __future__ import annotations

from tir_builders import linear0

import tvmlite as tvm
from tvmlite import te, topi
from tvmlite.ir.structural import structural_equal
from tvmlite.tir import BinaryOp, BinOp, BufferLoad, Cast, IntImm, Var, const, make_buffer
from tvmlite.tir.bf16_legalize import legalize_bf16
from tvmlite.tir.bounds import check_bounds
from tvmlite.tir.functor import any_node, post_order_visit, simplify
from tvmlite.tir.lower import (
    flatten_buffers, hoist_reduction_init, lower, lower_blocks, plan_allocations, unroll_loops,
)
from tvmlite.script import tir as T


def reference_lower(func):
    """lower() as the separate passes, flattening and simplifying in two walks."""
    func = lower_blocks(func)
    check_bounds(func, "k")
    func = hoist_reduction_init(unroll_loops(plan_allocations(func)))
    func = flatten_buffers(func)
    return func.with_body(simplify(func.body))


@T.prim_func
def matmul(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"),
           C: T.Buffer((64, 64), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    for i, j, k in T.grid(64, 64, 64):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]


def scheduled_matmul():
    """Register tile (cache_write), unrolled rows, vector columns, parallel outer loop."""
    sch = tvm.tir.Schedule(matmul)
    blk = sch.get_block("C")
    i, j, k = sch.get_loops(blk)
    i0, i1 = sch.split(i, [None, 4])
    j0, j1 = sch.split(j, [None, 16])
    sch.reorder(i0, j0, k, i1, j1)
    acc = sch.cache_write(blk, 0, "local")
    sch.reverse_compute_at(acc, j0)
    sch.vectorize(j1)
    sch.unroll(i1)
    sch.parallel(i0)
    sch.decompose_reduction(blk, k)
    return sch.mod["main"]


def conv_kernel():
    x = te.placeholder((1, 8, 10, 10), "float32", name="X")
    w = te.placeholder((16, 8, 3, 3), "float32", name="W")
    out = topi.nn.conv2d_nchw(x, w, (1, 1), (1, 1, 1, 1), (1, 1), 1)
    return te.create_prim_func([x, w, out])


def test_lower_equals_flatten_then_simplify() -> None:
    for func in (linear0(), scheduled_matmul(), conv_kernel()):
        got, want = lower(func), reference_lower(func)
        assert structural_equal(got.body, want.body, map_free_vars=True)
        assert got.script() == want.script()


def test_lowered_offsets_are_folded() -> None:
    body = lower(scheduled_matmul()).body
    offsets: list = []
    post_order_visit(body, lambda n: offsets.append(n.indices[0])
                     if isinstance(n, BufferLoad) else None)
    assert offsets and all(simplify(o) == o for o in offsets)
    # the unrolled rows' constants are folded into the offsets: no `0 * 64` is left
    assert not any_node(body, lambda n: isinstance(n, BinOp) and n.op is BinaryOp.MUL
                        and isinstance(n.a, IntImm) and isinstance(n.b, IntImm))


def test_any_node_finds_what_a_visitor_walks() -> None:
    i, n = Var("i"), Var("n")
    buf = make_buffer("A", (n,), "float32")
    load = BufferLoad(buf, (i * 4 + 1,))
    expr = Cast("float64", load) + const(1.0, "float64")
    assert any_node(expr, lambda x: x is i)  # inside an index tuple
    assert not any_node(expr, lambda x: x is n)  # a buffer's shape is not walked
    assert any_node(expr, lambda x: x is buf)  # the buffer itself is a node
    seen: list = []
    assert any_node(expr, lambda x: seen.append(x) or isinstance(x, Cast))
    assert len(seen) < 4  # stops at the first hit (the root's first operand here)


def test_binop_dtype_of_deep_chains() -> None:
    i = Var("i", "int64")
    e = i
    for k in range(200):
        e = e * 3 + k
    assert e.dtype == "int64"
    assert (e < 5).dtype == "bool"
    assert BinOp(BinaryOp.AND, e < 5, e > 1).dtype == "bool"
    assert BinOp(BinaryOp.ADD, Cast("int32", e), const(1)).dtype == "int32"


@T.prim_func
def bf16_round(A: T.Buffer((4,), "float32")):
    for i in range(4):
        A[i] = T.Cast("float32", T.Cast("bfloat16", A[i]))


@T.prim_func
def f32_double(A: T.Buffer((4,), "float32")):
    for i in range(4):
        A[i] = A[i] * T.float32(2)


def test_bf16_is_legalized_when_only_a_cast_mentions_it() -> None:
    func = lower(bf16_round)
    legal = legalize_bf16(func)
    assert legal is not func
    assert not any_node(legal.body, lambda x: getattr(x, "dtype", None) == "bfloat16")
    plain = lower(f32_double)
    assert legalize_bf16(plain) is plain


def test_mutator_rebuild_matches_dataclasses_replace() -> None:
    import dataclasses

    from tvmlite.tir import For, ForKind
    from tvmlite.tir.functor import substitute

    i, n, m = Var("i"), Var("n"), Var("m")
    buf = make_buffer("A", (16,), "float32")
    from tvmlite.tir import BufferStore
    loop = For(i, const(0), n, ForKind.UNROLLED, BufferStore(buf, const(1.0, "float32"), (i,)),
               annotations=(("pragma", 1),))
    got = substitute(loop, {n: m})
    assert got == dataclasses.replace(loop, extent=m)
    assert got.kind is ForKind.UNROLLED and got.annotations == loop.annotations
    assert got.body is loop.body  # unchanged children are kept, not copied


def test_affine_forms() -> None:
    from tvmlite.tir.arith import affine

    i, j, k = Var("i"), Var("j"), Var("k")
    form = affine((i * 4 + j) * 8 + k, {i, k})
    assert form is not None and form.coeffs == {i: 32, k: 1}
    assert structural_equal(form.base, j * 8, map_free_vars=False)
    free = j * 3 + 1
    assert affine(free, {i}).base is free  # a part without the vars is kept as it is
    assert affine(Cast("int64", i * 2 - j), {i}).coeffs == {i: 2}
    assert affine(i * j + 1, {i}) is None  # not linear in i
    assert affine((i // 2) + k, {k}).coeffs == {k: 1}  # a non-affine part without k is base


def test_simplify_wraps_int32_overflow() -> None:
    top = IntImm("int32", 0x7FFFFFFF)
    assert simplify(BinOp(BinaryOp.ADD, top, IntImm("int32", 1))).value == -0x80000000
    big = IntImm("int64", 0x7FFFFFFF)
    assert simplify(BinOp(BinaryOp.ADD, big, IntImm("int64", 1))).value == 0x80000000
    assert simplify(BinOp(BinaryOp.MUL, IntImm("int32", 3), IntImm("int32", 4))).value == 12
