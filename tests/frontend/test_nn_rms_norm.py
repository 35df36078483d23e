"""RMSNorm: `relax.nn.rms_norm`, its legalization, `nn.RMSNorm` in the nn frontend, and a torch
model with `torch.nn.RMSNorm` imported through torch.export; each against numpy / torch."""

from __future__ import annotations

import numpy as np
import pytest

import tvmlite as tvm
from tvmlite import relax
from tvmlite.relax.frontend import nn


def rms_norm_ref(x: np.ndarray, w: np.ndarray, eps: float = 1e-5) -> np.ndarray:
    return x / np.sqrt((x * x).mean(-1, keepdims=True) + eps) * w


class Block(nn.Module):
    def __init__(self) -> None:
        self.norm = nn.RMSNorm(16)
        self.proj = nn.Linear(16, 8, bias=False)

    def forward(self, x):
        return self.proj(self.norm(x))


def test_nn_rms_norm_runs_like_numpy() -> None:
    mod, params = Block().export_tvm({"forward": {"x": nn.spec.Tensor(("n", 16), "float32")}})
    assert "rms_norm = R.nn.rms_norm(x, norm_weight, axes=[-1], epsilon=1e-05)" in mod.script(
        show_all_struct_info=False)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 16)).astype("float32")
    w = rng.random(16).astype("float32")
    p = rng.standard_normal((8, 16)).astype("float32")
    vm = relax.VirtualMachine(relax.build(mod, "llvm"), tvm.cpu())
    np.testing.assert_allclose(vm["forward"](x, w, p).numpy(), rms_norm_ref(x, w) @ p.T,
                               rtol=1e-5, atol=1e-5)


@pytest.mark.filterwarnings("ignore:.*LeafSpec:FutureWarning")
def test_torch_rms_norm_imports() -> None:
    torch = pytest.importorskip("torch")
    from tvmlite.relax.frontend.torch import from_exported_program

    model = torch.nn.Sequential(torch.nn.RMSNorm(16, eps=1e-5), torch.nn.Linear(16, 4)).eval()
    x = torch.randn(2, 16)
    with torch.no_grad():
        mod = from_exported_program(torch.export.export(model, (x,)),
                                    unwrap_unit_return_tuple=True)
        want = model(x).numpy()
    mod = relax.transform.LegalizeOps()(mod)
    out = relax.VirtualMachine(relax.build(mod, "llvm"), tvm.cpu())["main"](x.numpy())
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-4, atol=1e-5)
