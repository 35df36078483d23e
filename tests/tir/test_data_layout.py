"""tvm.s_tir layouts (slayout, sbijective_layout) and renew_defs; expected values are those
TVM 0.27 gives for the same calls."""

import pytest

import tvmlite as tvm
from tvmlite import s_tir, tir
from tvmlite.script import tir as T
from tvmlite.tir.functor import simplify, substitute


def ints(values):
    return [int(v.value) for v in values]


def test_a_layout_names_its_axes_and_factors() -> None:
    lay = s_tir.slayout("NCHW16c")
    assert (lay.name, len(lay), lay[0], lay[4], repr(lay)) == ("NCHW16c", 5, "N", "16c",
                                                              "SLayout(NCHW16c)")
    assert ("C" in lay, "c" in lay, "x" in lay) == (True, True, False)
    assert (lay.index_of("C"), lay.index_of("16c"), lay.index_of("c")) == (1, 4, -1)
    assert (lay.factor_of("C"), lay.factor_of("c"), lay.factor_of("H")) == (16, 16, -1)
    assert s_tir.slayout("") is None and s_tir.slayout("__undef__") is None


@pytest.mark.parametrize("bad", ["NCHW16C", "NCHWc", "NCHW8c16c", "NCHWc16"])
def test_malformed_layouts_are_errors(bad) -> None:
    with pytest.raises(ValueError, match="Invalid layout"):
        s_tir.slayout(bad)


def test_index_and_shape_maps_between_layouts() -> None:
    b = s_tir.sbijective_layout("NCHW", "NCHW16c")
    assert ints(b.forward_index([0, 18, 2, 3])) == [0, 1, 2, 3, 2]
    assert ints(b.backward_index([0, 1, 2, 3, 2])) == [0, 18, 2, 3]
    assert ints(b.forward_shape([1, 33, 7, 7])) == [1, 3, 7, 7, 16]  # rounded up
    assert ints(b.backward_shape([1, 2, 7, 7, 16])) == [1, 32, 7, 7]
    regroup = s_tir.sbijective_layout("NCHW16c", "NCHW4c")
    assert ints(regroup.forward_index([0, 1, 2, 3, 5])) == [0, 5, 2, 3, 1]  # channel 21
    assert ints(regroup.forward_shape([1, 2, 7, 7, 16])) == [1, 8, 7, 7, 4]
    assert ints(s_tir.sbijective_layout("NCHW", "NHWC").forward_index([1, 2, 3, 4])) == \
        [1, 3, 4, 2]
    n = tir.Var("n", "int32")
    outer, inner = b.forward_index([0, n, 2, 3])[1], b.forward_index([0, n, 2, 3])[4]
    for value in (0, 15, 16, 37):
        at = {n: tir.const(value, "int32")}
        assert simplify(substitute(outer, at)).value == value // 16
        assert simplify(substitute(inner, at)).value == value % 16
    with pytest.raises(ValueError, match="different primal axes"):
        s_tir.sbijective_layout("NCHW", "NCH")


def test_renew_defs_copies_every_definition() -> None:
    @T.prim_func
    def elementwise(A: T.Buffer((16, 16), "float32")):
        B = T.alloc_buffer((16, 16), "float32")
        for i, j in T.grid(16, 16):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] * T.float32(2)

    renewed = s_tir.renew_defs(elementwise)
    tvm.ir.assert_structural_equal(elementwise, renewed)
    assert all(x is not y for x, y in zip(elementwise.params, renewed.params))
    old_root, new_root = elementwise.body.block, renewed.body.block
    assert old_root.alloc_buffers[0].data is not new_root.alloc_buffers[0].data
    old_i, new_i = old_root.body.loop_var, new_root.body.loop_var
    assert old_i is not new_i and old_i.name == new_i.name
    old_blk, new_blk = old_root.body.body.body.block, new_root.body.body.body.block
    assert all(x.var is not y.var for x, y in zip(old_blk.iter_vars, new_blk.iter_vars))
