"""`relax.analysis.suggest_layout_transforms`, against apache-tvm 0.27's answers: for an
elementwise block, the block and both buffers take the output's map; nothing is suggested for
maps that are not bijections or outputs not indexed by the block's iterators; bad maps raise."""

import pytest

from tvmlite import relax, tir
from tvmlite.script import tir as T


@T.prim_func
def relu(arg: T.Buffer((2, 8, 4, 4), "float32"), out: T.Buffer((2, 8, 4, 4), "float32")):
    for i0, i1, i2, i3 in T.grid(2, 8, 4, 4):
        with T.block("compute"):
            v0, v1, v2, v3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
            out[v0, v1, v2, v3] = T.max(arg[v0, v1, v2, v3], T.float32(0))


@T.prim_func
def flatten(arg: T.Buffer((4, 4), "float32"), out: T.Buffer((16,), "float32")):
    for i, j in T.grid(4, 4):
        with T.block("flatten"):
            vi, vj = T.axis.remap("SS", [i, j])
            out[vi * 4 + vj] = arg[vi, vj]


def test_elementwise_block_and_buffers_take_the_output_map():
    nhwc = relax.analysis.suggest_layout_transforms(
        relu, write_buffer_transforms=[lambda n, c, h, w: (n, h, w, c)])
    # apache-tvm: {compute: {compute: map, relu(out): map, arg: map}}, map = (n, h, w, c)
    (block, per_block), = nhwc.items()
    assert block.name_hint == "compute" and len(per_block) == 3
    want = tir.IndexMap.from_func(lambda n, c, h, w: (n, h, w, c))
    assert all(m == want for m in per_block.values())
    assert {getattr(k, "name", None) for k in per_block} >= {"arg", "out"}


def test_no_suggestion_where_tvm_makes_none():
    split5 = [lambda n, c, h, w: (n, c // 5, h, w, c % 5)]  # 8 channels do not split by 5
    assert relax.analysis.suggest_layout_transforms(relu, split5) == {}
    assert relax.analysis.suggest_layout_transforms(flatten, [lambda a: (a // 4, a % 4)]) == {}
    assert relax.analysis.suggest_layout_transforms(relu, []) == {}


def test_bad_maps_raise_as_in_tvm():
    with pytest.raises(RuntimeError, match="Mismatch between output buffer shape and index"):
        relax.analysis.suggest_layout_transforms(relu, [lambda n, h, w: (n, w, h)])
    with pytest.raises(RuntimeError, match="Incompatible PrimFunc and write_transformations"):
        relax.analysis.suggest_layout_transforms(relu, [lambda *a: a] * 3)
    with pytest.raises(AssertionError):
        relax.analysis.suggest_layout_transforms(relu, [2])
