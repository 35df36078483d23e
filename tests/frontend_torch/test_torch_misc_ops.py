"""Indexing, padding, windows and random ops (frontend/torch/ops_misc.py): each deterministic
one against torch's result; the random ones by shape, dtype and what TVM 0.27 emits."""

import os
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402

from tvmlite.frontend.torch import from_exported_program  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
from torch_frontend_models import assert_close, export_model, run_relax, run_torch  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:.*LeafSpec:FutureWarning")


class Indexing(torch.nn.Module):
    def forward(self, x):
        return (x[1], x[:, -1], torch.narrow(x, 1, 1, 2), x[0, 2:3].reshape(1),
                F.pad(x, (1, 2), value=0.5), F.pad(x, (0, 1, 2, 0)),
                torch.hamming_window(7, dtype=torch.float32),
                torch.hamming_window(6, periodic=False, dtype=torch.float32))


def test_indexing_padding_and_windows_match_torch():
    x = torch.randn(3, 4, generator=torch.Generator().manual_seed(0))
    mod = from_exported_program(export_model(Indexing(), (x,)))
    assert_close(run_relax(mod, x), run_torch(Indexing(), x))


def test_select_is_a_take_of_a_scalar_index():
    mod = from_exported_program(export_model(Indexing(), (torch.randn(3, 4),)))
    text = mod.script()
    assert 'R.take(x, R.const(1, "int64"), axis=0)' in text
    assert "R.nn.pad(" in text and "R.hamming_window(" in text


class Item(torch.nn.Module):
    def forward(self, x):
        return x.item()


def test_item_is_the_first_element():
    x = torch.tensor([2.5])
    mod = from_exported_program(export_model(Item(), (x,)))
    out = run_relax(mod, x)
    assert float(np.asarray(out[0] if isinstance(out, (list, tuple)) else out)) == 2.5


class Random(torch.nn.Module):
    def forward(self, x):
        return x + torch.randn(5, 3), x + torch.randn_like(x), x.clone().exponential_()


def test_random_ops_keep_shape_and_dtype_and_exponential_is_zeros():
    x = torch.randn(5, 3)
    mod = from_exported_program(export_model(Random(), (x,)))
    ret = mod["main"].ret_struct_info
    for field in ret.fields:
        assert [int(d) for d in field.shape] == [5, 3] and field.dtype == "float32"
    outs = run_relax(mod, x)
    np.testing.assert_array_equal(np.asarray(outs[2]), np.zeros((5, 3), "float32"))
    assert "R.zeros_like(" in mod.script()


class IntPow(torch.nn.Module):
    def forward(self, x, f):
        return x.pow(3), x.pow(0), x.pow(1) + 1, f.pow(2)


def test_integer_pow_is_repeated_multiplication():
    x = torch.tensor([-2, 1, 3, 5], dtype=torch.int64)
    f = torch.tensor([0.5, -1.5, 2.0])
    mod = from_exported_program(export_model(IntPow(), (x, f)))
    assert_close(run_relax(mod, x, f), run_torch(IntPow(), x, f))
    text = mod.script()
    assert text.count("R.multiply(") == 2 and "R.power(" in text


