"""R.image.resize3d and R.image.grid_sample (ir/ops/image_ext.py, topi/image_ext.py): struct
info, printed form, and values against torch's interpolate and grid_sample."""

import numpy as np
import pytest
import torch
from op_helpers import RNG, roundtrip, run_graph

from tvmlite import relax
from tvmlite.ir.ops.base import OpError

IMG = relax.op.image
F = torch.nn.functional


def test_resize3d_trilinear_and_nearest_match_torch():
    x = RNG.standard_normal((1, 2, 3, 4, 5)).astype("float32")
    out = run_graph(lambda a: IMG.resize3d(a, (5, 6, 3)), [x])
    ref = F.interpolate(torch.from_numpy(x), size=(5, 6, 3), mode="trilinear",
                        align_corners=False).numpy()
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)
    out = run_graph(lambda a: IMG.resize3d(a, (6, 8, 10), method="nearest_neighbor",
                                           coordinate_transformation_mode="asymmetric"), [x])
    ref = F.interpolate(torch.from_numpy(x), size=(6, 8, 10), mode="nearest").numpy()
    np.testing.assert_array_equal(out, ref)


@pytest.mark.parametrize("padding_mode,align_corners", [("zeros", False), ("border", True)])
def test_grid_sample_bilinear_matches_torch(padding_mode, align_corners):
    x = RNG.standard_normal((2, 3, 4, 5)).astype("float32")
    grid = RNG.uniform(-1.3, 1.3, (2, 2, 3, 6)).astype("float32")  # TVM's (N, 2, H, W) grid
    out = run_graph(lambda a, g: IMG.grid_sample(a, g, padding_mode=padding_mode,
                                                 align_corners=align_corners), [x, grid])
    ref = F.grid_sample(torch.from_numpy(x), torch.from_numpy(grid.transpose(0, 2, 3, 1).copy()),
                        mode="bilinear", padding_mode=padding_mode,
                        align_corners=align_corners).numpy()
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)


def test_struct_info_and_printed_form():
    text = roundtrip(lambda a: IMG.resize3d(a, (4, 4, 4)), [(1, 3, 2, 2, 2)])
    assert "R.image.resize3d(" in text and "R.Tensor((1, 3, 4, 4, 4)" in text
    text = roundtrip(lambda a, g: IMG.grid_sample(a, g), [(1, 3, 8, 8), (1, 2, 5, 7)])
    assert 'padding_mode="zeros"' in text and "R.Tensor((1, 3, 5, 7)" in text


def test_bad_inputs_are_located():
    x = relax.Var("x", relax.TensorStructInfo((1, 3, 8, 8), "float32"))
    g = relax.Var("g", relax.TensorStructInfo((1, 3, 5, 7), "float32"))
    with pytest.raises(OpError, match="R.image.grid_sample: grid must hold 2 coordinates"):
        IMG.grid_sample(x, g)
    with pytest.raises(OpError, match="R.image.resize3d: data .NCDHW. must be 5-d"):
        IMG.resize3d(x, 4)
