"""Block lowering: bindings, T.init, predicates, alloc_buffers, match_buffers, flattening."""

from __future__ import annotations

from tir_builders import TRUE, block, kernel, linear0, loops

from tvmlite.tir import (
    Allocate, BinaryOp, BinOp, Block, BlockRealize, BufferLoad, BufferRegion, BufferStore, For,
    IfThenElse, IntImm, Range, SeqStmt, Var, const, make_buffer,
)
from tvmlite.tir.functor import Visitor
from tvmlite.tir.lower import flatten_buffers, hoist_reduction_init, lower, lower_blocks
from tvmlite.tir.stmt import MatchBufferRegion


def node_names(stmt) -> list[str]:
    names: list[str] = []

    class Walk(Visitor):
        def visit(self, n):
            if not isinstance(n, tuple):
                names.append(type(n).__name__)
            return super().visit(n)

    Walk().visit(stmt)
    return names


def test_linear0_blocks_become_loops_with_init_guard() -> None:
    f = lower_blocks(linear0())
    names = node_names(f.body)
    assert "Block" not in names and "BlockRealize" not in names
    assert isinstance(f.body, Allocate) and f.body.buffer.name == "Y"
    k_loop = f.body.body.seq[0].body.body  # for i: for j: for k
    assert isinstance(k_loop, For) and k_loop.loop_var.name == "k"
    guard = k_loop.body.seq[0]
    assert isinstance(guard, IfThenElse)
    assert guard.condition.op is BinaryOp.EQ and guard.condition.a is k_loop.loop_var


def test_hoist_moves_init_before_the_reduction_loop() -> None:
    f = hoist_reduction_init(lower_blocks(linear0()))
    j_body = f.body.body.seq[0].body.body
    assert isinstance(j_body, SeqStmt)
    init, k_loop = j_body.seq
    assert isinstance(init, BufferStore) and isinstance(k_loop, For)
    assert "IfThenElse" not in node_names(k_loop)


def test_hoist_keeps_guard_when_extent_may_be_zero() -> None:
    n = Var("n", "int64")
    f = hoist_reduction_init(lower_blocks(linear0_sym_k(n)))
    first = f.body.body.seq[0].body.body.seq[0]
    assert isinstance(first, IfThenElse) and first.condition.op is BinaryOp.GT


def linear0_sym_k(n: Var):
    from tir_builders import linear
    return linear(1, n, 4)


def test_flatten_is_row_major() -> None:
    f = lower(linear0())
    stores: list[BufferStore] = []

    class Find(Visitor):
        def visit_BufferStore(self, s):
            stores.append(s)
            self.generic_visit(s)

    Find().visit(f.body)
    assert all(s.buffer.ndim == 1 for s in stores)
    z = [s for s in stores if s.buffer.name == "Z"][0]
    assert z.buffer.shape == (IntImm("int64", 128),)
    assert isinstance(z.indices[0], (BinOp, type(z.indices[0])))


def test_predicate_becomes_if() -> None:
    A = make_buffer("A", (10,))
    body = loops("i", (16,), lambda i: BlockRealize(
        (i,), BinOp(BinaryOp.LT, i, const(10)),
        block("A", "S", (i,), (10,), lambda vi: BufferStore(A, const(1.0), (vi,))).block))
    f = lower_blocks(kernel((A,), body))
    assert isinstance(f.body.body, IfThenElse)


def test_match_buffer_is_redirected_to_its_source() -> None:
    A = make_buffer("A", (4, 8))
    sub = make_buffer("S", (8,))
    region = BufferRegion(A, (Range(const(2, "int64"), const(1, "int64")),
                              Range(const(0, "int64"), const(8, "int64"))))
    inner = loops("j", (8,), lambda j: BufferStore(sub, const(5.0), (j,)))
    blk = Block("m", (), inner, match_buffers=(MatchBufferRegion(sub, region),))
    f = lower(kernel((A,), BlockRealize((), TRUE, blk)))
    store = f.body.body
    assert store.buffer.data is A.data
    assert "Allocate" not in node_names(f.body)


def test_flatten_leaves_the_buffer_map_nd_and_shares_data_vars() -> None:
    before = lower_blocks(linear0())
    f = flatten_buffers(before)
    assert [b.ndim for _, b in f.buffer_map] == [2, 2, 1, 2]
    loads: list[BufferLoad] = []

    class Find(Visitor):
        def visit_BufferLoad(self, e):
            loads.append(e)

    Find().visit(f.body)
    x = [e for e in loads if e.buffer.name == "X"][0]
    assert x.buffer.ndim == 1 and x.buffer.data is f.buffer_map[0][1].data


def test_a_buffer_passed_by_its_pointer_is_not_compacted():
    # memset may write all 8 floats of C: compacting C to the 4 elements the loop reads (or
    # sinking it into the loop) would hand the call a too-small buffer
    from tvmlite.script import from_source
    from tvmlite.tir.functor import post_order_visit
    from tvmlite.tir.stmt import Allocate

    src = ('from tvmlite.script import tir as T\n@T.prim_func(s_tir=True)\n'
           'def f(A: T.Buffer((4,), "float32")):\n'
           '    C = T.sblock_alloc_buffer((8,))\n'
           '    with T.sblock("fill"):\n        T.reads()\n        T.writes()\n'
           '        T.evaluate(T.call_extern("handle", "memset", C.data, 0, 32))\n'
           '    for i in range(4):\n        with T.sblock("A"):\n'
           '            vi = T.axis.spatial(4, i)\n            A[vi] = C[vi] + T.float32(1)\n')
    allocs = []
    post_order_visit(lower(from_source(src)).body,
                     lambda n: allocs.append(n) if isinstance(n, Allocate) else None)
    assert [tuple(d.value for d in a.buffer.shape) for a in allocs] == [(8,)]


def test_a_unit_loop_var_does_not_stop_compaction():
    # the stage reads C_local from `i_0 * 4 + i_1 * 4 + k` and writes it back from `i_0 * 4 + k`
    # (compute_at drops the unit loop i_1 as TVM does): one window all the same
    import numpy as np

    import tvmlite
    from tvmlite.script import from_source
    from tvmlite.tir.functor import post_order_visit
    from tvmlite.tir.stmt import Allocate

    src = ('from tvmlite.script import tir as T\n@T.prim_func(s_tir=True)\n'
           'def f(A: T.Buffer((32,), "float32"), B: T.Buffer((32,), "float32")):\n'
           '    C_local = T.sblock_alloc_buffer((32,), scope="local")\n'
           '    for i_0, i_1 in T.grid(8, 1):\n'
           '        for k in range(4):\n'
           '            with T.sblock("C"):\n'
           '                vi = T.axis.spatial(32, i_0 * 4 + i_1 * 4 + k)\n'
           '                C_local[vi] = A[vi] * T.float32(2)\n'
           '        for k in range(4):\n'
           '            with T.sblock("B"):\n'
           '                vi = T.axis.spatial(32, i_0 * 4 + k)\n'
           '                B[vi] = C_local[vi]\n')
    func = from_source(src)
    allocs = []
    post_order_visit(lower(func).body,
                     lambda n: allocs.append(n) if isinstance(n, Allocate) else None)
    assert [tuple(d.value for d in a.buffer.shape) for a in allocs] == [(4,)]
    a = np.arange(32, dtype="float32")
    b = np.zeros(32, "float32")
    tvmlite.build(func)(a, b)  # the compacted kernel
    np.testing.assert_array_equal(b, a * 2)