class Pools(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv3d = torch.nn.Conv3d(2, 3, 2)
        self.emb = torch.nn.Embedding(10, 4)

    def forward(self, x1, x2, x3, ids):
        return (F.max_pool1d(x1, 2), F.avg_pool1d(x1, 3, stride=1, padding=1),
                F.adaptive_avg_pool1d(x1, 2), F.max_pool1d(x1[0], 2),  # no batch axis
                F.max_pool2d(x2, 2, stride=1), F.avg_pool2d(x2, [2, 1], divisor_override=2),
                F.adaptive_avg_pool2d(x2, 1), F.max_pool3d(x3, 2), F.avg_pool3d(x3, 2),
                F.adaptive_avg_pool3d(x3, 1), self.conv3d(x3),
                self.emb(ids), self.emb(ids[0]))


def test_pools_conv3d_and_embedding_match_torch():
    gen = torch.Generator().manual_seed(2)
    args = (torch.randn(2, 3, 8, generator=gen), torch.randn(1, 2, 6, 6, generator=gen),
            torch.randn(1, 2, 4, 4, 4, generator=gen), torch.tensor([[1, 7, 3], [0, 9, 2]]))
    model = Pools().eval()
    mod = from_exported_program(export_model(model, args))
    assert_close(run_relax(mod, *args), run_torch(model, *args))


def test_avg_pool_with_an_unusual_divisor_is_refused():
    class Odd(torch.nn.Module):
        def forward(self, x):
            return F.avg_pool2d(x, 2, divisor_override=3)

    with pytest.raises(NotImplementedError, match="divisor_override=3"):
        from_exported_program(export_model(Odd(), (torch.randn(1, 1, 4, 4),)))


class Norms(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.inorm = torch.nn.InstanceNorm2d(3)
        self.bn = torch.nn.BatchNorm2d(3, track_running_stats=False)

    def forward(self, x):
        return self.inorm(x), self.bn(x), x.view(2, 3, 4, 4) + 1


def test_batch_statistics_norms_match_torch():
    x = torch.randn(2, 3, 4, 4, generator=torch.Generator().manual_seed(3))
    model = Norms().eval()
    mod = from_exported_program(export_model(model, (x,)))
    assert_close(run_relax(mod, x), run_torch(model, x))
    text = mod.script()
    # the reshapes around the instance norm stay; the view to its own shape is none
    assert text.count("R.nn.instance_norm(") == 2 and text.count("R.reshape(") == 2


class TrainingBatchNorm(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.bn = torch.nn.BatchNorm2d(3)

    def forward(self, x):
        return self.bn(x)


def test_training_batch_norm_normalizes_by_the_batch():
    x = torch.randn(2, 3, 4, 4, generator=torch.Generator().manual_seed(4)) * 3 + 1
    model = TrainingBatchNorm().train()
    mod = from_exported_program(torch.export.export(model, (x,)))
    (out,) = run_relax(mod, x)
    with torch.no_grad():
        expected = TrainingBatchNorm().train()(x)
    np.testing.assert_allclose(out, expected.numpy(), rtol=1e-4, atol=1e-4)
    assert "training=True" in mod.script()


class Resizes(torch.nn.Module):
    def forward(self, x):
        return (F.interpolate(x, scale_factor=2, mode="bilinear"),
                F.interpolate(x, size=(7, 5), mode="bilinear", align_corners=True),
                F.interpolate(x, scale_factor=2, mode="nearest"),
                F.interpolate(x, size=(8, 8), mode="bilinear", antialias=True))


def test_upsampling_matches_torch():
    x = torch.randn(1, 2, 4, 4, generator=torch.Generator().manual_seed(5))
    mod = from_exported_program(export_model(Resizes(), (x,)))
    assert_close(run_relax(mod, x), run_torch(Resizes(), x))


def test_orthogonal_index_tensors_are_a_take_per_axis_and_zipped_ones_are_refused():
    x = torch.randn(2, 3, 5, 6, generator=torch.Generator().manual_seed(6))
    rows, cols = torch.tensor([4, 0, 2]), torch.tensor([5, 1])

    class Outer(torch.nn.Module):
        def forward(self, x, rows, cols):
            return x[:, :, rows.reshape(-1, 1), cols]

    mod = from_exported_program(export_model(Outer(), (x, rows, cols)))
    assert_close(run_relax(mod, x, rows, cols), run_torch(Outer(), x, rows, cols))

    class Zipped(torch.nn.Module):  # rows and cols pair up: not an outer product
        def forward(self, x, rows, cols):
            return x[:, :, rows, cols]

    with pytest.raises(NotImplementedError, match="outer product"):
        from_exported_program(export_model(Zipped(), (x, rows, rows)))


class Slices(torch.nn.Module):
    def forward(self, x):
        return x[:, 1::2], x[:, :], torch.norm(x, p=float("inf")), torch.norm(x, p=float("-inf"))


def test_slices_and_infinity_norms_match_torch_in_tvm_form():
    x = torch.randn(3, 5, generator=torch.Generator().manual_seed(7))
    mod = from_exported_program(export_model(Slices(), (x,)))
    assert_close(run_relax(mod, x), run_torch(Slices(), x))
    text = mod.script()
    assert text.count("R.strided_slice(") == 1  # x[:, :] is x itself
    assert "9223372036854775807" in text  # an open end stays open, as TVM writes it
    assert "R.max(" in text and "R.min(" in text and "R.power(" not in text


class WithNone(torch.nn.Module):
    def forward(self, x):
        return x + 1, None


def test_a_none_output_is_a_null_value():
    mod = from_exported_program(export_model(WithNone(), (torch.randn(3),)))
    assert "R.null_value()" in mod.script()
    assert str(mod["main"].ret_struct_info.fields[1]) in ("R.Object", "R.Any", "ObjectStructInfo()")


def test_custom_converters_find_the_importer_where_tvm_keeps_it():
    from tvmlite.relax import op as relax_op
    from tvmlite.relax.frontend.torch.exported_program_translator import (
        ExportedProgramImporter,
    )

    def subtract(node, importer: ExportedProgramImporter):
        x, y = (importer.env[a] for a in node.args[:2])
        return importer.block_builder.emit(relax_op.subtract(x, y))

    class Add(torch.nn.Module):
        def forward(self, x, y):
            return x + y

    x, y = torch.tensor([3.0, 1.0]), torch.tensor([1.0, 2.0])
    mod = from_exported_program(export_model(Add(), (x, y)),
                                custom_convert_map={"add.Tensor": subtract})
    np.testing.assert_allclose(run_relax(mod, x, y)[0], [2.0, -1.0])


def test_contiguous_as_strided_is_a_reshape_and_others_are_refused():
    class View(torch.nn.Module):
        def __init__(self, size, stride, offset=0):
            super().__init__()
            self.args = (size, stride, offset)

        def forward(self, x):
            return torch.ops.aten.as_strided.default(x, *self.args)

    x = torch.arange(12.0).reshape(2, 2, 3)
    model = View((3, 2, 2), (4, 2, 1))
    mod = from_exported_program(export_model(model, (x,)), run_ep_decomposition=False)
    assert_close(run_relax(mod, x), run_torch(model, x))
    for size, stride, offset, match in [((2, 2, 2), (6, 3, 1), 0, "non-contiguous"),
                                        ((2, 2), (2, 1), 1, "storage_offset")]:
        ep = export_model(View(size, stride, offset), (x,))
        with pytest.raises(NotImplementedError, match=match):
            from_exported_program(ep, run_ep_decomposition=False)


class Grids(torch.nn.Module):
    def forward(self, x, theta):
        grid = F.affine_grid(theta, [1, 2, 4, 5], align_corners=True)
        loose = F.affine_grid(theta, [1, 2, 4, 5], align_corners=False)
        return (grid, loose, F.grid_sample(x, grid, align_corners=True),
                F.grid_sample(x, loose, mode="nearest", padding_mode="border"))


def test_affine_grid_and_grid_sample_match_torch():
    gen = torch.Generator().manual_seed(8)
    x = torch.randn(1, 2, 4, 5, generator=gen)
    theta = torch.tensor([[[0.9, 0.2, 0.1], [-0.1, 1.1, 0.05]]])
    mod = from_exported_program(export_model(Grids(), (x, theta)))
    assert_close(run_relax(mod, x, theta), run_torch(Grids(), x, theta))
