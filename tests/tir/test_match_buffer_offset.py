"""A region matched with `offset_factor=` has an element-offset variable of its own
(`A0.elem_offset`), as TVM declares it: it prints back as `A0.elem_offset`, round-trips, and
lowering binds it (and `A0.data`) to where the region starts in its source buffer."""

from __future__ import annotations

from tvmlite.ir.structural import structural_equal
from tvmlite.script import from_source
from tvmlite.script import tir as T
from tvmlite.tir import expr as tx
from tvmlite.tir import stmt as ts
from tvmlite.tir.functor import Visitor, simplify, substitute
from tvmlite.tir.lower import lower_blocks


@T.prim_func(s_tir=True)
def tiles(A: T.Buffer((64, 64), "float16"), C: T.Buffer((64, 64), "float16")):
    for i, j in T.grid(4, 4):
        with T.sblock("tile"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vi * 16:vi * 16 + 16, vj * 16:vj * 16 + 16])
            T.writes(C[vi * 16, vj * 16])
            A0 = T.match_buffer(A[vi * 16:vi * 16 + 16, vj * 16:vj * 16 + 16], (16, 16),
                                "float16", strides=[64, 1], offset_factor=1)
            T.evaluate(T.call_extern("handle", "use", A0.data, A0.elem_offset, A0.strides[0]))
            C[vi * 16, vj * 16] = A0[1, 2]


def _tile_block(f):
    return f.body.block.body.body.body.block if isinstance(f.body, ts.BlockRealize) \
        else f.body.body.body.block


def test_offset_factor_gives_the_matched_buffer_an_offset_variable():
    buf = _tile_block(tiles).match_buffers[0].buffer
    assert isinstance(buf.elem_offset, tx.Var) and buf.offset_factor == 1


def test_offset_variable_prints_as_the_buffers_field_and_round_trips():
    text = tiles.script()
    assert "A0.elem_offset" in text and "A0.data" in text
    assert "offset_factor=1)" in text and "elem_offset=" not in text
    assert "T.int32()" not in text and "T.handle()" not in text  # nothing free
    assert structural_equal(from_source(text), tiles)


class _Calls(Visitor):
    def __init__(self) -> None:
        self.calls: list[tx.Call] = []

    def visit_Call(self, e: tx.Call) -> None:
        self.calls.append(e)
        self.generic_visit(e)


def test_lowering_binds_the_handle_and_offset_to_the_region_start():
    low = lower_blocks(tiles)
    found = _Calls()
    found.visit(low.body)
    call = next(c for c in found.calls if c.op == "tir.call_extern")
    data, offset = call.args[1], call.args[2]
    assert data is tiles.buffer_map[0][1].data
    loops = []
    node = low.body
    while not isinstance(node, ts.For):
        node = node.body
    while isinstance(node, ts.For):
        loops.append(node.loop_var)
        node = node.body
    i, j = loops
    for iv, jv in ((0, 0), (2, 3)):
        value = simplify(substitute(offset, {i: tx.const(iv), j: tx.const(jv)}))
        assert value.value == iv * 16 * 64 + jv * 16
