"""R.layout_transform of a symbolic axis split by a constant: the mapped shape in TVM's ceil
form `(b - b % -3) // 3`, the padded gather with TVM's predicate, and its values against numpy
(the tail of the last tile takes the pad value)."""

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax, tir
from tvmlite.script import ir as I
from tvmlite.script import relax as R
from tvmlite.tir.expr import BinaryOp


def test_map_shape_of_a_symbolic_dim_is_tvms_ceil_form():
    b = tir.Var("b", "int64")
    imap = tir.IndexMap.from_func(lambda i, j: (j, i // 3, i % 3), index_dtype="int64")
    c, q, r = imap.map_shape([b, tir.IntImm("int64", 5)])
    assert int(c) == 5 and int(r) == 3
    assert q.op is BinaryOp.FLOORDIV and int(q.b) == 3
    assert q.a.op is BinaryOp.SUB and q.a.a is b and q.a.b.op is BinaryOp.FLOORMOD
    assert int(q.a.b.b) == -3
    with pytest.raises(ValueError, match="i // c and i % c only"):
        tir.IndexMap.from_func(lambda i, j: (i + j,), index_dtype="int64").map_shape([b, 5])


def test_string_dim_takes_a_negative_int():
    @R.function
    def f(x: R.Tensor(("b", "(b - b % -3) // 3"), "float32")):
        return x

    b, q = f.params[0].struct_info.shape
    assert q.op is BinaryOp.FLOORDIV and q.a.a is b and int(q.a.b.b) == -3


@pytest.mark.parametrize("b", [7, 9])
def test_symbolic_padded_layout_transform_runs(b):
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor(("a", "b", "c"), "float32")):
            gv = R.layout_transform(x, index_map=lambda a, b, c: (a, c, b // 3, b % 3),
                                    pad_value=2.0)
            return gv

    legal = relax.transform.LegalizeOps()(Mod)
    assert "te_layout_transform_with_pad" in legal
    x = np.arange(2 * b * 4, dtype="float32").reshape(2, b, 4)
    vm = relax.VirtualMachine(relax.build(legal, target="llvm"), tvm.cpu())
    got = vm["main"](tvm.nd.array(x)).numpy()
    tiles = -(-b // 3)
    want = np.full((2, 4, tiles * 3), 2.0, "float32")
    want[:, :, :b] = x.transpose(0, 2, 1)
    np.testing.assert_array_equal(got, want.reshape(2, 4, tiles, 3))
