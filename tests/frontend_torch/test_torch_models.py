"""Imported PyTorch models run on tvmlite and agree with torch: a small CNN, a transformer
block, a symbolic batch dimension, and programs imported without decomposition."""

import os
import sys

import pytest

torch = pytest.importorskip("torch")

from tvmlite.frontend.common import detach_params  # noqa: E402
from tvmlite.frontend.torch import from_exported_program  # noqa: E402
from tvmlite.ir import struct_info as si  # noqa: E402
from tvmlite.tir import expr as tx  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
from torch_frontend_models import (  # noqa: E402
    Attention, SmallCNN, TorchModel, TransformerBlock, assert_close, export_model, run_relax,
    run_torch,
)

pytestmark = pytest.mark.filterwarnings("ignore:.*LeafSpec:FutureWarning")


def _ops(mod):
    """The relax op names main calls, in order."""
    return [b.value.op.name for blk in mod["main"].body.blocks for b in blk.bindings
            if hasattr(getattr(b.value, "op", None), "name")]


def test_cnn():
    torch.manual_seed(0)
    model, x = SmallCNN(), torch.randn(2, 3, 16, 16)
    mod, params = detach_params(from_exported_program(export_model(model, (x,)),
                                                      keep_params_as_input=True))
    ops = _ops(mod)
    for op in ("relax.nn.conv2d", "relax.nn.batch_norm", "relax.nn.max_pool2d",
               "relax.nn.avg_pool2d", "relax.reshape", "relax.matmul"):
        assert op in ops
    assert_close(run_relax(mod, x, *params["main"]), run_torch(model, x))


def test_transformer_block():
    # with a symbolic batch, so the views in between hold size expressions (8 * b, 32)
    torch.manual_seed(0)
    model = TransformerBlock()
    ep = export_model(model, (torch.randint(0, 50, (2, 8)),),
                      dynamic_shapes={"ids": {0: torch.export.Dim("b")}})
    mod = from_exported_program(ep)
    ops = set(_ops(mod))
    assert {"relax.take", "relax.nn.layer_norm", "relax.nn.softmax", "relax.nn.gelu",
            "relax.split", "relax.concat", "relax.mean", "relax.sum"} <= ops
    assert isinstance(mod["main"].ret_struct_info, si.TupleStructInfo)
    ids = torch.randint(0, 50, (3, 8))
    assert_close(run_relax(mod, ids), run_torch(model, ids))


def test_torch_attention():
    torch.manual_seed(0)
    model, q = Attention(), torch.randn(2, 4, 16)
    mod = from_exported_program(export_model(model, (q,)))
    assert_close(run_relax(mod, q), run_torch(model, q))


def test_symbolic_batch():
    torch.manual_seed(0)
    model = TorchModel()
    batch = torch.export.Dim("batch", max=64)
    ep = export_model(model, (torch.randn(2, 784),), dynamic_shapes={"x": {0: batch}})
    mod = from_exported_program(ep, unwrap_unit_return_tuple=True)
    main = mod["main"]
    n = main.params[0].struct_info.shape[0]
    assert isinstance(n, tx.Var) and main.ret_struct_info.shape[0] is n
    assert main.attrs["tir_var_upper_bound"] == {n.name: 64}
    for rows in (1, 5):
        x = torch.randn(rows, 784)
        assert_close(run_relax(mod, x), run_torch(model, x))


@pytest.mark.parametrize("make_model, shape", [(SmallCNN, (2, 3, 16, 16)),
                                               (TransformerBlock, (2, 8))])
def test_without_decomposition(make_model, shape):
    # linear, conv2d, batch_norm, layer_norm, chunk, softmax.int, silu, ... as torch.export
    # leaves them
    torch.manual_seed(0)
    model = make_model()
    x = torch.randn(shape) if make_model is SmallCNN else torch.randint(0, 50, shape)
    mod = from_exported_program(export_model(model, (x,)), run_ep_decomposition=False)
    assert_close(run_relax(mod, x), run_torch(model, x))
