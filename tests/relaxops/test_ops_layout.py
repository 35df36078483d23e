"""R.layout_transform (ir/ops/layout.py, topi/index_map_layout.py): struct info, TVM's printed
form, and values against numpy reshapes and transposes."""

import numpy as np
import pytest
from op_helpers import RNG, roundtrip, run_graph

from tvmlite import relax
from tvmlite.ir.ops.base import OpError
from tvmlite.script import from_source

LT = relax.op.layout_transform


def test_split_with_padding_matches_numpy():
    x = RNG.standard_normal((6, 4)).astype("float32")
    out = run_graph(lambda a: LT(a, lambda i, j: (i // 4, j, i % 4), pad_value=2.0), [x])
    padded = np.concatenate([x, np.full((2, 4), 2.0, "float32")])
    np.testing.assert_array_equal(out, padded.reshape(2, 4, 4).transpose(0, 2, 1))


def test_nchw_to_nchw4c_and_transpose():
    x = RNG.standard_normal((1, 8, 3, 5)).astype("float32")
    out = run_graph(lambda a: LT(a, lambda n, c, h, w: (n, c // 4, h, w, c % 4)), [x])
    np.testing.assert_array_equal(out, x.reshape(1, 2, 4, 3, 5).transpose(0, 1, 3, 4, 2))
    out = run_graph(lambda a: LT(a, lambda n, c, h, w: (w, n, h, c)), [x])
    np.testing.assert_array_equal(out, x.transpose(3, 0, 2, 1))


_TVM_PRINTED = '''
from tvm.script import relax as R
from tvm.script import tirx as T

@R.function
def main(x: R.Tensor((6, 4), dtype="float32")) -> R.Tensor((2, 4, 4), dtype="float32"):
    with R.dataflow():
        lv: R.Tensor((2, 4, 4), dtype="float32") = R.layout_transform(
            x, index_map=T.index_map(lambda i, j: (i // 4, j, i % 4)), pad_value=T.float32(2.0))
        gv: R.Tensor((2, 4, 4), dtype="float32") = lv
        R.output(gv)
    return gv
'''


def test_tvm_printed_form_parses_and_round_trips():
    func = from_source(_TVM_PRINTED)
    assert [int(d) for d in func.ret_struct_info.shape] == [2, 4, 4]  # type: ignore[union-attr]
    text = roundtrip(lambda a: LT(a, lambda i, j: (i // 4, j, i % 4), pad_value=2.0), [(6, 4)])
    assert "R.layout_transform(x0, index_map=T.index_map(lambda i, j:" in text


def test_bad_maps_are_refused():
    x = relax.Var("x", relax.TensorStructInfo((6, 4), "float32"))
    with pytest.raises(OpError, match="R.layout_transform: the index map takes 3 indices"):
        LT(x, lambda i, j, k: (i, j, k))
    with pytest.raises(NotImplementedError, match="cannot invert the output index"):
        run_graph(lambda a: LT(a, lambda i, j: (i + j, j)), [np.zeros((3, 3), "float32")])
